"""A report one can read: the leaderboard first, long tables folded,
galleries on a continuous metric with deterministic and visible tie-breaks, heatmaps on a fixed
scale, and a run's tables as readable text (and HTML in notebooks)."""

from __future__ import annotations

import math
import random
import re

import pytest

from tests._helpers.synthetic_results import demo_result
from transcreval.errors import InputError
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table
from transcreval.report import build_report, render_html, render_markdown, select_items
from transcreval.report.blocks import TableBlock
from transcreval.report.document import fmt_ci
from transcreval.significance import compare_systems, summarize


@pytest.fixture(scope="module")
def res():
    return demo_result()


@pytest.fixture(scope="module")
def cmp(res):
    return compare_systems(res, "base", n_resamples=200)


def test_the_leaderboard_comes_first_with_intervals_and_marks(res, cmp):
    report = build_report(res, cmp, plots=False, gallery_metrics=[], n_resamples=200)
    first = next(b for b in report.blocks if isinstance(b, TableBlock))
    assert first.caption.startswith("Leaderboard: demo")
    assert first.header == ("system", "score", "judge")
    rows = {r[0].text: r for r in first.rows}
    assert set(rows) == {"base (baseline)", "sysA", "sysB"}
    cells = {(c.system, c.metric): c for c in summarize(res, n_resamples=200)}
    a = cells[("sysA", "score")]
    assert rows["sysA"][1].text == f"{fmt_ci(a.value, a.ci, 2)} ↑"  # significantly above the baseline
    assert rows["sysB"][1].text.endswith("·")  # not significant
    assert rows["sysB"][2].text.endswith("↓")
    assert rows["base (baseline)"][1].text == fmt_ci(cells[("base", "score")].value, cells[("base", "score")].ci, 2)
    md = render_markdown(res, cmp, gallery_metrics=[], n_resamples=200)
    assert md.index("Leaderboard: demo") < md.index("every system and metric")
    # a protocol's headline columns, in its order
    only = build_report(res, cmp, plots=False, gallery_metrics=[], n_resamples=200, headline=["judge"])
    assert next(b for b in only.blocks if isinstance(b, TableBlock)).header == ("system", "judge")


def _long_table(n_rows: int) -> Table:
    rows = tuple(("sys", f"({i}, {i % 5})") for i in range(n_rows))
    cells = {(r, "Win rate"): Cell(0.5, 3) for r in rows}
    return Table("Fig. 7 (score coordinates)", ("Win rate",), rows, cells, 3)


def test_long_coordinate_tables_are_folded(res):
    long = ProtocolResult("demo", res.records, {"coords": _long_table(40), "short": _long_table(5)}, res.signatures)
    page = render_html(long, plots=False, gallery_metrics=[], n_resamples=50)
    folded = re.findall(r"<details[^>]*><summary>(.*?)</summary>", page, flags=re.S)
    assert len(folded) == 1 and "Fig. 7 (score coordinates)" in folded[0] and "40 rows" in folded[0]
    md = render_markdown(long, gallery_metrics=[], n_resamples=50)
    block = md[md.index("<details>") : md.index("</details>")]
    assert "40 rows" in block and block.count("\n| sys / (") == 40
    assert md.count("<details>") == 1  # the 5-row table stays open


def _ties_result(order_seed: int | None) -> ProtocolResult:
    recs = []
    for k in range(12):
        for system, value in (
            ("base", 0.1 * k),
            ("new", [0.9, 0.9, 0.9, 0.5, 0.2, 0.2, 0.2, 0.6, 0.3, 0.4, 0.7, 0.8][k]),
        ):
            recs.append(ItemRecord(f"item{k:02d}", system, "quality", value, "ok", f"src{k}"))
            recs.append(ItemRecord(f"item{k:02d}", system, "hit", float(k % 2), "ok", f"src{k}"))
    if order_seed is not None:
        random.Random(order_seed).shuffle(recs)
    return ProtocolResult("demo", tuple(recs), {})


