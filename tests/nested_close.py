"""One comparison of nested audit figures for the tests that compare a job on an engine
with the same job on pandas."""

from __future__ import annotations

from typing import Any

import pytest


def assert_close(got: Any, want: Any) -> None:
    """Equal, floats to 1e-9 (sums over patterns and over records round differently),
    through dicts (same keys) and lists (same length)."""
    if isinstance(want, dict):
        assert got.keys() == want.keys()
        for key in want:
            assert_close(got[key], want[key])
    elif isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_close(g, w)
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)
    else:
        assert got == want
