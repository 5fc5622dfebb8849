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
from typing import Any, ClassVar, TypeVar

from transcreval.core.options import MetricOptions, option
from transcreval.core.result import Signature
from transcreval.engines.judge.items import check_judge, render_each
from transcreval.engines.judge.prompt_template import PromptTemplate
from transcreval.engines.judge.roles import image_parts, text_field
from transcreval.engines.judge.tally import JudgeTally, OnFailure, check_on_failure
from transcreval.engines.judge.templates import resolve_template
from transcreval.engines.judge.types import ImagePart, Judge
from transcreval.engines.judge.verdicts import ask
from transcreval.errors import InputError

__all__ = [
    "AspectOptions",
    "JudgeOptions",
    "JudgeSpec",
    "begin",
    "check_seed",
    "field_rows",
    "judge_items",
    "judge_label",
    "range_signature",
    "read_pairs",
]

_O = TypeVar("_O", bound="JudgeOptions")


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


def check_seed(seed: Any) -> int:
    """A seed of the per-item draws: any integer (not a bool)."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InputError(f"seed must be an integer, got {seed!r}")
    return seed


#: the signature order of the options every judge metric takes: they print after a metric's own
JUDGE_LAST = 1


def judge_label(judge: Any) -> str:
    """The judge as a signature names it: ``backend:model`` (never a key)."""
    d = dict(judge.describe()) if hasattr(judge, "describe") else {}
    return f"{d.get('backend', type(judge).__name__)}:{d.get('model', '?')}"


def _judge_entries(o: JudgeOptions) -> dict[str, Any]:
    """The judge in the signature: :func:`judge_label` and its sampling settings."""
    d = dict(o.judge.describe()) if hasattr(o.judge, "describe") else {}
    out: dict[str, Any] = {"judge": judge_label(o.judge)}
    for key, short in (("temperature", "t"), ("seed", "seed"), ("max_tokens", "max_tok")):
        if key in d:
            out[short] = d[key]
    return out


def range_signature(input_range: tuple[float, float] | None) -> dict[str, str]:
    """How float images were read, in a signature: ``{"range": "lo,hi"}``, nothing at the
    default (0, 1)."""
    r = input_range
    return {} if r in (None, (0.0, 1.0)) else {"range": f"{r[0]:g},{r[1]:g}"}


@dataclass(frozen=True, kw_only=True)
class JudgeOptions(MetricOptions):
    """The options every judge metric shares, checked once; a metric with
    options of its own derives from it (``TitleExtractionOptions``, ``WinRateOptions``, ...).

    Attributes:
        judge: anything with ``complete(requests)`` (an OpenAICompatibleJudge, a ReplayJudge, ...).
        template: the prompt: None (the metric's), a built-in id, a PromptTemplate or a file path.
        on_failure: "skip" (failed items are counted and left out) or "raise".
        input_range: the value range of float images (default (0, 1)).

    The class keeps the object (``metric.options``) and its twin builds the same one from its
    keywords. The signature prints the metric's own options (as their fields declare), then
    the judge, its sampling settings, the template's ``id@version`` and a non-default input
    range (these fields have ``signature_order=JUDGE_LAST``).
    """

    #: distributions whose versions change the numbers (the class's ``version_packages``)
    packages: ClassVar[tuple[str, ...]] = ()
    #: what the metric asks (None: a metric that resolves its prompts itself)
    default_spec: ClassVar[JudgeSpec | None] = None

    judge: Any = option(signature=_judge_entries, signature_order=JUDGE_LAST)
    template: Any = option(None, signature=lambda o: {"tpl": o.template_ref()}, signature_order=JUDGE_LAST)
    on_failure: OnFailure = option("skip", signature=None)
    input_range: Any = option(None, signature=lambda o: range_signature(o.input_range), signature_order=JUDGE_LAST)

    @property
    def metric(self) -> str:
        """The metric's name (the class name without "Options"), in errors and the signature."""
        return type(self).__name__.removesuffix("Options")

    def result_signature(self) -> Signature:
        """The signature of the metric's result under these options (as the class's)."""
        return self.signature(self.metric, self.packages)

    def check(self) -> None:
        from transcreval.io import check_input_range

        check_judge(self.judge, self.metric)
        self.set_checked("on_failure", check_on_failure(self.on_failure))
        self.set_checked("input_range", check_input_range(self.input_range))
        self.check_own()
        if self.spec() is not None:
            self.prompt()  # a bad template fails now, not at the first update

    def check_own(self) -> None:
        """Check the metric's own options (before the template, which may depend on them)."""

    def spec(self) -> JudgeSpec | None:
        """What the metric asks under these options (an aspect may choose the prompt)."""
        return self.default_spec

    def prompt(self) -> PromptTemplate:
        """The template the metric renders: ``template`` checked against the spec's fields and slots."""
        spec = self.spec()
        assert spec is not None, f"{self.metric} resolves its prompts itself"
        return resolve_template(self.template, spec.template, fields=spec.fields, what=self.metric)

    def template_ref(self) -> str:
        return "builtin" if self.spec() is None else self.prompt().ref

    def engine(self) -> dict[str, Any]:
        """The keywords :func:`judge_items` takes from the options."""
        return {"judge": self.judge, "template": self.template, "input_range": self.input_range}

    @classmethod
    def of(cls: type[_O], options: _O | None, kwargs: Mapping[str, Any], what: str) -> _O:
        """``options`` when given (then no other keyword), else the options built from ``kwargs``."""
        if options is None:
            return cls.take(kwargs, what)
        if kwargs:
            raise TypeError(f"{what}() takes options= or the options one by one, not both: {sorted(kwargs)}")
        if not isinstance(options, cls):
            raise TypeError(f"{what}(): options must be a {cls.__name__}, got {type(options).__name__}")
        return options


@dataclass(frozen=True, kw_only=True)
class AspectOptions(JudgeOptions):
    """The options of a metric that scores one of several aspects, each with its prompt
    (``specs``: aspect -> :class:`JudgeSpec`); a subclass sets ``specs`` and the default ``aspect``."""

    specs: ClassVar[Mapping[str, JudgeSpec]] = {}
    aspect: str = ""

    def check_own(self) -> None:
        from transcreval.core.common import check_choice

        check_choice("aspect", self.aspect, tuple(self.specs))

    def spec(self) -> JudgeSpec:
        return self.specs[self.aspect]
