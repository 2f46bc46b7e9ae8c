"""The HTML report opens in headless Chromium without errors and shows its plots."""

import pathlib

import pytest
from test_robustness import suite_file, toy

CHROMIUM = pathlib.Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="Debian chromium not installed (.ci/run installs it with apt-get)"
    ),
]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def test_report_html_renders_with_plots(tmp_path):
    pytest.importorskip("text_to_num")
    from playwright.sync_api import sync_playwright

    from perturber.robustness.analysis import Options
    from perturber.robustness.evaluate import evaluate
    from perturber.robustness.report import write_report

    cases = suite_file(tmp_path)
    evaluate(str(cases), toy, tmp_path / "results.jsonl")
    write_report([str(tmp_path / "results.jsonl")], str(tmp_path / "report"), options=Options(min_n=1))
    url = (tmp_path / "report" / "report.html").as_uri()
    errors = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.on("requestfailed", lambda req: errors.append(f"failed: {req.url}"))
        page.goto(url)
        page.wait_for_load_state("load")
        widths = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.complete && i.naturalWidth)")
        first_row = page.inner_text("#perturbations tr:nth-child(2) td:first-child")
        collapse = page.inner_text("#collapse")
        width = page.evaluate("document.documentElement.scrollWidth")
        browser.close()
    assert errors == []
    assert len(widths) == 3 and all(w and w > 100 for w in widths)
    assert first_row == "spaces"
    assert "L3" in collapse and "L2" in collapse
    assert width <= 1200  # long diffs wrap instead of widening the page
