"""Feature extractors: declared, built once per process, shared per batch, cached on disk.

* :mod:`~transcreval.features.registry`: :class:`ExtractorSpec` and :func:`register_extractor`;
* :mod:`~transcreval.features.preprocess`: named preprocessing pipelines (torch ops);
* :mod:`~transcreval.features.extractor`: :func:`get_extractor` (one instance per extractor,
  weights, device, dtype; :meth:`FeatureExtractor.on` moves a metric's pinned instance);
* :mod:`~transcreval.features.scope`: :func:`feature_scope` / :func:`shared_input` (per-batch sharing);
* :mod:`~transcreval.features.options`: the options every feature metric takes, checked once
  (:func:`feature_options`: ``input_range``, ``batch_size``, ``feature_cache``);
* :mod:`~transcreval.features.cache`: :class:`FeatureCache` (content-addressed, SQLite).

Built-in extractors: ``lpips-alex``, ``lpips-vgg``, ``lpips-squeeze`` (the LPIPS trunks, v0.1
input scaling; ``-v0.0`` variants), ``inception-v3-fid`` / ``inception-v3-fid-clean`` (FID),
``dinov2-vits14`` / ``dinov2-vitb14``; open_clip encoders register theirs when first built.
Importing this package does not import torch.
"""

from __future__ import annotations

from transcreval.features import clip_weights as _builtin_clip  # noqa: F401  (the open_clip weights resolver)
from transcreval.features import dinov2 as _builtin_dinov2  # noqa: F401  (registers DINOv2 ViT-S/14, ViT-B/14)
from transcreval.features import inception as _builtin_inception  # noqa: F401  (registers the FID Inception)
from transcreval.features import lpips_trunk as _builtin_lpips  # noqa: F401  (registers the LPIPS trunks)
from transcreval.features.cache import FeatureCache
from transcreval.features.extractor import (
    ExtractorStats,
    FeatureExtractor,
    built_extractors,
    clear_extractors,
    feature_scope,
    get_extractor,
    get_extractor_from_file,
    image_digests,
    resolve_weights,
    shared_input,
)
from transcreval.features.preprocess import Preprocess, get_preprocess, preprocess_names, register_preprocess
from transcreval.features.registry import (
    ExtractorSpec,
    extractor_names,
    get_extractor_spec,
    register_extractor,
    unregister_extractor,
)

__all__ = [
    "ExtractorSpec",
    "ExtractorStats",
    "FeatureCache",
    "FeatureExtractor",
    "Preprocess",
    "built_extractors",
    "clear_extractors",
    "extractor_names",
    "feature_scope",
    "get_extractor",
    "get_extractor_from_file",
    "get_extractor_spec",
    "get_preprocess",
    "image_digests",
    "preprocess_names",
    "register_extractor",
    "register_preprocess",
    "resolve_weights",
    "shared_input",
    "unregister_extractor",
]
