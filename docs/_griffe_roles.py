"""Griffe extension used by the documentation build.

- Docstrings assigned at import time (``f.__doc__ = ...``) are read from the
  imported object, since static analysis cannot see them.
- Sphinx roles (``:func:`x```, ``:class:`~a.b.C```) become inline code,
  reST citations (``.. [1] text``) plain lines, and a set of choices on a
  parameter's type line (``{"a", "b"} or float``) a plain type, and entries
  naming several parameters (``missing, weights``) one entry per name, so
  numpydoc text renders cleanly.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|term):`~?([^`]+)`")
_CITATION = re.compile(r"^(\s*)\.\. \[(\w+)\]", re.M)
# "name : {"a", "b"} or float, default "a"": griffe reads {...} as the whole type
_CHOICES = re.compile(r"^(\s*\*{0,2}\w+(?:, \*{0,2}\w+)* : )\{([^}]*)\}", re.M)
# "a, b, c" (optionally ": type") over one description: griffe gives all of them the
# signature default and annotation of the first, so each name gets its own entry
_NAMES = re.compile(
    r"^(?P<ind>[ \t]*)(?P<names>\w+(?:, \w+)+)(?P<type> : .*)?\n"
    r"(?P<desc>(?:(?P=ind)[ \t]+\S.*(?:\n|$))+)",
    re.M,
)


def _split_names(match: re.Match[str]) -> str:
    ind, typ, desc = match.group("ind"), match.group("type") or "", match.group("desc")
    if not desc.endswith("\n"):
        desc += "\n"
    return "".join(f"{ind}{name}{typ}\n{desc}" for name in match.group("names").split(", "))


def _short(match: re.Match[str]) -> str:
    target = match.group(1)
    if match.group(0).split("`", 1)[1].startswith("~"):
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _runtime_doc(obj: griffe.Object) -> str | None:
    try:
        module = importlib.import_module(obj.module.path)
    except Exception:
        return None
    value: Any = module
    for part in obj.path[len(obj.module.path) + 1 :].split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    if getattr(value, "__module__", None) != obj.module.path or not value.__doc__:
        return None  # not defined there, or no docstring of its own
    return inspect.cleandoc(value.__doc__)


class SphinxRoles(griffe.Extension):
    """Clean numpydoc docstrings for MkDocs."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is None and obj.is_function:
            text = _runtime_doc(obj)
            if text:
                obj.docstring = griffe.Docstring(text, parent=obj)
        if obj.docstring is not None:
            value = _ROLE.sub(_short, obj.docstring.value)
            value = _NAMES.sub(_split_names, value)
            value = _CHOICES.sub(lambda m: m.group(1) + " | ".join(m.group(2).split(", ")), value)
            obj.docstring.value = _CITATION.sub(r"\1[\2]", value)
