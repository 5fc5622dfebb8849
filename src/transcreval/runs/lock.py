"""One process at a time in a run directory: ``DIR/run.lock``.

``evaluate`` (rank 0 under torchrun), ``rescore``, ``compare`` and ``report`` hold the lock while
they write; a second process refuses at once, naming the holder (pid, host, start time, command),
instead of both writing lines, judge calls and results over each other. The lock is an ``flock``
on the file (:func:`transcreval.weights.lock.file_lock`), so the kernel releases it when its
process dies, even by ``kill -9``: the file such a process leaves behind is stale, and the next
process takes it over and says whose it was. The file is removed on release. A dry run reads
only and takes no lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from transcreval.errors import InputError

__all__ = ["LOCK_NAME", "run_lock"]

LOCK_NAME = "run.lock"


def _holder(text: str) -> dict[str, Any]:
    try:
        got = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return got if isinstance(got, dict) else {}


def _who(h: dict[str, Any]) -> str:
    if not h:
        return "another process"
    return f"pid {h.get('pid')} on {h.get('host')} since {h.get('started')} ({h.get('command')})"


@contextlib.contextmanager
def run_lock(root: str | os.PathLike[str], command: str, note: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold ``root``'s lock (creating ``root`` if needed; removed again, when empty, if it was
    made here). An InputError names the holder when another process has it; ``note`` hears of
    a stale lock taken over."""
    root = Path(root)
    made = not root.exists()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create the run directory {root}: {e.strerror or e}") from None
    path = root / LOCK_NAME
    me = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": f"transcreval {command}",
    }
    from filelock import Timeout

    from transcreval.weights.lock import file_lock

    stack = contextlib.ExitStack()
    try:
        try:
            before = stack.enter_context(file_lock(path, 0, json.dumps(me)))
        except Timeout:
            held = _holder(path.read_text(encoding="utf-8", errors="replace")) if path.exists() else {}
            raise InputError(
                f"{root} is in use by {_who(held)}: wait for it to finish (if that process is gone, on "
                f"another machine, delete {path})"
            ) from None
        except OSError as e:
            raise InputError(f"cannot lock the run directory {root} ({e.strerror or e}): is it writable?") from None
        with stack:
            if before.strip() and note is not None:
                note(f"note: {path} was left by {_who(_holder(before))}, which is gone: taken over")
            yield
    finally:
        if made:
            with contextlib.suppress(OSError):
                root.rmdir()  # only if nothing was written (a run that stopped before it began)
