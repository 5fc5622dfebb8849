"""Every judge metric through the harness: class == function == reference, at 1, 2 and 4
processes, with a ReplayJudge answering from a cache recorded off a scripted oracle.

The references are computed from the values the oracle was told to give (scores, preferences,
intended options, CSI outcomes), never through our parsing; items scripted to fail
(unparsable, refused, out of range) are left out of the reference and counted in the extras.
"""

from __future__ import annotations

import functools
import json
from statistics import mean

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists
from tests.judge.oracle import REFUSAL, UNPARSABLE, WRAPS, Oracle, img, letter_of, sha, wrap
from transcreval.errors import EmptyInputError
from transcreval.functional.judge.csi_overlap import csi_overlap, csi_overlap_stats
from transcreval.functional.judge.imtbench import (
    alignment_score,
    alignment_score_stats,
    harmonization_score,
    harmonization_score_stats,
)
from transcreval.functional.judge.judge_score import judge_score, judge_score_stats
from transcreval.functional.judge.quiz_hit_rate import quiz_hit_rate, quiz_hit_rate_stats
from transcreval.functional.judge.transcreation_score import transcreation_score, transcreation_score_stats
from transcreval.functional.judge.win_rate import (
    market_preference_rate,
    market_preference_rate_stats,
    win_rate,
    win_rate_stats,
)
from transcreval.judge.csi_overlap import CSIOverlap
from transcreval.judge.imtbench import AlignmentScore, HarmonizationScore
from transcreval.judge.judge_score import JudgeScore
from transcreval.judge.quiz_hit_rate import QuizHitRate
from transcreval.judge.transcreation_score import VLMTranscreationScore
from transcreval.judge.win_rate import MarketPreferenceRate, WinRate

N = 10
SLICES = [(0, 4), (4, 8), (8, 10)]


def batches_of(*columns):
    return [tuple(col[a:b] for col in columns) for a, b in SLICES]


def index(images):
    return {sha(im): i for i, im in enumerate(images)}


def extras_total(metric, batches):
    m = metric()
    for b in batches:
        m.update(*b)
    return m.compute()


# ---------------------------------------------------------------------- JudgeScore
@pytest.mark.ddp
@pytest.mark.parametrize("aspect", ["aesthetic", "adaptation"])
def test_judge_score(tmp_path, ddp_pool, aspect):
    preds, target = [img(100 + i) for i in range(N)], [img(i) for i in range(N)]
    scores = [(3 * i) % 5 + 1 for i in range(N)]
    failing = {3: UNPARSABLE, 7: REFUSAL, 8: json.dumps({"score": 6})}
    oracle = Oracle()
    for i in range(N):
        oracle.add(
            f"mptc.{aspect}", target[i], failing.get(i) or wrap({"comment": "x", "score": scores[i]}, WRAPS[i % 4])
        )
    ctx = (["Japan"] * N, ["USA"] * N, ["drama"] * N)
    batches = batches_of(preds, target, *ctx)
    where = index(preds)

    def run(fn, b, judge):
        return fn(b[0], b[1], judge=judge, aspect=aspect, target_market=b[2], source_market=b[3], genre=b[4])

    replay = oracle.record(tmp_path / "c.sqlite", batches, lambda *b, judge: run(judge_score_stats, b, judge))

    def reference(p, *_):
        return mean(scores[where[sha(x)]] for x in p if where[sha(x)] not in failing)

    factory = functools.partial(JudgeScore, judge=replay, aspect=aspect)
    case = MetricCase(
        factory=factory,
        functional=lambda *b: run(judge_score, b, replay),
        reference=reference,
        batches=batches,
        join=join_lists,
        extras_keys=("n_valid", "n_failed", "failures"),
    )
    check_metric(case, ddp_pool)
    res = extras_total(factory, batches)
    assert res.n == 7 and res.extras["n_valid"] == 7 and res.extras["n_failed"] == 3
    assert res.extras["failures"] == {"api_error": 0, "refused": 1, "timeout": 0, "truncated": 0, "unparsable": 2}
    assert f"aspect:{aspect}" in str(res.signature) and "judge:function:oracle" in str(res.signature)


