"""MPTc-Bench App. B.3 error types, §7.4 / Fig. 7 cross-cluster analysis, GLOBE mapping, evaluate()."""

from __future__ import annotations

import json
import math

import pytest

from tests._helpers.mptc_set import ScriptedJudge, build, image
from transcreval.errors import InputError
from transcreval.protocols import mptc
from transcreval.protocols.records import ItemRecord, ProtocolResult


def _item(iid, split, sm="USA", tm="Japan", **kw):
    k = sum(map(ord, iid))
    return {"item_id": iid, "source": image(k), "gt": image(k + 1), "source_market": sm, "target_market": tm,
            "split": split, **kw}  # fmt: skip


def _out(iid, planner="P", editor="E", **kw):
    return {"item_id": iid, "planner": planner, "editor": editor, "output": image(sum(map(ord, iid)) + 7), **kw}


# --- App. B.3 ---------------------------------------------------------------------------------


def test_error_type_rates_pool_annotations_per_task():
    items = [_item("s1", "surface"), _item("s2", "surface"), _item("d1", "deep"), _item("d2", "deep")]
    outputs = [
        _out("s1", error_labels=[["wrong_script"], ["wrong_script", "garbled_text"], []]),
        _out("s2", error_labels=[["layout_collapse"], []]),
        _out("d1", error_labels=[["non_evidenced_elements"], ["non_evidenced_elements", "identity_drift"], []]),
        _out("d2"),  # not annotated
        _out("s1", editor="F"),  # another system, not annotated: no row
    ]
    res = mptc.error_type_table(mptc.load(items, outputs, split_by="field"))
    t = res.tables["error_types"]
    assert t.rows == (("E + P", "Surface"), ("E + P", "Deep"))
    assert t.columns == ("Pairs", "Anno.", *mptc.ERROR_TYPES)
    s, d = ("E + P", "Surface"), ("E + P", "Deep")
    assert (t.cell(s, "Pairs").value, t.cell(s, "Anno.").value) == (2, 5)
    assert t.cell(s, "wrong_script").value == pytest.approx(200 / 5)  # 2 of 5 annotations (not (2/3 + 0) / 2)
    assert t.cell(s, "garbled_text").value == pytest.approx(100 / 5)
    assert t.cell(s, "layout_collapse").value == pytest.approx(100 / 5)
    assert t.cell(s, "identity_drift").value == 0
    assert (t.cell(d, "Pairs").value, t.cell(d, "Anno.").value) == (1, 3)
    assert t.cell(d, "non_evidenced_elements").value == pytest.approx(200 / 3)
    assert t.cell(d, "identity_drift").value == pytest.approx(100 / 3)
    assert t.decimals["wrong_script"] == 1 and t.decimals["Pairs"] == 0
    recs = {(r.item_id, r.metric): r for r in res.records}
    assert recs[("s1", "error_wrong_script")].value == pytest.approx(2 / 3)
    assert recs[("s1", "error_wrong_script")].meta["annotations"] == 3
    assert ("d2", "error_wrong_script") not in recs
    with pytest.raises(InputError, match="error_labels"):
        mptc.error_type_table(mptc.load(items, [_out("s1"), _out("d1", error_labels=[])], split_by="field"))


# --- GLOBE clusters ---------------------------------------------------------------------------


