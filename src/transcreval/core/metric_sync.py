"""The distributed half of :class:`~transcreval.core.metric.Metric`: syncing states across ranks.

``synced_state()`` combines the states of every rank (one :func:`~transcreval.core.distributed.sync_states`
call) and refuses states made by a rank whose metric was built with other options
(:func:`~transcreval.core.state_checks.check_signature_state`); ``sync()`` / ``unsync()`` /
``sync_context()`` swap the synced states in and out. See :mod:`transcreval.core.metric`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import torch

from transcreval.core.distributed import DistSyncFn, distributed_available, sync_states
from transcreval.core.state_checks import SIGNATURE_STATE, check_signature_state
from transcreval.core.states import Cat, State

if TYPE_CHECKING:
    from transcreval.core.result import MetricResult

__all__ = ["DistributedStates"]


class DistributedStates:
    """Mixed into :class:`~transcreval.core.metric.Metric` (which sets these attributes)."""

    process_group: Any
    dist_sync_fn: DistSyncFn | None
    distributed_available_fn: Callable[[], bool] | None
    sync_on_compute: bool
    sync_objects: bool
    _specs: dict[str, State]
    _state: dict[str, Any]
    _device: torch.device
    _computed: tuple[str, MetricResult] | None
    _unsynced: dict[str, Any] | None

    if TYPE_CHECKING:

        @property
        def name(self) -> str: ...

        def _materialise(self, state: Mapping[str, Any]) -> dict[str, Any]: ...

        def _options_id(self) -> int: ...

    def _dist_available(self) -> bool:
        fn = self.distributed_available_fn
        return bool(fn()) if fn is not None else distributed_available()

    def _should_sync(self, sync: bool | None) -> bool:
        wanted = self.sync_on_compute if sync is None else sync
        return bool(wanted) and self._dist_available()

    def synced_state(self) -> dict[str, Any]:
        """The states combined over all ranks (a collective); local states are unchanged."""
        if not self._dist_available():
            return self._materialise(self._state)
        names = list(self._specs)
        values = sync_states(
            [self._specs[n] for n in names],
            [self._state[n] for n in names],
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
            if self._unsynced is not None:  # reset() inside the block already dropped the synced states
                self.unsync()

    def _check_synced(self, synced: Mapping[str, Any]) -> None:
        """StateMismatchError when some rank's metric was built with other options."""
        check_signature_state(synced[SIGNATURE_STATE], self._options_id(), self, "sync")
