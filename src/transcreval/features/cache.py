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
a fresh one started; an SQLite database that is not a feature cache is refused and left as it
is (:mod:`transcreval.features.cache_db`).

Read-only mode (``FeatureCache(path, mode="read-only")``, e.g. a cache shipped on a read-only
mount): features found are used, nothing is ever written (new features are computed and not
stored, corrupt rows are skipped, not deleted).

Size: a row holds one image's features, which grow with the image's pixels (float32 LPIPS
features: about 39 bytes per pixel for alex, 488 for vgg, 134 for squeeze; 2.6 MB for a 256x256
image with alex, 128 MB at 512x512 with vgg). Nothing is evicted: :meth:`FeatureCache.nbytes`
tells the size, :meth:`FeatureCache.clear` empties it. An item larger than ``max_item_bytes``
(by default what SQLite accepts in a row, about 1 GB: VGG at 1080x1920 exceeds it) is not
stored: the caller gets its features all the same, ``stats["skipped"]`` counts it and one
warning says so.

Errors: a file that cannot be opened, read or written (a read-only place, a directory in the
way, a full disk) is a :class:`~transcreval.errors.FeatureCacheError` naming the file;
:meth:`FeatureCache.check` raises it up front. Extractors that meet one while computing keep
their features and warn instead (the cache only saves time).

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

from transcreval.engines.sqlite_locks import begin_immediate, is_lock_error
from transcreval.errors import FeatureCacheError
from transcreval.features.cache_db import FORMAT, is_corruption, normalise_mode, open_read_only, open_read_write
from transcreval.utils.warn import warn_user

if TYPE_CHECKING:
    import torch

log = logging.getLogger("transcreval.features")

# SQLite's default limit on the length of a string, BLOB or row (SQLITE_MAX_LENGTH), for Pythons
# whose sqlite3 connections cannot report theirs (Python < 3.11)
SQLITE_DEFAULT_MAX_LENGTH = 1_000_000_000
ROW_OVERHEAD = 4096  # room for the key, digest and other columns of a row