# ---------------------------------------------------------------------- WinRate
def pairwise_setup(template_id, both_orders, biased=()):
    """MTc (preds) is preferred on the items in ``prefer``; ``biased`` items always answer A."""
    preds, target = [img(200 + i) for i in range(N)], [img(300 + i) for i in range(N)]
    prefer = [i % 3 != 0 for i in range(N)]
    failing = {5: UNPARSABLE}
    oracle = Oracle()

    def answer_for(i):
        def answer(request):
            if i in biased:
                return wrap({"reason": "x", "preferred": "A"}, "json")
            a_is_pred = request.images[0].sha256 == sha(preds[i])
            letter = "A" if a_is_pred == prefer[i] else "B"
            return wrap({"reason": "x", "preferred": f"Image {letter}" if i % 2 else letter}, WRAPS[i % 4])

        return answer

    for i in range(N):
        for first in (preds[i], target[i]):
            oracle.add(template_id, first, failing.get(i) or answer_for(i))
    return preds, target, prefer, failing, oracle


@pytest.mark.ddp
@pytest.mark.parametrize("both_orders", [False, True])
def test_win_rate(tmp_path, ddp_pool, both_orders):
    biased = {2, 7} if both_orders else set()
    preds, target, prefer, failing, oracle = pairwise_setup("mptc.pairwise", both_orders, biased)
    ids = [f"movie-{i}" for i in range(N)]
    ctx = (["Japan"] * N, ["USA"] * N, ["horror"] * N, ids)
    batches = batches_of(preds, target, *ctx)
    where = index(preds)

    def run(fn, b, judge):
        return fn(
            b[0],
            b[1],
            judge=judge,
            target_market=b[2],
            source_market=b[3],
            genre=b[4],
            item_ids=b[5],
            seed=7,
            both_orders=both_orders,
        )

    replay = oracle.record(tmp_path / "c.sqlite", batches, lambda *b, judge: run(win_rate_stats, b, judge))

    def reference(p, *_):
        vals = []
        for x in p:
            i = where[sha(x)]
            if i in failing:
                continue
            vals.append(0.5 if i in biased else float(prefer[i]))
        return 100 * mean(vals)

    factory = functools.partial(WinRate, judge=replay, seed=7, both_orders=both_orders)
    check_metric(
        MetricCase(
            factory,
            lambda *b: run(win_rate, b, replay),
            reference,
            batches,
            join_lists,
            extras_keys=("wins", "losses", "ties", "first_position_rate"),
        ),
        ddp_pool,
    )
    res = extras_total(factory, batches)
    assert res.extras["n_failed"] == 1 and res.extras["failures"]["unparsable"] == 1
    assert res.extras["ties"] == len(biased)
    assert res.extras["wins"] + res.extras["losses"] + res.extras["ties"] == N - 1
    if both_orders:  # each unbiased item answers A once and B once; a biased one A twice
        assert res.extras["first_position_rate"] == pytest.approx((7 + 2 * 2) / 18)


def test_win_rate_order_is_seeded_per_item_and_stable(tmp_path):
    preds, target, _, _, oracle = pairwise_setup("mptc.pairwise", False)
    judge = oracle.judge()
    ids = [f"movie-{i}" for i in range(N)]
    firsts = []
    for seed in (0, 0, 1):
        oracle_calls = []
        judge.fn = lambda r, log=oracle_calls: (log.append(r.images[0].sha256), oracle(r))[1]
        win_rate(
            preds, target, judge=judge, target_market="Japan", source_market="USA", genre="x", item_ids=ids, seed=seed
        )
        firsts.append([h == sha(p) for h, p in zip(oracle_calls, preds)])
        judge.cache = None
    assert firsts[0] == firsts[1] and firsts[0] != firsts[2]
    assert 0 < sum(firsts[0]) < N  # both orders occur


