"""PosterIQ's overall-rating agreement (Eq. 11-12): the cosine of zero-mean score vectors.

The human and model scores of a set of posters are centred on their means and compared by
cosine: Pearson's r. Scores may be numbers or raw answers (read with
:func:`transcreval.utils.parsing.parse_score` on the 0-10 scale); pairs with an unreadable score on
either side are dropped and counted. When either vector has zero spread the cosine is
undefined: :class:`~transcreval.errors.UndefinedValueError` (``forward`` returns
``defined=False``), never a made-up number. ``mode="posteriq-code"`` does what the script does:
its score reader, a zero-spread vector used uncentred (``extras["zero_spread"]`` says so), and
0.0 when no pair is readable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

from transcreval.core.common import Mode, as_list, check_mode, same_length
from transcreval.core.options import MetricOptions
from transcreval.core.result import MetricResult
from transcreval.errors import EmptyInputError, InputError, UndefinedValueError
from transcreval.utils.parsing import parse_score, posteriq_code_score

__all__ = [
    "RatingSimilarityOptions",
    "overall_rating_similarity",
    "overall_rating_similarity_from_stats",
    "overall_rating_similarity_stats",
    "rating_cosine",
    "read_score",
]


#: distributions whose versions change the numbers (none)
PACKAGES: tuple[str, ...] = ()


@dataclass(frozen=True)
class RatingSimilarityOptions(MetricOptions):
    """The options of :class:`~transcreval.OverallRatingSimilarity` and
    :func:`overall_rating_similarity`: ``mode`` ("paper" or "posteriq-code")."""

    mode: Mode = "paper"

    def check(self) -> None:
        check_mode(self.mode)


def read_score(x: Any, mode: Mode = "paper") -> float | None:
    """A score from a number or a raw answer (None when unreadable)."""
    if x is None:
        return None
    if isinstance(x, (str, bytes)):
        if mode == "posteriq-code":
            return posteriq_code_score(x)
        parsed = parse_score(x, low=0.0, high=10.0)
        return parsed.value if parsed.ok else None
    if isinstance(x, bool) or not isinstance(x, Real):
        raise InputError(f"a score must be a number or an answer string, got {type(x).__name__} ({x!r})")
    v = float(x)
    return v if math.isfinite(v) else None


def overall_rating_similarity_stats(
    preds: Sequence[Any], target: Sequence[Any], *, options: RatingSimilarityOptions
) -> dict[str, Any]:
    """The readable (model, human) score pairs, and how many pairs were unreadable."""
    mode = options.mode
    m, h = as_list(preds, "preds"), as_list(target, "target")
    same_length(m, h, "overall_rating_similarity (preds vs target)")
    ms, hs, bad = [], [], 0
    for a, b in zip(m, h):
        sa, sb = read_score(a, mode), read_score(b, mode)
        if sa is None or sb is None:
            bad += 1
            continue
        ms.append(sa)
        hs.append(sb)
    return {"preds": ms, "target": hs, "unparsable": bad}


def rating_cosine(hs: Sequence[float], ms: Sequence[float], mode: Mode = "paper") -> tuple[float, bool]:
    """Cosine of the zero-mean vectors, and whether a vector had zero spread (NaN where a vector
    is all zeros: in code mode a flat vector of zeros, which the script divides by, printing nan).

    The cosine does not change when a vector is scaled, so vectors whose squares would overflow
    or underflow (scores near 1e308 or 1e-308) are scaled by their largest magnitude first.
    """
    n = len(hs)
    hs, ms = _well_scaled(hs), _well_scaled(ms)
    mh, mm = sum(hs) / n, sum(ms) / n
    ch, cm = [v - mh for v in hs], [v - mm for v in ms]
    flat = not any(ch) or not any(cm)
    if mode == "posteriq-code":  # the script leaves a zero-spread vector uncentred
        ch = ch if any(ch) else list(hs)
        cm = cm if any(cm) else list(ms)
    nh, nm = math.sqrt(sum(v * v for v in ch)), math.sqrt(sum(v * v for v in cm))
    if nh == 0 or nm == 0:
        return math.nan, True
    return sum(a * b for a, b in zip(ch, cm)) / (nh * nm), flat


def _well_scaled(v: Sequence[float]) -> list[float]:
    top = max((abs(x) for x in v), default=0.0)
    if top == 0.0 or 1e-100 <= top <= 1e100:
        return list(v)
    return [x / top for x in v]


def overall_rating_similarity_from_stats(stats: dict[str, Any], options: RatingSimilarityOptions) -> MetricResult:
    """The cosine of the readable pairs (raw statistics or the class's accumulated states);
    ``extras``: ``n_unparsable``, ``zero_spread``."""
    ms = [float(v) for v in stats["preds"]]
    hs = [float(v) for v in stats["target"]]
    bad = int(stats["unparsable"])
    signature = options.signature("OverallRatingSimilarity", PACKAGES)
    if not hs:
        if options.mode == "posteriq-code":  # the script returns 0.0 when nothing is left
            return MetricResult(0.0, 0, signature, extras={"n_unparsable": bad, "zero_spread": True})
        raise EmptyInputError(f"overall rating similarity: no valid pairs ({bad} unparsable)")
    value, flat = rating_cosine(hs, ms, options.mode)
    if flat and options.mode == "paper":
        raise UndefinedValueError(
            "overall rating similarity is undefined: the human or the model scores have zero spread (all equal)"
        )
    if math.isnan(value):  # code mode: the flat vector is used uncentred, and it is all zeros
        raise UndefinedValueError(
            "overall rating similarity is undefined: the human or the model scores are all 0, and PosterIQ's "
            "script divides by their zero norm (it prints nan)"
        )
    return MetricResult(value, len(hs), signature, extras={"n_unparsable": bad, "zero_spread": flat})


def overall_rating_similarity(preds: Sequence[Any], target: Sequence[Any], *, mode: Mode = "paper") -> MetricResult:
    """Overall-rating agreement (PosterIQ Eq. 11-12): cosine of the zero-mean model (``preds``)
    and human (``target``) score vectors (= Pearson r), in [-1, 1], higher is better: what
    :class:`~transcreval.OverallRatingSimilarity` computes on the same pairs."""
    opts = RatingSimilarityOptions(mode=mode)
    return overall_rating_similarity_from_stats(overall_rating_similarity_stats(preds, target, options=opts), opts)
