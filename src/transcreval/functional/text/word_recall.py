"""PosterIQ's word-level OCR recall (Eq. 2) and the two Table 1 statistics built on it.

WR compares a ground-truth text with a model's transcription: delete whitespace, other
invisible characters and literal escape sequences from both (``strip_invisible``), cut the
ground truth into consecutive ``unit``-character units (the last, shorter unit kept) and
count the units that occur as substrings of the prediction. The robustness gap (Delta) is
mean WR on "simple" items minus mean WR on "hard" items; the font-size stability (Std) is the
standard deviation of the per-font-size mean WRs.

``mode="posteriq-code"`` reproduces PosterIQ's public code: keep only ASCII letters and digits,
drop a tail shorter than ``unit``, and score 0 when the ground truth has fewer than ``unit``
characters (docs/posteriq-paper-vs-code.md).

A missing transcription (None) is unreadable: ``on_unreadable="zero"`` (default) scores it
WR 0, as PosterIQ's code scores an empty transcription; ``"drop"`` leaves it out. It is counted
(``n_unparsable``) either way.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from numbers import Real
from typing import Any

from transcreval.common import (
    MeanStats,
    Mode,
    OnUnreadable,
    as_list,
    check_mode,
    check_on_unreadable,
    check_positive_int,
    check_text,
    mean_from_stats,
    same_length,
)
from transcreval.errors import EmptyInputError, InputError, UndefinedValueError
from transcreval.functional.text.cleaning import posteriq_clean, strip_invisible
from transcreval.result import MetricResult, Signature

__all__ = [
    "font_size_stability",
    "font_size_stability_from_stats",
    "font_size_stability_stats",
    "ocr_robustness_gap",
    "ocr_robustness_gap_from_stats",
    "ocr_robustness_gap_stats",
    "word_recall",
    "word_recall_item",
    "word_recall_stats",
]


def word_recall_item(pred: str | None, target: str, unit: int = 5, mode: Mode = "paper") -> float | None:
    """WR of one item: the model's text ``pred`` against the ground truth ``target`` (None when
    the prediction is missing: unreadable)."""
    check_mode(mode)
    check_positive_int("unit", unit)
    if pred is None:
        return None
    if mode == "posteriq-code":
        g, p = posteriq_clean(target), posteriq_clean(pred)
        chunks = [g[i : i + unit] for i in range(0, len(g) - unit + 1, unit)]
        return sum(c in p for c in chunks) / len(chunks) if chunks else 0.0
    if not isinstance(target, str) or not isinstance(pred, str):
        raise InputError(f"word recall needs strings, got {type(pred).__name__} and {type(target).__name__}")
    g, p = strip_invisible(target), strip_invisible(pred)
    if not g:
        raise InputError("a ground-truth text is empty after removing spaces and escapes: it has no units to recall")
    units = [g[i : i + unit] for i in range(0, len(g), unit)]
    return sum(u in p for u in units) / len(units)


def _pairs(preds: Sequence[str | None], target: Sequence[str], what: str) -> tuple[list[Any], list[Any]]:
    p, t = as_list(preds, "preds"), as_list(target, "target")
    same_length(p, t, f"{what} (preds vs target)")
    for name, items in (("preds", p), ("target", t)):
        for i, x in enumerate(items):
            if isinstance(x, str):  # texts, never an image's path or file name
                check_text(x, f"{name}[{i}]")
    return p, t


def word_recall_stats(
    preds: Sequence[str | None],
    target: Sequence[str],
    *,
    unit: int = 5,
    mode: Mode = "paper",
    on_unreadable: OnUnreadable = "zero",
) -> dict[str, Any]:
    """Per-item WRs of a batch as mean statistics (total, count, unparsable, values, status)."""
    check_on_unreadable(on_unreadable)
    p, t = _pairs(preds, target, "word_recall")
    agg = MeanStats()
    for a, b in zip(p, t):
        v = word_recall_item(a, b, unit, mode)
        if v is None:
            agg.unreadable(on_unreadable)
        else:
            agg.add(v)
    return agg.as_stats()


def word_recall(
    preds: Sequence[str | None],
    target: Sequence[str],
    *,
    unit: int = 5,
    mode: Mode = "paper",
    on_unreadable: OnUnreadable = "zero",
) -> float:
    """Word-level recall WR (PosterIQ Eq. 2), mean over items, in [0, 1], higher is better.

    ``preds`` are the model's transcriptions (None = no answer: scored 0, or left out with
    ``on_unreadable="drop"``; counted either way), ``target`` the ground-truth texts. Units are
    case-sensitive substrings, any script.
    """
    stats = word_recall_stats(preds, target, unit=unit, mode=mode, on_unreadable=on_unreadable)
    return mean_from_stats(stats, "word_recall")


# ----------------------------------------------------------------------------- robustness gap
SPLITS = ("simple", "hard")


def ocr_robustness_gap_stats(
    preds: Sequence[str | None],
    target: Sequence[str],
    split: Sequence[str],
    *,
    unit: int = 5,
    mode: Mode = "paper",
    on_unreadable: OnUnreadable = "zero",
) -> dict[str, Any]:
    """WR sums and counts per split (``[simple, hard]``) and the unreadable items."""
    check_on_unreadable(on_unreadable)
    p, t = _pairs(preds, target, "ocr_robustness_gap")
    s = as_list(split, "split")
    same_length(p, s, "ocr_robustness_gap (preds vs split)")
    wr_sum, count, bad = [0.0, 0.0], [0, 0], 0
    for a, b, c in zip(p, t, s):
        if c not in SPLITS:
            raise InputError(f"split entries must be 'simple' or 'hard', got {c!r}")
        v = word_recall_item(a, b, unit, mode)
        if v is None:
            bad += 1
            if on_unreadable == "drop":
                continue
            v = 0.0
        k = SPLITS.index(c)
        wr_sum[k] += v
        count[k] += 1
    return {"wr_sum": wr_sum, "count": count, "unparsable": bad}


def ocr_robustness_gap_from_stats(stats: dict[str, Any], signature: Signature) -> MetricResult:
    """Delta = mean WR(simple) - mean WR(hard); ``extras`` holds both means."""
    n = [int(v) for v in stats["count"]]
    if sum(n) == 0:
        raise EmptyInputError(f"the OCR robustness gap has no readable items ({int(stats['unparsable'])} unparsable)")
    if min(n) == 0:
        raise UndefinedValueError(
            f"the OCR robustness gap needs readable simple and hard items, got {n[0]} simple and {n[1]} hard"
        )
    simple, hard = (float(stats["wr_sum"][k]) / n[k] for k in (0, 1))
    extras = {"simple_wr": simple, "hard_wr": hard, "n_unparsable": int(stats["unparsable"])}
    return MetricResult(simple - hard, sum(n), signature, extras=extras)


def ocr_robustness_gap(
    preds: Sequence[str | None],
    target: Sequence[str],
    split: Sequence[str],
    *,
    unit: int = 5,
    mode: Mode = "paper",
    on_unreadable: OnUnreadable = "zero",
) -> float:
    """Delta = WR(simple) - WR(hard) (PosterIQ Table 1), in [-1, 1]: lower means more robust.

    ``split[i]`` is "simple" or "hard" (plain vs stylised text). For a gap from two WR values
    already computed, see :func:`transcreval.protocols.posteriq.wr_gap`.
    """
    stats = ocr_robustness_gap_stats(preds, target, split, unit=unit, mode=mode, on_unreadable=on_unreadable)
    return ocr_robustness_gap_from_stats(stats, Signature.make("ocr_robustness_gap")).value


# ----------------------------------------------------------------------------- font-size stability
def font_size_stability_stats(
    preds: Sequence[str | None],
    target: Sequence[str],
    font_sizes: Sequence[float],
    *,
    unit: int = 5,
    mode: Mode = "paper",
    on_unreadable: OnUnreadable = "zero",
) -> dict[str, Any]:
    """Per-item WRs with their font sizes (unreadable items counted; WR 0 or left out)."""
    check_on_unreadable(on_unreadable)
    p, t = _pairs(preds, target, "font_size_stability")
    sizes = as_list(font_sizes, "font_sizes")
    same_length(p, sizes, "font_size_stability (preds vs font_sizes)")
    wrs, kept, bad = [], [], 0
    for i, (a, b, size) in enumerate(zip(p, t, sizes)):
        if isinstance(size, (bool, str, bytes)) or not isinstance(size, Real):
            raise InputError(f"font_sizes[{i}] must be a positive number (a point size), got {size!r}")
        fs = float(size)
        if not math.isfinite(fs) or fs <= 0:
            raise InputError(f"font_sizes[{i}] must be a positive number, got {size!r}")
        v = word_recall_item(a, b, unit, mode)
        if v is None:
            bad += 1
            if on_unreadable == "drop":
                continue
            v = 0.0
        wrs.append(v)
        kept.append(fs)
    return {"wr": wrs, "size": kept, "unparsable": bad}


def std_of_means(means: Sequence[float], ddof: int = 1) -> float:
    """Standard deviation of some means (sample std for ``ddof=1``, as PosterIQ's code)."""
    if len(means) <= ddof:
        raise UndefinedValueError(
            f"a standard deviation with ddof={ddof} needs more than {ddof} values, got {len(means)}"
        )
    if ddof == 1:
        return statistics.stdev(means)
    if ddof == 0:
        return statistics.pstdev(means)
    mean = sum(means) / len(means)
    return math.sqrt(sum((m - mean) ** 2 for m in means) / (len(means) - ddof))


def font_size_stability_from_stats(stats: dict[str, Any], signature: Signature, ddof: int = 1) -> MetricResult:
    """Std of the per-size mean WRs; ``extras``: ``mean_wr`` (mean of the per-size means), ``per_size``."""
    by_size: dict[float, list[float]] = {}
    for w, s in zip(_floats(stats["wr"]), _floats(stats["size"])):
        by_size.setdefault(s, []).append(w)
    per_size = {s: sum(v) / len(v) for s, v in sorted(by_size.items())}
    if not per_size:
        raise EmptyInputError(f"font-size stability has no readable items ({int(stats['unparsable'])} unparsable)")
    if len(per_size) <= ddof:
        raise UndefinedValueError(f"font-size stability needs more than {ddof} font sizes, got {len(per_size)}")
    means = list(per_size.values())
    std = std_of_means(means, ddof)
    extras = {"mean_wr": sum(means) / len(means), "per_size": per_size, "n_unparsable": int(stats["unparsable"])}
    return MetricResult(std, sum(len(v) for v in by_size.values()), signature, extras=extras)


def _floats(x: Any) -> list[float]:
    return [float(v) for v in (x.tolist() if hasattr(x, "tolist") else x)]


def font_size_stability(
    preds: Sequence[str | None],
    target: Sequence[str],
    font_sizes: Sequence[float],
    *,
    unit: int = 5,
    mode: Mode = "paper",
    ddof: int = 1,
    on_unreadable: OnUnreadable = "zero",
) -> float:
    """Font-size stability (PosterIQ Table 1 "Std"): the standard deviation of the mean WR per
    font size, in [0, 1], lower is more stable. ``ddof=1`` (sample std) as PosterIQ's code; the
    paper does not say; ``ddof=0`` gives the population std."""
    stats = font_size_stability_stats(preds, target, font_sizes, unit=unit, mode=mode, on_unreadable=on_unreadable)
    return font_size_stability_from_stats(stats, Signature.make("font_size_stability"), ddof).value
