"""Statistics over whole data sets, accumulated as concatenated per-item values.

Per-item values are Cat states: after a distributed sync they arrive rank-major, which none of
these statistics depends on. Identifiers that are not integers (segment, country) are stored
as 64-bit hashes; result details name them where this process saw them.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

import torch

from transcreval.errors import EmptyInputError, InputError
from transcreval.functional.agreement import (
    StatResult,
    _pair,
    _positive,
    _vec,
    quadratic_weighted_kappa,
    segment_kendall_tau,
    separability_auc,
    spearman_rho,
)
from transcreval.functional.posteriq import Mode, _check_mode, _rating_pairs, rating_cosine
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.states import Cat, Sum


class _Bootstrapped(Metric):
    higher_is_better: ClassVar[bool] = True
    value_range: ClassVar[tuple[float, float]] = (-1.0, 1.0)

    def __init__(self, *, bootstrap: int = 0, seed: int = 0, confidence: float = 0.95, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bootstrap, self.seed, self.confidence = bootstrap, seed, confidence

    def _boot(self) -> dict[str, Any]:
        return {"bootstrap": self.bootstrap, "seed": self.seed, "confidence": self.confidence}

    def _result(self, res: StatResult, **extras: Any) -> MetricResult:
        ex: dict[str, Any] = dict(res.details)
        ex.update(extras)
        if res.ci is not None:
            ex["ci"] = res.ci
        return MetricResult(res.value, res.n, self.signature, extras=ex)

    def _signature_options(self) -> dict[str, Any]:
        return {"boot": self.bootstrap, "seed": self.seed} if self.bootstrap else {}


def _paired_tensors(x: Any, y: Any, names: tuple[str, str]) -> tuple[torch.Tensor, torch.Tensor]:
    a, b = _pair(x, y, names)  # the functional twin's validation (lengths, finiteness)
    return torch.from_numpy(a), torch.from_numpy(b)


def _float_tensor(x: Any, what: str) -> torch.Tensor:
    return torch.from_numpy(_vec(x, what))


class SpearmanRho(_Bootstrapped):
    """Spearman's rho between two sequences (``update(x, y)``), in [-1, 1]."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("x", Cat(torch.float64))
        self.add_state("y", Cat(torch.float64))

    def _stats(self, x: Sequence[float], y: Sequence[float]) -> dict[str, Any]:
        a, b = _paired_tensors(x, y, ("x", "y"))
        return {"x": a, "y": b}

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        if stats["x"].numel() == 0:
            raise EmptyInputError("SpearmanRho has no pairs")
        return self._result(spearman_rho(stats["x"].numpy(), stats["y"].numpy(), **self._boot()))


