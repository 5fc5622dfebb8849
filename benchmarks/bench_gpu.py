"""GPU throughput (issue 20 item 7): ours on a CUDA device against the peer as a user runs it.

Run with ``make bench-gpu`` on a machine with a CUDA device (it also runs the CUDA-only tests).
Rows, each checked equal to the peer first and synchronised with the device around every timed
call:

* pHash of 64 decoded 512x768 images given as one uint8 tensor on the device, against imagehash
  on the same images as PIL images (imagehash has no GPU path; goal 50x);
* MaskedLPIPS (AlexNet, 16 x 256x256) against lpips.LPIPS, both on the device (goal 1x);
* FID's Inception features (32 images of 256x192, seeded random weights) against torch-fidelity's
  extractor, both on the device (goal 1x);
* CLIPSimilarity (ViT-B-32, 32 pairs of 224x224) against open_clip's ``encode_image`` + cosine on
  tensors already on the device, both on the device (goal 1x).

Without a CUDA device the module is skipped. ``BENCH_DEVICE=cpu`` runs the same rows on the CPU,
a dry run of this code (the goals are then 1x; the row names say the device).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from PIL import Image

DEVICE = torch.device(os.environ.get("BENCH_DEVICE", "cuda"))
if DEVICE.type == "cuda" and not torch.cuda.is_available():
    pytest.skip("no CUDA device (BENCH_DEVICE=cpu runs these rows on the CPU)", allow_module_level=True)
ON_GPU = DEVICE.type == "cuda"
WHERE = torch.cuda.get_device_name(DEVICE) if ON_GPU else "cpu (dry run)"


def synced(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` that returns only when the device has finished its work (CUDA runs asynchronously)."""

    def run(*args: Any) -> Any:
        out = fn(*args)
        if ON_GPU:
            torch.cuda.synchronize(DEVICE)
        return out

    return run


def _uint8_images(n: int, h: int, w: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    low = torch.rand(n, 3, h // 16, w // 16, generator=g)  # smooth posters: hashes with structure
    big = torch.nn.functional.interpolate(low, size=(h, w), mode="bilinear", align_corners=False)
    noise = 0.05 * torch.rand(n, 3, h, w, generator=g)
    return ((big + noise).clamp(0, 1) * 255).to(torch.uint8)


def test_paired_phash_on_device_vs_imagehash(paired):
    import imagehash

    from transcreval.functional.image.hashing import phash_hex

    cpu = _uint8_images(64, 768, 512)
    pil = [Image.fromarray(np.ascontiguousarray(x.permute(1, 2, 0).numpy())) for x in cpu]
    on_device = cpu.to(DEVICE)

    def reference(images: list[Image.Image]) -> list[str]:
        return [str(imagehash.phash(im)) for im in images]

    def ours(_: object) -> list[str]:
        return phash_hex(on_device)

    assert ours(None) == reference(pil)
    paired(
        f"pHash on {WHERE}, 64 decoded 512x768 images (a uint8 tensor on the device) vs imagehash",
        reference,
        synced(ours),
        pil,
        goal=50.0 if ON_GPU else 1.0,
    )


def test_paired_masked_lpips_on_device(paired, alex):
    from transcreval import MaskedLPIPS

    path, ref = alex
    ref = ref.to(DEVICE).eval()
    g = torch.Generator().manual_seed(0)
    a = torch.rand(16, 3, 256, 256, generator=g)
    b = (a + 0.2 * torch.randn(16, 3, 256, 256, generator=g)).clamp(0, 1)
    a, b = a.to(DEVICE), b.to(DEVICE)
    mask = torch.ones(256, 256, dtype=torch.bool, device=DEVICE)
    metric = MaskedLPIPS(weights=path).to(DEVICE)

    def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return ref(x, y, normalize=True).flatten()

    def ours(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return metric.forward(x, y, mask).per_item

    torch.testing.assert_close(ours(a, b).double().cpu(), reference(a, b).double().cpu(), rtol=0, atol=1e-4)
    paired(
        f"MaskedLPIPS on {WHERE}, alex, 16x256x256, vs lpips on the same device", synced(reference), synced(ours), a, b
    )


def test_paired_inception_features_on_device(paired):
    from tests._helpers.model_weights import inception_file, poster_like
    from torch_fidelity.feature_extractor_inceptionv3 import FeatureExtractorInceptionV3

    from transcreval.functional.image.fid import fid_extractor

    w = inception_file(3)
    ref = FeatureExtractorInceptionV3("inception-v3-compat", ["2048"], feature_extractor_weights_path=w).to(DEVICE)
    ours = fid_extractor(w, device=DEVICE)
    imgs = poster_like(32, 256, 192, 1).to(DEVICE)

    def reference(x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return ref(x)[0]

    def features(x: torch.Tensor) -> torch.Tensor:
        return ours(x.float() / 255)["pool3"]

    torch.testing.assert_close(features(imgs).cpu(), reference(imgs).cpu(), rtol=1e-4, atol=1e-4)
    paired(
        f"Inception features on {WHERE}, 32 256x192 images, vs torch-fidelity on the same device",
        synced(reference),
        synced(features),
        imgs,
        pairs=5,
    )


def test_paired_clip_similarity_on_device(paired, vit_b_32):
    import open_clip

    from transcreval.multimodal.embedding_similarity import CLIPSimilarity

    model, _, _ = open_clip.create_model_and_transforms("ViT-B-32", pretrained=vit_b_32)
    model = model.to(DEVICE).eval()
    metric = CLIPSimilarity("ViT-B-32", vit_b_32, preprocess="tensor").to(DEVICE)
    g = torch.Generator().manual_seed(0)
    a, b = (torch.rand(32, 3, 224, 224, generator=g).to(DEVICE) for _ in range(2))
    mean = torch.tensor(open_clip.OPENAI_DATASET_MEAN, device=DEVICE).view(1, 3, 1, 1)
    std = torch.tensor(open_clip.OPENAI_DATASET_STD, device=DEVICE).view(1, 3, 1, 1)

    def reference(x: torch.Tensor, y: torch.Tensor) -> float:
        with torch.no_grad():
            ex = model.encode_image((x - mean) / std, normalize=True)
            ey = model.encode_image((y - mean) / std, normalize=True)
        return float(100 * (ex * ey).sum(1).mean())

    def ours(x: torch.Tensor, y: torch.Tensor) -> float:
        metric.reset()
        metric.update(x, y)
        return float(metric.compute())

    assert ours(a, b) == pytest.approx(reference(a, b), abs=1e-2)
    paired(
        f"CLIPSimilarity on {WHERE}, ViT-B-32, 32 pairs of 224x224 tensors, vs open_clip on the same device",
        synced(reference),
        synced(ours),
        a,
        b,
        pairs=5,
    )
