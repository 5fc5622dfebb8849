"""JudgeScore (transcreval.judge.judge_score): MPTC's 1-5 aesthetic and adaptation scores
through the harness.

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
    UNPARSABLE,
    WRAPS,
    N,
    Oracle,
    batches_of,
    extras_total,
    img,
    index,
    sha,
    wrap,
)
from transcreval.functional.judge.judge_score import judge_score, judge_score_stats
from transcreval.judge.judge_score import JudgeScore


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
