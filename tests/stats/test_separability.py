"""SeparabilityAUC (transcreval.stats.separability): agreement with Mann-Whitney U and scikit-learn,
label names, the threshold sweep, the harness."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as ss
from sklearn.metrics import roc_auc_score

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import SeparabilityAUC
from transcreval.errors import InputError
from transcreval.functional import (
    separability_auc,
    threshold_sweep,
)


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


@pytest.mark.ddp
def test_separability_class_harness(ddp_pool):
    rng = np.random.default_rng(5)
    rng.normal(size=60)  # the draws of the Spearman and QWK harnesses' data (they shared one generator)
    rng.integers(1, 6, 30), rng.integers(-1, 2, 30)
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