# ---------------------------------------------------------------------- MarketPreferenceRate
@pytest.mark.ddp
def test_market_preference_rate(tmp_path, ddp_pool):
    preds, target, prefer, failing, oracle = pairwise_setup("mptc.market", False)
    batches = batches_of(preds, target, ["Brazil"] * N)
    where = index(preds)

    def run(fn, b, judge):
        return fn(b[0], b[1], judge=judge, target_market=b[2])

    replay = oracle.record(
        tmp_path / "c.sqlite", batches, lambda *b, judge: run(market_preference_rate_stats, b, judge)
    )

    def reference(p, *_):
        return 100 * mean(float(prefer[where[sha(x)]]) for x in p if where[sha(x)] not in failing)

    factory = functools.partial(MarketPreferenceRate, judge=replay)
    check_metric(
        MetricCase(factory, lambda *b: run(market_preference_rate, b, replay), reference, batches, join_lists), ddp_pool
    )
    assert "tpl:mptc.market@2" in str(extras_total(factory, batches).signature)


# ---------------------------------------------------------------------- QuizHitRate
GENRES = ["drama", "comedy", "horror", "action", "romance", "animation", "thriller"]


@pytest.mark.ddp
@pytest.mark.parametrize("given_options", [True, False])
def test_quiz_hit_rate(tmp_path, ddp_pool, given_options):
    preds = [img(400 + i) for i in range(N)]
    answers = [GENRES[i % len(GENRES)] for i in range(N)]
    options = [[answers[i], *[g for g in GENRES if g != answers[i]][i % 3 : i % 3 + 3]] for i in range(N)]
    correct = [i % 4 != 1 for i in range(N)]
    failing = {6: UNPARSABLE}
    oracle = Oracle()
    for i in range(N):

        def answer(request, i=i):
            shown = [line[3:] for line in request.text.splitlines() if line[:1].isupper() and line[1:3] == ". "]
            pick = answers[i] if correct[i] else next(o for o in shown if o != answers[i])
            letter = letter_of(pick, request.text)
            return letter if i == 9 else wrap({"answer": letter}, WRAPS[i % 4])  # item 9: a bare letter

        oracle.add("mptc.quiz", preds[i], failing.get(i) or answer)
    cols = (preds, answers, options) if given_options else (preds, answers)
    batches = batches_of(*cols)
    where = index(preds)
    opts = {} if given_options else {"labels": GENRES}

    def run(fn, b, judge):
        return fn(*b[:2], judge=judge, options=b[2] if given_options else None, seed=3, **opts)

    replay = oracle.record(tmp_path / "c.sqlite", batches, lambda *b, judge: run(quiz_hit_rate_stats, b, judge))

    def reference(p, *_):
        return 100 * mean(float(correct[where[sha(x)]]) for x in p if where[sha(x)] not in failing)

    factory = functools.partial(QuizHitRate, judge=replay, seed=3, **opts)
    check_metric(
        MetricCase(
            factory, lambda *b: run(quiz_hit_rate, b, replay), reference, batches, join_lists, extras_keys=("chance",)
        ),
        ddp_pool,
    )
    assert extras_total(factory, batches).extras["chance"] == pytest.approx(25.0)


def test_quiz_shuffles_the_correct_answer_across_letters(tmp_path):
    preds = [img(400 + i) for i in range(40)]
    seen = []

    def fn(request):
        seen.append(letter_of("drama", request.text))
        return '{"answer": "A"}'

    from transcreval.judge import FunctionJudge

    quiz_hit_rate(preds, ["drama"] * 40, judge=FunctionJudge(fn), labels=GENRES)
    assert set(seen) == set("ABCD")


