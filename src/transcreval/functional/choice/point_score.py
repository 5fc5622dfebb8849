"""PosterIQ's point score (Eq. 10): does a poster cover every annotated key point?

A judge checks each key point of each poster (yes/no). Paper: a poster counts only when every
key point is covered; the score is the fraction of such posters. A poster with an unreadable
verdict is counted in ``n_unparsable``; ``on_unreadable="zero"`` (default) reads that verdict
as "not covered", as PosterIQ's code does with any reply that is not a yes (the poster scores
0), and ``"drop"`` leaves the poster out. ``mode="posteriq-code"``
reports the per-point average (mean over posters of the covered fraction), reading "Yes" as a
substring of the reply (understanding tasks, ``code_yes="substring"``) or the exact reply
"yes" (generation tasks, ``code_yes="exact"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from transcreval.core.common import (
    MeanStats,
    Mode,
    OnUnreadable,
    as_list,
    check_choice,
    check_mode,
    check_on_unreadable,
    status_names,
)
from transcreval.core.options import MetricOptions, option
from transcreval.core.result import MetricResult
from transcreval.errors import EmptyInputError, InputError
from transcreval.utils.parsing import parse_yes_no

CodeYes = Literal["substring", "exact"]

__all__ = [
    "PointScoreOptions",
    "point_score",
    "point_score_from_stats",
    "point_score_per_point",
    "point_score_stats",
    "read_verdict",
]

#: distributions whose versions change the numbers (none)
PACKAGES: tuple[str, ...] = ()


@dataclass(frozen=True)
class PointScoreOptions(MetricOptions):
    """The options of :class:`~transcreval.PointScore` and :func:`point_score` (``mode``,
    ``code_yes``: how code mode reads "yes", ``on_unreadable``)."""

    mode: Mode = "paper"
    #: code mode only (paper mode does not read it)
    code_yes: CodeYes = option("substring", signature=lambda o: {} if o.mode == "paper" else {"yes": o.code_yes})
    on_unreadable: OnUnreadable = option("zero", signature="unreadable")

    def check(self) -> None:
        check_mode(self.mode)
        check_choice("code_yes", self.code_yes, ("substring", "exact"))
        check_on_unreadable(self.on_unreadable)


def read_verdict(v: Any, mode: Mode = "paper", code_yes: CodeYes = "substring") -> bool | None:
    """One verdict as True/False (None when unreadable in paper mode)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)) and v in (0, 1):
        return bool(v)
    if v is None:
        return None if mode == "paper" else False
    text = str(v)
    if mode == "posteriq-code":
        return text.lower() == "yes" if code_yes == "exact" else "Yes" in text
    parsed = parse_yes_no(text)
    return parsed.value if parsed.ok else None


def point_score_stats(preds: Sequence[Sequence[Any]], *, options: PointScoreOptions) -> dict[str, Any]:
    """Per batch, the :class:`~transcreval.core.common.MeanStats` statistics of the posters: per
    poster its value (``values``: all points covered, or in ``mode="posteriq-code"`` the
    covered fraction; NaN when left out) and status (``status``: ok or unparsable), their sum
    (``total``) and count, and the side counters ``unparsable`` and ``covered_fraction`` (the
    sum of covered fractions, for ``extras["per_point"]``)."""
    mode, code_yes, on_unreadable = options.mode, options.code_yes, options.on_unreadable
    agg = MeanStats(side={"unparsable": 0, "covered_fraction": 0.0})
    for item in as_list(preds, "preds"):
        vs = [read_verdict(v, mode, code_yes) for v in as_list(item, "the verdicts of one poster")]
        if not vs:
            raise InputError("a poster has no key points to check (an empty list of verdicts)")
        unreadable = any(v is None for v in vs)
        if unreadable and on_unreadable == "drop":
            agg.unreadable("drop")
            continue
        covered = [bool(v) for v in vs]  # "zero": an unreadable verdict is "not covered"
        fraction = sum(covered) / len(covered)
        if unreadable:
            agg.tally("unparsable")
        agg.tally("covered_fraction", fraction)
        value = fraction if mode == "posteriq-code" else float(all(covered))
        agg.add_with_status(value, "unparsable" if unreadable else "ok")
    return agg.as_stats()


def point_score_from_stats(stats: dict[str, Any], options: PointScoreOptions) -> MetricResult:
    """The score (paper: all points; code: per point), the mean of the poster values;
    ``extras["per_point"]`` the per-point average; ``per_item`` one value per poster,
    ``extras["item_status"]`` aligned with it."""
    import torch

    n, bad = int(stats["count"]), int(stats["unparsable"])
    if n == 0:
        raise EmptyInputError(f"point score: no posters with readable verdicts ({bad} unparsable)")
    per_point = float(stats["covered_fraction"]) / n
    extras = {"per_point": per_point, "n_unparsable": bad, "item_status": status_names(stats["status"])}
    per_item = torch.as_tensor(np.asarray(stats["values"], dtype=np.float64))
    value = float(stats["total"]) / n
    return MetricResult(value, n, options.signature("PointScore", PACKAGES), per_item=per_item, extras=extras)


def point_score(
    preds: Sequence[Sequence[Any]],
    *,
    mode: Mode = "paper",
    code_yes: CodeYes = "substring",
    on_unreadable: OnUnreadable = "zero",
) -> MetricResult:
    """Point score (PosterIQ Eq. 10), in [0, 1], higher is better: what
    :class:`~transcreval.PointScore` computes on the same posters.

    ``preds[i]`` holds the judge's verdict on each annotated key point of poster ``i`` (bools
    or yes/no answers). See the module docstring for both modes and ``on_unreadable``.
    """
    opts = PointScoreOptions(mode=mode, code_yes=code_yes, on_unreadable=on_unreadable)
    return point_score_from_stats(point_score_stats(preds, options=opts), opts)


def point_score_per_point(preds: Sequence[Sequence[Any]], **options: Any) -> float:
    """Mean over posters of the fraction of key points covered (``extras["per_point"]`` of
    :func:`point_score`, which takes the same options)."""
    return float(point_score(preds, **options).extras["per_point"])
