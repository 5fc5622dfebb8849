"""Scale (issue 20 item 6): costs grow linearly with items, memory stated.

* pHash of 1k, 4k, 16k and 64k small decoded images (64x96 RGB PIL images, ~18 KB each) against
  ``imagehash.phash`` on the same images, bit-identical (checked on the first 1,000); the table's
  scale summary gives our time per 1,000 images at each count and its growth from 1k.
* A ``MetricCollection`` (PHashDistance + TitleChrF, per-item values kept) over 64k pairs in one
  update, against imagehash per pair + sacrebleu ``sentence_score`` per pair; the same per-item
  values checked on the first 1,000 pairs.

The chrF scale (TitleChrF at 1k-64k pairs) is in ``bench_chrf.py``. The 64k images (~1.2 GB)
are built once for the module and sliced, so a row's memory growth (the table's "+N MiB") is
what the workload itself allocates. Large counts run few pairs: one 64k pass of imagehash takes
~15-25 s on a 2-core VM.
"""

from __future__ import annotations

import random

import imagehash
import numpy as np
import pytest
from PIL import Image
from sacrebleu.metrics import CHRF

from transcreval import MetricCollection, PHashDistance, TitleChrF
from transcreval.functional import phash, phash_hex

#: (items, pairs): few pairs where one pass is long
SCALE = [(1_000, 3), (4_000, 3), (16_000, 1), (64_000, 1)]
N_MAX = SCALE[-1][0]
CHECK = 1_000  # items checked equal to the peer's before timing
WORDS = ["Le", "Voyage", "de", "Chihiro", "パラサイト", "半地下の家族", "أميلي", "आरआरआर", "The", "Hotel", "noir"]


@pytest.fixture(scope="module")
def images() -> list[Image.Image]:
    """``N_MAX`` distinct 64x96 RGB images: a random colour gradient each, with mild noise."""
    rng = np.random.default_rng(0)
    t = np.linspace(0, 1, 96, dtype=np.float32)[:, None, None]
    noise = rng.normal(0, 8, (96, 64, 3)).astype(np.float32)
    out = []
    for _ in range(N_MAX // 4_000):
        top, bottom = rng.uniform(0, 255, (2, 4_000, 1, 1, 3)).astype(np.float32)
        shift = rng.integers(0, 96, 4_000)
        for a, b, k in zip(top, bottom, shift):
            px = a * (1 - t) + b * t + np.roll(noise, k, axis=0)
            out.append(Image.fromarray(np.clip(px, 0, 255).astype(np.uint8)))
    assert phash_hex(out[:CHECK]) == [str(imagehash.phash(im)) for im in out[:CHECK]]
    return out


def imagehash_all(imgs: list[Image.Image]) -> list[imagehash.ImageHash]:
    return [imagehash.phash(im) for im in imgs]


@pytest.mark.parametrize(("n", "pairs"), SCALE, ids=[f"{n}items" for n, _ in SCALE])
def test_paired_scale_phash(paired, images, n, pairs):
    paired(
        f"pHash scale, {n:,} decoded 64x96 images",
        imagehash_all,
        phash,
        images[:n],
        pairs=pairs,
        warmup=0,
        scale=("pHash, decoded 64x96 images", n),
    )


def _titles(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, k=rng.randint(1, 5))) for _ in range(n)]


def test_paired_collection_64k_per_item(paired, images):
    """PHashDistance + TitleChrF in one MetricCollection, 64k pairs in one update (every per-item
    value kept), against the peers' per-pair calls; per-item values equal first (1,000 pairs)."""
    n = N_MAX
    preds, target = images, images[1:] + images[:1]  # each image is compared with its neighbour
    hyps, refs = _titles(n, 1), _titles(n, 2)
    chrf = CHRF()

    def reference(p, t, h, r) -> tuple[list[float], list[float]]:
        return (
            [float(imagehash.phash(a) - imagehash.phash(b)) for a, b in zip(p, t)],
            [chrf.sentence_score(x, [y]).score for x, y in zip(h, r)],
        )

    def ours(p, t, h, r) -> tuple[list[float], list[float]]:
        col = MetricCollection(
            {"phash": PHashDistance(), "chrf": (TitleChrF(), {"preds": "pred_titles", "target": "ref_titles"})}
        )
        col.update(p, t, pred_titles=h, ref_titles=r)
        out = col.compute()
        assert out["phash"].per_item is not None and out["chrf"].per_item is not None
        return out["phash"].per_item.tolist(), out["chrf"].per_item.tolist()

    head = (preds[:CHECK], target[:CHECK], hyps[:CHECK], refs[:CHECK])
    assert ours(*head) == reference(*head)
    paired(
        f"MetricCollection (PHashDistance + TitleChrF, per-item values kept), {n:,} pairs of 64x96 images + titles",
        reference,
        ours,
        preds,
        target,
        hyps,
        refs,
        pairs=1,
        warmup=0,
    )
