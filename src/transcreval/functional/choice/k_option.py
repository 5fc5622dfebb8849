"""Chance-normalised multiple-choice accuracy (PosterIQ Supp. B, "K-option score").

For a task with ``k`` options and accuracy ``a``, random guessing scores ``1/k``; the score
rescales that to 0 and perfect answers to 1:

    score = max(0, (k a - 1) / (k - 1))      range [0, 1], higher is better

``clamp=False`` drops the ``max(0, .)``, as PosterIQ's public code does (below-chance answers
give negative scores; docs/posteriq-paper-vs-code.md). When items have different ``k`` they
are grouped by ``k``, each group is scored on its own, and the groups' scores are averaged
with equal weight (a "per-task" average: each k stands for one task).

An answer of None (no readable choice) is wrong (``on_unreadable="zero"``, the default, as
PosterIQ's code and Eq. 3 read literally: ``a`` is over every item) or left out of ``a``
(``"drop"``); it is counted either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from transcreval.core.common import OnUnreadable, check_bool, check_on_unreadable, check_positive_int
from transcreval.core.options import MetricOptions, option
from transcreval.core.result import MetricResult
from transcreval.errors import EmptyInputError, InputError

__all__ = [
    "KOptionOptions",
    "check_options",
    "k_option_answered",
    "k_option_correct",
    "k_option_from_table",
    "k_option_normalise",
    "k_option_score",
    "k_option_score_from_stats",
    "k_option_score_stats",
    "k_option_table",
]

DEFAULT_MAX_K = 64
#: distributions whose versions change the numbers (none)
PACKAGES: tuple[str, ...] = ()


@dataclass(frozen=True)
class KOptionOptions(MetricOptions):
    """The options of :class:`~transcreval.KOptionScore` and :func:`k_option_score`.

    ``k``: the default number of options (None: every ``update`` gives its own), in
    ``2..max_k``; ``clamp``: apply ``max(0, .)``; ``max_k``: the largest k accepted (the size
    of the state table); ``on_unreadable``: "zero" or "drop" for answers of None.
    """

    k: int | None = option(None, signature=lambda o: {"k": o.k if o.k is not None else "per-item"})
    clamp: bool = True
    max_k: int = option(DEFAULT_MAX_K, signature=None)  # the state table's size, not the value
    on_unreadable: OnUnreadable = option("zero", signature="unreadable")

    def check(self) -> None:
        check_on_unreadable(self.on_unreadable)
        check_positive_int("max_k", self.max_k)
        if self.k is not None:
            check_positive_int("k", self.k)
            if self.k < 2:
                raise InputError(f"k must be at least 2 (the number of options), got {self.k}")
            if self.k > self.max_k:
                raise InputError(f"k={self.k} exceeds max_k={self.max_k}: raise max_k")
        check_bool("clamp", self.clamp)


def _as_vector(x: Any, what: str) -> torch.Tensor:
    if isinstance(x, (str, bytes)):
        raise InputError(f"{what} must be a list or tensor (one entry per item), got a single string")
    if isinstance(x, torch.Tensor):
        t = x
    else:
        try:
            t = torch.as_tensor(x)
        except (TypeError, ValueError, RuntimeError) as e:
            raise InputError(f"{what} must hold numbers or booleans, one per item ({e})") from None
    if t.device.type == "meta":
        raise InputError(f"{what} is a meta tensor (no data): pass real values")
    if t.ndim == 0:
        t = t.reshape(1)
    if t.ndim != 1:
        raise InputError(f"{what} must be one-dimensional, got shape {tuple(t.shape)}")
    return t


def _norm_answer(a: Any) -> Any:
    return a.strip().upper() if isinstance(a, str) else a


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _option(v: Any, k: int, what: str) -> str | int:
    """``v`` as one of ``k`` options: a letter among the first ``k`` (case and spaces aside), or an
    index 0..k-1 / 1..k; anything else is an InputError naming ``what``."""
    if isinstance(v, str):
        s = v.strip().upper()
        if len(s) == 1 and s in _LETTERS[:k]:
            return s
        raise InputError(
            f"{what} is {v!r}, not one of the {k} options ({_LETTERS[0]}-{_LETTERS[min(k, 26) - 1]}, or an index): "
            "read the answer first, and give None for an answer that names no option (it counts as wrong)"
        )
    i = int(v) if isinstance(v, float) and v.is_integer() and abs(v) <= 2**53 else v
    if isinstance(i, int) and not isinstance(i, bool) and 0 <= i <= k:
        return i
    raise InputError(
        f"{what} is {v!r}, not one of the {k} options (a letter, or an index 0..{k - 1} or 1..{k}); give None for "
        "an answer that names no option (it counts as wrong)"
    )


def check_options(preds: Sequence[Any], target: Sequence[Any], k: Any) -> None:
    """Every correct option (``target``) and every answer (``preds``, None aside) is one of its item's
    ``k`` options; integer options use one convention in a batch (0..k-1 or 1..k, not both)."""
    ks = [int(k)] * len(target) if isinstance(k, int) else [int(x) for x in _as_vector(k, "k").tolist()]
    if len(ks) != len(target):
        raise InputError(f"mismatched lengths: {len(target)} answers but {len(ks)} values of k")
    zero = top = None
    for name, values in (("target", target), ("preds", preds)):
        for i, (v, kk) in enumerate(zip(values, ks)):
            if v is None and name == "preds":
                continue
            o = _option(v, kk, f"{name}[{i}]")
            if isinstance(o, int):
                zero = zero or (f"{name}[{i}]" if o == 0 else None)
                top = top or (f"{name}[{i}]" if o == kk else None)
    if zero and top:
        raise InputError(
            f"integer options mix 0-based and 1-based numbering ({zero} is 0, {top} equals its k): use one of "
            "0..k-1 or 1..k"
        )


def k_option_correct(preds: Any, target: Any | None, k: Any = None) -> torch.Tensor:
    """Per-item correctness: ``preds == target`` (letters compared after strip/upper-case; an
    answer of None is wrong), or ``preds`` itself (bools / 0-1) when ``target`` is None. With
    ``k`` (one int, or one per item), every answer and correct option must be one of the k
    options (:func:`check_options`)."""
    if target is None:
        if isinstance(preds, (list, tuple)) and any(v is None or isinstance(v, str) for v in preds):
            raise InputError(
                "preds must hold per-item correctness (booleans or 0/1) when target is None; to score chosen "
                "options, pass the correct options as target"
            )
        return _as_vector(preds, "preds")
    if isinstance(preds, (str, bytes)) or isinstance(target, (str, bytes)):
        raise InputError("preds and target must be lists (one answer per item), got a single string")
    p = list(preds.tolist()) if hasattr(preds, "tolist") else list(preds)
    t = list(target.tolist()) if hasattr(target, "tolist") else list(target)
    if len(p) != len(t):
        raise InputError(f"mismatched lengths: {len(p)} answers (preds) but {len(t)} correct options (target)")
    if any(v is None for v in t):
        raise InputError("target (the correct options) contains None")
    if k is not None:
        check_options(p, t, k)
    return torch.tensor([a is not None and _norm_answer(a) == _norm_answer(b) for a, b in zip(p, t)], dtype=torch.bool)


def k_option_answered(
    preds: Any, target: Any | None, k: Any, on_unreadable: OnUnreadable = "zero"
) -> tuple[torch.Tensor, Any, int]:
    """Per-item correctness and ``k`` for the items that count, and the number of unanswered
    items (None in ``preds``): wrong with ``on_unreadable="zero"``, left out with ``"drop"``."""
    check_on_unreadable(on_unreadable)
    correct = k_option_correct(preds, target, k)
    if target is None:
        return correct, k, 0
    answered = [a is not None for a in (preds.tolist() if hasattr(preds, "tolist") else list(preds))]
    missing = answered.count(False)
    if on_unreadable == "zero" or not missing:
        return correct, k, missing
    keep = torch.tensor(answered, dtype=torch.bool)
    if not isinstance(k, int) or isinstance(k, bool):
        kt = _as_vector(k, "k")
        if kt.numel() != keep.numel():
            raise InputError(f"mismatched lengths: {keep.numel()} answers but {kt.numel()} values of k")
        k = kt[keep]
    return correct[keep], k, missing


def k_option_table(correct: Any, k: int | Sequence[int] | torch.Tensor, max_k: int = DEFAULT_MAX_K) -> torch.Tensor:
    """Sufficient statistics: an int64 table ``(max_k + 1, 2)`` of [correct, total] per ``k``."""
    c = _as_vector(correct, "correct")
    if c.is_complex():
        raise InputError("correct must hold booleans or 0/1 values, got complex numbers")
    if c.is_floating_point():
        if bool(torch.isnan(c).any()):
            raise InputError("correct contains NaN: mark unanswerable items as wrong (0) or drop them")
        if not bool(((c == 0) | (c == 1)).all()):
            raise InputError("correct must hold booleans or 0/1 values")
    elif c.dtype != torch.bool and not bool(((c == 0) | (c == 1)).all()):
        raise InputError("correct must hold booleans or 0/1 values")
    c = c.cpu()
    if isinstance(k, bool):
        raise InputError(f"k must be an integer (or integers), got {k!r}")
    if isinstance(k, int):
        ks = torch.full((c.numel(),), k, dtype=torch.int64)
    else:
        kt = _as_vector(k, "k").cpu()
        if kt.is_floating_point() or kt.is_complex() or kt.dtype == torch.bool:
            raise InputError(f"k must be an integer (or integers), got dtype {kt.dtype}")
        ks = kt.to(torch.int64)
    if ks.numel() != c.numel():
        raise InputError(f"mismatched lengths: {c.numel()} answers but {ks.numel()} values of k")
    if ks.numel() and int(ks.min()) < 2:
        raise InputError(f"k (the number of options) must be at least 2, got {int(ks.min())}")
    if ks.numel() and int(ks.max()) > max_k:
        raise InputError(f"k={int(ks.max())} exceeds max_k={max_k}: raise max_k")
    table = torch.zeros((max_k + 1, 2), dtype=torch.int64)
    table[:, 0].index_add_(0, ks, c.to(torch.int64))
    table[:, 1].index_add_(0, ks, torch.ones_like(ks))
    return table


def k_option_normalise(accuracy: float, k: int, clamp: bool = True) -> float:
    """``max(0, (k a - 1) / (k - 1))`` of an accuracy ``a`` in [0, 1] (no ``max`` when ``clamp`` is False)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise InputError(f"k (the number of options) must be an integer >= 2, got {k!r}")
    a = float(accuracy)
    if not 0.0 <= a <= 1.0:
        raise InputError(f"an accuracy lies in [0, 1], got {accuracy!r}")
    s = (k * a - 1) / (k - 1)
    return max(0.0, s) if clamp else s


