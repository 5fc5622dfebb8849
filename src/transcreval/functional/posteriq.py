"""PosterIQ's weight-free metrics (Feng et al., CVPR 2026, Supplementary B).

Each function follows the paper's text by default (``mode="paper"``); ``mode="posteriq-code"``
reproduces the numbers of PosterIQ's public evaluation code where it departs from the paper.
docs/posteriq-paper-vs-code.md lists every divergence with an example of both numbers.

Answers may be given parsed (boxes, id lists, scores, booleans) or as the model's raw text; raw
text goes through :mod:`transcreval.parsing`. In paper mode an answer that cannot be read is
counted (``n_unparsable``) and left out of the score, never scored as 0 or 1; the code mode
does what PosterIQ's script does with it.
"""

from __future__ import annotations

import math
import re
import statistics
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from transcreval.errors import EmptyInputError, InputError
from transcreval.parsing import (
    Box,
    parse_boxes,
    parse_patch_ids,
    parse_score,
    parse_yes_no,
    posteriq_code_boxes,
    posteriq_code_patch_ids,
    posteriq_code_score,
)

Mode = Literal["paper", "posteriq-code"]

__all__ = [
    "Aggregate",
    "area_ratio",
    "box_recall_rate",
    "center_bias",
    "font_richness",
    "font_size_stability",
    "match_accuracy",
    "ocr_robustness_gap",
    "overall_rating_similarity",
    "patch_iou",
    "point_score",
    "posteriq_summary",
    "style_score",
    "text_localization_iou",
    "word_recall",
]


@dataclass
class Aggregate:
    """A mean being built: ``total / count`` plus how many items could not be read."""

    total: float = 0.0
    count: int = 0
    unparsable: int = 0
    per_item: list[float] = field(default_factory=list)

    def add(self, value: float) -> None:
        self.total += value
        self.count += 1
        self.per_item.append(value)

    def value(self, what: str) -> float:
        if self.count == 0:
            raise EmptyInputError(f"{what}: no valid items ({self.unparsable} unparsable)")
        return self.total / self.count


def _check_mode(mode: str) -> None:
    if mode not in ("paper", "posteriq-code"):
        raise InputError(f"mode must be 'paper' or 'posteriq-code', got {mode!r}")


def _seq(x: Any, what: str) -> list[Any]:
    if isinstance(x, (str, bytes)) or not isinstance(x, Sequence):
        raise InputError(f"{what} must be a list (one entry per item), got {type(x).__name__}")
    return list(x)


def _same_length(a: list[Any], b: list[Any], what: str) -> None:
    if len(a) != len(b):
        raise InputError(f"mismatched lengths in {what}: {len(a)} vs {len(b)}")


# ----------------------------------------------------------------------------- OCR: word recall
_ESCAPES = re.compile(r"\\[nrtvfb0]|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}")


def _strip_paper(text: str) -> str:
    """Delete whitespace (incl. \\n, \\t) and literal escape sequences such as "\\n"."""
    return "".join(_ESCAPES.sub("", text).split())


def _clean_code(text: Any) -> str:
    """PosterIQ code's clean_string: keep ASCII letters and digits only; lists are cleaned
    item by item and concatenated."""
    if isinstance(text, (list, tuple)):
        return "".join(_clean_code(t) for t in text)
    return re.sub(r"[^A-Za-z0-9]", "", str(text))