class QuadraticWeightedKappa(_Bootstrapped):
    """Cohen's kappa with quadratic weights between two raters' numeric ordinal ratings.

    ``update(a, b)``; ``labels`` fixes the ordinal scale (default: the ratings seen)."""

    def __init__(self, labels: Sequence[float] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.labels = [float(v) for v in labels] if labels is not None else None
        self.add_state("a", Cat(torch.float64))
        self.add_state("b", Cat(torch.float64))

    def _stats(self, a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
        x, y = _paired_tensors(a, b, ("a", "b"))
        return {"a": x, "b": y}

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        if stats["a"].numel() == 0:
            raise EmptyInputError("QuadraticWeightedKappa has no ratings")
        res = quadratic_weighted_kappa(stats["a"].tolist(), stats["b"].tolist(), labels=self.labels, **self._boot())
        return self._result(res)


class SeparabilityAUC(_Bootstrapped):
    """ROC AUC of a distance for deep (positive) vs surface pairs, in [0, 1] (MPTc App. B.2).

    ``update(distances, labels)``."""

    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("distances", Cat(torch.float64))
        self.add_state("labels", Cat(torch.int64))

    def _stats(self, distances: Sequence[float], labels: Sequence[Any]) -> dict[str, Any]:
        d = _float_tensor(distances, "distances")
        lab = torch.tensor([int(_positive(v)) for v in labels], dtype=torch.int64)
        if d.numel() != lab.numel():
            raise InputError(f"mismatched lengths: {d.numel()} distances, {lab.numel()} labels")
        return {"distances": d, "labels": lab}

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        if stats["distances"].numel() == 0:
            raise EmptyInputError("SeparabilityAUC has no pairs")
        return self._result(separability_auc(stats["distances"].numpy(), stats["labels"].tolist(), **self._boot()))


def _id64(v: Hashable) -> int:
    if isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63:
        return v
    digest = hashlib.blake2b(repr(v).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class SegmentKendallTau(_Bootstrapped):
    """Segment-level Kendall tau-b between a metric and human ratings (Khanuja et al. §5).

    ``update(metric, human, segment_ids, group_ids=None)``: one row per (segment, system);
    None/NaN metric values mark unparsable outputs. ``extras`` has ``per_group``, ``used`` and
    ``skipped`` (by reason). Rows of one segment may arrive in different batches or ranks.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._names: dict[int, Hashable] = {}
        self.add_state("metric", Cat(torch.float64))
        self.add_state("human", Cat(torch.float64))
        self.add_state("segment", Cat(torch.int64))
        self.add_state("group", Cat(torch.int64))

    def _ids(self, ids: Sequence[Hashable]) -> torch.Tensor:
        out = []
        for v in ids:
            k = _id64(v)
            self._names.setdefault(k, v)
            out.append(k)
        return torch.tensor(out, dtype=torch.int64)

    def _stats(
        self,
        metric: Sequence[float | None],
        human: Sequence[float],
        segment_ids: Sequence[Hashable],
        group_ids: Sequence[Hashable] | None = None,
    ) -> dict[str, Any]:
        m = torch.tensor([math.nan if v is None else float(v) for v in metric], dtype=torch.float64)
        h = _float_tensor(human, "human")
        seg = self._ids(list(segment_ids))
        grp = self._ids(list(group_ids)) if group_ids is not None else torch.zeros_like(seg)
        if not (m.numel() == h.numel() == seg.numel() == grp.numel()):
            sizes = f"metric {m.numel()}, human {h.numel()}, segments {seg.numel()}, groups {grp.numel()}"
            raise InputError(f"mismatched lengths: {sizes}")
        return {"metric": m, "human": h, "segment": seg, "group": grp}

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        if stats["metric"].numel() == 0:
            raise EmptyInputError("SegmentKendallTau has no rows")
        metric = [None if math.isnan(v) else v for v in stats["metric"].tolist()]
        res = segment_kendall_tau(
            metric, stats["human"].tolist(), stats["segment"].tolist(), stats["group"].tolist(), **self._boot()
        )
        per_group = {
            self._names.get(k, format(k & (2**64 - 1), "016x")): v for k, v in res.details["per_group"].items()
        }
        return self._result(res, per_group=per_group)


class OverallRatingSimilarity(Metric):
    """Cosine of zero-mean human and model scores (PosterIQ Eq. 11-12), in [-1, 1].

    ``update(human, model)``: scores or raw answers (0-10). Unreadable pairs are dropped and
    counted (``n_unparsable``); zero spread gives 0.0 with ``zero_spread=True``."""

    higher_is_better: ClassVar[bool] = True
    value_range: ClassVar[tuple[float, float]] = (-1.0, 1.0)

    def __init__(self, *, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_mode(mode)
        self.mode = mode
        self.add_state("human", Cat(torch.float64))
        self.add_state("model", Cat(torch.float64))
        self.add_state("unparsable", Sum(torch.int64))

    def _stats(self, human: Sequence[Any], model: Sequence[Any]) -> dict[str, Any]:
        hs, ms, bad = _rating_pairs(human, model, self.mode)
        return {
            "human": torch.tensor(hs, dtype=torch.float64),
            "model": torch.tensor(ms, dtype=torch.float64),
            "unparsable": bad,
        }

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        hs, ms, bad = stats["human"].tolist(), stats["model"].tolist(), int(stats["unparsable"])
        if not hs:
            raise EmptyInputError(f"OverallRatingSimilarity: no valid pairs ({bad} unparsable)")
        value, flat = rating_cosine(hs, ms, self.mode)
        return MetricResult(value, len(hs), self.signature, extras={"n_unparsable": bad, "zero_spread": flat})

    def _signature_options(self) -> dict[str, Any]:
        return {"mode": self.mode}
