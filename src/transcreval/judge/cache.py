"""The judge response cache: one SQLite file (WAL), one row per answered call.

Each row holds the key (:mod:`transcreval.judge.keys`), the request without pixels, the raw
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
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from transcreval._version import __version__
from transcreval.errors import InputError, JudgeCacheError

CacheMode = Literal["read-write", "read-only", "off"]
CACHE_SCHEMA = "1"
_MODES = {
    "read-write": "read-write",
    "read_write": "read-write",
    "rw": "read-write",
    "read-only": "read-only",
    "read_only": "read-only",
    "ro": "read-only",
    "off": "off",
}

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
    m = _MODES.get(str(mode).strip().lower())
    if m is None:
        raise InputError(f"cache mode must be 'read-write', 'read-only' or 'off', got {mode!r}")
    return m  # type: ignore[return-value]


@dataclass(frozen=True)
class CachedAnswer:
    """A stored answer: the raw text and its metadata."""

    key: str
    text: str
    meta: Mapping[str, Any]


class JudgeCache:
    """A judge response cache in one SQLite file.

    Args:
        path: the SQLite file (created in read-write mode, with its parent directory).
        mode: "read-write" (default), "read-only" or "off".

    Thread-safe; safe to share between processes; picklable (only the path and mode travel).
    """

    def __init__(self, path: str | os.PathLike[str], mode: str = "read-write") -> None:
        self.path = Path(path).expanduser()
        self.mode: CacheMode = normalise_mode(mode)
        if self.mode == "off":
            raise InputError("JudgeCache(mode='off') makes no sense: pass cache=None to a judge instead")
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self._connect()

    # ------------------------------------------------------------------ connection
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
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                conn = sqlite3.connect(self.path, timeout=60.0, check_same_thread=False, isolation_level=None)
                conn.execute("PRAGMA busy_timeout=60000")
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                with self._tx(conn):
                    for stmt in _SCHEMA_SQL.strip().split(";"):
                        if stmt.strip():
                            conn.execute(stmt)
                    conn.execute(
                        "INSERT OR IGNORE INTO meta (name, value) VALUES ('schema', ?), ('created_by', ?)",
                        (CACHE_SCHEMA, f"transcreval {__version__}"),
                    )
            except sqlite3.DatabaseError as e:
                raise JudgeCacheError(f"{self.path} is not a usable judge cache (SQLite says: {e})") from e
        self._check_schema(conn)
        self._conn, self._pid = conn, os.getpid()
        return conn

    def _open_read_only(self) -> sqlite3.Connection:
        uri = f"file:{quote(str(self.path.resolve()))}"
        try:
            conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA busy_timeout=60000")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            # a WAL file in a read-only directory (a committed fixture): read it as immutable
            try:
                conn = sqlite3.connect(f"{uri}?immutable=1", uri=True, check_same_thread=False, isolation_level=None)
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return conn
            except sqlite3.DatabaseError as e:
                raise JudgeCacheError(f"cannot open the judge cache {self.path} read-only ({e})") from e
        except sqlite3.DatabaseError as e:
            raise JudgeCacheError(f"{self.path} is not a usable judge cache (SQLite says: {e})") from e

    def _check_schema(self, conn: sqlite3.Connection) -> None:
        try:
            row = conn.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone()
        except sqlite3.DatabaseError as e:
            raise JudgeCacheError(f"{self.path} is not a transcreval judge cache ({e})") from e
        if row is None or row[0] != CACHE_SCHEMA:
            raise JudgeCacheError(
                f"{self.path} has judge-cache schema {row[0] if row else 'none'!r}; this transcreval reads "
                f"schema {CACHE_SCHEMA!r}"
            )

    class _tx:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def __enter__(self) -> None:
            self.conn.execute("BEGIN IMMEDIATE")

        def __exit__(self, exc_type: Any, *_: Any) -> None:
            self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")

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
        return {"path": str(self.path), "mode": self.mode}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["mode"])  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.path)!r}, mode={self.mode!r})"

    # ------------------------------------------------------------------ reading
    def get(self, key: str) -> CachedAnswer | None:
        return self.get_many([key]).get(key)

    def get_many(self, keys: Iterable[str]) -> dict[str, CachedAnswer]:
        """The stored answers among ``keys`` (missing keys are simply absent)."""
        wanted = list(dict.fromkeys(keys))
        out: dict[str, CachedAnswer] = {}
        with self._lock:
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
        with self._lock:
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
        with self._lock:
            conn = self._connect()
            cur = conn.execute("INSERT OR IGNORE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            return cur.rowcount == 1

    # ------------------------------------------------------------------ maintenance
    def models(self) -> list[tuple[str, str]]:
        """The distinct (backend, model) pairs stored."""
        with self._lock:
            rows = self._connect().execute("SELECT DISTINCT backend, model FROM replies ORDER BY 1, 2").fetchall()
        return [(str(b), str(m)) for b, m in rows]

    def setups(self) -> list[tuple[str, str, dict[str, Any], str | None]]:
        """The distinct (backend, model, decoding parameters, namespace) the stored answers used."""
        with self._lock:
            rows = (
                self._connect()
                .execute(
                    "SELECT DISTINCT backend, model, json_extract(request, '$.params'), "
                    "json_extract(request, '$.namespace') FROM replies ORDER BY 1, 2, 3, 4"
                )
                .fetchall()
            )
        return [(str(b), str(m), json.loads(p) if p else {}, ns) for b, m, p, ns in rows]

    def stats(self) -> dict[str, Any]:
        """Counts per model and per template, token totals, size and age of the file."""
        with self._lock:
            conn = self._connect()
            n, first, last = conn.execute("SELECT count(*), min(created), max(created) FROM replies").fetchone()
            per_model: dict[str, dict[str, int]] = {}
            for backend, model, meta in conn.execute("SELECT backend, model, meta FROM replies"):
                usage = (json.loads(meta).get("usage") or {}) if meta else {}
                slot = per_model.setdefault(
                    f"{backend}:{model}", {"answers": 0, "prompt_tokens": 0, "completion_tokens": 0}
                )
                slot["answers"] += 1
                slot["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
                slot["completion_tokens"] += int(usage.get("completion_tokens") or 0)
            per_template = {
                f"{t}@{v}": int(c)
                for t, v, c in conn.execute(
                    "SELECT template_id, template_version, count(*) FROM replies GROUP BY 1, 2 ORDER BY 1, 2"
                )
            }
        size = sum(p.stat().st_size for p in self._files() if p.exists())
        return {
            "path": str(self.path),
            "answers": int(n),
            "bytes": size,
            "oldest": first,
            "newest": last,
            "models": per_model,
            "templates": per_template,
        }

    def _files(self) -> list[Path]:
        return [self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")]

    def rows(self) -> Iterator[dict[str, Any]]:
        """Every stored answer as a dict (oldest first), for export."""
        with self._lock:
            rows = (
                self._connect()
                .execute(
                    "SELECT key, backend, model, template_id, template_version, request, text, meta, created "
                    "FROM replies ORDER BY created, key"
                )
                .fetchall()
            )
        for key, backend, model, tid, tver, request, text, meta, created in rows:
            yield {
                "key": key,
                "backend": backend,
                "model": model,
                "template": f"{tid}@{tver}",
                "created": created,
                "request": json.loads(request),
                "text": text,
                "meta": json.loads(meta),
            }

    def prune(
        self,
        *,
        older_than_days: float | None = None,
        model: str | None = None,
        template: str | None = None,
        dry_run: bool = False,
    ) -> int:
        """Delete the answers matching every given filter; returns how many match.

        ``template`` is an id (all versions) or ``id@version``. At least one filter is needed.
        """
        if self.mode != "read-write" and not dry_run:
            raise JudgeCacheError("prune needs the cache in read-write mode")
        where: list[str] = []
        args: list[Any] = []
        if older_than_days is not None:
            if older_than_days < 0:
                raise InputError("older_than_days must be >= 0")
            where.append("created < ?")
            args.append(time.time() - older_than_days * 86400.0)
        if model is not None:
            where.append("model = ?")
            args.append(model)
        if template is not None:
            tid, _, tver = template.partition("@")
            where.append("template_id = ?")
            args.append(tid)
            if tver:
                where.append("template_version = ?")
                args.append(tver)
        if not where:
            raise InputError("prune needs at least one filter (older_than_days, model or template)")
        cond = " AND ".join(where)
        with self._lock:
            conn = self._connect()
            n = int(conn.execute(f"SELECT count(*) FROM replies WHERE {cond}", args).fetchone()[0])
            if not dry_run and n:
                with self._tx(conn):
                    conn.execute(f"DELETE FROM replies WHERE {cond}", args)
                conn.execute("VACUUM")
        return n
