"""MPTc-Bench App. B.5 from the checked inputs: Table 10 and the OCR title baseline.

* ``table10``: per system (``"<editor> + <planner>"``) and ``"Overall"``: the number of
  triplets ``n``, the mean IoU(SRC, MTc) and IoU(SRC, GT) of the OCR text masks over the
  triplets where both are defined, their difference, and how many pairs had no text on either
  side (IoU undefined). Surface only by default, as the paper.
* ``ocr_title``: the OCR title baseline on the same items' source posters: the title read as
  the line recognised with the highest confidence (``title_rule="confidence"``, the default:
  the paper's "top-confidence line", App. B.5) or the largest OCR line (``"largest"``), against the reference
  title: the item's ``source_title`` (default) or the judge's reading of SRC
  (``title_reference="judge"``). chrF on the paper's 0-1 scale (it prints 0.1341) and the
  exact-match rate in % (5.41%).

Per-item records: ``ocr_iou_src_mtc`` and ``ocr_iou_src_gt`` per system (status
``"empty_union"`` where undefined, ``"missing_output"``); ``ocr_title_chrf`` (0-100) and
``ocr_title_exact`` (0/1) of the system ``"OCR title (<rule> line)"``.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import torch

from transcreval.errors import InputError
from transcreval.protocols.mptc.inputs import MPTcSet, as_set, system_name
from transcreval.protocols.mptc.scoring.ocr_iou import OCRIoURow, ocr_row, triplet_ious
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table, cell_mean

__all__ = ["exact_match", "ocr_label", "ocr_tables", "table10", "table10_cells", "table10_from_ious"]

_COLS = ("n", "SRC-MTc IoU", "SRC-GT IoU (ref)", "Δ (MTc-GT)", "Empty MTc", "Empty GT")


def exact_match(a: str, b: str, mode: Literal["strict", "normalized"] = "strict") -> bool:
    """Whether two titles are the same: ``"strict"`` after stripping the ends; ``"normalized"``
    after Unicode NFKC, case folding and removing every space."""
    if mode == "strict":
        return a.strip() == b.strip()
    if mode == "normalized":
        x, y = ("".join(unicodedata.normalize("NFKC", t).casefold().split()) for t in (a, b))
        return x == y
    raise InputError(f"exact must be 'strict' or 'normalized', got {mode!r}")


def _row_cells(r: OCRIoURow) -> dict[str, Cell]:
    missing = r.n - r.defined
    return {
        "n": Cell(float(r.n), r.n),
        "SRC-MTc IoU": Cell(r.src_mtc, r.defined, missing),
        "SRC-GT IoU (ref)": Cell(r.src_gt, r.defined, missing),
        "Δ (MTc-GT)": Cell(r.delta, r.defined if not math.isnan(r.delta) else 0, missing),
        "Empty MTc": Cell(float(r.empty_mtc), r.n),
        "Empty GT": Cell(float(r.empty_gt), r.n),
    }


def table10_cells(rows: Sequence[OCRIoURow]) -> tuple[list[Any], dict[tuple[Any, str], Cell]]:
    """Table 10's row labels and cells from its rows (:func:`~transcreval.protocols.mptc.scoring.ocr_iou.ocr_row`)."""
    labels: list[Any] = []
    cells: dict[tuple[Any, str], Cell] = {}
    for r in rows:
        labels.append(r.system)
        for col, cell in _row_cells(r).items():
            cells[(r.system, col)] = cell
    return labels, cells


def table10(
    rows: Sequence[Any], cells: dict[tuple[Any, str], Cell], splits: Sequence[str], ocr: str, resample: str
) -> Table:
    """Table 10 around its rows and cells (:func:`table10_from_ious` builds both)."""
    notes = (
        f"Splits: {', '.join(splits)}; OCR {ocr}; outputs resized to SRC's size ({resample}).",
        "Means over the triplets where both IoUs are defined; Empty: pairs with no text on either side.",
    )
    dec = {"n": 0, "Empty MTc": 0, "Empty GT": 0, **dict.fromkeys(_COLS[1:4], 3)}
    return Table("MPTc-Bench Table 10", _COLS, tuple(rows), cells, dec, "IoU 0-1", notes)


