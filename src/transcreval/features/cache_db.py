"""Opening a feature-cache database: read-write or read-only, and only if it is one.

A feature cache is an SQLite file with a ``meta`` table saying ``kind = transcreval-features``
and its ``format``, and the ``features`` table. Opening one never writes into a file that is
not a feature cache: the tables are looked at first, and any other SQLite database (a judge
cache, an application's own database) is refused and left exactly as it was, as
:class:`~transcreval.judge.JudgeCache` refuses files that are not judge caches. A file made by
an earlier transcreval (the ``features`` table alone) is adopted: its ``meta`` rows are added.

Read-only mode opens the file with SQLite's ``mode=ro`` (and, when even that needs a write, as
for a WAL database on a read-only mount, ``immutable=1``): nothing is created, written or
deleted.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from urllib.parse import quote

from transcreval.engines.cache_mode import SPELLINGS, cache_mode
from transcreval.engines.sqlite_locks import begin_immediate, is_lock_error, use_wal
from transcreval.errors import FeatureCacheError

__all__ = [
    "FORMAT",
    "KIND",
    "MODES",
    "check_schema",
    "is_corruption",
    "normalise_mode",
    "open_read_only",
    "open_read_write",
]

FORMAT = 1
KIND = "transcreval-features"
#: the accepted spellings of the two modes
MODES = {k: m for k, m in SPELLINGS.items() if m != "off"}
_FEATURES = """
CREATE TABLE IF NOT EXISTS features (
    key TEXT PRIMARY KEY,
    extractor TEXT NOT NULL,
    nbytes INTEGER NOT NULL,
    digest TEXT NOT NULL,
    data BLOB NOT NULL,
    created REAL NOT NULL
)
"""
_META = "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
_COLUMNS = {"key", "extractor", "nbytes", "digest", "data", "created"}


def normalise_mode(mode: object) -> str:
    """``"read-write"`` or ``"read-only"`` (underscores and rw/ro accepted)."""
    return cache_mode(mode, ("read-write", "read-only"))


def is_corruption(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text or "file is encrypted" in text


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def check_schema(conn: sqlite3.Connection, path: Path) -> str:
    """``"ours"`` (a feature cache of this format), ``"legacy"`` (the features table alone, from
    an earlier transcreval) or ``"empty"``; FeatureCacheError, naming the tables found, for
    anything else."""
    tables = _tables(conn)
    if not tables:
        return "empty"
    columns = {r[1] for r in conn.execute("PRAGMA table_info(features)")} if "features" in tables else set()
    meta: dict[str, str] = {}
    if "meta" in tables:
        meta = dict(conn.execute("SELECT name, value FROM meta").fetchall())
    ours = columns == _COLUMNS and (meta.get("kind") == KIND or tables == {"features"})
    if not ours:
        raise FeatureCacheError(
            f"{path} is not a transcreval feature cache (an SQLite database with the tables: "
            f"{', '.join(sorted(tables))}); it was left untouched: pass another path (feature_cache=...)"
        )
    if meta and meta.get("format") != str(FORMAT):
        raise FeatureCacheError(
            f"{path} is a feature cache of format {meta.get('format')!r}; this transcreval reads format {FORMAT} "
            "(the file was left untouched): pass another path"
        )
    return "ours" if meta else "legacy"


def open_read_write(path: Path, timeout: float) -> sqlite3.Connection:
    """Open (creating it if needed) a feature cache for reading and writing.

    ``sqlite3.DatabaseError`` for a file that is not a database (the caller moves it aside),
    FeatureCacheError for a database that is not a feature cache."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=timeout, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        state = check_schema(conn, path)  # before anything is written: a foreign file stays as it is
        use_wal(conn, timeout)  # waits out a process creating the tables (see sqlite_locks)
        conn.execute("PRAGMA synchronous = NORMAL")
        if state == "ours":
            return conn
        begin_immediate(conn, timeout)
        try:
            check_schema(conn, path)  # another process may have created it meanwhile
            conn.execute(_FEATURES)
            conn.execute(_META)
            conn.execute(
                "INSERT OR IGNORE INTO meta (name, value) VALUES ('kind', ?), ('format', ?)", (KIND, str(FORMAT))
            )
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
    except BaseException:
        conn.close()
        raise
    return conn


def open_read_only(path: Path, timeout: float) -> sqlite3.Connection:
    """Open an existing feature cache without ever writing (FeatureCacheError when it is not one)."""
    if not path.is_file():
        raise FeatureCacheError(
            f"no feature cache at {path}: read-only mode needs an existing file (written by a read-write run)"
        )
    uri = f"file:{quote(str(path.resolve()))}"
    last: Exception | None = None
    for flag in ("mode=ro", "immutable=1"):  # a WAL file on a read-only mount opens only as immutable
        try:
            conn = sqlite3.connect(f"{uri}?{flag}", uri=True, timeout=timeout, isolation_level=None)
        except sqlite3.Error as exc:
            last = exc
            continue
        try:
            if check_schema(conn, path) == "empty":
                raise FeatureCacheError(f"{path} is an empty database, not a feature cache: it was left untouched")
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if is_lock_error(exc):  # a writer holds the file: never read it as immutable mid-write
                raise
            last = exc
        except BaseException:
            conn.close()
            raise
    raise FeatureCacheError(f"cannot open the feature cache {path} read-only ({last})")
