"""One mean block: :class:`~transcreval.core.common.MeanStats` builds the
statistics, :class:`~transcreval.core.aggregate_metric.MeanMetric` declares the states, for every
mean in the registry: the PosterIQ/OCR/layout means, LPIPS, the embeddings, COMET, PointScore
and every judge metric (whose ``JudgeTally`` is a ``MeanStats``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import ClassVar

import numpy as np
import pytest
import torch

from transcreval.core.aggregate_metric import MeanMetric
from transcreval.core.common import MeanStats
from transcreval.core.registry import get_metric, list_metrics
from transcreval.core.state_checks import SIGNATURE_STATE
from transcreval.engines.judge.tally import JudgeTally
from transcreval.engines.judge.types import FAILURE_STATUSES, ITEM_STATUSES
from transcreval.judge.judge_metric import JudgeMetric

#: registered metrics whose value is not total / count of per-item values (kept on Metric)
NOT_MEANS = {
    "FID",  # a Frechet distance of two Gaussians
    "PHashDistance",
    "OCRMaskIoU",  # a pooled intersection over union
    "IMTBenchScore",  # the mean over items with all four components, from four per-item lists
}


JUDGE_MEANS = [m.name for m in list_metrics() if m.module.startswith("transcreval.judge.") and m.name not in NOT_MEANS]


def test_the_judge_metrics_are_found():
    assert len(JUDGE_MEANS) >= 10 and "WinRate" in JUDGE_MEANS


@pytest.mark.parametrize("name", JUDGE_MEANS)
def test_judge_metrics_are_means_with_the_judge_states(name):
    cls = get_metric(name).load()
    assert issubclass(cls, JudgeMetric) and issubclass(cls, MeanMetric)
    assert dict(cls.side_vectors) == {"failures": len(FAILURE_STATUSES)}
    assert cls.per_item_status and cls.status_state == "item_status"


@pytest.mark.parametrize("name", ["PointScore", "COMETScore"])
def test_point_score_and_comet_are_means(name):
    try:
        cls = get_metric(name).load()
    except Exception as err:  # COMET needs its own venv
        pytest.skip(f"{name} cannot be loaded here: {err}")
    assert issubclass(cls, MeanMetric)


class _Toy(MeanMetric):
    side_counters = ("unparsable",)
    side_totals = ("covered",)
    side_vectors: ClassVar[Mapping[str, int]] = {"per_kind": 3}
    per_item_status = True
    status_state = "item_status"

    def _stats(self, preds):
        agg = MeanStats(side={"unparsable": 0, "covered": 0.0})
        for p in preds:
            if p is None:
                agg.unreadable("drop")
            else:
                agg.tally("covered", p / 2)
                agg.add(p)
        return {**agg.as_stats(), "per_kind": np.array([1, 0, 2]), "item_status": agg.as_stats()["status"]}


def test_mean_metric_declares_side_counters_totals_vectors_and_the_status_state():
    m = _Toy()
    names = [k for k in m.state_dict() if k != SIGNATURE_STATE]
    assert names == ["total", "count", "unparsable", "covered", "per_kind", "values", "item_status"]
    sd = m.state_dict()
    assert sd["covered"].dtype == torch.float64 and sd["unparsable"].dtype == torch.int64
    assert tuple(sd["per_kind"].shape) == (3,)


def test_mean_stats_item_that_counts_with_a_status_and_float_side_totals():
    agg = MeanStats(side={"unparsable": 0, "covered_fraction": 0.0})
    agg.add(1.0)
    agg.tally("unparsable")
    agg.tally("covered_fraction", 0.25)
    agg.add_with_status(0.0, "unparsable")
    st = agg.as_stats()
    assert (st["total"], st["count"], st["unparsable"], st["covered_fraction"]) == (1.0, 2, 1, 0.25)
    assert st["status"].tolist() == [0, 1] and st["values"].tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="unknown item status"):
        agg.add_with_status(1.0, "timeout")  # not a status of the PosterIQ table
    with pytest.raises(ValueError, match="not finite"):
        agg.add(math.nan)


def test_judge_tally_is_a_mean_stats_with_the_judge_status_table():
    t = JudgeTally(wins=0)
    assert isinstance(t, MeanStats)
    t.add(1.0, wins=1)
    t.fail("timeout", "slow")
    t.undefined()
    t.add(0.5)
    st = t.stats()
    assert list(st) == ["total", "count", "failures", "values", "item_status", "wins"]
    assert (st["total"], st["count"], st["wins"]) == (1.5, 2, 1)
    assert st["failures"] == [int(s == "timeout") for s in FAILURE_STATUSES]
    assert st["item_status"].tolist() == [ITEM_STATUSES.index(s) for s in ("ok", "timeout", "undefined", "ok")]
    assert np.isnan(st["values"][1]) and np.isnan(st["values"][2]) and st["values"][3] == 0.5
    with pytest.raises(ValueError, match="were not declared"):
        t.add(1.0, losses=1)
    with pytest.raises(ValueError, match="not finite"):
        t.add(math.inf)
    assert t.count == 2  # a refused add leaves the tally as it was
