"""Metric results that know what produced them.

A :class:`MetricResult` carries the value, how many items it summarises, optional
per-item values and a :class:`Signature` (metric name, options, library versions) that
prints the way sacrebleu's signatures do::

    TitleChrF|nc:6|nw:0|b:2|v:0.1.0 = 41.27
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from transcreval._version import __version__


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@dataclass(frozen=True)
class Signature:
    """What produced a result: the metric's name, its options and the library version.

    ``str(sig)`` gives ``Name|key:value|...|v:VERSION``; ``sig.as_dict()`` the same as a dict.
    Options are printed in the order given; values ``True``/``False`` print as ``yes``/``no``.
    """

    name: str
    options: tuple[tuple[str, Any], ...] = ()
    version: str = __version__

    @classmethod
    def make(cls, name: str, options: Mapping[str, Any] | None = None) -> Signature:
        return cls(name, tuple((options or {}).items()))

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, **dict(self.options), "version": self.version}

    def __str__(self) -> str:
        parts = [self.name, *(f"{k}:{_fmt(v)}" for k, v in self.options), f"v:{self.version}"]
        return "|".join(parts)


@dataclass(frozen=True)
class MetricResult:
    """The value of a metric over some items, with its provenance.

    Attributes:
        value: the metric value (a Python float, or an int for integer-valued metrics).
        n: how many items (pairs, segments, answers) the value summarises.
        signature: what produced the value; ``str(result)`` prints ``signature = value``.
        per_item: optional per-item values (a tensor), in update order on one process and
            rank-major order after a distributed sync.
        extras: further named numbers (for example the corpus-level score next to the mean).
    """

    value: float
    n: int
    signature: Signature
    per_item: torch.Tensor | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.value, float) and math.isnan(self.value):
            raise ValueError(f"{self.signature.name} produced NaN; this is a bug, please report it")

    def __float__(self) -> float:
        return float(self.value)

    def __str__(self) -> str:
        return (
            f"{self.signature} = {self.value:.4f}"
            if isinstance(self.value, float)
            else (f"{self.signature} = {self.value}")
        )

    def to_dict(self) -> dict[str, Any]:
        """A flat dict for loggers: value, n, extras and the signature string."""
        return {"value": self.value, "n": self.n, **dict(self.extras), "signature": str(self.signature)}
