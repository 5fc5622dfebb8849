"""Benchmark helpers: every group times ours and the reference package on the same inputs,
and the terminal summary prints the throughput ratio (reference time / our time) per group."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

_RESULTS: dict[str, dict[str, tuple[float, float]]] = defaultdict(dict)


@pytest.fixture
def timed(benchmark: Any, request: pytest.FixtureRequest) -> Any:
    """``timed(group, role, fn, *args)``: benchmark ``fn`` as ``role`` ("ours" or "reference")."""

    def run(group: str, role: str, fn: Any, *args: Any, rounds: int = 12) -> Any:
        benchmark.group = group
        benchmark.extra_info["role"] = role
        out = benchmark.pedantic(fn, args=args, rounds=rounds, warmup_rounds=1, iterations=1)
        _RESULTS[group][role] = (benchmark.stats.stats.min, benchmark.stats.stats.median)
        return out

    return run


_PAIRED: dict[str, list[float]] = {}

#: the competing load a paired workload runs under: none, or busy processes on about half the
#: CPUs this process may use (at least one), started by the benchmark and stopped after it
LOADS = ("quiet", "loaded")
_BUSY = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"


@pytest.fixture(params=LOADS)
def cpu_load(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test quiet, or with a bounded competing CPU load (busy Python processes that
    also end by themselves after 10 minutes, so an interrupted run leaves nothing behind)."""
    if request.param == "quiet":
        yield "quiet"
        return
    from transcreval.utils.threads import available_cpus

    n = max(1, available_cpus() // 2)
    procs = [subprocess.Popen([sys.executable, "-c", _BUSY.format(seconds=600)]) for _ in range(n)]
    try:
        yield f"{n} busy process{'es' if n > 1 else ''}"
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@contextmanager
def _peak_rss() -> Iterator[list[int]]:
    """The process's peak resident memory while the block runs (sampled every 5 ms), in bytes."""
    peak = [_rss_bytes()]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            peak[0] = max(peak[0], _rss_bytes())

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    try:
        yield peak
    finally:
        done.set()
        t.join()
        peak[0] = max(peak[0], _rss_bytes())


@pytest.fixture
def paired(benchmark: Any, cpu_load: str) -> Any:
    """``paired(group, reference_fn, our_fn, *args)``: alternate the two, ``pairs`` times
    (after ``warmup`` untimed rounds; 0 where one call is long and its result already checked).

    The machines we measure on change speed over seconds (shared virtual CPUs), which can tilt
    a ratio taken from two separate timing runs; the median of per-pair ratios is immune to it.
    Every paired workload runs twice, quiet and under a competing load (:func:`cpu_load`); the
    medians, the ratio, its goal, the load and the process's resident memory (before the
    workload and its peak during it, warm-up included) go into the benchmark JSON
    (``extra_info``), from which ``benchmarks/table.py`` writes the README's table.
    """

    def run(
        group: str,
        reference: Any,
        ours: Any,
        *args: Any,
        pairs: int = 12,
        warmup: int = 1,
        goal: float = 1.0,
        scale: tuple[str, int] | None = None,
    ) -> float:
        """``goal``: the least acceptable ratio (``make bench`` fails below it): 1 (never slower
        than the peer) unless the peer is a bound rather than a package, e.g. decode-only time,
        where 1/1.3 means "within 1.3x of it". ``scale``: ``(series, items)`` for a row of a
        series run at growing item counts (the table adds the cost per item and the growth)."""
        ratios: list[float] = []
        times: tuple[list[float], list[float]] = ([], [])

        def alternate() -> None:
            ratios.clear()  # keep the timed round only, not the warm-up
            times[0].clear()
            times[1].clear()
            for _ in range(pairs):
                t0 = time.perf_counter()
                reference(*args)
                t1 = time.perf_counter()
                ours(*args)
                t2 = time.perf_counter()
                ratios.append((t1 - t0) / (t2 - t1))
                times[0].append(t1 - t0)
                times[1].append(t2 - t1)

        benchmark.group = f"paired: {group} [{cpu_load}]"
        start = _rss_bytes()
        with _peak_rss() as peak:
            benchmark.pedantic(alternate, rounds=1, warmup_rounds=warmup, iterations=1)
        ratios.sort()
        _PAIRED[f"{group} [{cpu_load}]"] = ratios
        med = ratios[len(ratios) // 2]
        benchmark.extra_info.update(
            {
                "workload": group,
                "load": cpu_load,
                "peer_s": statistics.median(times[0]),
                "ours_s": statistics.median(times[1]),
                "ratio": med,
                "ratio_q1": ratios[len(ratios) // 4],
                "ratio_q3": ratios[3 * len(ratios) // 4],
                "pairs": pairs,
                "peak_rss_bytes": peak[0],
                "rss_start_bytes": start,
                "goal": goal,
            }
        )
        if scale is not None:
            benchmark.extra_info.update({"series": scale[0], "items": scale[1]})
        return med

    return run


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _RESULTS and not _PAIRED:
        return
    tr = terminalreporter
    tr.section("transcreval vs reference (best / median of the rounds)")
    tr.write_line(f"{'group':<42} {'reference':>18} {'ours':>18} {'ratio best/median':>18}")
    for group, r in sorted(_RESULTS.items()):
        if "ours" in r and "reference" in r:
            (rb, rm), (ob, om) = r["reference"], r["ours"]
            tr.write_line(
                f"{group:<42} {rb * 1e3:>8.1f}/{rm * 1e3:<7.1f}ms {ob * 1e3:>8.1f}/{om * 1e3:<7.1f}ms "
                f"{rb / ob:>8.2f}x/{rm / om:.2f}x"
            )
    for group, ratios in sorted(_PAIRED.items()):
        q1, med, q3 = ratios[len(ratios) // 4], ratios[len(ratios) // 2], ratios[3 * len(ratios) // 4]
        tr.write_line(f"paired {group:<35} median ratio {med:.2f}x (quartiles {q1:.2f}x-{q3:.2f}x, n={len(ratios)})")


# ---------------------------------------------------------------------- seeded random weights
# shared by the CPU suites and bench_gpu.py: no download, the real architectures' FLOPs


def _lpips_weights(tmp_path_factory: pytest.TempPathFactory, net: str) -> tuple[str, Any]:
    """A local LPIPS weights file (seeded random trunk and linear layers) and lpips.LPIPS holding
    the same weights."""
    import warnings

    import torch
    from tests._helpers import random_weights as rw

    feats = rw.features_only(rw.trunk_state(net, seed=0))
    lins = rw.lin_state(net, seed=1)
    path = tmp_path_factory.mktemp("w") / f"lpips_{net}.pth"
    torch.save(rw.lpips_layout_state(net, feats, lins), path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = rw.reference_lpips(net, feats, lins)
    return str(path), ref


@pytest.fixture(scope="module")
def alex(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Any]:
    return _lpips_weights(tmp_path_factory, "alex")


@pytest.fixture(scope="module")
def vgg(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Any]:
    return _lpips_weights(tmp_path_factory, "vgg")


@pytest.fixture(scope="module")
def vit_b_32(tmp_path_factory: pytest.TempPathFactory) -> str:
    """open_clip ViT-B-32 (the real architecture of CLIPSimilarity's default), seeded random
    weights saved to a local checkpoint: no download, the same FLOPs as the OpenAI weights."""
    import open_clip
    import torch

    path = tmp_path_factory.mktemp("clip") / "vit-b-32-random.pt"
    torch.manual_seed(0)
    torch.save(open_clip.create_model("ViT-B-32", pretrained=None).state_dict(), path)
    return str(path)
