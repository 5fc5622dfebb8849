"""COMET (Rei et al. 2020): IMTBench's translation score S_text (§4, Eq. 2).

For each segment, a trained COMET estimator reads the source text, the system's translation and
the reference translation and returns a score, ``S_text = f_theta(T_src, T_tgt, T^_tgt)``; the
system score is the mean of the segment scores. The default model, ``Unbabel/wmt22-comet-da``,
is the COMET-22 DA estimator. Scores come from comet's own ``predict`` on the same model
(:mod:`transcreval.engines.comet.engine`), so they agree with ``comet-score`` / ``model.predict``.

**Normalisation.** IMTBench writes that the scores "are linearly normalised to the unit
interval". The mapping is the ``normalize`` option, and it never clips:

* ``"auto"`` (default): the identity for models whose scores already lie in [0, 1] (the
  COMET-22 DA estimator, trained on scores scaled to [0, 1]; any checkpoint with a sigmoid
  output); for any other model it is an error asking for one of the two below;
* ``"identity"``: the scores as the model gives them;
* ``(lo, hi)``: the affine map ``s' = (s - lo) / (hi - lo)``, which sends ``lo`` to 0 and ``hi``
  to 1 (for example ``(-1, 1)`` or ``(0, 100)``).

A segment whose score lands outside [0, 1] keeps its value; the count of such segments is
``extras["n_outside_unit"]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

from transcreval.common import check_texts
from transcreval.errors import EmptyInputError, InputError
from transcreval.result import MetricResult, Signature

__all__ = [
    "Normalize",
    "check_normalize",
    "comet_samples",
    "comet_score",
    "comet_score_from_stats",
    "comet_score_stats",
    "normalize_label",
    "normalize_scores",
    "resolve_normalize",
]

Normalize = Literal["auto", "identity"] | tuple[float, float]


def check_normalize(normalize: Any) -> Any:
    """``"auto"``, ``"identity"`` or a ``(lo, hi)`` pair of finite numbers with ``lo < hi``."""
    if isinstance(normalize, str) and normalize in ("auto", "identity"):
        return normalize
    if isinstance(normalize, (tuple, list)) and len(normalize) == 2:
        lo, hi = normalize
        ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (lo, hi))
        if ok and lo < hi:
            return (float(lo), float(hi))
    raise InputError(
        "normalize must be 'auto', 'identity' or a pair (lo, hi) of finite numbers with lo < hi "
        f"(scores map to (s - lo) / (hi - lo)), got {normalize!r}"
    )


def resolve_normalize(normalize: Any, unit_range: bool, model: str) -> tuple[float, float] | None:
    """The affine map's ``(lo, hi)``, or None for the identity (``"auto"`` decided by ``unit_range``)."""
    normalize = check_normalize(normalize)
    if normalize == "identity":
        return None
    if normalize == "auto":
        if unit_range:
            return None
        raise InputError(
            f"the score range of COMET model {model!r} is not known to be [0, 1] (no sigmoid output, not a model "
            "registered with a unit range), so normalize='auto' cannot map it to the unit interval: pass "
            "normalize='identity' to keep the scores as they are, or normalize=(lo, hi) to map [lo, hi] linearly "
            "onto [0, 1] (nothing is clipped)"
        )
    return normalize


def normalize_label(bounds: tuple[float, float] | None) -> str:
    """The mapping as the signature prints it."""
    return "identity" if bounds is None else f"({bounds[0]:g},{bounds[1]:g})->(0,1)"


def normalize_scores(scores: Sequence[float], bounds: tuple[float, float] | None) -> list[float]:
    """Scores under the mapping: unchanged (``None``) or ``(s - lo) / (hi - lo)``; never clipped.

    >>> normalize_scores([0.25, 1.5], None)
    [0.25, 1.5]
    >>> normalize_scores([-1.0, 0.0, 1.0, 3.0], (-1, 1))
    [0.0, 0.5, 1.0, 2.0]
    """
    if bounds is None:
        return [float(s) for s in scores]
    lo, hi = bounds
    return [(float(s) - lo) / (hi - lo) for s in scores]


def comet_samples(preds: Any, target: Any, sources: Any) -> list[dict[str, str]]:
    """comet's input rows ``{"src", "mt", "ref"}`` from the three aligned lists, each text checked
    as every text metric checks it (:func:`~transcreval.common.check_text`: no bytes, numbers,
    image paths or lone surrogates)."""
    mt, ref, src = check_texts(preds, "preds"), check_texts(target, "target"), check_texts(sources, "sources")
    if not len(mt) == len(ref) == len(src):
        raise InputError(
            f"mismatched lengths: {len(mt)} translations (preds), {len(ref)} references (target), "
            f"{len(src)} sources: give one of each per segment"
        )
    return [{"src": s, "mt": m, "ref": r} for s, m, r in zip(src, mt, ref)]


def comet_score_stats(
    preds: Sequence[str],
    target: Sequence[str],
    sources: Sequence[str],
    *,
    scorer: Callable[[list[dict[str, str]]], list[float]],
    bounds: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """One batch: the segment scores (mapped by ``bounds``), their sum, count and how many fall outside [0, 1]."""
    samples = comet_samples(preds, target, sources)
    raw = scorer(samples)
    if len(raw) != len(samples):
        raise RuntimeError(f"the COMET scorer returned {len(raw)} scores for {len(samples)} segments")
    values = np.asarray(normalize_scores(raw, bounds), dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise RuntimeError("the COMET model returned a non-finite score")
    return {
        "total": float(values.sum()),
        "count": len(values),
        "scores": values,
        "outside": int(np.count_nonzero((values < 0) | (values > 1))),
    }


def comet_score_from_stats(stats: dict[str, Any], signature: Signature) -> MetricResult:
    """The mean segment score; ``per_item`` the segment scores, ``extras["n_outside_unit"]``."""
    n = int(stats["count"])
    if n == 0:
        raise EmptyInputError("COMETScore needs at least one (translation, reference, source) segment")
    return MetricResult(
        value=float(stats["total"]) / n,
        n=n,
        signature=signature,
        per_item=stats["scores"],
        extras={"n_outside_unit": int(stats["outside"])},
    )


def comet_score(
    preds: Sequence[str],
    target: Sequence[str],
    sources: Sequence[str],
    *,
    model: str = "Unbabel/wmt22-comet-da",
    checkpoint: Any = None,
    batch_size: int = 16,
    device: Any = None,
    normalize: Normalize = "auto",
) -> float:
    """S_text (IMTBench Eq. 2): the mean COMET score of the system's translations ``preds``
    against the reference translations ``target`` given the ``sources``; higher is better.
    Options as :class:`~transcreval.COMETScore`."""
    from transcreval.engines.comet.engine import CometScorer

    normalize = check_normalize(normalize)
    scorer = CometScorer(model, checkpoint, batch_size=batch_size, device=device)
    bounds = resolve_normalize(normalize, scorer.unit_range, model)
    stats = comet_score_stats(preds, target, sources, scorer=scorer, bounds=bounds)
    return comet_score_from_stats(stats, Signature.make("comet_score")).value
