"""PosterIQ's Tables 1-5 and 7 in the paper's layout, from the task cells of every system.

Rows are the systems (in the order they first appear in the input), columns the paper's
columns left to right (its two header rows joined: "Text Localization Top-1 IoU"), values
rounded to 3 decimals as the paper prints them, on the 0-1 scale (the K-option scores can be
negative in code mode, as PosterIQ's Table 2 shows).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from transcreval.protocols.posteriq.summary import GROUP_ORDER, POSTERIQ_GROUPS, posteriq_summary
from transcreval.protocols.records import Cell, Table

__all__ = ["TABLE_COLUMNS", "TABLE_OF", "build_tables"]

#: the table of each task's cells and notes (a task not named here is a layout task: Table 4)
TABLE_OF: dict[str, str] = {
    **dict.fromkeys(("logo_ocr", "poster_ocr", "simple_ocr", "hard_ocr", "font_size_ocr"), "table1"),
    **dict.fromkeys(("font_matching", "font_attributes", "font_effect_1", "font_effect_2"), "table2"),
    **dict.fromkeys(("style_understanding", "composition_understanding", "intention_understanding"), "table3"),
    "overall_rating": "table5",
}
#: per table key: its name and its (column, cell key) pairs in the paper's order
TABLE_COLUMNS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "table1": (
        "PosterIQ Table 1 (OCR)",
        (
            ("Logo OCR AC", "logo_ocr_ac"),
            ("Poster OCR AC", "poster_ocr_ac"),
            ("Simple OCR WR", "simple_ocr_wr"),
            ("Hard OCR WR", "hard_ocr_wr"),
            ("Δ", "ocr_delta"),
            ("Font Size OCR WR", "font_size_ocr_wr"),
            ("Font Size OCR Std", "font_size_ocr_std"),
        ),
    ),
    "table2": (
        "PosterIQ Table 2 (Font)",
        (
            ("Font Matching Score", "font_matching_score"),
            ("Font Attributes Score", "font_attributes_score"),
            ("Font Effect 1 Effect Score", "font_effect1_score"),
            ("Font Effect 2 Color Score", "font_effect2_color_score"),
            ("Font Effect 2 Effect Score", "font_effect2_effect_score"),
        ),
    ),
    "table3": (
        "PosterIQ Table 3 (Understanding)",
        (
            ("Style Understanding Score", "style_understanding_score"),
            ("Composition Understanding Points Score", "composition_point_score"),
            ("Intention Understanding Points Score", "intention_point_score"),
        ),
    ),
    "table4": (
        "PosterIQ Table 4 (Layout)",
        (
            ("Text Localization Top-1 IoU", "text_localization_top1_iou"),
            ("Text Localization Top-3 IoU", "text_localization_top3_iou"),
            ("Text Localization Mean IoU", "text_localization_mean_iou"),
            ("Text Localization Recall", "text_localization_recall"),
            ("Text Positioning Alignment", "alignment_score"),
            ("Text Positioning Rotation", "rotation_score"),
            ("Empty-Space Mean IoU", "empty_space_iou"),
            ("Empty-Space Match Acc.", "empty_space_match_acc"),
            ("Layout Comparison Score", "layout_comparison_score"),
            ("Layout Generation Center Bias", "layout_generation_center_bias"),
            ("Layout Generation Area Ratio", "layout_generation_area_ratio"),
            ("Layout Generation Recall", "layout_generation_recall"),
        ),
    ),
    "table5": ("PosterIQ Table 5 (Overall Rating)", (("Overall Rating Sim", "overall_rating_similarity"),)),
}
_LOWER = {
    "table1": "Δ and Std: lower is better",
    "table4": "Center Bias: lower is better",
}


def build_tables(
    systems: Sequence[str], cells: Mapping[str, Mapping[str, Cell]], notes: Mapping[str, Sequence[str]]
) -> dict[str, Table]:
    """Tables 1-5 and 7 (``table7``: the group means of the positively oriented scores and
    their mean, :func:`~transcreval.protocols.posteriq.summary.posteriq_summary`)."""
    rows = tuple(systems)
    tables: dict[str, Table] = {}
    for key, (name, columns) in TABLE_COLUMNS.items():
        table_cells = {(s, col): cells[s][k] for s in rows for col, k in columns if k in cells[s]}
        if not table_cells:
            continue
        extra = (_LOWER[key],) if key in _LOWER else ()
        tables[key] = Table(
            name, tuple(c for c, _ in columns), rows, table_cells, 3, "0-1", (*extra, *notes.get(key, ()))
        )
    t7: dict[tuple[str, str], Cell] = {}
    t7_notes: list[str] = []
    for s in rows:
        scores = {k: c.value for k, c in cells[s].items() if k in POSTERIQ_GROUPS and not math.isnan(c.value)}
        if not scores:
            continue
        summary = posteriq_summary(scores)
        for group, value in summary.items():
            n = sum(POSTERIQ_GROUPS[k] == group for k in scores) if group != "Average" else len(summary) - 1
            t7[(s, group)] = Cell(value, n)
        missing = [g for g in GROUP_ORDER if g not in summary]
        if missing:
            t7_notes.append(f"{s}: no scores for {', '.join(missing)}; its Average is over the other groups")
    if t7:
        tables["table7"] = Table(
            "PosterIQ Table 7 (group averages)",
            (*GROUP_ORDER, "Average"),
            rows,
            t7,
            3,
            "0-1",
            (
                "each group: the mean of its positively oriented scores (Δ, Std, Center Bias and the layout "
                "generation recall left out); Average: the mean of the groups",
                *t7_notes,
            ),
        )
    return tables
