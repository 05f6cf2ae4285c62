"""What a lazy engine cannot do: the settings that need the records in memory.

polars ``LazyFrame``, DuckDB relations and Spark DataFrames keep their rows in the
engine; microsdc works there on the distinct key combinations. A setting that
works record by record is refused before a row is read, by the library
(:func:`microsdc.local_suppression` on a lazy frame), the command line
(``--engine``) and a job file (``input.engine``), each from the entry below and
with the entry's reason, worded in the names its reader uses.

Examples
--------
>>> entry, value = first_refusal({"method": "exact", "linked": None})
>>> entry.reason(value)
"method='exact' works on the records (small instances); method='greedy' works on patterns"
>>> text = refusal_text(entry, value, "--method", {"method": "--method"}, "Option", "see --help")
>>> text.split(": ")[0]
'--method needs the records in memory'
>>> text.split(": ")[1].split("; ")[0]
'--method exact works on the records (small instances)'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "NEEDS_RECORDS",
    "RECORDS_IN_MEMORY",
    "NeedsRecords",
    "first_refusal",
    "refusal_text",
]

#: the phrase every surface's refusal uses
RECORDS_IN_MEMORY = "needs the records in memory"


@dataclass(frozen=True)
class NeedsRecords:
    """One setting a lazy engine refuses.

    Attributes
    ----------
    param : str
        The library parameter (``"breaks"`` of a job's recoding and ``"swapping"``,
        a job step or command, stand for themselves).
    values : tuple or None
        The refused values; None refuses any value given (not None, False or empty).
    why : str
        Why it needs the records, in library names (``{value!r}`` is the value).
    instead : str
        What works on the distinct key combinations instead, if anything.
    """

    param: str
    values: tuple[Any, ...] | None
    why: str
    instead: str = ""

    def refuses(self, value: Any) -> bool:
        if self.values is None:
            return value is not None and value is not False and value != () and value != []
        return isinstance(value, str) and value in self.values

    def reason(self, value: Any) -> str:
        why = self.why.format(value=value)
        return f"{why}; {self.instead}" if self.instead else why


_GREEDY = "method='greedy' works on patterns"

#: The settings that need the records, in the order they are checked.
NEEDS_RECORDS: tuple[NeedsRecords, ...] = (
    NeedsRecords(
        "method", ("exact",), "method='exact' works on the records (small instances)", _GREEDY
    ),
    NeedsRecords(
        "method",
        ("random",),
        "method='random' works on the records (random blanks per record)",
        _GREEDY,
    ),
    NeedsRecords(
        "missing",
        ("probabilistic",),
        "missing={value!r} suppression works record by record (identical records can get "
        "different blanks)",
        "the default 'category', 'wildcard' or an alpha work on patterns",
    ),
    NeedsRecords("subject_id", None, "subjects are collapsed from their records"),
    NeedsRecords("linked", None, "blanking linked columns needs their values per record"),
    NeedsRecords(
        "dis_suda_threshold",
        None,
        "special uniques (DIS-SUDA) are searched record by record and measured again on "
        "the released records",
    ),
    NeedsRecords(
        "seed", None, "the seed draws the blanks of method='random', which works on the records"
    ),
    NeedsRecords(
        "breaks",
        None,
        "bands between given edges are cut in memory",
        "bands of one 'width' run in the engine",
    ),
    NeedsRecords("swapping", None, "households are paired and swapped record by record"),
    NeedsRecords(
        "pram_where",
        None,
        "a 'where' Series or array is aligned with the records in memory",
        "name a boolean column of the frame instead",
    ),
    NeedsRecords(
        "pram_hid",
        None,
        "households are PRAMmed as units: each household's members are checked and given "
        "its draw in memory",
    ),
    NeedsRecords(
        "microaggregation", None, "microaggregation groups the records themselves in memory"
    ),
    NeedsRecords("noise", None, "noise is drawn record by record in memory"),
    NeedsRecords(
        "risk_hid",
        None,
        "the household risk combines the individual risks of each household's members, "
        "record by record",
    ),
    NeedsRecords(
        "risk_sensitive",
        None,
        "l-diversity counts the sensitive values of the records of each key combination",
    ),
)


def first_refusal(settings: Mapping[str, Any]) -> tuple[NeedsRecords, Any] | None:
    """The first entry that refuses one of ``settings`` (library parameter -> value),
    with the refused value; None when a lazy engine can run them all."""
    for entry in NEEDS_RECORDS:
        if entry.param in settings and entry.refuses(settings[entry.param]):
            return entry, settings[entry.param]
    return None


def refusal_text(
    entry: NeedsRecords,
    value: Any,
    subject: str,
    names: Mapping[str, str],
    word: str,
    advice: str,
) -> str:
    """``"<subject> needs the records in memory: <reason>; <advice>."``, the reason
    worded in the reader's ``names`` (library parameter -> option or key, see
    :func:`microsdc._core.messages.render`)."""
    from microsdc._core.messages import render

    reason = render(ValueError(entry.reason(value)), names, word)
    return f"{subject} {RECORDS_IN_MEMORY}: {reason}; {advice}."
