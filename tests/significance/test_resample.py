"""Clustered paired bootstrap, approximate randomisation and bootstrap intervals.

Reference: the definitions written out item by item below (draw clusters, concatenate their
items, recompute the statistic), independent of the vectorised fast path.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from transcreval.errors import EmptyInputError, InputError, UndefinedValueError
from transcreval.significance import bootstrap_interval, paired_bootstrap, paired_randomization


def _data(seed=0, n_groups=12):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 4, n_groups)
    groups = [f"src{g}" for g, k in enumerate(sizes) for _ in range(k)]
    a = rng.normal(50, 10, len(groups))
    b = a + rng.normal(2, 5, len(groups))
    return a, b, groups


def _naive_bootstrap(a, b, groups, stat, n, seed, conf):
    order = list(dict.fromkeys(groups))
    members = {g: [i for i, x in enumerate(groups) if x == g] for g in order}
    draws = np.random.default_rng(seed).choice(len(order), size=(n, len(order)), replace=True)
    sa, sb = [], []
    for draw in draws:
        items = [i for g in draw for i in members[order[g]]]
        sa.append(stat(a[items]))
        sb.append(stat(b[items]))
    sa, sb = np.array(sa), np.array(sb)
    d = stat(b) - stat(a)
    deltas = sb - sa
    p = (1 + np.sum(np.abs(deltas - d) >= abs(d))) / (n + 1)
    q = [(1 - conf) / 2, (1 + conf) / 2]
    return p, tuple(np.quantile(deltas, q)), tuple(np.quantile(sa, q)), tuple(np.quantile(sb, q))


@pytest.mark.parametrize("stat", ["mean", np.mean, np.median])
def test_clustered_bootstrap_follows_its_definition(stat):
    a, b, groups = _data()
    got = paired_bootstrap(a, b, groups, statistic=stat, n_resamples=300, seed=4, confidence=0.9)
    fn = np.mean if stat == "mean" else stat
    p, ci, ci_a, ci_b = _naive_bootstrap(a, b, groups, fn, 300, 4, 0.9)
    assert got.p_value == pytest.approx(p, abs=1e-12)
    assert got.ci == pytest.approx(ci, abs=1e-9)
    assert got.ci_a == pytest.approx(ci_a, abs=1e-9) and got.ci_b == pytest.approx(ci_b, abs=1e-9)
    assert got.delta == pytest.approx(fn(b) - fn(a))
    assert (got.n, got.n_missing, got.n_groups) == (len(a), 0, len(set(groups)))


def test_clustered_randomization_swaps_whole_clusters():
    a, b, groups = _data(1)
    got = paired_randomization(a, b, groups, n_resamples=400, ci_resamples=0, seed=9)
    order = list(dict.fromkeys(groups))
    gi = np.array([order.index(g) for g in groups])
    keep = np.random.default_rng(9).integers(2, size=(400, len(order)), dtype=bool)
    d = b.mean() - a.mean()
    count = 0
    for k in keep:
        ki = k[gi]
        pa, pb = np.where(ki, a, b), np.where(ki, b, a)
        count += abs(pb.mean() - pa.mean()) >= abs(d) - 1e-9 * abs(d)
    assert got.p_value == pytest.approx((count + 1) / 401, abs=1e-12)
    assert got.ci is None and math.isnan(got.mean_a) and got.ci_resamples == 0


@pytest.mark.parametrize("n", [2, 50])
def test_randomization_counts_ties_with_the_observed_difference(n):
    """Trials that keep or swap every item reach |d| exactly (in exact arithmetic) and count,
    even where floating-point sums in another order land a hair below the observed |d|."""
    rng = np.random.default_rng(1)
    a, b = np.round(rng.random(n), 1), np.round(rng.random(n), 1)
    got = paired_randomization(a, b, n_resamples=300, ci_resamples=0, seed=2)
    keep = np.random.default_rng(2).integers(2, size=(300, n), dtype=bool)
    fa, fb = [Fraction(str(x)) for x in a], [Fraction(str(x)) for x in b]
    d = abs(sum(fb) - sum(fa))
    count = 0
    for k in keep:
        pa = [x if kk else y for x, y, kk in zip(fa, fb, k)]
        pb = [y if kk else x for x, y, kk in zip(fa, fb, k)]
        count += abs(sum(pb) - sum(pa)) >= d
    assert got.p_value == pytest.approx((count + 1) / 301, abs=1e-12)


def test_sacrebleu_convention_on_identical_systems(monkeypatch):
    """sacrebleu counts only strictly larger differences: identical systems get p = 1/(B+1)."""
    from sacrebleu.metrics import CHRF
    from sacrebleu.significance import PairedTest

    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    hyps, refs = ["a cat sat", "the dog ran", "red hat on"], ["a cat sat down", "dogs ran", "a red hat"]
    for test_type, fn in (("bs", paired_bootstrap), ("ar", paired_randomization)):
        _, scores = PairedTest([("b", hyps), ("s", hyps)], {"chrF": CHRF()}, [refs], test_type, 200)()
        (key,) = [k for k in scores if k != "System"]
        got = fn([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], n_resamples=200, compat="sacrebleu")
        assert got.p_value == scores[key][1].p_value == 1 / 201


def test_clusters_matter_duplicated_items_give_the_unduplicated_interval():
    rng = np.random.default_rng(3)
    x = rng.normal(size=30)
    dup = np.repeat(x, 2)
    groups = np.repeat(np.arange(30), 2).tolist()
    clustered = bootstrap_interval(dup, groups, n_resamples=500, seed=1)
    plain = bootstrap_interval(x, n_resamples=500, seed=1)
    naive = bootstrap_interval(dup, n_resamples=500, seed=1)
    assert clustered.ci == pytest.approx(plain.ci, abs=1e-12)
    assert clustered.n_groups == 30 and clustered.n == 60
    width = lambda iv: iv.ci[1] - iv.ci[0]  # noqa: E731
    assert width(naive) < 0.85 * width(clustered)  # ignoring the clusters overstates certainty


def test_interval_equals_the_paired_tests_baseline_interval():
    a, b, groups = _data(5)
    paired = paired_bootstrap(a, b, groups, n_resamples=200, seed=8)
    one = bootstrap_interval(a, groups, n_resamples=200, seed=8)
    assert one.ci == pytest.approx(paired.ci_a, abs=1e-12) and one.mean == pytest.approx(paired.mean_a)


def test_missing_pairs_are_dropped_and_counted():
    a, b, groups = _data(2)
    a2, b2 = a.copy(), b.copy()
    a2[[0, 5]] = np.nan
    b2[[5, 7]] = np.nan
    got = paired_bootstrap(a2, b2, groups, n_resamples=200, seed=1)
    keep = [i for i in range(len(a)) if i not in (0, 5, 7)]
    ref = paired_bootstrap(a[keep], b[keep], [groups[i] for i in keep], n_resamples=200, seed=1)
    assert got.n == len(keep) and got.n_missing == 3
    assert got.to_dict() | {"n_missing": 0} == ref.to_dict()
    iv = bootstrap_interval(a2, groups, n_resamples=50)
    assert iv.n_missing == 2 and iv.n == len(a) - 2
    with pytest.raises(EmptyInputError, match="all 2 pairs missing"):
        paired_bootstrap([np.nan, 1.0], [1.0, np.nan])


def test_a_cluster_whose_items_are_all_missing_disappears():
    got = paired_bootstrap([1.0, 2.0, np.nan, 4.0], [2.0, 2.5, 3.0, 5.0], ["x", "y", "z", "y"], n_resamples=50)
    assert got.n_groups == 2 and got.n == 3 and got.n_missing == 1


def test_seeded_and_deterministic():
    a, b, groups = _data(6)
    r1 = paired_bootstrap(a, b, groups, seed=1, n_resamples=200)
    assert r1 == paired_bootstrap(a, b, groups, seed=1, n_resamples=200)
    assert r1.ci != paired_bootstrap(a, b, groups, seed=2, n_resamples=200).ci
    t1 = paired_randomization(a, b, groups, seed=1, n_resamples=300)
    assert t1 == paired_randomization(a, b, groups, seed=1, n_resamples=300)


def test_identical_systems_are_not_significant():
    a, _, groups = _data(7)
    for res in (
        paired_bootstrap(a, a, groups, n_resamples=100),
        paired_randomization(a, a, groups, n_resamples=100, ci_resamples=50),
    ):
        assert res.delta == 0 and res.p_value == 1.0 and res.ci == (0.0, 0.0)


def test_constant_shift_and_ties():
    a = [1.0, 1.0, 2.0, 2.0, 3.0]
    b = [x + 1 for x in a]
    bs = paired_bootstrap(a, b, n_resamples=200)
    assert bs.delta == pytest.approx(1) and bs.ci == pytest.approx((1.0, 1.0)) and bs.p_value == pytest.approx(1 / 201)
    ar = paired_randomization(a, b, n_resamples=2000, ci_resamples=0, seed=0)
    assert ar.p_value == pytest.approx(2 / 32, abs=0.02)  # exact test: only all-keep / all-swap reach |d|


def test_single_item_or_cluster():
    with pytest.raises(UndefinedValueError, match="at least 2 source items"):
        paired_bootstrap([1.0], [2.0])
    with pytest.raises(UndefinedValueError, match="at least 2 source items"):
        paired_randomization([1.0, 2.0], [2.0, 3.0], ["s", "s"])
    iv = bootstrap_interval([4.0, 6.0], ["s", "s"])
    assert iv.value == 5.0 and iv.ci is None and iv.n == 2 and iv.n_groups == 1


def test_set_level_statistics_recompute_on_each_resample():
    rng = np.random.default_rng(0)
    feats_a, feats_b = rng.normal(size=(40, 3)), rng.normal(0.5, 1, size=(40, 3))

    def dist_to_origin(rows):  # a set-level statistic over feature rows (like FID's mean term)
        return float(np.linalg.norm(rows.mean(0)))

    got = paired_bootstrap(feats_a, feats_b, statistic=dist_to_origin, n_resamples=200, seed=3)
    draws = np.random.default_rng(3).choice(40, size=(200, 40), replace=True)
    deltas = [dist_to_origin(feats_b[d]) - dist_to_origin(feats_a[d]) for d in draws]
    assert got.ci == pytest.approx(tuple(np.quantile(deltas, [0.025, 0.975])), abs=1e-12)
    assert got.statistic == "dist_to_origin"


def test_fid_as_a_set_level_statistic():
    """FID of each system's (resampled) feature rows to fixed reference statistics, through
    transcreval's Frechet pieces, against the formula written out with scipy."""
    import torch
    from scipy import linalg

    from transcreval.functional.image.frechet import frechet_distance, gaussian_from_moments, moments

    rng = np.random.default_rng(4)
    ref = rng.normal(size=(200, 4))
    feats_a, feats_b = rng.normal(0.3, 1.0, size=(30, 4)), rng.normal(0.1, 1.2, size=(30, 4))
    mu_r, s_r = ref.mean(0), np.cov(ref, rowvar=False)

    def fid(rows):
        m = moments(torch.from_numpy(rows))
        mu, sigma = gaussian_from_moments(m["n"], m["sum"], m["outer"])
        return frechet_distance(mu, sigma, torch.from_numpy(mu_r), torch.from_numpy(s_r))

    def fid_scipy(rows):
        mu, sigma = rows.mean(0), np.cov(rows, rowvar=False)
        covmean = linalg.sqrtm(sigma @ s_r).real
        return float(((mu - mu_r) ** 2).sum() + np.trace(sigma + s_r - 2 * covmean))

    groups = [f"src{k // 3}" for k in range(30)]
    got = paired_bootstrap(feats_a, feats_b, groups, statistic=fid, n_resamples=60, seed=1)
    assert got.delta == pytest.approx(fid_scipy(feats_b) - fid_scipy(feats_a), abs=1e-6)
    members = [np.arange(3 * g, 3 * g + 3) for g in range(10)]
    draws = np.random.default_rng(1).choice(10, size=(60, 10), replace=True)
    deltas = [fid_scipy(feats_b[np.concatenate([members[g] for g in d])]) for d in draws]
    deltas = [x - fid_scipy(feats_a[np.concatenate([members[g] for g in d])]) for x, d in zip(deltas, draws)]
    assert got.ci == pytest.approx(tuple(np.quantile(deltas, [0.025, 0.975])), abs=1e-6)
    assert got.statistic == "fid" and got.n_groups == 10