def word_recall_one(gt: Any, pred: Any, unit: int = 5, mode: Mode = "paper") -> float | None:
    """WR of one item (None when the prediction is missing)."""
    _check_mode(mode)
    if not isinstance(unit, int) or unit < 1:
        raise InputError(f"unit must be a positive integer, got {unit!r}")
    if mode == "posteriq-code":
        g, p = _clean_code(gt), _clean_code(pred if pred is not None else "")
        chunks = [g[i : i + unit] for i in range(0, len(g) - unit + 1, unit)]
        return sum(c in p for c in chunks) / len(chunks) if chunks else 0.0
    if pred is None:
        return None
    if not isinstance(gt, str) or not isinstance(pred, str):
        raise InputError(f"word_recall needs strings, got {type(gt).__name__} and {type(pred).__name__}")
    g, p = _strip_paper(gt), _strip_paper(pred)
    if not g:
        raise InputError("a ground-truth text is empty after removing spaces and escapes: it has no units to recall")
    units = [g[i : i + unit] for i in range(0, len(g), unit)]
    return sum(u in p for u in units) / len(units)


def word_recall(gt: Sequence[str], pred: Sequence[str | None], unit: int = 5, mode: Mode = "paper") -> float:
    """Word-level recall WR (PosterIQ Eq. 2), mean over items, in [0, 1], higher is better.

    Paper: delete spaces and escape characters from both texts, cut the ground truth into
    consecutive ``unit``-character units (the last, shorter unit kept) and count the units that
    occur as substrings of the prediction (case-sensitive, any script). A missing prediction
    (None) is unparsable: counted, not scored. Code: keep only ASCII letters/digits, drop a
    tail shorter than ``unit``, and score 0 when the ground truth has fewer than ``unit``
    characters.
    """
    return _word_recall_agg(gt, pred, unit, mode).value("word_recall")


def _word_recall_agg(gt: Sequence[str], pred: Sequence[str | None], unit: int, mode: Mode) -> Aggregate:
    g, p = _seq(gt, "gt"), _seq(pred, "pred")
    _same_length(g, p, "word_recall (gt vs pred)")
    agg = Aggregate()
    for a, b in zip(g, p):
        v = word_recall_one(a, b, unit, mode)
        if v is None:
            agg.unparsable += 1
        else:
            agg.add(v)
    return agg


def _mean(x: Any, what: str) -> float:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    vals = [float(v) for v in _seq(x, what)]
    if not vals:
        raise EmptyInputError(f"{what} is empty")
    return sum(vals) / len(vals)


def ocr_robustness_gap(simple_wr: float | Sequence[float], hard_wr: float | Sequence[float]) -> float:
    """Delta = WR(simple) - WR(hard) (PosterIQ Table 1): lower means more robust.

    Each side is a WR value or a list of per-item WRs (averaged)."""
    return _mean(simple_wr, "simple_wr") - _mean(hard_wr, "hard_wr")


def font_size_stability(wr_by_size: Mapping[Any, float | Sequence[float]], ddof: int = 1) -> tuple[float, float]:
    """(mean, std) of the per-font-size WR means (PosterIQ Table 1 "Font Size OCR", "Std").

    ``wr_by_size`` maps each font size to its WR or its list of per-item WRs. The std is the
    *sample* standard deviation (``ddof=1``), as PosterIQ's code computes it with
    ``statistics.stdev``; the paper does not say which; ``ddof=0`` gives the population std.
    Lower std means more stable across sizes.
    """
    if not isinstance(wr_by_size, Mapping):
        raise InputError("wr_by_size must map each font size to its WR (or list of WRs)")
    means = [_mean(v, f"WR at size {k}") for k, v in wr_by_size.items()]
    if len(means) <= ddof:
        raise InputError(f"font_size_stability needs more than {ddof} font sizes, got {len(means)}")
    mean = sum(means) / len(means)
    std = (
        statistics.stdev(means)
        if ddof == 1
        else statistics.pstdev(means)
        if ddof == 0
        else math.sqrt(sum((m - mean) ** 2 for m in means) / (len(means) - ddof))
    )
    return mean, std


# ----------------------------------------------------------------------------- boxes
def _box_iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = _area(a) + _area(b) - inter
    return inter / union if union > 0 else 0.0


def _area(b: Box) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _center(b: Box) -> tuple[float, float]:
    return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2