# ---------------------------------------------------------------------- VLMTranscreationScore
@pytest.mark.ddp
@pytest.mark.parametrize("aspect", ["intent", "creativity", "cultural"])
def test_transcreation_score(tmp_path, ddp_pool, aspect):
    preds, target = [img(500 + i) for i in range(N)], [img(600 + i) for i in range(N)]
    src_scores = [(i % 5) + 1 for i in range(N)]
    out_scores = [((2 * i + 1) % 5) + 1 for i in range(N)]
    failing = {0: json.dumps({"score": 0, "first_score": 0, "second_score": 9}), 4: UNPARSABLE}
    oracle = Oracle()
    for i in range(N):
        obj = (
            {
                "first_reasoning": "r",
                "first_score": src_scores[i],
                "second_reasoning": "r",
                "second_score": out_scores[i],
            }
            if aspect == "cultural"
            else {"reasoning": "r", "score": out_scores[i]}
        )
        oracle.add(f"khanuja.{aspect}", target[i], failing.get(i) or wrap(obj, WRAPS[i % 4]))
    batches = batches_of(preds, target, ["food"] * N, ["India"] * N)
    where = index(preds)

    def run(fn, b, judge):
        return fn(b[0], b[1], judge=judge, aspect=aspect, category=b[2], country=b[3])

    replay = oracle.record(tmp_path / "c.sqlite", batches, lambda *b, judge: run(transcreation_score_stats, b, judge))

    def reference(p, *_):
        return mean(out_scores[where[sha(x)]] for x in p if where[sha(x)] not in failing)

    factory = functools.partial(VLMTranscreationScore, judge=replay, aspect=aspect)
    check_metric(
        MetricCase(factory, lambda *b: run(transcreation_score, b, replay), reference, batches, join_lists), ddp_pool
    )
    res = extras_total(factory, batches)
    if aspect == "cultural":
        valid = [i for i in range(N) if i not in failing]
        assert res.extras["source_mean"] == pytest.approx(mean(src_scores[i] for i in valid))
        assert res.extras["delta"] == pytest.approx(mean(out_scores[i] - src_scores[i] for i in valid))
    assert factory().higher_is_better is (None if aspect == "creativity" else True)


# ---------------------------------------------------------------------- IMTBench
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


# ---------------------------------------------------------------------- CSIOverlap
CSI_ITEMS = [
    # (source objects, output objects, replacements, matches [(replacement, output object)])
    (
        ["hamburger", "dollar bill", "spoon"],
        ["sushi", "Spoon", "euro bill"],
        {"hamburger": ["sushi", "ramen"], "dollar bill": ["yen note"], "spoon": ["chopsticks"]},
        [("sushi", "sushi")],
    ),
    (
        ["teapot", "scone"],
        ["Chai glass", "samosa"],
        {"teapot": ["chai glass"], "scone": ["samosa", "ladoo"]},
        [("chai glass", "Chai glass"), ("samosa", "samosa")],
    ),
    (["tree", "sky"], ["tree", "sky"], {}, []),
    (["baguette"], ["naan"], {"baguette": ["naan bread", "roti"]}, [("naan bread", "naan")]),
    (
        ["cowboy hat", "bbq"],
        ["turban", "grill"],
        {"cowboy hat": ["turban", "pagri"], "bbq": ["tandoor"]},
        [("turban", "turban")],
    ),
]


def csi_setup(n):
    target = [img(900 + i) for i in range(n)]
    preds = [img(950 + i) for i in range(n)]
    items = [CSI_ITEMS[i % len(CSI_ITEMS)] for i in range(n)]
    failing = {7: "objects"}  # item 7: its output's object list is unreadable
    oracle = Oracle()
    for i in range(n):
        src, out, _, _ = items[i]
        oracle.add("khanuja.csi-objects", target[i], wrap({"objects": src}, WRAPS[i % 4]) if i % 3 else ", ".join(src))
        oracle.add(
            "khanuja.csi-objects", preds[i], UNPARSABLE + " {" if i in failing else wrap({"objects": out}, "json")
        )

    def replacements(request):
        listed = request.text.split("in an image: ")[1].split(".\n")[0]
        for src, _, reps, _ in CSI_ITEMS:
            if listed == ", ".join(src):
                return (
                    wrap({"reasoning": "r", "replacements": reps}, "fence")
                    if len(src) != 2
                    else json.dumps({**reps, "reasoning": "flat, as in the paper"})
                )
        raise KeyError(listed)

    def matches(request):
        l1 = request.text.split("List 1: ")[1].split("\n")[0]
        for _, _, reps, m in CSI_ITEMS:
            if l1 == "; ".join(dict.fromkeys(x for rr in reps.values() for x in rr)):
                return wrap({"reasoning": "r", "matches": [list(p) for p in m]}, "json")
        raise KeyError(l1)

    oracle.rule("khanuja.csi-replacements", replacements)
    oracle.rule("khanuja.csi-match", matches)
    return preds, target, items, failing, oracle


