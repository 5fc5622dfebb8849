"""FID (MPTc-Bench §5.3, Table 5: FID_GT and FID_SRC)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Literal

import torch

from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.core.states import Sum
from transcreval.errors import InputError, SignatureMismatchError
from transcreval.functional.image.fid import (
    FEATURES,
    SIDES,
    FIDOptions,
    fid_from_stats,
    fid_stats,
    fid_version_packages,
)
from transcreval.functional.image.fid_reference import (
    check_reference_identity,
    load_fid_reference,
    save_fid_reference,
)


class FID(Metric):
    """Frechet Inception Distance between generated and real images (>= 0, lower is better).

    ``update(preds, target)`` adds generated images (``preds``) and real images (``target``);
    ``update(images, real=True)`` / ``update(images, real=False)`` adds one side, as
    torchmetrics' FID does. The states are float64 sums per side (``n``, ``sum x``,
    ``sum x x^T``): they sync with one all-reduce and never hold a list of features.

    Args:
        weights: None (the ``inception-v3-fid`` file through the weights resolver), a file in
            torch-fidelity's layout (what its ``feature_extractor_weights_path`` takes), or a
            weights name. A missing file raises WeightsNotFoundError here, when the metric is built.
        preprocess: ``"torch-fidelity"`` (default: uint8 quantisation + TF1 bilinear resize, the
            MPTc protocol) or ``"clean"`` (clean-fid's PIL-bicubic float resize).
        reference: a file written by :meth:`save_reference`: the real side's statistics, checked
            against this metric's extractor (SignatureMismatchError if they differ); then only
            generated images are added.
        real_from: ``"target"`` (default) or ``"source"``: which ``update`` argument holds the
            real images. MPTc's FID_SRC is ``FID(real_from="source")`` beside FID_GT = ``FID()``
            in one :class:`~transcreval.MetricCollection` updated with
            ``(outputs, gt_posters, source=src_posters)``: the outputs' Inception features are
            computed once for both.
        input_range: value range of float inputs (default [0, 1]; uint8 is 0..255).
        batch_size: network batch size (default: each update's images at once).
        feature_cache: a :class:`~transcreval.features.FeatureCache` or its path (reuse features
            across runs); see :mod:`transcreval.features.options`.

    The network runs on the metric's device (``FID().to("cuda")``), where the states live too;
    the distance is computed there in float64. The weights are loaded once, when the metric is
    built, and kept: a file re-saved at the same path later is never mixed in (moving the metric
    to another device then raises :class:`~transcreval.errors.WeightsChangedError`).
    """

    def __init__(
        self,
        weights: Any = None,
        preprocess: Literal["torch-fidelity", "clean"] = "torch-fidelity",
        *,
        reference: str | os.PathLike[str] | None = None,
        real_from: Literal["target", "source"] = "target",
        input_range: tuple[float, float] | None = None,
        batch_size: int | None = None,
        feature_cache: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.options = opts = FIDOptions(
            weights=weights, preprocess=preprocess, real_from=real_from, reference=reference,
            input_range=input_range, batch_size=batch_size, feature_cache=feature_cache,
        )  # fmt: skip
        self.preprocess, self.real_from = preprocess, real_from
        self.input_range, self.batch_size, self.feature_cache = opts.input_range, opts.batch_size, opts.feature_cache
        # resolved and built now (a missing file fails here), and kept: the weights are pinned
        self._identity = opts.extractor.identity
        self._options = {k: v for k, v in opts.signature_options().items() if k != "ref"}
        self.version_packages = fid_version_packages(preprocess)
        # states carry no signature, so they hold one: (images added) x (a 20-bit id of the
        # options). States from an FID with other weights or preprocessing (load_state_dict,
        # merge_state of a mapping, a rank built differently) break the product at compute.
        digest = hashlib.sha256(json.dumps(self._options, sort_keys=True).encode()).hexdigest()
        self._check_id = int(digest[:5], 16) + 1
        self.add_state("options_check", Sum(torch.int64))
        for side in SIDES:
            self.add_state(f"{side}_n", Sum(torch.int64))
            self.add_state(f"{side}_sum", Sum(torch.float64, (FEATURES,)))
            self.add_state(f"{side}_outer", Sum(torch.float64, (FEATURES, FEATURES)))
        self._reference: dict[str, torch.Tensor] | None = None
        self.reference_path: str | None = None
        if reference is not None:
            stats, identity = load_fid_reference(reference)
            check_reference_identity(identity, self._identity, reference)
            self._reference = stats
            self.reference_path = os.fspath(reference)

    def _stats(self, preds: Any, target: Any = None, source: Any = None, real: bool | None = None) -> dict[str, Any]:
        """``preds``: generated images (or, with ``real=``, the images of that side); ``target``:
        real images; ``source``: real images when built with ``real_from="source"`` (ignored
        otherwise); ``real``: True/False to add ``preds`` to one side only."""
        real_images = source if self.real_from == "source" else target
        if self.real_from == "source" and real is None and source is None and target is not None:
            raise InputError("this FID takes its real images from source= (real_from='source'); target is not read")
        wants_real = real is True or (real is None and real_images is not None)
        if wants_real and self._reference is not None:
            raise InputError(
                f"this FID compares against the saved reference {self.reference_path}; add generated images only"
            )
        stats = fid_stats(preds, real_images, self.options, real=real, device=self.device)
        added = sum(int(stats[f"{side}_n"]) for side in SIDES if f"{side}_n" in stats)
        stats["options_check"] = torch.tensor(added * self._check_id, dtype=torch.int64)
        return stats

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        added = sum(int(stats[f"{side}_n"]) for side in SIDES)
        if int(stats["options_check"]) != added * self._check_id:
            raise SignatureMismatchError(
                f"this FID's states were (partly) computed by an FID with other settings ({self._options}: "
                "weights, preprocessing or real_from differ), e.g. through load_state_dict or merge_state; "
                "load states only into an FID built with the same weights file and preprocessing"
            )
        return fid_from_stats(stats, self.options, self._reference)

    def save_reference(self, path: str | os.PathLike[str], side: Literal["real", "fake"] = "real") -> Path:
        """Save one side's statistics (over every process: a collective when distributed; rank 0
        writes) with this metric's extractor identity, for ``FID(reference=path)``."""
        if side not in SIDES:
            raise InputError(f"side must be 'real' or 'fake', got {side!r}")
        if side == "real" and self._reference is not None:
            stats = self._reference
        else:
            states = self.synced_state() if self.sync_on_compute else self.state_dict()
            stats = {k: states[f"{side}_{k}"] for k in ("n", "sum", "outer")}
        rank0 = not self._dist_available() or torch.distributed.get_rank(self.process_group) == 0
        dest = Path(path).expanduser()
        if rank0:
            save_fid_reference(dest, stats, self._identity)
        return dest
