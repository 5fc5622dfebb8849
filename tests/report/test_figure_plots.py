"""The paper figures' plots (``result.figures``): what each draws is read back from the axes and
checked against the figure's numbers, and each protocol's report extras put them in the report."""

from __future__ import annotations

import math

import pytest

from transcreval.errors import InputError
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table
from transcreval.report import (
    build_report,
    plot_box_summary,
    plot_by_source,
    plot_count_histogram,
    plot_count_matrix,
    plot_rate_bars,
)

pytest.importorskip("matplotlib", reason="plots need the 'report' extra (matplotlib)")


def _c(v):
    return Cell(float(v), int(v) if v == int(v) else 1)


def _hist():
    # distances 0-4: 0-1 Surface, 2 Intermediate, 3-4 Deep (thresholds between 1|2 and 2|3)
    counts = {0: ("Surface", 2), 1: ("Surface", 1), 2: ("Intermediate", 0), 3: ("Deep", 4), 4: ("Deep", 1)}
    cells = {(d, band): Cell(float(n), n) for d, (band, n) in counts.items()}
    return Table("Fig. 3", ("Surface", "Intermediate", "Deep"), tuple(counts), cells, 0, "pairs")


def _result():
    matrix = Table(
        "Fig. 8",
        ("Anglo", "Confucian Asia"),
        ("Anglo", "Confucian Asia"),
        {
            ("Anglo", "Anglo"): _c(0),
            ("Anglo", "Confucian Asia"): _c(3),
            ("Confucian Asia", "Anglo"): _c(1),
            ("Confucian Asia", "Confucian Asia"): _c(0),
        },
    )
    rates = Table(
        "Fig. 4",
        ("Rate", "n"),
        ("Japan", "France", "Overall"),
        {
            ("Japan", "Rate"): Cell(80.0, 5),
            ("Japan", "n"): _c(5),
            ("France", "Rate"): Cell(50.0, 2),
            ("France", "n"): _c(2),
            ("Overall", "Rate"): Cell(500 / 7, 7),
            ("Overall", "n"): _c(7),
        },
        1,
        "%",
    )
    box_cols = ("n", "min", "q1", "median", "q3", "max", "mean", "std")
    box = Table(
        "Fig. 11",
        box_cols,
        (("LPIPS", "Surface"), ("LPIPS", "Deep")),
        {
            **{
                (("LPIPS", "Surface"), c): Cell(v, 4)
                for c, v in zip(box_cols, (4, 0.1, 0.2, 0.25, 0.3, 0.4, 0.25, 0.1))
            },
            (("LPIPS", "Deep"), "n"): Cell(0.0, 0),
        },
    )
    return ProtocolResult(
        "mptc",
        (ItemRecord("i", "sys", "m", 1.0),),
        {},
        figures={
            "fig3_phash_hist": _hist(),
            "fig8_globe_transitions": matrix,
            "fig4_market_preference": rates,
            "fig11_distributions": box,
        },
    )


def test_count_histogram_stacks_each_column_and_dashes_the_band_thresholds():
    _, ax = plot_count_histogram(_result(), "fig3_phash_hist")
    heights = {}
    for container, band in zip(ax.containers, ("Surface", "Intermediate", "Deep")):
        heights[band] = [p.get_height() for p in container.patches]
    assert heights == {"Surface": [2, 1, 0, 0, 0], "Intermediate": [0, 0, 0, 0, 0], "Deep": [0, 0, 0, 4, 1]}
    dashed = sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == "--")
    assert dashed == [1.5, 2.5]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Surface (n=3)", "Intermediate (n=0)", "Deep (n=5)"]


