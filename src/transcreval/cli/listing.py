"""``transcreval list``: the metric registry (or the protocol catalog) as a table; shared by the
top-level command (:mod:`transcreval.cli`) and ``transcreval ls`` (:mod:`transcreval.cli.runs`)."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

__all__ = ["run_list"]


def _direction(hib: bool | None) -> str:
    return "higher" if hib else "lower" if hib is False else "-"


def run_list(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Print the registered metrics (filtered) as a table."""
    from transcreval.core.registry import list_metrics
    from transcreval.utils.text_table import format_table

    stream = out if out is not None else sys.stdout
    if getattr(args, "protocols", False):
        return _list_protocols(stream)
    try:
        metrics = list_metrics(domain=args.domain, paper=args.paper, extra=args.extra, needs=args.needs, name=args.name)
    except ValueError as e:
        print(f"transcreval list: {e}", file=sys.stderr)
        return 2
    if not metrics:
        print("no metric matches these filters", file=stream)
        return 1
    rows = [
        [
            m.name,
            m.functional,
            m.domain,
            f"{m.paper} {m.section}",
            _direction(m.higher_is_better),
            f"[{m.value_range[0]:g}, {m.value_range[1]:g}]",
            m.extra or "core",
            ",".join(m.needs) or "-",
        ]
        for m in metrics
    ]
    header = ["metric", "function", "domain", "paper", "better", "range", "extra", "needs"]
    print(format_table(rows, header), file=stream)
    return 0


def _list_protocols(stream: TextIO) -> int:
    from transcreval.protocols.catalog import list_protocols
    from transcreval.utils.text_table import format_table

    protocols = list_protocols()
    if not protocols:
        print("no protocol is registered", file=stream)
        return 1
    rows = [[p.name, p.paper, ", ".join(p.tables), p.summary] for p in protocols]
    print(format_table(rows, ["protocol", "paper", "tables", "what it computes"]), file=stream)
    return 0
