"""The failure bookkeeping every judge metric shares: from verdicts to states to a result.

:class:`FailureTally` counts failures per status; metrics store it as an int64 vector state
and report it as ``extras["failures"]`` next to ``n_valid`` and ``n_failed``. A failure is
never scored. :class:`JudgeTally` builds a batch's statistics item by item (the five states of
:class:`~transcreval.judge.judge_metric.JudgeMetric`, plus named side totals), and
:func:`judge_result` / :func:`judge_mean` turn the statistics into a
:class:`~transcreval.core.result.MetricResult` whose ``per_item`` lines up with the inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from transcreval.core.common import MeanStats, status_names
from transcreval.engines.judge.types import FAILURE_STATUSES, ITEM_STATUSES
from transcreval.errors import EmptyInputError, InputError, JudgeFailure

OnFailure = Literal["skip", "raise"]

__all__ = [
    "FailureTally",
    "JudgeTally",
    "OnFailure",
    "check_on_failure",
    "check_valid_count",
    "failures_dict",
    "item_statuses",
    "judge_extras",
    "judge_mean",
    "judge_result",
]


class FailureTally:
    """Counts of failed items per status (api_error, refused, timeout, truncated, unparsable)."""

    def __init__(self) -> None:
        self.counts = [0] * len(FAILURE_STATUSES)
        self.first: dict[str, str] = {}

    def add(self, status: str, detail: str = "") -> None:
        if status not in FAILURE_STATUSES:
            raise ValueError(f"not a failure status: {status!r}")
        self.counts[FAILURE_STATUSES.index(status)] += 1
        self.first.setdefault(status, detail)

    @property
    def n_failed(self) -> int:
        return sum(self.counts)

    def raise_if_any(self, what: str, on_failure: OnFailure) -> None:
        if on_failure == "raise" and self.n_failed:
            lines = ", ".join(f"{s}: {n}" for s, n in zip(FAILURE_STATUSES, self.counts) if n)
            first = "; ".join(f"{s}: {d}" for s, d in self.first.items() if d)
            raise JudgeFailure(
                f"{what}: {self.n_failed} judge answer(s) failed ({lines}){'; first: ' + first if first else ''}. "
                "Answers that came back are cached; on_failure='skip' scores the others and reports the failures."
            )


def failures_dict(counts: Sequence[int]) -> dict[str, int]:
    """``{status: count}`` for every failure status (zeros included)."""
    return {s: int(n) for s, n in zip(FAILURE_STATUSES, counts)}


def check_on_failure(on_failure: str) -> OnFailure:
    if on_failure not in ("skip", "raise"):
        raise InputError(f"on_failure must be 'skip' or 'raise', got {on_failure!r}")
    return on_failure  # type: ignore[return-value]


class JudgeTally(MeanStats):
    """A batch's statistics being built, one item at a time and in input order: the
    :class:`~transcreval.core.common.MeanStats` of every mean, with the judge's status table and
    its failures counted per status.

    ``add(value)`` records a valid item, ``fail(status)`` a failed one (counted per status,
    never scored), ``undefined()`` an item whose answers are fine but which has no value.
    ``stats()`` gives the states every judge metric declares: ``total`` (sum of the valid
    values), ``count`` (valid items), ``failures`` (int64 counts in :data:`FAILURE_STATUSES`
    order), ``values`` (one value per item, NaN unless "ok": it lines up with the inputs) and
    ``item_status`` (one code per item, an index into :data:`ITEM_STATUSES`). Named side totals
    (``JudgeTally(wins=0)``; ``add(1.0, wins=1)``) go into the statistics beside them.
    """

    def __init__(self, **side: float) -> None:
        super().__init__(side=dict(side), statuses=ITEM_STATUSES)
        self.failed = FailureTally()

    def add(self, value: float, **side: float) -> None:
        unknown = set(side) - set(self.side)
        if unknown:
            raise ValueError(f"side totals {sorted(unknown)} were not declared (declared: {sorted(self.side)})")
        super().add(float(value))
        for k, x in side.items():
            self.tally(k, x)

    def fail(self, status: str, detail: str = "") -> None:
        self.failed.add(status, detail)
        self.skip(status)

    def undefined(self) -> None:
        """An item with no value that is not a failure (e.g. nothing to score in it)."""
        self.skip("undefined")

    def take(self, verdicts: Sequence[Any], score: Callable[[Any], Any] | None = None) -> JudgeTally:
        """Record each verdict in order: a failure by its status, an "ok" one with the value
        ``score(verdict.value)`` (default the value itself): a number, or ``(number, {side: x})``."""
        return self.take_items(verdicts, None if score is None else lambda _, value: score(value))

    def take_items(self, verdicts: Sequence[Any], score: Callable[[int, Any], Any] | None = None) -> JudgeTally:
        """:meth:`take` with ``score(i, value)``: the item's position too."""
        for i, v in enumerate(verdicts):
            if not v.ok:
                self.fail(v.status, v.detail)
                continue
            got = v.value if score is None else score(i, v.value)
            if isinstance(got, tuple):
                self.add(got[0], **got[1])
            else:
                self.add(got)
        return self

    def stats(self) -> dict[str, Any]:
        mean = self.as_stats()
        return {
            "total": self.total,
            "count": self.count,
            "failures": list(self.failed.counts),
            "values": mean["values"],
            "item_status": mean["status"],
            **self.side,
        }

    def finish(self, what: str, on_failure: OnFailure) -> dict[str, Any]:
        """The statistics, after raising :class:`JudgeFailure` on any failure when ``on_failure="raise"``."""
        self.failed.raise_if_any(what, on_failure)
        return self.stats()