def k_option_from_table(table: torch.Tensor, clamp: bool = True) -> tuple[float, dict[int, float]]:
    """The score from a table, and the per-k scores it averages."""
    per_k: dict[int, float] = {}
    for k in torch.nonzero(table[:, 1] > 0).flatten().tolist():
        per_k[k] = k_option_normalise(int(table[k, 0]) / int(table[k, 1]), k, clamp)
    if not per_k:
        raise EmptyInputError("k_option_score needs at least one answered item")
    return sum(per_k.values()) / len(per_k), per_k


def k_option_score_stats(
    preds: Any,
    target: Any | None = None,
    k: int | Sequence[int] | torch.Tensor | None = None,
    *,
    options: KOptionOptions,
) -> dict[str, Any]:
    """Per batch: the int64 ``table`` of [correct, total] per k (:func:`k_option_table`) and the
    number of unanswered items (``unparsable``); ``k`` defaults to ``options.k``."""
    kk = options.k if k is None else k
    if kk is None:
        raise InputError("KOptionScore.update needs k (the number of options), or set k in the constructor")
    correct, kk, missing = k_option_answered(preds, target, kk, options.on_unreadable)
    return {"table": k_option_table(correct, kk, options.max_k), "unparsable": missing}


def k_option_score_from_stats(stats: dict[str, Any], options: KOptionOptions) -> MetricResult:
    """The score of a table; ``extras["per_k"]`` the per-k scores, ``extras["n_unparsable"]``
    the unanswered items."""
    table = torch.as_tensor(stats["table"])
    value, per_k = k_option_from_table(table, options.clamp)
    extras = {"per_k": per_k, "n_unparsable": int(stats["unparsable"])}
    return MetricResult(value, int(table[:, 1].sum()), options.signature("KOptionScore", PACKAGES), extras=extras)


