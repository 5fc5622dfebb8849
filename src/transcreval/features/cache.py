"""A content-addressed feature cache on disk (one SQLite file).

Key: sha256 of (cache format, the image's content digest, the extractor identity: name, backend,
weights sha256s, preprocessing name, dtype, outputs). So a rerun, or another system evaluated
against the same reference images, skips every image already seen, and nothing computed with
other weights or preprocessing can be served.

Values: the image's features serialised with safetensors, stored with their length and sha256.
A row whose bytes do not match (corrupt, truncated) is deleted on read and counted in
``stats["corrupt"]``; the caller recomputes it. Writes are SQLite transactions (atomic); the
database runs in WAL mode with a busy timeout, so several processes can read and write at once
without losing rows. A file that is not a readable database is moved aside (``.corrupt-*``) and
a fresh one started.

Keep the file on a local disk: SQLite's locking is unreliable on network file systems.
Features computed on different devices (CPU vs GPU) can differ in the last bits; the key does not
include the device, so a mixed cache mixes them (within float tolerance).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

log = logging.getLogger("transcreval.features")

FORMAT = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS features (
    key TEXT PRIMARY KEY,
    extractor TEXT NOT NULL,
    nbytes INTEGER NOT NULL,
    digest TEXT NOT NULL,
    data BLOB NOT NULL,
    created REAL NOT NULL
)
"""


def _is_corruption(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text or "file is encrypted" in text


class FeatureCache:
    """Per-image features on disk, shared by runs and processes.

    Args:
        path: the SQLite file (default ``<TRANSCREVAL_CACHE>/features.sqlite``).
        timeout: seconds a writer waits for another process's transaction.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float = 120.0) -> None:
        if path is None:
            from transcreval.weights.resolve import cache_root

            path = cache_root() / "features.sqlite"
        self.path = Path(path).expanduser()
        self.timeout = float(timeout)
        self.stats = {"hits": 0, "misses": 0, "corrupt": 0, "writes": 0}
        self._local = threading.local()

    # ------------------------------------------------------------------ connection
    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), timeout=self.timeout, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(_SCHEMA)
        return conn

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None or getattr(self._local, "pid", None) != os.getpid():
            try:
                conn = self._open()
            except sqlite3.DatabaseError as exc:
                if not _is_corruption(exc):
                    raise
                self._move_aside(exc)
                conn = self._open()
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def _move_aside(self, exc: Exception) -> None:
        aside = self.path.with_name(f"{self.path.name}.corrupt-{os.getpid()}-{int(time.time())}")
        log.warning("feature cache %s is not a readable database (%s); moved to %s", self.path, exc, aside)
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.replace(f"{self.path}{suffix}", f"{aside}{suffix}")
        self._local.conn = None

    def _retry(self, fn: Any) -> Any:
        """Run ``fn(conn)``; a corrupt file is moved aside once and the call retried on a fresh one."""
        try:
            return fn(self._conn())
        except sqlite3.DatabaseError as exc:
            if not _is_corruption(exc):
                raise
            self.close()
            self._move_aside(exc)
            return fn(self._conn())

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            with contextlib.suppress(sqlite3.Error):
                conn.close()
        self._local.conn = None

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "timeout": self.timeout, "stats": dict(self.stats)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._local = threading.local()

    # ------------------------------------------------------------------ keys and values
    @staticmethod
    def key(image_digest: str, extractor_identity: str) -> str:
        """The row key of one image's features under one extractor identity digest."""
        return hashlib.sha256(f"transcreval-features|{FORMAT}|{image_digest}|{extractor_identity}".encode()).hexdigest()

    @staticmethod
    def _encode(item: Mapping[str, torch.Tensor]) -> bytes:
        from safetensors.torch import save

        return save({k: v.detach().to("cpu").contiguous().clone() for k, v in item.items()})

    @staticmethod
    def _decode(blob: bytes) -> dict[str, torch.Tensor]:
        from safetensors.torch import load

        return load(blob)

    # ------------------------------------------------------------------ API
    def get_many(self, keys: list[str], *, device: Any = None) -> dict[str, dict[str, torch.Tensor]]:
        """The stored features of every key present and intact; bad rows are deleted and omitted."""
        if not keys:
            return {}

        def read(conn: sqlite3.Connection) -> list[tuple[str, bytes, int, str]]:
            rows: list[tuple[str, bytes, int, str]] = []
            unique = list(dict.fromkeys(keys))
            for i in range(0, len(unique), 500):
                part = unique[i : i + 500]
                marks = ",".join("?" * len(part))
                rows += conn.execute(
                    f"SELECT key, data, nbytes, digest FROM features WHERE key IN ({marks})", part
                ).fetchall()
            return rows

        out: dict[str, dict[str, torch.Tensor]] = {}
        bad = []
        for key, blob, nbytes, digest in self._retry(read):
            blob = bytes(blob)
            ok = len(blob) == nbytes and hashlib.sha256(blob).hexdigest() == digest
            if ok:
                try:
                    item = self._decode(blob)
                except Exception:
                    ok = False
            if not ok:
                bad.append(key)
                continue
            out[key] = {k: v.to(device) for k, v in item.items()} if device is not None else item
        if bad:
            self.stats["corrupt"] += len(bad)
            log.warning("feature cache %s: %d corrupt entries dropped (they are recomputed)", self.path, len(bad))
            self._retry(lambda c: c.executemany("DELETE FROM features WHERE key = ?", [(k,) for k in bad]))
        self.stats["hits"] += len(out)
        self.stats["misses"] += len(set(keys)) - len(out)
        return out

    def put_many(self, items: Mapping[str, Mapping[str, torch.Tensor]], *, extractor: str = "") -> None:
        """Store features (one transaction: all rows or none)."""
        if not items:
            return
        now = time.time()
        rows = []
        for key, item in items.items():
            blob = self._encode(item)
            rows.append((key, extractor, len(blob), hashlib.sha256(blob).hexdigest(), sqlite3.Binary(blob), now))

        def write(conn: sqlite3.Connection) -> None:
            deadline = time.monotonic() + self.timeout
            while True:
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    break
                except sqlite3.OperationalError as exc:  # locked beyond busy_timeout: keep waiting until ours
                    if "locked" not in str(exc).lower() or time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
            try:
                conn.executemany(
                    "INSERT OR REPLACE INTO features (key, extractor, nbytes, digest, data, created) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    rows,
                )
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise

        self._retry(write)
        self.stats["writes"] += len(rows)

    def __len__(self) -> int:
        return int(self._retry(lambda c: c.execute("SELECT COUNT(*) FROM features").fetchone()[0]))

    def __contains__(self, key: object) -> bool:
        return bool(self._retry(lambda c: c.execute("SELECT 1 FROM features WHERE key = ?", (key,)).fetchone()))

    def clear(self) -> None:
        """Delete every entry."""
        self._retry(lambda c: c.execute("DELETE FROM features"))

    def __repr__(self) -> str:
        return f"FeatureCache({str(self.path)!r})"
