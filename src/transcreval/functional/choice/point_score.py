"""PosterIQ's point score (Eq. 10): does a poster cover every annotated key point?

A judge checks each key point of each poster (yes/no). Paper: a poster counts only when every
key point is covered; the score is the fraction of such posters, and a poster with an
unreadable verdict is counted in ``n_unparsable`` and left out. ``mode="posteriq-code"``
reports the per-point average (mean over posters of the covered fraction), reading "Yes" as a
substring of the reply (understanding tasks, ``code_yes="substring"``) or the exact reply
"yes" (generation tasks, ``code_yes="exact"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from transcreval.common import Mode, as_list, check_choice, check_mode
from transcreval.errors import EmptyInputError, InputError
from transcreval.parsing import parse_yes_no
from transcreval.result import MetricResult, Signature

CodeYes = Literal["substring", "exact"]

__all__ = ["point_score", "point_score_from_stats", "point_score_per_point", "point_score_stats", "read_verdict"]


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


def check_point_options(mode: Any, code_yes: Any) -> None:
    check_mode(mode)
    check_choice("code_yes", code_yes, ("substring", "exact"))


def point_score_stats(
    preds: Sequence[Sequence[Any]], *, mode: Mode = "paper", code_yes: CodeYes = "substring"
) -> dict[str, Any]:
    """Per batch: posters with every point covered, the sum of covered fractions, the readable
    posters and the unreadable ones."""
    check_point_options(mode, code_yes)
    all_covered = covered_fraction = 0.0
    count = bad = 0
    for item in as_list(preds, "preds"):
        vs = [read_verdict(v, mode, code_yes) for v in as_list(item, "the verdicts of one poster")]
        if not vs:
            raise InputError("a poster has no key points to check (an empty list of verdicts)")
        if any(v is None for v in vs):
            bad += 1
            continue
        all_covered += float(all(vs))
        covered_fraction += sum(bool(v) for v in vs) / len(vs)
        count += 1
    return {"all_covered": all_covered, "covered_fraction": covered_fraction, "count": count, "unparsable": bad}


def point_score_from_stats(stats: dict[str, Any], signature: Signature, mode: Mode = "paper") -> MetricResult:
    """The score (paper: all points; code: per point); ``extras["per_point"]`` the per-point average."""
    n, bad = int(stats["count"]), int(stats["unparsable"])
    if n == 0:
        raise EmptyInputError(f"point score: no posters with readable verdicts ({bad} unparsable)")
    per_point = float(stats["covered_fraction"]) / n
    value = per_point if mode == "posteriq-code" else float(stats["all_covered"]) / n
    return MetricResult(value, n, signature, extras={"per_point": per_point, "n_unparsable": bad})


def point_score(preds: Sequence[Sequence[Any]], *, mode: Mode = "paper", code_yes: CodeYes = "substring") -> float:
    """Point score (PosterIQ Eq. 10), in [0, 1], higher is better.

    ``preds[i]`` holds the judge's verdict on each annotated key point of poster ``i`` (bools
    or yes/no answers). See the module docstring for both modes.
    """
    stats = point_score_stats(preds, mode=mode, code_yes=code_yes)
    return point_score_from_stats(stats, Signature.make("point_score"), mode).value


def point_score_per_point(
    preds: Sequence[Sequence[Any]], *, mode: Mode = "paper", code_yes: CodeYes = "substring"
) -> float:
    """Mean over posters of the fraction of key points covered."""
    stats = point_score_stats(preds, mode=mode, code_yes=code_yes)
    return float(point_score_from_stats(stats, Signature.make("point_score"), mode).extras["per_point"])
