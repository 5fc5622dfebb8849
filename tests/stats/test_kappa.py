"""QuadraticWeightedKappa (transcreval.stats.kappa): agreement with scikit-learn, fixed labels,
unknown ratings, the harness."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import QuadraticWeightedKappa
from transcreval.errors import InputError
from transcreval.functional import (
    quadratic_weighted_kappa,
)


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


@pytest.mark.ddp
def test_qwk_class_harness(ddp_pool):
    rng = np.random.default_rng(5)
    rng.normal(size=60)  # the draws of the Spearman harness's data (the three shared one generator)
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
