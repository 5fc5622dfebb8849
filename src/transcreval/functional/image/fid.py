"""Frechet Inception Distance (MPTc-Bench §5.3, Table 5: FID_GT and FID_SRC).

FID between two image sets is the Frechet distance between Gaussian fits of their Inception-v3
pool features (2048-d). The statistics of a set are float64 sums (``n``, ``sum x``,
``sum x x^T``), never the list of features, so sets of any size stream through and sum
exactly across batches and processes. The distance is
:func:`~transcreval.functional.image.frechet.frechet_distance` (symmetric eigensolves, float64,
on the device of the statistics).

Preprocessing (see :mod:`transcreval.features.inception`):

* ``"torch-fidelity"`` (default; MPTc computes FID with torch-fidelity): images quantised to
  uint8, TensorFlow-1 bilinear resize to 299x299. Equal to ``torch_fidelity.calculate_metrics``
  on the same images and weights file.
* ``"clean"``: clean-fid's ``mode="clean"`` (PIL bicubic, antialiased, in float).

Reference statistics of a set can be saved and reloaded with their signature
(:mod:`transcreval.functional.image.fid_reference`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from transcreval.core.common import check_bool, check_choice
from transcreval.core.options import option
from transcreval.core.result import MetricResult
from transcreval.errors import EmptyInputError, InputError
from transcreval.features.options import FeatureMetricOptions
from transcreval.functional.image.frechet import frechet_distance, gaussian_from_moments, moments

if TYPE_CHECKING:
    import torch

    from transcreval.features import FeatureExtractor

__all__ = [
    "FID_PREPROCESS",
    "FIDOptions",
    "fid",
    "fid_extractor",
    "fid_from_stats",
    "fid_signature_options",
    "fid_stats",
    "fid_value_from_stats",
    "fid_weights_argument",
    "split_fid_inputs",
]

#: preprocess option -> registered extractor
FID_PREPROCESS = {"torch-fidelity": "inception-v3-fid", "clean": "inception-v3-fid-clean"}
FEATURES = 2048
SIDES = ("fake", "real")


def fid_weights_argument(weights: Any) -> dict[str, str] | None:
    """``weights`` as ``get_extractor``'s explicit files: None (the resolver), a file in
    torch-fidelity's layout, or the name of a manifest entry holding such a file."""
    from transcreval.features.inception import WEIGHTS_NAME
    from transcreval.weights import get_entry, resolve

    if weights is None:
        return None
    if isinstance(weights, dict) and set(weights) == {WEIGHTS_NAME}:
        return {WEIGHTS_NAME: os.fspath(weights[WEIGHTS_NAME])}
    if not isinstance(weights, (str, os.PathLike)):
        raise InputError(f"weights must be None, a file path or a weights name, got {type(weights).__name__}")
    if os.path.exists(weights):
        return {WEIGHTS_NAME: os.fspath(weights)}
    try:
        get_entry(str(weights))
    except KeyError:
        raise InputError(
            f"weights={weights!r} is neither an existing file nor a weights name "
            "(`transcreval weights list` shows the names)"
        ) from None
    return {WEIGHTS_NAME: os.fspath(resolve(str(weights)).path)}


def fid_extractor(weights: Any = None, preprocess: str = "torch-fidelity", device: Any = None) -> FeatureExtractor:
    """The process-wide Inception extractor for these options (built on first use)."""
    from transcreval.features import get_extractor

    if preprocess not in FID_PREPROCESS:
        raise InputError(f"preprocess must be one of {sorted(FID_PREPROCESS)}, got {preprocess!r}")
    return get_extractor(FID_PREPROCESS[preprocess], fid_weights_argument(weights), device=device)


def fid_signature_options(extractor: FeatureExtractor, preprocess: str) -> dict[str, Any]:
    """The network, preprocessing, weights' digests and feature size of a built extractor, as
    signatures print them."""
    return fid_ids(tuple(w.sha256 for w in extractor.weights), preprocess)


def fid_ids(digests: tuple[str, ...], preprocess: str) -> dict[str, Any]:
    """:func:`fid_signature_options` from the weights' digests."""
    return {"net": "inception-v3", "pp": preprocess, "w": "+".join(d[:8] for d in digests), "d": FEATURES}


@dataclass(frozen=True)
class FIDOptions(FeatureMetricOptions):
    """Options of :class:`~transcreval.FID` and :func:`fid`: ``weights``, ``preprocess``,
    ``real_from`` ("target" or "source"), ``reference`` (a saved reference file or None; the
    class checks and loads it), ``device`` (the twin's; the class runs on its own device) and
    the feature options. The extractor loads on first use of :attr:`extractor` (the class:
    when it is built) and is kept, so its weights are pinned."""

    weights: Any = option(None, signature=lambda o: o.weights_signature())
    preprocess: str = option("torch-fidelity", signature=None)
    real_from: str = option("target", signature=lambda o: {"real": "source"} if o.real_from == "source" else {})
    reference: str | os.PathLike[str] | None = option(
        None, signature=lambda o: {} if o.reference is None else {"ref": Path(o.reference).name}
    )
    device: Any = option(None, signature=None)

    def check(self) -> None:
        check_choice("preprocess", self.preprocess, tuple(FID_PREPROCESS))
        check_choice("real_from", self.real_from, ("target", "source"))
        if self.reference is not None and not isinstance(self.reference, (str, os.PathLike)):
            raise InputError(f"reference must be a path to a saved FID reference or None, got {self.reference!r}")
        super().check()

    @functools.cached_property
    def extractor(self) -> FeatureExtractor:
        return fid_extractor(self.weights, self.preprocess, self.device)

    def weights_signature(self) -> dict[str, Any]:
        """The weights in the signature: those of the extractor once built (pinned), else those
        it would load, found without building it."""
        from transcreval.features.extractor import weights_digests

        if "extractor" in self.__dict__:
            return fid_signature_options(self.extractor, self.preprocess)
        return fid_ids(
            weights_digests(FID_PREPROCESS[self.preprocess], fid_weights_argument(self.weights)), self.preprocess
        )


