"""Guards the Metric base applies to every batch: argument checking and memory ownership.

* :func:`public_methods` builds a metric class's ``update`` and ``forward`` with the exact
  signature of its ``_stats`` (what ``help()`` shows and a collection routes by);
* :func:`check_arguments` binds ``update``/``forward`` arguments to a metric's ``_stats``
  signature, so a wrong or missing argument is a ``TypeError`` naming the public method.
* :func:`byte_ranges` / :func:`shares_memory` tell whether a statistic shares memory with one
  of the caller's arrays, so the base can copy it (a caller refilling one buffer per batch must
  not change what was accumulated).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np
import torch

__all__ = ["byte_ranges", "check_arguments", "check_picklable", "public_methods", "shares_memory"]


def byte_ranges(inputs: Any, depth: int = 3) -> list[tuple[str, int, int]]:
    """(device type, start, end) of the memory behind the tensors/arrays among ``inputs``, looked
    for in nested lists, tuples and dicts up to ``depth`` levels."""
    out: list[tuple[str, int, int]] = []

    def add(x: Any, level: int) -> None:
        if isinstance(x, torch.Tensor):
            if x.device.type == "meta" or x.numel() == 0:
                return
            st = x.untyped_storage()
            out.append((x.device.type, st.data_ptr(), st.data_ptr() + st.nbytes()))
        elif isinstance(x, np.ndarray):
            if x.size and x.dtype != object:
                start = x.__array_interface__["data"][0]
                lo = start + sum(min(0, (n - 1) * s) for n, s in zip(x.shape, x.strides))
                hi = start + sum(max(0, (n - 1) * s) for n, s in zip(x.shape, x.strides)) + x.itemsize
                out.append(("cpu", lo, hi))
        elif level < depth and isinstance(x, (list, tuple)):
            for y in x:
                add(y, level + 1)
        elif level < depth and isinstance(x, Mapping):
            for y in x.values():
                add(y, level + 1)

    for x in inputs:
        add(x, 1)
    return out


def shares_memory(t: torch.Tensor, ranges: list[tuple[str, int, int]]) -> bool:
    """Whether the storage of ``t`` overlaps one of ``ranges`` (from :func:`byte_ranges`)."""
    if not ranges or t.numel() == 0 or t.device.type == "meta":
        return False
    st = t.untyped_storage()
    lo, hi = st.data_ptr(), st.data_ptr() + st.nbytes()
    return any(dev == t.device.type and lo < b and a < hi for dev, a, b in ranges)


@functools.cache
def _stats_params(cls: Any) -> inspect.Signature:
    return inspect.signature(cls._stats)


@functools.cache
def _plain_params(cls: Any) -> tuple[tuple[str, ...], frozenset[str], frozenset[str]] | None:
    """(positional names, required names, all names) of ``_stats`` after ``self`` when it takes
    only plain named parameters (no ``*args``/``**kwargs``, no positional-only); else None."""
    params = list(_stats_params(cls).parameters.values())[1:]
    plain = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    if any(p.kind not in plain for p in params):
        return None
    positional = tuple(p.name for p in params if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = frozenset(p.name for p in params if p.default is inspect.Parameter.empty)
    return positional, required, frozenset(p.name for p in params)


def check_arguments(metric: Any, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Check the arguments against ``_stats``'s signature, naming the public method on error.

    The usual call (plain parameters, every required one given, no name twice) is recognised
    without ``Signature.bind``; anything else is bound, which names the problem.
    """
    plain = _plain_params(cast(Any, type(metric)))
    if plain is not None and len(args) <= len(plain[0]):
        given = plain[0][: len(args)]
        if not kwargs:
            if plain[1].issubset(given):
                return
        elif all(k in plain[2] and k not in given for k in kwargs) and plain[1].issubset((*given, *kwargs)):
            return
    sig = _stats_params(cast(Any, type(metric)))
    params = sig.parameters
    try:
        if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            unknown = [k for k in kwargs if k not in params or k == "self"]
            if unknown:
                raise TypeError(f"got an unexpected keyword argument {unknown[0]!r}")
        sig.bind(metric, *args, **kwargs)
    except TypeError as e:
        names = ", ".join(
            ("*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else "") + name
            for name, p in params.items()
            if name != "self"
        )
        raise TypeError(f"{metric.name}.{method}({names}): {e}") from None


def check_picklable(objects: list[Any], what: str) -> None:
    """Objects that travel between processes must pickle; fail at update, on this rank, before
    any collective (a failure inside the sync would leave the other ranks waiting)."""
    import pickle

    try:
        pickle.dumps(objects)
    except Exception as e:  # pickling raises many types
        from transcreval.errors import InputError

        raise InputError(f"{what}: the objects cannot be pickled to travel between processes ({e})") from None


#: an input not given to a generated ``update`` / ``forward`` (None is a value some inputs take)
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()


def join_inputs(preds: Any, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """The positional inputs of a call ``update(preds, target, *args, **kwargs)`` whose first two
    parameters default to :data:`MISSING`: given ones in order (``preds`` and ``target`` are
    ``_stats``'s first two parameters, so by name or by position binds the same); a ``target``
    given without ``preds`` goes back into ``kwargs``, so the argument check names what is missing."""
    if preds is MISSING:
        if target is not MISSING:
            kwargs["target"] = target
        return args
    return (preds, *args) if target is MISSING else (preds, target, *args)


def public_methods(cls: type, stats_fn: Callable[..., Any]) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``update`` and ``forward`` for a metric class whose ``_stats`` is ``stats_fn``: same
    parameters, names and docs, delegating to the base's ``_update`` / ``_forward``."""
    from transcreval.core.result import MetricResult

    sig = inspect.signature(stats_fn).replace(return_annotation=None)
    doc = inspect.getdoc(stats_fn) or ""
    names = [p.name for p in sig.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD][1:3]

    if names == ["preds", "target"]:

        def update(self: Any, preds: Any = MISSING, target: Any = MISSING, *args: Any, **kw: Any) -> None:
            self._update(join_inputs(preds, target, args, kw), kw)

        def forward(self: Any, preds: Any = MISSING, target: Any = MISSING, *args: Any, **kw: Any) -> Any:
            return self._forward(join_inputs(preds, target, args, kw), kw)

    else:  # no reference input (FontRichness, PointScore) or another second input (category, source)

        def update(self: Any, preds: Any = MISSING, *args: Any, **kw: Any) -> None:
            self._update(join_inputs(preds, MISSING, args, kw), kw)

        def forward(self: Any, preds: Any = MISSING, *args: Any, **kw: Any) -> Any:
            return self._forward(join_inputs(preds, MISSING, args, kw), kw)

    update.__signature__ = sig  # type: ignore[attr-defined]
    update.__doc__ = f"Accumulate a batch.\n\n{doc}".rstrip()
    forward.__signature__ = sig.replace(return_annotation=MetricResult)  # type: ignore[attr-defined]
    forward.__doc__ = (
        "Accumulate a batch and return the metric on that batch alone (one pass; the value is "
        "computed before the batch is merged: a batch that raises is not accumulated, and a "
        f"batch whose own value is undefined returns ``defined=False``).\n\n{doc}"
    ).rstrip()
    for fn, name in ((update, "update"), (forward, "forward")):
        fn.__name__ = name
        fn.__qualname__ = f"{cls.__qualname__}.{name}"
        fn.__module__ = cls.__module__
    return update, forward
