"""Update calls whose network pass is deferred: :class:`HeldCalls`, a Metric the open_clip metrics build on.

A metric whose batch costs a fixed-size network chunk (the open_clip towers run chunks of 8
images on the CPU, the last one padded) pays for a whole chunk on every small call: an
evaluation loop calling ``update`` on one pair at a time ran two padded chunks per pair. A metric
that implements :meth:`HeldCalls._hold` instead converts and checks each ``update`` call's inputs
at once (a bad input still raises there, and nothing is kept from it), keeps the converted
inputs, and runs the network on the held calls together:

* when the held items reach :meth:`HeldCalls._hold_limit` (one chunk per worker of the thread
  budget), whenever any state is read (``compute``, ``state_dict``, ``sync``, ``merge_state``,
  pickling, copies, ``to``: every read settles the states first, and this class's
  :meth:`~transcreval.core.metric.Metric._flush` runs the held calls), and before any other
  batch is computed (``forward``, an update inside a collection: a failing pass leaves that
  batch out of every member) or merged (``merge_state``): the held calls come first, in call order;
* each held call's statistics are merged on their own, in order (:meth:`HeldCalls._held_batches`
  gives one batch per call), so the states are those of the calls made one by one, bit for bit.

Not deferred: ``forward`` (its value needs the network now) and any update inside a
:func:`~transcreval.core.scope.feature_scope` (a collection shares inputs and network results
between its members within the update). ``reset`` drops what is held. A failing pass (the
network raising) keeps every held call and raises :class:`~transcreval.errors.HeldCallsError`.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, cast

from transcreval.core.guards import check_arguments
from transcreval.core.metric import Metric
from transcreval.core.scope import current_scope
from transcreval.errors import HeldCallsError
from transcreval.utils.threads import torch_threads

__all__ = ["HOLD_BYTES", "HeldCalls", "stats_inputs"]

#: held calls whose tensors reach this many bytes start the pass before the rows fill a chunk per
#: worker (full-size images held with ``preprocess="tensor"``: 8 posters of 2000 x 3000 hold 1.1 GB)
HOLD_BYTES = 256 << 20


@functools.cache
def _stats_signature(cls: Any) -> inspect.Signature:
    return inspect.signature(cls._stats)


def stats_inputs(metric: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """An (already checked) call's arguments in the order of the metric's ``_stats`` parameters."""
    bound = _stats_signature(cast(Any, type(metric))).bind(metric, *args, **kwargs)
    return tuple(bound.arguments.values())[1:]


class HeldCalls(Metric):
    """A metric that holds its update calls, and the hooks a deferring metric implements.

    Put it before the other base of a metric class (``class M(HeldCalls, MeanMetric)``): its
    ``_update`` and ``_flush`` then come first.
    """

    def __init__(self, **kwargs: Any) -> None:
        self._held: list[Any] = []  # first: a base's __init__ may already settle the states
        super().__init__(**kwargs)

    def reset(self) -> None:
        """Restore every state to its initial value and drop the held calls."""
        super().reset()
        self._held = []

    def __setstate__(self, d: dict[str, Any]) -> None:
        super().__setstate__(d)
        self._held = []  # a pickle is made after the held calls ran

    # ------------------------------------------------------------------ to implement (deferring metrics)
    def _hold(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """One ``update`` call's inputs converted and checked, kept until the pass (None: the
        call runs now, as without deferral). Raise here on bad input."""
        return None

    def _held_rows(self, call: Any) -> int:
        """The items of a held call (what :meth:`_hold_limit` counts)."""
        return 1

    def _hold_limit(self) -> int:
        """Held items that start the pass (one network chunk per worker)."""
        return 1

    def _held_batches(self, calls: list[Any]) -> list[dict[str, Any]]:
        """Canonical statistics of each held call, in order, from one pass over all of them."""
        raise NotImplementedError

    # ------------------------------------------------------------------ mechanics
    def _update(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if not self._defer(args, kwargs):
            super()._update(args, kwargs)

    def _flush(self) -> None:
        """Run the held calls (before any state is read, and before a batch is computed or merged)."""
        if self._held:
            self._release_held()
        super()._flush()

    def _defer(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        """Hold an ``update`` call when this metric defers and no feature scope is open (True)."""
        if type(self)._hold is HeldCalls._hold or current_scope() is not None:
            return False
        self._refuse_if_synced("update")
        check_arguments(self, "update", args, kwargs)
        with torch_threads():  # conversion on the thread budget, as an ordinary call
            call = self._hold(args, kwargs)
        if call is None:
            return False
        self._held.append(call)
        self._update_count += 1
        self._computed = None
        if sum(self._held_rows(c) for c in self._held) >= self._hold_limit() or self._held_bytes() >= HOLD_BYTES:
            try:
                self._release_held(own=True)
            except BaseException:  # an update that raises keeps nothing of its own call
                if self._held and self._held[-1] is call:
                    self._held.pop()
                    self._update_count -= 1
                raise
        return True

    def _held_bytes(self) -> int:
        """Bytes of the tensors the held calls keep (large images start the pass early)."""
        total = 0
        for call in self._held:
            for groups in getattr(call, "images", ()):
                total += sum(int(t.numel()) * t.element_size() for _, t in groups)
        return total

    def _release_held(self, own: bool = False) -> None:
        """Run the pass over the held calls and merge each call's statistics, in call order.
        ``own``: the pass runs inside the ``update`` whose call is the last one held (on failure
        that call is dropped by the caller and the error says so)."""
        calls, self._held = self._held, []
        try:
            with torch_threads():
                batches = self._held_batches(calls)
        except BaseException as e:
            self._held = calls  # nothing merged: every call is still held (also on Ctrl-C)
            if not isinstance(e, Exception):
                raise
            earlier = len(calls) - 1 if own else len(calls)
            this = "this update's call is not kept; " if own else ""
            raise HeldCallsError(
                f"{type(self).__name__}: the network pass over {len(calls)} held update call(s) failed "
                f"({type(e).__name__}: {e}); {this}{earlier} earlier call(s) are still held and run again "
                "at the next state read (compute, state_dict, ...): fix the cause, or reset() to drop them"
            ) from e
        for batch in batches:
            self._merge(batch, count=False)
