"""PosterIQ's empty-space metrics (Supp. B, Eq. 8-9): patch IoU and match accuracy.

The poster is cut into a 7x7 grid (patch ids 0..48); the model names the patches that are
empty. Answers may be id lists or raw text (parsed by
:func:`transcreval.parsing.parse_patch_ids`; ``[]`` is an answer naming no patch). An answer that
cannot be read is counted (``n_unparsable``) and scores 0 (``on_unreadable="zero"``, the
default, as a literal reading of Eq. 8-9) or is left out (``"drop"``).
``mode="posteriq-code"`` uses PosterIQ's parser (the text between the last ``[`` and ``]``,
``int()`` of each piece) and counts list entries, duplicates included, for match accuracy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.common import (
    MeanStats,
    Mode,
    OnUnreadable,
    as_list,
    check_mode,
    check_on_unreadable,
    check_positive_int,
    mean_from_stats,
    same_length,
)
from transcreval.errors import InputError
from transcreval.parsing import parse_patch_ids, posteriq_code_patch_ids

__all__ = ["match_accuracy", "match_accuracy_stats", "patch_iou", "patch_iou_stats", "read_patch_ids"]


def read_patch_ids(pred: Any, mode: Mode = "paper", n_patches: int = 49) -> list[int] | None:
    """A prediction as patch ids (None when the answer cannot be read)."""
    if pred is None:
        return None
    if isinstance(pred, (str, bytes)):
        parsed = (
            posteriq_code_patch_ids(pred) if mode == "posteriq-code" else parse_patch_ids(pred, n_patches=n_patches)
        )
        return parsed.value if parsed.ok else None
    ids = []
    for v in as_list(pred, "a predicted id list"):
        # NaN / inf / 2.5 are no ids (int(NaN) used to raise a raw ValueError)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
            raise InputError(f"patch ids must be integers, got {v!r}")
        ids.append(int(v))
    if mode == "paper" and any(i < 0 or i >= n_patches for i in ids):
        raise InputError(f"patch ids must lie in 0..{n_patches - 1}, got {ids}")
    return ids


def _check(mode: Mode, n_patches: int, on_unreadable: OnUnreadable) -> None:
    check_mode(mode)
    check_positive_int("n_patches", n_patches)
    check_on_unreadable(on_unreadable)


def patch_iou_stats(
    preds: Sequence[Any],
    target: Sequence[Sequence[int]],
    *,
    mode: Mode = "paper",
    n_patches: int = 49,
    on_unreadable: OnUnreadable = "zero",
) -> dict[str, Any]:
    """Per item the set IoU of predicted and ground-truth patch ids."""
    _check(mode, n_patches, on_unreadable)
    p, t = as_list(preds, "preds"), as_list(target, "target")
    same_length(p, t, "patch_iou (preds vs target)")
    agg = MeanStats()
    for pred, gt in zip(p, t):
        g = set(read_patch_ids(list(gt), "paper", n_patches) or [])
        ids = read_patch_ids(pred, mode, n_patches)
        if ids is None:
            agg.unreadable(on_unreadable)
            continue
        ps = set(ids)
        union = ps | g
        agg.add(len(ps & g) / len(union) if union else 1.0)
    return agg.as_stats()


def patch_iou(
    preds: Sequence[Any],
    target: Sequence[Sequence[int]],
    *,
    mode: Mode = "paper",
    n_patches: int = 49,
    on_unreadable: OnUnreadable = "zero",
) -> float:
    """Patch IoU (PosterIQ Eq. 8): mean over samples of ``|P ∩ G| / |P ∪ G|`` of patch-id sets
    (7x7 grid, ids 0..48), in [0, 1], higher is better; two empty sets score 1. An unreadable
    answer scores 0 (``on_unreadable="zero"``) or is left out (``"drop"``)."""
    stats = patch_iou_stats(preds, target, mode=mode, n_patches=n_patches, on_unreadable=on_unreadable)
    return mean_from_stats(stats, "patch_iou")


def match_accuracy_stats(
    preds: Sequence[Any],
    target: Sequence[int],
    *,
    mode: Mode = "paper",
    n_patches: int = 49,
    on_unreadable: OnUnreadable = "zero",
) -> dict[str, Any]:
    """Per item 1 when the answer has the requested number of patches, else 0."""
    _check(mode, n_patches, on_unreadable)
    p, t = as_list(preds, "preds"), as_list(target, "target")
    same_length(p, t, "match_accuracy (preds vs target)")
    agg = MeanStats()
    for pred, requested in zip(p, t):
        if isinstance(requested, bool) or not isinstance(requested, int) or requested < 0:
            raise InputError(f"target holds the number of patches asked for (an integer >= 0), got {requested!r}")
        ids = read_patch_ids(pred, mode, n_patches)
        if ids is None:
            agg.unreadable(on_unreadable)
            continue
        size = len(ids) if mode == "posteriq-code" else len(set(ids))
        agg.add(float(size == requested))
    return agg.as_stats()


def match_accuracy(
    preds: Sequence[Any],
    target: Sequence[int],
    *,
    mode: Mode = "paper",
    n_patches: int = 49,
    on_unreadable: OnUnreadable = "zero",
) -> float:
    """Match accuracy (PosterIQ Eq. 9): fraction of samples whose predicted patch *set* has the
    requested size (``target``), in [0, 1], higher is better. Code: the length of the
    predicted *list* (duplicates count). An unreadable answer scores 0 or is left out."""
    stats = match_accuracy_stats(preds, target, mode=mode, n_patches=n_patches, on_unreadable=on_unreadable)
    return mean_from_stats(stats, "match_accuracy")
