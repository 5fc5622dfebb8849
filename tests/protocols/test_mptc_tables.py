"""MPTc-Bench Tables 3 and 4 and Fig. 6 from raw outputs, with a scripted judge.

Expected cells are means of the answers the judge was scripted to give (tests/_helpers/mptc_set.py),
titles scored with sacrebleu directly.
"""

from __future__ import annotations

import math

import pytest
from sacrebleu.metrics import CHRF

from tests._helpers.mptc_set import (
    EDITORS,
    F41,
    G41,
    GQ,
    INTENDED,
    ITEMS,
    PLANNED,
    PLANNERS,
    SYSTEMS,
    ScriptedJudge,
    build,
)
from transcreval.errors import InputError
from transcreval.protocols import mptc

IDS = {"surface": [x[0] for x in ITEMS if x[1] == "surface"], "deep": [x[0] for x in ITEMS if x[1] == "deep"]}
GT_TITLE = {x[0]: x[6] for x in ITEMS}
YEAR = {x[0]: x[5] for x in ITEMS}


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else math.nan


def _chrf(hyp, ref):
    return CHRF().sentence_score(hyp, [ref]).score


@pytest.fixture(scope="module")
def run():
    items, outputs, who = build()
    data = mptc.load(items, outputs, split_by="field")
    scripted = ScriptedJudge(who)
    return data, scripted, mptc.judge_tables(data, judge=scripted.judge())


def _expected(system, split, key):
    vals = [INTENDED[(i, system)][key] for i in IDS[split] if (i, system) in INTENDED]
    if key == "win":
        return 100 * _mean([v for v in vals if v != "refuse"])
    if key == "year":
        vals = [v for i, v in zip([i for i in IDS[split] if (i, system) in INTENDED], vals) if YEAR[i]]
    return _mean(vals) * (100 if key in ("genre", "year") else 1)


def test_table3_layout_and_cells(run):
    _, _, res = run
    t = res.tables["table3"]
    assert t.rows == ("Gemini 3", "Flux Edit", "GT")
    heads = [f"{s} / {p} / {m}" for s in ("Deep", "Surface") for p in PLANNERS for m in ("Aes.", "Adap.", "Win%")]
    assert t.columns == tuple(heads)
    assert t.decimals["Deep / GPT-4.1 / Aes."] == 2 and t.decimals["Deep / GPT-4.1 / Win%"] == 1
    for name, (planner, editor) in SYSTEMS.items():
        for split, label in (("deep", "Deep"), ("surface", "Surface")):
            for head, key in (("Aes.", "aes"), ("Adap.", "adap"), ("Win%", "win")):
                cell = t.cell(editor, f"{label} / {planner} / {head}")
                assert cell.value == pytest.approx(_expected(name, split, key)), (name, split, head)
    # a few by hand: Gemini 3 + GPT-4.1 on Deep scored 4, 5, 3; it won d1 only
    assert t.cell("Gemini 3", "Deep / GPT-4.1 / Aes.").value == pytest.approx(4.0)
    assert t.cell("Gemini 3", "Deep / GPT-4.1 / Win%").value == pytest.approx(100 / 3)
    # Gemini 3 + Qwen3: d2's preference was refused -> 2 answers, both lost
    win = t.cell("Gemini 3", "Deep / Qwen3 / Win%")
    assert (win.value, win.n, win.n_missing) == (0.0, 2, 1)
    # Flux Edit has no output for s2: counted as missing
    aes = t.cell("Flux Edit", "Surface / GPT-4.1 / Aes.")
    assert (aes.value, aes.n, aes.n_missing) == (pytest.approx(2.5), 2, 1)
    assert ("Flux Edit", "Deep / Qwen3 / Aes.") not in t.cells  # that system did not run
    # the GT reference row: the GT posters' own scores, under every planner, no win rate
    for p in PLANNERS:
        assert t.cell("GT", f"Surface / {p} / Aes.").value == pytest.approx((5 + 5 + 4) / 3)
        assert t.cell("GT", f"Deep / {p} / Adap.").value == pytest.approx((3 + 4 + 4) / 3)
        assert ("GT", f"Deep / {p} / Win%") not in t.cells
    assert "| GT | 4.33 | 3.67 | - |" in t.to_markdown()


