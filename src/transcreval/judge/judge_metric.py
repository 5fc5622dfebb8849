"""The base of the judge-based metric classes: a judge, a template, failure bookkeeping.

Every judge metric keeps the same five states: ``total`` (sum of item values), ``count``
(items with a valid answer), ``failures`` (failed items per status, in
:data:`~transcreval.judge.FAILURE_STATUSES` order), ``values`` (one value per input item, NaN
where the item failed or has no value) and ``item_status`` (one status code per input item);
a metric adds its own where it reports more. ``compute()`` reports ``n_valid``, ``n_failed``,
``failures`` and ``item_status`` (one status name per item: "ok", a failure status, or
"undefined") in ``extras``; ``per_item`` lines up with the inputs, in update order (rank-major
after a distributed sync, statuses too). The judge calls happen in ``update`` (and
``forward``), one batch at a time; every answer is cached as it arrives, so an interrupted
evaluation resumes where it stopped. Under ``torch.distributed`` each rank judges its own
items; only the statistics sync.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from transcreval.core.aggregate_metric import MeanMetric
from transcreval.core.options import option_property
from transcreval.engines.judge.pipeline import JudgeOptions
from transcreval.engines.judge.tally import OnFailure, judge_mean
from transcreval.engines.judge.templates import PromptTemplate
from transcreval.engines.judge.types import FAILURE_STATUSES, Judge

__all__ = ["JudgeMetric"]


class JudgeMetric(MeanMetric):
    """A metric whose items are scored by a judge (see the module docstring).

    The five states are :class:`~transcreval.core.aggregate_metric.MeanMetric`'s, with the failures
    per status as a vector side counter and the per-item statuses named ``item_status`` (codes
    of the judge's :data:`~transcreval.judge.ITEM_STATUSES`); the twin's statistics come from a
    :class:`~transcreval.engines.judge.tally.JudgeTally`.

    A subclass names its options class (:class:`~transcreval.engines.judge.pipeline.JudgeOptions`
    or one derived from it, with the metric's own options) in ``options_class``; the options
    are checked once, here, and kept in ``self.options``, the object the functional twin builds
    from the same keywords.

    Args:
        judge: an :class:`~transcreval.judge.OpenAICompatibleJudge`, a
            :class:`~transcreval.judge.ReplayJudge`, or anything with ``complete(requests)``.
        template: the prompt: None (the built-in one), a built-in template id, a
            :class:`~transcreval.judge.PromptTemplate`, or a path to a text file.
        on_failure: "skip" (default: failed items are counted and left out) or "raise"
            (:class:`~transcreval.errors.JudgeFailure` after the whole batch was asked and cached).
        input_range: the value range of float images, e.g. ``(-1, 1)`` (default ``(0, 1)``);
            uint8/uint16 images and files have a fixed meaning (:mod:`transcreval.io`). Images
            reach the judge as the 8-bit pixels of that rule.
        **kwargs: the metric's own options (those of its ``options_class``), then
            :class:`~transcreval.core.metric.Metric` options (process_group, ...).
    """

    higher_is_better: bool | None = True
    side_vectors: ClassVar[Mapping[str, int]] = {"failures": len(FAILURE_STATUSES)}
    per_item_status: ClassVar[bool] = True
    status_state: ClassVar[str] = "item_status"
    #: the options the metric takes (the shared judge options and its own)
    options_class: ClassVar[type[JudgeOptions]] = JudgeOptions
    #: the role of each ``update`` argument: what a value (a ``str`` above all) means there; one
    #: of :data:`transcreval.engines.judge.roles.ROLES` ("image", "image_or_text", "text", "ids")
    input_roles: ClassVar[Mapping[str, str]] = {}

    def __init__(
        self,
        *,
        judge: Judge,
        template: PromptTemplate | str | None = None,
        on_failure: OnFailure = "skip",
        input_range: tuple[float, float] | None = None,
        **kwargs: Any,
    ) -> None:
        own = {f: kwargs.pop(f) for f in self.options_class.__dataclass_fields__ if f in kwargs}
        self.options = self.options_class(
            judge=judge, template=template, on_failure=on_failure, input_range=input_range, **own
        )
        super().__init__(**kwargs)

    judge = option_property("judge", "The judge (a client with ``complete(requests)``).")
    template = option_property("template", "The prompt template.")
    on_failure = option_property("on_failure", '"skip" or "raise".')
    input_range = option_property("input_range", "The value range of float images.")

    def _from_stats(self, stats: dict[str, Any]) -> Any:
        """The mean item value over the valid items, with the failure extras."""
        return judge_mean(stats, self.signature)
