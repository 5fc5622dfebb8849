"""PosterIQ's aggregates from task scores (Feng et al., Table 1's Delta and Std, Table 7).

:func:`posteriq_summary` reproduces Table 7 (group means of the positively oriented task
scores, and their mean) from a dict of task scores; :func:`wr_gap` and
:func:`font_size_std` give Table 1's two OCR statistics from WR values already computed (the
metrics :class:`~transcreval.OCRRobustnessGap` and :class:`~transcreval.FontSizeStability`
compute them from the raw texts). A WR is a finite number in [0, 1]; anything else (NaN, None,
a string, a bool) is an :class:`~transcreval.errors.InputError` naming where it was.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np

from transcreval.errors import EmptyInputError, InputError
from transcreval.functional.text.word_recall import std_of_means

__all__ = ["GROUP_ORDER", "POSTERIQ_EXCLUDED", "POSTERIQ_GROUPS", "font_size_std", "posteriq_summary", "wr_gap"]


def _wr(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (Real, np.number)) or isinstance(v, complex):
        raise InputError(f"{what} must be a WR (a number in [0, 1]), got {v!r}")
    x = float(v)
    if not (math.isfinite(x) and 0.0 <= x <= 1.0):
        raise InputError(f"{what} must be a WR in [0, 1], got {v!r}")
    return x


def _mean(x: Any, what: str) -> float:
    """A WR, or the mean of per-item WRs (a list, tuple or 1-D array/tensor)."""
    if isinstance(x, (Real, np.number)) and not isinstance(x, bool):
        return _wr(x, what)
    if hasattr(x, "tolist") and getattr(x, "ndim", 1) == 1:
        x = x.tolist()
    if isinstance(x, (str, bytes)) or not isinstance(x, Sequence):
        raise InputError(f"{what} must be a WR value or a list of per-item WRs, got {type(x).__name__}")
    vals = [_wr(v, f"{what}[{i}]") for i, v in enumerate(x)]
    if not vals:
        raise EmptyInputError(f"{what} is empty")
    return math.fsum(vals) / len(vals)


def wr_gap(simple_wr: float | Sequence[float], hard_wr: float | Sequence[float]) -> float:
    """Delta = WR(simple) - WR(hard) (PosterIQ Table 1), lower is more robust; each side is a
    WR value or a list of per-item WRs (averaged)."""
    return _mean(simple_wr, "simple_wr") - _mean(hard_wr, "hard_wr")


def font_size_std(wr_by_size: Mapping[object, float | Sequence[float]], ddof: int = 1) -> tuple[float, float]:
    """(mean, std) of the per-font-size WR means (PosterIQ Table 1 "Font Size OCR", "Std");
    ``wr_by_size`` maps each font size to its WR or its per-item WRs. ``ddof=1``: sample std,
    as PosterIQ's code (``statistics.stdev``)."""
    if not isinstance(wr_by_size, Mapping):
        raise InputError(
            f"wr_by_size must map each font size to its WR (or list of WRs), got {type(wr_by_size).__name__}"
        )
    if isinstance(ddof, bool) or not isinstance(ddof, int) or ddof < 0:
        raise InputError(f"ddof must be a non-negative integer (1: sample std, 0: population std), got {ddof!r}")
    means = [_mean(v, f"WR at size {k}") for k, v in wr_by_size.items()]
    if len(means) <= ddof:
        raise InputError(f"font_size_std needs more than {ddof} font sizes, got {len(means)}")
    return sum(means) / len(means), std_of_means(means, ddof)


POSTERIQ_GROUPS: dict[str, str] = {
    # OCR (Table 1); the gap (delta) and the font-size std are lower-is-better
    "logo_ocr_ac": "OCR",
    "poster_ocr_ac": "OCR",
    "simple_ocr_wr": "OCR",
    "hard_ocr_wr": "OCR",
    "font_size_ocr_wr": "OCR",
    # Font (Table 2)
    "font_matching_score": "Font",
    "font_attributes_score": "Font",
    "font_effect1_score": "Font",
    "font_effect2_color_score": "Font",
    "font_effect2_effect_score": "Font",
    # Layout (Table 4)
    "text_localization_top1_iou": "Layout",
    "text_localization_top3_iou": "Layout",
    "text_localization_mean_iou": "Layout",
    "text_localization_recall": "Layout",
    "alignment_score": "Layout",
    "rotation_score": "Layout",
    "empty_space_iou": "Layout",
    "empty_space_match_acc": "Layout",
    "layout_comparison_score": "Layout",
    "layout_generation_area_ratio": "Layout",
    # Understanding (Table 3)
    "style_understanding_score": "Understanding",
    "composition_point_score": "Understanding",
    "intention_point_score": "Understanding",
    # Overall rating (Table 5)
    "overall_rating_similarity": "Overall Rating",
}
#: Reported by PosterIQ but left out of Table 7's positively oriented averages.
POSTERIQ_EXCLUDED = ("ocr_delta", "font_size_ocr_std", "layout_generation_center_bias", "layout_generation_recall")
GROUP_ORDER = ("OCR", "Font", "Layout", "Understanding", "Overall Rating")


def posteriq_summary(task_scores: Mapping[str, float], groups: Mapping[str, str] | None = None) -> dict[str, float]:
    """PosterIQ Table 7: the mean of each group's positively oriented scores, and their mean.

    ``task_scores`` maps metric keys (see ``POSTERIQ_GROUPS``) to values. Keys in
    ``POSTERIQ_EXCLUDED`` (delta, the font-size std, centre bias; and the layout-generation
    recall, which Table 7's layout means leave out, as recomputing them from Table 4 shows) are
    ignored; unknown keys are an error unless ``groups`` assigns them. Groups with no score are
    left out of the average. Returns ``{group: mean, ..., "Average": mean of the groups}``.
    """
    mapping = dict(POSTERIQ_GROUPS)
    mapping.update(groups or {})
    sums: dict[str, list[float]] = {}
    unknown = []
    for key, value in task_scores.items():
        if key in POSTERIQ_EXCLUDED and key not in (groups or {}):
            continue
        if key not in mapping:
            unknown.append(key)
            continue
        if isinstance(value, bool) or not isinstance(value, (Real, np.number)) or isinstance(value, complex):
            raise InputError(f"score {key!r} must be a number, got {value!r}")
        v = float(value)
        if not math.isfinite(v):
            raise InputError(f"score {key!r} is {value!r}")
        sums.setdefault(mapping[key], []).append(v)
    if unknown:
        raise InputError(
            f"unknown PosterIQ score keys {unknown}; known: {sorted(mapping)}; or pass groups={{key: group}}"
        )
    if not sums:
        raise EmptyInputError("posteriq_summary needs at least one score")
    order = [g for g in GROUP_ORDER if g in sums] + sorted(g for g in sums if g not in GROUP_ORDER)
    out = {g: sum(sums[g]) / len(sums[g]) for g in order}
    out["Average"] = sum(out.values()) / len(out)
    return out
