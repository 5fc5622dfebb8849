"""``transcreval meta-evaluate -p khanuja --scores FILE --ratings DIR [-o OUT]``.

Correlates any metric's per-item scores with a paper's human ratings through the protocol's
meta-evaluation (its catalog entry's ``meta_evaluate``; Khanuja et al.'s Table 3:
:func:`transcreval.protocols.khanuja.meta_evaluate`), prints the tables (Markdown, or JSON with
``--format json``) and with ``-o`` writes the whole result: ``.md`` the tables, any other name
JSON (tables, records, options). Exit codes as the run commands' (docs/cli.md): 0 done, 2 bad
input (one message saying what and how to fix it).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
from pathlib import Path
from typing import Any, TextIO

from transcreval.errors import InputError

__all__ = ["add_parser", "meta_evaluate_command"]


def add_parser(sub: Any) -> None:
    """Register ``meta-evaluate`` on an argparse subparsers object."""
    p = sub.add_parser("meta-evaluate", help="correlate a metric's per-item scores with the paper's human ratings")
    p.add_argument("-p", "--protocol", required=True, help="a protocol with human ratings (khanuja)")
    p.add_argument("--scores", required=True, help="CSV or JSONL rows: country,image,system,row,column,value")
    p.add_argument("--ratings", required=True, help="the human ratings folder (khanuja: human_evaluation/part-1)")
    p.add_argument("-o", "--out", help="write the result: FILE.md (the tables) or FILE.json (tables, records)")
    p.add_argument("--average", choices=("countries", "segments"), default="countries")
    p.add_argument("--bootstrap", type=int, default=0, help="resamples for a percentile interval per cell")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--unrated", choices=("error", "skip"), default="error", help="scores on images nobody rated")
    p.add_argument("--blank", choices=("missing", "error"), default="missing", help="a blank human rating")
    p.add_argument("--format", choices=("text", "json"), default="text", help="json: machine-readable stdout")


def _function(protocol: str) -> Any:
    from transcreval.protocols.catalog import PROTOCOLS, get_protocol

    try:
        info = get_protocol(protocol)
    except KeyError as e:
        raise InputError(str(e.args[0])) from None
    if not info.meta_evaluate:
        have = ", ".join(p.name for p in PROTOCOLS if p.meta_evaluate)
        raise InputError(
            f"protocol {protocol!r} has no human ratings to meta-evaluate against (protocols that do: {have})"
        )
    module, _, attr = info.meta_evaluate.partition(":")
    return getattr(importlib.import_module(module), attr)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def meta_evaluate_command(args: argparse.Namespace, out: TextIO) -> int:
    """Run a parsed ``meta-evaluate`` command; returns the exit code (errors propagate to the caller)."""
    from transcreval.runs.store import write_json

    fn = _function(args.protocol)
    result = fn(
        args.scores,
        args.ratings,
        average=args.average,
        bootstrap=args.bootstrap,
        seed=args.seed,
        allow_blank=args.blank == "missing",
        unrated=args.unrated,
    )
    markdown = "\n\n".join(t.to_markdown() for t in result.tables.values()) + "\n"
    if args.out:
        dest = Path(args.out)
        if dest.suffix.lower() == ".md":
            _write(dest, markdown)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            write_json(dest, result.to_dict())
    if args.format == "json":
        data = {"tables": {k: t.to_dict() for k, t in result.tables.items()}, "options": dict(result.options)}
        print(json.dumps(data, indent=1, ensure_ascii=False, default=str), file=out)
    else:
        print(markdown, file=out, end="")
        if args.out:
            print(f"\nwrote {args.out}", file=out)
    return 0