def test_undefined_resamples_are_dropped_and_counted():
    def win_rate(x):  # wins / decisive outcomes (ties = 0.5 left out); undefined with none decisive
        decisive = x[x != 0.5]
        return float((decisive == 1).mean()) if decisive.size else math.nan

    a = [0.5] * 9 + [1.0]
    b = [0.5] * 9 + [0.0]
    got = paired_bootstrap(a, b, statistic=win_rate, n_resamples=400, seed=0)
    draws = np.random.default_rng(0).choice(10, size=(400, 10), replace=True)
    undefined = sum(1 for d in draws if 9 not in d)  # the one decisive item was not drawn
    assert got.n_dropped == undefined > 0 and got.delta == -1.0
    assert got.p_value == pytest.approx(1 / (400 - undefined + 1))


def test_results_are_json_ready():
    a, b, groups = _data(8)
    a[0] = np.nan
    for res in (paired_bootstrap(a, b, groups, n_resamples=50), paired_randomization(a, b, groups, n_resamples=50)):
        text = json.dumps(res.to_dict(), allow_nan=False)
        assert json.loads(text)["n_missing"] == 1


def test_inputs_as_tensors_and_metric_results():
    import torch

    from transcreval.core.result import MetricResult, Signature

    a, b, groups = _data(9)
    ra = MetricResult(float(a.mean()), len(a), Signature.make("m"), per_item=torch.tensor(a))
    got = paired_bootstrap(ra, torch.tensor(b), groups, n_resamples=50)
    assert got == paired_bootstrap(a, b, groups, n_resamples=50)
    with pytest.raises(InputError, match="no per_item"):
        paired_bootstrap(MetricResult(1.0, 1, Signature.make("m")), b)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"per_item_b": [1.0, 2.0]}, "same items, in the same order"),
        ({"groups": ["a", "b"]}, "2 labels for 3 items"),
        ({"groups": ["a", None, "b"]}, r"groups\[1\] is missing"),
        ({"groups": "abc"}, "bare string"),
        ({"per_item_a": [1.0, math.inf, 2.0]}, "infinite"),
        ({"per_item_a": ["x", "y", "z"]}, "must be numbers"),
        ({"per_item_a": 3.0}, "single number"),
        ({"statistic": "median"}, "'mean' or a callable"),
        ({"statistic": 3}, "'mean' or a callable"),
        ({"n_resamples": 0}, "n_resamples must be a positive integer"),
        ({"seed": None}, "seed must be a non-negative integer"),
        ({"confidence": 95}, r"confidence must lie in \(0, 1\)"),
        ({"compat": "moses"}, "compat must be"),
        ({"compat": "sacrebleu", "confidence": 0.9}, "95% intervals only"),
        ({"per_item_a": [[1.0, 2.0]] * 3, "per_item_b": [[1.0, 2.0]] * 3}, "'mean' needs one number per item"),
        ({"statistic": lambda rows: "high"}, "returned 'high', not a number"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(kwargs, message):
    args = {"per_item_a": [1.0, 2.0, 3.0], "per_item_b": [2.0, 2.0, 4.0]} | kwargs
    with pytest.raises(InputError, match=message):
        paired_bootstrap(**args)


def test_randomization_refuses_bad_ci_resamples():
    with pytest.raises(InputError, match="ci_resamples"):
        paired_randomization([1.0, 2.0], [2.0, 3.0], ci_resamples=-1)


# ---------------------------------------------------------------- too few resamples
@pytest.mark.parametrize(
    ("confidence", "minimum"),
    [(0.95, 40), (0.9, 20), (0.99, 200)],
)
def test_too_few_resamples_are_refused_naming_the_minimum(confidence, minimum):
    """Fewer than 2 / (1 - confidence) resamples leave no resample beyond an end of the interval
    (B = 1 gives an "interval" that is one resample): refused, naming the minimum."""
    a, b, groups = _data()
    for fn in (paired_bootstrap, paired_randomization):
        with pytest.raises(InputError, match=rf"{confidence:.0%} intervals need at least {minimum} "):
            fn(a, b, groups, n_resamples=minimum - 1, confidence=confidence)
        fn(a, b, groups, n_resamples=minimum, confidence=confidence)  # the minimum itself is accepted
    with pytest.raises(InputError, match=rf"at least {minimum}"):
        bootstrap_interval(b, groups, n_resamples=1, confidence=confidence)
    with pytest.raises(InputError, match=rf"ci_resamples.*at least {minimum}"):
        paired_randomization(a, b, groups, n_resamples=1000, ci_resamples=minimum - 1, confidence=confidence)
    # ci_resamples=0 still means "no intervals"
    assert paired_randomization(a, b, groups, n_resamples=minimum, ci_resamples=0, confidence=confidence).ci is None
