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


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _RESULTS:
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
