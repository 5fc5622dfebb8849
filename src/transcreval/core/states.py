"""Typed metric states: how a piece of sufficient statistics is stored, merged and synced.

========  ===================================  ===============================================
type      merge of two states                  distributed sync
========  ===================================  ===============================================
Sum       element-wise addition                packed with the other Sum states of its dtype,
                                               one ``all_reduce(SUM)``
Max/Min   element-wise maximum / minimum       packed, one ``all_reduce(MAX/MIN)`` per dtype
Cat       concatenation along dim 0            sizes gathered first, then one padded
                                               ``all_gather`` per dtype (uneven/empty ranks ok)
Objects   list concatenation                   pickled and gathered like Cat rows, when the
                                               state says ``sync=True`` or the metric is built
                                               with ``sync_objects=True``
========  ===================================  ===============================================

Counters are int64 and float sums float64 by convention; the state declares its dtype. A
value for an integer or bool state must hold whole numbers (0/1 for bool): 2.7 for an int64
counter is an error, never a silent truncation to 2.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from transcreval.errors import InputError


def _as_state_tensor(value: Any, dtype: torch.dtype, device: torch.device | str | None, what: str) -> torch.Tensor:
    """``value`` as a tensor of ``dtype`` on ``device``, refusing lossy float -> integer casts.
    A state holds values, never an autograd graph: a tensor that requires grad is detached (a
    graph kept in a state would grow with every update of a training loop)."""
    if isinstance(value, torch.Tensor) and value.requires_grad:
        value = value.detach()
    if isinstance(value, torch.Tensor) and value.is_floating_point() and not dtype.is_floating_point:
        t = value
    elif not dtype.is_floating_point:
        try:
            t = torch.as_tensor(value)
        except (RuntimeError, TypeError, ValueError, OverflowError) as e:
            raise InputError(f"{what}: not a {dtype} value ({e})") from None
    else:
        return torch.as_tensor(value, dtype=dtype, device=device)
    if t.is_complex():
        raise InputError(f"{what}: a {dtype} state needs real whole numbers, got complex values")
    if t.is_floating_point() and not (bool(torch.isfinite(t).all()) and bool((t == t.round()).all())):
        raise InputError(f"{what}: a {dtype} state needs whole numbers, got non-integral values")
    if t.is_floating_point() and dtype != torch.bool and t.numel():
        info = torch.iinfo(dtype)
        if float(t.min()) < info.min or float(t.max()) >= float(info.max) + 1:
            raise InputError(f"{what}: values outside the range of {dtype}")
    if dtype == torch.bool and t.numel() and not bool(((t == 0) | (t == 1)).all()):
        raise InputError(f"{what}: a bool state needs 0/1 values")
    return t.to(dtype=dtype, device=device)


@dataclass(frozen=True)
class State:
    """Base declaration of a metric state: its dtype and (trailing) shape."""

    dtype: torch.dtype = torch.float64
    shape: tuple[int, ...] = ()
    kind: ClassVar[str] = ""

    def initial(self, device: torch.device | str | None = None) -> Any:
        raise NotImplementedError

    def coerce(self, value: Any, device: torch.device | str | None) -> Any:
        """Turn a value produced by a metric's ``_stats`` into this state's canonical form."""
        t = _as_state_tensor(value, self.dtype, device, f"{self.kind} state")
        if tuple(t.shape) != self.shape:
            raise InputError(f"state value has shape {tuple(t.shape)}, expected {self.shape}")
        return t

    def python_form(self, value: Any) -> Any:
        """``value`` as plain Python numbers when it already is exactly that (see :class:`Sum`
        and :class:`Cat`), else None: the metric then takes the tensor path (``coerce``)."""
        return None


@dataclass(frozen=True)
class ReducedState(State):
    """A fixed-shape tensor state combined element-wise (the base of Sum, Max and Min)."""

    def fill_value(self) -> int | float | bool:
        return 0

    def initial(self, device: torch.device | str | None = None) -> torch.Tensor:
        return torch.full(self.shape, self.fill_value(), dtype=self.dtype, device=device)

    def merge(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    #: dtypes whose Python form this state takes, and the Python operation that is ``merge``
    python_dtypes: ClassVar[frozenset[torch.dtype]] = frozenset()
    python_op: ClassVar[Any] = None

    def python_form(self, value: Any) -> Any:
        """A Python ``int`` (int64 states) or ``float``/``int`` (float64 states), or a list of
        them of this state's length (1-D states), for the dtypes in ``python_dtypes``; None for
        anything else.

        Combining such values in Python (``python_op``) is the very arithmetic ``merge`` does on
        the tensors (exact integers; one IEEE double addition per element), so a metric may keep
        a running Python total between updates and turn it into the tensor when a state is read:
        cheaper per update than creating and merging tensors, and bit for bit the same state.
        """
        if self.dtype not in self.python_dtypes or len(self.shape) > 1:
            return None
        if not self.shape:
            kind = type(value)
            if kind is float and self.dtype == torch.float64:  # the usual scalars, checked directly
                return value
            if kind is int and -(1 << 63) <= value < 1 << 63:
                return float(value) if self.dtype == torch.float64 else value
            return None
        if type(value) not in (list, tuple) or len(value) != self.shape[0]:
            return None
        return python_values(self.dtype, value)

    def add_python(self, total: Any, value: Any) -> Any:
        """``merge`` of Python forms (``total`` from :meth:`python_total`)."""
        if self.shape:
            return list(map(self.python_op, total, value))
        return self.python_op(total, value)

    def python_total(self, state: torch.Tensor) -> Any:
        """The current state as a Python number or list (exact for int64 and float64)."""
        return state.tolist()


@dataclass(frozen=True)
class Sum(ReducedState):
    """A tensor that adds up (counts, sums of scores, n-gram statistics)."""

    kind: ClassVar[str] = "sum"
    python_dtypes: ClassVar[frozenset[torch.dtype]] = frozenset({torch.int64, torch.float64})
    python_op: ClassVar[Any] = operator.add

    def __post_init__(self) -> None:
        if self.dtype == torch.bool:
            raise ValueError("a Sum state cannot be bool: count with int64, or use Max(torch.bool) for 'any'")

    def merge(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a + b


#: Python types a state of this dtype takes as is (no conversion that could round or wrap)
_PY_TYPES: dict[torch.dtype, frozenset[type]] = {torch.int64: frozenset({int}), torch.float64: frozenset({float, int})}


_CPU = torch.device("cpu")


def is_cpu(device: torch.device) -> bool:
    """Whether ``device`` is the CPU (where statistics may take their Python form); the plain
    ``cpu`` device is recognised without reading ``device.type`` (a slow attribute, per update)."""
    return device == _CPU or device.type == "cpu"


def python_values(dtype: torch.dtype, values: list[Any] | tuple[Any, ...]) -> list[Any] | None:
    """``values`` as a list of Python numbers a ``dtype`` state holds exactly (``int`` within
    int64's range; ``float``/``int`` as floats for float64), or None: anything else (other
    types, ints out of range, another dtype) takes the tensor path, which names the problem."""
    ok = _PY_TYPES.get(dtype)
    if ok is None or not ok.issuperset(map(type, values)):
        return None
    if dtype == torch.float64:
        try:
            return list(map(float, values))
        except OverflowError:  # an int too large for a float
            return None
    if values and (min(values) < -(1 << 63) or max(values) >= 1 << 63):
        return None
    return list(values)


def python_tensor(spec: State, value: Any, device: torch.device | str | None) -> torch.Tensor:
    """The tensor of a Python form (:meth:`ReducedState.python_form` / :meth:`Cat.python_form`) value."""
    try:
        t = torch.tensor(value, dtype=spec.dtype, device=device)
    except (RuntimeError, OverflowError) as e:
        raise InputError(f"{spec.kind} state: values outside the range of {spec.dtype} ({e})") from None
    return t.reshape(-1, *spec.shape) if isinstance(spec, Cat) else t


@dataclass(frozen=True)
class _Extremum(ReducedState):
    """A running element-wise maximum (``is_max``) or minimum, starting from the dtype's other
    extreme (False/True for bool, so a bool Max is ``any`` and a bool Min ``all``)."""

    is_max: ClassVar[bool]
    python_dtypes: ClassVar[frozenset[torch.dtype]] = frozenset({torch.int64})  # floats: NaN rules differ

    def fill_value(self) -> int | float | bool:
        if self.dtype == torch.bool:
            return not self.is_max
        if self.dtype.is_floating_point:
            return float("-inf") if self.is_max else float("inf")
        info = torch.iinfo(self.dtype)
        return info.min if self.is_max else info.max

    def merge(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.maximum(a, b) if self.is_max else torch.minimum(a, b)


@dataclass(frozen=True)
class Max(_Extremum):
    """A tensor holding a running element-wise maximum (``any`` for bool)."""

    kind: ClassVar[str] = "max"
    python_op: ClassVar[Any] = max
    is_max: ClassVar[bool] = True


@dataclass(frozen=True)
class Min(_Extremum):
    """A tensor holding a running element-wise minimum (``all`` for bool)."""

    kind: ClassVar[str] = "min"
    python_op: ClassVar[Any] = min
    is_max: ClassVar[bool] = False


@dataclass(frozen=True)
class Cat(State):
    """Rows that are concatenated (per-item values); ``shape`` is the shape of one row."""

    kind: ClassVar[str] = "cat"

    def initial(self, device: torch.device | str | None = None) -> list[torch.Tensor]:
        return []

    def coerce(self, value: Any, device: torch.device | str | None) -> torch.Tensor:
        t = _as_state_tensor(value, self.dtype, device, "cat state")
        k = len(self.shape)
        if t.ndim not in (k, k + 1) or tuple(t.shape[t.ndim - k :]) != self.shape:
            raise InputError(f"cat state rows have shape {self.shape}, got a value of shape {tuple(t.shape)}")
        return t.reshape(-1, *self.shape)

    def python_form(self, value: Any) -> Any:
        """A list of Python ``int`` (int64) or ``float``/``int`` (float64) rows of shape ``()``,
        or None (see :meth:`ReducedState.python_form`): rows that a metric may collect in a list and
        turn into one tensor part when the state is read."""
        if self.shape or type(value) not in (list, tuple):
            return None
        return python_values(self.dtype, value)

    def empty(self, device: torch.device | str | None = None) -> torch.Tensor:
        return torch.empty((0, *self.shape), dtype=self.dtype, device=device)

    def join(self, parts: list[torch.Tensor], device: torch.device | str | None = None) -> torch.Tensor:
        """All rows as one new tensor (never one of the stored parts: callers may change it)."""
        if not parts:
            return self.empty(device)
        return parts[0].clone() if len(parts) == 1 else torch.cat(parts)


@dataclass(frozen=True)
class Objects(State):
    """Arbitrary picklable Python objects (judge rationales, OCR strings, id -> name tables).

    Args:
        sync: gather this state across processes on every sync (for small metadata a result
            needs, such as the names behind hashed ids). Other Objects states travel only when
            the metric is built with ``sync_objects=True``. Objects that travel must pickle.
        unique: keep each (hashable) object once when merging (an id -> name table).
    """

    sync: bool = False
    unique: bool = False
    kind: ClassVar[str] = "objects"

    def merge(self, a: list[Any], b: list[Any]) -> list[Any]:
        """Concatenation; with ``unique=True`` repeated (hashable) objects are kept once."""
        return list(dict.fromkeys([*a, *b])) if self.unique else [*a, *b]

    def initial(self, device: torch.device | str | None = None) -> list[Any]:
        return []

    def coerce(self, value: Any, device: torch.device | str | None) -> list[Any]:
        if isinstance(value, (str, bytes)):
            raise InputError("an Objects state takes a list of objects, got a single string")
        return list(value)


class PythonValue:
    """A batch statistic in Python form (:meth:`State.python_form`), as a metric's ``_canonical``
    hands it to ``_merge``."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def merge_python(spec: State, state: Any, pending: Any, value: Any) -> Any:
    """The running Python form after adding ``value``: a total that starts from the ``state``
    tensor (Sum, Max, Min), or the rows collected since the state's last part (Cat)."""
    if isinstance(spec, Cat):
        if pending is None:
            return list(value)
        pending.extend(value)
        return pending
    if not isinstance(spec, ReducedState):
        raise TypeError(f"a {spec.kind} state has no Python form")
    return spec.add_python(spec.python_total(state) if pending is None else pending, value)


def fold_python(spec: State, state: Any, pending: Any, device: torch.device | str | None) -> Any:
    """The state with its running Python form turned back into tensors."""
    if isinstance(spec, Cat):
        return [*state, python_tensor(spec, pending, device)] if pending else state
    return python_tensor(spec, pending, device)