def csi_reference_value(items, exact):
    vals = []
    for _, out, reps, m in items:
        if not reps:
            continue
        outs = {o.casefold() for o in out}
        hit = {a.casefold() for a, _ in m} if not exact else {r.casefold() for rr in reps.values() for r in rr} & outs
        vals.append(sum(any(r.casefold() in hit for r in rr) for rr in reps.values()) / len(reps))
    return vals


@pytest.mark.ddp
@pytest.mark.parametrize("matching", ["judge", "exact"])
def test_csi_overlap(tmp_path, ddp_pool, matching):
    preds, target, items, failing, oracle = csi_setup(N)
    batches = batches_of(preds, target, ["India"] * N, ["food"] * N)
    where = index(preds)

    def run(fn, b, judge):
        return fn(b[0], b[1], judge=judge, country=b[2], category=b[3], matching=matching)

    replay = oracle.record(tmp_path / "c.sqlite", batches, lambda *b, judge: run(csi_overlap_stats, b, judge))

    def reference(p, *_):
        chosen = [items[where[sha(x)]] for x in p if where[sha(x)] not in failing]
        return mean(csi_reference_value(chosen, matching == "exact"))

    factory = functools.partial(CSIOverlap, judge=replay, matching=matching)
    check_metric(
        MetricCase(
            factory,
            lambda *b: run(csi_overlap, b, replay),
            reference,
            batches,
            join_lists,
            extras_keys=("n_no_csi", "micro"),
        ),
        ddp_pool,
    )
    res = extras_total(factory, batches)
    assert res.extras["n_no_csi"] == 1 and res.extras["n_failed"] == 1 and res.n == N - 2  # item 2 no CSI, 7 fails
    # the paper's worked example (item 0): 1 of 3 CSIs replaced
    assert csi_reference_value([CSI_ITEMS[0]], False) == [pytest.approx(1 / 3)]


def test_csi_match_naming_an_unknown_item_is_unparsable():
    preds, target, _, _, oracle = csi_setup(1)
    oracle.rule("khanuja.csi-match", lambda r: '{"matches": [["pizza", "sushi"]]}')
    res = CSIOverlap(judge=oracle.judge())
    res.update(preds, target, country="Japan", category="food")
    with pytest.raises(EmptyInputError, match=r"no valid judge answers to score \(unparsable: 1\)"):
        res.compute()
    st = csi_overlap_stats(preds, target, judge=oracle.judge(), country="Japan", category="food")
    assert st["failures"][-1] == 1


# ---------------------------------------------------------------------- TitleExtraction
TITLES = [
    "千と千尋の神隠し",
    "Le Voyage de Chihiro",
    "Parasite",
    "기생충",
    "Amélie",
    "",
    "RRR",
    "Das Boot",
    "Léon",
    "Up",
]


