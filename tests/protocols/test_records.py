"""The shared protocol output types: records, cells, tables."""

from __future__ import annotations

import json
import math

import pytest

from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table, cell_mean


def test_record_status_and_value_must_agree():
    ItemRecord("a", "sys", "m", 0.5)
    ItemRecord("a", "sys", "m", math.nan, status="unparsable")
    with pytest.raises(ValueError, match="status 'ok' needs a finite value"):
        ItemRecord("a", "sys", "m", math.nan)
    with pytest.raises(ValueError, match="needs value NaN"):
        ItemRecord("a", "sys", "m", 0.5, status="api_error")
    assert ItemRecord("a", "sys", "m", 1.0).to_dict()["group"] == "a"
    assert ItemRecord("a", "sys", "m", math.nan, "timeout", group="src1").to_dict() == {
        "item_id": "a",
        "system": "sys",
        "metric": "m",
        "value": None,
        "status": "timeout",
        "group": "src1",
        "meta": {},
    }


def test_cell_mean_counts_missing_and_scales():
    c = cell_mean([1.0, math.nan, 0.0, 0.5], scale=100)
    assert c == Cell(50.0, 3, 1)
    empty = cell_mean([math.nan, math.nan])
    assert empty.n == 0 and empty.n_missing == 2 and empty.format(1) == "-"
    assert cell_mean([]).n == 0


def test_table_markdown_rounds_per_column_and_marks_missing_cells():
    t = Table(
        "Demo Table",
        columns=("chrF", "Win%"),
        rows=(("p1", "e1"), "GT"),
        cells={
            (("p1", "e1"), "chrF"): Cell(41.266, 3),
            (("p1", "e1"), "Win%"): Cell(12.5, 8),
            ("GT", "chrF"): Cell(100.0, 3),
        },
        decimals={"chrF": 2, "Win%": 1},
        units="%",
        notes=("GT has no win rate",),
    )
    md = t.to_markdown()
    assert "| p1 / e1 | 41.27 | 12.5 |" in md
    assert "| GT | 100.00 | - |" in md
    assert md.startswith("**Demo Table** (%)") and md.endswith("- GT has no win rate")
    assert t.cell(("p1", "e1"), "Win%").n == 8
    with pytest.raises(KeyError, match="Demo Table: no cell at row 'GT', column 'Win%'"):
        t.cell("GT", "Win%")
    json.dumps(t.to_dict())


def test_result_select_values_and_json():
    recs = (
        ItemRecord("i1", "A", "m", 1.0),
        ItemRecord("i2", "A", "m", math.nan, "unparsable"),
        ItemRecord("i1", "B", "m", 0.0),
    )
    res = ProtocolResult("demo", recs, {})
    assert [r.item_id for r in res.select(system="A")] == ["i1", "i2"]
    assert res.select(status="unparsable")[0].item_id == "i2"
    vals = res.values("A", "m", ["i2", "i1", "i3"])
    assert math.isnan(vals[0]) and vals[1] == 1.0 and math.isnan(vals[2])
    d = json.loads(json.dumps(res.to_dict()))
    assert d["records"][1]["value"] is None and d["protocol"] == "demo"


def test_figures_travel_through_to_dict_and_back_and_older_results_still_load():
    from transcreval.runs.aggregate import result_from_dict

    fig = Table(
        "Fig. X",
        ("Surface", "Deep"),
        (0, ("a", "b")),
        {(0, "Surface"): Cell(3.0, 3), (("a", "b"), "Deep"): Cell(0.25, 4, 1, (0.1, 0.4))},
        {"Surface": 0, "Deep": 2},
        "pairs",
        ("a note",),
    )
    res = ProtocolResult("demo", (ItemRecord("i1", "A", "m", 1.0),), {}, figures={"fig_x": fig})
    d = json.loads(json.dumps(res.to_dict()))
    assert list(d["figures"]) == ["fig_x"]
    back = result_from_dict(d)
    assert back.figures["fig_x"] == fig  # tuple row labels, cells, decimals, units, notes all come back
    assert back.figures["fig_x"].cell(("a", "b"), "Deep").ci == (0.1, 0.4)
    d.pop("figures")  # a results.json written before figures existed
    assert result_from_dict(d).figures == {}


def test_a_zero_count_prints_0_and_only_a_cell_without_value_prints_a_dash():
    """Every table view (Markdown, text, HTML, the report's paper tables) prints a count of 0 as
    "0" (the papers print counts, MPTc Table 9 included) and "-" only where there is no value."""
    from transcreval.protocols.records import ItemRecord, ProtocolResult
    from transcreval.report.build import build_report

    t = Table(
        "Counts",
        columns=("n", "years used", "rho"),
        rows=("run", "median"),
        cells={
            ("run", "n"): Cell(0.0, 0, 3),
            ("run", "years used"): Cell(0.0, 0),
            ("run", "rho"): Cell(math.nan, 0, 3),
            ("median", "rho"): Cell(0.25, 1),
        },
        decimals={"n": 0, "years used": 0, "rho": 3},
    )
    assert Cell(0.0, 0).format(0) == "0" and Cell(math.nan, 0).format(0) == "-" and Cell(math.nan, 4).format(1) == "-"
    assert "| run | 0 | 0 | - |" in t.to_markdown() and "| median | - | - | 0.250 |" in t.to_markdown()
    assert any(ln.split() == ["run", "0", "0", "-"] for ln in t.to_text().splitlines())
    assert "<td>run</td><td>0</td><td>0</td><td>-</td>" in t._repr_html_()
    res = ProtocolResult("demo", (ItemRecord("i1", "run", "score", 1.0),), {"counts": t})
    md = build_report(res, plots=False, gallery_metrics=[], n_resamples=50).to_markdown()
    row = next(ln for ln in md.splitlines() if ln.startswith("| run | 0"))
    assert "0 (n=0)" in row and "- (n=0, 3 missing)" in row
