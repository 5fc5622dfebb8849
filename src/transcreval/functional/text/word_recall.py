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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

from transcreval.core.common import (
    MeanStats,
    Mode,
    OnUnreadable,
    as_list,
    check_mode,
    check_on_unreadable,
    check_positive_int,
    check_text,
    mean_result,
    same_length,
)
from transcreval.core.options import MetricOptions, option
from transcreval.core.result import MetricResult
from transcreval.errors import EmptyInputError, InputError, UndefinedValueError
from transcreval.functional.text.cleaning import posteriq_clean, strip_invisible

__all__ = [
    "PACKAGES",
    "FontSizeStabilityOptions",
    "WordRecallOptions",
    "font_size_stability",
    "font_size_stability_from_stats",
    "font_size_stability_stats",
    "ocr_robustness_gap",
    "ocr_robustness_gap_from_stats",
    "ocr_robustness_gap_stats",
    "word_recall",
    "word_recall_from_stats",
    "word_recall_item",
    "word_recall_stats",
]

#: distributions whose versions change the numbers (none)
PACKAGES: tuple[str, ...] = ()
#: what the error of a mean over no item suggests
EMPTY_HINT = "pass items with readable answers"


@dataclass(frozen=True)
class WordRecallOptions(MetricOptions):
    """The options of WordRecall and OCRRobustnessGap (and their twins): the unit length, the
    mode ("paper" or "posteriq-code") and what an unreadable answer (None) scores."""

    unit: int = 5
    mode: Mode = "paper"
    on_unreadable: OnUnreadable = option("zero", signature="unreadable")

    def check(self) -> None:
        check_positive_int("unit", self.unit)
        check_mode(self.mode)
        check_on_unreadable(self.on_unreadable)


@dataclass(frozen=True)
class FontSizeStabilityOptions(WordRecallOptions):
    """:class:`WordRecallOptions` and ``ddof`` (1: sample std, as PosterIQ's code)."""

    ddof: int = 1

    def check(self) -> None:
        super().check()
        check_positive_int("ddof", self.ddof, minimum=0)


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


def _grouped_wrs(
    preds: Any, target: Any, keys: Any, name: str, what: str, options: WordRecallOptions
) -> Iterator[tuple[int, Any, float | None]]:
    """``(index, key, WR)`` per item, ``keys[i]`` the item's group (split, font size; no groups
    when ``keys`` is None); WR None for an unreadable answer."""
    p, t = _pairs(preds, target, what)
    k = [None] * len(p) if keys is None else as_list(keys, name)
    same_length(p, k, f"{what} (preds vs {name})")
    for i, (a, b, key) in enumerate(zip(p, t, k)):
        yield i, key, word_recall_item(a, b, options.unit, options.mode)


def _counted(wr: float | None, options: WordRecallOptions) -> float | None:
    """An item's WR as a grouped mean counts it: an unreadable answer (None) scores 0 with
    ``on_unreadable="zero"`` and is left out (None) with ``"drop"``."""
    return 0.0 if wr is None and options.on_unreadable == "zero" else wr


def word_recall_stats(
    preds: Sequence[str | None], target: Sequence[str], *, options: WordRecallOptions
) -> dict[str, Any]:
    """Per-item WRs of a batch as mean statistics (total, count, unparsable, values, status)."""
    agg = MeanStats()
    for _, _, v in _grouped_wrs(preds, target, None, "", "word_recall", options):
        if v is None:
            agg.unreadable(options.on_unreadable)
        else:
            agg.add(v)
    return agg.as_stats()


def word_recall_from_stats(stats: dict[str, Any], options: WordRecallOptions) -> MetricResult:
    """The mean WR; ``per_item`` each item's WR, ``extras``: ``n_unparsable``, ``item_status``."""
    return mean_result(stats, options.signature("WordRecall", PACKAGES), "WordRecall", hint=EMPTY_HINT)


def word_recall(
    preds: Sequence[str | None],
    target: Sequence[str],
    *,
    unit: int = 5,
    mode: Mode = "paper",
    on_unreadable: OnUnreadable = "zero",
) -> MetricResult:
    """Word-level recall WR (PosterIQ Eq. 2), mean over items, in [0, 1], higher is better: the
    result :class:`~transcreval.WordRecall` computes (``.value``; ``per_item`` each item's WR).

    ``preds`` are the model's transcriptions (None = no answer: scored 0, or left out with
    ``on_unreadable="drop"``; counted either way), ``target`` the ground-truth texts. Units are
    case-sensitive substrings, any script.
    """
    opts = WordRecallOptions(unit, mode, on_unreadable)
    return word_recall_from_stats(word_recall_stats(preds, target, options=opts), opts)


