"""Random-init weights with fixed seeds for the FID / CLIP / SigLIP / DINOv2 tests (no downloads).

* :func:`inception_file`: the FID Inception in torch-fidelity's ``inception-v3-compat`` layout
  (what ``feature_extractor_weights_path`` loads), with randomised batch-norm statistics so the
  features vary between images;
* :func:`reference_fid`: ``torch_fidelity.calculate_metrics`` on uint8 tensors with that file;
* image sets: seeded uint8 images with structure (gradients, blocks), not pure noise.
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

import numpy as np
import torch

_DIR = Path(tempfile.mkdtemp(prefix="transcreval-test-weights-"))


def weights_dir() -> Path:
    """A per-process directory for the generated files (deterministic content, fixed seeds)."""
    return _DIR


@functools.lru_cache(maxsize=None)
def inception_file(seed: int = 0) -> str:
    from transcreval.features.inception import network_class

    path = _DIR / f"inception-seed{seed}.pth"
    if not path.exists():
        torch.manual_seed(seed)
        net = network_class()()
        g = torch.Generator().manual_seed(seed + 1)
        for m in net.modules():
            if isinstance(m, torch.nn.Conv2d):  # variance-preserving, so deep features still differ between images
                torch.nn.init.kaiming_normal_(m.weight, generator=g)
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.copy_(torch.rand(m.running_mean.shape, generator=g) * 0.2 - 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
                m.num_batches_tracked.fill_(7)
        tmp = path.with_suffix(f".{os.getpid()}.part")
        torch.save(net.state_dict(), tmp)
        os.replace(tmp, path)
    return str(path)


def poster_like(n: int, h: int, w: int, seed: int, shift: float = 0.0) -> torch.Tensor:
    """``n`` seeded uint8 RGB images (N x 3 x H x W): colour gradients, blocks and some noise."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w] / max(h, w)
    out = np.empty((n, 3, h, w), dtype=np.float64)
    for i in range(n):
        for c in range(3):
            a, b, ph = rng.uniform(-1, 1, 3)
            out[i, c] = 0.5 + 0.3 * np.sin(6 * (a * xx + b * yy) + ph) + shift
        for _ in range(3):
            y0, x0 = rng.integers(0, h // 2), rng.integers(0, w // 2)
            out[i, :, y0 : y0 + h // 3, x0 : x0 + w // 3] = rng.uniform(0, 1, (3, 1, 1))
        out[i] += rng.normal(0, 0.05, (3, h, w))
    return torch.from_numpy(np.clip(out * 255, 0, 255).round().astype(np.uint8))


class _Images(torch.utils.data.Dataset):
    def __init__(self, images: torch.Tensor | list[torch.Tensor]) -> None:
        self.images = list(images)

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, i: int) -> torch.Tensor:
        return self.images[i]


def reference_fid(fake: torch.Tensor, real: torch.Tensor, weights: str) -> float:
    """torch-fidelity's FID of two uint8 image sets with the given Inception file (CPU, no cache)."""
    import torch_fidelity

    out = torch_fidelity.calculate_metrics(
        input1=_Images(fake),
        input2=_Images(real),
        fid=True,
        feature_extractor_weights_path=weights,
        cuda=False,
        cache=False,
        verbose=False,
        batch_size=1 if isinstance(real, list) or isinstance(fake, list) else 64,
        save_cpu_ram=True,
    )
    return float(out["frechet_inception_distance"])
