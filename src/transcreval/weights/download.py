"""Downloading a manifest file: streamed, sha256-checked, atomic, one process per node.

The file is streamed into a temporary file in the destination directory while its sha256 is
computed; only a file of the right size and digest is moved into place, with ``os.replace``
(atomic on one file system). A file lock (``.<filename>.lock`` beside it, removed when released:
:mod:`transcreval.weights.lock`) makes every other process that wants the same file wait; when
the lock is free they find the finished file and do not download it again, so a node with 8
ranks downloads once. Partial (``.part``) files that a
killed process left behind are removed by the next download of the same file.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import logging
import os
import tempfile
import urllib.request
from pathlib import Path

from transcreval._version import __version__
from transcreval.weights.manifest import WeightsEntry

log = logging.getLogger("transcreval.weights")

CHUNK = 1 << 20
DEFAULT_TIMEOUT = 60.0
# How long a process waits for another one's download of the same file (VGG16 is 553 MB).
DEFAULT_LOCK_TIMEOUT = float(os.environ.get("TRANSCREVAL_DOWNLOAD_LOCK_TIMEOUT", "3600"))


_WARNED: set[tuple[str, str]] = set()


def warn_unverified(entry: WeightsEntry, what: str, *, file: str = "") -> None:
    """Say loudly (a :class:`~transcreval.errors.UnverifiedWeightsWarning` and a log warning) that
    a file of an entry without a sha256 is used unchecked, and why the manifest has no digest.

    Once per (entry, ``file``) per process when ``file`` (the path and its digest) is given: a
    metric resolving the same file again does not repeat it."""
    import warnings

    from transcreval.errors import UnverifiedWeightsWarning

    if file:
        if (entry.name, file) in _WARNED:
            return
        _WARNED.add((entry.name, file))

    msg = (
        f"weights {entry.name!r} ({entry.filename}): {what}. The manifest has no sha256 for it: "
        f"{entry.sha256_note} Check the file yourself if you need to."
    )
    log.warning("%s", msg)
    warnings.warn(msg, UnverifiedWeightsWarning, stacklevel=3)


class DownloadFailed(Exception):
    """Every URL of an entry failed; ``errors`` holds one line per URL."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


def _sha256_stream(response: object, out: object, entry: WeightsEntry) -> tuple[str, int]:
    digest = hashlib.sha256()
    total = 0
    expected = entry.size
    next_report = 0.1
    while True:
        chunk = response.read(CHUNK)  # type: ignore[attr-defined]
        if not chunk:
            break
        out.write(chunk)  # type: ignore[attr-defined]
        digest.update(chunk)
        total += len(chunk)
        if expected and total > expected:
            raise ValueError(f"server sent more than the expected {expected} bytes")
        if expected and total / expected >= next_report:
            log.info("%s: %d%% of %d bytes", entry.filename, int(100 * total / expected), expected)
            next_report += 0.1
    return digest.hexdigest(), total


def _fetch_one(url: str, entry: WeightsEntry, dest: Path, timeout: float) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": f"transcreval/{__version__}"})
    fd, tmp_name = tempfile.mkstemp(prefix=f".{entry.filename}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(request, timeout=timeout) as response:
            got_sha, got_size = _sha256_stream(response, out, entry)
            out.flush()
            os.fsync(out.fileno())
        if entry.size is not None and got_size != entry.size:
            raise ValueError(f"got {got_size} bytes, expected {entry.size} (interrupted or a different file)")
        if entry.sha256 is not None and got_sha != entry.sha256:
            raise ValueError(f"sha256 {got_sha} does not match the manifest's {entry.sha256}")
        if entry.sha256 is None:
            warn_unverified(entry, f"downloaded from {url} unverified (sha256 {got_sha}, {got_size} bytes)")
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def download(
    entry: WeightsEntry,
    dest_dir: Path,
    *,
    is_valid: object = None,
    timeout: float = DEFAULT_TIMEOUT,
    lock_timeout: float | None = None,
) -> Path:
    """Download ``entry`` into ``dest_dir`` (created if needed) and return the file's path.

    ``is_valid(path) -> bool`` says whether a file already there is good (checked after the lock
    is taken, so a file another process just finished is reused). Raises :class:`DownloadFailed`
    when every URL fails, and ``filelock.Timeout`` when another process holds the lock longer
    than ``lock_timeout`` seconds.
    """
    from transcreval.weights.lock import file_lock

    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / entry.filename
    wait = DEFAULT_LOCK_TIMEOUT if lock_timeout is None else lock_timeout
    with file_lock(dest_dir / f".{entry.filename}.lock", wait):
        # Partial files of this entry are left by killed processes (a live one would hold the lock)
        for stale in dest_dir.glob(f".{glob.escape(entry.filename)}.*.part"):
            with contextlib.suppress(OSError):
                stale.unlink()
                log.info("removed %s, left by an interrupted download", stale)
        if dest.exists() and callable(is_valid) and is_valid(dest):
            log.info("%s: already downloaded by another process", entry.filename)
            return dest
        if not entry.urls:
            raise DownloadFailed(["the manifest lists no download URL for this file"])
        errors = []
        for url in entry.urls:
            log.info("downloading %s from %s", entry.filename, url)
            try:
                _fetch_one(url, entry, dest, timeout)
                return dest
            except Exception as exc:  # every failure of one URL is reported, then the next is tried
                errors.append(f"{url}: {type(exc).__name__}: {exc}")
        raise DownloadFailed(errors)
