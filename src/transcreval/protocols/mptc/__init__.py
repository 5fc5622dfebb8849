"""MPTc-Bench (Lin et al.): every table of the paper from a system's raw outputs.

The protocol's building blocks: :func:`edit_intensity_study` (App. B.2),
:func:`similarity_metrics` (the Table 5 collection), :func:`plan_to_render_loss` (Fig. 6) and
:func:`ocr_iou_table` (Table 10 from aligned lists).
"""

from __future__ import annotations

from transcreval.protocols.mptc.ocr_iou import OCRIoURow, format_ocr_iou_table, ocr_iou_table
from transcreval.protocols.mptc.study import (
    EditIntensityStudy,
    edit_intensity_study,
    format_edit_intensity,
    plan_to_render_loss,
    similarity_metrics,
)

__all__ = [
    "EditIntensityStudy",
    "OCRIoURow",
    "edit_intensity_study",
    "format_edit_intensity",
    "format_ocr_iou_table",
    "ocr_iou_table",
    "plan_to_render_loss",
    "similarity_metrics",
]