def test_globe_mapping_names_aliases_and_directions():
    assert mptc.globe_cluster("China (Mainland)") == "Confucian Asia"
    assert mptc.globe_cluster("mainland china") == mptc.globe_cluster("CN") == "Confucian Asia"
    assert mptc.globe_cluster("us") == mptc.globe_cluster("United States of America") == "Anglo"
    assert mptc.globe_cluster("Türkiye") == "Middle East" and mptc.globe_cluster("KR") == "Confucian Asia"
    assert mptc.globe_cluster("India") == "Southern Asia" and mptc.globe_cluster("Brazil") == "Latin America"
    assert mptc.globe_cluster("Brazil", {"brazil": "Latin Europe"}) == "Latin Europe"
    with pytest.raises(InputError, match=r"'Atlantis' is not in the shipped GLOBE mapping.*clusters="):
        mptc.globe_cluster("Atlantis")
    with pytest.raises(InputError, match="no GLOBE cluster"):
        mptc.globe_cluster("Atlantis", {"Atlantis": "Oceania"})
    # the shipped data: ten clusters, each name or alias maps to one cluster
    from importlib.resources import files

    doc = json.loads(files("transcreval.data").joinpath("globe_clusters.json").read_text(encoding="utf-8"))
    assert tuple(doc["clusters"]) == tuple(mptc.GLOBE_CLUSTERS)
    seen: dict[str, str] = {}
    for m in doc["markets"]:
        assert m["cluster"] in mptc.GLOBE_CLUSTERS and m["basis"] in ("GLOBE sample", "extension")
        for name in (m["market"], *m["aliases"]):
            key = " ".join(name.casefold().replace("(", " ").replace(")", " ").split())
            assert seen.setdefault(key, m["cluster"]) == m["cluster"], name
    d = mptc.transfer_direction
    assert d("Anglo", "Germanic Europe") == "Intra-Western" and d("Anglo", "Anglo") == "Intra-Western"
    assert d("Nordic Europe", "Southern Asia") == "Western→Asian"
    assert d("Confucian Asia", "Eastern Europe") == "Asian→Western"
    assert d("Latin America", "Confucian Asia") == "Other" and d("Confucian Asia", "Southern Asia") == "Other"
    with pytest.raises(InputError, match="not a GLOBE cluster"):
        d("Anglo", "Asia")


# --- §7.4 / Fig. 7 ----------------------------------------------------------------------------

_MARKETS = {  # item: split, source, target
    "s1": ("surface", "USA", "Japan"),  # Western -> Asian
    "s2": ("surface", "Japan", "France"),  # Asian -> Western
    "s3": ("surface", "Germany", "UK"),  # Intra-Western
    "s4": ("surface", "Brazil", "Japan"),  # Latin America -> Confucian Asia: no Fig. 7 direction
    "d1": ("deep", "USA", "China"),
    "d2": ("deep", "South Korea", "USA"),
    "d3": ("deep", "USA", "Japan"),
}
_SCORES = {"s1": (4, 4, 1.0), "s2": (4, 4, 0.0), "s3": (5, 4, 1.0), "s4": (3, 3, 1.0), "d1": (4, 4, 0.5),
           "d2": (3, 2, 0.0), "d3": (4, None, 1.0)}  # fmt: skip


def _judged():
    recs = []
    for iid, (a, d, w) in _SCORES.items():
        for metric, v in (("aesthetic", a), ("adaptation", d), ("win", w)):
            ok = v is not None
            recs.append(ItemRecord(iid, "E + P", metric, float(v) if ok else math.nan, "ok" if ok else "unparsable"))
        recs.append(ItemRecord(iid, "GT", "aesthetic", 5.0))
    return ProtocolResult("mptc", tuple(recs), {})


def _cluster_set():
    items = [_item(i, s, sm, tm) for i, (s, sm, tm) in _MARKETS.items()]
    return mptc.load(items, [_out(i) for i in _MARKETS], split_by="field")


