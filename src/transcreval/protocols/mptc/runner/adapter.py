"""MPTc-Bench in ``transcreval evaluate``: the runner adapter (:data:`ADAPTER`).

Manifest (one line per benchmark item): ``source_image`` = SRC, ``reference_image`` = GT,
``target_locale`` = the target market, and in ``meta``: ``source_market`` (required), ``genre``
(required by the judge unit), ``year``, ``split``, ``genre_options``, ``decade_options``,
``source_title``, ``movie``; other meta keys are kept. Outputs: ``image`` = the MTc poster,
``text`` = the plan, ``meta.plan_title``, ``meta.error_labels`` (App. B.3). A system named
``"Editor + Planner"`` fills the tables' editor rows and planner columns; any other name is an
editor whose planner is the option ``planner``.

Units (``--metrics``): ``judge`` (Tables 3-4, Fig. 6, Fig. 7 and the GT row: the item's GT poster
scored as system ``"GT"``), ``clip`` and ``fid`` (Table 5; FID from the Inception features stored
per item), ``ocr`` (Table 10; not a default: it runs the OCR detector on three posters per item).
The error-type table (App. B.3) comes from the outputs' labels with no unit, and Table 9 with the
option ``temporal`` (from the judge's title chrF and the stored features). The per-item scoring
is :mod:`~transcreval.protocols.mptc.scoring.judged` and the metrics' own code; the tables are
:mod:`~transcreval.protocols.mptc.tables`, :mod:`~transcreval.protocols.mptc.analyses` and
:mod:`~transcreval.protocols.mptc.ocr_tables`, as :func:`~transcreval.protocols.mptc.evaluate` uses them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from transcreval.errors import InputError
from transcreval.protocols.adapter import Item, Output, ProtocolAdapter, RunData, Unit
from transcreval.protocols.mptc.inputs import read_items, read_outputs
from transcreval.protocols.mptc.runner.inputs import item_record, mptc_set, output_record, planner_editor
from transcreval.protocols.mptc.runner.units import UNIT_BUILDERS
from transcreval.protocols.records import ItemRecord, ProtocolResult, Table

__all__ = ["ADAPTER", "MPTcAdapter"]


class MPTcAdapter(ProtocolAdapter):
    """MPTc-Bench's runner adapter (see the module docstring)."""

    name: ClassVar[str] = "mptc"
    version: ClassVar[str] = "1"
    item_fields: ClassVar[tuple[str, ...]] = ("source_image", "reference_image", "target_locale")
    output_fields: ClassVar[tuple[str, ...]] = ("image", "text")
    meta_fields: ClassVar[dict[str, str]] = {
        "item:source_market": "the source market (required)",
        "item:genre": "the film's genre (required by the judge unit)",
        "item:year": "release year (decade quiz, Table 9)",
        "item:split": "surface or deep (used with --option split_by=field)",
        "item:genre_options": "this item's genre quiz options",
        "item:decade_options": "this item's decade quiz options",
        "item:source_title": "the title printed on SRC",
        "item:movie": "the film's id or name",
        "output:plan_title": "the planned title, when read elsewhere",
        "output:error_labels": "human error labels, one list per annotation (App. B.3)",
    }
    option_defaults: ClassVar[dict[str, Any]] = {
        "planner": "-",
        "split_by": "phash",
        "surface_max": 12,
        "deep_min": 30,
        "judge_call": "joint",
        "templates": None,
        "seed": 0,
        "both_orders": False,
        "n_options": 4,
        "genre_labels": None,
        "decade_labels": None,
        "clip_model": None,
        "clip_pretrained": None,
        "fid_weights": None,
        "fid_preprocess": "torch-fidelity",
        "ocr_backend": "rapidocr",
        "ocr_splits": ["surface"],
        "ocr_resample": "bicubic",
        "ocr_dilate_px": 0,
        "cross_cluster": True,
        "clusters": None,
        "temporal": False,
        "min_per_year": 5,
    }

    def check_item(self, item: Item) -> None:
        try:
            read_items([item_record(item)])
        except InputError as e:
            raise InputError(f"{item.where}: {str(e).split(': ', 1)[-1]}") from None

    def check_output(self, output: Output) -> None:
        try:
            read_outputs([output_record(output, "p", "e")])
        except InputError as e:
            raise InputError(f"{output.where}: {str(e).split(': ', 1)[-1]}") from None

    def units(self, options: Mapping[str, Any]) -> list[Unit]:
        return [build(options) for build in UNIT_BUILDERS]

    def tables(self, data: RunData) -> ProtocolResult:
        from transcreval.protocols.mptc.runner.tables import build_tables

        opts = data.options
        mset, names = mptc_set(data.items, {s: data.outputs[s] for s in data.systems}, opts)
        to_mptc = {v: k for k, v in names.items()}
        pe = {k: planner_editor(v, opts) for k, v in names.items()}

        def localise(r: ItemRecord) -> ItemRecord:
            sys_name = to_mptc.get(r.system, r.system)
            p, e = pe.get(sys_name, (None, None))
            meta = {**r.meta, "split": mset.splits.get(r.item_id), "planner": p, "editor": e}
            return replace(r, system=sys_name, meta=meta)

        result = build_tables(mset, [localise(r) for r in data.records], data, names)
        records = tuple(replace(r, system=names.get(r.system, r.system)) for r in result.records)
        tables = {k: _renamed(t, names) for k, t in result.tables.items()}
        figures = {k: _renamed(t, names) for k, t in result.figures.items()}
        return ProtocolResult("mptc", records, tables, result.signatures, result.options, figures=figures)

    def report_options(self, result: ProtocolResult) -> dict[str, Any]:
        from transcreval.report import plot_win_rate_matrix

        figures: list[tuple[str, Any]] = []
        if "win_matrix" in result.tables:
            t = result.tables["win_matrix"]
            for col in t.columns:
                if any(c.n for (_, c2), c in t.cells.items() if c2 == col):
                    figures.append((f"Win% over GT, {col}", _draw(plot_win_rate_matrix, result, "win_matrix", col)))
        figures += figure_plots(result)
        lower = {"fid_gt": False, "fid_src": False}
        headline = ("aesthetic", "adaptation", "win", "genre_hit", "year_hit", "title_chrf", "clip", "ocr_iou_src_mtc")
        return {"figures": figures, "by": "split", "higher_is_better": lower, "headline": headline}

    def compare_options(self, result: ProtocolResult) -> dict[str, Any]:
        return {}


