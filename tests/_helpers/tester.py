"""One tester for every metric: class == functional == reference, on each batch and overall.

``check_metric(case, ddp_pool)`` runs, for a :class:`MetricCase`:

* per batch: ``forward`` == functional == reference;
* overall: ``compute`` == functional on all data == reference on all data; the same data in
  one batch gives the same value (batch-size invariance);
* ``forward`` == ``update`` + ``compute`` on a fresh metric;
* ``compute`` is cached (``_from_stats`` runs once for repeated calls) and the cache is
  invalidated by the next ``update``: the value then equals the functional twin on the longer
  data (a metric whose update kept serving the old cache fails here);
* a result is a copy: changing ``per_item`` in place changes neither the metric nor the next
  result;
* ``reset`` empties the metric (``compute`` then raises EmptyInputError) and it can refill;
* ``clone`` is independent both ways (updating the clone leaves the original's states and value
  as they were, and the clone's value is the functional twin on its own data); a pickle round
  trip keeps the value; ``state_dict`` holds exactly the declared states and reloads;
  ``merge_state`` of two halves equals the whole;
* under 2 and 4 gloo processes (batches interleaved rank, rank+world, ...; an uneven last
  batch; with 4 ranks and 3 batches one rank is empty) the synced result equals one process
  (exactly for integer states, within 1e-12 for float64 ones); inside ``sync_context()`` the
  result is the same (states are not synced twice) and ``update`` is refused;
* where the case asks for them (torchmetrics' two other checks): ``half_atol`` -- float16 image
  inputs give the float32 result within that tolerance, or a clear InputError
  (:func:`check_half_precision`); ``differentiable`` -- the functional twin's values on float
  inputs that require grad carry a finite, non-zero gradient back to ``preds``
  (:func:`check_gradient`). Registry-wide versions: ``tests/test_precision_and_gradients.py``.
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

from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.errors import EmptyInputError, InputError


@dataclass
class MetricCase:
    """What the tester needs to know about one metric configuration.

    factory: builds the metric; must be picklable (a class or ``functools.partial``) and accept
        Metric keyword options (``process_group``).
    functional: ``functional(*batch)`` on one batch (the functional twin): a MetricResult, what
        ``compute()`` returns (checked equal to the class's result: value, n,
        per-item values, extras keys and the signature), or a float while a twin is not converted.
    reference: ``reference(*batch) -> float`` from the reference package/formula.
    batches: positional ``update`` arguments per batch (at least 3, the last one smaller).
    join: merges a list of batches into one batch.
    atol: tolerance between class/functional and the reference.
    exact_value: the value is a ratio of integer states (compared exactly across ranks).
    half_atol: check the first batch with its float tensors in float16 (None: not checked).
    differentiable: check that the functional twin's values carry a gradient to ``preds``.
    same_atol: how closely two results of the same data agree when the data are batched or
        split over processes differently (values and per-item values): 1e-12 (relative) for
        float64 statistics; a model whose float32 forward pass depends on what shares a batch
        (COMET pads each batch to its longest segment) needs more.
    """

    factory: Callable[..., Metric]
    functional: Callable[..., MetricResult | float]
    reference: Callable[..., float]
    batches: Sequence[tuple[Any, ...]]
    join: Callable[[Sequence[tuple[Any, ...]]], tuple[Any, ...]]
    atol: float = 1e-9
    exact_value: bool = False
    extras_keys: Sequence[str] = field(default_factory=tuple)
    same_atol: float = 1e-12
    half_atol: float | None = None
    differentiable: bool = False


def join_lists(batches: Sequence[tuple[Any, ...]]) -> tuple[Any, ...]:
    """Join batches whose arguments are lists (or 1-D tensors), argument by argument; an
    argument that is the same non-list value in every batch (None, an int) is kept as is."""
    out: list[Any] = []
    for parts in zip(*batches):
        if isinstance(parts[0], torch.Tensor):
            out.append(torch.cat(list(parts)))
        elif isinstance(parts[0], (list, tuple)):
            out.append([x for p in parts for x in p])
        else:
            assert all(p == parts[0] for p in parts), f"cannot join differing scalar arguments {parts}"
            out.append(parts[0])
    return tuple(out)


def _close(a: float, b: float, atol: float, what: str) -> None:
    assert math.isfinite(a) and math.isfinite(b), f"{what}: non-finite values {a} vs {b}"
    assert abs(a - b) <= atol, f"{what}: {a!r} != {b!r} (atol {atol})"


def _identical(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same shape and values, NaN equal to NaN (per-item values are NaN where undefined)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not a.is_floating_point():
        return torch.equal(a, b)
    return bool(((a == b) | (a.isnan() & b.isnan())).all())


def _same_result(a: MetricResult, b: MetricResult, exact: bool, what: str, atol: float = 1e-12) -> None:
    assert a.defined and b.defined, f"{what}: undefined result"
    if exact:
        assert a.value == b.value, f"{what}: {a.value!r} != {b.value!r}"
    else:
        _close(float(a.value), float(b.value), atol * max(1.0, abs(float(b.value))), what)
    assert a.n == b.n, f"{what}: n {a.n} != {b.n}"
    assert set(a.extras) == set(b.extras), f"{what}: extras keys {sorted(a.extras)} != {sorted(b.extras)}"
    if a.per_item is not None or b.per_item is not None:
        assert a.per_item is not None and b.per_item is not None, f"{what}: per_item missing on one side"
        pa, pb = a.per_item.sort().values, b.per_item.sort().values  # NaNs (undefined items) sort last
        if exact or not pa.is_floating_point():
            assert _identical(pa, pb), f"{what}: per-item values differ"
        else:
            assert torch.allclose(pa, pb, rtol=0, atol=atol, equal_nan=True), f"{what}: per-item values differ"
    for r in (a, b):
        if "item_status" in r.extras:  # the one per-item status convention: aligned with per_item
            status = list(r.extras["item_status"])
            assert r.per_item is not None and len(status) == r.per_item.numel(), f"{what}: item_status misaligned"
            for v, s in zip(r.per_item.tolist(), status):
                # 'ok' items have a value; NaN always comes with the reason; the one non-'ok' item
                # with a value is an unreadable answer scored 0 (on_unreadable="zero")
                assert (v == v) == (s == "ok") or (s == "unparsable" and v == 0.0), (
                    f"{what}: per_item {v} with item_status {s!r}"
                )
            # n counts what the mean is over: one per 'ok' item for per-item means (the judge
            # family test checks equality), one per box for pooled means (PosterIQ Eq. 6-7), plus
            # unreadable items scored 0; never fewer than the 'ok' items
            assert r.n >= status.count("ok"), f"{what}: n < the number of 'ok' items"


def _vs_twin(res: MetricResult, twin_out: MetricResult | float, case: MetricCase, what: str) -> None:
    """The class's result against the functional twin's on the same data."""
    if isinstance(twin_out, MetricResult):
        assert str(twin_out.signature) == str(res.signature), (
            f"{what}: the twin's signature {twin_out.signature} != the class's {res.signature}"
        )
        _same_result(twin_out, res, case.exact_value, what, atol=max(case.same_atol, case.atol))
    else:
        _close(float(res.value), float(twin_out), case.atol, what)


def _states_equal(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if set(a) != set(b):
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, torch.Tensor):
            if not (isinstance(y, torch.Tensor) and _identical(x, y)):
                return False
        elif x != y:
            return False
    return True


class _CountingFromStats:
    """Wraps an instance's ``_from_stats`` to count how often a value is computed."""

    def __init__(self, metric: Metric) -> None:
        self.calls = 0
        self._inner = metric._from_stats
        metric._from_stats = self  # type: ignore[method-assign]

    def __call__(self, stats: dict[str, Any]) -> MetricResult:
        self.calls += 1
        return self._inner(stats)


