"""Per-update sharing of converted inputs and extractor outputs (:func:`feature_scope`).

Within ``with feature_scope():`` (a :class:`~transcreval.core.collection.MetricCollection` opens one
around each update), :func:`shared_input` converts each raw input (a list of PIL images,
paths...) once for every metric that asks with the same options, and an extractor called twice
on the same input tensor runs once. Keys are object identities held alive by the scope, so they
cannot be confused with other objects, and the scope ends with the update: nothing is inferred
from equal values.

The scope is a context variable and nothing more, so the base (a collection, the metrics that
hold update calls) reads it without loading :mod:`transcreval.features`, which re-exports it.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Hashable, Iterator
from typing import Any

__all__ = ["current_scope", "feature_scope", "shared_input"]

_SCOPE: contextvars.ContextVar[dict[Any, Any] | None] = contextvars.ContextVar(
    "transcreval_feature_scope", default=None
)


@contextlib.contextmanager
def feature_scope() -> Iterator[None]:
    """Share converted inputs and extractor outputs between the metrics updated inside.

    Nested scopes join the outermost one. Everything memoised is released when it exits.
    """
    if _SCOPE.get() is not None:
        yield
        return
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def current_scope() -> dict[Any, Any] | None:
    """The memo of the open :func:`feature_scope` (None outside one)."""
    return _SCOPE.get()


def shared_input(raw: Any, how: Hashable, convert: Callable[[Any], Any]) -> Any:
    """``convert(raw)``, computed once per (raw object, ``how``) inside a :func:`feature_scope`.

    ``how`` names the conversion and its options (e.g. ``("rgb", input_range)``) and must be
    hashable (options are normalised when a metric is built: ranges are tuples); outside a
    scope this is just ``convert(raw)``.
    """
    scope = _SCOPE.get()
    if scope is None:
        return convert(raw)
    key = ("input", id(raw), how)
    hit = scope.get(key)
    if hit is not None and hit[0] is raw:
        return hit[1]
    value = convert(raw)
    scope[key] = (raw, value)
    return value