#: MPTc's figure keys -> (title, plot function name in transcreval.report)
FIGURE_PLOTS = {
    "fig3_phash_hist": ("Fig. 3: pHash distance of SRC and GT", "plot_count_histogram"),
    "fig4_market_preference": ("Fig. 4: judge's target-market preference", "plot_rate_bars"),
    "fig8_globe_transitions": ("Fig. 8: GLOBE cluster transitions", "plot_count_matrix"),
    "fig9_phash_by_direction": ("Fig. 9: pHash distance by GLOBE direction", "plot_count_histogram"),
    "fig11_distributions": ("Fig. 11: LPIPS / DINOv2 by pHash band", "plot_box_summary"),
}


def figure_plots(result: ProtocolResult) -> list[tuple[str, Any]]:
    """The report's ``(title, draw)`` pair of each MPTc figure the result holds."""
    import transcreval.report as report

    out = []
    for key, (title, fn) in FIGURE_PLOTS.items():
        if key in result.figures:
            out.append((title, _draw_figure(getattr(report, fn), result, key)))
    return out


def _draw_figure(fn: Any, result: ProtocolResult, key: str) -> Any:
    return lambda: fn(result, key)


def _renamed(table: Table, names: Mapping[str, str]) -> Table:
    """Row labels that name a system (``"Editor + Planner"``) in the run's own system names."""

    def row(r: Any) -> Any:
        if isinstance(r, tuple):
            return tuple(names.get(x, x) if isinstance(x, str) else x for x in r)
        return names.get(r, r) if isinstance(r, str) else r

    cells = {(row(r), c): v for (r, c), v in table.cells.items()}
    return replace(table, rows=tuple(row(r) for r in table.rows), cells=cells)


def _draw(fn: Any, result: ProtocolResult, table: str, column: str) -> Any:
    return lambda: fn(result, table, column=column)


ADAPTER = MPTcAdapter()
