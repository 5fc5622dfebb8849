"""WinRate, MarketPreferenceRate (transcreval.judge.win_rate): MPTC's pairwise preference in
one or both orders (a position-biased judge), the seeded order, through the harness.

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
    sha,
    wrap,
)
from transcreval.functional.judge.win_rate import (
    market_preference_rate,
    market_preference_rate_stats,
    win_rate,
    win_rate_stats,
)
from transcreval.judge.win_rate import MarketPreferenceRate, WinRate


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
