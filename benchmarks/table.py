"""Write benchmarks/README.md's table from a pytest-benchmark JSON file, and fail on a regression.

``make bench`` runs the suites with ``--benchmark-json`` and then::

    python benchmarks/table.py .benchmarks/bench.json [benchmarks/README.md]

Every paired workload (see ``paired`` in ``benchmarks/conftest.py``) has one row per load
(quiet, and under the competing CPU load the benchmark starts): the median time of each side,
the median of the per-pair ratios (peer time / our time, > 1 = we are faster) with its
quartiles, and the peak resident memory of the process during the workload. The table replaces
what lies between the two marker lines in the README. The exit status is 1, with each offending
row printed, when a ratio is below 1x (:data:`MIN_RATIO`).
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
HEADER = "| workload | load | ours | peer | ratio (quartiles) | peak memory |\n| --- | --- | --- | --- | --- | --- |"


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


def render(items: list[dict[str, Any]], machine: dict[str, Any]) -> str:
    lines = [
        f"Measured {machine.get('datetime', '?')[:16]} on {machine.get('machine', '?')} "
        f"({machine.get('cpu', '?')}, {machine.get('cpus', '?')} CPUs, Python {machine.get('python', '?')}).",
        "",
        HEADER,
    ]
    for r in items:
        flag = "" if r["ratio"] >= MIN_RATIO else " **below 1x**"
        lines.append(
            f"| {r['workload']} | {r['load']} | {_seconds(r['ours_s'])} | {_seconds(r['peer_s'])} | "
            f"{r['ratio']:.2f}x ({r['ratio_q1']:.2f}x-{r['ratio_q3']:.2f}x){flag} | "
            f"{r['peak_rss_bytes'] / 2**20:.0f} MiB |"
        )
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
    return [f"{r['workload']} [{r['load']}]: {r['ratio']:.2f}x" for r in items if r["ratio"] < MIN_RATIO]


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
        print("usage: python benchmarks/table.py BENCH.json [README.md]", file=sys.stderr)
        return 2
    report = json.loads(Path(argv[0]).read_text())
    readme = Path(argv[1]) if len(argv) > 1 else Path(__file__).with_name("README.md")
    items = rows(report)
    if not items:
        print(f"{argv[0]}: no paired workloads in this report", file=sys.stderr)
        return 2
    readme.write_text(replace_table(readme.read_text(), render(items, _machine(report))))
    print(f"wrote {len(items)} rows to {readme}")
    bad = regressions(items)
    if bad:
        print("PERFORMANCE REGRESSION: ratio below 1x (peer faster than us):", file=sys.stderr)
        for line in bad:
            print(f"  {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
