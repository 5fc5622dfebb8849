"""Agreement statistics against scipy / scikit-learn, skip rules, bootstrap, classes under DDP."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as ss
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import QuadraticWeightedKappa, SegmentKendallTau, SeparabilityAUC, SpearmanRho
from transcreval.errors import InputError, UndefinedValueError
from transcreval.functional import (
    kendall_tau_b,
    quadratic_weighted_kappa,
    segment_kendall_tau,
    separability_auc,
    spearman_rho,
    threshold_sweep,
)

small_ints = st.lists(st.integers(0, 5), min_size=3, max_size=40)


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
@settings(max_examples=150, deadline=None)
@given(st.data())
def test_spearman_kendall_agree_with_scipy(data):
    x = data.draw(small_ints)
    y = data.draw(st.lists(st.integers(0, 5), min_size=len(x), max_size=len(x)))
    ref_s, ref_k = ss.spearmanr(x, y).statistic, ss.kendalltau(x, y).statistic
    if np.isnan(ref_s):
        with pytest.raises(InputError, match="constant"):
            spearman_rho(x, y)
        assert kendall_tau_b(x, y) is None
    else:
        assert spearman_rho(x, y).value == pytest.approx(ref_s, abs=1e-12)
        assert kendall_tau_b(x, y) == pytest.approx(ref_k, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_qwk_agrees_with_sklearn(data):
    a = data.draw(st.lists(st.integers(1, 5), min_size=2, max_size=40))
    b = data.draw(st.lists(st.integers(1, 5), min_size=len(a), max_size=len(a)))
    if len(set(a) | set(b)) == 1:
        with pytest.raises(InputError, match="undefined"):
            quadratic_weighted_kappa(a, b)
        return
    ref = cohen_kappa_score(a, b, weights="quadratic")
    if np.isnan(ref):  # pragma: no cover - sklearn's nan cases are caught above
        return
    assert quadratic_weighted_kappa(a, b).value == pytest.approx(ref, abs=1e-12)


def test_qwk_with_fixed_labels():
    a, b = [1, 2, 3, 3], [1, 3, 3, 2]
    assert quadratic_weighted_kappa(a, b, labels=[1, 2, 3, 4, 5]).value == pytest.approx(
        cohen_kappa_score(a, b, weights="quadratic", labels=[1, 2, 3, 4, 5]), abs=1e-12
    )
    with pytest.raises(InputError, match="not among the labels"):
        quadratic_weighted_kappa([1, 9], [1, 2], labels=[1, 2])


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_auc_agrees_with_mann_whitney_and_sklearn(data):
    n = data.draw(st.integers(2, 40))
    d = data.draw(st.lists(st.integers(0, 10), min_size=n, max_size=n))  # ties on purpose
    lab = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    if len(set(lab)) < 2:
        with pytest.raises(InputError, match="both"):
            separability_auc(d, lab)
        return
    pos = [x for x, y in zip(d, lab) if y]
    neg = [x for x, y in zip(d, lab) if not y]
    u = ss.mannwhitneyu(pos, neg).statistic
    got = separability_auc(d, lab).value
    assert got == pytest.approx(u / (len(pos) * len(neg)), abs=1e-12)
    assert got == pytest.approx(roc_auc_score(lab, d), abs=1e-12)


def test_auc_labels_and_threshold_sweep():
    assert separability_auc([0.1, 0.9], ["surface", "deep"]).value == 1.0
    with pytest.raises(InputError, match="label"):
        separability_auc([0.1, 0.9], ["shallow", "deep"])
    rng = np.random.default_rng(0)
    ph = rng.integers(0, 64, 300)
    lp = ph / 64 + rng.normal(0, 0.1, 300)
    rows = threshold_sweep(lp, ph)
    assert [(r["t_s"], r["t_d"]) for r in rows] == [(s, d) for s in (10, 12, 14) for d in (28, 30, 32)]
    for r in rows:
        keep = (ph <= r["t_s"]) | (ph >= r["t_d"])
        assert r["auc"] == pytest.approx(roc_auc_score((ph[keep] >= r["t_d"]).astype(int), lp[keep]), abs=1e-12)
        assert r["n_surface"] == int((ph <= r["t_s"]).sum()) and r["n_deep"] == int((ph >= r["t_d"]).sum())
    with pytest.raises(InputError):
        threshold_sweep(lp, ph, surface_max=[30], deep_min=[12])


def test_bootstrap_is_seeded_and_brackets_the_value():
    rng = np.random.default_rng(1)
    x = rng.normal(size=80)
    y = x + rng.normal(scale=0.5, size=80)
    a = spearman_rho(x, y, bootstrap=300, seed=7)
    b = spearman_rho(x, y, bootstrap=300, seed=7)
    c = spearman_rho(x, y, bootstrap=300, seed=8)
    assert a.extras["ci"] == b.extras["ci"] and a.extras["ci"] != c.extras["ci"]
    assert a.extras["ci"][0] < a.value < a.extras["ci"][1]
    assert "ci" not in spearman_rho(x, y).extras


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


@pytest.mark.ddp
def test_stat_classes_harness(ddp_pool):
    rng = np.random.default_rng(5)
    x = rng.normal(size=30).round(2).tolist()
    y = (np.array(x) * 0.5 + rng.normal(size=30)).round(2).tolist()
    batches = [(x[:12], y[:12]), (x[12:24], y[12:24]), (x[24:], y[24:])]
    check_metric(
        MetricCase(
            partial(SpearmanRho),
            spearman_rho,
            lambda a, b: ss.spearmanr(a, b).statistic,
            batches,
            join_lists,
            atol=1e-12,
        ),
        ddp_pool,
    )
    a = rng.integers(1, 6, 30).tolist()
    b = np.clip(np.array(a) + rng.integers(-1, 2, 30), 1, 5).tolist()
    kb = [(a[:12], b[:12]), (a[12:24], b[12:24]), (a[24:], b[24:])]
    check_metric(
        MetricCase(
            partial(QuadraticWeightedKappa, labels=[1, 2, 3, 4, 5]),
            lambda p, q: quadratic_weighted_kappa(p, q, labels=[1, 2, 3, 4, 5]),
            lambda p, q: cohen_kappa_score(p, q, weights="quadratic", labels=[1, 2, 3, 4, 5]),
            kb,
            join_lists,
            atol=1e-12,
        ),
        ddp_pool,
    )
    d = rng.random(30).round(3).tolist()
    lab = ([0, 1] * 15)[:30]
    ab = [(d[:12], lab[:12]), (d[12:24], lab[12:24]), (d[24:], lab[24:])]
    check_metric(
        MetricCase(
            partial(SeparabilityAUC),
            separability_auc,
            lambda p, q: roc_auc_score(q, p),
            ab,
            join_lists,
            atol=1e-12,
            extras_keys=("n_deep", "n_surface"),
        ),
        ddp_pool,
    )


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


def test_qwk_unknown_ratings_raise_or_drop_like_sklearn():
    a, b = [1, 2, 3, 9, 2], [1, 3, 3, 2, 7]
    with pytest.raises(InputError, match="unknown='drop'"):
        quadratic_weighted_kappa(a, b, labels=[1, 2, 3])
    got = quadratic_weighted_kappa(a, b, labels=[1, 2, 3], unknown="drop")
    assert got.value == pytest.approx(cohen_kappa_score(a, b, weights="quadratic", labels=[1, 2, 3]), abs=1e-12)
    assert got.extras["dropped_unknown"] == 2 and got.n == 3
    m = QuadraticWeightedKappa(labels=[1, 2, 3], unknown="drop")
    m.update(a, b)
    assert m.compute().value == got.value
    with pytest.raises(InputError, match="unknown"):
        QuadraticWeightedKappa(unknown="ignore")