def item_statuses(codes: Any) -> list[str]:
    """The ``item_status`` codes of a judge metric's states as status names."""
    return status_names(codes, ITEM_STATUSES)


def judge_extras(stats: Mapping[str, Any]) -> dict[str, Any]:
    """``n_valid``, ``n_failed`` and ``failures`` (a count per failure status) from stats."""
    counts = [
        int(x) for x in (stats["failures"].tolist() if hasattr(stats["failures"], "tolist") else stats["failures"])
    ]
    return {"n_valid": int(stats["count"]), "n_failed": sum(counts), "failures": failures_dict(counts)}


def check_valid_count(stats: Mapping[str, Any], what: str) -> int:
    """The number of valid items; EmptyInputError (naming the failures) when there is none."""
    n = int(stats["count"])
    if n == 0:
        ex = judge_extras(stats)
        detail = ", ".join(f"{s}: {c}" for s, c in ex["failures"].items() if c) or "no items"
        raise EmptyInputError(
            f"{what}: no valid judge answers to score ({detail}); failures are never scored: see "
            "extras['failures'] of earlier results, or rerun with on_failure='raise' to see the first error"
        )
    return n


def judge_result(value: float, stats: Mapping[str, Any], signature: Any, **extras: Any) -> Any:
    """A :class:`~transcreval.core.result.MetricResult` with the per-item values and the failure extras.

    ``per_item`` lines up with the inputs (NaN where an item failed or is undefined) and
    ``extras["item_status"]`` says why, item by item ("ok" or a status of :data:`ITEM_STATUSES`).
    """
    import torch

    from transcreval.core.result import MetricResult

    values = stats["values"]
    per_item = values.clone() if isinstance(values, torch.Tensor) else torch.as_tensor(values, dtype=torch.float64)
    status = item_statuses(stats["item_status"])
    if len(status) != per_item.numel():
        raise AssertionError(f"{signature.name}: {len(status)} item statuses for {per_item.numel()} item values")
    return MetricResult(
        float(value),
        int(stats["count"]),
        signature,
        per_item=per_item,
        extras={**judge_extras(stats), "item_status": status, **extras},
    )


def judge_mean(stats: Mapping[str, Any], signature: Any, scale: float = 1.0, **extras: Any) -> Any:
    """The result whose value is ``scale`` x the mean item value over the valid items."""
    n = check_valid_count(stats, signature.name)
    return judge_result(scale * float(stats["total"]) / n, stats, signature, **extras)
