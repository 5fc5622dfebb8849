"""SpearmanRho (transcreval.stats.spearman): agreement with scipy, the seeded bootstrap, the harness."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as ss

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import SpearmanRho
from transcreval.errors import InputError
from transcreval.functional import (
    spearman_rho,
)

small_ints = st.lists(st.integers(0, 5), min_size=3, max_size=40)


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
@settings(max_examples=150, deadline=None)
@given(st.data())
def test_spearman_agrees_with_scipy(data):
    x = data.draw(small_ints)
    y = data.draw(st.lists(st.integers(0, 5), min_size=len(x), max_size=len(x)))
    ref_s = ss.spearmanr(x, y).statistic
    if np.isnan(ref_s):
        with pytest.raises(InputError, match="constant"):
            spearman_rho(x, y)
    else:
        assert spearman_rho(x, y).value == pytest.approx(ref_s, abs=1e-12)


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


@pytest.mark.ddp
def test_spearman_class_harness(ddp_pool):
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
