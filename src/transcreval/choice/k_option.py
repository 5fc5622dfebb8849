"""KOptionScore (PosterIQ Supp. B)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from transcreval.common import OnUnreadable, check_bool, check_on_unreadable, check_positive_int
from transcreval.errors import InputError
from transcreval.functional.choice.k_option import (
    DEFAULT_MAX_K,
    k_option_answered,
    k_option_from_table,
    k_option_table,
)
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.states import Sum


class KOptionScore(Metric):
    """Chance-normalised multiple-choice accuracy ``max(0, (k a - 1)/(k - 1))`` (PosterIQ
    Supp. B), in [0, 1], higher is better.

    ``update(preds, target=None, k=None)``: the chosen options and the correct ones (or
    per-item correctness in ``preds`` with no ``target``), and the number of options (one int,
    or one per item; default: the constructor's ``k``). Items are grouped by ``k`` and the
    per-k scores averaged with equal weight; ``result.extras["per_k"]`` lists them.
    ``clamp=False`` reproduces PosterIQ's code, which lets below-chance accuracy go negative.
    An answer of None (no readable choice) is wrong (``on_unreadable="zero"``) or left out
    (``"drop"``); ``extras["n_unparsable"]`` counts them.

    Args:
        k: default number of options when ``update`` gets none.
        clamp: apply ``max(0, .)`` (the paper's formula).
        max_k: the largest k accepted (size of the int64 state table).
        on_unreadable: "zero" (default) or "drop" for answers of None.
    """

    def __init__(
        self,
        k: int | None = None,
        *,
        clamp: bool = True,
        max_k: int = DEFAULT_MAX_K,
        on_unreadable: OnUnreadable = "zero",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        check_on_unreadable(on_unreadable)
        check_positive_int("max_k", max_k)
        if k is not None:
            check_positive_int("k", k)
            if not 2 <= k <= max_k:
                raise InputError(f"k must lie in 2..max_k={max_k}, got {k}")
        check_bool("clamp", clamp)
        self.k, self.clamp, self.max_k, self.on_unreadable = k, clamp, max_k, on_unreadable
        self.add_state("table", Sum(torch.int64, (max_k + 1, 2)))
        self.add_state("unparsable", Sum(torch.int64))

    def _stats(
        self, preds: Any, target: Any = None, k: int | Sequence[int] | torch.Tensor | None = None
    ) -> dict[str, Any]:
        """``preds``: chosen options (or correctness when ``target`` is None); ``target``: correct
        options; ``k``: options per item (default: the constructor's)."""
        kk = self.k if k is None else k
        if kk is None:
            raise InputError("KOptionScore.update needs k (the number of options), or set k in the constructor")
        correct, kk, missing = k_option_answered(preds, target, kk, self.on_unreadable)
        return {"table": k_option_table(correct, kk, self.max_k), "unparsable": missing}

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        table = stats["table"]
        value, per_k = k_option_from_table(table, self.clamp)
        extras = {"per_k": per_k, "n_unparsable": int(stats["unparsable"])}
        return MetricResult(value=value, n=int(table[:, 1].sum()), signature=self.signature, extras=extras)

    def _signature_options(self) -> dict[str, Any]:
        k = self.k if self.k is not None else "per-item"
        return {"k": k, "clamp": self.clamp, "unreadable": self.on_unreadable}
