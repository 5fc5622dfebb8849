"""The batch flow every judge metric shares, written once: check, resolve, read inputs, render, ask, tally.

A metric declares what it asks in a :class:`JudgeSpec` (its name, default prompt, the text
fields it fills and the image slots of ``preds`` and ``target``); :func:`judge_items` runs one
batch of a metric that asks one question per item: it checks the judge and the failure policy,
resolves the template, reads the images (one per item, or one pair per item), broadcasts the
text fields, renders every request (an InputError before any call when a field is missing),
asks, and tallies the verdicts (a failure is counted by status, never scored; ``on_failure=
"raise"`` raises after the whole batch was asked and cached). Metrics whose items take several
calls (pairwise orders, key points, three steps) compose the same pieces: :func:`begin`,
:func:`read_pairs`, :func:`field_rows` and :meth:`~transcreval.engines.judge.tally.JudgeTally.take`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from transcreval.engines.judge.items import check_judge, render_each
from transcreval.engines.judge.prompt_template import PromptTemplate
from transcreval.engines.judge.roles import image_parts, text_field
from transcreval.engines.judge.tally import JudgeTally, OnFailure, check_on_failure
from transcreval.engines.judge.templates import resolve_template
from transcreval.engines.judge.types import ImagePart, Judge
from transcreval.engines.judge.verdicts import ask
from transcreval.errors import InputError

__all__ = ["JudgeSpec", "begin", "field_rows", "judge_items", "read_pairs"]


@dataclass(frozen=True)
class JudgeSpec:
    """What a judge metric asks, declared once.

    Attributes:
        name: the metric's name in error messages (``"JudgeScore"``).
        template: the default prompt.
        fields: the text fields the metric fills from its arguments (a replacement template may
            use only these); None: the metric fills the default template's fields itself.
        slots: the image slot of ``preds`` and, for pairs, of ``target``.
        arguments: the metric argument that supplies a field, where the names differ
            (``{"translation": "translations"}``).
        mismatch: the message when ``preds`` and ``target`` differ in length (``{name}``,
            ``{n}`` items in preds, ``{m}`` in target).
        label: the name in failure reports (default ``name``; ``"JudgeScore(aesthetic)"``).
        side: named side totals a metric's score adds to, with their start values.
    """

    name: str
    template: PromptTemplate
    fields: tuple[str, ...] | None = None
    slots: tuple[str, ...] = ("output", "source")
    arguments: Mapping[str, str] = field(default_factory=dict)
    mismatch: str = "{name}: {n} outputs (preds) but {m} sources (target)"
    label: str | None = None
    side: Mapping[str, float] = field(default_factory=dict)

    def argument(self, name: str) -> str:
        return self.arguments.get(name, name)

    def tally(self) -> JudgeTally:
        return JudgeTally(**self.side)


def begin(
    spec: JudgeSpec, judge: Any, template: Any, on_failure: str, default: PromptTemplate | None = None
) -> tuple[PromptTemplate, OnFailure]:
    """Check the judge and the failure policy; resolve the template (``default``: the spec's)."""
    check_judge(judge, spec.name)
    policy = check_on_failure(on_failure)
    return resolve_template(template, default or spec.template, fields=spec.fields, what=spec.name), policy


def read_pairs(spec: JudgeSpec, preds: Any, target: Any, input_range: Any = None) -> tuple[list[Any], list[Any]]:
    """``preds`` and ``target`` as image parts, one pair per item."""
    a, b = image_parts(preds, "preds", input_range), image_parts(target, "target", input_range)
    if len(a) != len(b):
        raise InputError(spec.mismatch.format(name=spec.name, n=len(a), m=len(b)))
    return a, b


def field_rows(spec: JudgeSpec, values: Mapping[str, Any], n: int) -> list[dict[str, str | None]]:
    """The text fields of each of ``n`` items: each value one string for all or one per item."""
    cols = {k: text_field(values.get(k), n, spec.argument(k)) for k in spec.fields or ()}
    return [{k: v[i] for k, v in cols.items()} for i in range(n)]


def judge_items(
    spec: JudgeSpec,
    preds: Any,
    target: Any,
    fields: Mapping[str, Any],
    reader: Callable[[str], Any],
    on_failure: str,
    *,
    judge: Judge,
    template: Any = None,
    input_range: Any = None,
    score: Callable[[Any], Any] | None = None,
) -> dict[str, Any]:
    """One batch, one judge call per item: the statistics of :class:`JudgeTally`.

    ``preds`` fill ``spec.slots[0]``; ``target`` (None: no second image) ``spec.slots[1]``;
    ``fields`` maps each of ``spec.fields`` to its value (one for all items or one per item);
    ``reader`` reads an answer; ``score`` maps a value read to the item value (or to
    ``(value, {side: x})``).
    """
    tpl, policy = begin(spec, judge, template, on_failure)
    images: list[dict[str, ImagePart]]
    if target is None:
        images = [{spec.slots[0]: a} for a in image_parts(preds, "preds", input_range)]
    else:
        images = [dict(zip(spec.slots, ab)) for ab in zip(*read_pairs(spec, preds, target, input_range))]
    rows: Sequence[tuple[dict[str, ImagePart], dict[str, str | None]]] = list(
        zip(images, field_rows(spec, fields, len(images)))
    )
    requests = render_each(tpl, rows, {k: spec.argument(k) for k in spec.fields or ()}, spec.name)
    return spec.tally().take(ask(judge, requests, reader), score).finish(spec.label or spec.name, policy)
