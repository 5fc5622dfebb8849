"""The :class:`Metric` base class.

A metric is two pure pieces plus bookkeeping:

* ``_stats(preds, target, ...) -> dict``: a batch's sufficient statistics, one entry per
  declared state. Its parameters are the metric's ``update``/``forward`` parameters: the base
  class gives ``update`` and ``forward`` exactly that signature (``help(Metric.update)`` shows
  the names, a wrong keyword is a ``TypeError`` naming the public method).
* ``_from_stats(states) -> MetricResult``: the value from (accumulated) statistics.

Both delegate to the public pieces of the functional twin in :mod:`transcreval.functional`, so
the class over a whole data set equals the function over the same data by construction.

The states live in ``_state`` (a plain dict, one entry per declared state). Two kinds of work
may be outstanding when a state is read, and every read finishes them first through one
explicit call, :meth:`Metric._settled`:

* running Python totals: a statistic that ``_stats`` returns as plain Python numbers of the
  state's own kind (:meth:`~transcreval.core.states.State.python_form`: ``int`` for int64,
  ``float``/``int`` for float64 ``Sum`` and ``Cat`` states on the CPU) is added up in Python, in
  ``_pending``: the very additions the tensors would do, so the state is bit for bit the same,
  without creating a few tiny tensors per call for a metric called once per item. They become
  tensors when read, and a ``Cat`` state's Python rows at the latest every 4,096 rows;
* update calls a subclass holds (:meth:`Metric._flush`, a no-op here): the open_clip metrics
  keep small calls and run their network on them together
  (:class:`~transcreval.core.held_calls.HeldCalls`). The flush also runs before a batch
  is computed or merged, so held calls always come first, in call order.

Vocabulary follows torchmetrics (``update``, ``compute``, ``forward``, ``reset``,
``merge_state``, ``sync``/``unsync``, ``higher_is_better``, ``process_group``,
``dist_sync_fn``), with these differences: ``forward`` computes the batch statistics once, and
returns the batch value before it accumulates; ``compute`` syncs a *copy* of the states (the
local ones are never replaced), and the result is cached until the next change (each call
returns a copy that the caller may modify); feature networks are never part of the metric's
``state_dict``. States never share memory with the caller's arrays: a buffer refilled in place
after ``update`` does not change the metric, and changing a result does not either.

Distributed use: ``compute()`` is a collective whenever a process group is initialised and
``sync_on_compute`` is true (the default): every rank must call it. Use
``compute(sync=False)`` for the local value. Between ``sync()`` and ``unsync()`` (or inside
``sync_context()``) the states are the synced ones: ``compute()`` uses them as they are, and
``update``/``forward``/``merge_state`` are refused.
"""

from __future__ import annotations

import copy
import difflib
import inspect
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ClassVar

import torch

from transcreval.core.distributed import DistSyncFn, distributed_available, sync_states
from transcreval.core.guards import byte_ranges, check_arguments, check_picklable, public_methods, shares_memory
from transcreval.core.registry import take_registry_facts
from transcreval.core.result import MetricResult, Signature
from transcreval.core.state_checks import (
    SIGNATURE_STATE,
    check_counts,
    check_keys,
    check_signature_state,
    options_id,
    signature_spec,
    signature_value,
)
from transcreval.core.states import (
    Cat,
    Objects,
    PythonValue,
    ReducedState,
    State,
    fold_python,
    is_cpu,
    merge_python,
    python_tensor,
)
from transcreval.errors import StateMismatchError, UndefinedValueError, UndefinedValueWarning
from transcreval.utils.threads import torch_threads

__all__ = ["Metric"]

_MAX_ROWS = 4096  # Python rows a Cat state collects before they become a tensor part