def test_galleries_pick_a_continuous_metric_and_break_ties_by_item_id():
    """ "hit" is 0/1 and comes first; the gallery uses "quality". Three items tie at 0.9 (best) and
    three at 0.2 (worst): whatever the record order, the same items are shown, by item id, and the
    cards say so."""
    chosen = []
    for seed in (None, 1, 2, 3):
        r = _ties_result(seed)
        picked = select_items(r, "quality", "new", k=2)
        chosen.append(picked)
        assert [i for i, _, _ in picked["best"]] == ["item00", "item01"]
        assert [i for i, _, _ in picked["worst"]] == ["item04", "item05"]
    report = build_report(_ties_result(1), plots=False, n_resamples=50, gallery_k=2)
    titles = [b.title for b in report.blocks if hasattr(b, "cards")]
    assert titles and all("quality" in t for t in titles) and not any("hit" in t for t in titles)
    cards = {c.item_id: c for b in report.blocks if hasattr(b, "cards") and "Best" in b.title for c in b.cards}
    assert any("tied" in line and "3 items" in line and "item id" in line for line in cards["item00"].lines)


def test_gallery_metric_can_be_named_and_must_exist(res):
    report = build_report(res, plots=False, n_resamples=50, gallery_metrics=["judge"])
    assert all("judge" in b.title for b in report.blocks if hasattr(b, "cards"))
    with pytest.raises(InputError, match=r"gallery metric 'nothing'.*score.*judge"):
        build_report(res, plots=False, n_resamples=50, gallery_metrics=["nothing"])


def test_win_rate_heatmaps_use_a_fixed_scale_diverging_at_50(res):
    pytest.importorskip("matplotlib")
    from transcreval.report import plot_heatmap, plot_win_rate_matrix

    _, ax = plot_win_rate_matrix(res, "winrate", column="Win%")  # values 9 .. 63 %
    image = ax.images[0]
    assert (image.norm.vmin, image.norm.vmax) == (0.0, 100.0)
    assert image.norm(50.0) == pytest.approx(0.5) and image.norm(9.0) == pytest.approx(0.09)
    low, mid, high = image.cmap(0.0), image.cmap(0.5), image.cmap(1.0)
    assert low[0] > low[2] and high[2] > high[0] and min(mid[:3]) > 0.9  # red - white - blue
    frac = ProtocolResult(
        "demo", (), {"w": Table("win rate", ("a",), ("x", "y"), {("x", "a"): Cell(0.2, 5), ("y", "a"): Cell(0.3, 5)})}
    )
    _, ax2 = plot_win_rate_matrix(frac, "w")
    assert (ax2.images[0].norm.vmin, ax2.images[0].norm.vmax) == (0.0, 1.0) and ax2.images[0].norm(0.5) == 0.5
    _, ax3 = plot_heatmap(res, "score", system="sysA", value_range=(0.0, 100.0), center=50.0)
    assert (ax3.images[0].norm.vmin, ax3.images[0].norm.vmax) == (0.0, 100.0)
    assert ax3.images[0].norm(50.0) == pytest.approx(0.5)


def test_run_tables_print_as_text_and_render_in_notebooks(tmp_path, capsys):
    from tests._helpers.runner_toy import evaluate_args, write_set
    from transcreval.cli import main
    from transcreval.runs import Run

    d = write_set(tmp_path / "data", n=6)
    d["out"] = tmp_path / "run"
    assert main(evaluate_args(d)) == 0
    capsys.readouterr()
    run = Run(d["out"])
    text = str(run.tables)
    assert "Table(" not in text and "Cell(" not in text
    lines = text.splitlines()
    assert lines[0].startswith("Toy table") and any(re.match(r"^better\s+\d+\.\d", ln) for ln in lines)
    t = run.tables["toy"]
    assert str(t) in text and re.search(r"^\s+chrf\s+length", str(t), flags=re.M)
    html = run.tables._repr_html_()
    assert html.count("<table") == len(run.tables) and "<caption>Toy table" in html
    assert "<table" in run._repr_html_() and str(d["out"]) in run._repr_html_()
    assert math.isfinite(t.cell("better", "chrf").value)


def test_report_gallery_metric_from_the_command_line(tmp_path, capsys):
    from tests._helpers.runner_toy import evaluate_args, write_set
    from transcreval.cli import main

    d = write_set(tmp_path / "data", n=8)
    d["out"] = tmp_path / "run"
    assert main(evaluate_args(d)) == 0
    assert main(["report", str(d["out"]), "--gallery-metric", "length"]) == 0
    md = (d["out"] / "report.md").read_text()
    assert "Best items: better, length" in md and "Best items: better, chrf" not in md
    capsys.readouterr()
    assert main(["report", str(d["out"]), "--gallery-metric", "nothing"]) == 2
    err = capsys.readouterr().err
    assert "gallery metric 'nothing' has no records" in err and "'chrf'" in err
