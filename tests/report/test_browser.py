"""The HTML report in a real headless browser (Debian's Chromium), offline, from file://.

Checks: the page loads with no network, every figure and thumbnail decodes (the page's own
load check, read back from the DOM Chromium serialises), a screenshot is taken and is not
blank. The screenshot is kept as a test artifact: ``<pytest tmp dir>/report-screenshot.png``
(pytest keeps the last three runs under ``/tmp/pytest-of-<user>/``); the path is printed and
recorded as the test's ``screenshot`` property (in ``--junitxml`` output).

Skips only where no Chromium binary exists (``make test`` installs Debian's package first).
"""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path

import numpy as np
import pytest

from tests._helpers.browser import dump_dom, find_chromium, screenshot
from tests._helpers.synthetic_results import demo_result, write_pictures
from transcreval.report import ItemImages, plot_heatmap, plot_kendall_by_country, plot_win_rate_matrix, write_report
from transcreval.significance import compare_systems

pytest.importorskip("matplotlib", reason="the report's figures need the 'report' extra (matplotlib)")
CHROMIUM = find_chromium()
if CHROMIUM is None and os.environ.get("TRANSCREVAL_REQUIRE_BROWSER") == "1":  # set by .ci/run: CI must not skip
    raise RuntimeError("TRANSCREVAL_REQUIRE_BROWSER=1 but no Chromium was found; `make browser` installs it")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium binary (chromium, chromium-browser, google-chrome, or $TRANSCREVAL_CHROMIUM): "
    "`make test` installs Debian's chromium package; by hand: apt-get install -y chromium",
)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    res = demo_result()
    images = ItemImages(**write_pictures(out / "pictures", res, broken="item07"))
    figures = [
        ("Scenario x language (IMTBench style)", plot_heatmap(res, "score", system="sysA")),
        ("Win rate matrix (MPTc style)", plot_win_rate_matrix(res, "winrate", column="Win%")),
        ("Kendall tau per country (Khanuja style)", plot_kendall_by_country(res, "kendall")),
    ]
    paths = write_report(out, res, compare_systems(res, "base"), images=images, figures=figures, by="split")
    for p in (out / "pictures").iterdir():  # the page must not need the files it was built from
        p.unlink()
    return out, paths


def test_report_renders_offline_in_headless_chromium(written, record_property):
    out, paths = written
    html = paths["html"].read_text(encoding="utf-8")
    n_images = len(re.findall(r"<img\b", html))
    keys = re.findall(r'data-figure="([^"]+)"', html)
    assert len(keys) == 6 and n_images > 30  # 3 built-in + 3 protocol-style figures; gallery thumbnails

    dom = dump_dom(CHROMIUM, paths["html"])
    body = re.search(r"<body([^>]*)>", dom).group(1)
    assert 'data-report-ready="yes"' in body, "the page's load check did not run"
    assert f'data-images-ok="{n_images}"' in body and 'data-images-failed="0"' in body, body
    for key in keys:
        assert re.search(rf'data-figure="{re.escape(key)}"[^>]*data-rendered="yes"', dom), (
            f"figure {key} did not render"
        )
    assert "not an image" in dom  # the undecodable source picture is a labelled placeholder

    shot = screenshot(CHROMIUM, paths["html"], out / "report-screenshot.png")
    record_property("screenshot", str(shot))
    print(f"report screenshot kept at {shot}")
    from PIL import Image

    pixels = np.asarray(Image.open(shot).convert("RGB"))
    assert pixels.shape[:2] == (3000, 1280)
    not_white = (pixels < 245).any(axis=2).mean()
    assert not_white > 0.05, f"screenshot is nearly blank ({not_white:.1%} non-white pixels)"
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 200  # figures, not just text


def test_the_load_check_reports_a_broken_figure(written, tmp_path):
    """The check the browser test relies on can fail: a figure whose PNG is corrupt is caught."""
    _, paths = written
    html = paths["html"].read_text(encoding="utf-8")
    first = re.search(r'data-figure="[^"]+"><img src="data:image/png;base64,([^"]+)"', html)
    corrupt = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64).decode("ascii")
    page = tmp_path / "broken.html"
    page.write_text(html.replace(first.group(1), corrupt, 1), encoding="utf-8")
    dom = dump_dom(CHROMIUM, page)
    assert 'data-images-failed="1"' in dom and 'data-rendered="no"' in dom


def test_markdown_links_the_written_figures(written):
    out, paths = written
    md = paths["markdown"].read_text(encoding="utf-8")
    for link in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md):
        assert (out / link).is_file(), link
    assert Path(paths["html"]).name == "report.html"


def test_only_the_pages_own_script_runs(written, tmp_path):
    """The CSP names the page's script by its hash: the page's own load check
    still runs, while an inline script or style that got into the page otherwise does not (with
    the old 'unsafe-inline' it ran)."""
    _, paths = written
    html = paths["html"].read_text(encoding="utf-8")
    injected = (
        "<style>body { background: rgb(255, 0, 0); }</style>"
        "<script>document.body.setAttribute('data-injected', 'ran');</script>"
        "<img src=x onerror=\"document.body.setAttribute('data-onerror', 'ran')\">"
    )
    page = tmp_path / "injected.html"
    page.write_text(html.replace("</body>", injected + "</body>", 1), encoding="utf-8")
    dom = dump_dom(CHROMIUM, page)
    body = re.search(r"<body([^>]*)>", dom).group(1)
    assert 'data-report-ready="yes"' in body, "the page's own script was blocked"
    assert "data-injected" not in body and "data-onerror" not in body, body
