"""The judge response cache: one SQLite file (WAL), one row per answered call.

Each row holds the key (:mod:`transcreval.engines.judge.keys`), the request without pixels, the raw
answer text and metadata (the model name the endpoint reported, finish reason, system
fingerprint, token usage). Only answers that arrived whole (status "ok") are stored: errors,
refusals, timeouts and truncated answers never are, so a rerun asks again. Parsing happens on
read, so a parser fix needs no new calls.

Durability: every answer is committed on its own as soon as it arrives. SQLite's WAL journal
makes a commit survive the death of the process (SIGKILL included) once ``commit`` returns,
and a kill in the middle of a write leaves the file consistent. Several processes (one per
rank) may share one file: writers wait for each other (``busy_timeout``).

Modes: ``"read-write"`` (read, and store new answers), ``"read-only"`` (never writes; the
file must exist) and ``"off"`` (no file at all).

A file that is not a judge cache (another SQLite database, a file of another schema version) is
refused before anything is written to it; SQLite errors (a corrupt page, a lock held too long)
become :class:`~transcreval.errors.JudgeCacheError` naming the file.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from transcreval._version import __version__
from transcreval.engines.cache_mode import cache_mode
from transcreval.engines.judge.cache_maintenance import CacheMaintenance
from transcreval.engines.sqlite_locks import begin_immediate, is_lock_error, use_wal
from transcreval.errors import InputError, JudgeCacheError

CacheMode = Literal["read-write", "read-only", "off"]
CACHE_SCHEMA = "1"
__all__ = ["CacheMode", "CachedAnswer", "JudgeCache", "normalise_mode"]

_SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    template_id TEXT NOT NULL,
    template_version TEXT NOT NULL,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    meta TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS replies_model ON replies (backend, model);
CREATE INDEX IF NOT EXISTS replies_template ON replies (template_id, template_version);
"""


def normalise_mode(mode: str) -> CacheMode:
    """``"read-write"``, ``"read-only"`` or ``"off"`` (underscores and rw/ro accepted)."""
    return cache_mode(mode, ("read-write", "read-only", "off"), "cache mode")  # type: ignore[return-value]


@dataclass(frozen=True)
class CachedAnswer:
    """A stored answer: the raw text and its metadata."""

    key: str
    text: str
    meta: Mapping[str, Any]


