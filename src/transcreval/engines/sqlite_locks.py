"""Waiting for another process's SQLite lock, shared by the judge cache and the feature cache.

SQLite's busy timeout does not cover every wait. When a connection holds a read lock and needs
the write lock while another connection holds the reserved lock (the first step of a write in
rollback-journal mode), SQLite answers ``database is locked`` at once instead of waiting, since
waiting could deadlock. Two processes opening a new cache file at the same moment meet exactly
this: one creates the tables while the other switches the file to WAL mode. The helpers here
retry such a statement, each try a fresh one (no lock kept between tries), until ``timeout``
seconds have passed, then let the last error through.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["begin_immediate", "is_lock_error", "use_wal", "wait_for_lock"]

T = TypeVar("T")
#: the first pause between two tries (seconds); it doubles up to MAX_PAUSE
FIRST_PAUSE = 0.01
MAX_PAUSE = 0.2


def is_lock_error(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite's "locked" or "busy" answer (another connection holds a lock)."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def wait_for_lock(fn: Callable[[], T], timeout: float) -> T:
    """``fn()``, tried again while it fails with a lock error until ``timeout`` seconds have
    passed (the last try at the deadline). A try where SQLite's own busy handler waits can
    end past the deadline: at most by that connection's busy timeout."""
    deadline = time.monotonic() + max(float(timeout), 0.0)
    pause = FIRST_PAUSE
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            left = deadline - time.monotonic()
            if not is_lock_error(exc) or left <= 0:
                raise
        time.sleep(min(pause, left))
        pause = min(pause * 2, MAX_PAUSE)


def use_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """Switch the database of ``conn`` (autocommit) to WAL mode, waiting out other writers."""
    wait_for_lock(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone(), timeout)


def begin_immediate(conn: sqlite3.Connection, timeout: float) -> None:
    """Start a write transaction on ``conn`` (autocommit), waiting out other writers. An
    interrupt (Ctrl-C) arriving just after SQLite granted the write lock rolls it back: the
    lock is never left held by a transaction nobody will finish."""
    try:
        wait_for_lock(lambda: conn.execute("BEGIN IMMEDIATE"), timeout)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
