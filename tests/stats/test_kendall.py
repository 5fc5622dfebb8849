"""SegmentKendallTau (transcreval.stats.kendall): tau-b against scipy (small and scipy's large case),
the segment and group rules, the harness with segments split across batches."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as ss

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import SegmentKendallTau
from transcreval.errors import InputError, UndefinedValueError
from transcreval.functional import (
    kendall_tau_b,
    segment_kendall_tau,
)

small_ints = st.lists(st.integers(0, 5), min_size=3, max_size=40)


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
@settings(max_examples=150, deadline=None)
@given(st.data())
def test_kendall_tau_b_agrees_with_scipy(data):
    x = data.draw(small_ints)
    y = data.draw(st.lists(st.integers(0, 5), min_size=len(x), max_size=len(x)))
    ref_s, ref_k = ss.spearmanr(x, y).statistic, ss.kendalltau(x, y).statistic
    if np.isnan(ref_s):  # a constant side: no tau (spearman_rho raises, tests/stats/test_spearman.py)
        assert kendall_tau_b(x, y) is None
    else:
        assert kendall_tau_b(x, y) == pytest.approx(ref_k, abs=1e-12)


def test_segment_kendall_tau_rules():
    # 3 systems per image, two countries
    metric = [1, 2, 3, 3, 2, 1, 2, 2, 2, None, 1, 2, 1, 2, 3, 4, 5, 6]
    human = [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 5, 5, 5, 1, 3, 2]
    seg = ["a", "a", "a", "b", "b", "b", "c", "c", "c", "d", "d", "d", "e", "e", "e", "f", "f", "f"]
    grp = ["in"] * 9 + ["jp"] * 9
    res = segment_kendall_tau(metric, human, seg, grp)
    # a: tau 1; b: tau -1; c: metric tied (skipped); d: unparsable (skipped); e: humans tied (skipped)
    tau_f = ss.kendalltau([4, 5, 6], [1, 3, 2]).statistic
    assert res.extras["skipped"] == {"unparsable": 1, "tied_metric": 1, "tied_human": 1, "too_few_systems": 0}
    assert res.extras["per_group"] == {"in": pytest.approx(0.0), "jp": pytest.approx(tau_f)}
    assert res.value == pytest.approx((0.0 + tau_f) / 2)
    assert res.n == 3
    flat = segment_kendall_tau(metric, human, seg)  # no groups: mean over segments
    assert flat.value == pytest.approx((1 - 1 + tau_f) / 3)
    with pytest.raises(UndefinedValueError, match="skipped"):  # rows exist, but no segment has a tau
        segment_kendall_tau([1, 1], [1, 2], ["a", "a"])
    with pytest.raises(InputError, match="two groups"):
        segment_kendall_tau([1, 2], [1, 2], ["a", "a"], ["x", "y"])
    with pytest.raises(InputError, match="mismatched"):
        segment_kendall_tau([1, 2], [1], ["a", "a"])


def _seg_batches():
    rng = np.random.default_rng(3)
    rows = []
    for s in range(12):
        country = ["in", "jp", "br"][s % 3]
        h = rng.integers(1, 6, 3)
        m = h + rng.normal(0, 1.0, 3)
        rows += [(float(m[k]), float(h[k]), f"img{s}", country) for k in range(3)]
    # rows of one segment deliberately split across batches
    parts = [rows[:14], rows[14:29], rows[29:]]
    return [tuple([list(c) for c in zip(*p)]) for p in parts]


def _ref_segment_tau(metric, human, seg, grp):
    per = {}
    for s in dict.fromkeys(seg):
        idx = [i for i, v in enumerate(seg) if v == s]
        tau = ss.kendalltau([metric[i] for i in idx], [human[i] for i in idx]).statistic
        if not np.isnan(tau):
            per.setdefault(grp[idx[0]], []).append(tau)
    return float(np.mean([np.mean(v) for v in per.values()]))


@pytest.mark.ddp
@pytest.mark.filterwarnings("ignore:One or more sample arguments is too small")
def test_segment_kendall_class_harness(ddp_pool):
    batches = _seg_batches()

    def functional(m, h, s, g):
        # one batch may hold part of a segment: the function sees just those rows
        return segment_kendall_tau(m, h, s, g)

    check_metric(
        MetricCase(
            partial(SegmentKendallTau),
            functional,
            _ref_segment_tau,
            batches,
            join_lists,
            atol=1e-12,
            extras_keys=("per_group", "skipped", "used"),
        ),
        ddp_pool,
    )


def test_kendall_tau_b_scales_to_scipys_own_large_case():
    # scipy's test suite runs kendalltau at n = 200,000; a pairwise sign matrix would need
    # two 200k x 200k matrices (~300 GiB). Ties on both sides, to exercise Knight's counts.
    rng = np.random.default_rng(2)
    x = rng.normal(size=200_000).round(2)
    y = (x + rng.normal(size=200_000)).round(1)
    assert kendall_tau_b(x, y) == pytest.approx(ss.kendalltau(x, y).statistic, abs=1e-12)
    # exact with heavy ties and reversed order
    a = np.repeat(np.arange(500), 400)
    assert kendall_tau_b(a, -a) == pytest.approx(-1.0, abs=1e-12)
    assert kendall_tau_b(a, np.zeros_like(a)) is None
