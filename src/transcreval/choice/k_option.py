"""KOptionScore (PosterIQ Supp. B)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from transcreval.core.common import OnUnreadable
from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.core.states import Sum
from transcreval.functional.choice.k_option import (
    DEFAULT_MAX_K,
    PACKAGES,
    KOptionOptions,
    k_option_score_from_stats,
    k_option_score_stats,
)


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

    version_packages = PACKAGES

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
        self.options = KOptionOptions(k=k, clamp=clamp, max_k=max_k, on_unreadable=on_unreadable)
        self.add_state("table", Sum(torch.int64, (max_k + 1, 2)))
        self.add_state("unparsable", Sum(torch.int64))

    def _stats(
        self, preds: Any, target: Any = None, k: int | Sequence[int] | torch.Tensor | None = None
    ) -> dict[str, Any]:
        """``preds``: chosen options (or correctness when ``target`` is None); ``target``: correct
        options; ``k``: options per item (default: the constructor's)."""
        return k_option_score_stats(preds, target, k, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return k_option_score_from_stats(stats, self.options)
