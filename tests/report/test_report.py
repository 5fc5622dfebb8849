"""The report's content (Markdown, HTML), galleries, thumbnails and plot helpers, on synthetic
protocol results (the browser rendering is in tests/report/test_browser.py)."""

from __future__ import annotations

import io
import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest

from tests._helpers.synthetic_results import demo_result, write_pictures
from transcreval.errors import InputError
from transcreval.protocols.records import ItemRecord, ProtocolResult
from transcreval.report import ItemImages, build_report, render_html, render_markdown, select_items
from transcreval.report.document import fmt_ci
from transcreval.report.thumbs import thumbnail_png
from transcreval.significance import compare_systems, summarize


@pytest.fixture(scope="module")
def res():
    return demo_result()


@pytest.fixture(scope="module")
def cmp(res):
    return compare_systems(res, "base", n_resamples=500)


def _row(md: str, *cells: str) -> str:
    pattern = r"^\| " + r" \| ".join(re.escape(c) for c in cells) + r" \|.*$"
    found = re.search(pattern, md, flags=re.M)
    assert found, f"no row starting with {cells}"
    return found.group(0)


def test_markdown_values_intervals_arrows_and_counts(res, cmp):
    md = render_markdown(res, cmp, by="split", n_resamples=500)
    cells = {(c.system, c.metric): c for c in summarize(res, n_resamples=500)}
    a = cells[("sysA", "score")]
    row = _row(md, "score", "sysA")
    assert fmt_ci(a.value, a.ci, 2) in row and row.endswith("| 24 | 0 |")
    assert "↑" in row and f"{cmp.get('sysA', 'score').delta:+.2f}" in row
    assert "·" in _row(md, "score", "sysB")  # not significant
    assert "↓" in _row(md, "judge", "sysB") and _row(md, "judge", "sysB").endswith("| 21 | 3 |")
    assert "(baseline)" in _row(md, "score", "base")
    # n and n_missing per group
    surface = [c for c in summarize(res, by="split", n_resamples=500) if c.group == "surface"]
    sb = next(c for c in surface if (c.system, c.metric) == ("sysB", "judge"))
    assert _row(md, "judge", "sysB", "surface").endswith(f"| {sb.n} | {sb.n_missing} |") and sb.n_missing == 2
    # the protocol's own tables, with n and missing counts and intervals where cells have them
    assert _row(md, "qwen / gemini").endswith("| - | 41.5 (n=38, 2 missing) |")
    assert "0.100 ± 0.200 (n=30)" in md
    assert "![" not in md  # no figure without a figure directory


def test_direction_marks_better_and_worse_in_html(res, cmp):
    page = render_html(res, cmp, plots=False, higher_is_better={"judge": False, "score": True}, gallery_metrics=[])
    assert re.search(r'<td class="better"[^>]*>-0\.\d\d \[[^<]*↓</td>', page)  # sysB judge down: better
    assert re.search(r'<td class="better"[^>]*>\+5\.\d\d \[[^<]*↑</td>', page)  # sysA score up: better
    assert re.search(r'<td class="worse"[^>]*>\+0\.\d\d \[[^<]*↑</td>', page)  # sysA judge up: worse


def test_html_is_self_contained_and_escaped(res, cmp, tmp_path):
    pytest.importorskip("matplotlib")
    recs = [*res.records, ItemRecord("item00", "<script>alert(1)</script>", "score", 1.0, group="src0")]
    odd = ProtocolResult("demo", tuple(recs), res.tables)
    images = ItemImages(**write_pictures(tmp_path, res))
    page = render_html(odd, cmp, images=images, max_plot_metrics=1, gallery_k=1)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    urls = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", page)
    assert len(urls) > 10 and all(u.startswith("data:image/png;base64,") for u in urls)
    assert "http:" not in page and "https:" not in page and "<link" not in page
    assert "Content-Security-Policy" in page


