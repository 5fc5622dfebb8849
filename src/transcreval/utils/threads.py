"""How many threads our loops use, and torch's intra-op threads inside them.

Two kinds of threads meet in a metric: our own worker threads (pHash decodes, converts and
resizes images in a few Python threads) and torch's intra-op (OpenMP) threads, which any torch
op may start. Together they must not ask for more threads than the cores we may use. On a
2-core machine two pHash workers that each run torch ops on 2 OpenMP threads make 4 busy
threads, and an OpenMP thread waiting for a descheduled peer spins: under load from other
processes, a loop of small torch ops then runs 6-10x slower than on one thread.

The rule every metric follows:

* the thread budget is :func:`default_threads`: torch's intra-op count (what the caller set with
  ``torch.set_num_threads``, ``OMP_NUM_THREADS``; 1 inside a ``DataLoader`` worker, which sets
  it so), capped by the CPUs this process may run on (CPU affinity and the cgroup CPU quota: a
  container limited to 2 CPUs on a 64-core host gets 2, not torch's 32);
* per-image loops (decoding, conversion, pHash's grayscale and resize) run torch with one
  thread, :func:`torch_threads` ``(1)``, and spread images over at most ``budget`` workers
  (:func:`worker_count`);
* batched work (a network on a batch and its preprocessing) runs torch with the budget,
  :func:`torch_threads` ``()``.

:func:`torch_threads` restores the previous count when its block ends, also on error. torch's
count is per calling thread (OpenMP and MKL keep it per thread; a thread started later takes
the count last set), so the manager reads and restores the calling thread's own count.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ContextDecorator
from typing import Any, TypeVar

import torch

from transcreval.core.common import check_positive_int

__all__ = ["available_cpus", "check_num_threads", "default_threads", "map_threads", "torch_threads", "worker_count"]

_CPUS: list[int] = []
_T = TypeVar("_T")
_R = TypeVar("_R")


def _cgroup_cpus() -> float:
    """The cgroup v2 (``cpu.max``) or v1 (``cfs_quota_us``) CPU quota, ``inf`` when unlimited."""
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()[:2]
        return math.inf if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:
        with open("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") as f:
            quota_us = int(f.read())
        with open("/sys/fs/cgroup/cpu/cpu.cfs_period_us") as f:
            period_us = int(f.read())
        return math.inf if quota_us <= 0 else quota_us / period_us
    except (OSError, ValueError):
        return math.inf


def available_cpus() -> int:
    """CPUs this process may run on: its CPU affinity, capped by the cgroup quota (read once)."""
    if not _CPUS:
        try:
            cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):  # not on Linux
            cpus = os.cpu_count() or 1
        quota = _cgroup_cpus()
        if quota < cpus:
            cpus = max(1, math.ceil(quota))
        _CPUS.append(max(1, cpus))
    return _CPUS[0]


def default_threads() -> int:
    """The thread budget of our loops: torch's intra-op count, capped by :func:`available_cpus`.

    Inside a ``DataLoader`` worker this is 1 (torch sets one thread there, and we never start more).
    """
    return max(1, min(torch.get_num_threads(), available_cpus()))


def worker_count(num_threads: int | None, items: int, cap: int = 4) -> int:
    """Worker threads for a per-image loop over ``items`` chunks: ``num_threads`` when given,
    else the budget (at most ``cap``); never more than there are chunks."""
    wanted = num_threads if num_threads is not None else min(cap, default_threads())
    return max(1, min(wanted, items))


def check_num_threads(value: Any, name: str = "num_threads") -> None:
    """``None`` or a positive integer (raises InputError naming the option)."""
    check_positive_int(name, value, optional=True)


class torch_threads(ContextDecorator):  # lower case: used as the function it was (``with torch_threads(1):``)
    """Run the block's torch ops on ``n`` intra-op threads (``None``: :func:`default_threads`),
    then restore the calling thread's previous count (also when the block raises).

    ``with torch_threads() as n`` gives the count in force; ``@torch_threads(1)`` decorates a
    function. Cheap (well under a microsecond) when nothing changes: a class rather than a
    generator-based context manager, since every ``update`` enters one. One object is one block
    at a time (entering it again before it has exited is a RuntimeError, as it was).
    """

    __slots__ = ("before", "n", "want")

    def __init__(self, n: int | None = None) -> None:
        if n is not None and (type(n) is not int or n < 1):
            hint = ": write @torch_threads() or @torch_threads(n)" if callable(n) else ""
            raise ValueError(f"torch_threads takes a positive thread count or None, got {n!r}{hint}")
        self.n = n
        self.before: int | None = None

    def _recreate_cm(self) -> torch_threads:
        return torch_threads(self.n)  # a decorated function may run in several threads at once

    def __enter__(self) -> int:
        if self.before is not None:
            raise RuntimeError("this torch_threads(...) block is already open: use one object per with block")
        before = self.before = torch.get_num_threads()
        want = self.n
        if want is None:  # default_threads(), from the count just read
            want = max(1, min(before, available_cpus()))
        self.want = want
        if want != before:
            torch.set_num_threads(want)
        return want

    def __exit__(self, *exc: object) -> None:
        before, self.before = self.before, None
        if before is not None and self.want != before:
            torch.set_num_threads(before)


class _Pool:
    """One process-wide pool of worker threads for :func:`map_threads`, grown on demand and
    forgotten in a forked child (which has none of its parent's threads; ``os.register_at_fork``
    below). Starting threads per call cost about 2 ms each on a busy 2-core VM: more than a
    small model's batch."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget the pool (a forked child: the lock may have been held by a thread that is gone)."""
        self.lock = threading.Lock()
        self.pool: ThreadPoolExecutor | None = None
        self.size = 0

    def submit(self, fn: Callable[[], None], k: int) -> list[Future[None]]:
        """``k`` runs of ``fn`` on a pool of at least ``k`` threads. Growing the pool and
        submitting happen under one lock, so another caller cannot shut the pool down between
        the two (the old pool finishes the tasks it has)."""
        with self.lock:
            if self.pool is None or self.size < k:
                old = self.pool
                self.pool = ThreadPoolExecutor(k, thread_name_prefix="transcreval-map")
                self.size = k
                if old is not None:
                    old.shutdown(wait=False)
            return [self.pool.submit(fn) for _ in range(k)]


