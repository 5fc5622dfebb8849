"""MPTc-Bench has one pipeline: ``transcreval evaluate --protocol mptc`` (the runner adapter) and
the Python :func:`transcreval.protocols.mptc.evaluate` give the same tables on the embedded demo
set, with the demo's judge (every judge-derived table: Tables 3 and 4, Fig. 6, Fig. 7 and the
GT rows) and the same figures. The per-part comparisons (Table 5 from stored features, Table 10 from the OCR unit)
are in tests/runs/test_mptc.py."""

from __future__ import annotations

import json
import math

from transcreval import evaluate
from transcreval.protocols import mptc


def _python_inputs(manifest, systems, planner):
    """The same benchmark as MPTc records, read straight from the written files."""
    root = manifest.parent
    items = []
    for line in manifest.read_text(encoding="utf-8").splitlines():
        x = json.loads(line)
        items.append(
            {
                "item_id": x["id"],
                "source": str(root / x["source_image"]),
                "gt": str(root / x["reference_image"]),
                "target_market": x["target_locale"],
                **{k: v for k, v in x["meta"].items() if v is not None},
            }
        )
    outputs = []
    for editor, path in systems.items():
        for line in path.read_text(encoding="utf-8").splitlines():
            x = json.loads(line)
            outputs.append(
                {
                    "item_id": x["id"],
                    "planner": planner,
                    "editor": editor,
                    "output": str(root / x["image"]),
                    "plan": x["text"],
                }
            )
    return items, outputs


def _run_name(label, names):
    """A row label as the run prints it: MPTc's ``"Editor + Planner"`` in the run's system name."""
    if isinstance(label, tuple):
        return tuple(names.get(x, x) for x in label)
    return names.get(label, label)


def _same_table(got, want, key, names):
    assert got.rows == tuple(_run_name(r, names) for r in want.rows) and got.columns == want.columns, key
    assert got.notes == want.notes, key
    assert set(got.cells) == {(_run_name(r, names), c) for r, c in want.cells}, key
    for (row, col), w in want.cells.items():
        cell = (_run_name(row, names), col)
        g = got.cells[cell]
        assert (g.n, g.n_missing) == (w.n, w.n_missing), (key, cell)
        assert (math.isnan(g.value) and math.isnan(w.value)) or g.value == w.value, (key, cell, g, w)


def test_the_runner_and_the_python_evaluate_give_the_same_tables_on_the_demo_set(tmp_path, monkeypatch):
    from transcreval.data.demo_set import build_demo_set
    from transcreval.demo.judges import demo_judge
    from transcreval.demo.run_set import write_demo_set

    monkeypatch.delenv("TRANSCREVAL_JUDGE_URL", raising=False)
    posters = build_demo_set()
    manifest, systems = write_demo_set(tmp_path / "data", posters)
    judge, _, cleanup = demo_judge(posters)
    try:
        run = evaluate(
            "mptc", manifest, systems, tmp_path / "run", judge=judge, options={"planner": "plan"}, metrics=["judge"]
        )
        items, outputs = _python_inputs(manifest, systems, "plan")
        ref = mptc.evaluate(items, outputs, judge=judge)
    finally:
        cleanup()
    assert ref.options["parts"] == ["judge_tables", "cross_cluster_tables"]
    assert {"table3", "table4", "fig6"} <= set(ref.tables) <= set(run.tables)
    names = {f"{s} + plan": s for s in systems}  # the run names its rows by its own system names
    for key, want in ref.tables.items():
        _same_table(run.tables[key], want, key, names)
    n_cells = sum(1 for t in ref.tables.values() for c in t.cells.values() if c.n > 0)
    assert n_cells > 20  # the comparison covers real numbers, not empty tables
    # the figures (Fig. 3, 8, 9 from the items) come from the same builders on both paths
    assert (
        set(ref.figures) == set(run.figures) == {"fig3_phash_hist", "fig8_globe_transitions", "fig9_phash_by_direction"}
    )
    for key, want in ref.figures.items():
        _same_table(run.figures[key], want, key, names)
    assert sum(c.value for c in ref.figures["fig3_phash_hist"].cells.values()) == len(items)
