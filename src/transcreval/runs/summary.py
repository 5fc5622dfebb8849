"""What a run's results look like in the terminal: the summary table's rows (metric, system,
mean, n/of, failures) and the per-status failure summary printed on stderr."""

from __future__ import annotations

import math
from typing import Any

from transcreval.runs.aggregate import counts

__all__ = ["failure_summary", "fmt_number", "summary_rows"]


def fmt_number(x: float | None, d: int = 2) -> str:
    """A number with ``d`` decimals, ``-`` for none (NaN)."""
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{d}f}"


def summary_rows(result: Any) -> list[list[str]]:
    """metric, system, mean of the ok values, n/of and the failures by status."""
    c = counts(result)
    rows = []
    for metric in dict.fromkeys(r.metric for r in result.records):
        for system in dict.fromkeys(r.system for r in result.records):
            cell = c.get(system, {}).get(metric)
            if cell is None:
                continue
            vals = [r.value for r in result.records if r.system == system and r.metric == metric and r.ok]
            mean = math.fsum(vals) / len(vals) if vals else math.nan
            fails = ", ".join(f"{k} {v}" for k, v in sorted(cell["failures"].items())) or "-"
            rows.append([metric, system, fmt_number(mean, 3), f"{cell['n']}/{cell['of']}", fails])
    return rows


def failure_summary(result: Any) -> list[str]:
    """Lines for stderr: per metric, the records with no value by status, over every system
    (nothing when every record has a value)."""
    per: dict[str, dict[str, int]] = {}
    of: dict[str, int] = {}
    for cells in counts(result).values():
        for metric, cell in cells.items():
            of[metric] = of.get(metric, 0) + cell["of"]
            for status, k in cell["failures"].items():
                per.setdefault(metric, {})[status] = per.setdefault(metric, {}).get(status, 0) + k
    if not per:
        return []
    lines = ["failures (records with no value; a judge's api_error and timeout are redone by a rerun):"]
    for metric, by in per.items():
        lines.append(f"  {metric}: " + ", ".join(f"{k} {v}" for k, v in sorted(by.items())) + f" (of {of[metric]})")
    return lines