def test_table4_layout_and_cells(run):
    _, _, res = run
    t = res.tables["table4"]
    assert t.columns == tuple(f"{p} / {m}" for p in PLANNERS for m in ("Genre", "Year", "Title", "Plan"))
    assert t.rows == tuple((s, e) for s in ("Deep", "Surface") for e in (*EDITORS, "GT"))
    assert t.decimals == 1 and t.units == "%"
    for name, (planner, editor) in SYSTEMS.items():
        for split, label in (("deep", "Deep"), ("surface", "Surface")):
            row = (label, editor)
            ids = [i for i in IDS[split] if (i, name) in INTENDED]
            genre = t.cell(row, f"{planner} / Genre")
            assert genre.value == pytest.approx(_expected(name, split, "genre"))
            assert t.cell(row, f"{planner} / Year").value == pytest.approx(_expected(name, split, "year"))
            # title chrF: only items whose GT title was read (d3's was not)
            titles = [_chrf(INTENDED[(i, name)]["title"], GT_TITLE[i]) for i in ids if GT_TITLE[i]]
            assert t.cell(row, f"{planner} / Title").value == pytest.approx(_mean(titles), abs=1e-9)
            plans = [_chrf(PLANNED[name][i], GT_TITLE[i]) for i in ids if GT_TITLE[i] and PLANNED[name][i]]
            assert t.cell(row, f"{planner} / Plan").value == pytest.approx(_mean(plans), abs=1e-9)
    # by hand: Gemini 3 + GPT-4.1 read "再见列宁" exactly on d1, "Parasit" on d2 (d3 has no GT title)
    cell = t.cell(("Deep", "Gemini 3"), "GPT-4.1 / Title")
    assert cell.value == pytest.approx((100 + _chrf("Parasit", "Parasite")) / 2) and cell.n_missing == 1
    # year quiz: s3 has no year, so Surface averages two items
    assert t.cell(("Surface", "Gemini 3"), "GPT-4.1 / Year").n == 2
    # GT rows: quiz hit rates on GT, no title/plan chrF
    assert t.cell(("Surface", "GT"), "Qwen3 / Genre").value == pytest.approx(200 / 3)
    assert (("Surface", "GT"), "GPT-4.1 / Title") not in t.cells


def test_fig6_loss_is_one_minus_visual_over_plan(run):
    _, _, res = run
    t = res.tables["fig6"]
    row = ("Surface", "Flux Edit")
    plan, visual = t.cell(row, "GPT-4.1 / Plan").value, t.cell(row, "GPT-4.1 / Visual").value
    assert plan == pytest.approx(_mean([_chrf(PLANNED[F41][i], GT_TITLE[i]) for i in ("s1", "s3")]))
    assert visual == pytest.approx(_mean([_chrf(INTENDED[(i, F41)]["title"], GT_TITLE[i]) for i in ("s1", "s3")]))
    assert t.cell(row, "GPT-4.1 / Loss %").value == pytest.approx((1 - visual / plan) * 100)


def test_records_join_by_item_and_carry_the_failure_statuses(run):
    _, _, res = run
    keys = [(r.item_id, r.system, r.metric) for r in res.records]
    assert len(keys) == len(set(keys))
    n_posters = 6 + sum(len(IDS[s]) for s in IDS) * len(SYSTEMS)  # GT + every system on both splits
    assert len({(r.item_id, r.system) for r in res.records}) == n_posters

    def rec(item, system, metric):
        (r,) = [r for r in res.records if (r.item_id, r.system, r.metric) == (item, system, metric)]
        return r

    assert rec("s2", F41, "aesthetic").status == "missing_output" and math.isnan(rec("s2", F41, "win").value)
    assert rec("d3", G41, "title_chrf").status == "gt_title_unparsable"
    assert rec("d2", GQ, "win").status == "refused"
    assert rec("s2", GQ, "adaptation").status == "unparsable" and rec("s2", GQ, "aesthetic").value == 4.0
    assert rec("s3", "GT", "year_hit").status == "no_year"
    assert rec("d3", GQ, "plan_chrf").status == "no_title_in_plan"
    r = rec("d1", G41, "title_chrf")
    assert r.value == 100.0 and r.meta["title"] == "再见列宁" and r.meta["split"] == "deep"
    assert r.meta["planner"] == "GPT-4.1" and r.meta["editor"] == "Gemini 3" and r.meta["k"] == 3
    assert rec("s1", G41, "plan_chrf").meta["title"] == "ショーシャンクの空に"
    assert {r.metric for r in res.select(system="GT")} == {"genre_hit", "year_hit", "aesthetic", "adaptation"}
    assert res.to_dict()["tables"]["table3"]["columns"][0] == "Deep / GPT-4.1 / Aes."


