"""MPTc-Bench App. B.5 (Table 10): OCR text-mask IoU of SRC-MTc against SRC-GT.

:func:`ocr_iou_table` takes aligned lists: per system, the OCR text-mask IoU between each
source poster (SRC) and the system's output (MTc), beside the IoU between the same source
posters and the human target-market posters (GT) as a reference, and their difference
``delta = IoU(SRC, MTc) - IoU(SRC, GT)``; an "Overall" row pools every (system, poster)
triplet. Pairs where neither poster has detected text have no IoU; they are counted
(``empty_mtc`` / ``empty_gt``) and left out of the means.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from transcreval.errors import InputError
from transcreval.functional.ocr.mask_iou import mean_defined, ocr_mask_counts, ocr_mask_iou_from_counts

__all__ = ["OCRIoURow", "format_ocr_iou_table", "ocr_iou_table", "ocr_row", "triplet_ious"]


@dataclass(frozen=True)
class OCRIoURow:
    """One row of the MPTc OCR IoU table.

    Both means are taken over the same triplets: those where both IoU(SRC, MTc) and
    IoU(SRC, GT) are defined (a pair whose two images have no detected text has no IoU), so
    ``delta`` compares like with like.

    Attributes:
        system: the system's name, or ``"Overall"``.
        n: how many triplets (SRC, GT, MTc) the row covers.
        src_mtc: mean IoU(SRC, MTc) over the ``defined`` triplets.
        src_gt: mean IoU(SRC, GT) over the same triplets (the human reference).
        delta: ``src_mtc - src_gt``.
        empty_mtc / empty_gt: triplets whose (SRC, MTc) / (SRC, GT) pair has no detected text
            on either side (IoU undefined); such a triplet is left out of both means.
        defined: how many triplets both means cover (``n`` minus those with an empty pair).
    """

    system: str
    n: int
    src_mtc: float
    src_gt: float
    delta: float
    empty_mtc: int
    empty_gt: int
    defined: int = 0


def ocr_iou_table(
    source: Sequence[Any],
    gt: Sequence[Any],
    outputs: Mapping[str, Sequence[Any]],
    *,
    backend: Any = "rapidocr",
    resample: str = "bicubic",
    dilate_px: float = 0,
    input_range: tuple[float, float] | None = None,
    **backend_options: Any,
) -> list[OCRIoURow]:
    """MPTc Table 10: IoU(SRC, MTc) per system beside IoU(SRC, GT) and the delta.

    Args:
        source: the source posters (SRC), one per item.
        gt: the human target-market posters (GT), aligned with ``source``.
        outputs: ``{system: outputs}``, each aligned with ``source``; ``None`` marks an item
            the system has no output for (the item is then left out of that system's row).
        backend, resample, dilate_px, input_range, **backend_options: as in
            :func:`transcreval.functional.ocr_mask_ious`. Each poster is detected once (the
            detector caches results by image content), however many systems share it.

    Returns:
        one :class:`OCRIoURow` per system, in the order given, then the "Overall" row.
    """
    from transcreval.engines.ocr.base import get_detector

    if len(source) != len(gt):
        raise InputError(f"source and gt must align: {len(source)} source vs {len(gt)} gt posters")
    if not outputs:
        raise InputError("outputs is empty: pass {system name: output posters}")
    det = get_detector(backend, **backend_options)
    opts: dict[str, Any] = {"detector": det, "resample": resample, "dilate_px": dilate_px, "input_range": input_range}
    rows, all_mtc, all_gt = [], [], []
    for system, outs in outputs.items():
        if len(outs) != len(source):
            raise InputError(f"system {system!r}: {len(outs)} outputs for {len(source)} source posters")
        idx = [i for i, o in enumerate(outs) if o is not None]
        if not idx:
            raise InputError(f"system {system!r} has no outputs (every entry is None)")
        iou_mtc, iou_gt = triplet_ious([source[i] for i in idx], [gt[i] for i in idx], [outs[i] for i in idx], **opts)
        all_mtc.append(iou_mtc)
        all_gt.append(iou_gt)
        rows.append(ocr_row(system, iou_mtc, iou_gt))
    rows.append(ocr_row("Overall", torch.cat(all_mtc), torch.cat(all_gt)))
    return rows


def triplet_ious(
    source: Sequence[Any], gt: Sequence[Any], outputs: Sequence[Any], **options: Any
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per triplet, IoU(SRC, MTc) and IoU(SRC, GT) of the OCR text masks (NaN where neither
    poster of the pair has detected text); ``options`` as :func:`~transcreval.functional.ocr.mask_iou.ocr_mask_counts`
    takes them (``detector``, ``resample``, ``dilate_px``, ``input_range``)."""
    s_mtc = ocr_mask_counts(list(outputs), list(source), **options)
    s_gt = ocr_mask_counts(list(gt), list(source), **options)
    return (
        ocr_mask_iou_from_counts(s_mtc["intersection"], s_mtc["union"]),
        ocr_mask_iou_from_counts(s_gt["intersection"], s_gt["union"]),
    )


def ocr_row(system: str, iou_mtc: torch.Tensor, iou_gt: torch.Tensor) -> OCRIoURow:
    """One row of Table 10 from the per-triplet IoUs of :func:`triplet_ious`."""
    both = ~(torch.isnan(iou_mtc) | torch.isnan(iou_gt))  # the triplets defined on both sides
    m, n_def = mean_defined(iou_mtc[both])
    g, _ = mean_defined(iou_gt[both])
    return OCRIoURow(
        system=system,
        n=int(iou_mtc.numel()),
        src_mtc=m,
        src_gt=g,
        delta=m - g if not (math.isnan(m) or math.isnan(g)) else float("nan"),
        empty_mtc=int(torch.isnan(iou_mtc).sum()),
        empty_gt=int(torch.isnan(iou_gt).sum()),
        defined=n_def,
    )


def format_ocr_iou_table(rows: Sequence[OCRIoURow]) -> str:
    """The rows as a plain-text table in MPTc Table 10's column order."""
    header = ["System", "n", "SRC-MTc IoU", "SRC-GT IoU (ref)", "delta (MTc-GT)", "empty unions (MTc/GT)"]
    body = [
        [r.system, str(r.n), f"{r.src_mtc:.3f}", f"{r.src_gt:.3f}", f"{r.delta:+.3f}", f"{r.empty_mtc}/{r.empty_gt}"]
        for r in rows
    ]
    widths = [max(len(x[i]) for x in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
