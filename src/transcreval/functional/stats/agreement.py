"""Judge-human agreement for any judge metric: :func:`judge_agreement`.

A judge's verdicts (labels such as ``"yes"``/``"no"`` or option letters) or scores (ordinal
numbers such as 1-5) on a set of items, set against human ratings of the same items under the
same criteria (PosterIQ Supp. C samples 30 generated images per task and has humans rate them;
MPTc-Bench App. B.3 has three annotators score the judged posters):

* overall: ``accuracy`` (share of items where the two agree), Cohen's ``kappa`` and, for scores,
  ``qwk`` (Cohen's kappa with quadratic weights);
* per label ``L``: ``accuracy`` (of the items the humans gave ``L``, the share the judge gave
  ``L`` too: the label's recall) and ``kappa`` (Cohen's kappa of "is ``L``" against "is not
  ``L``"), with the counts of ``L`` on each side.

Each statistic has a seeded percentile bootstrap interval over resampled items (the project's
:func:`~transcreval.functional.stats.resampling.bootstrap_ci`); kappa is
:func:`~transcreval.functional.stats.kappa.kappa_of_codes`, the one behind
:func:`~transcreval.functional.stats.kappa.quadratic_weighted_kappa`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from transcreval.core.common import as_list, check_choice
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional.stats.kappa import kappa_of_codes
from transcreval.functional.stats.resampling import BootstrapOptions

__all__ = ["Agreement", "Estimate", "judge_agreement"]

Kind = Literal["auto", "labels", "scores"]
Missing = Literal["raise", "drop"]


@dataclass(frozen=True)
class Estimate:
    """One agreement statistic: its value (None where it is undefined, ``note`` says why), the
    bootstrap interval (None without bootstrap or when every resample was undefined), the number
    of items it is computed over and the resamples dropped because it was undefined there."""

    value: float | None
    n: int
    ci: tuple[float, float] | None = None
    bootstrap_dropped: int = 0
    note: str = ""

    def __float__(self) -> float:
        return math.nan if self.value is None else float(self.value)

    def format(self, decimals: int = 3) -> str:
        """``0.812 [0.701, 0.905]``; ``-`` where undefined."""
        if self.value is None:
            return "-"
        ci = f" [{self.ci[0]:.{decimals}f}, {self.ci[1]:.{decimals}f}]" if self.ci is not None else ""
        return f"{self.value:.{decimals}f}{ci}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "n": self.n,
            "ci": list(self.ci) if self.ci is not None else None,
            "bootstrap_dropped": self.bootstrap_dropped,
            "note": self.note,
        }


@dataclass(frozen=True)
class Agreement:
    """What :func:`judge_agreement` returns.

    Attributes:
        kind: ``"labels"`` or ``"scores"``.
        labels: the label set, in its order (the ordinal scale for scores).
        n: the items compared.
        overall: ``{"accuracy", "kappa"}`` (and ``"qwk"`` for scores) -> :class:`Estimate`.
        per_label: ``{label: {"accuracy", "kappa"} -> Estimate}``.
        counts: ``{label: (times the humans gave it, times the judge gave it)}``.
        n_dropped: items left out with ``missing="drop"`` (a missing value on either side).
        options: the bootstrap settings and options used.
    """

    kind: str
    labels: tuple[Any, ...]
    n: int
    overall: Mapping[str, Estimate]
    per_label: Mapping[Any, Mapping[str, Estimate]]
    counts: Mapping[Any, tuple[int, int]]
    n_dropped: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def accuracy(self) -> Estimate:
        return self.overall["accuracy"]

    @property
    def kappa(self) -> Estimate:
        return self.overall["kappa"]

    @property
    def qwk(self) -> Estimate | None:
        """Quadratic weighted kappa (scores only; None for labels)."""
        return self.overall.get("qwk")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "labels": list(self.labels),
            "n": self.n,
            "n_dropped": self.n_dropped,
            "overall": {k: e.to_dict() for k, e in self.overall.items()},
            "per_label": [
                {
                    "label": lab,
                    "n_human": self.counts[lab][0],
                    "n_judge": self.counts[lab][1],
                    **{k: e.to_dict() for k, e in stats.items()},
                }
                for lab, stats in self.per_label.items()
            ],
            "options": dict(self.options),
        }

    def to_text(self, decimals: int = 3) -> str:
        """Overall and per-label statistics as aligned plain text (what ``print`` shows)."""
        from transcreval.utils.text_table import format_table

        cols = _COLUMNS if self.kind == "scores" else _COLUMNS[:2]
        rows = [["overall", str(self.n), str(self.n), *(self._fmt(self.overall.get(k), decimals) for k in cols)]]
        for lab, stats in self.per_label.items():
            h, j = self.counts[lab]
            rows.append([str(lab), str(h), str(j), *(self._fmt(stats.get(k), decimals) for k in cols)])
        ci = self.options.get("bootstrap", 0)
        head = f"judge-human agreement ({self.kind}, n={self.n}" + (
            f", {ci} bootstrap resamples, {self.options.get('confidence')} interval)" if ci else ")"
        )
        notes = [
            f"- {lab} {k}: {e.note}"
            for lab, stats in [("overall", self.overall), *self.per_label.items()]
            for k, e in stats.items()
            if e.note
        ]
        if self.n_dropped:
            notes.append(f"- {self.n_dropped} item(s) with a missing value left out (missing='drop')")
        table = format_table(rows, ["label", "human", "judge", *cols])
        return "\n".join([head, table, *notes])

    @staticmethod
    def _fmt(e: Estimate | None, decimals: int) -> str:
        return "" if e is None else e.format(decimals)

    def __str__(self) -> str:
        return self.to_text()


_COLUMNS = ("accuracy", "kappa", "qwk")


def _is_missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _scalar(v: Any) -> Any:
    """numpy/torch scalars as Python values; everything else as given."""
    return v.item() if hasattr(v, "item") and getattr(v, "ndim", 0) == 0 else v


def _pair_up(judge: Any, human: Any) -> tuple[list[Any], list[Any], list[str]]:
    """The two sides as aligned lists, and where each item is (``judge[3]`` or ``item 'x'``)."""
    if isinstance(judge, Mapping) or isinstance(human, Mapping):
        if not (isinstance(judge, Mapping) and isinstance(human, Mapping)):
            raise InputError(
                "judge and human must both be sequences (aligned by position) or both mappings {item id: value}"
            )
        only_j, only_h = sorted(set(judge) - set(human), key=str), sorted(set(human) - set(judge), key=str)
        if only_j or only_h:
            raise InputError(
                f"judge and human rate different items: {len(only_j)} only judged {only_j[:5]}, {len(only_h)} "
                f"only rated by humans {only_h[:5]}; pass the same item ids on both sides"
            )
        keys = sorted(judge, key=str)
        return [judge[k] for k in keys], [human[k] for k in keys], [f"item {k!r}" for k in keys]
    j, h = as_list(judge, "judge"), as_list(human, "human")
    if len(j) != len(h):
        raise InputError(f"mismatched lengths: judge has {len(j)} values, human {len(h)}; one value per item each")
    return j, h, [f"item {i}" for i in range(len(j))]


def _check_values(values: list[Any], where: list[str], side: str, kind: str) -> None:
    for v, w in zip(values, where):
        if kind == "scores" and not (_is_number(v) and math.isfinite(v)):
            raise InputError(f"{side} {w}: {v!r} is not a finite number; scores must be numbers (kind='labels'?)")
        if kind == "labels" and not isinstance(v, Hashable):
            raise InputError(f"{side} {w}: {v!r} is not a label (a string, number or bool)")


def _label_set(j: list[Any], h: list[Any], labels: Sequence[Any] | None, kind: str) -> tuple[Any, ...]:
    seen_j, seen_h = set(j), set(h)
    if labels is not None:
        labs = tuple(_scalar(v) for v in as_list(labels, "labels"))
        if not labs or len(set(labs)) != len(labs):
            raise InputError("labels must be a non-empty list of distinct labels (for scores: the ordinal scale)")
        if kind == "scores" and not all(_is_number(v) for v in labs):
            raise InputError(f"labels must be numbers for scores (the ordinal scale), got {list(labs)}")
        for side, seen in (("judge", seen_j), ("human", seen_h)):
            bad = sorted(seen - set(labs), key=str)
            if bad:
                raise InputError(
                    f"{side} uses label(s) {bad[:5]} that are not among labels={list(labs)}; map them onto the "
                    "label set (or add them to labels)"
                )
        return labs
    if kind == "labels":
        values = [*j, *h]
        if any(isinstance(v, bool) for v in values) and any(_is_number(v) for v in values):
            raise InputError(
                "labels mix True/False with numbers, which compare equal (True == 1) and would merge; code both "
                "sides alike (all bools, or all numbers)"
            )
        types = {side: {type(v).__name__ for v in seen} for side, seen in (("judge", seen_j), ("human", seen_h))}
        strs = {side: "str" in t for side, t in types.items()}
        if strs["judge"] != strs["human"]:
            raise InputError(
                f"label set mismatch: the judge's labels are {sorted(types['judge'])}, the humans' "
                f"{sorted(types['human'])}; code both sides alike (e.g. both 'yes'/'no')"
            )
        if not seen_j & seen_h:
            raise InputError(
                f"label set mismatch: the judge's labels {sorted(seen_j, key=str)[:5]} and the humans' "
                f"{sorted(seen_h, key=str)[:5]} share none; map both onto one label set (case, spelling) "
                "or pass labels="
            )
        return tuple(sorted(seen_j | seen_h, key=lambda v: (str(type(v)), v)))
    return tuple(sorted(seen_j | seen_h))


def judge_agreement(
    judge: Sequence[Any] | Mapping[Any, Any],
    human: Sequence[Any] | Mapping[Any, Any],
    *,
    kind: Kind = "auto",
    labels: Sequence[Any] | None = None,
    missing: Missing = "raise",
    bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Agreement:
    """How well a judge agrees with human raters on the same items.

    Args:
        judge: the judge's verdict or score per item: a sequence, or ``{item id: value}``.
        human: the human label or score per item, aligned with ``judge`` (a sequence of the same
            length, or a mapping with the same item ids). Where several humans rated an item,
            pass one value per item (a majority label, a rounded mean score) or repeat the
            judge's value once per human rating.
        kind: ``"labels"`` (verdicts: accuracy and Cohen's kappa), ``"scores"`` (ordinal numbers:
            QWK too), or ``"auto"``: scores when both sides hold only numbers (bools are labels).
        labels: the label set (for scores, the ordinal scale in order, e.g. ``[1, 2, 3, 4, 5]``;
            QWK weighs by positions on it, so give the whole scale where a sample skips a value).
            Default: the labels seen on either side. A value outside it is an error.
        missing: a missing value (None or NaN, e.g. a failed judge answer) is an error
            (``"raise"``), or its item is left out and counted (``"drop"``, ``n_dropped``).
        bootstrap, seed, confidence: a percentile interval per statistic from ``bootstrap``
            resamples of the items (``numpy.random.default_rng(seed)``; 0: no interval).

    Returns:
        An :class:`Agreement` (``print`` it for a table; ``to_dict()`` for JSON).

    Raises:
        InputError: lengths or item ids differ, no items, a missing value with
            ``missing="raise"``, a score that is not a number, or label sets that do not fit
            (the two sides coded differently, or a value outside ``labels``).
    """
    check_choice("kind", kind, ("auto", "labels", "scores"))
    check_choice("missing", missing, ("raise", "drop"))
    opts = BootstrapOptions(bootstrap=bootstrap, seed=seed, confidence=confidence)
    j_all, h_all, where_all = _pair_up(judge, human)
    j_all, h_all = [_scalar(v) for v in j_all], [_scalar(v) for v in h_all]
    if not j_all:
        raise EmptyInputError("judge_agreement has no items: pass one judge and one human value per item")
    keep = []
    for i, (a, b, w) in enumerate(zip(j_all, h_all, where_all)):
        gone = [side for side, v in (("judge", a), ("human", b)) if _is_missing(v)]
        if gone and missing == "raise":
            raise InputError(
                f"{' and '.join(gone)} {w} is missing (None/NaN, e.g. a failed judge answer); leave such items out "
                "(records with status 'ok' only) or pass missing='drop'"
            )
        if not gone:
            keep.append(i)
    if not keep:
        raise EmptyInputError(f"judge_agreement: all {len(j_all)} items have a missing value")
    j, h, where = [j_all[i] for i in keep], [h_all[i] for i in keep], [where_all[i] for i in keep]
    if kind == "auto":
        kind = "scores" if all(_is_number(v) for v in (*j, *h)) else "labels"
    _check_values(j, where, "judge", kind)
    _check_values(h, where, "human", kind)
    labs = _label_set(j, h, labels, kind)
    pos = {v: k for k, v in enumerate(labs)}
    a = np.array([pos[v] for v in j], dtype=np.int64)
    b = np.array([pos[v] for v in h], dtype=np.int64)
    n, k = a.size, len(labs)

    def est(stat: Callable[[np.ndarray], float | None], size: int, why: str) -> Estimate:
        value = stat(np.arange(n))
        ci, dropped = opts.interval(stat, n)
        return Estimate(value, size, ci, dropped, "" if value is not None else why)

    overall = {
        "accuracy": est(lambda i: float(np.mean(a[i] == b[i])), n, ""),
        "kappa": est(lambda i: kappa_of_codes(a[i], b[i], k), n, _UNDEFINED),
    }
    if kind == "scores":
        overall["qwk"] = est(lambda i: kappa_of_codes(a[i], b[i], k, "quadratic"), n, _UNDEFINED)
    per_label: dict[Any, dict[str, Estimate]] = {}
    counts: dict[Any, tuple[int, int]] = {}
    for c, lab in enumerate(labs):
        counts[lab] = (int((b == c).sum()), int((a == c).sum()))

        def recall(i: np.ndarray, c: int = c) -> float | None:
            mine = b[i] == c
            return float(np.mean(a[i][mine] == c)) if mine.any() else None

        def one_vs_rest(i: np.ndarray, c: int = c) -> float | None:
            return kappa_of_codes((a[i] == c).astype(np.int64), (b[i] == c).astype(np.int64), 2)

        per_label[lab] = {
            "accuracy": est(recall, counts[lab][0], "no item has this label from the humans"),
            "kappa": est(one_vs_rest, n, _UNDEFINED),
        }
    options: dict[str, Any] = {
        "kind": kind,
        "missing": missing,
        "bootstrap": bootstrap,
        "seed": seed,
        "confidence": confidence,
    }
    if labels is not None:
        options["labels"] = list(labs)
    return Agreement(kind, labs, n, overall, per_label, counts, len(j_all) - n, options)


_UNDEFINED = "undefined: chance agreement is 1 (both sides give the same single label throughout)"