def _code_readings(pred: Box, size: tuple[float, float] | None) -> list[Box]:
    """The four coordinate readings PosterIQ's code tries for every predicted box."""
    out = []
    if size is not None:
        w, h = size
        out.append((pred[0] / w, pred[1] / h, pred[2] / w, pred[3] / h))
    out.append(pred)
    for scale in (1024.0, 1000.0):
        out.append((pred[0] / scale, pred[1] / scale, pred[2] / scale, pred[3] / scale))
    return out


def _as_box_list(x: Any, what: str) -> list[Box]:
    if isinstance(x, (str, bytes)) or not isinstance(x, Sequence):
        raise InputError(f"{what} must be a list of [x0, y0, x1, y1] boxes")
    out = []
    for b in x:
        if not isinstance(b, Sequence) or len(b) != 4:
            raise InputError(f"{what}: every box needs 4 numbers [x0, y0, x1, y1], got {b!r}")
        vals = tuple(float(v) for v in b)
        if not all(math.isfinite(v) for v in vals):
            raise InputError(f"{what}: box {b!r} has NaN or infinite coordinates")
        out.append(vals)
    return out  # type: ignore[return-value]


def _pred_boxes(pred: Any, mode: Mode, coords: str, size: tuple[float, float] | None) -> list[Box] | None:
    """A prediction as boxes: parsed from text when it is a string (None when unreadable)."""
    if pred is None:
        return None
    if isinstance(pred, (str, bytes)):
        if mode == "posteriq-code":
            return posteriq_code_boxes(pred)
        parsed = parse_boxes(pred, coords=coords, image_size=size)  # type: ignore[arg-type]
        return parsed.value if parsed.ok else None
    boxes = _as_box_list(pred, "pred_boxes")
    if mode == "paper":
        if coords == "pixel":
            if size is None:
                raise InputError("coords='pixel' needs image_sizes")
            boxes = [(b[0] / size[0], b[1] / size[1], b[2] / size[0], b[3] / size[1]) for b in boxes]
        _check_normalized(boxes, "predicted")
    return boxes


def _check_normalized(boxes: list[Box], what: str) -> None:
    if any(v < -1e-6 or v > 1 + 1e-6 for b in boxes for v in b):
        raise InputError(
            f"{what} box coordinates must be normalised to [0, 1]; for pixel boxes pass coords='pixel' and image_sizes"
        )


def _sizes(image_sizes: Any, n: int) -> list[tuple[float, float] | None]:
    if image_sizes is None:
        return [None] * n
    sizes = _seq(image_sizes, "image_sizes")
    if len(sizes) != n:
        raise InputError(f"mismatched lengths: {n} items but {len(sizes)} image sizes")
    return [(float(s[0]), float(s[1])) for s in sizes]


def _text_localization_agg(
    pred_boxes: Sequence[Any],
    gt_boxes: Sequence[Sequence[Sequence[float]]],
    top_n: int,
    mode: Mode = "paper",
    coords: str = "normalized",
    image_sizes: Any = None,
) -> Aggregate:
    """Per image IoU (paper) or per matched box IoU (code), plus the unreadable answers."""
    _check_mode(mode)
    if not isinstance(top_n, int) or isinstance(top_n, bool) or top_n < 1:
        raise InputError(f"top_n must be a positive integer, got {top_n!r}")
    preds, gts = _seq(pred_boxes, "pred_boxes"), _seq(gt_boxes, "gt_boxes")
    _same_length(preds, gts, "text_localization_iou (predictions vs ground truths)")
    sizes = _sizes(image_sizes, len(gts))
    agg = Aggregate()
    for pred, gt, size in zip(preds, gts, sizes):
        g = _as_box_list(gt, "gt_boxes")
        if not g:
            raise InputError("an image has no ground-truth boxes")
        if mode == "paper":
            _check_normalized(g, "ground-truth")
        p = _pred_boxes(pred, mode, coords, size)
        if p is None:
            agg.unparsable += 1
            continue
        if mode == "posteriq-code":
            for j in range(min(len(g), len(p), top_n)):  # by position, no sorting, pooled over boxes
                agg.add(max(_box_iou(r, g[j]) for r in _code_readings(p[j], size)))
        else:
            order = sorted(range(len(g)), key=lambda i: -_area(g[i]))  # largest ground truth first
            n = min(top_n, len(g))
            agg.add(sum(_box_iou(p[i], g[i]) if i < len(p) else 0.0 for i in order[:n]) / n)
    return agg


