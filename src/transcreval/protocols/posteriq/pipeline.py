"""PosterIQ in one Python call: :func:`evaluate` reads the records, scores each system's items of
each task (:mod:`~transcreval.protocols.posteriq.scoring`, :mod:`~transcreval.protocols.posteriq.tasks`)
and builds the tables (:func:`~transcreval.protocols.posteriq.tables.build_tables`). The runner
adapter (:mod:`~transcreval.protocols.posteriq.runner`) calls this same function: per item for its
records, and on every stored answer and verdict for its tables.
"""

from __future__ import annotations

import math
from typing import Any

from transcreval.core.common import Definition, Mode, OnUnreadable, check_definition, check_mode, check_on_unreadable
from transcreval.core.result import Signature
from transcreval.errors import InputError
from transcreval.functional.choice.k_option import k_option_normalise
from transcreval.functional.layout.box_reading import Coords, check_box_options
from transcreval.protocols.posteriq.inputs import TaskItem, complete_systems, parse_records
from transcreval.protocols.posteriq.scoring import CODE_TASK_K, ProtocolOptions, TaskOutput, ocr_output
from transcreval.protocols.posteriq.sources import Source, load_sources
from transcreval.protocols.posteriq.tables import TABLE_OF, build_tables
from transcreval.protocols.posteriq.tasks import font_output, layout_output, understanding_output
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult

__all__ = ["evaluate"]


def _options(
    mode: Any,
    on_unreadable: Any,
    refusal_filter: Any,
    coords: Any,
    target_coords: Any,
    mean_iou_top_n: Any,
    ddof: Any,
    definition: Any = "supp-b",
) -> ProtocolOptions:
    check_mode(mode)
    check_definition(definition, mode)
    check_on_unreadable(on_unreadable)
    check_box_options(mode, coords, target_coords)
    if refusal_filter is None:
        refusal_filter = mode == "posteriq-code"
    if not isinstance(refusal_filter, bool):
        raise InputError(f"refusal_filter must be True, False or None (on in code mode), got {refusal_filter!r}")
    if refusal_filter and mode != "posteriq-code":
        raise InputError("refusal_filter is PosterIQ's code's rule: use it with mode='posteriq-code'")
    if mean_iou_top_n is not None and (
        isinstance(mean_iou_top_n, bool) or not isinstance(mean_iou_top_n, int) or mean_iou_top_n < 1
    ):
        raise InputError(f"mean_iou_top_n must be a positive integer or None (every box), got {mean_iou_top_n!r}")
    if isinstance(ddof, bool) or not isinstance(ddof, int) or ddof < 0:
        raise InputError(f"ddof must be a non-negative integer, got {ddof!r}")
    return ProtocolOptions(mode, on_unreadable, refusal_filter, coords, target_coords, mean_iou_top_n, ddof, definition)


def _score(items: list[TaskItem], opts: ProtocolOptions, judge: Any, template: Any) -> TaskOutput:
    task = items[0].task
    if task in ("logo_ocr", "poster_ocr", "simple_ocr", "hard_ocr", "font_size_ocr"):
        return ocr_output(items, opts)
    if task.startswith("font_"):
        return font_output(items, opts)
    if TABLE_OF.get(task) in ("table3", "table5"):
        return understanding_output(items, opts, judge, template)
    return layout_output(items, opts)


def _defect_notes(items: list[TaskItem]) -> dict[str, list[str]]:
    """Per table, one note per ground-truth item with a defect (named by task and item id,
    once whatever the number of systems)."""
    out: dict[str, list[str]] = {}
    for it in items:
        for d in it.defects:
            out.setdefault(TABLE_OF.get(it.task, "table4"), []).append(
                f"ground truth of {it.task} item {it.item_id!r}: {d}"
            )
    return {k: list(dict.fromkeys(v)) for k, v in out.items()}


def _unanswered_note(system: str, task: str, items: list[TaskItem], on_unreadable: str) -> tuple[int, str | None]:
    """How many items have no answer to score, and the note saying why: no ``response`` (PosterIQ's
    runner's calls failed; it writes ``error``), a null one, one that is not text, or the item
    missing from the system's input."""
    gone = [it for it in items if it.meta.get("unanswered")]
    if not gone:
        return 0, None
    why: dict[str, int] = {}
    for it in gone:
        reason = str(it.meta.get("no_answer", "no answer"))
        why[reason] = why.get(reason, 0) + 1
    errors = [str(it.meta["error"]) for it in gone if "error" in it.meta]
    first = f"; the runner's error, first: {errors[0][:120]!r}" if errors else ""
    reasons = ", ".join(f"{k}: {v}" for k, v in why.items())
    rule = "scored 0 as unreadable" if on_unreadable == "zero" else "left out"
    return len(gone), f"{system}, {task}: {len(gone)} item(s) without an answer ({reasons}{first}), {rule}"


def _printed_style(cells: dict[str, Cell], layout: list[ItemRecord]) -> None:
    """Code mode: the style cell as PosterIQ's script prints it, the layout-comparison accuracy
    (of the ``layout`` records) normalised with k = 17: its driver passes the wrong variable.
    The style accuracy itself stays in the records (``style_understanding_correct``)."""
    style = cells.get("style_understanding_score")
    if style is None:
        return
    scored = [r.value for r in layout if r.ok]
    if not scored:
        cells["style_understanding_score"] = Cell(math.nan, 0, style.n + style.n_missing)
        return
    accuracy = sum(scored) / len(scored)
    value = k_option_normalise(accuracy, CODE_TASK_K["style_understanding"], clamp=False)
    cells["style_understanding_score"] = Cell(value, len(scored), len(layout) - len(scored))