@pytest.mark.ddp
def test_title_extraction_against_sacrebleu(tmp_path, ddp_pool):
    from sacrebleu.metrics import CHRF

    from transcreval.functional.judge.title_extraction import title_extraction, title_extraction_stats
    from transcreval.judge.title_extraction import TitleExtraction

    preds, target = [img(1000 + i) for i in range(N)], [img(1100 + i) for i in range(N)]
    read_pred = [t.replace("o", "0") if i % 3 == 0 else t for i, t in enumerate(TITLES)]  # some misrendered
    failing = {4: REFUSAL}
    oracle = Oracle()
    for i in range(N):
        oracle.add("mptc.title", preds[i], failing.get(i) or wrap({"title": read_pred[i]}, WRAPS[i % 4]))
        oracle.add("mptc.title", target[i], wrap({"title": f"  {TITLES[i]} "}, WRAPS[(i + 1) % 4]))
    # the last batch gives references as text: no call for them
    target_mixed = target[:8] + TITLES[8:]
    batches = batches_of(preds, target_mixed)
    where = index(preds)
    replay = oracle.record(
        tmp_path / "c.sqlite", batches, lambda p, t, judge: title_extraction_stats(p, t, judge=judge)
    )
    chrf = CHRF()

    def reference(p, t):
        return mean(
            chrf.sentence_score(read_pred[where[sha(x)]], [TITLES[where[sha(x)]]]).score
            for x in p
            if where[sha(x)] not in failing
        )

    factory = functools.partial(TitleExtraction, judge=replay)
    check_metric(
        MetricCase(
            factory,
            lambda p, t: title_extraction(p, t, judge=replay),
            reference,
            batches,
            join_lists,
            extras_keys=("corpus",),
        ),
        ddp_pool,
    )
    res = extras_total(factory, batches)
    valid = [i for i in range(N) if i not in failing]
    assert res.extras["corpus"] == pytest.approx(
        chrf.corpus_score([read_pred[i] for i in valid], [[TITLES[i] for i in valid]]).score, abs=1e-9
    )
    assert res.extras["failures"]["refused"] == 1


def test_title_extraction_returns_the_titles_and_rejects_missing_files():
    from transcreval.functional.judge.title_extraction import extract_titles

    oracle = Oracle()
    oracle.add("mptc.title", img(1), '{"title": "Parasite"}')
    got = extract_titles([img(1), "Known title"], judge=oracle.judge())
    assert [(v.status, v.value) for v in got] == [("ok", "Parasite"), ("ok", "Known title")]
    with pytest.raises(ValueError, match="no such file"):
        extract_titles(["posters/missing.png"], judge=oracle.judge())


# ---------------------------------------------------------------------- PosterIQ, judge-driven
@pytest.mark.ddp
@pytest.mark.parametrize("mode", ["paper", "posteriq-code"])
@pytest.mark.parametrize("as_text", [False, True])
def test_judged_point_score_equals_point_score_on_the_verdicts(tmp_path, ddp_pool, mode, as_text):
    from transcreval.functional import point_score
    from transcreval.functional.judge.posteriq import judged_point_score, judged_point_score_stats
    from transcreval.judge.posteriq import JudgedPointScore

    posters = [f"A poster showing scene {i}." for i in range(N)] if as_text else [img(1200 + i) for i in range(N)]
    points = [[f"point {i}-{k}" for k in range(1 + i % 3)] for i in range(N)]
    covered = {(i, k): (i + k) % 4 != 3 for i in range(N) for k in range(3)}
    failing = {6}
    oracle = Oracle()
    tid = "posteriq.point-text" if as_text else "posteriq.point-image"

    def answer(request):
        i, k = (int(x) for x in request.text.split('"point ')[1].split('"')[0].split("-"))
        if i in failing and k == 0:
            return UNPARSABLE
        return wrap({"reasoning": "r", "covered": covered[i, k]}, WRAPS[(i + k) % 4])

    oracle.rule(tid, answer)
    batches = batches_of(posters, points)
    key = {x if as_text else sha(x): i for i, x in enumerate(posters)}
    replay = oracle.record(
        tmp_path / "c.sqlite", batches, lambda p, t, judge: judged_point_score_stats(p, t, judge=judge)
    )

    def reference(p, t):
        rows = [key[x if as_text else sha(x)] for x in p]
        verdicts = [[covered[i, k] for k in range(len(points[i]))] for i in rows if i not in failing]
        return point_score(verdicts, mode=mode).value

    factory = functools.partial(JudgedPointScore, judge=replay, mode=mode)
    check_metric(
        MetricCase(
            factory,
            lambda p, t: judged_point_score(p, t, judge=replay, mode=mode),
            reference,
            batches,
            join_lists,
            extras_keys=("per_point",),
        ),
        ddp_pool,
    )


