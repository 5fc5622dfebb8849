"""Plot helpers ``plot_*(result, ..., ax=None) -> (fig, ax)`` on synthetic protocol results:
what each draws is read back from the axes and checked against the data."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.synthetic_results import LANGUAGES, SCENARIOS, demo_result
from transcreval.errors import InputError
from transcreval.report import (
    plot_distributions,
    plot_forest,
    plot_heatmap,
    plot_kendall_by_country,
    plot_win_rate_matrix,
)
from transcreval.significance import compare_systems

pytest.importorskip("matplotlib", reason="plots need the 'report' extra (matplotlib)")


@pytest.fixture(scope="module")
def res():
    return demo_result()


def _points(ax):
    """(x, y) of every errorbar marker on the axes."""
    out = []
    for line in ax.get_lines():
        if line.get_marker() == "o":
            out += list(zip(line.get_xdata(), line.get_ydata()))
    return out


def test_helpers_draw_on_a_given_axes_and_return_its_figure(res):
    from matplotlib.figure import Figure

    fig = Figure()
    axes = fig.subplots(1, 5)
    cmp = compare_systems(res, "base", n_resamples=100)
    calls = [
        lambda ax: plot_forest(cmp, ax, metrics=["score"]),
        lambda ax: plot_distributions(res, "score", ax),
        lambda ax: plot_heatmap(res, "score", ax, system="sysA"),
        lambda ax: plot_win_rate_matrix(res, "winrate", ax, column="Win%"),
        lambda ax: plot_kendall_by_country(res, "kendall", ax),
    ]
    for call, ax in zip(calls, axes):
        got_fig, got_ax = call(ax)
        assert got_fig is fig and got_ax is ax
    new_fig, new_ax = plot_distributions(res, "judge")
    assert isinstance(new_fig, Figure) and new_ax.figure is new_fig


def test_forest_plots_each_delta_with_its_interval(res):
    cmp = compare_systems(res, "base", n_resamples=200)
    _, ax = plot_forest(cmp, metrics=["score"])
    rows = [r for r in cmp.rows if r.metric == "score"]
    xs = sorted(x for x, _ in _points(ax))
    assert xs == pytest.approx(sorted(r.delta for r in rows))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [r.system for r in reversed(rows)]
    _, ax_all = plot_forest(cmp)
    assert len(_points(ax_all)) == len(cmp.rows)
    with pytest.raises(InputError, match="no comparison"):
        plot_forest(cmp, metrics=["nothing"])


def test_heatmap_cells_are_the_scenario_language_means(res):
    _, ax = plot_heatmap(res, "judge", system="sysB", rows="scenario", columns="language")
    shown = np.ma.filled(ax.images[0].get_array(), np.nan)
    for i, sc in enumerate(SCENARIOS):
        for j, lang in enumerate(LANGUAGES):
            vals = [
                r.value
                for r in res.select(system="sysB", metric="judge")
                if r.ok and r.meta["scenario"] == sc and r.meta["language"] == lang
            ]
            expected = np.mean(vals) if vals else np.nan
            assert shown[i, j] == pytest.approx(expected, nan_ok=True)
    texts = [t.get_text() for t in ax.texts]
    assert any("n=1/2" in t for t in texts)  # a cell with a failed item shows n of its total
    with pytest.raises(InputError, match=r"no meta\['country'\]"):
        plot_heatmap(res, "judge", system="sysB", rows="country")
    with pytest.raises(InputError, match="no records"):
        plot_heatmap(res, "judge", system="nobody")


def test_win_rate_matrix_pivots_pairs_or_draws_the_table(res):
    _, ax = plot_win_rate_matrix(res, "winrate", column="Win%")
    shown = np.ma.filled(ax.images[0].get_array(), np.nan)
    assert shown.tolist() == [[63.0, 9.0], [41.5, 12.0]]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["gpt", "qwen"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["gemini", "qwen"]
    _, ax2 = plot_win_rate_matrix(res, "kendall")  # any table as rows x columns
    assert np.ma.filled(ax2.images[0].get_array(), np.nan).shape == (2, 4)
    with pytest.raises(InputError, match="no table 'missing'"):
        plot_win_rate_matrix(res, "missing")
    with pytest.raises(InputError, match=r"no column 'Adap\.'"):
        plot_win_rate_matrix(res, "winrate", column="Adap.")


def test_kendall_by_country_points_and_intervals(res):
    t = res.tables["kendall"]
    _, ax = plot_kendall_by_country(res, "kendall")
    ys = sorted(y for _, y in _points(ax))
    assert ys == pytest.approx(sorted(c.value for c in t.cells.values()))
    segments = [c for c in ax.collections if hasattr(c, "get_segments")]
    spans = sorted(round(float(seg[1][1] - seg[0][1]), 9) for coll in segments for seg in coll.get_segments())
    assert spans == sorted(round(c.ci[1] - c.ci[0], 9) for c in t.cells.values())
    assert [h.get_text() for h in ax.get_legend().get_texts()] == ["clip", "vlm-judge"]
    _, ax_rows = plot_kendall_by_country(res, "kendall", countries="rows")
    assert len(_points(ax_rows)) == len(t.cells)
    with pytest.raises(InputError, match="countries must be"):
        plot_kendall_by_country(res, "kendall", countries="diagonal")


def test_distributions_are_ecdfs_with_counts(res):
    _, ax = plot_distributions(res, "judge")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["base (n=24, 0 missing)", "sysA (n=24, 0 missing)", "sysB (n=21, 3 missing)"]
    line = ax.get_lines()[2]
    vals = sorted(r.value for r in res.select(system="sysB", metric="judge") if r.ok)
    assert list(line.get_xdata()) == pytest.approx(vals)
    assert line.get_ydata()[-1] == 1.0
    with pytest.raises(InputError, match="has no value"):
        plot_distributions(res, "nothing")


# ------------------------------------------------ names are data: every figure
def _odd(x: str) -> str:
    """A text that matplotlib would read as broken mathtext (two $ around an unknown \\b)."""
    return f"{x}$\\b$"


def _odd_result():
    """demo_result with every system, metric, meta key and value, and table text renamed odd;
    one system starts with "_" (matplotlib drops such labels from a legend it collects itself)."""
    import dataclasses

    from transcreval.protocols.records import ProtocolResult

    res = demo_result()
    names = {"base": "base", "sysA": _odd("a"), "sysB": "_" + _odd("b")}
    records = tuple(
        dataclasses.replace(
            r,
            system=names[r.system],
            metric=_odd(r.metric),
            meta={_odd(k): _odd(v) for k, v in r.meta.items()},
        )
        for r in res.records
    )

    def odd_row(r):
        return tuple(_odd(x) for x in r) if isinstance(r, tuple) else _odd(r)

    tables = {}
    for key, t in res.tables.items():
        cells = {(odd_row(r), _odd(c)): cell for (r, c), cell in t.cells.items()}
        tables[key] = dataclasses.replace(
            t,
            name=_odd(t.name),
            columns=tuple(_odd(c) for c in t.columns),
            rows=tuple(odd_row(r) for r in t.rows),
            cells=cells,
            decimals={_odd(c): d for c, d in t.decimals.items()} if isinstance(t.decimals, dict) else t.decimals,
            units=_odd(t.units),
        )
    return ProtocolResult(res.protocol, records, tables), names


def test_every_figure_draws_names_as_written():
    """A system named 'a$\\b$c' made `report` die in matplotlib's mathtext (ValueError: Unknown
    symbol: \\b): every text a figure takes from the data is drawn as written, in every helper."""
    import io

    from matplotlib.cbook import is_math_text
    from matplotlib.text import Text

    res, names = _odd_result()
    metric = _odd("score")
    cmp = compare_systems(res, "base", n_resamples=100)
    figures = {
        "forest": plot_forest(cmp, metrics=[metric]),
        "forest, every metric": plot_forest(cmp),
        "distributions": plot_distributions(res, metric),
        "heatmap": plot_heatmap(res, metric, system=names["sysA"], rows=_odd("scenario"), columns=_odd("language")),
        "win rate": plot_win_rate_matrix(res, "winrate", column=_odd("Win%")),
        "win rate table": plot_win_rate_matrix(res, "winrate"),
        "kendall": plot_kendall_by_country(res, "kendall"),
    }
    for what, (fig, _) in figures.items():
        fig.savefig(io.BytesIO(), format="png")  # draws every text: mathtext would raise here
        texts = [t.get_text() for t in fig.findobj(Text) if t.get_text() and t.get_visible()]
        assert not [t for t in texts if is_math_text(t)], what
        shown = " ".join(t.replace("\\$", "$") for t in texts)  # what matplotlib shows
        assert _odd("") in shown, what
    legend = [t.get_text().replace("\\$", "$") for t in figures["distributions"][1].get_legend().get_texts()]
    assert [x.split(" (n=")[0] for x in legend] == list(names.values())  # "_b..." kept
    kendall = [t.get_text().replace("\\$", "$") for t in figures["kendall"][1].get_legend().get_texts()]
    assert kendall == [_odd("clip"), _odd("vlm-judge")]