def evaluate(
    records: Source,
    *,
    system: str | None = None,
    mode: Mode = "paper",
    on_unreadable: OnUnreadable = "zero",
    refusal_filter: bool | None = None,
    coords: Coords = "normalized",
    target_coords: Coords = "normalized",
    mean_iou_top_n: int | None = None,
    ddof: int = 1,
    judge: Any = None,
    judge_template: Any = None,
    definition: Definition = "supp-b",
) -> ProtocolResult:
    """PosterIQ's Tables 1-5 and 7 from raw model answers.

    Args:
        records: PosterIQ's own result file ``{model}_bench.json`` (or a folder of them, a
            list of paths, ``{system: path}``), a records file (``.jsonl``, or a ``.json``
            list), or the records themselves: :mod:`~transcreval.protocols.posteriq.sources`;
            the record fields are in :mod:`~transcreval.protocols.posteriq.inputs`.
        system: the system's name for records without a ``system`` field, or for one result
            file (default: its name without ``_bench``).
        mode: "paper" (the paper's text) or "posteriq-code" (PosterIQ's public script:
            docs/posteriq-paper-vs-code.md).
        on_unreadable: an answer that cannot be read scores 0 ("zero", the default: PosterIQ's
            code and the formulas read literally) or is left out ("drop"); counted either way
            (records with ``meta["unreadable"]``, and the tables' notes).
        refusal_filter: PosterIQ code's refusal filter (font matching and attributes answers
            naming no option letter, or several once each; poster OCR answers scoring below
            0.05 are left out, status "refused"); None: on in code mode, off in paper mode.
        coords, target_coords: how predicted and ground-truth boxes are given ("normalized"
            or "pixel", which needs each record's ``size``).
        mean_iou_top_n: the n of Table 4's "Mean IoU"; None: every box (paper), 30 in code mode.
        ddof: the font-size Std's delta degrees of freedom (1: sample std, as the code).
        judge, judge_template: a judge for composition/intention items without ``verdicts``
            (:func:`~transcreval.functional.judge.posteriq.judge_point_verdicts`).
        definition: "supp-b" (default: Eq. 4 and Eq. 9 as Supp. B gives them) or "main-text"
            (paper mode only: the main text's Top-1 IoU, "the maximum IoU over predicted
            regions", for the Top-1/Top-3/Mean IoU columns, and its Match Acc., the returned ids
            matching "the requested count and target regions"); docs/posteriq-paper-vs-code.md.

    Returns:
        A :class:`~transcreval.protocols.records.ProtocolResult` with ``tables`` "table1" ...
        "table5" and "table7" (those the input has tasks for).
    """
    opts = _options(mode, on_unreadable, refusal_filter, coords, target_coords, mean_iou_top_n, ddof, definition)
    located = load_sources(records, system)
    items, lined_up = complete_systems(parse_records([r for _, r in located], system, [w for w, _ in located]))
    systems = list(dict.fromkeys(it.system for it in items))
    groups: dict[tuple[str, str], list[TaskItem]] = {}
    for it in items:
        groups.setdefault((it.system, it.task), []).append(it)
    out_records: list[ItemRecord] = []
    cells: dict[str, dict[str, Cell]] = {s: {} for s in systems}
    notes: dict[str, list[str]] = {}
    for (sys_name, task), its in groups.items():
        res = _score(its, opts, judge, judge_template)
        out_records += res.records
        cells[sys_name].update(res.cells)
        table = TABLE_OF.get(task, "table4")
        notes.setdefault(table, []).extend(res.notes)
        n_gone, gone = _unanswered_note(sys_name, task, its, opts.on_unreadable)
        if res.unreadable > n_gone:  # an item without an answer is unreadable too: noted once, below
            rule = "scored 0" if opts.on_unreadable == "zero" else "left out"
            notes[table].append(f"{sys_name}, {task}: {res.unreadable - n_gone} unreadable answer(s), {rule}")
        if gone:
            notes[table].append(gone)
    defects = _defect_notes(items)
    for table, lines in defects.items():
        notes.setdefault(table, []).extend(lines)
    if opts.code:
        notes.setdefault("table3", []).append(
            "Style: as PosterIQ's script prints it, the layout-comparison accuracy normalised with k = 17 (its "
            "driver passes that variable); the style accuracy itself is in the records "
            "(style_understanding_correct)"
        )
    for s in systems:
        c = cells[s]
        if opts.code:
            _printed_style(c, [r for r in out_records if r.system == s and r.metric == "layout_comparison_correct"])
        if "simple_ocr_wr" in c and "hard_ocr_wr" in c:
            a, b = c["simple_ocr_wr"], c["hard_ocr_wr"]
            c["ocr_delta"] = Cell(a.value - b.value, a.n + b.n, a.n_missing + b.n_missing)
            if math.isnan(a.value) or math.isnan(b.value):
                c["ocr_delta"] = Cell(math.nan, 0, a.n + b.n + a.n_missing + b.n_missing)
    sig_options = {k: v for k, v in opts.as_dict().items() if k != "k"}
    metrics = dict.fromkeys(r.metric for r in out_records)
    signatures = {m: str(Signature.make(f"PosterIQ.{m}", sig_options)) for m in metrics}
    unique_notes = {k: list(dict.fromkeys(v)) for k, v in notes.items()}
    return ProtocolResult(
        "posteriq",
        tuple(out_records),
        build_tables(systems, cells, unique_notes),
        signatures,
        opts.as_dict(),
        (*lined_up, *(line for lines in defects.values() for line in lines)),
    )
