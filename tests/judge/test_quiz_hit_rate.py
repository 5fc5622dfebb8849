"""QuizHitRate (transcreval.judge.quiz_hit_rate): MPTC's multiple-choice quiz with given or
default options, the shuffled answer letter, through the harness.

How the harness and the scripted oracle are set up: tests/judge/oracle.py.
"""

from __future__ import annotations

import functools
from statistics import mean

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists
from tests.judge.oracle import (
    UNPARSABLE,
    WRAPS,
    N,
    Oracle,
    batches_of,
    extras_total,
    img,
    index,
    letter_of,
    sha,
    wrap,
)
from transcreval.functional.judge.quiz_hit_rate import quiz_hit_rate, quiz_hit_rate_stats
from transcreval.judge.quiz_hit_rate import QuizHitRate

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