def _ddp_task(
    rank: int, world: int, group: Any, factory: Callable[..., Metric], batches: Sequence[tuple[Any, ...]]
) -> Any:
    metric = factory(process_group=group)
    for i in range(rank, len(batches), world):
        metric.update(*batches[i])
    synced = metric.compute()
    again = metric.compute()  # a second syncing compute is a collective too, with the same result
    with metric.sync_context():
        inside = metric.compute()  # states synced once on entry, never twice
        try:
            metric.update(*batches[0])
        except RuntimeError:
            refused = True
        else:  # pragma: no cover - the harness asserts on it
            refused = False
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
    return synced, again, inside, refused, local


def check_metric(case: MetricCase, ddp_pool: Any = None) -> None:
    batches = list(case.batches)
    same = functools.partial(_same_result, atol=case.same_atol)
    assert len(batches) >= 3, "give at least 3 batches (interleaving and an empty rank need them)"
    whole = case.join(batches)

    # per batch: forward == functional == reference
    metric = case.factory()
    for i, b in enumerate(batches):
        res = metric.forward(*b)
        assert isinstance(res, MetricResult)
        _vs_twin(res, case.functional(*b), case, f"batch {i}: forward vs functional")
        _close(float(res.value), case.reference(*b), case.atol, f"batch {i}: forward vs reference")
    total = metric.compute()
    _vs_twin(total, case.functional(*whole), case, "compute vs functional on all data")
    _close(float(total.value), case.reference(*whole), case.atol, "compute vs reference on all data")
    for k in case.extras_keys:
        assert k in total.extras, f"missing extra {k!r}"
    assert str(total).startswith(metric.name), "str(result) starts with the signature"

    # batch-size invariance: all the data in one update
    one = case.factory()
    one.update(*whole)
    same(one.compute(), total, case.exact_value, "one batch vs several")

    # compute is cached: repeated calls compute the value once
    counter = _CountingFromStats(metric)
    first, second = metric.compute(), metric.compute()
    assert counter.calls == 0, "compute() recomputed a value it had cached"
    same(first, total, case.exact_value, "cached compute")
    assert first is not second, "compute() must return a copy the caller may change"
    # results are copies: changing one touches neither the metric nor the next result
    if first.per_item is not None and first.per_item.numel():
        before = second.per_item.clone()
        first.per_item.zero_() if first.per_item.is_floating_point() else first.per_item.fill_(7)
        assert _identical(metric.compute().per_item, before), "changing a result changed the metric"

    # forward == update + compute
    fresh = case.factory()
    fresh.update(*batches[0])
    first_batch = case.factory().forward(*batches[0])
    same(fresh.compute(), first_batch, case.exact_value, "forward vs update+compute")
    # the next update invalidates the cache: the value is the functional twin on the longer data
    counter = _CountingFromStats(fresh)
    fresh.compute()
    fresh.update(*batches[1])
    longer = fresh.compute()
    assert counter.calls == 1, "compute() after update() did not recompute"
    _vs_twin(longer, case.functional(*case.join(batches[:2])), case, "compute after a new update")

    # reset
    fresh.reset()
    with pytest.raises(EmptyInputError):
        fresh.compute()
    for b in batches:
        fresh.update(*b)
    same(fresh.compute(), total, case.exact_value, "refill after reset")

    # clone is independent both ways; pickle round trip
    original = case.factory()
    for bt in batches:
        original.update(*bt)
    states_before = original.state_dict()
    twin = original.clone()
    twin.update(*batches[0])
    assert _states_equal(original.state_dict(), states_before), "updating a clone changed the original"
    twin_states = twin.state_dict()
    original.update(*batches[1])
    assert _states_equal(twin.state_dict(), twin_states), "updating the original changed its clone"
    _vs_twin(twin.compute(), case.functional(*case.join([*batches, batches[0]])), case, "clone")
    _vs_twin(original.compute(), case.functional(*case.join([*batches, batches[1]])), case, "original")
    same(pickle.loads(pickle.dumps(metric)).compute(), total, case.exact_value, "pickle round trip")

    # state_dict holds exactly the declared states, and reloads
    sd = metric.state_dict()
    assert set(sd) == set(metric.state_specs), f"state_dict keys {sorted(sd)} != states {sorted(metric.state_specs)}"
    loaded = case.factory()
    loaded.load_state_dict(sd)
    same(loaded.compute(), total, case.exact_value, "state_dict reload")

    # merge_state of two halves == the whole
    a, b2 = case.factory(), case.factory()
    for i, bt in enumerate(batches):
        (a if i % 2 == 0 else b2).update(*bt)
    a.merge_state(b2)
    same(a.compute(), total, case.exact_value, "merge_state")
    c = case.factory()
    c.merge_state(loaded.state_dict())
    same(c.compute(), total, case.exact_value, "merge_state(state_dict)")

    # torchmetrics' other two checks, where the case asks for them
    if case.half_atol is not None:
        check_half_precision(case.factory, batches[0], atol=case.half_atol)
    if case.differentiable:
        check_gradient(case.functional, batches[0])

    # world-size invariance
    if ddp_pool is not None:
        for world in (2, 4):
            outs = ddp_pool.run(_ddp_task, world, case.factory, batches)
            for rank, (synced, again, inside, refused, local) in enumerate(outs):
                same(synced, total, case.exact_value, f"world {world}, rank {rank}")
                same(again, total, case.exact_value, f"world {world}, rank {rank}, second compute")
                same(inside, total, case.exact_value, f"world {world}, rank {rank}, inside sync_context")
                assert refused, f"world {world}, rank {rank}: update() inside sync_context() was not refused"
                mine = [batches[i] for i in range(rank, len(batches), world)]
                if mine:
                    ref_local = case.factory()
                    for bt in mine:
                        ref_local.update(*bt)
                    same(local, ref_local.compute(), case.exact_value, f"world {world}, rank {rank}, local")
                else:
                    assert local is None


