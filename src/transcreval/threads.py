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

import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch

from transcreval.common import check_positive_int

__all__ = ["available_cpus", "check_num_threads", "default_threads", "torch_threads", "worker_count"]

_CPUS: list[int] = []


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


@contextmanager
def torch_threads(n: int | None = None) -> Iterator[int]:
    """Run the block's torch ops on ``n`` intra-op threads (``None``: :func:`default_threads`),
    then restore the calling thread's previous count (also when the block raises).

    Yields the count in force. Cheap (well under a microsecond) when nothing changes.
    """
    want = default_threads() if n is None else n
    before = torch.get_num_threads()
    if want == before:
        yield want
        return
    torch.set_num_threads(want)
    try:
        yield want
    finally:
        torch.set_num_threads(before)
