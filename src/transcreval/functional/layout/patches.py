"""PosterIQ's empty-space metrics (Supp. B, Eq. 8-9): patch IoU and match accuracy.

The poster is cut into a 7x7 grid (patch ids 0..48); the model names the patches that are
empty. Answers may be id lists or raw text (parsed by
:func:`transcreval.utils.parsing.parse_patch_ids`; ``[]`` is an answer naming no patch). An answer that
cannot be read is counted (``n_unparsable``) and scores 0 (``on_unreadable="zero"``, the
default, as a literal reading of Eq. 8-9) or is left out (``"drop"``).
``mode="posteriq-code"`` uses PosterIQ's parser (the text between the last ``[`` and ``]``,
``int()`` of each piece) and counts list entries, duplicates included, for match accuracy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import transcreval.core.common as C
from transcreval.core.options import MetricOptions, option, takes_options
from transcreval.core.result import MetricResult
from transcreval.errors import InputError
from transcreval.utils.parsing import parse_patch_ids, posteriq_code_patch_ids

__all__ = [
    "MatchAccuracyOptions",
    "PatchOptions",
    "match_accuracy",
    "match_accuracy_from_stats",
    "match_accuracy_stats",
    "patch_iou",
    "patch_iou_from_stats",
    "patch_iou_stats",
    "read_patch_ids",
]

#: distributions whose versions change the numbers (none)
PACKAGES: tuple[str, ...] = ()


@dataclass(frozen=True)
class PatchOptions(MetricOptions):
    """The options of :class:`~transcreval.PatchIoU` and :class:`~transcreval.MatchAccuracy`:
    ``mode``, ``n_patches`` (the grid's patch count, 49 for 7x7) and ``on_unreadable``."""

    mode: C.Mode = "paper"
    n_patches: int = option(49, signature="patches")
    on_unreadable: C.OnUnreadable = option("zero", signature="unreadable")

    def check(self) -> None:
        C.check_mode(self.mode)
        C.check_positive_int("n_patches", self.n_patches)
        C.check_on_unreadable(self.on_unreadable)


@dataclass(frozen=True)
class MatchAccuracyOptions(PatchOptions):
    """The options of :class:`~transcreval.MatchAccuracy`: :class:`PatchOptions` and
    ``definition`` ("supp-b": Eq. 9, the predicted set has the requested size; "main-text": the
    main text's "match the requested count and target regions", the predicted set equals the
    ground-truth set, whose size Eq. 9 defines as the count requested)."""

    definition: C.Definition = option("supp-b", signature=C.definition_signature)

    def check(self) -> None:
        super().check()
        C.check_definition(self.definition, self.mode)


def read_patch_ids(pred: Any, mode: C.Mode = "paper", n_patches: int = 49) -> list[int] | None:
    """A prediction as patch ids (None when the answer cannot be read)."""
    if pred is None:
        return None
    if isinstance(pred, (str, bytes)):
        parsed = (
            posteriq_code_patch_ids(pred) if mode == "posteriq-code" else parse_patch_ids(pred, n_patches=n_patches)
        )
        return parsed.value if parsed.ok else None
    ids = []
    for v in C.as_list(pred, "a predicted id list"):
        # NaN / inf / 2.5 are no ids (int(NaN) used to raise a raw ValueError)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
            raise InputError(f"patch ids must be integers, got {v!r}")
        ids.append(int(v))
    if mode == "paper" and any(i < 0 or i >= n_patches for i in ids):
        raise InputError(f"patch ids must lie in 0..{n_patches - 1}, got {ids}")
    return ids


def _scored(
    preds: Sequence[Any],
    target: Sequence[Any],
    what: str,
    options: PatchOptions,
    read_target: Callable[[Any], Any],
    score: Callable[[list[int], Any], float],
) -> dict[str, Any]:
    """``score(predicted ids, read_target(target item))`` per item (the target is read first,
    whatever the answer); an unreadable answer scores 0 or is left out."""
    p, t = C.as_list(preds, "preds"), C.as_list(target, "target")
    C.same_length(p, t, f"{what} (preds vs target)")
    agg = C.MeanStats()
    for pred, gt in zip(p, t):
        wanted = read_target(gt)
        ids = read_patch_ids(pred, options.mode, options.n_patches)
        if ids is None:
            agg.unreadable(options.on_unreadable)
        else:
            agg.add(score(ids, wanted))
    return agg.as_stats()


def patch_iou_stats(preds: Sequence[Any], target: Sequence[Sequence[int]], *, options: PatchOptions) -> dict[str, Any]:
    """Per item the set IoU of predicted and ground-truth patch ids."""

    def read_target(gt: Any) -> set[int]:
        return set(read_patch_ids(list(gt), "paper", options.n_patches) or [])

    def score(ids: list[int], g: set[int]) -> float:
        union = set(ids) | g
        return len(set(ids) & g) / len(union) if union else 1.0

    return _scored(preds, target, "patch_iou", options, read_target, score)


def patch_iou_from_stats(stats: dict[str, Any], options: PatchOptions) -> MetricResult:
    """The mean IoU (``per_item`` one value per answer)."""
    return C.mean_result(stats, options.signature("PatchIoU", PACKAGES), "PatchIoU")


@takes_options(PatchOptions)
def patch_iou(preds: Sequence[Any], target: Sequence[Sequence[int]], **options: Any) -> MetricResult:
    """Patch IoU (PosterIQ Eq. 8): mean over samples of ``|P ∩ G| / |P ∪ G|`` of patch-id sets
    (7x7 grid, ids 0..48), in [0, 1], higher is better; two empty sets score 1. An unreadable
    answer scores 0 (``on_unreadable="zero"``) or is left out (``"drop"``). What
    :class:`~transcreval.PatchIoU` computes on the same answers."""
    opts = PatchOptions.take(options, "patch_iou")
    return patch_iou_from_stats(patch_iou_stats(preds, target, options=opts), opts)


def match_accuracy_stats(
    preds: Sequence[Any], target: Sequence[Any], *, options: MatchAccuracyOptions
) -> dict[str, Any]:
    """Per item 1 when the answer has the requested number of patches (Supp. B), or is the
    target set of patches (``definition="main-text"``, ``target`` the ground-truth ids), else 0."""
    if options.definition == "main-text":

        def read_ids(gt: Any) -> set[int]:
            if isinstance(gt, (bool, int, float, str)) or gt is None:
                raise InputError(
                    "definition='main-text' compares the answer with the target patch ids: give each item's "
                    f"ground-truth id list as target, got {gt!r}"
                )
            return set(read_patch_ids(list(gt), "paper", options.n_patches) or [])

        return _scored(preds, target, "match_accuracy", options, read_ids, lambda ids, g: float(set(ids) == g))

    def read_target(requested: Any) -> int:
        if isinstance(requested, bool) or not isinstance(requested, int) or requested < 0:
            raise InputError(f"target holds the number of patches asked for (an integer >= 0), got {requested!r}")
        return requested

    def score(ids: list[int], requested: int) -> float:
        size = len(ids) if options.mode == "posteriq-code" else len(set(ids))
        return float(size == requested)

    return _scored(preds, target, "match_accuracy", options, read_target, score)


def match_accuracy_from_stats(stats: dict[str, Any], options: PatchOptions) -> MetricResult:
    """The fraction of answers of the requested size (``per_item`` one value per answer)."""
    return C.mean_result(stats, options.signature("MatchAccuracy", PACKAGES), "MatchAccuracy")


@takes_options(MatchAccuracyOptions)
def match_accuracy(preds: Sequence[Any], target: Sequence[int], **options: Any) -> MetricResult:
    """Match accuracy (PosterIQ Eq. 9): fraction of samples whose predicted patch *set* has the
    requested size (``target``), in [0, 1], higher is better. Code: the length of the
    predicted *list* (duplicates count). An unreadable answer scores 0 or is left out. What
    :class:`~transcreval.MatchAccuracy` computes on the same answers.

    ``definition="main-text"`` (paper mode only) reads PosterIQ's main text instead: the
    returned ids must match "the requested count *and* target regions", so ``target[i]`` is the
    ground-truth id list and an item scores 1 when the predicted set equals it."""
    opts = MatchAccuracyOptions.take(options, "match_accuracy")
    return match_accuracy_from_stats(match_accuracy_stats(preds, target, options=opts), opts)
