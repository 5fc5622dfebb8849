"""HarmonizationScore, AlignmentScore (transcreval.judge.imtbench): IMTBench's S_vis (combined
naturalness/artifacts) and S_align through the harness, S_vis with the reference image (Eq. 4),
and the joint judge call. The judge is scripted: its answers are decided per item in advance, so
every expected value is the intended score / 10, never read back through our parser.

How the harness and the scripted oracle are set up: tests/judge/oracle.py.
"""

from __future__ import annotations

import functools
import json
from statistics import mean

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists
from tests.judge.oracle import (
    REFUSAL,
    SLICES,
    UNPARSABLE,
    WRAPS,
    N,
    Oracle,
    batches_of,
    img,
    index,
    sha,
    wrap,
)
from transcreval.errors import InputError
from transcreval.functional.judge.imtbench import (
    alignment_score,
    alignment_score_stats,
    harmonization_score,
    harmonization_score_stats,
)
from transcreval.functional.judge.imtbench_calls import judge_items
from transcreval.judge import FunctionJudge
from transcreval.judge.imtbench import AlignmentScore, HarmonizationScore


@pytest.mark.ddp
@pytest.mark.parametrize("combine", ["naturalness", "min", "mean"])
def test_harmonization_score(tmp_path, ddp_pool, combine):
    preds = [img(700 + i) for i in range(N)]
    nat = [(3 * i) % 11 for i in range(N)]
    art = [(7 * i + 2) % 11 for i in range(N)]
    failing = {2: json.dumps({"naturalness": 11, "artifacts": 3}), 9: REFUSAL}
    oracle = Oracle()
    for i in range(N):
        if i == 5:  # the paper's delimited format with list-wrapped numbers
            answer = f'||V^=^V||\n"harmonization_score" : [{nat[i]}, {art[i]}], "reasoning" : "ok"\n||V^=^V||'
        else:
            answer = wrap({"reasoning": "r", "naturalness": nat[i], "artifacts": art[i]}, WRAPS[i % 4])
        oracle.add("imtbench.harmonization", preds[i], failing.get(i) or answer)
    batches = [(preds[a:b],) for a, b in SLICES]
    where = index(preds)
    pick = {"naturalness": lambda a, b: a, "min": min, "mean": lambda a, b: (a + b) / 2}[combine]

    replay = oracle.record(
        tmp_path / "c.sqlite",
        batches,
        lambda p, judge: harmonization_score_stats(p, judge=judge, combine=combine, reference=False),
    )

    def reference(p):
        return mean(pick(nat[where[sha(x)]], art[where[sha(x)]]) / 10 for x in p if where[sha(x)] not in failing)

    factory = functools.partial(HarmonizationScore, judge=replay, combine=combine, reference=False)
    check_metric(
        MetricCase(
            factory,
            lambda p: harmonization_score(p, judge=replay, combine=combine, reference=False),
            reference,
            batches,
            join_lists,
        ),
        ddp_pool,
    )


@pytest.mark.ddp
def test_alignment_score(tmp_path, ddp_pool):
    preds = [img(800 + i) for i in range(N)]
    texts = [f"Grand opening on March {i + 1}" for i in range(N)]
    scores = [(5 * i + 3) % 11 for i in range(N)]
    failing = {1: UNPARSABLE}
    oracle = Oracle()
    for i in range(N):

        def answer(request, i=i):
            assert texts[i] in request.text  # the translation text is shown to the judge
            return wrap({"reasoning": "r", "alignment": scores[i]}, WRAPS[i % 4])

        oracle.add("imtbench.alignment", preds[i], failing.get(i) or answer)
    batches = batches_of(preds, texts)
    where = index(preds)
    replay = oracle.record(tmp_path / "c.sqlite", batches, lambda p, t, judge: alignment_score_stats(p, t, judge=judge))

    def reference(p, t):
        return mean(scores[where[sha(x)]] / 10 for x in p if where[sha(x)] not in failing)

    factory = functools.partial(AlignmentScore, judge=replay)
    check_metric(
        MetricCase(factory, lambda p, t: alignment_score(p, t, judge=replay), reference, batches, join_lists), ddp_pool
    )


