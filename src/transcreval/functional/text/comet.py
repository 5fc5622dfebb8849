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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import torch

from transcreval.core.common import check_positive_int, check_texts
from transcreval.core.options import MetricOptions, option
from transcreval.core.result import MetricResult, Signature
from transcreval.errors import EmptyInputError, InputError

if TYPE_CHECKING:
    from transcreval.engines.comet.engine import CometScorer

__all__ = [
    "DEFAULT_MODEL",
    "PACKAGES",
    "COMETOptions",
    "LoadedCOMET",
    "Normalize",
    "bind_scorer",
    "check_normalize",
    "comet_bounds",
    "comet_samples",
    "comet_score",
    "comet_score_from_stats",
    "comet_score_stats",
    "named_options",
    "normalize_label",
    "normalize_scores",
    "resolve_normalize",
]

Normalize = Literal["auto", "identity"] | tuple[float, float]
#: the COMET-22 DA estimator (IMTBench's model)
DEFAULT_MODEL = "Unbabel/wmt22-comet-da"
#: distributions whose versions change the numbers (the class's ``version_packages``)
PACKAGES = ("unbabel-comet", "transformers")


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
    as every text metric checks it (:func:`~transcreval.core.common.check_text`: no bytes, numbers,
    image paths or lone surrogates)."""
    mt, ref, src = check_texts(preds, "preds"), check_texts(target, "target"), check_texts(sources, "sources")
    if not len(mt) == len(ref) == len(src):
        raise InputError(
            f"mismatched lengths: {len(mt)} translations (preds), {len(ref)} references (target), "
            f"{len(src)} sources: give one of each per segment"
        )
    return [{"src": s, "mt": m, "ref": r} for s, m, r in zip(src, mt, ref)]


@dataclass(frozen=True)
class COMETOptions(MetricOptions):
    """The options of :class:`~transcreval.COMETScore` and :func:`comet_score`, checked once.

    ``model`` prints in the signature; ``checkpoint``, ``batch_size`` and ``device`` cannot
    change a score (the checkpoint's digest prints instead); ``normalize`` prints as the
    mapping it resolves to. The digest and the mapping depend on the loaded checkpoint: they
    are printed once the options are bound to its scorer (:func:`bind_scorer`).
    """

    #: printed with what the bound scorer reports (``scorer_options``: digest, mapping)
    model: str = option(DEFAULT_MODEL, signature=lambda o: {"model": o.model, **dict(o.scorer_options)})
    checkpoint: Any = option(None, signature=None)
    batch_size: int = option(16, signature=None)
    device: Any = option(None, signature=None)
    normalize: Normalize = option("auto", signature=None)
    scorer_options: tuple[tuple[str, Any], ...] = option((), signature=None, compare=False)

    def check(self) -> None:
        from transcreval.engines.comet.engine import check_device

        if not isinstance(self.model, str) or not self.model.strip():
            raise InputError(f"model must be a COMET model name (a non-empty string), got {self.model!r}")
        self.set_checked("normalize", check_normalize(self.normalize))
        check_positive_int("batch_size", self.batch_size)
        check_device(self.device)

    def scorer(self) -> CometScorer:
        """The scorer of this model (loaded now, or found in the process-wide cache)."""
        from transcreval.engines.comet.engine import CometScorer

        return CometScorer(self.model, self.checkpoint, batch_size=self.batch_size, device=self.device)


def comet_bounds(options: COMETOptions, scorer: CometScorer) -> tuple[float, float] | None:
    """The mapping's ``(lo, hi)`` for this scorer's model (None: the identity); ``"auto"`` on a
    model of unknown range is an InputError."""
    return resolve_normalize(options.normalize, scorer.unit_range, options.model)


def bind_scorer(options: COMETOptions, scorer: CometScorer) -> COMETOptions:
    """The options with what the signature prints of the loaded checkpoint: its sha256 (first
    12 hex digits) and the mapping it resolves to."""
    return _bound(options, scorer.files.sha256, scorer.unit_range)


def named_options(options: COMETOptions) -> COMETOptions:
    """The options as :func:`bind_scorer` binds them, found without loading the model: the
    checkpoint's digest (its file hashed, or the manifest's) and the mapping its declared range
    resolves to (:func:`~transcreval.engines.comet.engine.declared_unit_range`). For a signature
    made before anything is loaded (IMTBenchScore's)."""
    from transcreval.engines.comet.engine import declared_unit_range, find_comet_files

    files = find_comet_files(options.model, options.checkpoint)
    return _bound(options, files.sha256, declared_unit_range(files))


def _bound(options: COMETOptions, sha256: str, unit_range: bool) -> COMETOptions:
    label = normalize_label(resolve_normalize(options.normalize, unit_range, options.model))
    return options.replace(scorer_options=(("ckpt", sha256[:12]), ("norm", label)))


@dataclass(frozen=True)
class LoadedCOMET:
    """A COMET model loaded for scoring, as :class:`~transcreval.COMETScore` holds it: the
    ``scorer``, the ``options`` bound to it, and the class's ``bounds``, ``normalize`` and
    ``signature``, for code below the metric classes (IMTBench's S_text)."""

    scorer: CometScorer
    options: COMETOptions

    @classmethod
    def load(cls, options: COMETOptions) -> LoadedCOMET:
        """Load (or find in the process-wide cache) the model of ``options``."""
        scorer = options.scorer()
        return cls(scorer, bind_scorer(options, scorer))

    @property
    def bounds(self) -> tuple[float, float] | None:
        """The mapping's ``(lo, hi)`` for the loaded model (None: the identity)."""
        return comet_bounds(self.options, self.scorer)

    @property
    def normalize(self) -> Normalize:
        """The ``normalize`` option."""
        return self.options.normalize

    @property
    def signature(self) -> Signature:
        """The signature :class:`~transcreval.COMETScore` has with these options."""
        return self.options.signature("COMETScore", PACKAGES)


def comet_score_stats(
    preds: Sequence[str],
    target: Sequence[str],
    sources: Sequence[str],
    *,
    scorer: CometScorer,
    options: COMETOptions,
) -> dict[str, Any]:
    """One batch: the statistics of :class:`~transcreval.core.aggregate_metric.MeanMetric`: the
    segment scores (``values``, mapped as ``options.normalize`` resolves for ``scorer``), their
    sum, count and the side counter ``outside`` (how many fall outside [0, 1])."""
    bounds = comet_bounds(options, scorer)
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
        "outside": int(np.count_nonzero((values < 0) | (values > 1))),
        "values": values,
    }


