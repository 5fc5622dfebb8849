"""FID and CLIP benchmarks (issue 9), ours and the reference package on the same inputs in one run.

* Frechet distance at 2048-d: ``frechet_distance`` vs scipy's ``sqrtm`` form (goal >= 5x) and vs
  torch-fidelity's ``fid_statistics_to_metric`` (goal >= 1x), on full-rank covariances (n > d) and
  on rank-deficient ones (n < d, the usual MPTc split size).
* MPTc Table 5 on 3 image sets (outputs, GT, SRC): our collection (CLIP + FID_GT + FID_SRC, the
  outputs' Inception features extracted once) vs torch-fidelity twice + open_clip once; backbone
  passes are counted and printed.
* Inception feature extraction throughput vs torch-fidelity's extractor on the same uint8 images.
* ``CLIPSimilarity`` (update + compute, default open_clip preprocessing) vs open_clip's own
  transform + ``encode_image`` on both sets + the mean cosine, on the same PIL images; on ViT-B-32
  also one pair per ``update`` call against open_clip on one pair per call (how a loop over a data
  set calls each).

Sizes are kept moderate (one scipy ``sqrtm`` at 2048-d takes ~10 s on a quiet 2-core VM) so the
file runs in a few minutes; ``make bench`` runs it with the others.

Weights are random-init (seeded) files in the real layouts: timings do not depend on values.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import torch
from tests._helpers.model_weights import TINY_CLIP, inception_file, poster_like, reference_fid, tiny_clip_checkpoint

from transcreval.functional import frechet_distance

D = 2048


def _stats(n: int, seed: int):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 256)) @ rng.standard_normal((256, D)) * 0.05 + rng.standard_normal((n, D)) * 0.02
    return x.mean(0), np.cov(x, rowvar=False)


SIZES = {"full-rank": (4000, 5000), "rank-deficient": (300, 500)}


@pytest.fixture(scope="module", params=list(SIZES))
def gaussians(request):
    n1, n2 = SIZES[request.param]
    return (*_stats(n1, 1), *_stats(n2, 2)), request.param


def scipy_sqrtm_form(mu1, s1, mu2, s2):
    covmean = scipy.linalg.sqrtm(s1 @ s2).real
    d = mu1 - mu2
    return float(d @ d + np.trace(s1) + np.trace(s2) - 2 * np.trace(covmean))


def torch_fidelity_form(mu1, s1, mu2, s2):
    from torch_fidelity.metric_fid import fid_statistics_to_metric

    return fid_statistics_to_metric({"mu": mu1, "sigma": s1}, {"mu": mu2, "sigma": s2}, False)


def test_frechet_vs_scipy_sqrtm(paired, gaussians):
    args, kind = gaussians
    assert frechet_distance(*args) == pytest.approx(scipy_sqrtm_form(*args), rel=1e-6)
    group = f"frechet 2048-d vs scipy sqrtm ({kind})"
    paired(group, lambda a: scipy_sqrtm_form(*a), lambda a: frechet_distance(*a), args, pairs=3, warmup=0, goal=5.0)


def test_frechet_vs_torch_fidelity(paired, gaussians):
    args, kind = gaussians
    group = f"frechet 2048-d vs torch-fidelity ({kind})"
    assert frechet_distance(*args) == pytest.approx(torch_fidelity_form(*args)["frechet_inception_distance"], rel=1e-6)
    paired(group, lambda a: torch_fidelity_form(*a), lambda a: frechet_distance(*a), args, pairs=3, warmup=0)


N_SET = 32


@pytest.fixture(scope="module")
def three_sets():
    return poster_like(N_SET, 256, 192, 1), poster_like(N_SET, 256, 192, 2, 0.1), poster_like(N_SET, 256, 192, 3, -0.1)


def test_table5_collection_vs_torch_fidelity_twice_and_open_clip(paired, three_sets, capsys):
    import open_clip
    from PIL import Image

    from transcreval.features.extractor import clear_extractors
    from transcreval.functional.image.fid import fid_extractor
    from transcreval.protocols.mptc import similarity_metrics

    w, ck = inception_file(3), tiny_clip_checkpoint()
    model, _, transform = open_clip.create_model_and_transforms(TINY_CLIP, pretrained=ck)
    model.eval()

    def reference(sets):
        o, g, s = sets
        reference_fid(o, g, w)
        reference_fid(o, s, w)
        pil = lambda t: torch.stack([transform(Image.fromarray(x.permute(1, 2, 0).numpy())) for x in t])  # noqa: E731
        with torch.no_grad():
            a, b = model.encode_image(pil(o), normalize=True), model.encode_image(pil(g), normalize=True)
        return float(100 * (a * b).sum(1).mean())

    def ours(sets):
        o, g, s = sets
        coll = similarity_metrics(clip_model=TINY_CLIP, clip_pretrained=ck, fid_weights=w)
        coll.update(o, g, source=s)
        return coll.compute()

    ext = fid_extractor(w)
    ext.stats.reset()
    ours(three_sets)
    passes = ext.stats.images_computed
    ratio = paired(
        "Table 5: CLIP+FID_GT+FID_SRC vs torch-fidelity x2 + open_clip", reference, ours, three_sets, pairs=2
    )
    with capsys.disabled():
        print(
            f"\nInception images per Table 5 evaluation: ours {passes} (reference {4 * N_SET}); wall ratio {ratio:.2f}x"
        )
    assert passes == 3 * N_SET
    clear_extractors()


def test_inception_extraction_throughput(paired, three_sets):
    from torch_fidelity.feature_extractor_inceptionv3 import FeatureExtractorInceptionV3

    from transcreval.functional.image.fid import fid_extractor

    w = inception_file(3)
    ref = FeatureExtractorInceptionV3("inception-v3-compat", ["2048"], feature_extractor_weights_path=w)
    ours = fid_extractor(w)
    imgs = three_sets[0]

    def reference(x):
        with torch.no_grad():
            return ref(x)[0]

    torch.testing.assert_close(ours(imgs.float() / 255)["pool3"], reference(imgs), rtol=1e-5, atol=1e-5)
    paired(f"Inception features, {N_SET} 256x192 images", reference, lambda x: ours(x.float() / 255), imgs, pairs=3)


def test_clip_similarity_vs_open_clip(paired, three_sets):
    import open_clip
    from PIL import Image

    from transcreval.multimodal.embedding_similarity import CLIPSimilarity

    ck = tiny_clip_checkpoint()
    model, _, transform = open_clip.create_model_and_transforms(TINY_CLIP, pretrained=ck)
    model.eval()
    metric = CLIPSimilarity(TINY_CLIP, ck)
    to_pil = lambda t: [Image.fromarray(x.permute(1, 2, 0).numpy()) for x in t]  # noqa: E731
    pairs_ = (to_pil(three_sets[0]), to_pil(three_sets[1]))

    def reference(p):
        with torch.no_grad():
            a = model.encode_image(torch.stack([transform(x) for x in p[0]]), normalize=True)
            b = model.encode_image(torch.stack([transform(x) for x in p[1]]), normalize=True)
        return float(100 * (a * b).sum(1).mean())

    def ours(p):
        metric.reset()
        metric.update(p[0], p[1])
        return float(metric.compute())

    assert ours(pairs_) == pytest.approx(reference(pairs_), abs=1e-3)
    paired(f"CLIPSimilarity vs open_clip, {N_SET} pairs of PIL images", reference, ours, pairs_)


def test_clip_similarity_vit_b_32_vs_open_clip(paired, vit_b_32):
    """Issue 20 item 5: CLIPSimilarity (update + compute, default open_clip preprocessing) against
    open_clip's transform + ``encode_image`` + cosine, 32 pairs of 224x224 PIL images."""
    import open_clip
    from PIL import Image

    from transcreval.multimodal.embedding_similarity import CLIPSimilarity

    model, _, transform = open_clip.create_model_and_transforms("ViT-B-32", pretrained=vit_b_32)
    model.eval()
    metric = CLIPSimilarity("ViT-B-32", vit_b_32)
    g = torch.Generator().manual_seed(0)
    pil = lambda t: [Image.fromarray(x.permute(1, 2, 0).numpy()) for x in t]  # noqa: E731
    pairs_ = tuple(pil((torch.rand(32, 3, 224, 224, generator=g) * 255).to(torch.uint8)) for _ in range(2))

    def reference(p):
        with torch.no_grad():
            a = model.encode_image(torch.stack([transform(x) for x in p[0]]), normalize=True)
            b = model.encode_image(torch.stack([transform(x) for x in p[1]]), normalize=True)
        return float(100 * (a * b).sum(1).mean())

    def ours(p):
        metric.reset()
        metric.update(p[0], p[1])
        return float(metric.compute())

    assert ours(pairs_) == pytest.approx(reference(pairs_), abs=1e-3)
    paired("CLIPSimilarity vs open_clip, ViT-B-32, 32 pairs of 224x224", reference, ours, pairs_, pairs=3, warmup=0)


