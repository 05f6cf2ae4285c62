"""The HTML report: self-contained, every figure there, aggregates only, no seed."""

from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser

import jsonschema
import pandas as pd

from microsdc.job import JobResult
from microsdc.report import audit_schema, plain_summary, render_report


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(html: str) -> _Collect:
    p = _Collect()
    p.feed(html)
    return p


def _expected_figures(result: JobResult) -> set[str]:
    figs = {"fig-fk", "fig-risk"}
    if result.audit["swapping"]:
        figs |= {"fig-swap-areas", "fig-swap-utility"}
    if result.audit["suppression"]:
        figs.add("fig-suppression")
    return figs


def test_self_contained(full_report: JobResult) -> None:
    html = full_report.report_html
    page = _parse(html)
    tags = {t for t, _ in page.tags}
    assert "script" not in tags and "link" not in tags and "iframe" not in tags
    for tag, attrs in page.tags:
        for name in ("src", "href"):
            value = attrs.get(name)
            if value is not None:
                assert value.startswith("data:image/png;base64,"), (tag, value[:40])
    assert not re.search(r"url\(\s*['\"]?(?!data:)", html)
    assert "@import" not in html


def test_every_figure_is_a_png(full_report: JobResult) -> None:
    page = _parse(full_report.report_html)
    figures = [a["id"] for t, a in page.tags if t == "figure"]
    assert set(figures) == _expected_figures(full_report)
    assert len(figures) == len(set(figures))
    images = [a for t, a in page.tags if t == "img"]
    assert len(images) == len(figures)
    for img in images:
        assert img["alt"]
        src = img["src"] or ""
        data = base64.b64decode(src.split(",", 1)[1])
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert len(data) > 5000


def test_risk_only_report_has_the_risk_figures(risk_report: JobResult) -> None:
    page = _parse(risk_report.report_html)
    assert {a["id"] for t, a in page.tags if t == "figure"} == {"fig-fk", "fig-risk"}
    assert "no protection step was run" in risk_report.report_html


def test_no_seed_no_ids_no_unique_records(
    full_report: JobResult, secrets: dict[str, object]
) -> None:
    SEED, PLANTED = secrets["seed"], secrets["planted"]
    for text in (full_report.report_html, json.dumps(full_report.audit)):
        assert str(SEED) not in text
        assert PLANTED not in text
        assert "hid_swapped" not in text
    # the seed is not in the released data either
    written = full_report.written["data"]
    assert str(SEED) not in written.read_text()
    assert "given (not shown)" in full_report.report_html
    # no row of the input, in any rendering, is in the report
    page = "".join(_parse(full_report.report_html).text)
    data = pd.read_csv(full_report.config.input_path)
    row = data.iloc[7]
    assert row["job"] == PLANTED
    assert ",".join(str(v) for v in row.tolist()) not in page


def test_title_is_escaped(full_report: JobResult) -> None:
    assert "Report test &lt;survey&gt; &amp; co" in full_report.report_html
    assert "<survey>" not in full_report.report_html


def test_summary_tells_what_was_done_and_what_remains(
    full_report: JobResult, suppression_available: bool
) -> None:
    audit = full_report.audit
    paras = plain_summary(audit)
    text = " ".join(paras)
    before, after = audit["risk"]["before"], audit["risk"]["after"]
    assert f"The file has {before['n_records']:,} records" in text
    assert f"{before['n_at_risk']:,} records" in text
    assert f"{after['n_at_risk']:,} records are in groups smaller than 3" in text
    assert "swapping exchanged the geography" in text
    assert "it is kept out of this" in text
    if suppression_available:
        assert "Local suppression blanked" in text
    for p in paras:
        assert p in full_report.report_html or p.replace("'", "&#39;") in full_report.report_html


def test_report_renders_from_the_written_audit(full_report: JobResult) -> None:
    audit = json.loads(full_report.written["audit"].read_text())
    jsonschema.Draft202012Validator(audit_schema()).validate(audit)
    html = render_report(audit)
    assert _parse(html).tags == _parse(full_report.report_html).tags
