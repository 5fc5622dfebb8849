"""A per-file lock between processes that leaves no file behind.

``filelock``'s Unix lock keeps its ``.lock`` file after release, so every directory that
``transcreval weights fetch`` wrote into kept a ``.<file>.lock`` beside the weights (copied to
clusters with them). :func:`file_lock` removes it: the holder deletes the lock file while it
still holds the lock, and a process that was waiting on the deleted file notices (its file is no
longer the one at the path) and locks the new one, so two processes never both hold the lock.
Where ``fcntl`` does not exist (Windows) ``filelock`` is used; its Windows lock file is deleted
on release.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["file_lock"]

POLL = 0.05


@contextlib.contextmanager
def file_lock(path: str | os.PathLike[str], timeout: float) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if needed, removed on release).

    Raises ``filelock.Timeout`` when another process holds it longer than ``timeout`` seconds,
    and ``OSError`` when the lock file cannot be created (a read-only directory).
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        from filelock import FileLock

        with FileLock(str(path), timeout=timeout):
            yield
        return
    from filelock import Timeout

    p = Path(path)
    deadline = time.monotonic() + timeout
    while True:
        fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise Timeout(str(p)) from None
                    time.sleep(POLL)
            try:
                here, mine = os.stat(p), os.fstat(fd)
                current = (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)
            except FileNotFoundError:
                current = False
        except BaseException:
            os.close(fd)
            raise
        if current:
            break
        # the holder before us removed this file: lock the one now at the path
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(p)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
