"""The TOML text of a job file: where each key stands, and the document read with
errors a person can act on (the line, and how to quote a key a bare one cannot be)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from microsdc.exceptions import JobFileError

__all__ = ["key_lines", "load_toml"]

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r"\"(?:[^\"\\]|\\.)*\"|'[^']*'"
_PART = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_PART}(?:\s*\.\s*{_PART})*"
_HEADER_RE = re.compile(rf"^\s*\[\[?\s*({_DOTTED})\s*\]\]?")
_KEY_RE = re.compile(rf"^\s*({_DOTTED})\s*=")


def _split_dotted(text: str) -> tuple[str, ...]:
    parts = re.findall(rf"\s*({_PART})\s*(?:\.|$)", text)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Map each table header and key of a TOML document to its first line (1-based).

    A line scanner, not a parser: it follows ``[table]`` headers and
    ``key = value`` lines, which is all that is needed to point at a key. Keys
    inside inline tables or multi-line values are not listed; callers fall back
    to the enclosing key.
    """
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    in_multiline: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if in_multiline:
            if in_multiline in line:
                in_multiline = None
            continue
        header = _HEADER_RE.match(line)
        if header:
            table = _split_dotted(header.group(1))
            lines.setdefault(table, number)
            continue
        key = _KEY_RE.match(line)
        if key:
            path = table + _split_dotted(key.group(1))
            lines.setdefault(path, number)
            rest = line[key.end() :]
            for quote in ('"""', "'''"):
                if rest.count(quote) == 1:
                    in_multiline = quote
    return lines


def load_toml(text: str, source: Path) -> dict[str, Any]:
    """The TOML document ``text`` (of the file ``source``).

    Raises
    ------
    JobFileError
        For a document that is not valid TOML, with its line, and for a key (or table
        name) left bare with characters a bare key cannot hold, how to quote it.
    """
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        line = int(m.group(1)) if m else None
        raise JobFileError(
            f"not a valid TOML file: {exc}" + _bare_key_hint(text, line), path=source, line=line
        ) from None


def _quoted_key(key: str) -> str:
    """A dotted TOML key with every part that cannot be bare quoted: ``recode."âge"``."""
    parts = [p.strip() for p in key.split(".")]
    return ".".join(p if re.fullmatch(_BARE, p) or p[:1] in "\"'" else f'"{p}"' for p in parts)


def _bare_key_hint(text: str, line: int | None) -> str:
    """For a TOML error on a line whose key (or table name) holds characters a bare key
    cannot (accents, spaces): how to quote it; "" otherwise.

    Examples
    --------
    >>> print(_bare_key_hint("[recode.âge]", 1))  # doctest: +NORMALIZE_WHITESPACE
    . A bare key (or table name) holds only A-Z, a-z, 0-9, _ and -: quote a column name
    with other characters, as in [recode."âge"].
    >>> _bare_key_hint("k = [1,", 1)
    ''
    """
    lines = text.splitlines()
    if line is None or not 1 <= line <= len(lines):
        return ""
    stripped = lines[line - 1].strip()
    header = re.fullmatch(r"(\[\[?)([^\]\[=\"']+)(\]\]?)\s*(#.*)?", stripped)
    if header:
        key = header.group(2)
        fixed = f"{header.group(1)}{_quoted_key(key)}{header.group(3)}"
    elif "=" in stripped and not stripped.startswith(("[", "#")):
        key, value = stripped.split("=", 1)
        if any(q in key for q in "\"'"):
            return ""
        fixed = f"{_quoted_key(key)} ={value}"
    else:
        return ""
    if _quoted_key(key) == ".".join(p.strip() for p in key.split(".")):
        return ""  # every part can be bare: another error
    return (
        ". A bare key (or table name) holds only A-Z, a-z, 0-9, _ and -: quote a column "
        f"name with other characters, as in {fixed}."
    )