def test_joint_imtbench_template_makes_one_call_for_both_scores():
    calls = []

    def fn(request):
        calls.append(request.template_id)
        return '||V^=^V|| {"naturalness": 8, "artifacts": 6, "alignment": 7, "reasoning": "ok"} ||V^=^V||'

    from transcreval.judge import FunctionJudge

    judge = FunctionJudge(fn, cache=None)
    judge.cache = __import__("transcreval.engines.judge.cache", fromlist=["JudgeCache"]).JudgeCache(
        __import__("tempfile").mkdtemp() + "/c.sqlite"
    )
    preds, texts = [img(1), img(2)], ["a", "b"]
    h = HarmonizationScore(judge=judge, template="imtbench.joint", reference=False)
    a = AlignmentScore(judge=judge, template="imtbench.joint")
    assert h(preds, translations=texts).value == pytest.approx(0.8) and a(preds, texts).value == pytest.approx(0.7)
    assert calls == ["imtbench.joint"] * 2  # two images, one call each, shared by both metrics
    with pytest.raises(ValueError, match="pass translations="):
        h(preds)


# ---------------------------------------------------------------------- the reference image (Eq. 4)
OUTS = [img(900 + i) for i in range(N)]
REFS = [img(950 + i) for i in range(N)]
NAT = [(3 * i + 1) % 11 for i in range(N)]
ART = [(5 * i + 2) % 11 for i in range(N)]
ALIGN = [(7 * i + 3) % 11 for i in range(N)]
TEXTS = [f"Soldes le {i + 1} mars" for i in range(N)]


def _checked_answer(i):
    """The answer for item i, after checking the request shows output i first and reference i second."""

    def answer(request):
        shown = [p.sha256 for p in request.images]
        assert shown == [sha(OUTS[i]), sha(REFS[i])], "the judge must see the output, then its reference"
        return json.dumps({"reasoning": "r", "naturalness": NAT[i], "artifacts": ART[i]})

    return answer


@pytest.mark.ddp
def test_harmonization_with_the_reference_image(tmp_path, ddp_pool):
    failing = {3: REFUSAL}
    oracle = Oracle()
    for i in range(N):
        oracle.add("imtbench.harmonization-ref", OUTS[i], failing.get(i) or _checked_answer(i))
    batches = [(OUTS[a:b], REFS[a:b]) for a, b in SLICES]
    replay = oracle.record(
        tmp_path / "c.sqlite", batches, lambda p, t, judge: harmonization_score_stats(p, t, judge=judge)
    )
    where = {sha(x): i for i, x in enumerate(OUTS)}

    def reference(p, t):
        return mean(NAT[where[sha(x)]] / 10 for x in p if where[sha(x)] not in failing)

    factory = functools.partial(HarmonizationScore, judge=replay)
    case = MetricCase(factory, lambda p, t: harmonization_score(p, t, judge=replay), reference, batches, join_lists)
    check_metric(case, ddp_pool)
    res = factory()(OUTS, REFS)
    assert res.extras["failures"]["refused"] == 1
    assert "ref:yes" in str(res.signature) and "tpl:imtbench.harmonization-ref@1" in str(res.signature)


def test_reference_false_keeps_the_output_only_behaviour():
    seen = []

    def fn(request):
        seen.append((request.template_id, [p.sha256 for p in request.images]))
        return '{"naturalness": 6, "artifacts": 2}'

    judge = FunctionJudge(fn)
    assert HarmonizationScore(judge=judge, reference=False)(OUTS[:2]).value == pytest.approx(0.6)
    assert seen == [("imtbench.harmonization", [sha(OUTS[i])]) for i in range(2)]
    assert HarmonizationScore(judge=judge)(OUTS[:2], REFS[:2]).value == pytest.approx(0.6)
    assert seen[2:] == [("imtbench.harmonization-ref", [sha(OUTS[i]), sha(REFS[i])]) for i in range(2)]


@pytest.mark.parametrize(
    ("build", "call", "match"),
    [
        (dict(), lambda m: m(OUTS[:2]), "needs the reference images"),
        (dict(reference=False), lambda m: m(OUTS[:2], REFS[:2]), "do not pass target"),
        (dict(), lambda m: m(OUTS[:2], REFS[:1]), "1 reference images"),
        (dict(template="imtbench.joint"), None, "does not show the reference image"),
        (dict(reference=False, template="imtbench.joint-ref"), None, "does not provide"),
        (dict(reference="yes"), None, "reference must be True"),
    ],
)
def test_reference_role_errors(build, call, match):
    judge = FunctionJudge(lambda r: '{"naturalness": 6, "artifacts": 2}')
    with pytest.raises(InputError, match=match):
        m = HarmonizationScore(judge=judge, **build)
        call(m)