def test_cross_cluster_summary_and_score_coordinates():
    res = mptc.cross_cluster_tables(_cluster_set(), _judged())
    s, p = res.tables["fig7_summary"], res.tables["fig7_points"]
    assert s.columns == ("n", "Aes. mean", "Adap. mean", "Win rate", "Win n")
    assert s.rows == tuple(("E + P", task, d) for task in ("Deep", "Surface", "Deep+Surface") for d in mptc.DIRECTIONS)
    wa = ("E + P", "Deep", "Western→Asian")  # d1 (4, 4, 0.5) and d3 (adaptation unreadable, won)
    assert (s.cell(wa, "n").value, s.cell(wa, "n").n_missing) == (1, 1)
    assert (s.cell(wa, "Aes. mean").value, s.cell(wa, "Adap. mean").value) == (4, 4)
    assert s.cell(wa, "Win rate").value == pytest.approx(0.75)
    # each column's own n: the scores over 1 item (d1), the win rate over 2 (d1, d3)
    assert (s.cell(wa, "Win n").value, s.cell(wa, "Win rate").n) == (2, 2)
    assert "| E + P / Deep / Western→Asian | 1 | 4.00 | 4.00 | 0.750 | 2 |" in s.to_markdown()
    both = ("E + P", "Deep+Surface", "Western→Asian")  # s1, d1 scored; s1, d1, d3 judged pairwise
    assert s.cell(both, "Win rate").value == pytest.approx((1 + 0.5 + 1) / 3)
    assert p.cell((*both, "(4, 4)"), "n").value == 2 and p.cell((*both, "(4, 4)"), "Win rate").value == 0.75
    assert p.columns == ("n", "Win rate", "Win n") and p.cell((*both, "(4, 4)"), "Win n").value == 2
    aw = ("E + P", "Deep+Surface", "Asian→Western")  # s2 (4, 4, 0) and d2 (3, 2, 0)
    assert (s.cell(aw, "Aes. mean").value, s.cell(aw, "Adap. mean").value) == (3.5, 3.0)
    assert [r[3] for r in p.rows if r[:3] == aw] == ["(3, 2)", "(4, 4)"]
    empty = ("E + P", "Deep", "Intra-Western")
    assert s.cell(empty, "n").value == 0 and s.cell(empty, "Aes. mean").format(2) == "-"
    assert s.cell(("E + P", "Surface", "Intra-Western"), "Aes. mean").value == 5
    assert "1 item(s) in no Fig. 7 direction" in s.notes[1]
    # records: the judged ones with their clusters and direction, GT left out
    r = next(r for r in res.records if r.item_id == "s2" and r.metric == "win")
    assert (r.meta["source_cluster"], r.meta["target_cluster"], r.meta["direction"]) == (
        "Confucian Asia",
        "Latin Europe",
        "Asian→Western",
    )
    assert {r.system for r in res.records} == {"E + P"} and res.options["directions"]["s4"] == "Other"


def test_cross_cluster_overrides_and_bad_input():
    res = mptc.cross_cluster_tables(_cluster_set(), _judged(), clusters={"Brazil": "Latin Europe"})
    row = ("E + P", "Surface", "Western→Asian")  # s4 now counts: s1 (4, 4, 1), s4 (3, 3, 1)
    assert res.tables["fig7_summary"].cell(row, "n").value == 2
    items = [_item("a", "surface", "Atlantis", "Japan")]
    with pytest.raises(InputError, match="Atlantis"):
        mptc.cross_cluster_tables(mptc.load(items, [_out("a")], split_by="field"), _judged())
    with pytest.raises(InputError, match="judge_tables"):
        mptc.cross_cluster_tables(_cluster_set(), ProtocolResult("mptc", (), {}))


# --- evaluate() -------------------------------------------------------------------------------


def test_evaluate_runs_every_part_the_inputs_allow():
    items, outputs, who = build()
    outputs[0] = {**outputs[0], "error_labels": [["garbled_text"], []]}
    res = mptc.evaluate(items, outputs, judge=ScriptedJudge(who).judge(), split_by="field")
    assert res.options["parts"] == ["judge_tables", "error_type_table", "cross_cluster_tables"]
    assert set(res.tables) == {"table3", "table4", "fig6", "error_types", "fig7_summary", "fig7_points"}
    keys = [(r.item_id, r.system, r.metric) for r in res.records]
    assert len(keys) == len(set(keys))
    wins = [r for r in res.records if r.metric == "win"]
    assert wins and all("direction" in r.meta for r in wins)  # the cross-cluster meta replaced the records
    assert res.tables["error_types"].cell(("Gemini 3 + GPT-4.1", "Surface"), "garbled_text").value == 50.0
    data = mptc.load(items, outputs, split_by="field")
    again = mptc.evaluate(data, judge=ScriptedJudge(who).judge(), cross_cluster=False)
    assert again.tables["table3"].cells == res.tables["table3"].cells and "fig7_summary" not in again.tables
    with pytest.raises(InputError, match="no outputs or load options"):
        mptc.evaluate(data, split_by="field", judge=ScriptedJudge(who).judge())
    with pytest.raises(InputError, match="temporal"):
        mptc.evaluate(data, temporal={})
    with pytest.raises(InputError, match="nothing to compute"):
        mptc.evaluate(items, [{k: v for k, v in o.items() if k != "error_labels"} for o in outputs], split_by="field")
