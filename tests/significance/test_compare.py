"""Every system against a baseline over a ProtocolResult, and per-cell summaries."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from transcreval.errors import InputError
from transcreval.protocols.records import ItemRecord, ProtocolResult
from transcreval.significance import bootstrap_interval, compare_systems, paired_bootstrap, summarize


def _result(shuffle_seed=None):
    rng = np.random.default_rng(0)
    recs = []
    truth = {}
    for system, shift in (("base", 0.0), ("good", 0.3), ("same", 0.0)):
        for metric in ("score", "judge"):
            vals = []
            for k in range(24):
                v = float(rng.normal(shift, 0.3) + k % 3 * 0.1)
                status = "ok"
                if system == "good" and metric == "judge" and k in (3, 4):
                    v, status = math.nan, "unparsable"
                vals.append(v)
                meta = {"split": "surface" if k % 2 else "deep"}
                recs.append(ItemRecord(f"i{k}", system, metric, v, status, group=f"src{k // 2}", meta=meta))
            truth[(system, metric)] = vals
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(recs)
    return ProtocolResult("demo", tuple(recs), {}), truth


def test_comparisons_equal_direct_paired_tests_whatever_the_record_order():
    res, truth = _result()
    shuffled, _ = _result(shuffle_seed=1)
    cmp = compare_systems(res, "base", n_resamples=300, seed=5)
    assert cmp.systems == ["good", "same"] and cmp.metrics == ["score", "judge"]
    groups = [f"src{k // 2}" for k in range(24)]
    for row in cmp.rows:
        direct = paired_bootstrap(
            truth[("base", row.metric)], truth[(row.system, row.metric)], groups, n_resamples=300, seed=5
        )
        assert row.delta == pytest.approx(direct.delta, abs=1e-12)
        assert row.ci == pytest.approx(direct.ci, abs=1e-12)
        assert row.p_value == direct.p_value
        assert (row.n, row.n_missing, row.n_groups) == (direct.n, direct.n_missing, direct.n_groups)
    # by item id, not by position: a shuffled record order changes only the cluster numbering
    other = compare_systems(shuffled, "base", n_resamples=300, seed=5)
    for r1 in cmp.rows:
        r2 = other.get(r1.system, r1.metric)
        assert r2.delta == pytest.approx(r1.delta, abs=1e-12) and (r2.n, r2.n_missing) == (r1.n, r1.n_missing)


def test_failed_and_absent_items_are_counted_missing():
    res, _ = _result()
    recs = [r for r in res.records if not (r.system == "same" and r.item_id == "i0")]
    cmp = compare_systems(ProtocolResult("demo", tuple(recs), {}), "base", n_resamples=100)
    assert cmp.get("good", "judge").n_missing == 2 and cmp.get("good", "judge").n == 22
    assert cmp.get("same", "score").n_missing == 1 and cmp.get("same", "score").n == 23
    assert cmp.get("good", "score").n_missing == 0


def test_a_metric_a_system_is_never_scored_on_has_no_row():
    """A system (or the baseline) with no record of a metric is never scored on it (MPTc's GT row
    has no title_chrf): no row, rather than one with every item missing; a system whose every
    record of the metric failed keeps its row, counting them missing."""
    res, _ = _result()
    never = [r for r in res.records if not (r.system == "same" and r.metric == "judge")]
    failed = [ItemRecord(f"i{k}", "same", "judge", math.nan, "api_error", group=f"src{k // 2}") for k in range(24)]
    cmp = compare_systems(ProtocolResult("demo", tuple(never), {}), "base", n_resamples=100)
    assert {(r.system, r.metric) for r in cmp.rows} == {("good", "score"), ("good", "judge"), ("same", "score")}
    cmp = compare_systems(ProtocolResult("demo", tuple(never), {}), "same", n_resamples=100)
    assert {(r.system, r.metric) for r in cmp.rows} == {("base", "score"), ("good", "score")}  # baseline lacks judge
    cmp = compare_systems(ProtocolResult("demo", (*never, *failed), {}), "base", n_resamples=100)
    row = cmp.get("same", "judge")
    assert (row.n, row.n_missing) == (0, 24)


def test_significance_flags_and_randomization():
    res, _ = _result()
    cmp = compare_systems(res, "base", test="randomization", n_resamples=2000, alpha=0.05)
    assert cmp.get("good", "score").significant and cmp.get("good", "score").delta > 0
    assert not cmp.get("same", "score").significant
    assert cmp.test == "randomization" and cmp.n_resamples == 2000
    assert cmp.get("good", "score").ci is not None


def test_comparisons_are_json_serialisable_with_the_settings():
    res, _ = _result()
    recs = [*res.records, ItemRecord("x", "lonely", "score", math.nan, "api_error")]
    out = compare_systems(ProtocolResult("demo", tuple(recs), {}), "base", n_resamples=50).to_dict()
    text = json.dumps(out, allow_nan=False)
    back = json.loads(text)
    assert back["baseline"] == "base" and back["settings"]["n_resamples"] == 50
    lonely = next(c for c in back["comparisons"] if c["system"] == "lonely" and c["metric"] == "score")
    assert lonely["delta"] is None and lonely["n"] == 0 and lonely["n_missing"] == 25
    assert "no item has a value on both sides" in lonely["note"]
    fields = {"metric", "system", "delta", "ci", "p_value", "n", "n_missing", "value", "baseline_value"}
    assert fields <= set(back["comparisons"][0])


def test_set_level_statistic_per_metric():
    res, truth = _result()
    cmp = compare_systems(res, "base", metrics=["score"], statistics={"score": np.median}, n_resamples=100)
    assert cmp.get("good", "score").delta == pytest.approx(
        np.median(truth[("good", "score")]) - np.median(truth[("base", "score")])
    )


def test_bad_input():
    res, _ = _result()
    with pytest.raises(InputError, match="baseline 'nobody' has no records"):
        compare_systems(res, "nobody")
    with pytest.raises(InputError, match="system 'ghost' has no records"):
        compare_systems(res, "base", systems=["ghost"])
    with pytest.raises(InputError, match="test must be"):
        compare_systems(res, "base", test="t-test")
    with pytest.raises(InputError, match="alpha"):
        compare_systems(res, "base", alpha=5)
    dup = ProtocolResult("demo", (*res.records, res.records[0]), {})
    with pytest.raises(InputError, match="two records"):
        compare_systems(dup, "base")
    moved = [
        ItemRecord(r.item_id, r.system, r.metric, r.value, r.status, "elsewhere", r.meta)
        if (r.system, r.item_id) == ("good", "i1")
        else r
        for r in res.records
    ]
    with pytest.raises(InputError, match="must be the same for every system"):
        compare_systems(ProtocolResult("demo", tuple(moved), {}), "base")
    with pytest.raises(InputError, match=r"no meta\['counts'\]"):
        compare_systems(res, "base", statistics={"score": np.sum}, rows_from={"score": "counts"})


def test_summaries_per_cell_and_per_group():
    res, truth = _result()
    cells = summarize(res, n_resamples=200)
    good_judge = next(c for c in cells if (c.system, c.metric) == ("good", "judge"))
    iv = bootstrap_interval(truth[("good", "judge")], [f"src{k // 2}" for k in range(24)], n_resamples=200)
    assert good_judge.value == pytest.approx(iv.value) and good_judge.ci == iv.ci
    assert (good_judge.n, good_judge.n_missing, good_judge.group) == (22, 2, None)
    by_split = summarize(res, by="split", n_resamples=50)
    groups = {c.group for c in by_split}
    assert groups == {"surface", "deep"} and len(by_split) == 2 * len(cells)
    surf = next(c for c in by_split if (c.system, c.metric, c.group) == ("good", "judge", "surface"))
    assert surf.n + surf.n_missing == 12 and surf.n_missing == 1
    json.dumps([c.to_dict() for c in by_split], allow_nan=False)


def test_summary_of_an_all_missing_cell():
    recs = (ItemRecord("a", "s", "m", math.nan, "timeout"), ItemRecord("b", "s", "m", math.nan, "timeout"))
    (cell,) = summarize(ProtocolResult("p", recs, {}))
    assert math.isnan(cell.value) and cell.ci is None and (cell.n, cell.n_missing) == (0, 2)
    assert cell.to_dict()["value"] is None


# ---------------------------------------------------------------- tiny samples
def _pairs(n_items, *, shift=0.5, missing=()):
    recs = []
    for k in range(n_items):
        recs.append(ItemRecord(f"i{k}", "base", "m", 0.1 * k, "ok", group=f"src{k}"))
        gone = k in missing
        v, st = (math.nan, "api_error") if gone else (0.1 * k + shift, "ok")
        recs.append(ItemRecord(f"i{k}", "sys", "m", v, st, group=f"src{k}"))
    return ProtocolResult("demo", tuple(recs), {})


@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_too_few_clusters_are_marked_and_never_significant(test):
    """Two source items gave p = 0.001, "significant": with G clusters no test can tell a real
    difference below p = 2^(1-G) (the exact randomisation floor), so fewer than 6 at alpha 0.05
    are marked and never significant."""
    row = compare_systems(_pairs(2), "base", test=test).get("sys", "m")
    assert row.too_few_clusters and not row.significant
    assert (row.n, row.n_groups, row.n_missing) == (2, 2, 0)
    assert row.delta == pytest.approx(0.5)  # the numbers are still given, with the reason
    assert "2 source items" in row.note and "at least 6" in row.note
    five = compare_systems(_pairs(5), "base", test=test).get("sys", "m")
    assert five.too_few_clusters and not five.significant
    six = compare_systems(_pairs(6), "base", test=test).get("sys", "m")
    assert not six.too_few_clusters and six.significant and six.note == ""
    # the floor follows alpha: 2^(1-G) < alpha needs G >= 8 at alpha = 0.01
    strict = compare_systems(_pairs(7), "base", test=test, alpha=0.01).get("sys", "m")
    assert strict.too_few_clusters and not strict.significant
    assert not compare_systems(_pairs(8), "base", test=test, alpha=0.01).get("sys", "m").too_few_clusters
    assert compare_systems(_pairs(2), "base", test=test).to_dict()["comparisons"][0]["too_few_clusters"] is True


def test_a_single_pair_is_counted_not_reported_as_none():
    """One usable pair out of ten: n = 1 with 9 missing (it said n = 0 with 9 missing)."""
    row = compare_systems(_pairs(10, missing=range(1, 10)), "base").get("sys", "m")
    assert (row.n, row.n_missing, row.n_groups) == (1, 9, 1)
    assert row.too_few_clusters and not row.significant and math.isnan(row.p_value)
    assert "1 source item" in row.note


def test_compare_refuses_too_few_resamples():
    with pytest.raises(InputError, match="at least 40"):
        compare_systems(_pairs(8), "base", n_resamples=1)
