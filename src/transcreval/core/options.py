"""One options object per metric family (issue 16 item 3): checked once, shared by class and twin.

A family's options are a frozen dataclass derived from :class:`MetricOptions`. Its
``__post_init__`` runs :meth:`MetricOptions.check`, where the family validates (and, with
:meth:`MetricOptions.set_checked`, normalises) each field with the shared validators of
:mod:`transcreval.core.common` (``check_bool``, ``check_positive_int``, ``check_range``,
``check_choice``), so a bad option is an InputError naming it, raised before any input is read.
The class stores the object (``self.options``) and its twins build the same object from their
keyword arguments, so class and function can never disagree on what they accept.

:meth:`MetricOptions.signature_options` gives the options printed in a result's signature (a
field's ``signature`` metadata renames it, ``None`` leaves it out), and
:meth:`MetricOptions.signature` the :class:`~transcreval.core.result.Signature` itself, so the twin's
result carries the class's signature exactly. A small family to read as an example:
:class:`~transcreval.functional.text.word_recall.WordRecallOptions` (three fields, one printed
under another name with ``option(..., signature="unreadable")``, and a ``check`` made of the
shared validators).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from transcreval.core.result import Signature

__all__ = ["MetricOptions", "option", "option_property"]

_O = TypeVar("_O", bound="MetricOptions")
_SAME = object()


def option(default: Any = dataclasses.MISSING, *, signature: Any = _SAME, **field_kwargs: Any) -> Any:
    """A field of a :class:`MetricOptions` dataclass; ``signature="key"`` prints it under
    another name in the signature, ``signature=None`` leaves it out (options that cannot change
    the value: a batch size, a cache path)."""
    meta = dict(field_kwargs.pop("metadata", {}) or {})
    if signature is not _SAME:
        meta["signature"] = signature
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
        """The options printed in the signature, in field order."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            key = f.metadata.get("signature", f.name)
            if key is not None:
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
    def take(cls: type[_O], kwargs: Mapping[str, Any], what: str = "") -> _O:
        """The options from keyword arguments; an unknown keyword is a TypeError naming it and
        the accepted ones (``what`` names the function in the message)."""
        names = [f.name for f in dataclasses.fields(cls) if f.init]
        unknown = sorted(set(kwargs) - set(names))
        if unknown:
            where = f"{what}() " if what else ""
            raise TypeError(f"{where}got unexpected keyword argument(s) {unknown}; accepted options: {names}")
        return cls(**kwargs)
