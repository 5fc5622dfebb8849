"""WordRecall (PosterIQ Eq. 2), OCRRobustnessGap and FontSizeStability (PosterIQ Table 1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import torch

from transcreval.aggregate_metric import AggregateMetric
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional.posteriq import (
    Aggregate,
    Mode,
    _check_mode,
    _word_recall_agg,
    font_size_stability,
    ocr_robustness_gap,
    word_recall_one,
)
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.states import Cat, Sum


class WordRecall(AggregateMetric):
    """Word-level OCR recall over ``unit``-character units, mean over items, in [0, 1].

    ``update(gt, pred)``: ground-truth texts and model outputs (None = no answer, counted in
    ``n_unparsable``). See :func:`transcreval.functional.word_recall` for both modes.
    """

    def __init__(self, *, unit: int = 5, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_mode(mode)
        self.unit, self.mode = unit, mode

    def _aggregate(self, gt: Sequence[str], pred: Sequence[str | None]) -> Aggregate:
        return _word_recall_agg(gt, pred, self.unit, self.mode)

    def _signature_options(self) -> dict[str, Any]:
        return {"unit": self.unit, "mode": self.mode}


class OCRRobustnessGap(Metric):
    """Delta = mean WR on simple items - mean WR on hard items (PosterIQ Table 1), lower is better.

    ``update(gt, pred, split)`` with ``split[i]`` "simple" or "hard"; ``extras`` holds both WRs.
    """

    higher_is_better: ClassVar[bool] = False
    value_range: ClassVar[tuple[float, float]] = (-1.0, 1.0)

    def __init__(self, *, unit: int = 5, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_mode(mode)
        self.unit, self.mode = unit, mode
        self.add_state("wr_sum", Sum(torch.float64, (2,)))
        self.add_state("count", Sum(torch.int64, (2,)))
        self.add_state("unparsable", Sum(torch.int64))

    def _stats(self, gt: Sequence[str], pred: Sequence[str | None], split: Sequence[str]) -> dict[str, Any]:
        splits = list(split)
        if isinstance(split, str) or len(splits) != len(list(gt)):
            raise InputError("split must be a list with one 'simple'/'hard' entry per item")
        wr_sum, count, bad = [0.0, 0.0], [0, 0], 0
        for g, p, s in zip(gt, pred, splits):
            if s not in ("simple", "hard"):
                raise InputError(f"split entries must be 'simple' or 'hard', got {s!r}")
            v = word_recall_one(g, p, self.unit, self.mode)
            if v is None:
                bad += 1
                continue
            k = 0 if s == "simple" else 1
            wr_sum[k] += v
            count[k] += 1
        return {"wr_sum": wr_sum, "count": count, "unparsable": bad}

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        n = stats["count"].tolist()
        if min(n) == 0:
            raise EmptyInputError(f"OCRRobustnessGap needs simple and hard items, got {n[0]} simple and {n[1]} hard")
        simple, hard = (float(stats["wr_sum"][k]) / n[k] for k in (0, 1))
        return MetricResult(
            ocr_robustness_gap(simple, hard),
            sum(n),
            self.signature,
            extras={"simple_wr": simple, "hard_wr": hard, "n_unparsable": int(stats["unparsable"])},
        )

    def _signature_options(self) -> dict[str, Any]:
        return {"unit": self.unit, "mode": self.mode}


class FontSizeStability(Metric):
    """Standard deviation of the per-font-size mean WR (PosterIQ Table 1 "Std"), lower is better.

    ``update(gt, pred, font_sizes)``; ``extras["mean_wr"]`` is the mean of the per-size means
    and ``extras["per_size"]`` the means. ``ddof=1`` (sample std) as PosterIQ's code.
    """

    higher_is_better: ClassVar[bool] = False
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)

    def __init__(self, *, unit: int = 5, mode: Mode = "paper", ddof: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_mode(mode)
        self.unit, self.mode, self.ddof = unit, mode, ddof
        self.add_state("wr", Cat(torch.float64))
        self.add_state("size", Cat(torch.float64))
        self.add_state("unparsable", Sum(torch.int64))

    def _stats(self, gt: Sequence[str], pred: Sequence[str | None], font_sizes: Sequence[float]) -> dict[str, Any]:
        sizes = [float(s) for s in font_sizes]
        if len(sizes) != len(list(gt)):
            raise InputError("font_sizes must hold one size per item")
        wrs, kept, bad = [], [], 0
        for g, p, s in zip(gt, pred, sizes):
            v = word_recall_one(g, p, self.unit, self.mode)
            if v is None:
                bad += 1
            else:
                wrs.append(v)
                kept.append(s)
        return {
            "wr": torch.tensor(wrs, dtype=torch.float64),
            "size": torch.tensor(kept, dtype=torch.float64),
            "unparsable": bad,
        }

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        by_size: dict[float, list[float]] = {}
        for w, s in zip(stats["wr"].tolist(), stats["size"].tolist()):
            by_size.setdefault(s, []).append(w)
        if len(by_size) <= self.ddof:
            raise EmptyInputError(f"FontSizeStability needs more than {self.ddof} font sizes, got {len(by_size)}")
        mean, std = font_size_stability(by_size, ddof=self.ddof)
        per_size = {s: sum(v) / len(v) for s, v in sorted(by_size.items())}
        extras = {"mean_wr": mean, "per_size": per_size, "n_unparsable": int(stats["unparsable"])}
        return MetricResult(std, int(stats["wr"].numel()), self.signature, extras=extras)

    def _signature_options(self) -> dict[str, Any]:
        return {"unit": self.unit, "mode": self.mode, "ddof": self.ddof}
