"""The report in a real browser: headless Chromium renders it without errors, every figure visible.

Needs Debian's ``chromium`` and ``chromium-driver`` packages and the ``selenium``
package (``test`` extra); skipped with the reason when one is missing. A
full-page screenshot of each report is kept in ``tests/report/artifacts/``.
"""

from __future__ import annotations

import base64
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from microsdc.job import JobResult

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--window-size=1200,900",
]

# every figure: present, image decoded, laid out with a real size, not hidden, inside the page
CHECK_FIGURES = """
const out = [];
for (const fig of document.querySelectorAll('figure')) {
  const img = fig.querySelector('img');
  const r = img ? img.getBoundingClientRect() : null;
  const style = img ? getComputedStyle(img) : null;
  out.push({
    id: fig.id,
    complete: !!img && img.complete,
    naturalWidth: img ? img.naturalWidth : 0,
    width: r ? r.width : 0,
    height: r ? r.height : 0,
    left: r ? r.left + window.scrollX : -1,
    right: r ? r.right + window.scrollX : -1,
    visible: !!style && style.visibility === 'visible' && style.display !== 'none'
             && parseFloat(style.opacity) > 0,
    pageWidth: document.documentElement.scrollWidth,
  });
}
return out;
"""


def _missing() -> str | None:
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not Path(path).exists():
            return f"{path} not found: install Debian's {package} package"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: pip install 'microsdc[test]'"
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    reason = _missing()
    if reason:
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def _open(browser: Any, result: JobResult) -> list[dict[str, Any]]:
    browser.get(result.written["report"].as_uri())
    browser.execute_script("return document.readyState")
    return list(browser.execute_script(CHECK_FIGURES))


def _screenshot(browser: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = browser.execute_cdp_cmd(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}
    )
    path = ARTIFACTS / f"{name}.png"
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


@pytest.mark.parametrize("which", ["full_report", "risk_report"])
def test_report_in_chromium(browser: Any, which: str, request: pytest.FixtureRequest) -> None:
    result: JobResult = request.getfixturevalue(which)
    figures = _open(browser, result)
    logs = browser.get_log("browser")
    errors = [entry for entry in logs if entry.get("level") in ("SEVERE", "ERROR")]
    assert errors == [], errors
    expected = {"fig-fk", "fig-risk"}
    if result.audit["swapping"]:
        expected |= {"fig-swap-areas", "fig-swap-utility"}
    if result.audit["suppression"]:
        expected.add("fig-suppression")
    assert {f["id"] for f in figures} == expected
    for f in figures:
        assert f["complete"] and f["naturalWidth"] > 0, f  # the PNG decoded
        assert f["visible"], f
        assert f["width"] >= 300 and f["height"] >= 120, f  # laid out at a readable size
        assert f["left"] >= 0 and f["right"] <= f["pageWidth"] + 1, f  # not cut off
    # nothing was fetched from anywhere: every resource is inline
    fetched = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    assert [u for u in fetched if not u.startswith("data:")] == []
    title = browser.execute_script("return document.querySelector('h1').textContent")
    assert title == result.audit["title"]
    path = _screenshot(browser, f"report_{which}")
    assert path.stat().st_size > 50_000


def test_report_on_a_narrow_screen(browser: Any, full_report: JobResult) -> None:
    browser.set_window_size(420, 900)
    try:
        figures = _open(browser, full_report)
        for f in figures:
            assert f["width"] > 0 and f["right"] <= f["pageWidth"] + 1, f
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 1  # tables scroll inside their box; the page itself does not
        _screenshot(browser, "report_narrow")
    finally:
        browser.set_window_size(1200, 900)
