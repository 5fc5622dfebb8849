"""Every registered feature metric (image/multimodal metrics that load weights), built offline
with small random-init weights, with its functional twin and a batch of inputs.

:data:`CASES` has one entry per metric; ``tests/features/test_options.py`` checks that it covers
exactly the registered metrics, so a new feature metric must add its case here and then
inherits the family-wide tests (one option convention, pinned weights).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from tests._helpers import random_weights as rw
from tests._helpers.model_weights import (
    TINY_CLIP,
    dinov2_file,
    inception_file,
    poster_like,
    tiny_clip_checkpoint,
    tiny_siglip_dir,
    tiny_tokenizer_dir,
    weights_dir,
)


@functools.cache
def lpips_file() -> str:
    """A random-init LPIPS-squeeze file in lpips' layout (trunk and declared v0.1 linear layers)."""
    path = weights_dir() / "feature-metrics-lpips-squeeze.pth"
    lins = rw.lin_state("squeeze", seed=21)  # declares the layers (each process builds its own)
    if not path.exists():
        feats = rw.features_only(rw.trunk_state("squeeze", seed=20))
        torch.save(rw.lpips_layout_state("squeeze", feats, lins), path)
    return str(path)


def images(n: int = 3, seed: int = 0, h: int = 48, w: int = 40) -> list[torch.Tensor]:
    return list(poster_like(n, h, w, seed=seed))


@dataclass(frozen=True)
class Case:
    """How to build one feature metric and call its twin.

    ``build(**options)`` -> metric; ``twin(*inputs, **options)`` -> result; ``inputs(a, b)`` ->
    the positional ``update`` arguments for image batches ``a`` (outputs) and ``b`` (the other
    images); ``weights(path)`` -> the constructor keywords that load the checkpoint at ``path``
    (None when the metric's weights are not one file); ``file()`` -> such a file.
    """

    build: Callable[..., Any]
    twin: Callable[..., Any]
    inputs: Callable[[Any, Any], tuple[Any, ...]]
    file: Callable[[], str] | None = None
    weights: Callable[[str], dict[str, Any]] | None = None


def _ones(a: Any) -> torch.Tensor:
    return torch.ones(len(a), a[0].shape[-2], a[0].shape[-1], dtype=torch.bool)


def _lpips_case(cls_name: str, fn_name: str, masked: bool) -> Case:
    def build(**kw: Any) -> Any:
        import transcreval

        return getattr(transcreval, cls_name)(net="squeeze", **{"weights": lpips_file(), **kw})

    def twin(*args: Any, **kw: Any) -> Any:
        from transcreval import functional

        return getattr(functional, fn_name)(*args, net="squeeze", **{"weights": lpips_file(), **kw})

    return Case(
        build,
        twin,
        (lambda a, b: (a, b, _ones(a))) if masked else (lambda a, b: (a, b)),
        lpips_file,
        lambda p: {"weights": p, "version": "0.1"},
    )


def _clip_case(cls_name: str, fn_name: str, inputs: Callable[[Any, Any], tuple[Any, ...]], kind: str) -> Case:
    def opts() -> dict[str, Any]:
        if kind == "clip":
            return {"model": TINY_CLIP, "pretrained": tiny_clip_checkpoint()}
        return {"model": tiny_siglip_dir(), "tokenizer": tiny_tokenizer_dir()}

    def build(**kw: Any) -> Any:
        import transcreval

        o = {**opts(), **kw}
        return getattr(transcreval, cls_name)(o.pop("model"), o.pop("pretrained", None), **o)

    def twin(*args: Any, **kw: Any) -> Any:
        from transcreval import functional

        return getattr(functional, fn_name)(*args, **{**opts(), **kw})

    if kind == "clip":
        return Case(build, twin, inputs, tiny_clip_checkpoint, lambda p: {"pretrained": p})
    return Case(build, twin, inputs)


def _fid_build(**kw: Any) -> Any:
    from transcreval import FID

    return FID(**{"weights": inception_file(0), **kw})


def _fid_twin(*args: Any, **kw: Any) -> Any:
    from transcreval.functional import fid

    return fid(*args, **{"weights": inception_file(0), **kw})


def _dino_build(**kw: Any) -> Any:
    from transcreval import DINOv2Distance

    return DINOv2Distance(**{"weights": dinov2_file("hub"), **kw})


def _dino_twin(*args: Any, **kw: Any) -> Any:
    from transcreval.functional import dinov2_distance

    return dinov2_distance(*args, **{"weights": dinov2_file("hub"), **kw})


CASES: dict[str, Case] = {
    "LPIPS": _lpips_case("LPIPS", "lpips", False),
    "MaskedLPIPS": _lpips_case("MaskedLPIPS", "masked_lpips", True),
    "BackgroundPreservation": _lpips_case("BackgroundPreservation", "background_preservation", True),
    "FID": Case(_fid_build, _fid_twin, lambda a, b: (a, b), lambda: inception_file(0), lambda p: {"weights": p}),
    "DINOv2Distance": Case(
        _dino_build, _dino_twin, lambda a, b: (a, b), lambda: dinov2_file("hub"), lambda p: {"weights": p}
    ),
    "CLIPSimilarity": _clip_case("CLIPSimilarity", "clip_similarity", lambda a, b: (a, b), "clip"),
    "VisualSimilarity": _clip_case("VisualSimilarity", "visual_similarity", lambda a, b: (a, b), "siglip"),
    "CulturalRelevanceDelta": _clip_case(
        "CulturalRelevanceDelta", "cultural_relevance_delta", lambda a, b: (a, b, "japan"), "siglip"
    ),
    "SemanticEquivalence": _clip_case(
        "SemanticEquivalence", "semantic_equivalence", lambda a, b: (a, "food"), "siglip"
    ),
}


def second_file(name: str) -> str:
    """Another valid checkpoint for the metric ``name`` (other seed), for re-saving over the first."""
    if name in ("LPIPS", "MaskedLPIPS", "BackgroundPreservation"):
        path = weights_dir() / "feature-metrics-lpips-squeeze-2.pth"
        lins = rw.lin_state("squeeze", seed=23)
        if not path.exists():
            feats = rw.features_only(rw.trunk_state("squeeze", seed=22))
            torch.save(rw.lpips_layout_state("squeeze", feats, lins), path)
        return str(path)
    if name == "FID":
        return inception_file(1)
    if name == "DINOv2Distance":
        return dinov2_file("hub", seed=1)
    if name == "CLIPSimilarity":
        return tiny_clip_checkpoint(1)
    raise KeyError(name)
