"""The reference of job-file keys, rendered as Markdown from the checks themselves.

The documentation's job-file page is built from :data:`microsdc.job.schema.SCHEMA`
(what each key accepts, and which keys are required) and
:data:`microsdc.job.schema.KEY_DOCS` (defaults and meanings), so that it cannot
drift from what :func:`microsdc.job.load_job` accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from microsdc.job.schema import KEY_DOCS, SCHEMA, _Key

__all__ = ["documented_keys", "job_reference_markdown", "schema_keys"]


def schema_keys(schema: Mapping[str, Any] = SCHEMA, prefix: str = "") -> list[str]:
    """Dotted names of every table and key of the job-file schema, in schema order.

    Examples
    --------
    >>> keys = schema_keys()
    >>> keys[:3]
    ['title', 'steps', 'input']
    >>> "recode.*.width" in keys
    True
    """
    out: list[str] = []
    for name, spec in schema.items():
        dotted = f"{prefix}{name}"
        out.append(dotted)
        if isinstance(spec, dict):
            out.extend(schema_keys(spec, dotted + "."))
    return out


def documented_keys() -> list[str]:
    """Dotted names that have an entry in :data:`microsdc.job.schema.KEY_DOCS`."""
    return list(KEY_DOCS)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _display(dotted: str) -> str:
    return dotted.replace("*", "<column>")


def job_reference_markdown(heading_level: int = 2) -> str:
    """Markdown reference of every job-file key: accepted values, default, meaning.

    One heading per table of the file, with a table of its keys. Keys missing
    from :data:`~microsdc.job.schema.KEY_DOCS` are listed with an empty
    meaning (the documentation tests fail on them).

    Parameters
    ----------
    heading_level : int >= 1, default 2
        Markdown level of the headings of the tables.

    Returns
    -------
    str
        Markdown text.

    Examples
    --------
    >>> text = job_reference_markdown()
    >>> "| `k` | an integer >= 1 | `3` |" in text
    True
    """
    hashes = "#" * heading_level
    top: list[str] = []
    sections: list[str] = []
    for name, spec in SCHEMA.items():
        if isinstance(spec, _Key):
            top.append(_row(name, spec))
        else:
            sections.append(_section(name, spec, hashes))
    head = [
        f"{hashes} Top level",
        "",
        "| Key | Value | Default | Meaning |",
        "|---|---|---|---|",
        *top,
        "",
    ]
    return "\n".join(head) + "\n" + "\n".join(sections)


def _section(dotted: str, schema: Mapping[str, Any], hashes: str) -> str:
    lines = [f"{hashes} `[{_display(dotted)}]`", ""]
    meaning = KEY_DOCS.get(dotted, (None, ""))[1]
    if meaning:
        lines += [meaning, ""]
    keys = [(n, s) for n, s in schema.items() if isinstance(s, _Key)]
    if keys:
        lines += ["| Key | Value | Default | Meaning |", "|---|---|---|---|"]
        lines += [_row(f"{dotted}.{n}", s) for n, s in keys]
        lines.append("")
    for name, sub in schema.items():
        if isinstance(sub, dict):
            lines.append(_section(f"{dotted}.{name}", sub, hashes + "#"))
    return "\n".join(lines)


def _row(dotted: str, spec: _Key) -> str:
    default, meaning = KEY_DOCS.get(dotted, (None, ""))
    if spec.required:
        shown = "required"
    elif default is None or default == "":
        shown = "–"
    elif "`" not in default and (default[:1].isdigit() or default[:1] in '"[.'):
        shown = f"`{default}`"
    else:
        shown = default
    name = dotted.rsplit(".", 1)[-1]
    return f"| `{name}` | {_cell(spec.wanted)} | {_cell(shown)} | {_cell(meaning)} |"