def _float_tensors(args: Sequence[Any], dtype: torch.dtype) -> tuple[Any, ...]:
    return tuple(a.to(dtype) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args)


def check_half_precision(
    factory: Callable[[], Metric], args: Sequence[Any], *, atol: float, rtol: float = 0.0
) -> MetricResult | None:
    """``factory()`` on ``args`` with every float tensor in float16 against the same values in
    float32: the values (and per-item values) agree within ``atol + rtol * |value|``, or the
    half inputs are refused with an :class:`~transcreval.errors.InputError` that names the
    dtype (returns None then). Returns the float16 result."""
    half = _float_tensors(args, torch.float16)
    single = _float_tensors(half, torch.float32)  # the same numbers: only the dtype differs
    assert any(a is not b for a, b in zip(args, half)), "no float tensor among the inputs"
    try:
        got = factory().forward(*half)
    except InputError as e:
        assert "float16" in str(e) or "dtype" in str(e), f"refused float16 inputs without naming the dtype: {e}"
        return None
    want = factory().forward(*single)
    tol = atol + rtol * abs(float(want.value))
    assert abs(float(got.value) - float(want.value)) <= tol, f"float16 {got.value} vs float32 {want.value} (tol {tol})"
    if isinstance(want.per_item, torch.Tensor) and want.per_item.numel():
        assert isinstance(got.per_item, torch.Tensor)
        diff = (got.per_item.double() - want.per_item.double()).abs().max()
        assert float(diff) <= tol, f"float16 per-item values differ by {float(diff)} (tol {tol})"
    return got


