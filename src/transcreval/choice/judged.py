"""Judge-verdict metrics of PosterIQ: PointScore (Eq. 10), StyleScore (Eq. 13), FontRichness (Eq. 14-15)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import torch

from transcreval.aggregate_metric import AggregateMetric
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional.posteriq import (
    Aggregate,
    Mode,
    _check_mode,
    _point_aggs,
    _style_agg,
    font_attribute_counts,
)
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.states import Sum


class PointScore(Metric):
    """Fraction of images whose every key point the judge found covered, in [0, 1].

    ``update(verdicts)`` with one list of verdicts (bools or yes/no answers) per image.
    ``extras["per_point"]`` is the mean covered fraction (what ``mode="posteriq-code"``
    reports as the value); ``extras["n_unparsable"]`` counts images with an unreadable verdict.
    """

    higher_is_better: ClassVar[bool] = True
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)

    def __init__(
        self, *, mode: Mode = "paper", code_yes: Literal["substring", "exact"] = "substring", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        _check_mode(mode)
        if code_yes not in ("substring", "exact"):
            raise InputError(f"code_yes must be 'substring' or 'exact', got {code_yes!r}")
        self.mode, self.code_yes = mode, code_yes
        self.add_state("all_covered", Sum(torch.float64))
        self.add_state("covered_fraction", Sum(torch.float64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("unparsable", Sum(torch.int64))

    def _stats(self, verdicts: Sequence[Sequence[Any]]) -> dict[str, Any]:
        allc, frac = _point_aggs(verdicts, self.mode, self.code_yes)
        return {
            "all_covered": allc.total,
            "covered_fraction": frac.total,
            "count": allc.count,
            "unparsable": allc.unparsable,
        }

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        n, bad = int(stats["count"]), int(stats["unparsable"])
        if n == 0:
            raise EmptyInputError(f"PointScore: no images with readable verdicts ({bad} unparsable)")
        per_point = float(stats["covered_fraction"]) / n
        value = per_point if self.mode == "posteriq-code" else float(stats["all_covered"]) / n
        return MetricResult(value, n, self.signature, extras={"per_point": per_point, "n_unparsable": bad})

    def _signature_options(self) -> dict[str, Any]:
        return {"mode": self.mode} if self.mode == "paper" else {"mode": self.mode, "yes": self.code_yes}


class StyleScore(AggregateMetric):
    """Accuracy of the judged style against the target style, in [0, 1].

    ``update(pred, target)``; answers naming no label (or several) are counted, not scored."""

    def __init__(self, labels: Sequence[str] | None = None, *, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_mode(mode)
        self.labels = list(labels) if labels is not None else None
        self.mode = mode

    def _aggregate(self, pred: Sequence[Any], target: Sequence[str]) -> Aggregate:
        return _style_agg(pred, target, self.labels, self.mode)

    def _signature_options(self) -> dict[str, Any]:
        return {"labels": len(self.labels) if self.labels is not None else "targets", "mode": self.mode}


class FontRichness(Metric):
    """Mean over the attribute vocabulary of the fraction of posters showing each attribute.

    ``update(attribute_sets)``: per poster, the judge's attributes (a list) or its raw
    description. ``extras["coverage"]`` maps each attribute to its coverage R_a."""

    higher_is_better: ClassVar[bool] = True
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)

    def __init__(self, vocabulary: Sequence[str], *, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_mode(mode)
        self.vocabulary = list(vocabulary)
        if not self.vocabulary or len(set(self.vocabulary)) != len(self.vocabulary):
            raise InputError("vocabulary must be a non-empty list of distinct attributes")
        self.mode = mode
        self.add_state("attribute_counts", Sum(torch.int64, (len(self.vocabulary),)))
        self.add_state("posters", Sum(torch.int64))

    def _stats(self, attribute_sets: Sequence[Any]) -> dict[str, Any]:
        counts, n = font_attribute_counts(attribute_sets, self.vocabulary, self.mode)
        return {"attribute_counts": counts, "posters": n}

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        n = int(stats["posters"])
        if n == 0:
            raise EmptyInputError("FontRichness has no posters: call update(attribute_sets) first")
        counts = stats["attribute_counts"].tolist()
        coverage = {a: c / n for a, c in zip(self.vocabulary, counts)}
        return MetricResult(sum(counts) / (n * len(counts)), n, self.signature, extras={"coverage": coverage})

    def _signature_options(self) -> dict[str, Any]:
        return {"attrs": len(self.vocabulary), "mode": self.mode}