def text_localization_iou(
    pred_boxes: Sequence[Any],
    gt_boxes: Sequence[Sequence[Sequence[float]]],
    top_n: int,
    *,
    mode: Mode = "paper",
    coords: Literal["normalized", "pixel"] = "normalized",
    image_sizes: Sequence[tuple[float, float]] | None = None,
) -> float:
    """Top-n text-localisation IoU (PosterIQ Eq. 4), in [0, 1], higher is better.

    ``pred_boxes[i]`` answers image ``i``: a list of boxes (box ``j`` for queried text ``j``)
    or the raw answer text; ``gt_boxes[i]`` the ground-truth boxes in query order.

    Paper: sort the (prediction, ground truth) pairs by ground-truth area, largest first, take
    the top ``n = min(top_n, #gt)`` and average their IoU, a missing prediction counting 0; the
    score is the mean over images. Unreadable answers are counted, not scored.
    Code: pair the j-th predicted box with the j-th ground-truth box as given (no sorting), for
    ``j < min(#gt, #pred, top_n)``; each box's IoU is the best over four coordinate readings
    (``/[W, H]`` with ``image_sizes``, as is, ``/1024``, ``/1000``); the IoUs of all matched
    boxes of all images are pooled; images without boxes add nothing.
    """
    return _text_localization_agg(pred_boxes, gt_boxes, top_n, mode, coords, image_sizes).value("text_localization_iou")


def box_recall_rate(n_pred: Sequence[int], n_query: Sequence[int]) -> float:
    """Recall rate (PosterIQ Eq. 5): mean of ``min(1, n_pred / n_query)``, in [0, 1], higher is better."""
    return _box_recall_agg(n_pred, n_query).value("box_recall_rate")


def _box_recall_agg(n_pred: Sequence[int], n_query: Sequence[int]) -> Aggregate:
    a, b = _seq(n_pred, "n_pred"), _seq(n_query, "n_query")
    _same_length(a, b, "box_recall_rate")
    agg = Aggregate()
    for p, q in zip(a, b):
        if isinstance(p, bool) or isinstance(q, bool) or int(p) != p or int(q) != q:
            raise InputError(f"box counts must be integers, got {p!r} and {q!r}")
        if q <= 0 or p < 0:
            raise InputError(f"n_query must be positive and n_pred non-negative, got {p} and {q}")
        agg.add(min(1.0, int(p) / int(q)))
    return agg


def _pairs(
    pred_boxes: Sequence[Any], gt_boxes: Sequence[Any], mode: Mode, coords: str, image_sizes: Any
) -> tuple[list[tuple[Box, Box, Any]], int]:
    preds, gts = _seq(pred_boxes, "pred_boxes"), _seq(gt_boxes, "gt_boxes")
    _same_length(preds, gts, "layout boxes (predictions vs ground truths)")
    sizes = _sizes(image_sizes, len(gts))
    out, unparsable = [], 0
    for pred, gt, size in zip(preds, gts, sizes):
        p = _pred_boxes(pred, mode, coords, size)
        if p is None:
            unparsable += 1
            continue
        g = _as_box_list(gt, "gt_boxes")
        if mode == "paper":
            _check_normalized(g, "ground-truth")
        out += [(pb, gb, size) for pb, gb in zip(p, g)]
    return out, unparsable


