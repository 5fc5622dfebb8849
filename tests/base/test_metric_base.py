"""The Metric base, states, sync packing, MetricCollection and results."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
import torch

from transcreval import KOptionScore, MetricCollection, PlanChrF, TitleChrF
from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult, Signature
from transcreval.core.states import Cat, Max, Min, Objects, Sum
from transcreval.errors import EmptyInputError


class Summary(Metric):
    """A toy metric using every state type: sum/count/max/min/values/notes."""

    higher_is_better = None

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.add_state("total", Sum(torch.float64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("hist", Sum(torch.int64, (4,)))
        self.add_state("hi", Max(torch.float64))
        self.add_state("lo", Min(torch.int64))
        self.add_state("values", Cat(torch.float64))
        self.add_state("notes", Objects())

    def _stats(self, x: list[float], notes: list[str] | None = None) -> dict[str, Any]:
        t = torch.tensor(x, dtype=torch.float64)
        return {
            "total": t.sum(),
            "count": t.numel(),
            "hist": torch.bincount(t.long().clamp(0, 3), minlength=4),
            "hi": t.max(),
            "lo": t.long().min(),
            "values": t,
            "notes": notes or [],
        }

    def _from_stats(self, s: dict[str, Any]) -> MetricResult:
        n = int(s["count"])
        if n == 0:
            raise EmptyInputError("empty")
        return MetricResult(
            float(s["total"]) / n,
            n,
            self.signature,
            per_item=s["values"],
            extras={"hi": float(s["hi"]), "lo": int(s["lo"]), "hist": s["hist"].tolist(), "notes": list(s["notes"])},
        )


def _twin_ranks(tensor: torch.Tensor, group: Any) -> list[torch.Tensor]:
    """A fake 2-rank gather: both ranks hold the same state."""
    _twin_ranks.calls += 1  # type: ignore[attr-defined]
    return [tensor.clone(), tensor.clone()]


_twin_ranks.calls = 0  # type: ignore[attr-defined]


def test_states_merge_by_type():
    m = Summary()
    m.update([1.0, 3.0], notes=["a"])
    m.update([0.0, 2.5], notes=["b"])
    r = m.compute()
    assert r.value == pytest.approx(6.5 / 4) and r.n == 4
    assert r.extras["hi"] == 3.0 and r.extras["lo"] == 0 and r.extras["hist"] == [1, 1, 1, 1]
    assert r.per_item.tolist() == [1.0, 3.0, 0.0, 2.5]
    assert r.extras["notes"] == ["a", "b"]


def test_forward_returns_batch_value_and_accumulates():
    m = Summary()
    assert m.forward([4.0]).value == 4.0
    assert m.forward([0.0, 2.0]).value == 1.0
    assert m.compute().value == 2.0
    assert m.update_count == 2


def test_packed_sync_with_custom_gather():
    _twin_ranks.calls = 0
    m = Summary(dist_sync_fn=_twin_ranks, distributed_available_fn=lambda: True)
    m.update([1.0, 3.0], notes=["x"])
    r = m.compute()
    # sums double, max/min stay, Cat rows double, Objects are not synced by default
    assert r.n == 4 and r.value == 2.0 and r.extras["hist"] == [0, 2, 0, 2]
    assert r.extras["hi"] == 3.0 and r.extras["lo"] == 1
    assert r.per_item.tolist() == [1.0, 3.0, 1.0, 3.0]
    assert r.extras["notes"] == ["x"]
    # one gather per (op, dtype): sum/float64, sum/int64, max/float64, min/int64, + Cat sizes + Cat float64,
    # + max/int64 for the signature_check state every metric keeps (transcreval.core.state_checks)
    assert _twin_ranks.calls == 7
    # local value is still available and the local states are untouched
    assert m.compute(sync=False).n == 2


def test_sync_and_unsync():
    m = Summary(dist_sync_fn=_twin_ranks, distributed_available_fn=lambda: True)
    m.update([2.0])
    with m.sync_context():
        assert m.compute(sync=False).n == 2  # states replaced by the synced ones
    assert m.compute(sync=False).n == 1
    with pytest.raises(RuntimeError):
        m.unsync()


def test_no_process_group_means_local():
    m = Summary()
    m.update([1.0])
    assert m.compute().n == 1 and m.synced_state()["count"] == 1


def test_reset_state_dict_and_errors():
    m = Summary()
    with pytest.raises(EmptyInputError):
        m.compute()
    m.update([1.0, 2.0], notes=["n"])
    sd = m.state_dict()
    assert set(sd) == {"total", "count", "hist", "hi", "lo", "values", "notes", "signature_check"}
    other = Summary()
    other.load_state_dict(sd)
    assert other.compute().value == m.compute().value
    with pytest.raises(KeyError, match="missing"):
        other.load_state_dict({"total": 1.0})
    with pytest.raises(TypeError, match="cannot merge"):
        m.merge_state(KOptionScore(k=4))
    with pytest.raises(ValueError, match="already declared"):
        m.add_state("total", Sum())
    with pytest.raises(TypeError):
        m.add_state("bad", "sum")  # type: ignore[arg-type]


def test_clone_and_pickle_drop_nothing_but_process_local_things():
    fn = _twin_ranks
    m = Summary(dist_sync_fn=fn)
    m.update([1.0])
    c = m.clone()
    assert c.dist_sync_fn is fn
    c.update([5.0])
    assert m.compute(sync=False).n == 1 and c.compute(sync=False).n == 2
    p = pickle.loads(pickle.dumps(m))
    assert p.dist_sync_fn is None and p.compute().n == 1


def test_to_device_moves_states():
    m = Summary()
    m.update([1.0])
    m.to("cpu")
    assert m.device == torch.device("cpu")
    if torch.cuda.is_available():  # pragma: no cover - GPU machines only
        m.to("cuda")
        assert all(v.is_cuda for v in m.state_dict().values() if isinstance(v, torch.Tensor))


def test_signature_and_result():
    sig = Signature.make("TitleChrF", {"nc": 6, "eff": True, "b": 2.0})
    assert str(sig).startswith("TitleChrF|nc:6|eff:yes|b:2.0|v:")  # floats print exactly (repr)
    res = MetricResult(41.27, 3, sig)
    assert float(res) == 41.27 and str(res).endswith("= 41.2700")
    assert res.to_dict()["n"] == 3
    with pytest.raises(ValueError, match="NaN"):
        MetricResult(float("nan"), 1, sig)


def test_collection_routes_and_syncs_once():
    _twin_ranks.calls = 0
    kw = {"dist_sync_fn": _twin_ranks, "distributed_available_fn": lambda: True}
    col = MetricCollection({"title": TitleChrF(**kw), "plan": PlanChrF(**kw)}, prefix="mptc/")
    col.update(["Le Voyage"], ["Le voyage"])
    out = col.compute()
    assert set(out) == {"mptc/title", "mptc/plan"}
    assert out["mptc/title"].n == 2  # the fake gather doubles every state
    # all members' states in one packing: sum/float64, sum/int64, Cat sizes, Cat float64,
    # + max/int64 for the members' signature_check states (transcreval.core.state_checks)
    assert _twin_ranks.calls == 5
    assert col["title"].compute().value == out["mptc/title"].value
    col.reset()
    with pytest.raises(EmptyInputError):
        col["plan"].compute(sync=False)


def test_collection_errors():
    with pytest.raises(ValueError):
        MetricCollection([])
    with pytest.raises(ValueError, match="two metrics"):
        MetricCollection([TitleChrF(), TitleChrF()])
    with pytest.raises(TypeError):
        MetricCollection({"x": object()})  # type: ignore[dict-item]


def _collection_task(rank: int, world: int, group: Any, batches: list[tuple[list[str], list[str]]]) -> dict[str, float]:
    col = MetricCollection([TitleChrF(process_group=group), KOptionScore(k=4, process_group=group)])
    for i in range(rank, len(batches), world):
        hyps, refs = batches[i]
        col["TitleChrF"].update(hyps, refs)
        col["KOptionScore"].update([h == r for h, r in zip(hyps, refs)])
    return {k: v.value for k, v in col.compute().items()}


@pytest.mark.ddp
def test_collection_is_world_size_invariant(ddp_pool):
    batches = [(["a", "b c"], ["a", "b"]), (["x"], ["y"]), (["same"], ["same"])]
    single = _collection_task(0, 1, None, batches)
    for world in (2, 4):
        for out in ddp_pool.run(_collection_task, world, batches):
            assert out["KOptionScore"] == single["KOptionScore"]
            assert out["TitleChrF"] == pytest.approx(single["TitleChrF"], abs=1e-12)


def _max_min_task(rank: int, world: int, group: Any) -> tuple[float, int, list[str]]:
    m = Summary(process_group=group, sync_objects=True)
    if rank != world - 1:  # the last rank stays empty
        m.update([float(rank), float(10 * rank)], notes=[f"r{rank}"])
    r = m.compute()
    return r.extras["hi"], r.extras["lo"], r.extras["notes"]


@pytest.mark.ddp
def test_max_min_objects_under_gloo(ddp_pool):
    for world in (2, 4):
        outs = ddp_pool.run(_max_min_task, world)
        expected_hi = 10.0 * (world - 2)
        notes = [f"r{r}" for r in range(world - 1)]
        assert all(o == (expected_hi, 0, notes) for o in outs)
