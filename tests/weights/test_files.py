"""Model files beyond the resolver's order: no lock file is left
beside fetched weights, the Hugging Face hub cache is searched, and an unverified file is
warned about once per file and process."""

from __future__ import annotations

import dataclasses
import threading
import time
import warnings

import pytest

from tests._helpers.http_files import serve
from transcreval.errors import UnverifiedWeightsWarning
from transcreval.weights import WeightsEntry, fetch, register_weights, resolve, unregister_weights
from transcreval.weights.lock import file_lock

BLOB = b"transcreval weights file " * 2000


@pytest.fixture
def env(monkeypatch, tmp_path):
    for var in ("TRANSCREVAL_WEIGHTS_DIR", "HF_HUB_OFFLINE", "HF_HOME", "HUGGINGFACE_HUB_CACHE", "http_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    return tmp_path


@pytest.fixture
def unhashed(env):
    entry = WeightsEntry(
        name="test-unhashed-once",
        filename="unhashed-once.bin",
        sha256=None,
        size=None,
        urls=(),
        licence="test",
        sha256_note="the test publishes no digest.",
        hf_repo="transcreval-test/unhashed",
        hf_files=("model.safetensors", "model.bin"),
    )
    register_weights(entry, overwrite=True)
    yield entry
    unregister_weights(entry.name)


def _leftovers(directory):
    return sorted(p.name for p in directory.rglob("*") if p.name.endswith(".lock"))


def test_fetch_copy_and_download_leave_no_lock_file(env, monkeypatch):
    """`transcreval weights fetch` left `.<file>.lock` beside the weights (copied to clusters with them)."""
    dest = env / "bundle"
    fetch("lpips-alex-lin-v0.1", dest)  # a copy of the lpips wheel's file
    assert (dest / "lpips-v0.1-alex.pth").is_file() and _leftovers(dest) == []
    import hashlib

    entry = WeightsEntry(
        name="test-lock-blob",
        filename="lock-blob.bin",
        sha256=hashlib.sha256(BLOB).hexdigest(),
        size=len(BLOB),
        urls=(),
        licence="test",
    )
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "0")
    with serve({"/b.bin": BLOB}) as srv:
        register_weights(dataclasses.replace(entry, urls=(srv.url("/b.bin"),)), overwrite=True)
        try:
            got = fetch("test-lock-blob", dest)
            cached = resolve("test-lock-blob")  # a download into the user cache
        finally:
            unregister_weights("test-lock-blob")
    assert got.read_bytes() == BLOB and cached.source == "download"
    assert _leftovers(dest) == [] and _leftovers(env / "cache") == []


def test_file_lock_excludes_other_holders_and_removes_its_file(tmp_path):
    lock = tmp_path / ".x.lock"
    inside, most, order = [0], [0], []
    guard = threading.Lock()

    def worker(i: int) -> None:
        with file_lock(lock, timeout=30):
            with guard:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.02)
            order.append(i)
            with guard:
                inside[0] -= 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1 and sorted(order) == list(range(6))
    assert not lock.exists()


def test_file_lock_times_out_while_held(tmp_path):
    from filelock import Timeout

    lock = tmp_path / ".y.lock"
    with file_lock(lock, timeout=5):
        with pytest.raises(Timeout), file_lock(lock, timeout=0.2):
            pass
        assert lock.exists()
    assert not lock.exists()


def test_the_hugging_face_cache_is_searched(env, unhashed):
    repo = env / "hf" / "models--transcreval-test--unhashed"
    snap = repo / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    (snap / "model.bin").write_bytes(BLOB)
    with pytest.warns(UnverifiedWeightsWarning):
        got = resolve(unhashed.name)
    assert (got.source, got.path) == ("huggingface cache", snap / "model.bin")
    (snap / "model.safetensors").write_bytes(BLOB + b"!")  # the preferred name, as open_clip's
    with pytest.warns(UnverifiedWeightsWarning):
        assert resolve(unhashed.name).path == snap / "model.safetensors"


def test_an_unverified_file_is_warned_about_once_per_file_and_process(env, unhashed, monkeypatch):
    d = env / "weights"
    d.mkdir()
    (d / unhashed.filename).write_bytes(BLOB)
    monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(d))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        for _ in range(3):
            assert resolve(unhashed.name).source == "TRANSCREVAL_WEIGHTS_DIR"
    assert sum(issubclass(w.category, UnverifiedWeightsWarning) for w in rec) == 1
    (d / unhashed.filename).write_bytes(BLOB + b"another file")  # new content: said again
    with pytest.warns(UnverifiedWeightsWarning):
        resolve(unhashed.name)


def test_dinov2_warns_once_not_on_every_update(env, monkeypatch):
    """Item 13: the unverified-weights warning of DINOv2 came on every update."""
    import shutil

    from tests._helpers.model_weights import dinov2_file, poster_like
    from transcreval import DINOv2Distance

    d = env / "weights"
    d.mkdir()
    shutil.copyfile(dinov2_file("hub"), d / "dinov2_vits14_pretrain.pth")
    monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(d))
    imgs = list(poster_like(2, 40, 40, seed=1))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m = DINOv2Distance()
        m.update(imgs, imgs[::-1])
        m.update(imgs, imgs[::-1])
        DINOv2Distance().update(imgs, imgs[::-1])
    assert sum(issubclass(w.category, UnverifiedWeightsWarning) for w in rec) == 1
