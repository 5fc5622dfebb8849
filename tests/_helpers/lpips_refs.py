"""LPIPS test pieces shared by tests/image/test_lpips.py and test_masked_lpips.py: seeded random
weights with the reference lpips.LPIPS on the same layers, seeded image pairs and masks, and the
reference values written out from lpips' own pieces (IMTBench Eq. 3 for the masked area mode)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from tests._helpers import random_weights as rw

NETS = ("alex", "squeeze")


def pairs(n, h=48, w=48, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.rand(n, 3, h, w, generator=g)
    b = (a + 0.25 * torch.randn(n, 3, h, w, generator=g)).clamp(0, 1)
    return a, b


def masks(n, h=48, w=48, seed=0):
    g = torch.Generator().manual_seed(seed + 100)
    m = torch.rand(n, h, w, generator=g) > 0.35
    m[:, 0, 0] = True  # never empty
    return m


def ref_lpips(ref, a, b):
    with torch.no_grad():
        return ref(a, b, normalize=True).flatten().double()


def ref_layer_maps(ref, a, b):
    """Per-layer distance maps written out from lpips' own pieces (net, normalize_tensor, lins)."""
    import lpips as lp

    with torch.no_grad():
        fa, fb = ref.net(ref.scaling_layer(2 * a - 1)), ref.net(ref.scaling_layer(2 * b - 1))
        return [
            ref.lins[k]((lp.normalize_tensor(x) - lp.normalize_tensor(y)) ** 2) for k, (x, y) in enumerate(zip(fa, fb))
        ]


def ref_masked_area(ref, a, b, mask):
    """IMTBench Eq. 3: the mask averaged over each layer's cells (adaptive average pooling), then
    sum(m s) / sum(m) per layer, summed over layers."""
    m = mask.float()[:, None]
    total = 0
    for s in ref_layer_maps(ref, a, b):
        ml = F.adaptive_avg_pool2d(m, s.shape[-2:])
        total = total + (ml * s).sum((2, 3)) / ml.sum((2, 3))
    return total.flatten().double()


def ref_masked_upsample(ref_spatial, a, b, mask):
    with torch.no_grad():
        sp = ref_spatial(a, b, normalize=True)
    m = mask.float()[:, None]
    return ((sp * m).sum((2, 3)) / m.sum((2, 3))).flatten().double()


def build_weights(d: Path) -> dict[str, tuple[str, Any, Any, Any]]:
    """Per net (alex, squeeze): (an lpips-layout file with seeded random trunk + linear layers, the
    reference lpips.LPIPS built on the same layers, the trunk state, the linear state)."""
    out = {}
    for net, seed in (("alex", 1), ("squeeze", 2)):
        feats = rw.features_only(rw.trunk_state(net, seed=seed))
        lins = rw.lin_state(net, seed=seed + 10)
        path = d / f"lpips_{net}.pth"
        torch.save(rw.lpips_layout_state(net, feats, lins), path)
        out[net] = (str(path), rw.reference_lpips(net, feats, lins), feats, lins)
    return out
