"""One options object per metric family: checked once, shared by class and twin.

A family's options are a frozen dataclass derived from :class:`MetricOptions`. Its
``__post_init__`` runs :meth:`MetricOptions.check`, where the family validates (and, with
:meth:`MetricOptions.set_checked`, normalises) each field with the shared validators of
:mod:`transcreval.core.common` (``check_bool``, ``check_positive_int``, ``check_range``,
``check_choice``), so a bad option is an InputError naming it, raised before any input is read.
The class stores the object (``self.options``) and its twins build the same object from their
keyword arguments, so class and function can never disagree on what they accept.

:meth:`MetricOptions.signature_options` gives the options printed in a result's signature (a
field's ``signature`` metadata renames it, ``None`` leaves it out, a function derives what it
prints: the one way a signature is built; a family does not override it), and
:meth:`MetricOptions.signature` the :class:`~transcreval.core.result.Signature` itself, so the twin's
result carries the class's signature exactly. A small family to read as an example:
:class:`~transcreval.functional.text.word_recall.WordRecallOptions` (three fields, one printed
under another name with ``option(..., signature="unreadable")``, and a ``check`` made of the
shared validators); one whose signature prints values derived from the options (file digests,
without loading the network): :class:`~transcreval.functional.image.lpips.LPIPSOptions`.

The keywords come from the same dataclass: :func:`options_signature` turns its fields into the
keyword-only parameters (name, default, annotation) that ``help()`` and ``inspect.signature``
show for a twin written as ``def twin(preds, target, **options)`` and for a class's
``def __init__(self, **kwargs)`` (decorate either with :func:`takes_options`; the class builds its
options from :meth:`MetricOptions.split`), so a family's keyword list is written once, in its
dataclass. Examples: :class:`~transcreval.PHashDistance` and
:func:`~transcreval.functional.image.phash.phash_distance`.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from transcreval.core.result import Signature

__all__ = ["MetricOptions", "option", "option_property", "options_signature", "takes_options"]

_O = TypeVar("_O", bound="MetricOptions")
_F = TypeVar("_F", bound=Callable[..., Any])
_SAME = object()


def option(
    default: Any = dataclasses.MISSING, *, signature: Any = _SAME, signature_order: int = 0, **field_kwargs: Any
) -> Any:
    """A field of a :class:`MetricOptions` dataclass and how the signature prints it: under its
    own name by default; ``signature="key"`` under another name; ``signature=None`` not at all
    (options that cannot change the value: a batch size, a cache path); ``signature=fn``, a
    function of the whole (checked) options object returning a mapping, prints that mapping's
    entries at the field's place (a value derived from several fields, a file's digest, several
    keys or none). ``fn`` must not load a model: a signature is made before any input is read.
    ``signature_order`` moves the field among the others: the signature prints the fields by
    order, lowest first, and in field order within one order (default 0). A negative order
    prints a subclass's field before those it inherits; a base's fields with a positive order
    print after those of every subclass (the judge and prompt of
    :class:`~transcreval.engines.judge.pipeline.JudgeOptions`)."""
    meta = dict(field_kwargs.pop("metadata", {}) or {})
    if signature is not _SAME:
        meta["signature"] = signature
    if signature_order:
        meta["signature_order"] = signature_order
    return dataclasses.field(default=default, metadata=meta, **field_kwargs)


def option_property(name: str, doc: str = "") -> Any:
    """A read-only metric attribute that reads ``self.options.<name>``: the checked options
    object stays the one place an option lives (``judge = option_property("judge")``)."""
    return property(lambda self: getattr(self.options, name), doc=doc or f"The ``{name}`` option (read-only).")


@dataclasses.dataclass(frozen=True)
class MetricOptions:
    """Base of a family's options (see the module docstring). Frozen: build a changed copy
    with :meth:`replace`."""

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Validate the fields (a subclass's override raises InputError naming the option)."""

    def set_checked(self, name: str, value: Any) -> None:
        """Store a normalised value (``check_range`` returns a float, say) from :meth:`check`."""
        object.__setattr__(self, name, value)

    def signature_options(self) -> dict[str, Any]:
        """The options printed in the signature, by ``signature_order`` and then in field order,
        as each field's ``signature`` metadata says (see :func:`option`)."""
        out: dict[str, Any] = {}
        for f in sorted(dataclasses.fields(self), key=lambda f: f.metadata.get("signature_order", 0)):
            key = f.metadata.get("signature", f.name)
            if callable(key):
                out.update(key(self))
            elif key is not None:
                out[key] = getattr(self, f.name)
        return out

    def signature(self, name: str, packages: Sequence[str] = ()) -> Signature:
        """The signature of metric ``name`` under these options (``packages``: distributions
        whose versions change the numbers, as the class's ``version_packages``)."""
        return Signature.make(name, self.signature_options(), tuple(packages))

    def as_kwargs(self) -> dict[str, Any]:
        """Every field by name (what a function taking the options one by one needs)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def replace(self: _O, **changes: Any) -> _O:
        """A copy with some fields changed (checked again)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def split(cls, kwargs: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(fields, rest)``: the keyword arguments that are fields of this class, and the
        others (a metric's ``__init__(self, **kwargs)`` builds its options from the first and
        passes the rest, the :class:`~transcreval.core.metric.Metric` options, on)."""
        names = {f.name for f in dataclasses.fields(cls) if f.init}
        own = {k: v for k, v in kwargs.items() if k in names}
        return own, {k: v for k, v in kwargs.items() if k not in names}

    @classmethod
    def take(cls: type[_O], kwargs: Mapping[str, Any], what: str = "") -> _O:
        """The options from keyword arguments; an unknown keyword is a TypeError naming it and
        the accepted ones (``what`` names the function in the message)."""
        own, rest = cls.split(kwargs)
        if rest:
            names = [f.name for f in dataclasses.fields(cls) if f.init]
            where = f"{what}() " if what else ""
            raise TypeError(f"{where}got unexpected keyword argument(s) {sorted(rest)}; accepted options: {names}")
        return cls(**own)


def options_signature(
    options_type: type[MetricOptions], fn: Callable[..., Any], *, positional: Sequence[str] = ()
) -> inspect.Signature:
    """``fn``'s signature with its ``**kwargs`` replaced by the fields of ``options_type``.

    The fields become keyword-only parameters with their defaults, except those named in
    ``positional`` (taken as positional-or-keyword parameters right after ``fn``'s own ones, as
    ``LPIPS("vgg")``; they replace a ``*args`` that passes them on). Fields ``fn`` already names
    keep ``fn``'s parameter. A class's ``__init__``
    that passes Metric options on keeps a ``**kwargs`` at the end; a twin (no such ``kwargs``
    name) gets none, so unknown keywords are refused by :meth:`MetricOptions.take`.
    """
    own = list(inspect.signature(fn).parameters.values())
    var = [p for p in own if p.kind is p.VAR_KEYWORD]
    params = [p for p in own if p.kind is not p.VAR_KEYWORD and not (positional and p.kind is p.VAR_POSITIONAL)]
    named = {p.name for p in params}
    for f in dataclasses.fields(options_type):
        if not f.init or f.name in named:
            continue
        default = f.default if f.default is not dataclasses.MISSING else inspect.Parameter.empty
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD if f.name in positional else inspect.Parameter.KEYWORD_ONLY
        params.append(inspect.Parameter(f.name, kind, default=default, annotation=f.type))
    params.sort(key=lambda p: p.kind)  # stable: positional ones first, in field order
    if var and var[0].name == "kwargs":
        params.append(var[0])
    return inspect.signature(fn).replace(parameters=params)


def takes_options(options_type: type[MetricOptions], *, positional: Sequence[str] = ()) -> Callable[[_F], _F]:
    """Decorator: ``fn`` (``def twin(preds, target, **options)``, or a metric's
    ``def __init__(self, **kwargs)``) shows the fields of ``options_type`` as its keywords
    (:func:`options_signature`); the function itself is unchanged and builds its options with
    ``options_type.take(options, name)`` (a class: ``options_type.split(kwargs)``)."""

    def mark(fn: _F) -> _F:
        fn.__signature__ = options_signature(options_type, fn, positional=positional)  # type: ignore[attr-defined]
        return fn

    return mark
