"""TitleExtraction (transcreval.judge.title_extraction): MPTC's title chrF on the judge's
readings against sacrebleu, the extracted titles, through the harness.

How the harness and the scripted oracle are set up: tests/judge/oracle.py.
"""

from __future__ import annotations

import functools
from statistics import mean

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists
from tests.judge.oracle import (
    REFUSAL,
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