def test_markdown_needs_no_matplotlib():
    code = (
        "import sys; sys.path.insert(0, '.')\n"
        "from tests._helpers.synthetic_results import demo_result\n"
        "from transcreval.report import render_markdown\n"
        "from transcreval.significance import compare_systems\n"
        "r = demo_result(); render_markdown(r, compare_systems(r, 'base', n_resamples=50), n_resamples=50)\n"
        "import transcreval.report.plots\n"
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.strip() == "False"


def test_plots_without_matplotlib_name_the_extra():
    code = (
        "import sys; sys.path.insert(0, '.'); sys.modules['matplotlib'] = None\n"
        "from tests._helpers.synthetic_results import demo_result\n"
        "from transcreval.errors import MissingDependencyError\n"
        "from transcreval.report import build_report, plot_distributions, render_markdown\n"
        "r = demo_result(); render_markdown(r, n_resamples=50)\n"
        "for call in (lambda: plot_distributions(r, 'score'), lambda: build_report(r, n_resamples=50)):\n"
        "    try:\n"
        "        call()\n"
        "    except MissingDependencyError as e:\n"
        "        print(str(e))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2 and all("pip install 'transcreval[report]'" in x for x in lines), out.stdout


def test_a_picture_in_several_galleries_is_shrunk_once(res, cmp, tmp_path, monkeypatch):
    import transcreval.report.gallery as gallery

    images = ItemImages(**write_pictures(tmp_path, res))
    calls = []
    real = gallery.thumbnail_png
    monkeypatch.setattr(gallery, "thumbnail_png", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    report = build_report(res, cmp, images=images, plots=False, gallery_k=3)
    shown = [t for b in report.blocks if hasattr(b, "cards") for c in b.cards for t in c.thumbs]
    assert len(calls) == len(set(map(str, calls))) < len(shown)


def test_gallery_selection(res):
    picked = select_items(res, "judge", "sysB", baseline="base", k=3)
    ok = {r.item_id: r.value for r in res.select(system="sysB", metric="judge") if r.ok}
    base = {r.item_id: r.value for r in res.select(system="base", metric="judge")}
    assert [i for i, _, _ in picked["best"]] == sorted(ok, key=lambda i: -ok[i])[:3]
    assert [i for i, _, _ in picked["worst"]] == sorted(ok, key=lambda i: ok[i])[:3]
    assert [i for i, _, _ in picked["disagreeing"]] == sorted(ok, key=lambda i: -abs(ok[i] - base[i]))[:3]
    low = select_items(res, "judge", "sysB", k=2, higher_is_better=False)
    assert [i for i, _, _ in low["best"]] == [i for i, _, _ in picked["worst"][:2]] and low["disagreeing"] == []
    assert all(not math.isnan(v) for _, v, _ in picked["best"] + picked["worst"])
    with pytest.raises(InputError, match="k must be a positive integer"):
        select_items(res, "judge", "sysB", k=0)


def test_thumbnail_overlays_the_mask_in_red():
    from PIL import Image

    black = np.zeros((40, 60, 3), dtype=np.uint8)
    mask = np.zeros((40, 60), dtype=bool)
    mask[:, :30] = True
    im = np.asarray(Image.open(io.BytesIO(thumbnail_png(black, mask, size=60))).convert("RGB")).astype(int)
    assert im.shape == (40, 60, 3)
    assert (im[:, 2:28, 0] > 90).all() and (im[:, 2:28, 1] < 30).all()  # text pixels tinted red
    assert (im[:, 32:] == 0).all()  # the rest untouched
    plain = np.asarray(Image.open(io.BytesIO(thumbnail_png(black, size=30))))
    assert plain.shape[:2] == (20, 30)  # longest side = size, aspect kept


def test_galleries_show_pictures_and_placeholders(res, cmp, tmp_path):
    images = ItemImages(**write_pictures(tmp_path, res, broken="item07"))
    report = build_report(res, cmp, images=images, plots=False, gallery_metrics=["score"], gallery_k=2)
    cards = [c for b in report.blocks if hasattr(b, "cards") for c in b.cards]
    assert cards and all(len(c.thumbs) in (3, 4) for c in cards)
    broken = [t for c in cards if c.item_id == "item07" for t in c.thumbs if t[0] == "source"]
    assert broken and all(png is None and "not an image" in why for _, png, why in broken)
    assert all(png is not None for c in cards if c.item_id != "item07" for _, png, _ in c.thumbs)
    with pytest.raises(InputError, match=r"ItemImages\.size"):
        ItemImages(size=4)


@pytest.mark.parametrize("name", ["source", "reference"])
def test_pictures_are_asked_by_role_and_system_never_by_a_name_read_as_role(name):
    """A system named "source" or "reference" (not reserved) got the source / reference picture
    and mask as its own: outputs and their masks are asked for by system, apart from the roles."""
    mask = np.ones((4, 4), dtype=bool)
    images = ItemImages(
        source={"i": "src.png"},
        reference={"i": "ref.png"},
        outputs={name: {"i": "out.png"}},
        masks={"source": {"i": "src-mask"}},
        output_masks={name: {"i": mask}},
    )
    assert images.image("output", "i", name) == "out.png"
    assert (images.image("source", "i"), images.image("reference", "i")) == ("src.png", "ref.png")
    assert images.mask("output", "i", name) is mask and images.mask("reference", "i") is None
    assert images.mask("source", "i") == "src-mask" and images.mask("output", "i", "other") is None
    with pytest.raises(InputError, match="'source', 'reference' or 'output'"):
        images.image(name + "-x", "i")
    with pytest.raises(InputError, match="needs its system"):
        images.image("output", "i")
    with pytest.raises(InputError, match=r"output_masks=\{system"):
        ItemImages(masks={"sysA": {"i": mask}})


def test_bad_report_input(res):
    with pytest.raises(InputError, match="one ProtocolResult or a list"):
        render_markdown([])
    with pytest.raises(InputError, match="Comparisons object"):
        render_markdown(res, comparisons=[{"not": "comparisons"}])


def test_report_settings_paragraph_and_json_of_comparisons(res, cmp):
    md = render_markdown(res, cmp, n_resamples=50, gallery_metrics=[])
    assert "paired bootstrap test (500 resamples, seed 12345)" in md
    json.dumps(cmp.to_dict(), allow_nan=False)


def test_a_comparison_on_too_few_source_items_is_shown_as_such():
    """Two source items: the report says why the delta carries no significance mark."""
    recs = []
    for k in range(2):
        recs.append(ItemRecord(f"i{k}", "base", "m", 0.1 * k, "ok", f"src{k}"))
        recs.append(ItemRecord(f"i{k}", "new", "m", 0.1 * k + 0.5, "ok", f"src{k}"))
    tiny = ProtocolResult("demo", tuple(recs), {})
    md = render_markdown(tiny, compare_systems(tiny, "base"), gallery_metrics=[])
    row = _row(md, "m", "new")
    assert "(too few source items)" in row and "·" in row and "↑" not in row
