"""A persistent pool of 4 gloo processes on the CPU for world-size-invariance tests.

The pool starts once per test session. Rank r of the world-4 default group also belongs to a
2-process subgroup (ranks 0 and 1), so both world sizes run on the same processes: a 2-process
run passes ``process_group`` explicitly, which also tests that option. Tasks are module-level
functions (picklable by reference) that receive ``(rank, world_size, group, *args)``.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import tempfile
import traceback
from collections.abc import Callable
from typing import Any

WORLD = 4
_GROUPS: dict[int, Any] = {}


def _worker(rank: int, init_file: str, tasks: Any, results: Any) -> None:
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=WORLD)
    _GROUPS[WORLD] = None
    _GROUPS[2] = dist.new_group([0, 1])
    results.put(("ready", rank, None))
    while True:
        item = tasks.get()
        if item is None:
            break
        fn, world, args = item
        try:
            out = fn(rank, world, _GROUPS[world], *args)
            results.put(("ok", rank, out))
        except BaseException:  # report, keep serving
            results.put(("error", rank, traceback.format_exc()))
    dist.destroy_process_group()


class DDPPool:
    """Four spawned gloo processes; ``run(fn, world, *args)`` returns the per-rank results."""

    def __init__(self, timeout: float = 120.0) -> None:
        ctx = mp.get_context("spawn")
        fd, self._init_file = tempfile.mkstemp(prefix="transcreval-gloo-")
        os.close(fd)
        os.unlink(self._init_file)
        self.timeout = timeout
        self._tasks = [ctx.Queue() for _ in range(WORLD)]
        self._results = ctx.Queue()
        self._procs = [
            ctx.Process(target=_worker, args=(r, self._init_file, self._tasks[r], self._results), daemon=True)
            for r in range(WORLD)
        ]
        for p in self._procs:
            p.start()
        for _ in range(WORLD):
            status, rank, _ = self._results.get(timeout=timeout)
            if status != "ready":
                raise RuntimeError(f"gloo worker {rank} failed to start")

    def run(self, fn: Callable[..., Any], world: int, *args: Any) -> list[Any]:
        if world not in (2, WORLD):
            raise ValueError("world must be 2 or 4")
        for r in range(world):
            self._tasks[r].put((fn, world, args))
        out: dict[int, Any] = {}
        errors = []
        for _ in range(world):
            try:
                status, rank, payload = self._results.get(timeout=self.timeout)
            except queue.Empty as e:
                raise TimeoutError(f"a gloo worker did not answer within {self.timeout}s") from e
            if status == "error":
                errors.append(f"rank {rank}:\n{payload}")
            out[rank] = payload
        if errors:
            raise RuntimeError("distributed task failed\n" + "\n".join(errors))
        return [out[r] for r in range(world)]

    def close(self) -> None:
        for q in self._tasks:
            q.put(None)
        for p in self._procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
        if os.path.exists(self._init_file):
            os.unlink(self._init_file)