def center_bias(
    pred_boxes: Sequence[Any],
    gt_boxes: Sequence[Any],
    *,
    mode: Mode = "paper",
    coords: Literal["normalized", "pixel"] = "normalized",
    image_sizes: Sequence[tuple[float, float]] | None = None,
) -> float:
    """Center bias (PosterIQ Eq. 6): mean Euclidean distance of normalised box centres over all
    paired elements (box j with box j), lower is better, 0..sqrt(2).

    Code: each distance is the smallest over the four coordinate readings."""
    return _center_bias_agg(pred_boxes, gt_boxes, mode, coords, image_sizes).value("center_bias")


def _per_pair_agg(
    pred_boxes: Sequence[Any],
    gt_boxes: Sequence[Any],
    mode: Mode,
    coords: str,
    image_sizes: Any,
    score: Callable[[list[Box], Box], float],
) -> Aggregate:
    """``score(readings of the prediction, ground truth)`` for every paired element."""
    _check_mode(mode)
    pairs, unparsable = _pairs(pred_boxes, gt_boxes, mode, coords, image_sizes)
    agg = Aggregate(unparsable=unparsable)
    for p, g, size in pairs:
        agg.add(score(_code_readings(p, size) if mode == "posteriq-code" else [p], g))
    return agg


def _center_bias_agg(
    pred_boxes: Sequence[Any], gt_boxes: Sequence[Any], mode: Mode, coords: str, image_sizes: Any
) -> Aggregate:
    def distance(readings: list[Box], g: Box) -> float:
        return min(math.dist(_center(r), _center(g)) for r in readings)

    return _per_pair_agg(pred_boxes, gt_boxes, mode, coords, image_sizes, distance)


def area_ratio(
    pred_boxes: Sequence[Any],
    gt_boxes: Sequence[Any],
    *,
    mode: Mode = "paper",
    coords: Literal["normalized", "pixel"] = "normalized",
    image_sizes: Sequence[tuple[float, float]] | None = None,
) -> float:
    """Area ratio (PosterIQ Eq. 7): mean of ``min(A_pred, A_gt) / max(A_pred, A_gt)`` over all
    paired elements, in [0, 1], higher is better. A zero-area ground-truth box is an error; a
    zero-area prediction scores 0. Code: the reading whose ratio is closest to 1."""
    return _area_ratio_agg(pred_boxes, gt_boxes, mode, coords, image_sizes).value("area_ratio")


def _area_ratio_agg(
    pred_boxes: Sequence[Any], gt_boxes: Sequence[Any], mode: Mode, coords: str, image_sizes: Any
) -> Aggregate:
    def ratio(readings: list[Box], g: Box) -> float:
        ag = _area(g)
        if ag <= 0:
            raise InputError(f"ground-truth box {g} has zero area")
        return max(min(_area(r), ag) / max(_area(r), ag) for r in readings)

    return _per_pair_agg(pred_boxes, gt_boxes, mode, coords, image_sizes, ratio)


# ----------------------------------------------------------------------------- empty space
def _ids(pred: Any, mode: Mode, n_patches: int) -> list[int] | None:
    if pred is None:
        return None
    if isinstance(pred, (str, bytes)):
        parsed = (
            posteriq_code_patch_ids(pred) if mode == "posteriq-code" else parse_patch_ids(pred, n_patches=n_patches)
        )
        return parsed.value if parsed.ok else None
    ids = [int(v) for v in _seq(pred, "pred_ids")]
    if mode == "paper" and any(i < 0 or i >= n_patches for i in ids):
        raise InputError(f"patch ids must lie in 0..{n_patches - 1}, got {ids}")
    return ids


def patch_iou(
    pred_ids: Sequence[Any], gt_ids: Sequence[Sequence[int]], *, mode: Mode = "paper", n_patches: int = 49
) -> float:
    """Patch IoU (PosterIQ Eq. 8): mean over samples of ``|P ∩ G| / |P ∪ G|`` of patch-id sets
    (7x7 grid, ids 0..48), in [0, 1], higher is better; two empty sets score 1. Raw answers are
    parsed; unreadable ones are counted, not scored (code: the script's parser)."""
    agg = _patch_agg(pred_ids, gt_ids, mode, n_patches)[0]
    return agg.value("patch_iou")


