"""VLMTranscreationScore (transcreval.judge.transcreation_score): Khanuja et al.'s intent,
creativity and cultural scores through the harness.

How the harness and the scripted oracle are set up: tests/judge/oracle.py.
"""

from __future__ import annotations

import functools
import json
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
    sha,
    wrap,
)
from transcreval.functional.judge.transcreation_score import transcreation_score, transcreation_score_stats
from transcreval.judge.transcreation_score import VLMTranscreationScore


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
