"""LPIPS throughput: MaskedLPIPS vs lpips.LPIPS on the same pairs and weights; feature cache rerun.

Targets (issue 8, issue 20 item 5): MaskedLPIPS >= 1.2x lpips' throughput at 256x256 and
512x512, batch 16 (AlexNet, the default; VGG at 16 x 256x256 and 4 x 512x512); a second
evaluation of 3 systems against the same references with the feature cache on runs no trunk
pass at all (passes counted, wall time reported).

Weights are seeded random (the ``alex`` and ``vgg`` fixtures of conftest.py: the timings do not
depend on the values; no download needed); the values are checked equal to lpips first (all-ones
mask, to 1e-5).
"""

from __future__ import annotations

import time

import pytest
import torch

from transcreval import LPIPS, MaskedLPIPS
from transcreval.features import FeatureCache, get_extractor

BATCH = 16


def _data(size, seed=0, batch=BATCH):
    g = torch.Generator().manual_seed(seed)
    a = torch.rand(batch, 3, size, size, generator=g)
    b = (a + 0.2 * torch.randn(batch, 3, size, size, generator=g)).clamp(0, 1)
    mask = torch.rand(batch, size, size, generator=g) > 0.2
    return a, b, mask


@pytest.mark.parametrize("size", [256, 512])
def test_paired_masked_lpips_vs_lpips(paired, alex, size):
    path, ref = alex
    a, b, mask = _data(size)
    metric = MaskedLPIPS(weights=path)
    with torch.no_grad():
        want = ref(a, b, normalize=True).flatten().double()
    got = metric.forward(a, b, torch.ones(size, size)).per_item
    assert torch.allclose(got, want, rtol=0, atol=1e-5)

    def reference(x, y, m):
        with torch.no_grad():
            return ref(x, y, normalize=True)

    def ours(x, y, m):
        return metric.forward(x, y, m)

    group = f"MaskedLPIPS vs lpips, alex, {BATCH}x{size}x{size}"
    ratio = paired(group, reference, ours, a, b, mask, pairs=12, goal=1.2)  # issue 20 item 5
    print(f"\nMaskedLPIPS/lpips throughput at {size}: {ratio:.2f}x")


#: VGG (issue 20 item 5): ~15x AlexNet's FLOPs. (size, batch, pairs): at 512x512 a batch of 4
#: (the pixels of 16 x 256x256): one side of it took ~10 s on a quiet 2-core VM (~37 s under a
#: load average of 4), and a batch of 16 would make lpips hold ~11 GB (every layer of 32 images)
VGG = [(256, BATCH, 3), (512, 4, 1)]


@pytest.mark.parametrize(("size", "batch", "pairs"), VGG, ids=[str(s) for s, _, _ in VGG])
def test_paired_masked_lpips_vs_lpips_vgg(paired, vgg, size, batch, pairs):
    """The VGG trunk at 16 x 256x256 and 4 x 512x512; values checked on 2 pairs first."""
    path, ref = vgg
    a, b, mask = _data(size, batch=batch)
    metric = MaskedLPIPS(net="vgg", weights=path)
    with torch.no_grad():
        want = ref(a[:2], b[:2], normalize=True).flatten().double()
    got = metric.forward(a[:2], b[:2], torch.ones(size, size)).per_item
    assert torch.allclose(got, want, rtol=0, atol=1e-5)

    def reference(x, y, m):
        with torch.no_grad():
            return ref(x, y, normalize=True)

    def ours(x, y, m):
        return metric.forward(x, y, m)

    group = f"MaskedLPIPS vs lpips, vgg, {batch}x{size}x{size}"
    paired(group, reference, ours, a, b, mask, pairs=pairs, warmup=0, goal=1.2)  # issue 20 item 5


def test_three_systems_rerun_with_the_feature_cache(alex, tmp_path, benchmark):
    """Score 3 systems against 16 references, three ways; count trunk passes and time them."""
    path, _ = alex
    size, n_sys = 256, 3
    refs = _data(size, seed=10)[0]
    systems = [_data(size, seed=20 + i)[1] for i in range(n_sys)]
    ex = get_extractor("lpips-alex", {"torchvision-alexnet": path})

    def evaluate(cache):
        values = []
        for s in systems:
            m = LPIPS(weights=path, feature_cache=cache, cache_preds=True)  # rerun: outputs cached too
            m.update(s, refs)
            values.append(m.compute().value)
        return values

    report = {}
    for label, cache in (
        ("no cache", None),
        ("cache, first run", FeatureCache(tmp_path / "f.sqlite")),
        ("cache, rerun", FeatureCache(tmp_path / "f.sqlite")),
    ):
        ex.stats.reset()
        t0 = time.perf_counter()
        values = evaluate(cache)
        report[label] = (time.perf_counter() - t0, ex.stats.images_computed, ex.stats.cache_hits, values)
    base = report["no cache"][3]
    for label, (_, _, _, values) in report.items():
        assert values == pytest.approx(base, abs=1e-12), label
    assert report["no cache"][1] == 2 * n_sys * BATCH
    assert report["cache, first run"][1] == (n_sys + 1) * BATCH  # references once
    assert report["cache, rerun"][1] == 0  # nothing goes through the trunk
    benchmark.extra_info.update(
        {k: {"seconds": v[0], "trunk_images": v[1], "cache_hits": v[2]} for k, v in report.items()}
    )
    benchmark.group = "LPIPS: 3 systems x 16 references, 256x256"
    benchmark.pedantic(lambda: evaluate(FeatureCache(tmp_path / "f.sqlite")), rounds=3, iterations=1)
    print()
    for label, (secs, imgs, hits, _) in report.items():
        print(f"{label:<18} {secs * 1e3:8.0f} ms   trunk images {imgs:3d}   cache hits {hits:3d}")