_POOL = _Pool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_POOL.reset)
_IN_WORKER = threading.local()


def map_threads(fn: Callable[[_T], _R], items: Sequence[_T], num_threads: int | None = None, cap: int = 4) -> list[_R]:
    """``[fn(x) for x in items]``, in order, on :func:`worker_count` threads (the calling thread
    and pool workers), every torch op on one intra-op thread (the per-image loop rule above);
    torch's count is restored after. Worth it where ``fn`` releases the GIL (PIL decoding and
    resampling, torch ops). ``fn``'s first error is raised, after the other threads stop.

    Every item runs in the caller's grad / inference mode (thread-local in torch, so the workers
    enter it); under autocast, which a worker cannot reproduce, the items run in the calling
    thread. Threads take the next item from a shared counter, so the caller never waits on a
    queued task: a nested call (``fn`` calling ``map_threads``) or a busy pool only means fewer
    helpers, never a deadlock.
    """
    items = list(items)
    n = len(items)
    serial = getattr(_IN_WORKER, "active", False) or torch.is_autocast_enabled("cpu")
    workers = 1 if serial else worker_count(num_threads, n, cap)
    if workers == 1:
        with torch_threads(1):
            return [fn(x) for x in items]
    out: list[Any] = [None] * n
    counter = itertools.count()
    failed: list[BaseException] = []
    inference, grad = torch.is_inference_mode_enabled(), torch.is_grad_enabled()

    def work() -> None:
        _IN_WORKER.active = True
        mode = torch.inference_mode() if inference else torch.set_grad_enabled(grad)
        try:
            with torch_threads(1), mode:
                while not failed:
                    i = next(counter)
                    if i >= n:
                        return
                    out[i] = fn(items[i])
        except BaseException as e:
            failed.append(e)
        finally:
            _IN_WORKER.active = False

    helpers: list[Future[None]] = []
    try:
        helpers = _POOL.submit(work, workers - 1)
        work()
        for h in helpers:
            if not h.cancel():  # started: wait for it; never started: nothing to wait for
                h.result()
    except BaseException as e:  # interrupted while waiting (Ctrl-C): the helpers stop after their item
        failed.append(e)
        raise
    if failed:
        raise failed[0]
    return out