# ----------------------------------------------------------------------------- robustness gap
SPLITS = ("simple", "hard")


def ocr_robustness_gap_stats(
    preds: Sequence[str | None], target: Sequence[str], split: Sequence[str], *, options: WordRecallOptions
) -> dict[str, Any]:
    """WR sums and counts per split (``[simple, hard]``) and the unreadable items."""
    wr_sum, count, bad = [0.0, 0.0], [0, 0], 0
    for _, c, v in _grouped_wrs(preds, target, split, "split", "ocr_robustness_gap", options):
        if c not in SPLITS:
            raise InputError(f"split entries must be 'simple' or 'hard', got {c!r}")
        bad += v is None
        if (v := _counted(v, options)) is None:
            continue
        k = SPLITS.index(c)
        wr_sum[k] += v
        count[k] += 1
    return {"wr_sum": wr_sum, "count": count, "unparsable": bad}


def ocr_robustness_gap_from_stats(stats: dict[str, Any], options: WordRecallOptions) -> MetricResult:
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
    return MetricResult(simple - hard, sum(n), options.signature("OCRRobustnessGap", PACKAGES), extras=extras)


def ocr_robustness_gap(
    preds: Sequence[str | None],
    target: Sequence[str],
    split: Sequence[str],
    *,
    unit: int = 5,
    mode: Mode = "paper",
    on_unreadable: OnUnreadable = "zero",
) -> MetricResult:
    """Delta = WR(simple) - WR(hard) (PosterIQ Table 1), in [-1, 1]: lower means more robust;
    the result :class:`~transcreval.OCRRobustnessGap` computes (``extras``: both means).

    ``split[i]`` is "simple" or "hard" (plain vs stylised text). For a gap from two WR values
    already computed, see :func:`transcreval.protocols.posteriq.wr_gap`.
    """
    opts = WordRecallOptions(unit, mode, on_unreadable)
    return ocr_robustness_gap_from_stats(ocr_robustness_gap_stats(preds, target, split, options=opts), opts)


# ----------------------------------------------------------------------------- font-size stability
def font_size_stability_stats(
    preds: Sequence[str | None], target: Sequence[str], font_sizes: Sequence[float], *, options: WordRecallOptions
) -> dict[str, Any]:
    """Per-item WRs with their font sizes (unreadable items counted; WR 0 or left out)."""
    wrs, kept, bad = [], [], 0
    for i, size, v in _grouped_wrs(preds, target, font_sizes, "font_sizes", "font_size_stability", options):
        if isinstance(size, (bool, str, bytes)) or not isinstance(size, Real):
            raise InputError(f"font_sizes[{i}] must be a positive number (a point size), got {size!r}")
        fs = float(size)
        if not math.isfinite(fs) or fs <= 0:
            raise InputError(f"font_sizes[{i}] must be a positive number, got {size!r}")
        bad += v is None
        if (v := _counted(v, options)) is None:
            continue
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


def font_size_stability_from_stats(stats: dict[str, Any], options: FontSizeStabilityOptions) -> MetricResult:
    """Std of the per-size mean WRs; ``extras``: ``mean_wr`` (mean of the per-size means), ``per_size``."""
    ddof = options.ddof
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
    n = sum(len(v) for v in by_size.values())
    return MetricResult(std, n, options.signature("FontSizeStability", PACKAGES), extras=extras)


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
) -> MetricResult:
    """Font-size stability (PosterIQ Table 1 "Std"): the standard deviation of the mean WR per
    font size, in [0, 1], lower is more stable; the result :class:`~transcreval.FontSizeStability`
    computes (``extras``: ``mean_wr``, ``per_size``). ``ddof=1`` (sample std) as PosterIQ's code;
    the paper does not say; ``ddof=0`` gives the population std."""
    opts = FontSizeStabilityOptions(unit, mode, on_unreadable, ddof)
    return font_size_stability_from_stats(font_size_stability_stats(preds, target, font_sizes, options=opts), opts)