def comet_score_from_stats(stats: dict[str, Any], options: COMETOptions) -> MetricResult:
    """The mean segment score; ``per_item`` the segment scores, ``extras["n_outside_unit"]``
    (raw per-batch statistics or the class's accumulated states alike)."""
    n = int(stats["count"])
    if n == 0:
        raise EmptyInputError("COMETScore needs at least one (translation, reference, source) segment")
    return MetricResult(
        value=float(stats["total"]) / n,
        n=n,
        signature=options.signature("COMETScore", PACKAGES),
        per_item=torch.as_tensor(stats["values"], dtype=torch.float64),
        extras={"n_outside_unit": int(stats["outside"])},
    )


def comet_score(
    preds: Sequence[str],
    target: Sequence[str],
    sources: Sequence[str],
    *,
    model: str = DEFAULT_MODEL,
    checkpoint: Any = None,
    batch_size: int = 16,
    device: Any = None,
    normalize: Normalize = "auto",
) -> MetricResult:
    """S_text (IMTBench Eq. 2): the mean COMET score of the system's translations ``preds``
    against the reference translations ``target`` given the ``sources``; higher is better.
    Returns what :class:`~transcreval.COMETScore` computes (``per_item`` the segment scores);
    the options are the class's (:class:`COMETOptions`)."""
    opts = COMETOptions(model, checkpoint, batch_size, device, normalize)
    scorer = opts.scorer()
    opts = bind_scorer(opts, scorer)
    return comet_score_from_stats(comet_score_stats(preds, target, sources, scorer=scorer, options=opts), opts)
