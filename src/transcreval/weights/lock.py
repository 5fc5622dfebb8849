"""A per-file lock between processes that leaves no file behind.

``filelock``'s Unix lock keeps its ``.lock`` file after release, so every directory that
``transcreval weights fetch`` wrote into kept a ``.<file>.lock`` beside the weights (copied to
clusters with them). :func:`file_lock` removes it: the holder deletes the lock file while it
still holds the lock, and a process that was waiting on the deleted file notices (its file is no
longer the one at the path) and locks the new one, so two processes never both hold the lock.
Where ``fcntl`` does not exist (Windows) ``filelock`` is used; its Windows lock file is deleted
on release.

``content`` is written into the lock file while it is held (who holds it, for the message of a
process that finds it taken); the lock yields what the file held before it was locked: a holder
that died (``kill -9``) leaves its content behind, since nothing removed the file.
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
def file_lock(path: str | os.PathLike[str], timeout: float, content: str | None = None) -> Iterator[str]:
    """Hold an exclusive lock on ``path`` (created if needed, removed on release); yields what
    the file held before (``""`` unless a holder died with it), and holds ``content`` meanwhile.

    Raises ``filelock.Timeout`` when another process holds it longer than ``timeout`` seconds,
    and ``OSError`` when the lock file cannot be created (a read-only directory).
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        from filelock import FileLock

        with FileLock(str(path), timeout=timeout):
            yield ""
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
        before = ""
        if content is not None:
            before = _swap(fd, content)
        yield before
    finally:
        with contextlib.suppress(OSError):
            os.unlink(p)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _swap(fd: int, content: str) -> str:
    """The file's old text, replaced by ``content``."""
    chunks = []
    os.lseek(fd, 0, os.SEEK_SET)
    while block := os.read(fd, 1 << 16):
        chunks.append(block)
    os.lseek(fd, 0, os.SEEK_SET)
    os.ftruncate(fd, 0)
    os.write(fd, content.encode("utf-8"))
    return b"".join(chunks).decode("utf-8", "replace")
