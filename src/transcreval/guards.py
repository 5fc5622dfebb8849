"""Guards the Metric base applies to every batch: argument checking and memory ownership.

* :func:`check_arguments` binds ``update``/``forward`` arguments to a metric's ``_stats``
  signature, so a wrong or missing argument is a ``TypeError`` naming the public method.
* :func:`byte_ranges` / :func:`shares_memory` tell whether a statistic shares memory with one
  of the caller's arrays, so the base can copy it (a caller refilling one buffer per batch must
  not change what was accumulated).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from typing import Any, cast

import numpy as np
import torch

__all__ = ["byte_ranges", "check_arguments", "shares_memory"]


def byte_ranges(inputs: Any) -> list[tuple[str, int, int]]:
    """(device type, start, end) of the memory behind the tensors/arrays among ``inputs``
    (top level and one level of lists/tuples/dicts)."""
    out: list[tuple[str, int, int]] = []

    def add(x: Any) -> None:
        if isinstance(x, torch.Tensor):
            if x.device.type == "meta" or x.numel() == 0:
                return
            st = x.untyped_storage()
            out.append((x.device.type, st.data_ptr(), st.data_ptr() + st.nbytes()))
        elif isinstance(x, np.ndarray) and x.size:
            start = x.__array_interface__["data"][0]
            lo = start + sum(min(0, (n - 1) * s) for n, s in zip(x.shape, x.strides))
            hi = start + sum(max(0, (n - 1) * s) for n, s in zip(x.shape, x.strides)) + x.itemsize
            out.append(("cpu", lo, hi))

    for x in inputs:
        add(x)
        if isinstance(x, (list, tuple)):
            for y in x[:4096]:
                add(y)
        elif isinstance(x, Mapping):
            for y in list(x.values())[:4096]:
                add(y)
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


def check_arguments(metric: Any, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Check the arguments against ``_stats``'s signature, naming the public method on error."""
    sig = _stats_params(cast(Any, type(metric)))
    params = sig.parameters
    try:
        if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            unknown = [k for k in kwargs if k not in params or k == "self"]
            if unknown:
                raise TypeError(f"got an unexpected keyword argument {unknown[0]!r}")
        sig.bind(metric, *args, **kwargs)
    except TypeError as e:
        names = ", ".join(str(p) for name, p in params.items() if name != "self")
        raise TypeError(f"{metric.name}.{method}({names}): {e}") from None
