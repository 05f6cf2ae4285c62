"""MkDocs hooks: pages generated from the code at build time."""

from __future__ import annotations

from typing import Any

MARKER = "<!-- job-reference -->"


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """Replace the job-reference marker by the reference rendered from the job-file checks."""
    if MARKER in markdown:
        from microsdc.job.reference import job_reference_markdown

        markdown = markdown.replace(MARKER, job_reference_markdown())
    return markdown
