"""`transcreval report DIR` in a real headless browser: the demo run's page (MPTc tables, the
protocol's Win% figure, galleries of the run's own pictures) loads offline from file://, every
figure and thumbnail decodes, and a non-blank screenshot is kept (the checks of
tests/report/test_browser.py, on a report the runner wrote)."""

from __future__ import annotations

import io
import os
import re

import numpy as np
import pytest

from tests._helpers.browser import dump_dom, find_chromium, screenshot
from transcreval.cli import main
from transcreval.demo import run_demo

pytest.importorskip("matplotlib", reason="the report's figures need the 'report' extra (matplotlib)")
pytest.importorskip("openai", reason="the demo's judge runs through the openai SDK")
CHROMIUM = find_chromium()
if CHROMIUM is None and os.environ.get("TRANSCREVAL_REQUIRE_BROWSER") == "1":
    raise RuntimeError("TRANSCREVAL_REQUIRE_BROWSER=1 but no Chromium was found; `make browser` installs it")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium binary (apt-get install -y chromium)")


def test_report_dir_renders_offline_in_headless_chromium(tmp_path, monkeypatch, record_property):
    monkeypatch.delenv("TRANSCREVAL_JUDGE_URL", raising=False)
    assert run_demo(io.StringIO(), out_dir=tmp_path / "demo", progress="none") == 0
    run = tmp_path / "demo" / "run"
    (run / "report.html").unlink()
    assert main(["report", str(run), "--by", "split"]) == 0
    html = (run / "report.html").read_text(encoding="utf-8")
    keys = re.findall(r'data-figure="([^"]+)"', html)
    n_images = len(re.findall(r"<img\b", html))
    assert any("win-over-gt" in k for k in keys) and len(keys) >= 3 and n_images > len(keys)
    for p in (tmp_path / "demo" / "data" / "images").iterdir():  # the page needs none of its sources
        p.unlink()
    dom = dump_dom(CHROMIUM, run / "report.html")
    body = re.search(r"<body([^>]*)>", dom).group(1)
    assert 'data-report-ready="yes"' in body
    assert f'data-images-ok="{n_images}"' in body and 'data-images-failed="0"' in body, body
    for key in keys:
        assert re.search(rf'data-figure="{re.escape(key)}"[^>]*data-rendered="yes"', dom), key
    shot = screenshot(CHROMIUM, run / "report.html", tmp_path / "runs-report-screenshot.png")
    record_property("screenshot", str(shot))
    print(f"report screenshot kept at {shot}")
    from PIL import Image

    pixels = np.asarray(Image.open(shot).convert("RGB"))
    assert (pixels < 245).any(axis=2).mean() > 0.05
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 200