class JudgeCache(CacheMaintenance):
    """A judge response cache in one SQLite file.

    Args:
        path: the SQLite file (created in read-write mode, with its parent directory).
        mode: "read-write" (default), "read-only" or "off".
        create: in read-write mode, create the file when it does not exist (False: an error).
        busy_timeout: seconds to wait for another process's write lock before giving up.

    Thread-safe; safe to share between processes; picklable (only the path, mode and timeout
    travel).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        mode: str = "read-write",
        *,
        create: bool = True,
        busy_timeout: float = 60.0,
    ) -> None:
        self.path = Path(path).expanduser()
        self.mode: CacheMode = normalise_mode(mode)
        if self.mode == "off":
            raise InputError("JudgeCache(mode='off') makes no sense: pass cache=None to a judge instead")
        if not isinstance(busy_timeout, (int, float)) or isinstance(busy_timeout, bool) or busy_timeout < 0:
            raise InputError(f"busy_timeout must be a number of seconds >= 0, got {busy_timeout!r}")
        self.create = bool(create)
        self.busy_timeout = float(busy_timeout)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self._connect()

    # ------------------------------------------------------------------ connection
    @contextmanager
    def _sqlite_errors(self) -> Iterator[None]:
        """SQLite's errors as JudgeCacheError naming the file (a corrupt page, a lock held too long)."""
        try:
            yield
        except sqlite3.OperationalError as e:
            if is_lock_error(e):
                raise JudgeCacheError(
                    f"the judge cache {self.path} is locked by another process (waited {self.busy_timeout:g} s): "
                    "a run writing to it, or a stale lock; retry when it has finished, or pass a longer "
                    "busy_timeout"
                ) from e
            raise JudgeCacheError(f"{self.path} is not a usable judge cache (SQLite says: {e})") from e
        except sqlite3.DatabaseError as e:
            raise JudgeCacheError(f"{self.path} is not a usable judge cache (SQLite says: {e})") from e

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        if self.mode == "read-only":
            if not self.path.is_file():
                raise JudgeCacheError(
                    f"no judge cache at {self.path}: a read-only cache (and ReplayJudge) needs an existing "
                    "file written by a read-write run"
                )
            conn = self._open_read_only()
            try:
                self._check_schema(conn)
            except BaseException:
                conn.close()
                raise
        else:
            conn = self._open_read_write()
        self._conn, self._pid = conn, os.getpid()
        return conn

    def _open_read_write(self) -> sqlite3.Connection:
        if not self.path.is_file():
            if not self.create or self.path.exists():
                what = "is not a file" if self.path.exists() else "does not exist"
                raise JudgeCacheError(f"no judge cache at {self.path}: the path {what}")
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn: sqlite3.Connection | None = None
        try:
            with self._sqlite_errors():
                conn = sqlite3.connect(
                    self.path, timeout=self.busy_timeout, check_same_thread=False, isolation_level=None
                )
                conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")
                # look before writing anything: a file that is not ours is left exactly as it is
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                if tables:
                    self._check_schema(conn, tables)
                use_wal(conn, self.busy_timeout)  # waits out a process creating the tables
                conn.execute("PRAGMA synchronous=NORMAL")
                if not tables:
                    with self._tx(conn, self.busy_timeout):
                        for stmt in _SCHEMA_SQL.strip().split(";"):
                            if stmt.strip():
                                conn.execute(stmt)
                        conn.execute(
                            "INSERT OR IGNORE INTO meta (name, value) VALUES ('schema', ?), ('created_by', ?)",
                            (CACHE_SCHEMA, f"transcreval {__version__}"),
                        )
                self._check_schema(conn)
            return conn
        except BaseException:
            if conn is not None:
                conn.close()
            raise

    def _open_read_only(self) -> sqlite3.Connection:
        uri = f"file:{quote(str(self.path.resolve()))}"
        try:
            conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError as e:
            if is_lock_error(e):  # a writer holds the file: never read it as immutable mid-write
                with self._sqlite_errors():
                    raise
            # a WAL file in a read-only directory (a committed fixture): read it as immutable
            try:
                conn = sqlite3.connect(f"{uri}?immutable=1", uri=True, check_same_thread=False, isolation_level=None)
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return conn
            except sqlite3.DatabaseError as e:
                raise JudgeCacheError(f"cannot open the judge cache {self.path} read-only ({e})") from e
        except sqlite3.DatabaseError as e:
            raise JudgeCacheError(f"{self.path} is not a usable judge cache (SQLite says: {e})") from e

    def _check_schema(self, conn: sqlite3.Connection, tables: set[str] | None = None) -> None:
        """JudgeCacheError unless the database holds a judge cache of this schema version."""
        with self._sqlite_errors():
            if tables is None:
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            row = conn.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone() if "meta" in tables else None
        if row is None or "replies" not in tables:
            found = ", ".join(sorted(tables)) or "none"
            raise JudgeCacheError(
                f"{self.path} is not a transcreval judge cache (an SQLite database with the tables: {found}); "
                "it was left untouched: pass another path"
            )
        if row[0] != CACHE_SCHEMA:
            raise JudgeCacheError(
                f"{self.path} has judge-cache schema {row[0]!r}; this transcreval reads schema {CACHE_SCHEMA!r} "
                "(the file was left untouched)"
            )

    class _tx:
        def __init__(self, conn: sqlite3.Connection, timeout: float) -> None:
            self.conn, self.timeout = conn, timeout

        def __enter__(self) -> None:
            begin_immediate(self.conn, self.timeout)

        def __exit__(self, exc_type: Any, *_: Any) -> None:
            self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")

    def _write(self, conn: sqlite3.Connection) -> JudgeCache._tx:
        return self._tx(conn, self.busy_timeout)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __enter__(self) -> JudgeCache:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        return {"path": str(self.path), "mode": self.mode, "busy_timeout": self.busy_timeout}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["mode"], busy_timeout=state.get("busy_timeout", 60.0))  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.path)!r}, mode={self.mode!r})"

    # ------------------------------------------------------------------ reading
    def get(self, key: str) -> CachedAnswer | None:
        return self.get_many([key]).get(key)

    def get_many(self, keys: Iterable[str]) -> dict[str, CachedAnswer]:
        """The stored answers among ``keys`` (missing keys are simply absent)."""
        wanted = list(dict.fromkeys(keys))
        out: dict[str, CachedAnswer] = {}
        with self._lock, self._sqlite_errors():
            conn = self._connect()
            for i in range(0, len(wanted), 500):
                chunk = wanted[i : i + 500]
                marks = ",".join("?" * len(chunk))
                for key, text, meta in conn.execute(
                    f"SELECT key, text, meta FROM replies WHERE key IN ({marks})", chunk
                ):
                    out[key] = CachedAnswer(key, text, json.loads(meta))
        return out

    def __len__(self) -> int:
        with self._lock, self._sqlite_errors():
            return int(self._connect().execute("SELECT count(*) FROM replies").fetchone()[0])

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    # ------------------------------------------------------------------ writing
    def put(self, key: str, record: Mapping[str, Any], text: str, meta: Mapping[str, Any]) -> bool:
        """Store one answer (committed before returning). No-op in read-only mode.

        Returns True when a new row was written (False if the key was already there).
        """
        if self.mode != "read-write":
            return False
        template = record.get("template", {})
        row = (
            key,
            str(record.get("backend", "")),
            str(record.get("model", "")),
            str(template.get("id", "")),
            str(template.get("version", "")),
            json.dumps(record, sort_keys=True, ensure_ascii=False),
            text,
            json.dumps(dict(meta), sort_keys=True, ensure_ascii=False),
            time.time(),
        )
        with self._lock, self._sqlite_errors():
            conn = self._connect()
            cur = conn.execute("INSERT OR IGNORE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            return cur.rowcount == 1