class FeatureCache:
    """Per-image features on disk, shared by runs and processes.

    Args:
        path: the SQLite file (default ``<TRANSCREVAL_CACHE>/features.sqlite``).
        mode: ``"read-write"`` (default) or ``"read-only"`` (never writes; the file must exist).
        timeout: seconds a writer waits for another process's transaction.
        max_item_bytes: the largest item (one image's features) to store; larger ones are
            computed but not stored (default: what SQLite accepts in one row, about 1 GB).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        mode: str = "read-write",
        timeout: float = 120.0,
        max_item_bytes: int | None = None,
    ) -> None:
        self.mode = normalise_mode(mode)
        if path is None:
            from transcreval.weights.resolve import cache_root

            path = cache_root() / "features.sqlite"
        if max_item_bytes is not None and (
            isinstance(max_item_bytes, bool) or not isinstance(max_item_bytes, int) or max_item_bytes < 1
        ):
            raise ValueError(f"max_item_bytes must be a positive integer or None, got {max_item_bytes!r}")
        self.path = Path(path).expanduser()
        self.timeout = float(timeout)
        self.max_item_bytes = max_item_bytes
        self.stats = {"hits": 0, "misses": 0, "corrupt": 0, "writes": 0, "skipped": 0}
        self._local = threading.local()
        self._warned_oversize = False

    # ------------------------------------------------------------------ connection
    def _error(self, action: str, exc: BaseException) -> FeatureCacheError:
        if is_lock_error(exc):
            return FeatureCacheError(
                f"feature cache {self.path} is locked by another process (waited {self.timeout:g} s to {action} "
                "it): a run writing to it, or a stale lock; retry when it has finished, or pass a longer timeout"
            )
        if self.read_only:
            return FeatureCacheError(f"feature cache {self.path} (read-only): cannot {action} it ({exc})")
        return FeatureCacheError(
            f"feature cache {self.path}: cannot {action} it ({type(exc).__name__}: {exc}). Pass a path on a "
            "writable local disk (feature_cache=...), or set TRANSCREVAL_CACHE to a writable directory (the "
            "default cache is $TRANSCREVAL_CACHE/features.sqlite), or run without it (feature_cache=None)"
        )

    @property
    def read_only(self) -> bool:
        return self.mode == "read-only"

    def _open(self) -> sqlite3.Connection:
        if self.read_only:
            return open_read_only(self.path, self.timeout)
        return open_read_write(self.path, self.timeout)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None or getattr(self._local, "pid", None) != os.getpid():
            try:
                try:
                    conn = self._open()
                except sqlite3.DatabaseError as exc:
                    if not is_corruption(exc) or self.read_only:
                        raise
                    self._move_aside(exc)
                    conn = self._open()
            except FeatureCacheError:
                raise
            except (sqlite3.Error, OSError) as exc:
                raise self._error("open", exc) from exc
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def _move_aside(self, exc: Exception) -> None:
        aside = self.path.with_name(f"{self.path.name}.corrupt-{os.getpid()}-{int(time.time())}")
        log.warning("feature cache %s is not a readable database (%s); moved to %s", self.path, exc, aside)
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.replace(f"{self.path}{suffix}", f"{aside}{suffix}")
        self._local.conn = None

    def _retry(self, fn: Any, action: str = "read") -> Any:
        """Run ``fn(conn)``; a corrupt file is moved aside once and the call retried on a fresh one.
        Any other database or file-system error is a FeatureCacheError naming the file."""
        try:
            try:
                return fn(self._conn())
            except sqlite3.DatabaseError as exc:
                if not is_corruption(exc) or self.read_only:
                    raise
                self.close()
                self._move_aside(exc)
                return fn(self._conn())
        except FeatureCacheError:
            raise
        except (sqlite3.Error, OSError) as exc:
            raise self._error(action, exc) from exc

    def check(self) -> FeatureCache:
        """Open the file now (creating it if needed, unless read-only); a FeatureCacheError says why
        it cannot be used (a read-only place, a file that is not a feature cache...)."""
        self._conn()
        return self

    def max_row_bytes(self) -> int:
        """The largest item stored: ``max_item_bytes``, and never more than SQLite accepts in a row."""
        limit = SQLITE_DEFAULT_MAX_LENGTH
        getlimit = getattr(self._conn(), "getlimit", None)  # Python >= 3.11
        if getlimit is not None:
            limit = int(getlimit(getattr(sqlite3, "SQLITE_LIMIT_LENGTH", 0)))  # 0: SQLite's id of the limit
        limit -= ROW_OVERHEAD
        return limit if self.max_item_bytes is None else min(limit, self.max_item_bytes)

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            with contextlib.suppress(sqlite3.Error):
                conn.close()
        self._local.conn = None

    def __getstate__(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "mode": self.mode,
            "timeout": self.timeout,
            "max_item_bytes": self.max_item_bytes,
            "stats": dict(self.stats),
            "_warned_oversize": self._warned_oversize,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update({"max_item_bytes": None, "_warned_oversize": False, "mode": "read-write", **state})
        self.stats.setdefault("skipped", 0)
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
        if bad and not self.read_only:
            try:
                self._retry(
                    lambda c: c.executemany("DELETE FROM features WHERE key = ?", [(k,) for k in bad]), "write to"
                )
            except FeatureCacheError as exc:  # the intact rows are still good
                log.warning("%s", exc)
        self.stats["hits"] += len(out)
        self.stats["misses"] += len(set(keys)) - len(out)
        return out

    def put_many(self, items: Mapping[str, Mapping[str, torch.Tensor]], *, extractor: str = "") -> None:
        """Store features (one transaction: all rows or none).

        Items larger than :meth:`max_row_bytes` are left out (counted in ``stats["skipped"]``,
        with one warning per cache object); the others are stored. A read-only cache stores nothing.
        """
        if not items or self.read_only:
            return
        limit = self.max_row_bytes()
        now = time.time()
        rows = []
        skipped = []
        for key, item in items.items():
            raw = sum(v.numel() * v.element_size() for v in item.values())
            if raw > limit:  # known too big before it is serialised
                skipped.append(raw)
                continue
            blob = self._encode(item)
            if len(blob) > limit:
                skipped.append(len(blob))
                continue
            rows.append((key, extractor, len(blob), hashlib.sha256(blob).hexdigest(), sqlite3.Binary(blob), now))
        if skipped:
            self.stats["skipped"] += len(skipped)
            if not self._warned_oversize:
                self._warned_oversize = True
                warn_user(
                    f"feature cache {self.path}: features of {len(skipped)} image(s) were not stored: "
                    f"{max(skipped)} bytes exceed the {limit} bytes one item may take (large images: "
                    "features grow with the pixel count). They were computed as usual; stats['skipped'] "
                    "counts them. Downscale the images to cache them."
                )
        if not rows:
            return

        def write(conn: sqlite3.Connection) -> None:
            begin_immediate(conn, self.timeout)  # rolls back itself when interrupted
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

        self._retry(write, "write to")
        self.stats["writes"] += len(rows)

    def nbytes(self) -> int:
        """The bytes of features stored (the file is somewhat larger)."""
        return int(self._retry(lambda c: c.execute("SELECT COALESCE(SUM(nbytes), 0) FROM features").fetchone()[0]))

    def __len__(self) -> int:
        return int(self._retry(lambda c: c.execute("SELECT COUNT(*) FROM features").fetchone()[0]))

    def __contains__(self, key: object) -> bool:
        return bool(self._retry(lambda c: c.execute("SELECT 1 FROM features WHERE key = ?", (key,)).fetchone()))

    def clear(self) -> None:
        """Delete every entry (a FeatureCacheError for a read-only cache)."""
        if self.read_only:
            raise FeatureCacheError(f"feature cache {self.path} is read-only: it cannot be cleared")
        self._retry(lambda c: c.execute("DELETE FROM features"), "write to")

    def __repr__(self) -> str:
        mode = "" if self.mode == "read-write" else f", mode={self.mode!r}"
        return f"FeatureCache({str(self.path)!r}{mode})"