def _patch_agg(
    pred_ids: Sequence[Any], gt_or_n: Sequence[Any], mode: Mode, n_patches: int, count_only: bool = False
) -> tuple[Aggregate, Aggregate]:
    _check_mode(mode)
    preds, gts = _seq(pred_ids, "pred_ids"), _seq(gt_or_n, "gt_ids" if not count_only else "n_requested")
    _same_length(preds, gts, "patch ids (predictions vs ground truths)")
    iou, match = Aggregate(), Aggregate()
    for pred, gt in zip(preds, gts):
        p = _ids(pred, mode, n_patches)
        if p is None:
            iou.unparsable += 1
            match.unparsable += 1
            continue
        if count_only:
            requested = int(gt)
            size = len(p) if mode == "posteriq-code" else len(set(p))
            match.add(float(size == requested))
            continue
        g = {int(v) for v in gt}
        ps = set(p)
        union = ps | g
        iou.add(len(ps & g) / len(union) if union else 1.0)
    return iou, match


def match_accuracy(
    pred_ids: Sequence[Any], n_requested: Sequence[int], *, mode: Mode = "paper", n_patches: int = 49
) -> float:
    """Match accuracy (PosterIQ Eq. 9): fraction of samples whose predicted patch *set* has the
    requested size, in [0, 1], higher is better. Code: the length of the predicted *list*
    (duplicates count)."""
    return _patch_agg(pred_ids, n_requested, mode, n_patches, count_only=True)[1].value("match_accuracy")


# ----------------------------------------------------------------------------- overall rating
def _score(x: Any, mode: Mode) -> float | None:
    if x is None:
        return None
    if isinstance(x, (str, bytes)):
        if mode == "posteriq-code":
            return posteriq_code_score(x)
        parsed = parse_score(x, low=0.0, high=10.0)
        return parsed.value if parsed.ok else None
    v = float(x)
    return v if math.isfinite(v) else None


def _rating_pairs(human: Sequence[Any], model: Sequence[Any], mode: Mode) -> tuple[list[float], list[float], int]:
    _check_mode(mode)
    h, m = _seq(human, "human"), _seq(model, "model")
    _same_length(h, m, "overall_rating_similarity (human vs model)")
    hs, ms, bad = [], [], 0
    for a, b in zip(h, m):
        sa, sb = _score(a, mode), _score(b, mode)
        if sa is None or sb is None:
            bad += 1
            continue
        hs.append(sa)
        ms.append(sb)
    return hs, ms, bad


def rating_cosine(hs: Sequence[float], ms: Sequence[float], mode: Mode = "paper") -> tuple[float, bool]:
    """Cosine of the zero-mean vectors, and whether a vector had zero spread."""
    n = len(hs)
    mh, mm = sum(hs) / n, sum(ms) / n
    ch, cm = [v - mh for v in hs], [v - mm for v in ms]
    flat = not any(ch) or not any(cm)
    if mode == "posteriq-code":  # the script leaves a zero-spread vector uncentred
        ch = ch if any(ch) else list(hs)
        cm = cm if any(cm) else list(ms)
    nh, nm = math.sqrt(sum(v * v for v in ch)), math.sqrt(sum(v * v for v in cm))
    if nh == 0 or nm == 0:
        return 0.0, True
    return sum(a * b for a, b in zip(ch, cm)) / (nh * nm), flat


