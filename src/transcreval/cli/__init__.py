"""The ``transcreval`` command (also ``python -m transcreval``).

``transcreval demo`` evaluates the embedded demo set; ``transcreval list`` prints the metric
registry as a table (filters: ``--domain``, ``--paper``, ``--extra``, ``--needs``, ``--name``);
``ls``, ``validate``, ``evaluate``, ``rescore``, ``compare`` and ``report`` run a protocol over a
data set (:mod:`transcreval.cli.runs`, docs/cli.md: commands and exit codes).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from transcreval._version import __version__
from transcreval.cli.listing import run_list

__all__ = ["main", "run_list"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; a reader that closes the pipe early (``transcreval list | head``) ends it
    quietly with exit status 141 (128 + SIGPIPE, what a Unix tool killed by SIGPIPE returns)."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # nothing more can reach the reader; send what Python still wants to flush at exit nowhere
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141


def _main(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="transcreval", description="Evaluation metrics for image transcreation.")
    parser.add_argument("--version", action="version", version=f"transcreval {__version__}")
    sub = parser.add_subparsers(dest="command")
    p_demo = sub.add_parser("demo", help="evaluate the embedded demo set (two systems) and write a report")
    p_demo.add_argument("--out", help="the demo's run directory (default: ./transcreval-demo)")
    p_demo.add_argument("--tour", action="store_true", help="then every metric family on the demo posters")
    p_list = sub.add_parser("list", help="list the metrics (name, function, domain, paper, direction, range, extra)")
    p_list.add_argument("--domain", help="image, text, multimodal, layout, choice, judge, ocr or stats")
    p_list.add_argument("--paper", help="MPTc-Bench, Khanuja, PosterIQ or IMTBench (a prefix is enough)")
    p_list.add_argument("--extra", help="the pip extra a metric needs ('core' for none)")
    p_list.add_argument("--needs", help="weights, ocr, judge, or nothing")
    p_list.add_argument("--name", help="a shell pattern on the class name, e.g. '*ChrF'")
    p_list.add_argument("--protocols", action="store_true", help="list the paper protocols instead of the metrics")
    from transcreval.cli import weights as weights_cli

    weights_cli.add_parser(sub)
    from transcreval.cli import judge_cache as cache_cli

    cache_cli.add_parser(sub)
    from transcreval.cli import runs as runs_cli

    runs_cli.add_parsers(sub)
    args = parser.parse_args(argv)
    args.argv = list(argv) if argv is not None else sys.argv[1:]  # what the run records as its command line
    if args.command == "demo":
        from transcreval.demo import run_demo

        return run_demo(out_dir=args.out, tour=args.tour)
    if args.command in runs_cli.COMMANDS:
        return runs_cli.run(args)
    if args.command == "list":
        return run_list(args)
    if args.command == "weights":
        return weights_cli.run(args)
    if args.command == "judge-cache":
        return cache_cli.run(args)
    parser.print_help()
    return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
