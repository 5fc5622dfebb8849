"""Waiting out another process's SQLite lock, where SQLite's busy timeout does not wait.

A connection that switches a rollback-journal file to WAL while another connection holds the
reserved lock (creating the tables of a new cache) got "database is locked" at once: two runs
starting on one new cache file at the same moment failed now and then (a CI run did). Each cache
must wait instead, up to its timeout.
"""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from transcreval.engines.sqlite_locks import begin_immediate, is_lock_error, use_wal, wait_for_lock
from transcreval.errors import FeatureCacheError, JudgeCacheError
from transcreval.features import FeatureCache
from transcreval.judge import JudgeCache

HOLD = 0.4  # seconds the other connection keeps its lock


def _rollback_journal(path) -> None:
    con = sqlite3.connect(path, isolation_level=None)
    assert con.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
    con.close()


def _hold_reserved(path, seconds: float) -> threading.Timer:
    """Another connection takes the reserved lock now and gives it back after ``seconds``."""
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    timer = threading.Timer(seconds, lambda: (holder.execute("ROLLBACK"), holder.close()))
    timer.start()
    return timer


def _new_feature_cache(path):
    FeatureCache(path).check().close()


def _new_judge_cache(path):
    JudgeCache(path).close()


CACHES = {
    "features": (_new_feature_cache, lambda p, t: FeatureCache(p, timeout=t).check(), FeatureCacheError),
    "judge": (_new_judge_cache, lambda p, t: JudgeCache(p, busy_timeout=t), JudgeCacheError),
}


@pytest.mark.parametrize("kind", sorted(CACHES))
def test_opening_waits_for_a_writer_of_a_rollback_journal_file(kind, tmp_path):
    make, open_, _ = CACHES[kind]
    path = tmp_path / "c.sqlite"
    make(path)
    _rollback_journal(path)  # as a file is while another process creates its tables
    timer = _hold_reserved(path, HOLD)
    start = time.monotonic()
    cache = open_(path, 30.0)
    waited = time.monotonic() - start
    timer.join()
    assert waited >= HOLD * 0.5  # it did wait (SQLite alone answers "locked" at once)
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()
    cache.close()


@pytest.mark.parametrize("kind", sorted(CACHES))
def test_a_lock_held_past_the_timeout_is_a_clear_error(kind, tmp_path):
    make, open_, error = CACHES[kind]
    path = tmp_path / "c.sqlite"
    make(path)
    _rollback_journal(path)
    timer = _hold_reserved(path, 5.0)
    try:
        start = time.monotonic()
        with pytest.raises(error, match=r"locked by another process \(waited 0.3 s"):
            open_(path, 0.3)
        waited = time.monotonic() - start
        assert 0.28 <= waited < 4.0  # waited its whole timeout, and gave up then, not at the holder's release
    finally:
        timer.join()


def test_begin_immediate_waits_for_a_writer(tmp_path):
    path = tmp_path / "c.sqlite"
    con = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    use_wal(con, 1.0)
    con.execute("CREATE TABLE t (x)")
    other = sqlite3.connect(path, isolation_level=None, timeout=0)  # no busy handler of its own
    timer = _hold_reserved(path, HOLD)
    begin_immediate(other, 30.0)
    other.execute("INSERT INTO t VALUES (1)")
    other.execute("COMMIT")
    timer.join()
    assert con.execute("SELECT x FROM t").fetchall() == [(1,)]


def test_wait_for_lock_retries_only_lock_errors_and_only_until_the_timeout():
    calls = []

    def locked_twice():
        calls.append(1)
        if len(calls) < 3:
            raise sqlite3.OperationalError("database is locked")
        return "done"

    assert wait_for_lock(locked_twice, 10.0) == "done" and len(calls) == 3

    def other_error():
        calls.append(1)
        raise sqlite3.OperationalError("no such table: t")

    calls.clear()
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        wait_for_lock(other_error, 10.0)
    assert len(calls) == 1  # not a lock: raised at once

    def always_locked():
        calls.append(1)
        raise sqlite3.OperationalError("database is busy")

    calls.clear()
    start = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="busy"):
        wait_for_lock(always_locked, 0.2)
    assert 0.2 <= time.monotonic() - start < 2.0 and len(calls) >= 2  # the last try at the deadline
    calls.clear()
    with pytest.raises(sqlite3.OperationalError):
        wait_for_lock(always_locked, 0)
    assert len(calls) == 1  # timeout 0: one try


def test_is_lock_error():
    assert is_lock_error(sqlite3.OperationalError("database is locked"))
    assert is_lock_error(sqlite3.OperationalError("database table is locked"))
    assert not is_lock_error(sqlite3.OperationalError("disk I/O error"))
    assert not is_lock_error(sqlite3.DatabaseError("database is locked"))  # not an OperationalError
    assert not is_lock_error(ValueError("locked"))


def _granted_then_interrupted(fn, timeout):
    fn()  # SQLite grants the write lock...
    raise KeyboardInterrupt  # ...and Ctrl-C arrives before the caller gets it


def _free_for_writers(path) -> bool:
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        other.close()


def test_an_interrupt_just_after_begin_leaves_no_write_lock_feature_cache(tmp_path, monkeypatch):
    import torch

    import transcreval.engines.sqlite_locks as locks

    cache = FeatureCache(tmp_path / "f.sqlite").check()
    monkeypatch.setattr(locks, "wait_for_lock", _granted_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        cache.put_many({"k": {"v": torch.zeros(3)}}, extractor="t")
    assert _free_for_writers(tmp_path / "f.sqlite")
    monkeypatch.undo()
    cache.put_many({"k": {"v": torch.zeros(3)}}, extractor="t")  # the same connection writes again
    assert len(FeatureCache(tmp_path / "f.sqlite")) == 1


def test_an_interrupt_just_after_begin_leaves_no_write_lock_judge_cache(tmp_path, monkeypatch):
    import transcreval.engines.sqlite_locks as locks

    path = tmp_path / "j.sqlite"
    cache = JudgeCache(path)
    rec = {"backend": "b", "model": "m", "template": {"id": "t", "version": "1"}}
    cache.put("a", rec, "x", {})
    monkeypatch.setattr(locks, "wait_for_lock", _granted_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        cache.prune(model="m")
    assert _free_for_writers(path)
    monkeypatch.undo()
    assert cache.put("b", rec, "y", {}) and len(JudgeCache(path)) == 2  # committed, not inside a stale transaction


@pytest.mark.parametrize("kind", sorted(CACHES))
def test_a_read_only_open_under_a_writers_lock_is_an_error_not_an_immutable_read(kind, tmp_path):
    """mode=ro failing because a writer holds the file fell back to immutable=1 (meant for files
    in read-only directories), which reads a file in the middle of a write as if nobody wrote."""
    make, _, error = CACHES[kind]
    path = tmp_path / "c.sqlite"
    make(path)
    _rollback_journal(path)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(error, match="locked"):
            if kind == "features":
                FeatureCache(path, mode="read-only", timeout=0.3).check()
            else:
                JudgeCache(path, "read-only", busy_timeout=0.3)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    if kind == "features":  # once the writer is done, it opens
        FeatureCache(path, mode="read-only").check().close()
    else:
        JudgeCache(path, "read-only").close()
