"""Write benchmarks/README.md's table from a pytest-benchmark JSON file, and fail on a regression.

``make bench`` runs the suites with ``--benchmark-json`` and then::

    python benchmarks/table.py .benchmarks/bench.json [benchmarks/README.md | -]

Every paired workload (see ``paired`` in ``benchmarks/conftest.py``) has one row per load
(quiet, and under the competing CPU load the benchmark starts): the median time of each side,
the median of the per-pair ratios (peer time / our time, > 1 = we are faster) with its
quartiles, the row's goal, and the peak resident memory of the process during the workload
(with, in parentheses, how much it grew during the workload). Rows of a scale series (the same
workload at growing item counts) are summed up below the table: our time per 1,000 items at
each count and its growth from the smallest count. The table replaces what lies between the two
marker lines in the README (``-`` instead of a README prints it instead, for a partial run).

The exit status is 1, with each offending row printed, when a ratio is below its row's goal:
:data:`MIN_RATIO` (never slower than the peer) unless the row states another, e.g. 1/1.3 for
"within 1.3x of decode-only time", where the peer is a bound rather than a package.
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path
from typing import Any

START = "<!-- bench-table:start (written by benchmarks/table.py; do not edit) -->"
END = "<!-- bench-table:end -->"
MIN_RATIO = 1.0
HEADER = (
    "| workload | load | ours | peer | ratio (quartiles) | goal | peak memory (growth) |\n"
    "| --- | --- | --- | --- | --- | --- | --- |"
)


def rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The paired workloads of one pytest-benchmark report, in run order."""
    out = []
    for b in report.get("benchmarks", []):
        info = b.get("extra_info") or {}
        if "ratio" in info and "workload" in info:
            out.append(info)
    return out


def _seconds(s: float) -> str:
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def goal(row: dict[str, Any]) -> float:
    """The least acceptable ratio of a row (rows written before goals existed: :data:`MIN_RATIO`)."""
    return float(row.get("goal", MIN_RATIO))


def _memory(row: dict[str, Any]) -> str:
    peak = row["peak_rss_bytes"] / 2**20
    if "rss_start_bytes" not in row:
        return f"{peak:.0f} MiB"
    return f"{peak:.0f} MiB (+{max(0.0, peak - row['rss_start_bytes'] / 2**20):.0f})"


def scale_summary(items: list[dict[str, Any]]) -> list[str]:
    """One line per (scale series, load): our time per 1,000 items at each item count and the
    growth of that cost from the smallest count (1.00x = linear), and the memory growth."""
    series: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in items:
        if "series" in r and "items" in r:
            series.setdefault((r["series"], r["load"]), []).append(r)
    lines = []
    for (name, load), rs in series.items():
        rs = sorted(rs, key=lambda r: r["items"])
        base = rs[0]["ours_s"] / rs[0]["items"]
        parts = [
            f"{r['items']:,}: {r['ours_s'] / r['items'] * 1e6:.1f} ms ({r['ours_s'] / r['items'] / base:.2f}x, "
            f"+{max(0, r['peak_rss_bytes'] - r.get('rss_start_bytes', r['peak_rss_bytes'])) / 2**20:.0f} MiB)"
            for r in rs
        ]
        lines.append(f"- {name} [{load}], ours per 1,000 items (growth, memory growth): " + "; ".join(parts))
    return lines


def render(items: list[dict[str, Any]], machine: dict[str, Any]) -> str:
    lines = [
        f"Measured {machine.get('datetime', '?')[:16]} on {machine.get('machine', '?')} "
        f"({machine.get('cpu', '?')}, {machine.get('cpus', '?')} CPUs, Python {machine.get('python', '?')}).",
        "",
        HEADER,
    ]
    for r in items:
        flag = "" if r["ratio"] >= goal(r) else " **below goal**"
        lines.append(
            f"| {r['workload']} | {r['load']} | {_seconds(r['ours_s'])} | {_seconds(r['peer_s'])} | "
            f"{r['ratio']:.2f}x ({r['ratio_q1']:.2f}x-{r['ratio_q3']:.2f}x){flag} | >= {goal(r):.2f}x | {_memory(r)} |"
        )
    summary = scale_summary(items)
    if summary:
        lines += ["", "Scale (the same workload at growing item counts):", "", *summary]
    return "\n".join(lines)


def replace_table(readme: str, table: str) -> str:
    """``readme`` with the text between the markers replaced (markers added at the top if missing)."""
    block = f"{START}\n{table}\n{END}"
    if START in readme and END in readme:
        head, rest = readme.split(START, 1)
        return head + block + rest.split(END, 1)[1]
    title, _, body = readme.partition("\n")
    return f"{title}\n\n{block}\n{body}"


def regressions(items: list[dict[str, Any]]) -> list[str]:
    """The rows whose ratio is below their goal, one line each."""
    return [
        f"{r['workload']} [{r['load']}]: {r['ratio']:.2f}x, goal >= {goal(r):.2f}x"
        for r in items
        if r["ratio"] < goal(r)
    ]


def _machine(report: dict[str, Any]) -> dict[str, Any]:
    m = report.get("machine_info", {})
    cpu = m.get("cpu", {}) if isinstance(m.get("cpu"), dict) else {}
    return {
        "datetime": report.get("datetime", "?"),
        "machine": m.get("node", platform.node()),
        "cpu": cpu.get("brand_raw", m.get("processor", "?")),
        "cpus": cpu.get("count", "?"),
        "python": m.get("python_version", platform.python_version()),
    }


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print("usage: python benchmarks/table.py BENCH.json [README.md | -]", file=sys.stderr)
        return 2
    report = json.loads(Path(argv[0]).read_text())
    readme = argv[1] if len(argv) > 1 else str(Path(__file__).with_name("README.md"))
    items = rows(report)
    if not items:
        print(f"{argv[0]}: no paired workloads in this report", file=sys.stderr)
        # a subset of timed-only rows (make bench BENCH_K=...) is not an error; a full report is
        return 0 if readme == "-" else 2
    table = render(items, _machine(report))
    if readme == "-":  # a partial run (make bench BENCH_K=...): print, leave the README's table alone
        print(table)
    else:
        Path(readme).write_text(replace_table(Path(readme).read_text(), table))
        print(f"wrote {len(items)} rows to {readme}")
    bad = regressions(items)
    if bad:
        print("PERFORMANCE REGRESSION: ratio below the row's goal (1x: the peer is faster than us):", file=sys.stderr)
        for line in bad:
            print(f"  {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