def ocr_label(info: Mapping[str, Any]) -> str:
    """How Table 10's note names the OCR, ``"<backend> (<package>)"``, from a detector's identity
    (:meth:`~transcreval.engines.ocr.detector.DetectorInfo.as_dict`)."""
    return f"{info['backend']} ({str(info['package']).replace(' ', '-')})"


def table10_from_ious(
    runs: Sequence[tuple[str, torch.Tensor, torch.Tensor]], splits: Sequence[str], ocr: str, resample: str
) -> Table:
    """Table 10 from each system's per-triplet IoUs ``(row label, IoU(SRC, MTc), IoU(SRC, GT))``
    (:func:`~transcreval.protocols.mptc.scoring.ocr_iou.triplet_ious`), with the ``"Overall"`` row over
    every triplet: the one builder behind :func:`ocr_tables` and the runner adapter's tables."""
    rows = [ocr_row(label, mtc, gt) for label, mtc, gt in runs]
    if runs:
        rows.append(ocr_row("Overall", torch.cat([m for _, m, _ in runs]), torch.cat([g for _, _, g in runs])))
    labels, cells = table10_cells(rows)
    return table10(labels, cells, splits, ocr, resample)


def _check_options(splits: Sequence[str], title_reference: str, judge: Any, exact: Any) -> None:
    exact_match("", "", exact)  # an unknown ``exact`` mode is refused before any OCR
    if title_reference not in ("source_title", "judge"):
        raise InputError(f"title_reference must be 'source_title' or 'judge', got {title_reference!r}")
    if title_reference == "judge" and judge is None:
        raise InputError("title_reference='judge' reads the reference titles off SRC with a judge: pass judge=")
    bad = [s for s in splits if s not in ("surface", "deep")]
    if bad or not splits:
        raise InputError(f"splits must name 'surface' and/or 'deep', got {list(splits)}")


def _iou_records(
    data: MPTcSet, splits: Sequence[str], run: Mapping[str, Any]
) -> tuple[list[ItemRecord], list[tuple[str, torch.Tensor, torch.Tensor]]]:
    """Every system's per-item IoU records, and per system with outputs its row label and IoUs."""
    records: list[ItemRecord] = []
    runs: list[tuple[str, torch.Tensor, torch.Tensor]] = []
    for s, p, e in data.runs(tuple(splits)):
        outs = data.run_outputs(s, p, e) or {}
        items = data.split_items(s)
        present = [i for i in items if outs.get(i.item_id) is not None and outs[i.item_id].output is not None]
        name = system_name(p, e)
        meta = {"split": s, "planner": p, "editor": e}
        ious: dict[str, tuple[float, float]] = {}
        if present:
            chunks = [present[k : k + 32] for k in range(0, len(present), 32)]  # bounded memory
            got = [
                triplet_ious([i.source for i in c], [i.gt for i in c], [outs[i.item_id].output for i in c], **run)
                for c in chunks
            ]
            mtc, gt = torch.cat([m for m, _ in got]), torch.cat([g for _, g in got])
            runs.append((name if len(splits) == 1 else f"{name} ({s})", mtc, gt))
            ious = {i.item_id: (float(a), float(b)) for i, a, b in zip(present, mtc, gt)}
        for i in items:
            for k, metric in enumerate(("ocr_iou_src_mtc", "ocr_iou_src_gt")):
                v = ious[i.item_id][k] if i.item_id in ious else math.nan
                status = "missing_output" if i.item_id not in ious else "ok" if not math.isnan(v) else "empty_union"
                records.append(ItemRecord(i.item_id, name, metric, v, status, i.item_id, {**i.meta, **meta}))
    return records, runs


