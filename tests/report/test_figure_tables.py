"""A report shows the numbers behind each paper figure and the result's notes, plots or not.

A report made without matplotlib (``plots=False``) drew no figure and said nothing of the
figures' numbers or of ``ProtocolResult.notes``; both now appear as (folded when long) tables.
"""

from __future__ import annotations

from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table
from transcreval.report.build import build_report


def _result(notes: tuple[str, ...] = ()) -> ProtocolResult:
    fig = Table(
        "Fig. 3: pHash distance histogram",
        ("Surface", "Deep"),
        (0, 40),
        {(0, "Surface"): Cell(2.0, 2), (40, "Deep"): Cell(1.0, 1)},
        0,
    )
    recs = (ItemRecord("i1", "A", "score", 1.0), ItemRecord("i2", "A", "score", 0.5))
    return ProtocolResult("demo", recs, {}, figures={"fig3": fig}, notes=notes)


def test_a_figure_table_appears_without_plots():
    md = build_report(_result(), plots=False, gallery_metrics=[], n_resamples=50).to_markdown()
    assert "Fig. 3: pHash distance histogram" in md
    row = next(ln for ln in md.splitlines() if ln.startswith("| 0 |"))
    assert "2 (n=2)" in row


def test_the_results_notes_appear_one_per_row_and_fold_when_long():
    notes = tuple(f"item {i}: empty key point" for i in range(25))
    report = build_report(_result(notes), plots=False, gallery_metrics=[], n_resamples=50)
    md = report.to_markdown()
    assert "demo: notes" in md and "| 25 | item 24: empty key point |" in md
    table = next(b for b in report.blocks if getattr(b, "caption", "") == "demo: notes")
    assert table.folded  # 25 rows > FOLD_ROWS
    assert "demo: notes" not in build_report(_result(), plots=False, gallery_metrics=[], n_resamples=50).to_markdown()
