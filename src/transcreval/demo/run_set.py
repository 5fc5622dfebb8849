"""``transcreval demo``: ``transcreval evaluate`` on the embedded demo set with two systems.

:func:`write_demo_set` writes the embedded posters (:mod:`transcreval.data.demo_set`) as a
benchmark on disk: SRC and GT posters, a manifest in the runner's format (MPTc-Bench fields:
markets, genre), and two systems' outputs (``text-edit`` and ``redesign``, with their plans).
:func:`evaluate_demo` runs the MPTc-Bench protocol on it with the demo's judge (a fake judge on
loopback unless ``TRANSCREVAL_JUDGE_URL`` names a real endpoint: see
:mod:`transcreval.demo.judges`) and, where their weights are on this machine, Table 5's CLIP and
FID (never downloading anything), prints the tables, compares the systems and writes the report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

__all__ = ["SYSTEMS", "evaluate_demo", "write_demo_set"]

SYSTEMS = ("text-edit", "redesign")
#: the films' release years (the decade quiz)
DEMO_YEAR = {"spirited": 2001, "parasite": 2019, "amelie": 2001, "rrr": 2022}


def write_demo_set(root: Path, posters: list[Any] | None = None) -> tuple[Path, dict[str, Path]]:
    """The demo set as files under ``root``: ``manifest.jsonl``, ``<system>.jsonl``, ``images/``."""
    from transcreval.data.demo_set import build_demo_set
    from transcreval.demo.judges import DEMO_GENRE, MARKETS

    posters = posters if posters is not None else build_demo_set()
    images = root / "images"
    images.mkdir(parents=True, exist_ok=True)
    lines = []
    outs: dict[str, list[dict[str, Any]]] = {s: [] for s in SYSTEMS}
    for p in posters:
        p.source.save(images / f"{p.poster_id}_src.png")
        p.target.save(images / f"{p.poster_id}_gt.png")
        lines.append(
            {
                "id": p.poster_id,
                "source_image": f"images/{p.poster_id}_src.png",
                "reference_image": f"images/{p.poster_id}_gt.png",
                "target_locale": MARKETS.get(p.market, p.market),
                "reference_text": p.target_title,
                "meta": {
                    "source_market": "USA",
                    "genre": DEMO_GENRE.get(p.poster_id, "drama"),
                    "year": DEMO_YEAR.get(p.poster_id),
                    "source_title": p.source_title,
                },
            }
        )
        for s in SYSTEMS:
            p.outputs[s].save(images / f"{p.poster_id}_{s}.png")
            plan = f'1. Title: "{p.source_title}" → "{p.output_titles[s]}"'
            outs[s].append({"id": p.poster_id, "image": f"images/{p.poster_id}_{s}.png", "text": plan})
    manifest = root / "manifest.jsonl"
    manifest.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    systems = {}
    for s, rows in outs.items():
        systems[s] = root / f"{s}.jsonl"
        systems[s].write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows), encoding="utf-8")
    return manifest, systems


def evaluate_demo(out_dir: Path, stream: TextIO, progress: str = "auto") -> Any:
    """Write the set under ``out_dir/data``, evaluate it into ``out_dir/run``, print and report."""
    from transcreval.data.demo_set import build_demo_set
    from transcreval.demo.judges import demo_judge
    from transcreval.runs.api import Run, evaluate
    from transcreval.runs.summary import summary_rows
    from transcreval.utils.text_table import format_table

    posters = build_demo_set()
    manifest, systems = write_demo_set(out_dir / "data", posters)
    try:
        judge, label, cleanup = demo_judge(posters)
    except Exception as e:  # the endpoint in TRANSCREVAL_JUDGE_URL is not usable, or no openai SDK
        judge, label, cleanup = None, f"judge metrics skipped: {e}", lambda: None
    try:
        print(label, file=stream)
        run = evaluate(
            "mptc",
            manifest,
            systems,
            out_dir / "run",
            judge=judge,
            progress=progress,
            options={"planner": "plan"},
            stream=None,
        )
    finally:
        cleanup()
    assert isinstance(run, Run)
    result = run.results
    for key in ("table3", "table4", "fig6", "table5"):
        if key in result.tables:
            print(result.tables[key].to_markdown(), end="\n\n", file=stream)
    print(format_table(summary_rows(result), ["metric", "system", "mean", "n/of", "failures"]), end="\n\n", file=stream)
    comp = run.compare(SYSTEMS[0])
    rows = [
        [
            c.metric,
            c.system,
            f"{c.delta:+.3f}" if c.delta == c.delta else "-",
            f"{c.p_value:.3f}" if c.p_value == c.p_value else "-",
            f"{c.n_groups} source items: never significant" if c.too_few_clusters else "",
        ]
        for c in comp.rows
    ]
    print(format_table(rows, ["metric", "system", f"delta vs {SYSTEMS[0]}", "p", ""]), end="\n\n", file=stream)
    paths = run.report(SYSTEMS[0])
    print(f"run directory: {run.path}\nreport: {paths['html']} and {paths['markdown']}", file=stream)
    return run
