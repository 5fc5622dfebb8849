"""One tester for every metric: class == functional == reference, on each batch and overall.

``check_metric(case, ddp_pool)`` runs, for a :class:`MetricCase`:

* per batch: ``forward`` == functional == reference;
* overall: ``compute`` == functional on all data == reference on all data;
* ``forward`` == ``update`` + ``compute`` on a fresh metric; ``compute`` cached until update;
* ``reset`` empties the metric (``compute`` then raises EmptyInputError) and it can refill;
* ``clone`` is independent; a pickle round trip keeps the value; ``state_dict`` holds exactly
  the declared states and reloads; ``merge_state`` of two halves equals the whole;
* under 2 and 4 gloo processes (batches interleaved rank, rank+world, ...; an uneven last
  batch; with 4 ranks and 3 batches one rank is empty) the result equals one process:
  exactly for integer states, within 1e-12 for float64 ones.
"""

from __future__ import annotations

import functools
import math
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
import torch

from transcreval.errors import EmptyInputError
from transcreval.metric import Metric
from transcreval.result import MetricResult


@dataclass
class MetricCase:
    """What the tester needs to know about one metric configuration.

    factory: builds the metric; must be picklable (a class or ``functools.partial``) and accept
        Metric keyword options (``process_group``).
    functional: ``functional(*batch) -> float`` on one batch (the functional twin).
    reference: ``reference(*batch) -> float`` from the reference package/formula.
    batches: positional ``update`` arguments per batch (at least 3, the last one smaller).
    join: merges a list of batches into one batch.
    atol: tolerance between class/functional and the reference.
    exact_value: the value is a ratio of integer states (compared exactly across ranks).
    """

    factory: Callable[..., Metric]
    functional: Callable[..., float]
    reference: Callable[..., float]
    batches: Sequence[tuple[Any, ...]]
    join: Callable[[Sequence[tuple[Any, ...]]], tuple[Any, ...]]
    atol: float = 1e-9
    exact_value: bool = False
    extras_keys: Sequence[str] = field(default_factory=tuple)


def join_lists(batches: Sequence[tuple[Any, ...]]) -> tuple[Any, ...]:
    """Join batches whose arguments are lists (or 1-D tensors), argument by argument."""
    out = []
    for parts in zip(*batches):
        if isinstance(parts[0], torch.Tensor):
            out.append(torch.cat(list(parts)))
        else:
            out.append([x for p in parts for x in p])
    return tuple(out)


def _close(a: float, b: float, atol: float, what: str) -> None:
    assert math.isfinite(a) and math.isfinite(b), f"{what}: non-finite values {a} vs {b}"
    assert abs(a - b) <= atol, f"{what}: {a!r} != {b!r} (atol {atol})"


def _same_result(a: MetricResult, b: MetricResult, exact: bool, what: str) -> None:
    if exact:
        assert a.value == b.value, f"{what}: {a.value!r} != {b.value!r}"
    else:
        _close(float(a.value), float(b.value), 1e-12 * max(1.0, abs(float(b.value))), what)
    assert a.n == b.n, f"{what}: n {a.n} != {b.n}"
    if a.per_item is not None or b.per_item is not None:
        assert a.per_item is not None and b.per_item is not None
        pa, pb = a.per_item.sort().values, b.per_item.sort().values
        if exact or not pa.is_floating_point():
            assert torch.equal(pa, pb), f"{what}: per-item values differ"
        else:
            assert torch.allclose(pa, pb, rtol=0, atol=1e-12), f"{what}: per-item values differ"


def _ddp_task(
    rank: int, world: int, group: Any, factory: Callable[..., Metric], batches: Sequence[tuple[Any, ...]]
) -> Any:
    metric = factory(process_group=group)
    for i in range(rank, len(batches), world):
        metric.update(*batches[i])
    synced = metric.compute()
    local_n = sum(1 for _ in range(rank, len(batches), world))
    if local_n:
        local = metric.compute(sync=False)
    else:
        try:
            metric.compute(sync=False)
        except EmptyInputError:
            local = None
        else:  # pragma: no cover - the harness asserts on it
            raise AssertionError("an empty rank's local compute must raise EmptyInputError")
    return synced, local


def check_metric(case: MetricCase, ddp_pool: Any = None) -> None:
    batches = list(case.batches)
    assert len(batches) >= 3, "give at least 3 batches (interleaving and an empty rank need them)"
    whole = case.join(batches)

    # per batch: forward == functional == reference
    metric = case.factory()
    for i, b in enumerate(batches):
        res = metric.forward(*b)
        assert isinstance(res, MetricResult)
        _close(float(res.value), case.functional(*b), case.atol, f"batch {i}: forward vs functional")
        _close(float(res.value), case.reference(*b), case.atol, f"batch {i}: forward vs reference")
    total = metric.compute()
    _close(float(total.value), case.functional(*whole), case.atol, "compute vs functional on all data")
    _close(float(total.value), case.reference(*whole), case.atol, "compute vs reference on all data")
    for k in case.extras_keys:
        assert k in total.extras, f"missing extra {k!r}"
    assert str(total).startswith(metric.name), "str(result) starts with the signature"

    # compute is cached until the next update
    assert metric.compute() is total
    # forward == update + compute
    fresh = case.factory()
    fresh.update(*batches[0])
    first = case.factory().forward(*batches[0])
    _same_result(fresh.compute(), first, case.exact_value, "forward vs update+compute")
    # update invalidates the cache
    fresh.update(*batches[1])
    assert fresh.compute() is not first

    # reset
    fresh.reset()
    with pytest.raises(EmptyInputError):
        fresh.compute()
    for b in batches:
        fresh.update(*b)
    _same_result(fresh.compute(), total, case.exact_value, "refill after reset")

    # clone is independent; pickle round trip
    twin = metric.clone()
    twin.update(*batches[0])
    assert metric.compute() is total
    _same_result(pickle.loads(pickle.dumps(metric)).compute(), total, case.exact_value, "pickle round trip")

    # state_dict holds exactly the declared states, and reloads
    sd = metric.state_dict()
    assert set(sd) == set(metric.state_specs), f"state_dict keys {sorted(sd)} != states {sorted(metric.state_specs)}"
    loaded = case.factory()
    loaded.load_state_dict(sd)
    _same_result(loaded.compute(), total, case.exact_value, "state_dict reload")

    # merge_state of two halves == the whole
    a, b2 = case.factory(), case.factory()
    for i, bt in enumerate(batches):
        (a if i % 2 == 0 else b2).update(*bt)
    a.merge_state(b2)
    _same_result(a.compute(), total, case.exact_value, "merge_state")
    c = case.factory()
    c.merge_state(loaded.state_dict())
    _same_result(c.compute(), total, case.exact_value, "merge_state(state_dict)")

    # world-size invariance
    if ddp_pool is not None:
        for world in (2, 4):
            outs = ddp_pool.run(_ddp_task, world, case.factory, batches)
            for rank, (synced, local) in enumerate(outs):
                _same_result(synced, total, case.exact_value, f"world {world}, rank {rank}")
                mine = [batches[i] for i in range(rank, len(batches), world)]
                if mine:
                    ref_local = case.factory()
                    for bt in mine:
                        ref_local.update(*bt)
                    _same_result(local, ref_local.compute(), case.exact_value, f"world {world}, rank {rank}, local")
                else:
                    assert local is None


def partial(cls: Callable[..., Metric], **kwargs: Any) -> Callable[..., Metric]:
    """A picklable metric factory with fixed options."""
    return functools.partial(cls, **kwargs)
