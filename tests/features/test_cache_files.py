"""The feature cache's file and key: foreign SQLite files are refused
and left untouched, a read-only mode serves caches on read-only mounts, and the key holds the
versions of the packages that compute the features."""

from __future__ import annotations

import hashlib
import importlib.metadata
import sqlite3

import pytest
import torch

from tests._helpers import random_weights as rw
from transcreval.errors import FeatureCacheError, InputError
from transcreval.features import FeatureCache, clear_extractors, get_extractor
from transcreval.utils.packages import package_version


@pytest.fixture(scope="module")
def squeeze_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("w") / "squeeze.pth"
    torch.save(rw.trunk_state("squeeze", seed=13), path)
    return path


@pytest.fixture
def ex(squeeze_file):
    clear_extractors()
    e = get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": squeeze_file})
    e.stats.reset()
    yield e
    clear_extractors()


def _images(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, 3, 32, 32, generator=g)


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_foreign_sqlite_file_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "app.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (id INTEGER, name TEXT)")
        conn.execute("INSERT INTO users VALUES (1, 'a')")
    conn.close()
    before = _digest(path)
    for mode in ("read-write", "read-only"):
        cache = FeatureCache(path, mode=mode)
        with pytest.raises(FeatureCacheError, match=r"not a transcreval feature cache.*users.*untouched"):
            cache.check()
        with pytest.raises(FeatureCacheError):
            len(cache)
    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.sqlite"]  # no -wal / -shm, nothing moved


def test_a_judge_cache_is_refused(tmp_path):
    from transcreval.engines.judge.cache import JudgeCache

    path = tmp_path / "judge.sqlite"
    JudgeCache(path).close()
    before = _digest(path)
    with pytest.raises(FeatureCacheError, match="not a transcreval feature cache"):
        FeatureCache(path).check()
    assert _digest(path) == before


def test_an_older_feature_cache_is_adopted_with_its_rows(tmp_path):
    """A file from before the meta table (the features table alone) is a feature cache."""
    path = tmp_path / "old.sqlite"
    new = FeatureCache(path)
    new.put_many({"k1": {"a": torch.arange(3.0)}}, extractor="x")
    new.close()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE meta")
    conn.close()
    again = FeatureCache(path)
    assert torch.equal(again.get_many(["k1"])["k1"]["a"], torch.arange(3.0))
    with sqlite3.connect(path) as conn:
        assert dict(conn.execute("SELECT name, value FROM meta")) == {"kind": "transcreval-features", "format": "1"}
    conn.close()


def test_read_only_serves_features_and_never_writes(ex, tmp_path):
    path = tmp_path / "shared.sqlite"
    seen, new = _images(3, seed=1), _images(2, seed=2)
    writer = FeatureCache(path)
    ex(seen, cache=writer)
    writer.close()
    before, mtime = _digest(path), path.stat().st_mtime_ns
    ro = FeatureCache(path, mode="read-only")
    assert repr(ro).endswith("mode='read-only')")
    ex.stats.reset()
    out = ex(torch.cat([seen, new]), cache=ro)
    assert ex.stats.cache_hits == 3 and ex.stats.images_computed == 2
    for k, v in ex(torch.cat([seen, new])).items():
        torch.testing.assert_close(out[k], v, rtol=1e-4, atol=1e-5)
    assert len(ro) == 3, "new features are computed, not stored"
    with pytest.raises(FeatureCacheError, match="read-only"):
        ro.clear()
    assert _digest(path) == before and path.stat().st_mtime_ns == mtime


def test_read_only_needs_an_existing_file_and_a_known_mode(tmp_path):
    with pytest.raises(FeatureCacheError, match="read-only mode needs an existing file"):
        FeatureCache(tmp_path / "missing.sqlite", mode="read-only").check()
    assert not (tmp_path / "missing.sqlite").exists()
    with pytest.raises(InputError, match="mode must be"):
        FeatureCache(tmp_path / "x.sqlite", mode="append")


def test_a_read_only_cache_pickles_with_its_mode(tmp_path):
    import pickle

    path = tmp_path / "p.sqlite"
    FeatureCache(path).check()
    back = pickle.loads(pickle.dumps(FeatureCache(path, mode="ro")))
    assert back.mode == "read-only" and back.read_only


# ----------------------------------------------------------------------------- item 14: the key
def test_the_key_holds_the_package_versions(ex, tmp_path, monkeypatch):
    """After an upgrade of a package that computes the features, a persistent cache must not serve
    the old features: the versions are part of the identity (and so of every row's key)."""

    ident = ex.identity
    assert set(ident["versions"]) == {"torch", "torchvision"}
    assert ident["versions"]["torch"] == importlib.metadata.version("torch")
    cache = FeatureCache(tmp_path / "v.sqlite")
    x = _images(2, seed=5)
    ex(x, cache=cache)
    ex.stats.reset()
    ex(x, cache=cache)
    assert ex.stats.cache_hits == 2
    monkeypatch.setattr(
        "transcreval.features.extractor.package_version",
        lambda name: "99.0" if name == "torchvision" else package_version(name),
    )
    assert ex.identity["versions"]["torchvision"] == "99.0"
    ex.stats.reset()
    ex(x, cache=cache)
    assert ex.stats.cache_hits == 0 and ex.stats.images_computed == 2


@pytest.mark.parametrize(
    ("extractor", "packages"),
    [
        ("inception-v3-fid", {"torch", "torch-fidelity"}),
        ("dinov2-vits14", {"torch", "timm"}),
        ("lpips-alex", {"torch", "torchvision"}),
    ],
)
def test_each_backend_names_its_packages(extractor, packages):
    from transcreval.features import get_extractor_spec

    assert set(get_extractor_spec(extractor).version_packages) == packages


def test_open_clip_identity_has_its_packages_and_a_weights_digest():
    from tests._helpers.model_weights import TINY_CLIP, tiny_clip_checkpoint
    from transcreval.features.clip_models import get_clip
    from transcreval.weights import sha256_file

    enc = get_clip(TINY_CLIP, tiny_clip_checkpoint())
    ident = enc.extractor.identity
    assert set(ident["versions"]) == {"torch", "open_clip_torch", "torchvision", "pillow"}
    assert sha256_file(tiny_clip_checkpoint())[:12] in ident["extractor"]


def test_fid_references_record_versions_and_only_warn_when_they_differ(tmp_path, monkeypatch):
    """The versions in the identity key the feature cache; a saved FID reference stays usable
    after an upgrade (a warning), and one saved before versions were recorded loads silently."""
    import warnings

    from tests._helpers.model_weights import inception_file, poster_like
    from transcreval import FID
    from transcreval.functional.image.fid_reference import load_fid_reference, save_fid_reference

    w = inception_file(0)
    real = poster_like(3, 64, 48, seed=1)
    m = FID(weights=w)
    m.update(real, real=True)
    path = m.save_reference(tmp_path / "ref.safetensors")
    stats, ident = load_fid_reference(path)
    assert ident["versions"] == m._identity["versions"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FID(weights=w, reference=path)
        old = tmp_path / "old.safetensors"
        save_fid_reference(old, stats, {k: v for k, v in m._identity.items() if k != "versions"})
        FID(weights=w, reference=old)
    monkeypatch.setattr(
        "transcreval.features.extractor.package_version",
        lambda n: "99.0" if n == "torch-fidelity" else package_version(n),
    )
    with pytest.warns(UserWarning, match="package versions"):
        upgraded = FID(weights=w, reference=path)
    upgraded.update(poster_like(3, 64, 48, seed=2))
    assert upgraded.compute().value >= 0
