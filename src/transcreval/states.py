"""Typed metric states: how a piece of sufficient statistics is stored, merged and synced.

========  ===================================  ===============================================
type      merge of two states                  distributed sync
========  ===================================  ===============================================
Sum       element-wise addition                packed with the other Sum states of its dtype,
                                               one ``all_reduce(SUM)``
Max/Min   element-wise maximum / minimum       packed, one ``all_reduce(MAX/MIN)`` per dtype
Cat       concatenation along dim 0            sizes gathered first, then one padded
                                               ``all_gather`` per dtype (uneven/empty ranks ok)
Objects   list concatenation                   only when asked (``sync_objects=True``), with
                                               ``all_gather_object``
========  ===================================  ===============================================

Counters are int64 and float sums float64 by convention; the state declares its dtype.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch


@dataclass(frozen=True)
class State:
    """Base declaration of a metric state: its dtype and (trailing) shape."""

    dtype: torch.dtype = torch.float64
    shape: tuple[int, ...] = ()
    kind: ClassVar[str] = ""

    def initial(self, device: torch.device | str | None = None) -> Any:
        raise NotImplementedError

    def coerce(self, value: Any, device: torch.device | None) -> Any:
        """Turn a value produced by a metric's ``_stats`` into this state's canonical form."""
        t = torch.as_tensor(value, dtype=self.dtype, device=device)
        if tuple(t.shape) != self.shape:
            raise ValueError(f"state value has shape {tuple(t.shape)}, expected {self.shape}")
        return t


@dataclass(frozen=True)
class _Reduced(State):
    def fill_value(self) -> int | float:
        return 0

    def initial(self, device: torch.device | str | None = None) -> torch.Tensor:
        return torch.full(self.shape, self.fill_value(), dtype=self.dtype, device=device)

    def merge(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


@dataclass(frozen=True)
class Sum(_Reduced):
    """A tensor that adds up (counts, sums of scores, n-gram statistics)."""

    kind: ClassVar[str] = "sum"

    def merge(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a + b


def _extreme(dtype: torch.dtype, low: bool) -> int | float:
    if dtype.is_floating_point:
        return float("-inf") if low else float("inf")
    info = torch.iinfo(dtype)
    return info.min if low else info.max


@dataclass(frozen=True)
class Max(_Reduced):
    """A tensor holding a running element-wise maximum."""

    kind: ClassVar[str] = "max"

    def fill_value(self) -> int | float:
        return _extreme(self.dtype, low=True)

    def merge(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.maximum(a, b)


@dataclass(frozen=True)
class Min(_Reduced):
    """A tensor holding a running element-wise minimum."""

    kind: ClassVar[str] = "min"

    def fill_value(self) -> int | float:
        return _extreme(self.dtype, low=False)

    def merge(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.minimum(a, b)


@dataclass(frozen=True)
class Cat(State):
    """Rows that are concatenated (per-item values); ``shape`` is the shape of one row."""

    kind: ClassVar[str] = "cat"

    def initial(self, device: torch.device | str | None = None) -> list[torch.Tensor]:
        return []

    def coerce(self, value: Any, device: torch.device | None) -> torch.Tensor:
        t = torch.as_tensor(value, dtype=self.dtype, device=device)
        return t.reshape(-1, *self.shape)

    def empty(self, device: torch.device | str | None = None) -> torch.Tensor:
        return torch.empty((0, *self.shape), dtype=self.dtype, device=device)

    def join(self, parts: list[torch.Tensor], device: torch.device | str | None = None) -> torch.Tensor:
        if not parts:
            return self.empty(device)
        return parts[0] if len(parts) == 1 else torch.cat(parts)


@dataclass(frozen=True)
class Objects(State):
    """Arbitrary Python objects (judge rationales, OCR strings); synced only on request."""

    kind: ClassVar[str] = "objects"

    def initial(self, device: torch.device | str | None = None) -> list[Any]:
        return []

    def coerce(self, value: Any, device: torch.device | None) -> list[Any]:
        return list(value)