def test_count_matrix_rate_bars_and_box_summary_draw_the_stored_numbers():
    res = _result()
    _, ax = plot_count_matrix(res, "fig8_globe_transitions")
    shown = ax.images[0].get_array()
    assert shown.tolist() == [[0, 3], [1, 0]]
    _, ax = plot_rate_bars(res, "fig4_market_preference")
    assert sorted(p.get_width() for p in ax.patches) == [50.0, 80.0]
    assert [t.get_text().strip() for t in ax.texts] == ["5", "2"]  # the bar-end n
    (overall,) = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert overall.get_xdata()[0] == pytest.approx(500 / 7)
    _, ax = plot_box_summary(res, "fig11_distributions")
    medians = [line for line in ax.get_lines() if len(line.get_xdata()) == 2 and line.get_ydata()[0] == 0.25]
    assert medians and [t.get_text() for t in ax.get_xticklabels()] == ["LPIPS / Surface"]  # Deep has no values
    with pytest.raises(InputError, match="no figure 'nope'"):
        plot_count_matrix(res, "nope")


def test_by_source_draws_one_series_per_system_for_the_chosen_target():
    rows = (("A", "de", "en"), ("A", "de", "zh"), ("B", "de", "en"), ("A", "fr", "en"))
    vals = {rows[0]: 50.0, rows[1]: 20.0, rows[2]: 70.0, rows[3]: 99.0}
    t = Table("Fig. 6", ("S",), rows, {(r, "S"): Cell(v, 1) for r, v in vals.items()}, 1, "%")
    res = ProtocolResult("imtbench", (), {}, figures={"fig6_by_source": t})
    _, ax = plot_by_source(res, "fig6_by_source", target="de")
    series = {line.get_label(): list(line.get_ydata()) for line in ax.get_lines()}
    ys = sorted(series.values(), key=len)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["en", "zh"]
    assert [50.0, 20.0] in ys and any(len(y) == 2 and y[0] == 70.0 and math.isnan(y[1]) for y in ys)


def test_the_report_extras_of_mptc_and_imtbench_put_their_figures_in_the_report():
    from transcreval.protocols.imtbench.runner import ADAPTER as IMT
    from transcreval.protocols.mptc.runner import ADAPTER as MPTC

    res = _result()
    extras = MPTC.report_options(res)["figures"]
    titles = [t for t, _ in extras]
    assert titles == [
        "Fig. 3: pHash distance of SRC and GT",
        "Fig. 4: judge's target-market preference",
        "Fig. 8: GLOBE cluster transitions",
        "Fig. 11: LPIPS / DINOv2 by pHash band",
    ]
    report = build_report(res, figures=[(t, draw()) for t, draw in extras], n_resamples=50, plots=False)
    from transcreval.report.blocks import FigureBlock

    drawn = [b.title for b in report.blocks if isinstance(b, FigureBlock)]
    assert all(any(t in d for d in drawn) for t in titles), drawn
    t6 = Table("Fig. 6", ("S",), (("A", "de", "en"),), {(("A", "de", "en"), "S"): Cell(50.0, 1)}, 1, "%")
    imt = ProtocolResult("imtbench", (), {}, figures={"fig6_by_source": t6})
    assert [t for t, _ in IMT.report_options(imt)["figures"]] == ["Fig. 6 (right): S by source language, target de"]


