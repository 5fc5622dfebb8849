"""Running Python totals of a metric's small states (a base of :class:`~transcreval.core.metric.Metric`).

A metric called once per item (``update`` on one pair, as evaluation loops call it) would
otherwise create and add a few tiny tensors per call, which costs more than many metrics'
arithmetic. So a statistic that ``_stats`` returns as plain Python numbers of the state's own
kind (:meth:`~transcreval.core.states.State.python_form`: ``int`` for int64, ``float``/``int`` for
float64 ``Sum`` and ``Cat`` states on the CPU) is added up in Python, in ``_pending``: the very
additions the tensors would do, so the state is bit for bit the same. The totals become tensors
whenever ``_state`` is read (compute, state_dict, sync, a tensor statistic for that state,
pickling), and a ``Cat`` state's Python rows at the latest every 4,096 rows.

The same reads first run the update calls a metric holds (:mod:`transcreval.core.metric_held`).
"""

from __future__ import annotations

from typing import Any

import torch

from transcreval.core.metric_held import HeldCalls
from transcreval.core.states import Cat, PythonValue, State, fold_python, merge_python, python_tensor

__all__ = ["PythonTotals"]

_MAX_ROWS = 4096  # Python rows a Cat state collects before they become a tensor part


class PythonTotals(HeldCalls):
    """The ``_state`` mapping of a metric, with held update calls run and running Python totals
    folded in when read."""

    _specs: dict[str, State]
    _device: torch.device
    _store: dict[str, Any]
    _pending: dict[str, Any]

    @property
    def _state(self) -> dict[str, Any]:
        if self._held:
            self._release_held()
        if self._pending:
            for n in list(self._pending):
                self._fold(n)
        return self._store

    @_state.setter
    def _state(self, value: dict[str, Any]) -> None:
        self._store = value
        self._pending = {}
        self._held = []

    def _flushed_store(self) -> dict[str, Any]:
        """The stored states, after the held calls (which come before any batch merged now)."""
        if self._held:
            self._release_held()
        return self._store

    def _fold(self, name: str) -> None:
        self._store[name] = fold_python(self._specs[name], self._store[name], self._pending.pop(name), self._device)

    def _add_python(self, name: str, value: Any) -> bool:
        """Merge one batch statistic when it is a :class:`PythonValue` (True); else fold that
        state's running total first so the tensor merge that follows sees it (False)."""
        if isinstance(value, PythonValue):
            spec = self._specs[name]
            total = self._pending[name] = merge_python(spec, self._store[name], self._pending.get(name), value.value)
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

    def _plain_dict(self) -> dict[str, Any]:
        """``__dict__`` with the totals folded, for pickling (a pickle holds tensors only)."""
        self._state  # noqa: B018 - reading folds
        return self.__dict__.copy()

    @staticmethod
    def _upgrade_dict(d: dict[str, Any]) -> dict[str, Any]:
        """A pickled ``__dict__`` from before the totals (one ``_state`` dict) or the held calls, in today's form."""
        if "_state" in d:
            d = dict(d)
            d["_store"], d["_pending"] = d.pop("_state"), {}
        return d if "_held" in d else {**d, "_held": []}