class Metric:
    """Base class of every transcreval metric.

    Args:
        process_group: the ``torch.distributed`` group to sync over (default: the world).
        dist_sync_fn: replaces the collectives with a gather function
            ``fn(tensor, group) -> list[Tensor]`` (torchmetrics' convention).
        distributed_available_fn: replaces the "is a process group initialised?" check.
        sync_on_compute: sync across processes in ``compute()`` (default True).
        sync_objects: also gather every Objects state (Python objects) when syncing.
    """

    #: set from a registered metric's registry entry (written there only); an instance may narrow it
    higher_is_better: bool | None = None
    is_differentiable: ClassVar[bool] = False
    value_range: ClassVar[tuple[float, float] | None] = None
    #: distributions whose installed versions can change the numbers (recorded in the signature)
    version_packages: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        take_registry_facts(cls)
        if "_stats" not in cls.__dict__:
            return
        update, forward = public_methods(cls, cls.__dict__["_stats"])
        if "update" not in cls.__dict__:
            cls.update = update  # type: ignore[method-assign]
        if "forward" not in cls.__dict__:
            cls.forward = forward  # type: ignore[method-assign]

    def __init__(
        self,
        *,
        process_group: Any = None,
        dist_sync_fn: DistSyncFn | None = None,
        distributed_available_fn: Callable[[], bool] | None = None,
        sync_on_compute: bool = True,
        sync_objects: bool = False,
        **unknown: Any,
    ) -> None:
        if unknown:
            raise TypeError(self._unknown_keywords(sorted(unknown)))
        if dist_sync_fn is not None and not callable(dist_sync_fn):
            raise TypeError("dist_sync_fn must be callable: fn(tensor, group) -> list of tensors")
        if distributed_available_fn is not None and not callable(distributed_available_fn):
            raise TypeError("distributed_available_fn must be callable: fn() -> bool")
        self.process_group = process_group
        self.dist_sync_fn = dist_sync_fn
        self.distributed_available_fn = distributed_available_fn
        self.sync_on_compute = bool(sync_on_compute)
        self.sync_objects = bool(sync_objects)
        self._specs: dict[str, State] = {}
        self._state: dict[str, Any] = {}
        self._pending: dict[str, Any] = {}  # running Python totals, by state name (see the module docs)
        self._device = torch.device("cpu")
        self._computed: tuple[str, MetricResult] | None = None
        self._unsynced: dict[str, Any] | None = None
        self._update_count = 0
        self._options_digest: int | None = None
        # [id, -id] of the options the states were made with (see transcreval.core.state_checks)
        self.add_state(SIGNATURE_STATE, signature_spec())

    def _unknown_keywords(self, unknown: list[str]) -> str:
        """The message for keywords no part of ``type(self)`` takes: the class's name and the
        keywords it accepts (from its signature, so the options it declares are listed)."""
        name = type(self).__name__
        try:
            params = inspect.signature(type(self)).parameters
            accepted = [p for p, v in params.items() if v.kind in (v.KEYWORD_ONLY, v.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            accepted = []
        own = inspect.signature(Metric.__init__).parameters.values()  # the base's keywords come last
        accepted += [p.name for p in own if p.kind is p.KEYWORD_ONLY and p.name not in accepted]
        close = [m for u in unknown for m in difflib.get_close_matches(u, accepted, n=1)]
        hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
        return f"{name}() got unexpected keyword argument(s) {unknown}{hint}; accepted keywords: {', '.join(accepted)}"

    # ------------------------------------------------------------------ declaration
    def add_state(self, name: str, spec: State) -> None:
        """Declare a state; its initial value is restored by :meth:`reset`."""
        if not isinstance(spec, State):
            raise TypeError(f"state {name!r} must be a transcreval.core.states.State, got {type(spec).__name__}")
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
        """Options printed in the result signature: its options object's (none without one)."""
        return self.options.signature_options() if hasattr(self, "options") else {}

    # ------------------------------------------------------------------ public API
    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def signature(self) -> Signature:
        return Signature.make(self.name, self._signature_options(), self.version_packages)

    @property
    def device(self) -> torch.device:
        return self._device

    @property
    def update_count(self) -> int:
        """This object's own ``update``/``forward`` calls since ``reset`` (merging adds none)."""
        return self._update_count

    @property
    def is_synced(self) -> bool:
        """True between :meth:`sync` and :meth:`unsync`."""
        return self._unsynced is not None

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Accumulate a batch."""
        self._update(args, kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> MetricResult:
        """Accumulate a batch and return the metric on that batch alone (one pass)."""
        return self._forward(args, kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> MetricResult:
        """``metric(...)`` is ``metric.forward(...)`` (a subclass's own ``forward`` included)."""
        return self.forward(*args, **kwargs)

    def compute(self, sync: bool | None = None) -> MetricResult:
        """The metric over everything accumulated (on all ranks when syncing).

        The local result is cached until the next ``update``/``forward``/``reset``/
        ``merge_state``; every call returns a copy. A syncing compute is a collective on every
        call (a cache would let a rank skip a collective that the others enter). Inside
        ``sync_context()`` the already synced states are used as they are (never synced twice).
        """
        if self._unsynced is not None:
            key, do_sync = "synced", False
        else:
            do_sync = self._should_sync(sync)
            key = "sync" if do_sync else "local"
        # a syncing compute is never served from the cache: every rank must enter the
        # collective, and one rank's cache may be valid where another's is not
        if key != "sync" and self._computed is not None and self._computed[0] == key:
            return self._computed[1].copy()
        with torch_threads():  # the thread budget (transcreval.utils.threads), restored afterwards
            states = self.synced_state() if do_sync else self._materialise(self._settled())
            result = self._from_stats(states)
        self._computed = (key, result)
        return result.copy()

    def reset(self) -> None:
        """Restore every state to its initial value (a synced metric is unsynced first)."""
        self._state = {n: s.initial(self._device) for n, s in self._specs.items()}
        self._pending = {}
        self._unsynced = None
        self._update_count = 0
        self._computed = None

    def merge_state(self, other: Metric | Mapping[str, Any]) -> None:
        """Fold another metric's states (or a ``state_dict``: keys must match exactly) into this
        one, ``update_count`` unchanged; states made with other options: StateMismatchError."""
        self._refuse_if_synced("merge_state")
        if isinstance(other, Metric):
            if type(other) is not type(self) or other._specs != self._specs:
                raise TypeError(f"cannot merge a {type(other).__name__} into a {type(self).__name__}")
            if other._signature_options() != self._signature_options():
                raise StateMismatchError(
                    f"cannot merge {other!r} into {self!r}: their options differ, so their states do too"
                )
            if other._unsynced is not None:
                raise RuntimeError(f"cannot merge a synced {other.name}: call unsync() on it first")
            fresh = other._materialise(other._settled())  # new objects: nothing to guard against
            self._merge(self._canonical(fresh), count=False)  # runs this metric's held calls first
        else:
            self._merge(self._foreign(other, "merge_state"), count=False)

    def clone(self) -> Metric:
        """A deep copy (states included) that shares the process group and sync callables."""
        new = copy.deepcopy(self)
        new.process_group = self.process_group
        new.dist_sync_fn = self.dist_sync_fn
        new.distributed_available_fn = self.distributed_available_fn
        return new

    def state_dict(self) -> dict[str, Any]:
        """The metric's states only: new tensors for Sum/Max/Min/Cat, lists for Objects."""
        return self._materialise(self._settled())

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Replace the states with those of a :meth:`state_dict` of a metric built with the same
        options (else StateMismatchError); keys must match exactly, counts be non-negative."""
        self._refuse_if_synced("load_state_dict")
        canon = self._foreign(state, "load_state_dict")
        self.reset()
        self._merge(canon, count=False)

    def to(self, device: torch.device | str) -> Metric:
        """Move every tensor state (the saved unsynced ones too) to ``device``; returns ``self``."""
        state = self._settled()  # held update calls run where they were made
        self._device = torch.device(device)
        self._state = self._moved(state)
        if self._unsynced is not None:
            self._unsynced = self._moved(self._unsynced)
        self._computed = None
        return self

    # ------------------------------------------------------------------ distributed
    def synced_state(self) -> dict[str, Any]:
        """The states combined over all ranks (one :func:`~transcreval.core.distributed.sync_states`
        call, a collective); the local states are unchanged. States made by a rank whose metric
        was built with other options: StateMismatchError."""
        state = self._settled()
        if not self._dist_available():
            return self._materialise(state)
        names = list(self._specs)
        values = sync_states(
            [self._specs[n] for n in names],
            [state[n] for n in names],
            group=self.process_group,
            dist_sync_fn=self.dist_sync_fn,
            sync_objects=self.sync_objects,
            device=self._device,
        )
        synced = dict(zip(names, values))
        self._check_synced(synced)
        return synced

    def sync(self) -> None:
        """Replace the local states with the synced ones until :meth:`unsync` (a collective)."""
        if self._unsynced is not None:
            raise RuntimeError(f"{self.name} is already synced; call unsync() first")
        synced = self.synced_state()  # settled: nothing is pending or held from here on
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
            if self._unsynced is not None:  # reset() inside the block already dropped the synced states
                self.unsync()

    def _dist_available(self) -> bool:
        fn = self.distributed_available_fn
        return bool(fn()) if fn is not None else distributed_available()

    def _should_sync(self, sync: bool | None) -> bool:
        wanted = self.sync_on_compute if sync is None else sync
        return bool(wanted) and self._dist_available()

    def _check_synced(self, synced: Mapping[str, Any]) -> None:
        """StateMismatchError when some rank's metric was built with other options."""
        check_signature_state(synced[SIGNATURE_STATE], self._options_id(), self, "sync")

    # ------------------------------------------------------------------ internals
    def _refuse_if_synced(self, what: str) -> None:
        if self._unsynced is not None:
            raise RuntimeError(
                f"{self.name}.{what}() while the states are synced would be lost at unsync(): "
                "call unsync() (or leave sync_context()) first"
            )

    def _options_id(self) -> int:
        if self._options_digest is None:
            self._options_digest = options_id(self.name, self._signature_options())
        return self._options_digest

    def _foreign(self, state: Mapping[str, Any], what: str) -> dict[str, Any]:
        """A state dict from elsewhere, canonical and checked (keys, options, counts)."""
        check_keys(self._specs, state, self, what)
        canon = self._canonical(dict(state), inputs=tuple(state.values()))
        check_signature_state(canon[SIGNATURE_STATE], self._options_id(), self, what)
        check_counts(self._specs, canon, self, what)
        return canon

    def _batch(self, args: tuple[Any, ...], kwargs: dict[str, Any], method: str) -> dict[str, Any]:
        """The canonical statistics of one batch (arguments checked, inputs never aliased)."""
        self._refuse_if_synced(method)
        check_arguments(self, method, args, kwargs)
        self._flush()  # held update calls run first: a failure leaves this batch (and a collection) out
        with torch_threads():  # every torch op of the batch on the thread budget (transcreval.utils.threads)
            return self._signed(self._stats(*args, **kwargs), inputs=(*args, *kwargs.values()))

    def _signed(self, stats: dict[str, Any], inputs: tuple[Any, ...] = ()) -> dict[str, Any]:
        """A batch's statistics in canonical form, with the options' signature state."""
        batch = self._canonical(stats, inputs=inputs)
        own = self._options_id()  # [id, -id]; in Python form on the CPU (a running Python total)
        cpu = is_cpu(self._device)
        batch[SIGNATURE_STATE] = PythonValue([own, -own]) if cpu else signature_value(own, self._device)
        return batch

    def _batch_result(self, batch: dict[str, Any]) -> MetricResult:
        """The value of one batch; undefined (not an exception) when the statistic is."""
        try:
            return self._from_stats(self._materialise(batch))
        except UndefinedValueError as e:
            warnings.warn(
                f"{self.name}: the value of this batch is undefined ({e}); the batch was accumulated",
                UndefinedValueWarning,
                stacklevel=4,
            )
            return MetricResult.undefined(self.signature, str(e))

    def _update(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self._merge(self._batch(args, kwargs, "update"))

    def _forward(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> MetricResult:
        batch = self._batch(args, kwargs, "forward")
        result = self._batch_result(batch)
        self._merge(batch)
        return result

    def _canonical(self, stats: dict[str, Any], inputs: tuple[Any, ...] = ()) -> dict[str, Any]:
        if not isinstance(stats, dict):
            raise TypeError(f"{self.name}._stats must return a dict of state values, got {type(stats).__name__}")
        if not self._specs.keys() >= stats.keys():
            unknown = set(stats) - set(self._specs)
            raise KeyError(f"{self.name}._stats returned undeclared states {sorted(unknown)}")
        ranges: list[Any] = []  # the inputs' memory, found when a tensor statistic needs it

        def own(t: torch.Tensor) -> torch.Tensor:
            if not ranges:
                ranges.append(byte_ranges(inputs))
            return t.clone() if shares_memory(t, ranges[0]) else t

        out: dict[str, Any] = {}
        cpu = is_cpu(self._device)
        for n, v in stats.items():
            spec = self._specs[n]
            py = spec.python_form(v) if cpu and not isinstance(v, torch.Tensor) else None
            if py is not None:
                out[n] = PythonValue(py)
            elif isinstance(spec, Cat):
                parts = v if isinstance(v, list) else [v]
                out[n] = [own(spec.coerce(t, self._device)) for t in parts]
            elif isinstance(spec, Objects):
                out[n] = spec.coerce(v, self._device)
                if spec.sync or self.sync_objects:
                    check_picklable(out[n], f"{self.name} state {n!r}")
            else:
                out[n] = own(spec.coerce(v, self._device))
        return out

    def _merge(self, stats: dict[str, Any], count: bool = True) -> None:
        self._flush()  # held update calls first: they were made before this batch
        store = self._state
        for n, v in stats.items():
            if self._add_python(n, v):  # a running Python total
                continue
            spec = self._specs[n]
            if isinstance(spec, (ReducedState, Objects)):
                store[n] = spec.merge(store[n], v)
            else:
                store[n] = [*store[n], *v]
        if count:
            self._update_count += 1
        self._computed = None

    def _materialise(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """New objects for every state (the stored ones are never handed out)."""
        out: dict[str, Any] = {}
        for n, spec in self._specs.items():
            v = self._batch_tensor(spec, state.get(n, spec.initial(self._device)))
            if isinstance(spec, Cat):
                out[n] = spec.join(v if isinstance(v, list) else [v], self._device)
            elif isinstance(spec, Objects):
                out[n] = list(v)
            else:
                out[n] = v.clone()
        return out

    def _moved(self, state: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for n, v in state.items():
            if isinstance(v, torch.Tensor):
                out[n] = v.to(self._device)
            elif isinstance(self._specs[n], Cat):
                out[n] = [t.to(self._device) for t in v]
            else:
                out[n] = v
        return out

    # ------------------------------------------------------------------ outstanding work
    def _flush(self) -> None:
        """Run the update work a subclass holds back (the base holds none). Called before any
        state is read (:meth:`_settled`) and before a batch is computed or merged."""

    def _settled(self) -> dict[str, Any]:
        """The stored states with nothing outstanding: held update calls run, Python totals folded."""
        self._flush()
        for n in list(self._pending):
            self._fold(n)
        return self._state

    def _fold(self, name: str) -> None:
        self._state[name] = fold_python(self._specs[name], self._state[name], self._pending.pop(name), self._device)

    def _add_python(self, name: str, value: Any) -> bool:
        """Merge one batch statistic when it is a :class:`PythonValue` (True); else fold that
        state's running total first so the tensor merge that follows sees it (False)."""
        if isinstance(value, PythonValue):
            spec = self._specs[name]
            total = self._pending[name] = merge_python(spec, self._state[name], self._pending.get(name), value.value)
            if isinstance(spec, Cat) and len(total) >= _MAX_ROWS:
                self._fold(name)
            return True
        if name in self._pending:
            self._fold(name)
        return False

    def _batch_tensor(self, spec: State, value: Any) -> Any:
        """A batch statistic as the state's tensor form (a Cat state's as a list of parts)."""
        if not isinstance(value, PythonValue):
            return value
        t = python_tensor(spec, value.value, self._device)
        return [t] if isinstance(spec, Cat) else t

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        self._settled()  # a pickle holds tensors only: nothing pending, nothing held
        d = self.__dict__.copy()
        # process groups and sync callables are process-local: they do not travel.
        d["process_group"] = None
        d["dist_sync_fn"] = None
        d["distributed_available_fn"] = None
        d["_computed"] = None
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        """The pickled attributes as they are (subclasses extend it through ``super()``)."""
        self.__dict__.update(d)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self._signature_options().items())
        return f"{self.name}({opts})"
