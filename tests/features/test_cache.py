"""The on-disk feature cache: content addressing, corrupt-entry recovery, concurrent writers."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import pytest
import torch

from tests._helpers import random_weights as rw
from transcreval.features import FeatureCache, clear_extractors, get_extractor, image_digests


@pytest.fixture(scope="module")
def squeeze_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("w") / "squeeze.pth"
    torch.save(rw.trunk_state("squeeze", seed=11), path)
    return path


@pytest.fixture
def ex(squeeze_file, monkeypatch, tmp_path):
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    clear_extractors()
    e = get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": squeeze_file})
    e.stats.reset()
    yield e
    clear_extractors()


def _images(n, seed=0, size=32):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, 3, size, size, generator=g)


def test_roundtrip_is_exact(tmp_path):
    cache = FeatureCache(tmp_path / "f.sqlite")
    item = {"a": torch.randn(3, 4, 5), "b": torch.arange(6, dtype=torch.float64), "c": torch.randn(2).half()}
    cache.put_many({"k1": item}, extractor="x")
    got = cache.get_many(["k1", "k2"])
    assert list(got) == ["k1"] and all(torch.equal(got["k1"][n], item[n]) for n in item)
    assert got["k1"]["c"].dtype == torch.float16
    assert cache.stats["hits"] == 1 and cache.stats["misses"] == 1 and len(cache) == 1 and "k1" in cache
    cache.clear()
    assert len(cache) == 0


def test_default_location_is_under_transcreval_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "c"))
    assert FeatureCache().path == tmp_path / "c" / "features.sqlite"


def test_extractor_skips_images_already_seen(ex, tmp_path):
    cache = FeatureCache(tmp_path / "f.sqlite")
    refs = _images(4, seed=1)
    plain = ex(refs)
    first = ex(refs, cache=cache)
    assert ex.stats.images_computed == 4 + 4 and ex.stats.cache_hits == 0
    again = ex(refs, cache=cache)
    assert ex.stats.images_computed == 8 and ex.stats.cache_hits == 4
    for k in plain:
        assert torch.equal(first[k], plain[k]) and torch.equal(again[k], plain[k])
    # a batch mixing seen and new images computes only the new ones, and keeps the order
    mixed = torch.cat([_images(2, seed=9), refs[2:3], refs[0:1]])
    out = ex(mixed, cache=cache)
    assert ex.stats.images_computed == 10 and ex.stats.cache_hits == 6
    alone = ex(mixed)
    for k in alone:
        torch.testing.assert_close(out[k], alone[k], rtol=1e-4, atol=1e-5)
    assert len(cache) == 6


def test_key_covers_content_weights_and_dtype(ex, squeeze_file, tmp_path):
    cache = FeatureCache(tmp_path / "f.sqlite")
    x = _images(2, seed=2)
    ex(x, cache=cache)
    e64 = get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": squeeze_file}, dtype="float64")
    e64.stats.reset()
    e64(x, cache=cache)
    assert e64.stats.cache_hits == 0 and e64.stats.images_computed == 2  # another dtype: another entry
    other = tmp_path / "other.pth"
    torch.save(rw.trunk_state("squeeze", seed=12), other)
    eo = get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": other})
    eo.stats.reset()
    eo(x, cache=cache)
    assert eo.stats.cache_hits == 0  # other weights: another entry
    y = x.clone()
    y[0, 0, 0, 0] += 1e-6  # one pixel differs: another image
    ex.stats.reset()
    ex(y, cache=cache)
    assert ex.stats.cache_hits == 1 and ex.stats.images_computed == 1
    assert image_digests(x)[1] == image_digests(y)[1] != image_digests(y)[0]


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage"])
def test_corrupt_entries_are_detected_and_recomputed(ex, tmp_path, damage):
    path = tmp_path / "f.sqlite"
    cache = FeatureCache(path)
    x = _images(3, seed=3)
    want = ex(x, cache=cache)
    con = sqlite3.connect(path)
    key, blob = con.execute("SELECT key, data FROM features LIMIT 1").fetchone()
    bad = {
        "flip": blob[:-1] + bytes([blob[-1] ^ 0x01]),
        "truncate": blob[: len(blob) // 2],
        "garbage": b"\x00" * len(blob),
    }[damage]
    if damage == "garbage":  # a row whose stored digest was rewritten too: safetensors must still refuse it
        import hashlib

        con.execute(
            "UPDATE features SET data = ?, digest = ? WHERE key = ?", (bad, hashlib.sha256(bad).hexdigest(), key)
        )
    else:
        con.execute("UPDATE features SET data = ? WHERE key = ?", (bad, key))
    con.commit()
    con.close()
    ex.stats.reset()
    got = ex(x, cache=cache)
    assert cache.stats["corrupt"] == 1 and ex.stats.images_computed == 1 and ex.stats.cache_hits == 2
    for k in want:
        torch.testing.assert_close(got[k], want[k], rtol=1e-4, atol=1e-5)  # batch of 1 vs 3: oneDNN rounding
    ex.stats.reset()
    ex(x, cache=cache)  # the recomputed entry was written back
    assert ex.stats.cache_hits == 3 and ex.stats.images_computed == 0


def test_a_file_that_is_not_a_database_is_moved_aside(ex, tmp_path):
    path = tmp_path / "f.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    cache = FeatureCache(path)
    x = _images(2, seed=4)
    ex(x, cache=cache)
    assert len(cache) == 2
    assert len(list(tmp_path.glob("f.sqlite.corrupt-*"))) == 1


def test_concurrent_writers_lose_nothing(tmp_path):
    """Two processes write 300 entries each (100 keys in common) at the same time."""
    path = tmp_path / "f.sqlite"
    script = textwrap.dedent(
        f"""
        import sys, torch
        from transcreval.features import FeatureCache
        cache = FeatureCache({str(path)!r}, timeout=120)
        who = int(sys.argv[1])
        keys = [f"shared-{{i}}" for i in range(100)] + [f"p{{who}}-{{i}}" for i in range(200)]
        for start in range(0, len(keys), 10):  # many small transactions, to interleave
            part = keys[start:start + 10]
            cache.put_many({{k: {{"v": torch.full((64,), float(hash(k) % 1000))}} for k in part}}, extractor="t")
        print(len(cache.get_many(keys)))
        """
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(i)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for i in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert [o[0].strip() for o in outs] == ["300", "300"]
    cache = FeatureCache(path)
    assert len(cache) == 500
    keys = [f"shared-{i}" for i in range(100)] + [f"p{w}-{i}" for w in range(2) for i in range(200)]
    got = cache.get_many(keys)
    assert len(got) == 500 and cache.stats["corrupt"] == 0
