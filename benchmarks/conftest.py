"""Benchmark helpers: every group times ours and the reference package on the same inputs,
and the terminal summary prints the throughput ratio (reference time / our time) per group."""

from __future__ import annotations

from collections import defaultdict
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


@pytest.fixture
def paired(benchmark: Any) -> Any:
    """``paired(group, reference_fn, our_fn, *args)``: alternate the two, ``pairs`` times
    (after ``warmup`` untimed rounds; 0 where one call is long and its result already checked).

    The machines we measure on change speed over seconds (shared virtual CPUs), which can tilt
    a ratio taken from two separate timing runs; the median of per-pair ratios is immune to it.
    """

    def run(group: str, reference: Any, ours: Any, *args: Any, pairs: int = 12, warmup: int = 1) -> float:
        import time

        ratios: list[float] = []

        def alternate() -> None:
            ratios.clear()  # keep the timed round only, not the warm-up
            for _ in range(pairs):
                t0 = time.perf_counter()
                reference(*args)
                t1 = time.perf_counter()
                ours(*args)
                t2 = time.perf_counter()
                ratios.append((t1 - t0) / (t2 - t1))

        benchmark.group = f"paired: {group}"
        benchmark.pedantic(alternate, rounds=1, warmup_rounds=warmup, iterations=1)
        ratios.sort()
        _PAIRED[group] = ratios
        return ratios[len(ratios) // 2]

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