def test_clip_similarity_vit_b_32_one_pair_per_call(paired, vit_b_32):
    """One pair per call, as a loop over a data set calls it: ``CLIPSimilarity.update`` on each
    pair against open_clip's transform + ``encode_image`` on each image of the pair + cosine."""
    import open_clip
    from PIL import Image

    from transcreval.multimodal.embedding_similarity import CLIPSimilarity

    model, _, transform = open_clip.create_model_and_transforms("ViT-B-32", pretrained=vit_b_32)
    model.eval()
    metric = CLIPSimilarity("ViT-B-32", vit_b_32)
    g = torch.Generator().manual_seed(1)
    pil = lambda t: [Image.fromarray(x.permute(1, 2, 0).numpy()) for x in t]  # noqa: E731
    pairs_ = list(zip(*(pil((torch.rand(8, 3, 224, 224, generator=g) * 255).to(torch.uint8)) for _ in range(2))))

    def reference(p):
        total = 0.0
        with torch.no_grad():
            for a, b in p:
                ea = model.encode_image(transform(a)[None], normalize=True)
                eb = model.encode_image(transform(b)[None], normalize=True)
                total += float(100 * (ea * eb).sum())
        return total / len(p)

    def ours(p):
        metric.reset()
        for a, b in p:
            metric.update([a], [b])
        return float(metric.compute())

    assert ours(pairs_) == pytest.approx(reference(pairs_), abs=1e-3)
    paired("CLIPSimilarity vs open_clip, ViT-B-32, one pair of 224x224 per call (8 calls)", reference, ours,
           pairs_, pairs=3, warmup=0)  # fmt: skip
