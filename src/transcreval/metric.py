"""The :class:`Metric` base class.

A metric is two pure pieces plus bookkeeping:

* ``_stats(*batch) -> dict``: a batch's sufficient statistics, one entry per declared state;
* ``_from_stats(states) -> MetricResult``: the value from (accumulated) statistics.

The functional twin in :mod:`transcreval.functional` composes the same two pieces, so the
class over a whole data set equals the function over the same data by construction.

Vocabulary follows torchmetrics (``update``, ``compute``, ``forward``, ``reset``,
``merge_state``, ``sync``/``unsync``, ``higher_is_better``, ``process_group``,
``dist_sync_fn``), with these differences: ``forward`` computes the batch statistics once and
both returns the batch value and accumulates; ``compute`` syncs a *copy* of the states (the
local ones are never replaced), and the result is cached until the next change; feature
networks are never part of the metric's ``state_dict``.

Distributed use: ``compute()`` is a collective whenever a process group is initialised and
``sync_on_compute`` is true (the default): every rank must call it. Use
``compute(sync=False)`` for the local value.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ClassVar

import torch

from transcreval.distributed import DistSyncFn, distributed_available, sync_states
from transcreval.result import MetricResult, Signature
from transcreval.states import Cat, Objects, State, _Reduced


class Metric:
    """Base class of every transcreval metric.

    Args:
        process_group: the ``torch.distributed`` group to sync over (default: the world).
        dist_sync_fn: replaces the collectives with a gather function
            ``fn(tensor, group) -> list[Tensor]`` (torchmetrics' convention).
        distributed_available_fn: replaces the "is a process group initialised?" check.
        sync_on_compute: sync across processes in ``compute()`` (default True).
        sync_objects: also gather Objects states (Python objects) when syncing.
    """

    higher_is_better: ClassVar[bool | None] = None
    is_differentiable: ClassVar[bool] = False
    value_range: ClassVar[tuple[float, float] | None] = None

    def __init__(
        self,
        *,
        process_group: Any = None,
        dist_sync_fn: DistSyncFn | None = None,
        distributed_available_fn: Callable[[], bool] | None = None,
        sync_on_compute: bool = True,
        sync_objects: bool = False,
    ) -> None:
        self.process_group = process_group
        self.dist_sync_fn = dist_sync_fn
        self.distributed_available_fn = distributed_available_fn
        self.sync_on_compute = sync_on_compute
        self.sync_objects = sync_objects
        self._specs: dict[str, State] = {}
        self._state: dict[str, Any] = {}
        self._device = torch.device("cpu")
        self._computed: tuple[bool, MetricResult] | None = None
        self._unsynced: dict[str, Any] | None = None
        self._update_count = 0

    # ------------------------------------------------------------------ declaration
    def add_state(self, name: str, spec: State) -> None:
        """Declare a state; its initial value is restored by :meth:`reset`."""
        if not isinstance(spec, State):
            raise TypeError(f"state {name!r} must be a transcreval.states.State, got {type(spec).__name__}")
        if name in self._specs:
            raise ValueError(f"state {name!r} is already declared")
        self._specs[name] = spec
        self._state[name] = spec.initial(self._device)

    @property
    def state_specs(self) -> Mapping[str, State]:
        return dict(self._specs)

    # ------------------------------------------------------------------ to implement
    def _stats(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Sufficient statistics of one batch, keyed by state name."""
        raise NotImplementedError

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        """The metric's value from (accumulated) statistics."""
        raise NotImplementedError

    def _signature_options(self) -> dict[str, Any]:
        """Options printed in the result signature."""
        return {}

    # ------------------------------------------------------------------ public API
    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def signature(self) -> Signature:
        return Signature.make(self.name, self._signature_options())

    @property
    def device(self) -> torch.device:
        return self._device

    @property
    def update_count(self) -> int:
        return self._update_count

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Accumulate a batch."""
        self._merge(self._canonical(self._stats(*args, **kwargs)))

    def forward(self, *args: Any, **kwargs: Any) -> MetricResult:
        """Accumulate a batch and return the metric on that batch alone (one pass)."""
        batch = self._canonical(self._stats(*args, **kwargs))
        self._merge(batch)
        return self._from_stats(self._materialise(batch))

    __call__ = forward

    def compute(self, sync: bool | None = None) -> MetricResult:
        """The metric over everything accumulated (on all ranks when syncing).

        The result is cached until the next ``update``/``forward``/``reset``/``merge_state``.
        """
        do_sync = self._should_sync(sync)
        if self._computed is not None and self._computed[0] == do_sync:
            return self._computed[1]
        states = self.synced_state() if do_sync else self._materialise(self._state)
        result = self._from_stats(states)
        self._computed = (do_sync, result)
        return result

    def reset(self) -> None:
        """Restore every state to its initial value."""
        self._state = {n: s.initial(self._device) for n, s in self._specs.items()}
        self._unsynced = None
        self._update_count = 0
        self._computed = None

    def merge_state(self, other: Metric | Mapping[str, Any]) -> None:
        """Fold another metric's states (or a ``state_dict``) into this one."""
        if isinstance(other, Metric):
            if type(other) is not type(self) or other._specs != self._specs:
                raise TypeError(f"cannot merge a {type(other).__name__} into a {type(self).__name__}")
            incoming = other._state
            self._update_count += other._update_count
        else:
            incoming = {k: other[k] for k in self._specs if k in other}
        self._merge(self._canonical(dict(incoming)), count=False)

    def clone(self) -> Metric:
        """A deep copy (states included) that shares the process group and sync callables."""
        new = copy.deepcopy(self)
        new.process_group = self.process_group
        new.dist_sync_fn = self.dist_sync_fn
        new.distributed_available_fn = self.distributed_available_fn
        return new

    def state_dict(self) -> dict[str, Any]:
        """The metric's states only: tensors for Sum/Max/Min/Cat, lists for Objects."""
        return {n: (v.clone() if isinstance(v, torch.Tensor) else v) for n, v in self._materialise(self._state).items()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Replace the states with those of a :meth:`state_dict`; keys must match exactly."""
        missing = set(self._specs) - set(state)
        extra = set(state) - set(self._specs)
        if missing or extra:
            raise KeyError(
                f"state_dict keys do not match {self.name}: missing {sorted(missing)}, unexpected {sorted(extra)}"
            )
        self.reset()
        self._merge(self._canonical(dict(state)), count=False)

    def to(self, device: torch.device | str) -> Metric:
        """Move every tensor state to ``device``; returns ``self``."""
        self._device = torch.device(device)
        for n, v in self._state.items():
            if isinstance(v, torch.Tensor):
                self._state[n] = v.to(self._device)
            elif isinstance(self._specs[n], Cat):
                self._state[n] = [t.to(self._device) for t in v]
        self._computed = None
        return self

    # ------------------------------------------------------------------ distributed
    def _dist_available(self) -> bool:
        fn = self.distributed_available_fn
        return bool(fn()) if fn is not None else distributed_available()

    def _should_sync(self, sync: bool | None) -> bool:
        wanted = self.sync_on_compute if sync is None else sync
        return bool(wanted) and self._dist_available()

    def synced_state(self) -> dict[str, Any]:
        """The states combined over all ranks (a collective); local states are unchanged."""
        names = list(self._specs)
        if not self._dist_available():
            return self._materialise(self._state)
        values = sync_states(
            [self._specs[n] for n in names],
            [self._state[n] for n in names],
            group=self.process_group,
            dist_sync_fn=self.dist_sync_fn,
            sync_objects=self.sync_objects,
        )
        return dict(zip(names, values))

    def sync(self) -> None:
        """Replace the local states with the synced ones until :meth:`unsync` (a collective)."""
        if self._unsynced is not None:
            raise RuntimeError(f"{self.name} is already synced; call unsync() first")
        synced = self.synced_state()
        self._unsynced = self._state
        self._state = {n: ([v] if isinstance(self._specs[n], Cat) else v) for n, v in synced.items()}
        self._computed = None

    def unsync(self) -> None:
        """Restore the local states saved by :meth:`sync`."""
        if self._unsynced is None:
            raise RuntimeError(f"{self.name} is not synced")
        self._state, self._unsynced = self._unsynced, None
        self._computed = None

    @contextmanager
    def sync_context(self) -> Iterator[None]:
        """``with metric.sync_context():`` syncs on entry and restores local states on exit."""
        self.sync()
        try:
            yield
        finally:
            self.unsync()

    # ------------------------------------------------------------------ internals
    def _canonical(self, stats: dict[str, Any]) -> dict[str, Any]:
        unknown = set(stats) - set(self._specs)
        if unknown:
            raise KeyError(f"{self.name}._stats returned undeclared states {sorted(unknown)}")
        out = {}
        for n, v in stats.items():
            spec = self._specs[n]
            if isinstance(spec, Cat) and isinstance(v, list):
                out[n] = [spec.coerce(t, self._device) for t in v]
            elif isinstance(spec, Cat):
                out[n] = [spec.coerce(v, self._device)]
            else:
                out[n] = spec.coerce(v, self._device)
        return out

    def _merge(self, stats: dict[str, Any], count: bool = True) -> None:
        for n, v in stats.items():
            spec = self._specs[n]
            if isinstance(spec, _Reduced):
                self._state[n] = spec.merge(self._state[n], v)
            elif isinstance(spec, (Cat, Objects)):
                self._state[n] = [*self._state[n], *v]
        if count:
            self._update_count += 1
        self._computed = None

    def _materialise(self, state: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for n, spec in self._specs.items():
            v = state.get(n, spec.initial(self._device))
            if isinstance(spec, Cat):
                out[n] = spec.join(v if isinstance(v, list) else [v], self._device)
            elif isinstance(spec, Objects):
                out[n] = list(v)
            else:
                out[n] = v
        return out

    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        # process groups and sync callables are process-local: they do not travel.
        d["process_group"] = None
        d["dist_sync_fn"] = None
        d["distributed_available_fn"] = None
        d["_computed"] = None
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self._signature_options().items())
        return f"{self.name}({opts})"
