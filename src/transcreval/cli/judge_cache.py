"""``transcreval judge-cache stats|export|prune PATH``: look after a judge response cache."""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from typing import Any, TextIO

from transcreval.errors import TranscrevalError

__all__ = ["add_parser", "run"]

_BUSY = 5.0  # seconds the commands wait for a lock held by a running evaluation


def add_parser(sub: Any) -> None:
    """Register the ``judge-cache`` subcommand on an argparse subparsers object."""
    p = sub.add_parser("judge-cache", help="inspect, export or prune a judge response cache (SQLite)")
    cmds = p.add_subparsers(dest="cache_command", required=True)
    s = cmds.add_parser("stats", help="answers per model and template, token totals, size")
    s.add_argument("path")
    s.add_argument("--json", action="store_true", help="print the numbers as JSON")
    e = cmds.add_parser("export", help="every stored answer as JSON lines (request without pixels, raw text)")
    e.add_argument("path")
    e.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    r = cmds.add_parser("prune", help="delete stored answers matching every given filter")
    r.add_argument("path")
    r.add_argument("--older-than", type=float, metavar="DAYS", help="answers stored more than DAYS days ago")
    r.add_argument("--model", help="answers of this model")
    r.add_argument("--template", help="answers to this template id (or id@version)")
    r.add_argument("--dry-run", action="store_true", help="count, delete nothing")


def _when(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts)) if ts else "-"


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run a parsed ``judge-cache`` command; errors print one line and return 1."""
    from transcreval.engines.judge.cache import JudgeCache

    stream = out if out is not None else sys.stdout
    cmd = args.cache_command
    try:
        if cmd == "stats":
            cache = JudgeCache(args.path, "read-only", busy_timeout=_BUSY)
            st = {**cache.stats(), "setups": cache.setups()}
            if args.json:
                print(json.dumps(st, indent=2, sort_keys=True), file=stream)
                return 0
            print(f"{st['path']}: {st['answers']} answers, {st['bytes'] / 1e6:.2f} MB", file=stream)
            print(f"stored between {_when(st['oldest'])} and {_when(st['newest'])}", file=stream)
            for name, m in sorted(st["models"].items()):
                asked = name.split(":", 1)[-1]
                other = {k: v for k, v in st.get("served", {}).get(name, {}).items() if k != asked}
                served = "; served as " + ", ".join(f"{k} ({v})" for k, v in sorted(other.items())) if other else ""
                print(
                    f"  model {name}: {m['answers']} answers, {m['prompt_tokens']} prompt + "
                    f"{m['completion_tokens']} completion tokens (as reported by the endpoint){served}",
                    file=stream,
                )
            for name, n in sorted(st["templates"].items()):
                print(f"  template {name}: {n} answers", file=stream)
            for setup in st["setups"]:
                shown = ", ".join(f"{k}={v!r}" for k, v in setup.items() if v not in (None, {}))
                print(f"  recorded setup: {shown}", file=stream)
            return 0
        if cmd == "export":
            cache = JudgeCache(args.path, "read-only", busy_timeout=_BUSY)
            target = stream if args.output == "-" else open(args.output, "w", encoding="utf-8")  # noqa: SIM115
            try:
                n = 0
                for row in cache.rows():
                    target.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
                    n += 1
            finally:
                if target is not stream:
                    target.close()
            if args.output != "-":
                print(f"exported {n} answers to {args.output}", file=stream)
            return 0
        if cmd == "prune":
            mode = "read-write" if not args.dry_run else "read-only"
            cache = JudgeCache(args.path, mode, create=False, busy_timeout=_BUSY)
            if args.dry_run:
                n = cache.prune(older_than_days=args.older_than, model=args.model, template=args.template, dry_run=True)
                print(f"{n} answers match (dry run: nothing deleted)", file=stream)
            else:
                n = cache.prune(older_than_days=args.older_than, model=args.model, template=args.template)
                print(f"deleted {n} answers; {len(cache)} left", file=stream)
            return 0
    except (TranscrevalError, ValueError, OSError, sqlite3.Error) as e:
        print(f"transcreval judge-cache {cmd}: {e}", file=sys.stderr)
        return 1
    raise AssertionError(cmd)  # pragma: no cover - argparse rejects unknown commands
