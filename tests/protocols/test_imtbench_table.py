"""IMTBench Table 2 from per-item records, and the manifest / outputs readers.

Table 2's cells are computed here by hand from the per-item values; the paper's "All" row
(S_avg) is the plain mean of the four scenario means, which reproduces its 57.8 (GPT) and 56.4
(Gemini), where the item-weighted mean over 800/800/400/500 items does not.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from PIL import Image

from transcreval.errors import InputError
from transcreval.protocols.catalog import get_protocol
from transcreval.protocols.imtbench import COLUMNS, table2
from transcreval.protocols.imtbench.inputs import read_manifest, read_outputs
from transcreval.protocols.imtbench.tables import fig6_by_source
from transcreval.protocols.records import ItemRecord

COMPONENTS = COLUMNS[:4]
# Table 2 of the paper (%), per scenario: S_text, S_bg, S_align, S_vis
PAPER = {
    "GPT": {
        "document": (61.0, 57.8, 17.4, 72.1),
        "web": (79.7, 78.6, 16.5, 71.8),
        "scene": (68.3, 41.7, 55.1, 78.2),
        "ppt": (78.8, 56.7, 14.4, 76.5),
    },
    "Gemini": {
        "document": (62.9, 81.5, 1.27, 70.3),
        "web": (76.8, 71.3, 1.1, 68.8),
        "scene": (67.8, 62.5, 32.7, 74.1),
        "ppt": (76.9, 60.0, 20.9, 73.0),
    },
}
PAPER_ALL = {"GPT": 57.8, "Gemini": 56.4}
ITEMS_PER_SCENARIO = {"document": 8, "web": 8, "scene": 4, "ppt": 5}  # the paper's 800/800/400/500, / 100


def _records(system, values_by_item, meta_by_item, status=None):
    status = status or {}
    out = []
    for item, values in values_by_item.items():
        vals = dict(zip(COMPONENTS, values))
        for c in COMPONENTS:
            st = status.get((item, c), "ok")
            out.append(ItemRecord(item, system, c, vals[c] if st == "ok" else math.nan, st, None, meta_by_item[item]))
        ok = all(status.get((item, c), "ok") == "ok" for c in COMPONENTS)
        s = sum(vals.values()) / 4 if ok else math.nan
        out.append(ItemRecord(item, system, "S", s, "ok" if ok else "missing_component", None, meta_by_item[item]))
    return out


@pytest.mark.parametrize("system", ["GPT", "Gemini"])
def test_the_all_row_reproduces_the_paper_and_the_item_weighted_mean_does_not(system):
    values, meta = {}, {}
    for scen, comps in PAPER[system].items():
        for k in range(ITEMS_PER_SCENARIO[scen]):
            values[f"{scen}-{k}"] = tuple(v / 100 for v in comps)
            meta[f"{scen}-{k}"] = {"scenario": scen, "language": "fr"}
    t = table2(_records(system, values, meta), system)
    s_avg = t.cell(("All", "S_avg"), "S")
    assert round(s_avg.value, 1) == PAPER_ALL[system]
    weighted = t.cell(("All", "item-weighted"), "S").value
    assert round(weighted, 1) != PAPER_ALL[system]
    by_hand = sum(ITEMS_PER_SCENARIO[s] * sum(c) / 4 for s, c in PAPER[system].items()) / sum(
        ITEMS_PER_SCENARIO.values()
    )
    assert weighted == pytest.approx(by_hand)
    assert t.cell(("Doc.", "all"), "S_align").format(1) == f"{PAPER[system]['document'][2]:.1f}"
    assert s_avg.n == 25 and s_avg.n_missing == 0


def test_cells_by_hand_with_missing_components_never_averaged_as_zero():
    rng = np.random.default_rng(3)
    meta, values, status = {}, {}, {}
    for k in range(12):
        item = f"i{k}"
        meta[item] = {"scenario": ("document", "scene")[k % 2], "language": ("de", "fr")[(k // 2) % 2]}
        values[item] = tuple(float(v) for v in rng.uniform(0, 1, 4))
    status[("i1", "S_align")] = "unparsable"
    status[("i4", "S_text")] = "missing_output"
    status[("i4", "S_align")] = "missing_output"
    status[("i7", "S_bg")] = "no_background"
    t = table2(_records("sys", values, meta, status), "sys")

    def hand(items, col):
        got = []
        for it in items:
            if col == "S":
                if all(status.get((it, c), "ok") == "ok" for c in COMPONENTS):
                    got.append(sum(values[it]) / 4)
            elif status.get((it, col), "ok") == "ok":
                got.append(values[it][COMPONENTS.index(col)])
        return 100 * sum(got) / len(got), len(got), len(items) - len(got)

    groups = {
        ("Doc.", "all"): [i for i in values if meta[i]["scenario"] == "document"],
        ("Scene", "all"): [i for i in values if meta[i]["scenario"] == "scene"],
        ("Doc.", "de"): [i for i in values if meta[i] == {"scenario": "document", "language": "de"}],
        ("Scene", "fr"): [i for i in values if meta[i] == {"scenario": "scene", "language": "fr"}],
        ("All", "fr"): [i for i in values if meta[i]["language"] == "fr"],
        ("All", "item-weighted"): list(values),
    }
    for row, items in groups.items():
        for col in COLUMNS:
            value, n, missing = hand(items, col)
            cell = t.cell(row, col)
            assert cell.value == pytest.approx(value, abs=1e-9) and (cell.n, cell.n_missing) == (n, missing), (row, col)
    for col in COLUMNS:
        doc, scene = hand(groups[("Doc.", "all")], col), hand(groups[("Scene", "all")], col)
        cell = t.cell(("All", "S_avg"), col)
        assert cell.value == pytest.approx((doc[0] + scene[0]) / 2) and cell.n == doc[1] + scene[1]
        assert cell.n_missing == doc[2] + scene[2]
    assert t.rows[:3] == (("Doc.", "all"), ("Doc.", "de"), ("Doc.", "fr"))
    assert t.rows[-2:] == (("All", "S_avg"), ("All", "item-weighted"))
    assert t.columns == ("S_text", "S_bg", "S_align", "S_vis", "S") and t.units == "%"
    assert any("S_align missing: missing_output 1, unparsable 1" in n for n in t.notes)
    assert "| Doc. / all |" in t.to_markdown()


def test_a_component_missing_everywhere_is_a_dash_not_a_zero():
    meta = {"a": {"scenario": "web", "language": "en"}}
    status = {("a", "S_vis"): "api_error"}
    t = table2(_records("s", {"a": (0.5, 0.5, 0.5, 0.5)}, meta, status), "s")
    cell = t.cell(("Web", "all"), "S_vis")
    assert cell.n == 0 and cell.n_missing == 1 and cell.format(1) == "-"
    assert t.cell(("All", "S_avg"), "S").format(1) == "-"
    with pytest.raises(InputError, match="no records of system"):
        table2([], "s")


def test_catalog_lists_imtbench():
    info = get_protocol("imtbench")
    assert info.paper == "IMTBench" and "Table 2" in info.tables and info.load().__name__ == info.module


# ---------------------------------------------------------------------- manifest and outputs
def _write(path, rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path):
    for name in ("s.png", "r.png", "o.png"):
        Image.new("RGB", (8, 8), (200, 10, 10)).save(tmp_path / name)
    return tmp_path


def _row(**over):
    row = {
        "id": "a",
        "scenario": "Document",
        "language": "French",
        "source_image": "s.png",
        "reference_image": "r.png",
        "source_text": ["Teacher's", "lounge"],
        "reference_text": "Salle des professeurs",
    }
    row.update(over)
    return {k: v for k, v in row.items() if v is not ...}


def test_manifest_reads_and_normalises(files):
    items = read_manifest(_write(files / "m.jsonl", [_row(), "", _row(id="b", scenario="slides", language="ja")]))
    assert [(i.id, i.scenario, i.language, i.line) for i in items] == [
        ("a", "document", "fr", 1),
        ("b", "ppt", "ja", 3),
    ]
    assert items[0].source_text == "Teacher's\nlounge" and items[0].reference_image == files / "r.png"
    outs = read_outputs(_write(files / "o.jsonl", [{"id": "b", "image": "o.png", "text": None}]), items)
    assert outs["b"].image == files / "o.png" and outs["b"].text is None and "a" not in outs


@pytest.mark.parametrize(
    ("rows", "match"),
    [
        ([_row(), "{not json"], r"m\.jsonl line 2: not a JSON object \(Expecting"),
        ([_row(), "[1, 2]"], "line 2: not a JSON object"),
        ([_row(reference_image="missing.png")], "line 1: reference_image 'missing.png' does not exist"),
        ([_row(scenario="poster")], "line 1: unknown scenario 'poster'"),
        ([_row(language="xx")], "line 1: unknown language 'xx'"),
        ([_row(), _row()], "line 2: id 'a' repeats line 1"),
        ([_row(source_text=...)], "line 1: missing 'source_text'"),
        ([_row(reference_text=5)], "line 1: 'reference_text' must be a string"),
        ([""], "no items"),
    ],
)
def test_manifest_errors_name_the_line(files, rows, match):
    with pytest.raises(InputError, match=match):
        read_manifest(_write(files / "m.jsonl", rows))


@pytest.mark.parametrize(
    ("rows", "match"),
    [
        ([{"id": "zz", "image": "o.png"}], r"o\.jsonl line 1: id 'zz' is not in the manifest"),
        ([{"id": "a", "image": "gone.png"}], "line 1: image 'gone.png' does not exist"),
        ([{"id": "a"}, {"id": "a"}], "line 2: id 'a' repeats line 1"),
        ([{"image": "o.png"}], "line 1: missing 'id'"),
        ([{"id": "a", "text": {"x": 1}}], "'text' must be a string"),
    ],
)
def test_output_errors_name_the_line(files, rows, match):
    items = read_manifest(_write(files / "m.jsonl", [_row()]))
    with pytest.raises(InputError, match=match):
        read_outputs(_write(files / "o.jsonl", rows), items)


def test_rows_given_in_python_and_the_languages_option(files):
    items = read_manifest(
        [_row(language="pt", source_image=files / "s.png", reference_image=files / "r.png")], languages=["pt"]
    )
    assert items[0].language == "pt"
    with pytest.raises(InputError, match="the manifest, row 1: unknown language 'pt'"):
        read_manifest([_row(language="pt", source_image=files / "s.png", reference_image=files / "r.png")])


def test_fig6_by_source_groups_by_target_then_source_language_by_hand():
    # target de: sources en (i0: S 0.5, i1: S_text missing) and zh (i2: 0.2); target fr: en (i3: 0.8);
    # i4 has no source language; all components equal the item's S so the means are read off by hand
    spec = {"i0": ("de", "en", 0.5), "i1": ("de", "en", 0.9), "i2": ("de", "zh", 0.2), "i3": ("fr", "en", 0.8),
            "i4": ("de", None, 0.1)}  # fmt: skip
    meta = {
        i: {"scenario": "document", "language": t, **({"source_language": s} if s else {})}
        for i, (t, s, _) in spec.items()
    }
    values = {i: (v, v, v, v) for i, (_, _, v) in spec.items()}
    recs = _records("sys", values, meta, {("i1", "S_text"): "unparsable"})
    t = fig6_by_source(recs)
    assert t.rows == (("sys", "de", "en"), ("sys", "de", "zh"), ("sys", "fr", "en"))
    assert t.cell(("sys", "de", "en"), "S_bg").value == pytest.approx(70.0)  # (0.5 + 0.9) / 2
    s_text = t.cell(("sys", "de", "en"), "S_text")
    assert (s_text.value, s_text.n, s_text.n_missing) == (pytest.approx(50.0), 1, 1)
    assert t.cell(("sys", "de", "en"), "S").value == pytest.approx(50.0)  # i1 has no S
    assert t.cell(("sys", "de", "zh"), "S").value == pytest.approx(20.0)
    assert t.cell(("sys", "fr", "en"), "S_vis").value == pytest.approx(80.0)
    assert any("sys: 1 item(s) without a source_language" in n for n in t.notes)
    no_source = [r for r in recs if r.item_id == "i4"]
    assert fig6_by_source(no_source) is None


def test_s_avg_s_cell_two_readings_by_hand():
    """With a missing component the S_avg row's S (the mean of the scenario rows' S, each over
    complete items) differs from the mean of the row's four component cells (Eq. 6 applied to
    the row). Doc.: d0 (20, 40, 60, 80) complete, d1 (100, 0, -, 0) without S_align; Scene: s0
    (50, 50, 50, 50). Scenario S: Doc. 50 (d0 only), Scene 50, so S_avg S = 50. The row's
    components: S_text (60 + 50) / 2 = 55, S_bg (20 + 50) / 2 = 35, S_align (60 + 50) / 2 = 55,
    S_vis (40 + 50) / 2 = 45, whose mean is 47.5."""
    meta = {"d0": {"scenario": "document", "language": "de"}, "d1": {"scenario": "document", "language": "de"},
            "s0": {"scenario": "scene", "language": "de"}}  # fmt: skip
    values = {"d0": (0.2, 0.4, 0.6, 0.8), "d1": (1.0, 0.0, 0.0, 0.0), "s0": (0.5, 0.5, 0.5, 0.5)}
    recs = _records("s", values, meta, {("d1", "S_align"): "unparsable"})
    row = ("All", "S_avg")
    default = table2(recs, "s")
    assert default.cell(row, "S").value == pytest.approx(50.0)
    assert [default.cell(row, c).value for c in COMPONENTS] == pytest.approx([55.0, 35.0, 55.0, 45.0])
    assert table2(recs, "s", s_avg="scenarios").cell(row, "S").value == pytest.approx(50.0)
    comp = table2(recs, "s", s_avg="components")
    assert comp.cell(row, "S").value == pytest.approx(47.5)
    assert comp.cell(row, "S").n == 3  # every item with a component value counts
    assert [comp.cell(row, c).value for c in COMPONENTS] == pytest.approx([55.0, 35.0, 55.0, 45.0])
    assert any("mean of this row's four component cells" in n for n in comp.notes)
    assert any("mean of the scenario rows' S" in n for n in default.notes)
    with pytest.raises(InputError, match="s_avg must be"):
        table2(recs, "s", s_avg="items")
