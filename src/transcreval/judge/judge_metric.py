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

import torch

from transcreval.engines.judge.items import check_judge
from transcreval.engines.judge.pipeline import JudgeSpec
from transcreval.engines.judge.tally import check_on_failure
from transcreval.engines.judge.templates import PromptTemplate, resolve_template
from transcreval.engines.judge.types import FAILURE_STATUSES, Judge
from transcreval.io import check_input_range
from transcreval.metric import Metric
from transcreval.states import Cat, Sum

__all__ = ["JudgeMetric"]


class JudgeMetric(Metric):
    """A metric whose items are scored by a judge (see the module docstring).

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
        spec: what the instance asks, where it depends on an option (an aspect): its
            :class:`~transcreval.engines.judge.pipeline.JudgeSpec` gives the default template and the
            fields in place of the class's ``default_template`` and ``template_fields``.
        **kwargs: :class:`~transcreval.metric.Metric` options (process_group, ...).
    """

    higher_is_better: bool | None = True
    default_template: ClassVar[PromptTemplate | None] = None
    #: the text fields the metric fills (None: those of ``default_template``)
    template_fields: ClassVar[tuple[str, ...] | None] = None
    #: the role of each ``update`` argument: what a value (a ``str`` above all) means there; one
    #: of :data:`transcreval.engines.judge.roles.ROLES` ("image", "image_or_text", "text", "ids")
    input_roles: ClassVar[Mapping[str, str]] = {}

    def __init__(
        self,
        *,
        judge: Judge,
        template: PromptTemplate | str | None = None,
        on_failure: str = "skip",
        input_range: tuple[float, float] | None = None,
        spec: JudgeSpec | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.judge = check_judge(judge, type(self).__name__)
        self.on_failure = check_on_failure(on_failure)
        self.input_range = check_input_range(input_range)
        self.template = template
        if self._default_template() is not None:
            self._resolve(template)  # a bad template fails now, not at the first update
        self.add_state("total", Sum(torch.float64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("failures", Sum(torch.int64, (len(FAILURE_STATUSES),)))
        self.add_state("values", Cat(torch.float64))
        self.add_state("item_status", Cat(torch.int64))

    def _default_template(self) -> PromptTemplate | None:
        return self.spec.template if self.spec is not None else self.default_template

    def _template_ref(self) -> str:
        if self._default_template() is None:
            return "builtin"
        return self._resolve(self.template).ref

    def _resolve(self, template: Any) -> PromptTemplate:
        default = self._default_template()
        assert default is not None
        fields = self.spec.fields if self.spec is not None else self.template_fields
        return resolve_template(template, default, fields=fields, what=type(self).__name__)

    def _judge_options(self) -> dict[str, Any]:
        """What identifies the judge and the prompt in the signature (never a key)."""
        d = dict(self.judge.describe()) if hasattr(self.judge, "describe") else {}
        out: dict[str, Any] = {"judge": f"{d.get('backend', type(self.judge).__name__)}:{d.get('model', '?')}"}
        for key, short in (("temperature", "t"), ("seed", "seed"), ("max_tokens", "max_tok")):
            if key in d:
                out[short] = d[key]
        out["tpl"] = self._template_ref()
        if self.input_range not in (None, (0.0, 1.0)):  # how float images were read (absent at the default)
            out["range"] = f"{self.input_range[0]:g},{self.input_range[1]:g}"
        return out

    def _engine(self) -> dict[str, Any]:
        """The arguments every judge twin takes from the metric: judge, template, failure policy, range."""
        return {
            "judge": self.judge,
            "template": self.template,
            "on_failure": self.on_failure,
            "input_range": self.input_range,
        }

    def _metric_options(self) -> dict[str, Any]:
        """The metric's own options in the signature (before the judge's)."""
        return {}

    def _signature_options(self) -> dict[str, Any]:
        return {**self._metric_options(), **self._judge_options()}