def _title_baseline(
    data: MPTcSet,
    splits: Sequence[str],
    detector: Any,
    *,
    title_rule: Literal["largest", "confidence"],
    title_reference: Literal["source_title", "judge"],
    judge: Any,
    title_template: Any,
    exact: Literal["strict", "normalized"],
    input_range: tuple[float, float] | None,
) -> tuple[list[ItemRecord], Table]:
    """The OCR title baseline's per-item records and its table (see the module docstring)."""
    from transcreval.engines.ocr.title import OCRTitleExtractor
    from transcreval.functional.text.chrf import sentence_chrf

    items = [i for s in splits for i in data.split_items(s)]
    reader = OCRTitleExtractor(detector, rule=title_rule)
    read = reader.read([i.source for i in items], input_range=input_range) if items else []
    refs: list[Any] = [None] * len(items)
    if title_reference == "judge" and items:
        from transcreval.functional.judge.title_extraction import extract_titles

        refs = list(extract_titles([i.source for i in items], judge=judge, template=title_template))
    who = f"OCR title ({title_rule} line)"
    records: list[ItemRecord] = []
    chrf_vals: list[float] = []
    exact_vals: list[float] = []
    for i, r, v in zip(items, read, refs):
        tmeta: dict[str, Any] = {**i.meta, "split": data.splits[i.item_id], "ocr_title": r.text}
        if title_reference == "source_title":
            ref, status = i.source_title or "", "ok" if i.source_title else "no_reference_title"
        else:
            ref, status = (
                (str(v.value), "ok") if v is not None and v.ok else ("", f"reference_{v.status if v else 'missing'}")
            )
        if status == "ok":
            c = float(sentence_chrf([r.text], [ref])[0])
            x = float(exact_match(r.text, str(ref), exact))
            tmeta["reference"] = ref
        else:
            c = x = math.nan
        chrf_vals.append(c)
        exact_vals.append(x)
        records.append(ItemRecord(i.item_id, who, "ocr_title_chrf", c, status, i.item_id, tmeta))
        records.append(ItemRecord(i.item_id, who, "ocr_title_exact", x, status, i.item_id, tmeta))
    title_cells = {(who, "chrF"): cell_mean(chrf_vals, 0.01), (who, "Exact match %"): cell_mean(exact_vals, 100.0)}
    n_ref = title_cells[(who, "chrF")].n
    title_cells[(who, "n")] = Cell(float(n_ref), n_ref, len(items) - n_ref)
    t_notes = (
        f"Title read from SRC as the {title_rule} OCR line; reference: {title_reference}; exact match: {exact}.",
        "chrF on the paper's 0-1 scale (sentence chrF / 100, averaged).",
    )
    table = Table(
        "MPTc-Bench App. B.5 OCR title baseline",
        ("n", "chrF", "Exact match %"),
        (who,),
        title_cells,
        {"n": 0, "chrF": 4, "Exact match %": 2},
        "",
        t_notes,
    )
    return records, table


def ocr_tables(
    data: MPTcSet,
    *,
    splits: Sequence[str] = ("surface",),
    backend: Any = "rapidocr",
    resample: str = "bicubic",
    dilate_px: float = 0,
    input_range: tuple[float, float] | None = None,
    title_rule: Literal["largest", "confidence"] = "confidence",
    title_reference: Literal["source_title", "judge"] = "source_title",
    judge: Any = None,
    title_template: Any = None,
    exact: Literal["strict", "normalized"] = "strict",
    **backend_options: Any,
) -> ProtocolResult:
    """Table 10 and the OCR title baseline (see the module docstring). ``backend`` and
    ``backend_options`` choose the OCR (``"rapidocr"`` offline by default; ``"paddleocr"`` is the
    paper's PP-OCRv5), or pass a :class:`~transcreval.ocr.TextDetector`. ``title_rule``: the
    title line, ``"confidence"`` (default, the paper's top-confidence line) or ``"largest"``."""
    from transcreval.engines.ocr.base import get_detector

    data = as_set(data, "ocr_tables")
    _check_options(splits, title_reference, judge, exact)
    det = get_detector(backend, **backend_options)
    run = {"detector": det, "resample": resample, "dilate_px": dilate_px, "input_range": input_range}
    records, runs = _iou_records(data, splits, run)
    t10 = table10_from_ious(runs, splits, ocr_label(det.info_for(False).as_dict()), resample)
    title_records, t_title = _title_baseline(
        data,
        splits,
        det,
        title_rule=title_rule,
        title_reference=title_reference,
        judge=judge,
        title_template=title_template,
        exact=exact,
        input_range=input_range,
    )
    options = {
        **dict(data.options),
        "ocr": det.info_for(True).as_dict(),
        "title_rule": title_rule,
        "title_reference": title_reference,
        "exact": exact,
    }
    tables = {"table10": t10, "ocr_title": t_title}
    return ProtocolResult("mptc", tuple(records + title_records), tables, {}, options)