def _partial_and_empty_figures():
    """Every paper figure the report draws, each from its own builder where one takes records or
    numbers, twice: with part of its values (what there is is drawn) and with none (left out and
    named). Keys: the figure keys; values: (partial result, empty result)."""
    from transcreval.protocols.imtbench.tables import fig6_by_source
    from transcreval.protocols.mptc.figures import fig4_market_preference, fig11_distributions

    nan = math.nan

    def fig3(counts):
        cells = {(d, "Surface"): Cell(float(n), n) for d, n in enumerate(counts)}
        return Table("Fig. 3", ("Surface", "Deep"), tuple(range(len(counts))), cells, 0, "pairs")

    def fig9(counts):
        cols = ("Western -> Asian",) if any(counts) else ()
        cells = {(d, c): Cell(float(n), n) for d, n in enumerate(counts) for c in cols}
        return Table("Fig. 9", cols, tuple(range(len(counts))), cells, 0, "pairs")

    def fig8(placed):
        rows = ("Anglo",) if placed else ()
        return Table("Fig. 8", rows, rows, {(r, r): _c(2) for r in rows}, 0, "items")

    def judged(values):
        status = ["ok" if not math.isnan(v) else "refused" for v in values]
        markets = ["Japan", "France", "Japan"][: len(values)]
        return [
            ItemRecord(f"p{k}", "judge", "market_preference", v, s, meta={"target_market": m})
            for k, (v, s, m) in enumerate(zip(values, status, markets))
        ]

    def imt(values):  # (item, source, target) -> S_vis; S_text / S_bg never computed, so no S
        out = []
        for (item, src, tgt), v in values.items():
            meta = {"source_language": src, "language": tgt}
            for metric in ("S_text", "S_bg", "S_align", "S"):
                out.append(ItemRecord(item, "A", metric, nan, "not_computed", meta=meta))
            out.append(ItemRecord(item, "A", "S_vis", v, "ok" if not math.isnan(v) else "refused", meta=meta))
        return fig6_by_source(out)

    def mptc(key, table):
        return ProtocolResult("mptc", (ItemRecord("i", "sys", "m", 1.0),), {}, figures={key: table})

    def imtbench(table):
        return ProtocolResult("imtbench", (ItemRecord("i", "A", "S_vis", 1.0),), {}, figures={"fig6_by_source": table})

    return {
        "fig3_phash_hist": (mptc("fig3_phash_hist", fig3([0, 3, 0])), mptc("fig3_phash_hist", fig3([0, 0, 0]))),
        "fig4_market_preference": (
            mptc("fig4_market_preference", fig4_market_preference(judged([1.0, nan, 0.0]))),
            mptc("fig4_market_preference", fig4_market_preference(judged([nan, nan]))),
        ),
        "fig8_globe_transitions": (
            mptc("fig8_globe_transitions", fig8(True)),
            mptc("fig8_globe_transitions", fig8(False)),
        ),
        "fig9_phash_by_direction": (
            mptc("fig9_phash_by_direction", fig9([0, 2, 1])),
            mptc("fig9_phash_by_direction", fig9([0, 0, 0])),
        ),
        "fig11_distributions": (
            mptc("fig11_distributions", fig11_distributions({"lpips": [0.2, nan, 0.4]}, ["deep", "surface", "deep"])),
            mptc("fig11_distributions", fig11_distributions({"lpips": [nan, nan]}, ["deep", "surface"])),
        ),
        "fig6_by_source": (
            imtbench(imt({("i1", "en", "de"): 40.0, ("i2", "zh", "de"): nan, ("i3", "en", "fr"): nan})),
            imtbench(imt({("i1", "en", "de"): nan})),
        ),
    }


@pytest.mark.parametrize("key", list(_partial_and_empty_figures()))
def test_every_paper_figure_draws_what_it_has_and_a_figure_without_values_is_named_not_fatal(key):
    from transcreval.protocols.imtbench.runner import ADAPTER as IMT
    from transcreval.protocols.mptc.runner import ADAPTER as MPTC
    from transcreval.report.blocks import FigureBlock, Paragraph

    partial, empty = _partial_and_empty_figures()[key]
    for res, drawable in ((partial, True), (empty, False)):
        adapter = IMT if res.protocol == "imtbench" else MPTC
        extras = adapter.report_options(res)["figures"]
        assert extras, key
        report = build_report(res, figures=extras, n_resamples=50, plots=False)  # the draws happen here
        drawn = [b.title for b in report.blocks if isinstance(b, FigureBlock)]
        said = " ".join(b.text for b in report.blocks if isinstance(b, Paragraph))
        if drawable:
            assert drawn, key
        else:
            assert not drawn, key
        for title, _ in extras:  # every figure is either drawn or named with the reason it is not
            assert any(title in d for d in drawn) or f"{title}: not drawn" in said, (key, title, said)
    if key == "fig6_by_source":  # no S at all: the component there is is drawn, per target that has one
        titles = [t for t, _ in IMT.report_options(partial)["figures"]]
        assert titles == [
            "Fig. 6 (right): S_vis by source language, target de",
            "Fig. 6 (right): S by source language, target fr",  # no value at all: named as not drawn
        ]