def test_joint_template_with_the_reference_reads_the_text_too():
    def fn(request):
        assert "Soldes le 1 mars" in request.text and len(request.images) == 2
        return '{"naturalness": 9, "artifacts": 4, "alignment": 2}'

    m = HarmonizationScore(judge=FunctionJudge(fn), template="imtbench.joint-ref")
    assert m(OUTS[:1], REFS[:1], translations=TEXTS[:1]).value == pytest.approx(0.9)


# ---------------------------------------------------------------------- the joint call
def _scripted(calls):
    def fn(request):
        i = next(k for k, o in enumerate(OUTS) if sha(o) == request.images[0].sha256)
        calls.append((request.template_id, i))
        if i == 2:
            return REFUSAL
        if i == 4:
            raise ConnectionError("the endpoint is down")
        obj = {"reasoning": "r", "naturalness": NAT[i], "artifacts": ART[i], "alignment": ALIGN[i]}
        if i == 6:
            obj["alignment"] = 14  # out of range: only this score fails
        if request.template_id.startswith("imtbench.harmonization"):
            obj.pop("alignment")
        if request.template_id == "imtbench.alignment":
            obj = {"alignment": obj["alignment"]}
        return json.dumps(obj)

    return FunctionJudge(fn)


@pytest.mark.parametrize("call", ["joint", "separate"])
def test_judge_items_line_up_with_the_inputs_and_fail_one_score_at_a_time(call):
    calls = []
    texts = [None if i == 8 else t for i, t in enumerate(TEXTS)]
    vis, align = judge_items(OUTS, REFS, texts, judge=_scripted(calls), call=call)
    assert len(vis) == len(align) == N
    for i in range(N):
        if i == 2:
            assert vis[i].status == align[i].status == "refused"
        elif i == 4:
            assert vis[i].status == align[i].status == "api_error"
        else:
            assert vis[i].ok and vis[i].value == pytest.approx(NAT[i] / 10), i
            if i == 6:
                assert align[i].status == "unparsable"
            elif i == 8:
                assert align[i].status == "missing_output"
            else:
                assert align[i].ok and align[i].value == pytest.approx(ALIGN[i] / 10), i
    if call == "joint":  # one call per item; the item without a text gets the harmonization call alone
        assert sorted(calls) == sorted(
            [("imtbench.joint-ref", i) for i in range(N) if i != 8] + [("imtbench.harmonization-ref", 8)]
        )
    else:
        assert len(calls) == 2 * N - 1


def test_judge_items_without_the_reference_and_bad_options():
    calls = []
    vis, _ = judge_items(OUTS[:2], None, TEXTS[:2], judge=_scripted(calls), reference=False)
    assert [c[0] for c in calls] == ["imtbench.joint", "imtbench.joint"] and vis[0].ok
    with pytest.raises(InputError, match="judge_call"):
        judge_items(OUTS[:2], REFS[:2], TEXTS[:2], judge=_scripted([]), call="both")
    with pytest.raises(InputError, match="pass target="):
        judge_items(OUTS[:2], None, TEXTS[:2], judge=_scripted([]))
    with pytest.raises(InputError, match="templates may replace"):
        judge_items(OUTS[:2], REFS[:2], TEXTS[:2], judge=_scripted([]), templates={"vis": "x"})
    with pytest.raises(InputError, match="one text"):
        judge_items(OUTS[:2], REFS[:2], TEXTS[:1], judge=_scripted([]))


def test_setup_items_takes_five_inputs_and_the_mask_by_name():
    # the protocol once passed the masks as a sixth positional input: refused with a message
    # that names the inputs, before anything is loaded or scored
    from transcreval.functional.judge.imtbench_score import IMTBenchSetup

    setup = IMTBenchSetup(options=None, comet=None, judge_options={}, background=None)
    with pytest.raises(TypeError, match=r"5 inputs \(preds, target, translations, references, sources\), got 6.*mask="):
        setup.items([], [], [], [], [], None)
