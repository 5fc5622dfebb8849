"""The run commands: ``ls``, ``validate``, ``evaluate``, ``rescore``, ``compare``, ``report``,
and ``meta-evaluate`` (:mod:`transcreval.cli.meta`).

Exit codes (docs/cli.md, :mod:`transcreval.runs.exit_codes`): 0 done; 1 an unexpected error (a
traceback follows); 2 bad input or usage, or a local file problem (one message saying what and
how to fix it; ``validate``: a problem was found); 3 stopped early by ``--max-judge-calls`` /
``--max-tokens`` (everything done is kept: rerun to go on); 4 the judge cannot be used (it
rejects the key or model, never answers, or a judge metric got no usable answer); 130
interrupted (Ctrl-C; everything done is kept).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from transcreval.errors import InputError
from transcreval.runs.exit_codes import EXIT_CODES, exit_code
from transcreval.runs.summary import failure_summary, fmt_number, summary_rows

__all__ = ["EXIT_CODES", "add_parsers", "run"]

COMMANDS = ("ls", "validate", "evaluate", "rescore", "compare", "report", "meta-evaluate")


def _fmt(parser: Any) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text", help="json: machine-readable stdout")


def add_parsers(sub: Any) -> None:
    """Register the run commands on an argparse subparsers object."""
    p = sub.add_parser("ls", help="list the protocols, or the metrics (of a protocol)")
    p.add_argument("what", choices=("protocols", "metrics"))
    p.add_argument("-p", "--protocol", help="with 'metrics': the protocol's runner metrics and options")
    _fmt(p)
    for name, helptext in (
        ("validate", "check a manifest and outputs (files, ids, decoding, counts)"),
        ("evaluate", "score systems on a manifest into a resumable run directory"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("-p", "--protocol", required=True, help="a catalog name (ls protocols) or module:ATTR")
        p.add_argument(
            "-m",
            "--manifest",
            help="the manifest JSONL (not for PosterIQ's own result files, which carry the ground truth)",
        )
        p.add_argument(
            "-s",
            "--system",
            action="append",
            default=[],
            metavar="NAME=PATH",
            help="a system's outputs: JSONL, a directory, or a pattern with {id} (repeat)",
        )
        p.add_argument("--root", help="resolve relative paths against this folder")
        p.add_argument("--metrics", help="comma-separated metrics (units) to run; default: all that can run")
        p.add_argument(
            "--option", action="append", default=[], metavar="KEY=VALUE", help="a protocol option (JSON value)"
        )
        p.add_argument("--limit", type=int, help="only the first N manifest items")
        p.add_argument(
            "--judge", help='judge config: JSON such as {"model": "gpt-4o", "base_url": ...} or a .json file'
        )
        p.add_argument("--device", help="cpu, cuda, cuda:1, ...")
        _fmt(p)
    p.add_argument("-o", "--out", required=True, help="the run directory (resumed when it exists)")
    p.add_argument("--batch-size", type=int, default=16, help="items per scoring batch (default 16)")
    p.add_argument("--progress", choices=("auto", "bar", "log", "none"), default="auto", help="progress on stderr")
    p.add_argument("--dry-run", action="store_true", help="count judge calls and estimate tokens; write nothing")
    p.add_argument("--max-judge-calls", type=int, help="stop cleanly before passing this many judge calls")
    p.add_argument("--max-tokens", type=int, help="stop cleanly before passing this many judge tokens")
    p.add_argument("--fresh", action="store_true", help="delete the run directory first (one holding run.json)")
    p = sub.add_parser("rescore", help="aggregate again from the stored per-item records (no model or judge call)")
    p.add_argument("run_dir")
    _fmt(p)
    p = sub.add_parser("compare", help="every system against a baseline: deltas, 95%% CIs, p-values")
    p.add_argument("run_dir")
    p.add_argument("-b", "--baseline", required=True, help="the baseline system")
    p.add_argument("--test", choices=("bootstrap", "randomization"), default="bootstrap")
    p.add_argument("--n-resamples", type=int, help="default 1000 (bootstrap) / 10000 (randomization)")
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--compat", choices=("transcreval", "sacrebleu"), default="transcreval")
    _fmt(p)
    p = sub.add_parser("report", help="report.md, report.html and figures/ in the run directory")
    p.add_argument("run_dir")
    p.add_argument("-b", "--baseline", help="compare against this system (default: the one of comparisons.json)")
    p.add_argument("--by", help="break every cell down by this record meta key (split, country, ...)")
    p.add_argument(
        "--gallery-metric",
        action="append",
        metavar="METRIC",
        help="show galleries of this metric (repeat for more; default: the most spread metric)",
    )
    _fmt(p)
    import transcreval.cli.meta as meta_cli

    meta_cli.add_parser(sub)


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _options(pairs: list[str]) -> dict[str, Any]:
    out = {}
    for p in pairs:
        k, sep, v = p.partition("=")
        if not sep or not k.strip():
            raise InputError(f"--option takes KEY=VALUE, got {p!r}")
        out[k.strip()] = _value(v)
    return out


def _metrics(text: str | None) -> list[str] | None:
    return [m for m in (text or "").split(",") if m.strip()] or None


def _print_result(run: Any, out: TextIO) -> None:
    from transcreval.utils.text_table import format_table

    result = run.results
    for table in result.tables.values():
        print(table.to_markdown(), end="\n\n", file=out)
    print(format_table(summary_rows(result), ["metric", "system", "mean", "n/of", "failures"]), file=out)


def _result_json(run: Any) -> dict[str, Any]:
    data = json.loads(run.store.results.read_text(encoding="utf-8"))
    res = data.pop("result")
    return {
        "run_dir": str(run.path),
        "stopped": getattr(run, "stopped", None),
        **data,
        "tables": res["tables"],
        "figures": res.get("figures", {}),
    }


def _ls(args: argparse.Namespace, out: TextIO) -> int:
    from transcreval.utils.text_table import format_table

    if args.what == "protocols":
        from transcreval.protocols.catalog import list_protocols

        ps = list_protocols()
        if args.format == "json":
            rows = [
                {
                    "name": p.name,
                    "paper": p.paper,
                    "tables": list(p.tables),
                    "runner": bool(p.runner),
                    "summary": p.summary,
                }
                for p in ps
            ]
            print(json.dumps(rows, indent=1), file=out)
        else:
            rows2 = [[p.name, p.paper, "yes" if p.runner else "no", p.summary] for p in ps]
            print(format_table(rows2, ["protocol", "paper", "evaluate", "what it computes"]), file=out)
        return 0
    if args.protocol is None:
        from transcreval.cli.listing import run_list

        ns = argparse.Namespace(domain=None, paper=None, extra=None, needs=None, name=None, protocols=False)
        if args.format == "json":
            from transcreval.core.registry import list_metrics

            print(json.dumps([m.name for m in list_metrics()], indent=1), file=out)
            return 0
        return run_list(ns, out)
    from transcreval.runs.api import load_adapter

    a = load_adapter(args.protocol)
    units = a.units(dict(a.option_defaults))
    if args.format == "json":
        rows = [
            {
                "name": u.name,
                "metrics": list(u.metrics),
                "judge": u.uses_judge,
                "default": u.default,
                "summary": u.summary,
            }
            for u in units
        ]
        print(
            json.dumps(
                {
                    "protocol": a.name,
                    "version": a.version,
                    "units": rows,
                    "options": a.option_defaults,
                    "meta_fields": a.meta_fields,
                },
                indent=1,
                default=str,
            ),
            file=out,
        )
        return 0
    rows2 = [
        [u.name, ", ".join(u.metrics), "yes" if u.uses_judge else "no", "yes" if u.default else "no", u.summary]
        for u in units
    ]
    print(format_table(rows2, ["metric", "records", "judge", "default", "what"]), file=out)
    print(f"\noptions (--option KEY=VALUE): {json.dumps(dict(a.option_defaults), default=str)}", file=out)
    for k, v in a.meta_fields.items():
        print(f"  meta {k}: {v}", file=out)
    return 0


def _validate(args: argparse.Namespace, out: TextIO) -> int:
    from transcreval.runs.api import parse_systems
    from transcreval.runs.validation import validate

    rep = validate(
        args.protocol,
        args.manifest,
        parse_systems(args.system, allow_empty=True),
        root=args.root,
        options=_options(args.option),
        limit=args.limit,
        metrics=_metrics(args.metrics),
        judge=args.judge,
        device=args.device,
    )
    if args.format == "json":
        print(json.dumps(rep, indent=1), file=out)
    else:
        print(f"{rep['items']} item(s) in {len(rep['groups'])} group(s); locales {rep['locales']}", file=out)
        for name, s in rep["systems"].items():
            print(f"  {name}: {s.get('ok', 0)}/{s['of']} usable outputs {s}", file=out)
        for w in rep["warnings"]:
            print(f"warning: {w}", file=out)
        for e in rep["errors"]:
            print(f"error: {e}", file=out)
        print("ok" if rep["ok"] else f"{len(rep['errors'])} problem(s)", file=out)
    return 0 if rep["ok"] else 2


def _evaluate(args: argparse.Namespace, out: TextIO) -> int:
    from transcreval.runs.api import evaluate, parse_systems

    metrics = _metrics(args.metrics)
    got = evaluate(
        args.protocol,
        args.manifest,
        parse_systems(args.system),
        args.out,
        metrics=metrics,
        options=_options(args.option),
        judge=args.judge,
        root=args.root,
        limit=args.limit,
        device=args.device,
        batch_size=args.batch_size,
        progress=args.progress,
        dry_run=args.dry_run,
        max_judge_calls=args.max_judge_calls,
        max_tokens=args.max_tokens,
        fresh=args.fresh,
        command=["transcreval", *getattr(args, "argv", sys.argv[1:])],
    )
    from transcreval.runs.api import Run

    if not isinstance(got, Run):  # a dry run
        if not got.primary:  # another rank of a torchrun run: rank 0 prints the totals
            return 0
        if args.format == "json":
            print(json.dumps(got.to_dict(), indent=1), file=out)
            return 0
        from transcreval.utils.text_table import format_table

        rows = [[u, v.get("calls", 0), v.get("cached", 0), v.get("est_prompt_tokens", 0)] for u, v in got.judge.items()]
        print(format_table(rows, ["metric", "judge calls", "cached", "est. prompt tokens"]), file=out)
        todo = [[r["unit"], r["system"], r["items"], r["done"], r.get("to_compute", "?")] for r in got.rows]
        print("\n" + format_table(todo, ["metric", "system", "items", "done", "to compute"]), file=out)
        return 0
    unusable = got.engine_report.judge_unusable if got.engine_report is not None else None
    if not got.primary:
        # another rank of a torchrun run: rank 0 prints and gives the exit code (a rank ending with
        # a non-zero code first would make torchrun stop rank 0 while it prints)
        return 0
    if args.format == "json":
        print(json.dumps(_result_json(got), indent=1, ensure_ascii=False), file=out)
    else:
        _print_result(got, out)
        print(f"\nrun directory: {got.path}", file=out)
    for line in failure_summary(got.results):
        print(line, file=sys.stderr)
    if got.stopped:  # said also when exit 4 wins: the rerun has both to go on with
        print(f"stopped early: {got.stopped}; rerun the same command to go on", file=sys.stderr)
    if unusable:
        print(f"transcreval evaluate: the judge cannot be used: {unusable}; rerun when it answers", file=sys.stderr)
        return 4
    return 3 if got.stopped else 0


def _rescore(args: argparse.Namespace, out: TextIO) -> int:
    from transcreval.runs.api import Run

    run = Run(args.run_dir)
    run.rescore()
    if args.format == "json":
        print(json.dumps(_result_json(run), indent=1, ensure_ascii=False), file=out)
    else:
        _print_result(run, out)
    return 0


def _compare(args: argparse.Namespace, out: TextIO) -> int:
    from transcreval.runs.api import Run
    from transcreval.utils.text_table import format_table

    comp = Run(args.run_dir).compare(
        args.baseline,
        test=args.test,
        n_resamples=args.n_resamples,
        seed=args.seed,
        confidence=args.confidence,
        alpha=args.alpha,
        compat=args.compat,
    )
    if args.format == "json":
        print(json.dumps(comp.to_dict(), indent=1), file=out)
        return 0
    rows = []
    for c in comp.rows:
        ci = f"[{fmt_number(c.ci[0], 3)}, {fmt_number(c.ci[1], 3)}]" if c.ci else "-"
        mark = "↑" if c.significant and c.delta > 0 else "↓" if c.significant else "·"
        if c.too_few_clusters:
            mark += f" (only {c.n_groups} source item(s): never significant)"
        rows.append(
            [
                c.metric,
                c.system,
                fmt_number(c.value, 3),
                fmt_number(c.delta, 3),
                ci,
                fmt_number(c.p_value, 4),
                mark,
                f"{c.n} ({c.n_missing} missing)",
            ]
        )
    head = ["metric", "system", "value", f"delta vs {comp.baseline}", "95% CI", "p", "", "n"]
    print(format_table(rows, head), file=out)
    return 0


def _report(args: argparse.Namespace, out: TextIO) -> int:
    from transcreval.runs.api import Run

    paths = Run(args.run_dir).report(args.baseline, by=args.by, gallery_metrics=args.gallery_metric)
    if args.format == "json":
        print(json.dumps({k: str(v) for k, v in paths.items()}, indent=1), file=out)
    else:
        print(f"wrote {paths['markdown']} and {paths['html']}", file=out)
    return 0


def _meta_evaluate(args: argparse.Namespace, out: TextIO) -> int:
    from transcreval.cli.meta import meta_evaluate_command

    return meta_evaluate_command(args, out)


_HANDLERS: dict[str, Callable[[argparse.Namespace, TextIO], int]] = {
    "ls": _ls,
    "validate": _validate,
    "evaluate": _evaluate,
    "rescore": _rescore,
    "compare": _compare,
    "report": _report,
    "meta-evaluate": _meta_evaluate,
}


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run a parsed run command and return its exit code (see the module docstring)."""
    stream = out if out is not None else sys.stdout
    try:
        return _HANDLERS[args.command](args, stream)
    except (Exception, KeyboardInterrupt) as e:  # one line and the exit code (transcreval.runs.exit_codes)
        return exit_code(args.command, e)
