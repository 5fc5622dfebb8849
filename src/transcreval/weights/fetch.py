"""``fetch``: put a verified copy of a manifest file into a directory (``transcreval weights fetch``)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from transcreval.weights.download import DEFAULT_LOCK_TIMEOUT, DownloadFailed, download
from transcreval.weights.lock import file_lock
from transcreval.weights.manifest import get_entry
from transcreval.weights.resolve import (
    cache_dir,
    check_file,
    is_offline,
    locate,
    not_found_error,
    offline_reason,
    verify_file,
)

__all__ = ["fetch"]


def fetch(
    name: str,
    to: str | os.PathLike[str] | None = None,
    *,
    timeout: float | None = None,
    download_missing: bool | None = None,
) -> Path:
    """Put a verified copy of ``name`` into ``to`` (default: the user cache) and return its path.

    A good copy already there is kept; a copy found in another place (an installed package,
    ``TRANSCREVAL_WEIGHTS_DIR``, torch hub) is copied instead of downloaded; otherwise the file
    is downloaded, unless offline mode is on (``TRANSCREVAL_OFFLINE`` / ``HF_HUB_OFFLINE``) or
    ``download_missing=False``; ``download_missing=True`` downloads in offline mode too.
    A destination that cannot be written raises an ``OSError`` naming it.
    """
    import shutil
    import tempfile

    entry = get_entry(name)
    dest_dir = Path(to).expanduser() if to is not None else cache_dir()
    if dest_dir.exists() and not dest_dir.is_dir():
        raise NotADirectoryError(f"{dest_dir} exists and is not a directory: pass a directory to put the files in")
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / entry.filename
    if dest.is_file() and check_file(dest, entry) is None:
        return dest
    hit, searched = locate(name)
    if hit is not None and hit.path.resolve() != dest.resolve():
        # under the download lock: a download of the same file cleans up partial files there
        with file_lock(dest_dir / f".{entry.filename}.lock", DEFAULT_LOCK_TIMEOUT):
            fd, tmp = tempfile.mkstemp(prefix=f".{entry.filename}.", suffix=".part", dir=dest_dir)
            os.close(fd)
            try:
                shutil.copyfile(hit.path, tmp)
                os.chmod(tmp, 0o644)
                os.replace(tmp, dest)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
        verify_file(dest, name)
        return dest
    allowed = (not is_offline()) if download_missing is None else download_missing
    if not allowed:
        why = (
            f"Offline mode is on ({offline_reason()}): unset it to download, or fetch with "
            "download_missing=True (`transcreval weights fetch --ignore-offline`)."
            if is_offline()
            else "download_missing=False."
        )
        searched.append("download: skipped")
        raise not_found_error(entry, searched, why=why)
    try:
        return download(
            entry,
            dest_dir,
            is_valid=lambda f: check_file(f, entry) is None,
            **({"timeout": timeout} if timeout is not None else {}),
        )
    except DownloadFailed as exc:
        raise not_found_error(entry, [f"download: {e}" for e in exc.errors]) from None