def k_option_score(
    preds: Any,
    target: Any | None = None,
    *,
    k: int | Sequence[int] | torch.Tensor,
    clamp: bool = True,
    max_k: int = DEFAULT_MAX_K,
    on_unreadable: OnUnreadable = "zero",
) -> MetricResult:
    """Chance-normalised accuracy ``max(0, (k a - 1)/(k - 1))`` (PosterIQ Supp. B), in [0, 1],
    higher is better: what :class:`~transcreval.KOptionScore` computes on the same items.

    Args:
        preds: the chosen options (letters or indices; None = no readable answer), or per-item
            correctness (bools / 0-1) when ``target`` is None. An answer that is not one of its
            item's k options is an InputError.
        target: the correct options, one per item (each one of its item's k options).
        k: the number of options, one int for all items (as ``KOptionScore(k)``) or one per
            item (as ``update(..., k=[...])``).
        clamp: ``False`` reproduces PosterIQ's code (negative below chance).
        max_k: the largest ``k`` accepted (the size of the class's state table).
        on_unreadable: "zero" (a None answer is wrong) or "drop" (it is left out of ``a``).
    """
    one_k = k if isinstance(k, int) and not isinstance(k, bool) else None  # as KOptionScore(k); else per update
    opts = KOptionOptions(k=one_k, clamp=clamp, max_k=max_k, on_unreadable=on_unreadable)
    per_item = k if one_k is None else None
    return k_option_score_from_stats(k_option_score_stats(preds, target, per_item, options=opts), opts)
