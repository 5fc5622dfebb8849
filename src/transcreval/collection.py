"""A dict of metrics updated together and synced in one packed collective.

Members receive the keyword arguments their ``update`` accepts (by signature), or all
positional arguments. ``compute()`` gathers every member's states in one call of
:func:`transcreval.distributed.sync_states`: one ``all_reduce`` per (operation, dtype) and one
gather per Cat dtype for the whole collection, however many members it has. Members never
share state implicitly (no inferred compute groups).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping
from typing import Any

from transcreval.distributed import sync_states
from transcreval.metric import Metric
from transcreval.result import MetricResult


class MetricCollection:
    """Several metrics fed from the same batches.

    Args:
        metrics: a mapping ``name -> Metric`` or a list of metrics (named by class name).
        prefix / postfix: added to every key of the computed dict.
    """

    def __init__(self, metrics: Mapping[str, Metric] | list[Metric], *, prefix: str = "", postfix: str = "") -> None:
        if isinstance(metrics, Mapping):
            items = dict(metrics)
        else:
            items = {}
            for m in metrics:
                if m.name in items:
                    raise ValueError(f"two metrics are named {m.name!r}: pass a dict to name them")
                items[m.name] = m
        if not items:
            raise ValueError("MetricCollection needs at least one metric")
        for k, m in items.items():
            if not isinstance(m, Metric):
                raise TypeError(f"member {k!r} is a {type(m).__name__}, not a transcreval Metric")
        self._metrics = items
        self.prefix = prefix
        self.postfix = postfix

    def __getitem__(self, key: str) -> Metric:
        return self._metrics[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._metrics)

    def __len__(self) -> int:
        return len(self._metrics)

    def items(self) -> Iterator[tuple[str, Metric]]:
        return iter(self._metrics.items())

    @staticmethod
    def _route(metric: Metric, kwargs: dict[str, Any]) -> dict[str, Any]:
        params = inspect.signature(metric._stats).parameters
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return kwargs
        return {k: v for k, v in kwargs.items() if k in params}

    def update(self, *args: Any, **kwargs: Any) -> None:
        for m in self._metrics.values():
            m.update(*args, **self._route(m, kwargs))

    def forward(self, *args: Any, **kwargs: Any) -> dict[str, MetricResult]:
        return {self._key(k): m.forward(*args, **self._route(m, kwargs)) for k, m in self._metrics.items()}

    __call__ = forward

    def reset(self) -> None:
        for m in self._metrics.values():
            m.reset()

    def _key(self, name: str) -> str:
        return f"{self.prefix}{name}{self.postfix}"

    def compute(self, sync: bool | None = None) -> dict[str, MetricResult]:
        """Every member's result; all members sync in one packed collective."""
        members = list(self._metrics.items())
        syncing = [(k, m) for k, m in members if m._should_sync(sync)]
        results: dict[str, MetricResult] = {}
        if syncing:
            first = syncing[0][1]
            specs, values, owners = [], [], []
            for k, m in syncing:
                for n, spec in m._specs.items():
                    specs.append(spec)
                    values.append(m._state[n])
                    owners.append((k, n))
            synced = sync_states(
                specs,
                values,
                group=first.process_group,
                dist_sync_fn=first.dist_sync_fn,
                sync_objects=any(m.sync_objects for _, m in syncing),
            )
            per_member: dict[str, dict[str, Any]] = {k: {} for k, _ in syncing}
            for (k, n), v in zip(owners, synced):
                per_member[k][n] = v
            for k, m in syncing:
                res = m._from_stats(per_member[k])
                m._computed = (True, res)
                results[k] = res
        for k, m in members:
            if k not in results:
                results[k] = m.compute(sync=False)
        return {self._key(k): results[k] for k, _ in members}