def test_joint_call_is_the_default_and_separate_calls_are_an_option():
    items, outputs, who = build()
    data = mptc.load(items, outputs, split_by="field")
    joint, separate = ScriptedJudge(who), ScriptedJudge(who)
    a = mptc.judge_tables(data, judge=joint.judge())
    b = mptc.judge_tables(data, judge=separate.judge(), judge_call="separate")
    n = 23  # posters with an image: 6 GT + 17 outputs
    assert joint.asked.count("mptc.aesthetic+adaptation") == n and "mptc.aesthetic" not in joint.asked
    assert separate.asked.count("mptc.aesthetic") == n and separate.asked.count("mptc.adaptation") == n
    assert "mptc.aesthetic+adaptation" not in separate.asked
    assert a.options["judge_call"] == "joint" and b.options["judge_call"] == "separate"
    assert a.options["templates"]["scores"] == "mptc.aesthetic+adaptation@1" and "scores" not in b.options["templates"]
    assert b.options["templates"]["adaptation"] == "mptc.adaptation@1"
    for key in ("table3", "table4"):
        assert a.tables[key].cells == b.tables[key].cells
    with pytest.raises(InputError, match="judge_call"):
        mptc.judge_tables(data, judge=joint.judge(), judge_call="both")


def test_the_protocol_asks_exactly_what_the_metric_classes_ask(tmp_path):
    """With a cache, the metric classes run on one system's Deep posters after the protocol make no
    new call (same requests: templates, option shuffles, A/B orders) and give the table's numbers."""
    from transcreval import JudgeScore, QuizHitRate, TitleExtraction, WinRate

    items, outputs, who = build()
    data = mptc.load(items, outputs, split_by="field")
    judge = ScriptedJudge(who).judge(cache=tmp_path / "j.sqlite")
    res = mptc.judge_tables(data, judge=judge)
    made = judge.calls_made
    its = [i for i in data.items if i.item_id in IDS["deep"]]
    outs = data.run_outputs("deep", "GPT-4.1", "Gemini 3")
    preds = [outs[i.item_id].output for i in its]
    fields = {
        "target_market": [i.target_market for i in its],
        "source_market": [i.source_market for i in its],
        "genre": [i.genre for i in its],
    }
    ids = [i.item_id for i in its]
    aes = JudgeScore(judge=judge, aspect="aesthetic", template="mptc.aesthetic+adaptation")
    aes.update(preds, [i.source for i in its], **fields)
    win = WinRate(judge=judge)
    win.update(preds, [i.gt for i in its], item_ids=ids, **fields)
    quiz = QuizHitRate(judge=judge, kind="genre", labels=sorted({x[4] for x in ITEMS}))
    quiz.update(preds, [i.genre for i in its], item_ids=ids)
    title = TitleExtraction(judge=judge)
    title.update(preds, [i.gt for i in its])
    assert judge.calls_made == made
    t3, t4 = res.tables["table3"], res.tables["table4"]
    assert aes.compute().value == pytest.approx(t3.cell("Gemini 3", "Deep / GPT-4.1 / Aes.").value)
    assert win.compute().value == pytest.approx(t3.cell("Gemini 3", "Deep / GPT-4.1 / Win%").value)
    assert quiz.compute().value == pytest.approx(t4.cell(("Deep", "Gemini 3"), "GPT-4.1 / Genre").value)
    assert title.compute().value == pytest.approx(t4.cell(("Deep", "Gemini 3"), "GPT-4.1 / Title").value)


