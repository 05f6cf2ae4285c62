"""Numeric cores.

Modules here import numba: import them only inside the functions that need them.
"""
