"""Any transcreval metric as a ``torchmetrics.Metric``, for Lightning's logging.

``wrap(metric)`` returns a :class:`TorchmetricsMetric`: ``update`` and ``forward`` go to the
transcreval metric (one pass, the batch value returned by ``forward``), ``compute`` returns its
value as a float64 scalar tensor, ``reset`` resets it. Use it as any torchmetrics metric::

    self.chrf = wrap(TitleChrF())                      # in LightningModule.__init__
    self.chrf.update(preds, target)                    # in a step
    self.log("chrf", self.chrf, on_epoch=True)         # Lightning computes and resets per epoch

Distributed runs: the transcreval metric syncs its own typed states across processes in
``compute`` (one collective per state dtype, as it does without Lightning), over its own
``process_group`` (default: the world); ``sync_on_compute=False`` gives the local value. No
state is registered with torchmetrics, so torchmetrics' own sync gathers nothing and the
wrapped metric's states are not part of the module's ``state_dict``. The last full result
(``per_item``, ``extras``, signature) is :attr:`TorchmetricsMetric.result`.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from transcreval.core.guards import MISSING, join_inputs
from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.errors import InputError, MissingDependencyError

try:
    import torchmetrics
except ImportError as e:  # pragma: no cover - exercised where torchmetrics is absent
    raise MissingDependencyError("transcreval.integrations.torchmetrics", "torchmetrics", "lightning") from e

__all__ = ["TorchmetricsMetric", "wrap"]


def _scalar(value: float) -> torch.Tensor:
    return torch.tensor(float(value), dtype=torch.float64)


class TorchmetricsMetric(torchmetrics.Metric):
    """A ``torchmetrics.Metric`` around a transcreval :class:`~transcreval.core.metric.Metric`.

    Args:
        metric: the transcreval metric (its options, states and process group are its own).
        **kwargs: torchmetrics' options (``sync_on_compute``, ...); ``compute_with_cache``
            defaults to False, so that every ``compute`` is the collective it must be on every rank.
    """

    full_state_update = False
    is_differentiable = False

    def __init__(self, metric: Metric, **kwargs: Any) -> None:
        if not isinstance(metric, Metric):
            raise InputError(f"wrap() takes a transcreval Metric instance, got {type(metric).__name__}")
        kwargs.setdefault("compute_with_cache", False)
        super().__init__(**kwargs)
        self.metric = metric
        self._result: MetricResult | None = None

    @property
    def higher_is_better(self) -> bool | None:  # type: ignore[override]
        """The wrapped metric's direction."""
        return type(self.metric).higher_is_better

    @property
    def result(self) -> MetricResult | None:
        """The transcreval result of the last ``compute`` (None before one)."""
        return self._result.copy() if self._result is not None else None

    def update(self, preds: Any = MISSING, target: Any = MISSING, *args: Any, **kwargs: Any) -> None:
        """Accumulate a batch (the transcreval metric's ``update``: ``preds``, ``target``, ...;
        for a metric whose second input is not ``target``, that input by position)."""
        self.metric.update(*join_inputs(preds, target, args, kwargs), **kwargs)

    def compute(self) -> torch.Tensor:
        """The value over everything accumulated, synced over the processes when ``sync_on_compute``."""
        self._result = self.metric.compute(sync=bool(self.sync_on_compute))
        return _scalar(self._result.value)

    def forward(self, preds: Any = MISSING, target: Any = MISSING, *args: Any, **kwargs: Any) -> torch.Tensor:
        """Accumulate a batch and return its own value (NaN when undefined on that batch), in one pass."""
        if self._is_synced:
            raise RuntimeError("forward() on a synced metric: call unsync() first")
        batch = self.metric.forward(*join_inputs(preds, target, args, kwargs), **kwargs)
        self._update_count += 1
        self._computed = None
        value = _scalar(batch.value if batch.defined else math.nan)
        self._forward_cache = value  # type: ignore[assignment]
        return value

    def reset(self) -> None:
        super().reset()
        self.metric.reset()
        self._result = None

    def _apply(self, fn: Any, exclude_state: Any = "") -> Any:
        this = super()._apply(fn, exclude_state)
        self.metric.to(self.device)  # `this` is `self`
        return this

    def __repr__(self) -> str:
        return f"TorchmetricsMetric({self.metric!r})"


def wrap(metric: Metric, **kwargs: Any) -> TorchmetricsMetric:
    """``metric`` as a ``torchmetrics.Metric`` (see :class:`TorchmetricsMetric`)."""
    return TorchmetricsMetric(metric, **kwargs)