def overall_rating_similarity(human: Sequence[Any], model: Sequence[Any], *, mode: Mode = "paper") -> float:
    """Overall-rating agreement (PosterIQ Eq. 11-12): cosine of the zero-mean human and model
    score vectors (= Pearson r), in [-1, 1], higher is better.

    Scores may be numbers or raw answers (read with :func:`~transcreval.parsing.parse_score`,
    0-10). Pairs with an unreadable score on either side are dropped and counted. When either
    vector has zero spread the cosine is undefined: the result is 0.0 (no measurable
    agreement), flagged ``zero_spread`` in the class result. Code: the script's score reader,
    and a zero-spread vector is used uncentred.
    """
    hs, ms, bad = _rating_pairs(human, model, mode)
    if not hs:
        if mode == "posteriq-code":
            return 0.0  # the script returns 0.0 when nothing is left
        raise EmptyInputError(f"overall_rating_similarity: no valid pairs ({bad} unparsable)")
    value, flat = rating_cosine(hs, ms, mode)
    if flat and mode == "paper":
        warnings.warn(
            "overall_rating_similarity: a score vector has zero spread; the cosine is undefined and 0.0 is returned",
            stacklevel=2,
        )
    return value


# ----------------------------------------------------------------------------- judge verdicts
def _verdict(v: Any, mode: Mode, code_yes: str) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)) and v in (0, 1):
        return bool(v)
    if v is None:
        return None if mode == "paper" else False
    text = str(v)
    if mode == "posteriq-code":
        return text.lower() == "yes" if code_yes == "exact" else "Yes" in text
    parsed = parse_yes_no(text)
    return parsed.value if parsed.ok else None


def _point_aggs(verdicts: Sequence[Sequence[Any]], mode: Mode, code_yes: str) -> tuple[Aggregate, Aggregate]:
    _check_mode(mode)
    if code_yes not in ("substring", "exact"):
        raise InputError(f"code_yes must be 'substring' or 'exact', got {code_yes!r}")
    allc, frac = Aggregate(), Aggregate()
    for item in _seq(verdicts, "verdicts"):
        vs = [_verdict(v, mode, code_yes) for v in _seq(item, "verdicts of one image")]
        if not vs:
            raise InputError("an image has no key points to check")
        known = [v for v in vs if v is not None]
        if len(known) < len(vs):
            allc.unparsable += 1
            frac.unparsable += 1
            continue
        allc.add(float(all(known)))
        frac.add(sum(known) / len(known))
    return allc, frac


def point_score(
    verdicts: Sequence[Sequence[Any]], *, mode: Mode = "paper", code_yes: Literal["substring", "exact"] = "substring"
) -> float:
    """Point score (PosterIQ Eq. 10), in [0, 1], higher is better.

    ``verdicts[i]`` holds the judge's verdict on each annotated key point of image ``i`` (bools
    or yes/no answers). Paper: an image counts only when every key point is covered; the score
    is the fraction of such images; an image with an unreadable verdict is counted, not scored.
    The per-point average (mean over images of the covered fraction) is
    ``point_score_per_point``. Code: the per-point average, with "Yes" read as a substring of
    the reply (understanding tasks, ``code_yes="substring"``) or as the exact reply "yes"
    (generation tasks, ``code_yes="exact"``).
    """
    allc, frac = _point_aggs(verdicts, mode, code_yes)
    return (frac if mode == "posteriq-code" else allc).value("point_score")


def point_score_per_point(
    verdicts: Sequence[Sequence[Any]], *, mode: Mode = "paper", code_yes: str = "substring"
) -> float:
    """Mean over images of the fraction of key points covered."""
    return _point_aggs(verdicts, mode, code_yes)[1].value("point_score_per_point")


def _norm_label(s: str) -> str:
    return " ".join(s.casefold().replace("_", " ").replace("-", " ").split())


