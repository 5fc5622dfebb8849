"""PosterIQ's OCR accuracy at the text-instance level (Supp. B, Eq. 1; Table 1 Logo/Poster OCR AC).

``target[i]`` is one text instance (a string: a logo) or the text instances of one poster (a
list of strings). Paper: invisible characters (whitespace, line breaks, zero-width characters,
written-out escapes) are stripped from both sides and an instance counts only under exact match
(case kept, every script kept): a single instance must equal the whole transcription; each
instance of a poster must occur exactly in the poster's transcription (the model answers once
per poster, so an instance's predicted text is its stretch of that answer). The accuracy is the
share of correct instances over all instances (Eq. 1: N is the number of instances, so a poster
weighs as many instances as it has).

``mode="posteriq-code"`` reproduces PosterIQ's script: both sides cleaned to ASCII letters and
digits and lower-cased; a logo is right when the cleaned texts are equal; a poster scores the
share of its instances found in the answer, and the accuracy is the mean over posters. With
``refusal_filter=True`` (code mode only) posters scoring below 0.05 are left out, as the
script's poster-OCR task does (status "refused").

A missing answer (None) is unreadable: every instance of the item wrong
(``on_unreadable="zero"``, the default) or the item left out (``"drop"``); counted either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from transcreval.core.common import (
    MeanStats,
    Mode,
    OnUnreadable,
    as_list,
    check_bool,
    check_mode,
    check_on_unreadable,
    check_text,
    mean_result,
    same_length,
)
from transcreval.core.options import MetricOptions, option
from transcreval.core.result import MetricResult
from transcreval.errors import InputError
from transcreval.functional.text.cleaning import posteriq_clean, strip_invisible

__all__ = [
    "CODE_POSTER_MIN",
    "PACKAGES",
    "OCRAccuracyOptions",
    "check_ocr_options",
    "ocr_accuracy",
    "ocr_accuracy_from_stats",
    "ocr_accuracy_stats",
    "ocr_instances_correct",
]

#: distributions whose versions change the numbers (none)
PACKAGES: tuple[str, ...] = ()

#: PosterIQ's script leaves out posters whose instance accuracy is below this
CODE_POSTER_MIN = 0.05


def check_ocr_options(mode: Any, on_unreadable: Any, refusal_filter: Any) -> None:
    check_mode(mode)
    check_on_unreadable(on_unreadable)
    check_bool("refusal_filter", refusal_filter)
    if refusal_filter and mode != "posteriq-code":
        raise InputError("refusal_filter is PosterIQ's code's rule: use it with mode='posteriq-code'")


@dataclass(frozen=True)
class OCRAccuracyOptions(MetricOptions):
    """The options of OCRAccuracy and :func:`ocr_accuracy`: the mode, what an unreadable answer
    (None) scores, and PosterIQ's script's refusal filter (code mode only)."""

    mode: Mode = "paper"
    on_unreadable: OnUnreadable = option("zero", signature="unreadable")
    refusal_filter: bool = option(False, signature="refusal")

    def check(self) -> None:
        check_ocr_options(self.mode, self.on_unreadable, self.refusal_filter)


def _instances(target: Any, i: int) -> tuple[list[str], bool]:
    if isinstance(target, str):
        texts, single = [target], True
    elif isinstance(target, Sequence) and not isinstance(target, bytes):
        texts, single = list(target), False
    else:
        raise InputError(f"target[{i}] must be a text (a string) or a poster's text instances (a list of strings)")
    if not texts or not all(isinstance(t, str) for t in texts):
        raise InputError(f"target[{i}] must hold at least one text instance, all strings")
    for k, t in enumerate(texts):  # an image path is no text instance (the text metrics' one rule)
        check_text(t, f"target[{i}]" if single else f"target[{i}][{k}]")
    if not all(strip_invisible(t) for t in texts):
        raise InputError(f"target[{i}] has a text instance with no visible character")
    return texts, single


def ocr_instances_correct(pred: str, target: str | Sequence[str], mode: Mode = "paper") -> list[bool]:
    """Per text instance of ``target``, whether the transcription ``pred`` recognises it."""
    check_mode(mode)
    texts, single = _instances(target, 0)
    if not isinstance(pred, str):
        raise InputError(f"a transcription must be a string, got {type(pred).__name__}")
    if mode == "posteriq-code":
        p = posteriq_clean(pred).lower()
        cleaned = [posteriq_clean(t).lower() for t in texts]
        return [c == p for c in cleaned] if single else [c in p for c in cleaned]
    p = strip_invisible(pred)
    return [strip_invisible(t) == p for t in texts] if single else [strip_invisible(t) in p for t in texts]


def ocr_accuracy_stats(
    preds: Sequence[str | None], target: Sequence[str | Sequence[str]], *, options: OCRAccuracyOptions
) -> dict[str, Any]:
    """Paper: per instance 1/0, pooled over items; code: per item the share of its instances."""
    mode = options.mode
    p, t = as_list(preds, "preds"), as_list(target, "target")
    same_length(p, t, "ocr_accuracy (preds vs target)")
    agg = MeanStats()
    for i, (a, b) in enumerate(zip(p, t)):
        texts, _ = _instances(b, i)
        if a is None:
            agg.unreadable(options.on_unreadable, units=len(texts) if mode == "paper" else 1)
            continue
        check_text(a, f"preds[{i}]")
        hits = ocr_instances_correct(a, b, mode)
        if mode == "paper":
            agg.add_pooled([float(h) for h in hits])
            continue
        share = sum(hits) / len(hits)
        if options.refusal_filter and not isinstance(b, str) and share < CODE_POSTER_MIN:
            agg.skip("refused")
        else:
            agg.add(share)
    return agg.as_stats()


def ocr_accuracy_from_stats(stats: dict[str, Any], options: OCRAccuracyOptions) -> MetricResult:
    """The accuracy; ``per_item`` each image's share, ``extras``: ``n_unparsable``, ``item_status``."""
    return mean_result(stats, options.signature("OCRAccuracy", PACKAGES), "OCRAccuracy")


def ocr_accuracy(
    preds: Sequence[str | None],
    target: Sequence[str | Sequence[str]],
    *,
    mode: Mode = "paper",
    on_unreadable: OnUnreadable = "zero",
    refusal_filter: bool = False,
) -> MetricResult:
    """OCR accuracy AC (PosterIQ Eq. 1), in [0, 1], higher is better: the share of text
    instances transcribed exactly (invisible characters stripped); the result
    :class:`~transcreval.OCRAccuracy` computes. ``preds[i]``: the model's transcription of
    image ``i`` (None: no answer); ``target[i]``: its text (a logo) or its text instances (a
    poster). See the module docstring for the code mode."""
    opts = OCRAccuracyOptions(mode, on_unreadable, refusal_filter)
    return ocr_accuracy_from_stats(ocr_accuracy_stats(preds, target, options=opts), opts)
