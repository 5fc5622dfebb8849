"""Metric results that know what produced them.

A :class:`MetricResult` carries the value, how many items it summarises, optional
per-item values and a :class:`Signature` (metric name, options, the versions of the packages
whose behaviour changes the numbers, and ours) that prints the way sacrebleu's signatures do::

    TitleChrF|nc:6|nw:0|b:2.0|case:mixed|eff:yes|space:no|v:0.1.0 = 41.27
    PHashDistance|hs:8|hf:4|surface:<=12|deep:>=30|pillow:13.0.0|scipy:1.17.1|v:0.1.0 = 7.5000

Every class returns one, and so do the functional twins whose value comes with more than a
number (the agreement statistics: sample size, bootstrap interval, details).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import torch

from transcreval._version import __version__
from transcreval.utils.packages import package_version


def _fmt(value: Any) -> str:
    """An option value as the signature prints it: floats exactly (``repr``), flags as yes/no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _escaped(text: str, key: bool = False) -> str:
    """``\\`` and ``|`` (and ``:`` in a key) escaped with a backslash, so a signature splits
    back into its parts one way only."""
    out = text.replace("\\", "\\\\").replace("|", "\\|")
    return out.replace(":", "\\:") if key else out


@dataclass(frozen=True)
class Signature:
    """What produced a result: the metric's name, its options, package versions, our version.

    ``str(sig)`` gives ``Name|key:value|...|package:version|v:VERSION``; ``sig.as_dict()`` the
    same as a dict. Options print in the order given; ``True``/``False`` print as ``yes``/``no``,
    floats exactly (``repr``: 0.1234567 and 0.1234568 print apart), and a ``|`` or ``\\`` in a
    name, key or value (and a ``:`` in a key) is escaped with a backslash, so two different
    option sets never print the same signature. :meth:`canonical_json` is the signature as
    canonical JSON: what run directories hash into their work keys. ``versions`` names the
    packages whose version can change the numbers (Pillow's resampling for pHash, scipy's DCT, a
    model package), so two results are comparable when their signatures are equal.
    """

    name: str
    options: tuple[tuple[str, Any], ...] = ()
    version: str = __version__
    versions: tuple[tuple[str, str], ...] = ()

    @classmethod
    def make(
        cls, name: str, options: Mapping[str, Any] | None = None, packages: tuple[str, ...] | list[str] = ()
    ) -> Signature:
        """A signature; ``packages`` are distribution names whose installed versions it records."""
        return cls(name, tuple((options or {}).items()), __version__, tuple((p, package_version(p)) for p in packages))

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, **dict(self.options), **dict(self.versions), "version": self.version}

    def __str__(self) -> str:
        parts = [
            _escaped(self.name),
            *(f"{_escaped(str(k), key=True)}:{_escaped(_fmt(v))}" for k, v in self.options),
            *(f"{_escaped(str(k), key=True)}:{_escaped(str(v))}" for k, v in self.versions),
            f"v:{_escaped(str(self.version))}",
        ]
        return "|".join(parts)

    def canonical_json(self) -> str:
        """The signature as canonical JSON (every part, in order; keys sorted, no spaces; floats
        exact): equal for equal signatures and different otherwise, the text work keys hash."""
        data = {
            "name": self.name,
            "options": [[str(k), _canonical(v)] for k, v in self.options],
            "versions": [[str(k), str(v)] for k, v in self.versions],
            "version": str(self.version),
        }
        return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr)


def _canonical(x: Any) -> Any:
    """An option value as plain JSON data for :meth:`Signature.canonical_json`: floats as they
    are (NaN stays NaN, unlike :func:`_jsonable`), sets sorted, arrays as lists."""
    if isinstance(x, (torch.Tensor,)) or (hasattr(x, "tolist") and type(x).__module__.startswith("numpy")):
        return _canonical(x.tolist() if not isinstance(x, torch.Tensor) else x.detach().cpu().tolist())
    if isinstance(x, Mapping):
        return {str(k): _canonical(v) for k, v in x.items()}
    if isinstance(x, (set, frozenset)):
        return sorted((_canonical(v) for v in x), key=repr)
    if isinstance(x, (list, tuple)):
        return [_canonical(v) for v in x]
    return x


def _jsonable(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return _jsonable(x.detach().cpu().tolist())
    if hasattr(x, "tolist") and type(x).__module__.startswith("numpy"):
        return _jsonable(x.tolist())
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


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
        defined: False only for a batch value that ``forward`` could not define (a batch of
            one pair for a correlation, a batch without any "hard" item for a gap, ...): then
            ``value`` is NaN, ``n`` is 0 and ``extras["undefined"]`` says why. ``compute`` and
            the functional twins never return an undefined result: they raise.
    """

    value: float
    n: int
    signature: Signature
    per_item: torch.Tensor | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)
    defined: bool = True

    def __post_init__(self) -> None:
        if self.defined and isinstance(self.value, float) and math.isnan(self.value):
            raise ValueError(f"{self.signature.name} produced NaN; this is a bug, please report it")

    @classmethod
    def undefined(cls, signature: Signature, reason: str) -> MetricResult:
        """The result of a batch whose value is undefined (see ``defined``)."""
        return cls(math.nan, 0, signature, extras={"undefined": reason}, defined=False)

    def __float__(self) -> float:
        return float(self.value)

    def __str__(self) -> str:
        if not self.defined:
            return f"{self.signature} = undefined ({self.extras.get('undefined', '')})"
        if isinstance(self.value, float):
            return f"{self.signature} = {self.value:.4f}"
        return f"{self.signature} = {self.value}"

    def copy(self) -> MetricResult:
        """A copy whose ``per_item`` and ``extras`` can be changed without touching this one."""
        per_item = self.per_item.clone() if isinstance(self.per_item, torch.Tensor) else self.per_item
        return replace(self, per_item=per_item, extras=copy.deepcopy(dict(self.extras)))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict: value, n, defined, per_item (a list or None), extras, signature.

        ``json.dumps(result.to_dict())`` works: tensors and numpy arrays become lists, mapping
        keys strings, non-finite floats ``None``/``"inf"``/``"-inf"``; ``signature`` is the
        printed signature and ``signature_fields`` its parts.
        """
        return {
            "value": _jsonable(self.value),
            "n": self.n,
            "defined": self.defined,
            "per_item": _jsonable(self.per_item) if self.per_item is not None else None,
            "extras": _jsonable(dict(self.extras)),
            "signature": str(self.signature),
            "signature_fields": _jsonable(self.signature.as_dict()),
        }