def read_label(answer: Any, labels: Sequence[str]) -> str | None:
    """The one label an answer names (exact after normalising case/spaces/hyphens, else the only
    label mentioned as whole words); None when none or several."""
    if answer is None:
        return None
    text = _norm_label(str(answer).strip().strip(".!\"'`"))
    by_norm = {_norm_label(lab): lab for lab in labels}
    if text in by_norm:
        return by_norm[text]
    hits = {lab for n, lab in by_norm.items() if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text)}
    # a label inside a longer matching label ("pop" in "pop art") does not count separately
    hits = {h for h in hits if not any(h != o and _norm_label(h) in _norm_label(o) for o in hits)}
    return hits.pop() if len(hits) == 1 else None


def style_score(
    pred: Sequence[Any], target: Sequence[str], *, labels: Sequence[str] | None = None, mode: Mode = "paper"
) -> float:
    """Style score (PosterIQ Eq. 13): accuracy of the judged style against the target style, in
    [0, 1], higher is better. Paper: the answer is read against ``labels`` (the fixed style
    list; default: the set of targets); answers naming no label or several are counted, not
    scored. Code: ``answer.lower() == target.lower()`` exactly (no stripping); anything else is
    wrong."""
    return _style_agg(pred, target, labels, mode).value("style_score")


def _style_agg(pred: Sequence[Any], target: Sequence[str], labels: Sequence[str] | None, mode: Mode) -> Aggregate:
    _check_mode(mode)
    p, t = _seq(pred, "pred"), _seq(target, "target")
    _same_length(p, t, "style_score (pred vs target)")
    labs = list(labels) if labels is not None else sorted(set(t))
    agg = Aggregate()
    for a, b in zip(p, t):
        if not isinstance(b, str):
            raise InputError(f"target styles must be strings, got {type(b).__name__}")
        if mode == "posteriq-code":
            agg.add(float(a is not None and str(a).lower() == b.lower()))
            continue
        if labels is not None and b not in labs:
            raise InputError(f"target style {b!r} is not one of the labels")
        got = read_label(a, labs)
        if got is None:
            agg.unparsable += 1
        else:
            agg.add(float(got == b))
    return agg


def _attributes(item: Any, vocab: Sequence[str], mode: Mode) -> set[str]:
    if isinstance(item, str):
        if mode == "posteriq-code":
            return {a for a in vocab if a in item}  # substring: "serif" matches "sans-serif"
        text = item.casefold()
        return {a for a in vocab if re.search(rf"(?<![\w-]){re.escape(a.casefold())}(?![\w-])", text)}
    return {a for a in item if a in set(vocab)}


def font_richness(attribute_sets: Sequence[Any], vocabulary: Sequence[str], *, mode: Mode = "paper") -> float:
    """Font richness (PosterIQ Eq. 14-15): mean over the vocabulary (37 attributes in the paper)
    of the fraction of posters showing each attribute, in [0, 1], higher is better.

    ``attribute_sets[i]`` lists the attributes the judge assigned to poster ``i``, or is its raw
    description. Paper: attributes are matched as whole words/phrases; attributes outside the
    vocabulary are ignored. Code: substring matching ("serif" also matches "sans-serif")."""
    counts, n = font_attribute_counts(attribute_sets, vocabulary, mode)
    if n == 0:
        raise EmptyInputError("font_richness needs at least one poster")
    return sum(counts) / (n * len(counts))


def font_attribute_counts(
    attribute_sets: Sequence[Any], vocabulary: Sequence[str], mode: Mode = "paper"
) -> tuple[list[int], int]:
    """How many posters show each vocabulary attribute, and how many posters there are."""
    _check_mode(mode)
    vocab = list(vocabulary)
    if not vocab or len(set(vocab)) != len(vocab):
        raise InputError("vocabulary must be a non-empty list of distinct attributes")
    counts = [0] * len(vocab)
    items = _seq(attribute_sets, "attribute_sets")
    for item in items:
        if item is None:
            raise InputError("a poster has no attribute list or description")
        found = _attributes(item, vocab, mode)
        for k, a in enumerate(vocab):
            counts[k] += a in found
    return counts, len(items)


# ----------------------------------------------------------------------------- Table 7
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