STYLES = ["Minimalist", "Memphis", "Diffuse Glow", "Swiss", "Vintage"]


@pytest.mark.ddp
def test_judged_style_score_equals_style_score_on_the_labels(tmp_path, ddp_pool):
    from transcreval.functional import style_score
    from transcreval.functional.judge.posteriq import judged_style_score, judged_style_score_stats
    from transcreval.judge.posteriq import JudgedStyleScore

    preds = [img(1300 + i) for i in range(N)]
    target = [STYLES[i % 5] for i in range(N)]
    judged = [STYLES[(i * 2) % 5] for i in range(N)]
    failing = {3: json.dumps({"style": "Baroque"})}  # not a label
    oracle = Oracle()
    for i in range(N):
        shown = judged[i].lower() if i % 2 else judged[i]
        oracle.add("posteriq.style", preds[i], failing.get(i) or wrap({"style": shown}, WRAPS[i % 4]))
    batches = batches_of(preds, target)
    where = index(preds)
    replay = oracle.record(
        tmp_path / "c.sqlite", batches, lambda p, t, judge: judged_style_score_stats(p, t, judge=judge, labels=STYLES)
    )

    def reference(p, t):
        rows = [where[sha(x)] for x in p if where[sha(x)] not in failing]
        return style_score([judged[i] for i in rows], [target[i] for i in rows], labels=STYLES).value

    factory = functools.partial(JudgedStyleScore, judge=replay, labels=STYLES)
    check_metric(
        MetricCase(
            factory, lambda p, t: judged_style_score(p, t, judge=replay, labels=STYLES), reference, batches, join_lists
        ),
        ddp_pool,
    )


VOCAB = ["bold", "serif", "sans-serif", "italic", "playful", "elegant", "modern", "handwritten"]


@pytest.mark.ddp
def test_judged_font_richness_equals_font_richness_on_the_attributes(tmp_path, ddp_pool):
    from transcreval.functional import font_richness
    from transcreval.functional.judge.posteriq import judged_font_richness, judged_font_richness_stats
    from transcreval.judge.posteriq import JudgedFontRichness

    preds = [img(1400 + i) for i in range(N)]
    attrs = [[VOCAB[(i + k) % len(VOCAB)] for k in range(i % 4)] for i in range(N)]
    failing = {8: '{"attributes": "bold"}'}
    oracle = Oracle()
    for i in range(N):
        shown = [*attrs[i], "glittery"] if i == 2 else attrs[i]  # outside the vocabulary: ignored
        oracle.add("posteriq.font", preds[i], failing.get(i) or wrap({"attributes": shown}, WRAPS[i % 4]))
    batches = [(preds[a:b],) for a, b in SLICES]
    where = index(preds)
    replay = oracle.record(
        tmp_path / "c.sqlite", batches, lambda p, judge: judged_font_richness_stats(p, judge=judge, vocabulary=VOCAB)
    )

    def reference(p):
        kept = [attrs[where[sha(x)]] for x in p if where[sha(x)] not in failing]
        return font_richness(kept, vocabulary=VOCAB).value

    factory = functools.partial(JudgedFontRichness, judge=replay, vocabulary=VOCAB)
    check_metric(
        MetricCase(
            factory,
            lambda p: judged_font_richness(p, judge=replay, vocabulary=VOCAB),
            reference,
            batches,
            join_lists,
            extras_keys=("coverage",),
        ),
        ddp_pool,
    )
    res = extras_total(factory, batches)
    assert res.extras["n_out_of_vocabulary"] == 1 and res.extras["failures"]["unparsable"] == 1