def split_fid_inputs(preds: Any, target: Any, real: Any) -> dict[str, Any]:
    """Which images are generated ("fake") and which real, from ``update``'s arguments:
    ``(preds, target)`` = (generated, real); ``(images, real=True|False)`` as torchmetrics."""
    if real is None:
        if preds is None and target is None:
            raise InputError("FID.update needs images: update(preds, target) or update(images, real=True/False)")
        return {"fake": preds, "real": target}
    check_bool("real", real)
    if target is not None:
        raise InputError("pass either update(preds, target) or update(images, real=...), not both")
    return {"real" if real else "fake": preds}


def fid_stats(
    preds: Any = None,
    target: Any = None,
    options: FIDOptions | None = None,
    *,
    real: bool | None = None,
    device: Any = None,
) -> dict[str, Any]:
    """float64 moment sums of each side given: ``{side}_n``, ``{side}_sum``, ``{side}_outer``
    (``device``: where the network runs, default the options' extractor as built)."""
    from transcreval.features.images import extract

    opts = options if options is not None else FIDOptions()
    extractor = opts.extractor if device is None else opts.extractor.on(device)
    out: dict[str, Any] = {}
    for side, images in split_fid_inputs(preds, target, real).items():
        if images is None:
            continue
        what = {"fake": "generated images (preds)", "real": "real images"}[side]
        # FID is not differentiable (its square root runs in LAPACK): images that require grad
        # are scored as the same numbers
        feats = extract(extractor, images, "pool3", what=what, **opts.run_options()).detach()
        for k, v in moments(feats).items():
            out[f"{side}_{k}"] = v
    return out


def fid_from_stats(
    stats: Mapping[str, Any], options: FIDOptions, reference: Mapping[str, Any] | None = None
) -> MetricResult:
    """FID from accumulated sums; ``reference`` (``n``/``sum``/``outer``) replaces the real side."""
    signature = options.signature("FID", fid_version_packages(options.preprocess))
    value, n_fake, n_real = fid_value_from_stats(stats, reference)
    return MetricResult(value, n_fake, signature, extras={"n_fake": n_fake, "n_real": n_real})


def fid_value_from_stats(
    stats: Mapping[str, Any], reference: Mapping[str, Any] | None = None
) -> tuple[float, int, int]:
    """The Frechet distance of the two sets' Gaussians from moment sums (no model needed), with
    the generated and real set sizes; ``reference`` replaces the real side."""
    real = (
        {k: stats[f"real_{k}"] for k in ("n", "sum", "outer")}
        if reference is None
        else {k: reference[k] for k in ("n", "sum", "outer")}
    )
    n_fake, n_real = int(stats["fake_n"]), int(real["n"])
    if n_fake == 0 and n_real == 0:
        raise EmptyInputError("FID has no images: update it with generated and real images first")
    mu1, s1 = gaussian_from_moments(n_fake, stats["fake_sum"], stats["fake_outer"], "the generated set")
    dev = s1.device
    mu2, s2 = gaussian_from_moments(
        n_real, real["sum"].to(dev, dtype=s1.dtype), real["outer"].to(dev, dtype=s1.dtype), "the real set"
    )
    return frechet_distance(mu1, s1, mu2, s2), n_fake, n_real


def fid(
    preds: Any,
    target: Any,
    *,
    weights: Any = None,
    preprocess: str = "torch-fidelity",
    device: Any = None,
    input_range: Any = None,
    batch_size: int | None = None,
    feature_cache: Any = None,
) -> MetricResult:
    """FID between generated images (``preds``) and real images (``target``); symmetric, >= 0,
    lower is better. Each set needs at least 2 images (any number of them: fewer than 2048 is
    fine). Images in any form :mod:`transcreval.io` accepts; sizes may differ.

    Args:
        weights: None (the ``inception-v3-fid`` file through the resolver), a file in
            torch-fidelity's layout (what its ``feature_extractor_weights_path`` takes), or a
            weights name.
        preprocess: ``"torch-fidelity"`` (default) or ``"clean"`` (clean-fid's resize).
        device: where the network and the statistics live (default CPU).
        input_range: value range of float inputs (default [0, 1]).
        batch_size: network batch size (default: each input batch at once).
        feature_cache: a :class:`~transcreval.features.FeatureCache` or its path, to reuse
            features across runs (the same options as :class:`~transcreval.FID`).
    """
    opts = FIDOptions(**{k: v for k, v in locals().items() if k not in ("preds", "target")})
    stats = fid_stats(preds, target, opts)
    for side in SIDES:
        if f"{side}_n" not in stats:
            raise InputError(f"fid(preds, target) needs both sets; the {side} images are missing")
    return fid_from_stats(stats, opts)


def fid_version_packages(preprocess: str) -> tuple[str, ...]:
    """Packages whose version can change FID's numbers for this preprocessing."""
    return ("torch", "torch-fidelity") if preprocess == "torch-fidelity" else ("torch",)


def empty_moments(device: Any = None) -> dict[str, torch.Tensor]:
    import torch

    return {
        "n": torch.zeros((), dtype=torch.int64, device=device),
        "sum": torch.zeros(FEATURES, dtype=torch.float64, device=device),
        "outer": torch.zeros(FEATURES, FEATURES, dtype=torch.float64, device=device),
    }