def graph_values(out: Any) -> torch.Tensor | None:
    """The values with an autograd graph in a functional output: the output, the first of a
    tuple, or a MetricResult's ``per_item`` / ``value``; None when none has one."""
    for v in (
        out,
        out[0] if isinstance(out, tuple) and out else None,
        getattr(out, "per_item", None),
        getattr(out, "value", None),
    ):
        if isinstance(v, torch.Tensor) and v.grad_fn is not None:
            return v
    return None


def check_gradient(fn: Callable[..., Any], args: Sequence[Any], wrt: int = 0) -> torch.Tensor:
    """``fn(*args)`` with ``args[wrt]`` (a float tensor) requiring grad: the output's values carry
    an autograd graph, and the gradient of their sum reaching the input is finite and not all
    zero. Returns the gradient."""
    x = args[wrt]
    assert isinstance(x, torch.Tensor) and x.is_floating_point(), "the differentiated input is a float tensor"
    x = x.detach().clone().requires_grad_(True)
    values = graph_values(fn(*args[:wrt], x, *args[wrt + 1 :]))
    assert values is not None, "the values carry no autograd graph (detached, converted to float, or no_grad)"
    values.sum().backward()
    assert x.grad is not None, "no gradient reached the input"
    assert bool(torch.isfinite(x.grad).all()), "the gradient is not finite"
    assert bool(x.grad.abs().sum() > 0), "the gradient is zero everywhere"
    return x.grad


def partial(cls: Callable[..., Metric], **kwargs: Any) -> Callable[..., Metric]:
    """A picklable metric factory with fixed options."""
    return functools.partial(cls, **kwargs)
