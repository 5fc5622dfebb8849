"""SegmentKendallTau (Khanuja et al. §5)."""

from __future__ import annotations

import hashlib
import numbers
from collections.abc import Hashable, Sequence
from typing import Any

import torch

from transcreval.core.result import MetricResult
from transcreval.core.states import Cat, Objects
from transcreval.functional.stats.kendall import segment_kendall_tau_from_stats, segment_kendall_tau_stats
from transcreval.stats.resampling import BootstrappedMetric


def id64(v: Hashable) -> int:
    """A stable signed 64-bit id for any segment or group name: names equal in Python get the
    same id (``1``, ``1.0``, ``True`` and ``numpy.int64(1)`` all name one segment, as they
    would for the functional twin's dict); ints in range are their own id."""
    if isinstance(v, numbers.Number) and not isinstance(v, complex):
        f = float(v)  # type: ignore[arg-type]
        if f.is_integer() and -(2**63) <= f < 2**63:
            return int(v)  # type: ignore[call-overload]
        v = f
    digest = hashlib.blake2b(f"{type(v).__name__}:{v!r}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class SegmentKendallTau(BootstrappedMetric):
    """Segment-level Kendall tau-b between a metric and human ratings (Khanuja et al. §5), in
    [-1, 1], higher is better.

    One row per (segment, system); rows of one segment may arrive in different batches or
    ranks. ``extras`` has ``per_group`` (keyed by the group names given), ``used`` and
    ``skipped`` (by reason). Segment and group names are stored as 64-bit ids with a synced
    id -> name table, so ``per_group`` names survive ``merge_state``, ``load_state_dict`` and a
    distributed sync.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("segment", Cat(torch.int64))
        self.add_state("group", Cat(torch.int64))
        self.add_state("names", Objects(sync=True, unique=True))

    def _stats(
        self,
        preds: Sequence[float | None],
        target: Sequence[float],
        segment_ids: Sequence[Hashable],
        group_ids: Sequence[Hashable] | None = None,
    ) -> dict[str, Any]:
        """``preds``: the metric's score per row (None/NaN = unparsable); ``target``: the human
        rating; ``segment_ids``: the segment (image) of each row; ``group_ids``: its group
        (country), optional."""
        rows = segment_kendall_tau_stats(preds, target, segment_ids, group_ids)
        names: dict[int, Hashable] = {}  # ints in range are their own id: only other names are stored
        for v in (*rows["segment"], *rows["group"]):
            k = id64(v)
            if k != v or type(v) is not int:
                names.setdefault(k, v)
        return {
            "preds": rows["preds"],
            "target": rows["target"],
            "segment": [id64(v) for v in rows["segment"]],
            "group": [id64(v) for v in rows["group"]],
            "names": list(names.items()),
        }

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        names = dict(stats["names"])
        rows = {
            "preds": stats["preds"],
            "target": stats["target"],
            "segment": [names.get(k, k) for k in stats["segment"].tolist()],
            "group": [names.get(g, g) for g in stats["group"].tolist()],
        }
        return segment_kendall_tau_from_stats(rows, self.options)
