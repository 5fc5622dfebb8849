"""TitleChrF and PlanChrF (MPTc-Bench §5.1, Table 4; Fig. 6)."""

from __future__ import annotations

from typing import Any

import torch

from transcreval.core.metric import Metric
from transcreval.core.options import takes_options
from transcreval.core.result import MetricResult
from transcreval.core.states import Cat, Sum
from transcreval.functional.text.chrf import PACKAGES, ChrFOptions, title_chrf_from_stats, title_chrf_stats


class TitleChrF(Metric):
    """Mean sentence chrF between system titles and reference titles (MPTc-Bench §5.1).

    ``update(preds, target)`` takes the titles read from the system outputs and, per example,
    the title of the human target-market poster (one string, or a list of references). The value
    is the mean over examples of sacrebleu's sentence chrF, 0-100, higher is better.
    ``result.extras["corpus"]`` holds the corpus-level chrF (statistics summed before the
    formula) and ``result.per_item`` the sentence scores.

    Args:
        char_order: character n-gram order (6).
        word_order: word n-gram order (0; 2 gives chrF++).
        beta: recall weight (2).
        lowercase / whitespace / eps_smoothing: as in ``sacrebleu.metrics.CHRF``.
        ref_layout: how nested references are laid out ("sample" or "stream"); required only
            when the shape is ambiguous.
        **kwargs: :class:`~transcreval.core.metric.Metric` options (process_group, ...).
    """

    version_packages: tuple[str, ...] = PACKAGES

    @takes_options(ChrFOptions)
    def __init__(self, **kwargs: Any) -> None:
        options, rest = ChrFOptions.split(kwargs)
        super().__init__(**rest)
        self.options = ChrFOptions(**options)
        self.add_state("ngram_stats", Sum(torch.int64, (3 * (self.options.char_order + self.options.word_order),)))
        self.add_state("score_sum", Sum(torch.float64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("scores", Cat(torch.float64))

    def _stats(self, preds: Any, target: Any) -> dict[str, Any]:
        """``preds``: system titles; ``target``: reference title(s) per example."""
        return title_chrf_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return title_chrf_from_stats(stats, self.options, self.name)


class PlanChrF(TitleChrF):
    """Mean sentence chrF between the planner's proposed title and the reference title.

    The same statistic as :class:`TitleChrF` (MPTc-Bench Fig. 6), kept separate so that both
    can live in one collection; :func:`transcreval.protocols.mptc.plan_to_render_loss` turns the
    two into the paper's plan-to-render loss, ``(1 - TitleChrF / PlanChrF) * 100``.
    """