def test_both_orders_scores_a_position_biased_judge_as_ties():
    items, outputs, who = build()
    data = mptc.load(items, outputs, split_by="field")
    scripted = ScriptedJudge(who)

    def biased(request):
        return '{"reason": "first", "preferred": "A"}' if request.template_id == "mptc.pairwise" else scripted(request)

    from transcreval.judge import FunctionJudge

    res = mptc.judge_tables(data, judge=FunctionJudge(biased, model="biased"), both_orders=True)
    wins = [r.value for r in res.records if r.metric == "win" and r.ok]
    assert wins and set(wins) == {0.5}
    assert res.tables["table3"].cell("Gemini 3", "Surface / Qwen3 / Win%").value == 50.0


def test_batches_change_nothing_and_bad_images_name_their_row(tmp_path):
    items, outputs, who = build()
    data = mptc.load(items, outputs, split_by="field")
    a = mptc.judge_tables(data, judge=ScriptedJudge(who).judge())
    b = mptc.judge_tables(data, judge=ScriptedJudge(who).judge(), batch_size=3)
    assert [r.to_dict() for r in a.records] == [r.to_dict() for r in b.records]
    assert a.tables["table4"].to_dict() == b.tables["table4"].to_dict()
    with pytest.raises(InputError, match="batch_size"):
        mptc.judge_tables(data, judge=ScriptedJudge(who).judge(), batch_size=0)
    bad = tmp_path / "bad.png"
    bad.write_text("not an image")
    broken = [{**o, "output": str(bad)} if i == 7 else o for i, o in enumerate(outputs)]
    data = mptc.load(items, broken, split_by="field")
    with pytest.raises(InputError, match=r"outputs\[7\]: output"):
        mptc.judge_tables(data, judge=ScriptedJudge(who).judge())


def test_plan_title_reads_the_proposed_title():
    cases = {
        '1. Title: "The Matrix" → "黑客帝国"\n2. Tagline: "a" → "b"': "黑客帝国",
        '1. **Title**: "Up" -> "カールじいさんの空飛ぶ家"': "カールじいさんの空飛ぶ家",
        '1. Title: "Up" → "カールじいさんの空飛ぶ家" (romanised: "Kaaru")': "カールじいさんの空飛ぶ家",
        "Title: 「Spirited Away」→「千と千尋の神隠し」": "千と千尋の神隠し",
        "1. Title: Amélie → Die fabelhafte Welt der Amélie": "Die fabelhafte Welt der Amélie",
        "1. Title (French): « Le Parrain »": "Le Parrain",
        '1. Title: "Schindler\'s List"': "Schindler's List",
        "2. Tagline: no title line": None,
        '1. Title: "X" → ': None,
    }
    for plan, want in cases.items():
        assert mptc.plan_title(plan) == want, plan


def test_judge_tables_bad_input():
    items, outputs, who = build()
    no_genre = [{**it, "genre": None} if it["item_id"] == "d2" else it for it in items]
    data = mptc.load(no_genre, outputs, split_by="field")
    with pytest.raises(InputError, match=r"items\[4\]"):
        mptc.judge_tables(data, judge=ScriptedJudge(who).judge())
    data = mptc.load(items, outputs, split_by="field")
    with pytest.raises(InputError, match="unknown key"):
        mptc.judge_tables(data, judge=ScriptedJudge(who).judge(), templates={"score": "x"})
    with pytest.raises(InputError, match="needs a judge"):
        mptc.judge_tables(data, judge=None)
    with pytest.raises(InputError, match="load"):
        mptc.judge_tables(items, judge=ScriptedJudge(who).judge())
    few = [{**it, "genre_options": None} for it in items]
    with pytest.raises(InputError, match="genre quiz"):
        mptc.judge_tables(mptc.load(few, outputs, split_by="field"), judge=ScriptedJudge(who).judge(), n_options=6)
