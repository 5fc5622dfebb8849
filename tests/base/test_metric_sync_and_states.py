"""The Metric base hardened: one test per defect found in review, each failing before its fix.

Sync discipline, collection routing and sync groups, aliasing, atomic forward, Objects sync,
devices, metadata states, strict state input, class == function, scale, and the new-user
findings (argument names, malformed values, options validated at construction, one result type).
"""

from __future__ import annotations

import gc
import json
import warnings
from typing import Any

import numpy as np
import pytest
import torch

from transcreval import (
    MetricCollection,
    OCRRobustnessGap,
    OverallRatingSimilarity,
    SegmentKendallTau,
    SpearmanRho,
    TitleChrF,
    WordRecall,
)
from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.core.states import Cat, Max, Min, Objects, Sum
from transcreval.errors import InputError, SyncError, UndefinedValueWarning
from transcreval.functional import overall_rating_similarity, spearman_rho


def _twin_ranks(tensor: torch.Tensor, group: Any) -> list[torch.Tensor]:
    """A fake 2-rank gather: both ranks hold the same state."""
    return [tensor.clone(), tensor.clone()]


def _triple_ranks(tensor: torch.Tensor, group: Any) -> list[torch.Tensor]:
    return [tensor.clone(), tensor.clone(), tensor.clone()]


TWIN = {"dist_sync_fn": _twin_ranks, "distributed_available_fn": lambda: True}


# ------------------------------------------------------------------ 1. double sync
def _double_sync_task(rank: int, world: int, group: Any) -> tuple[int, int, int, bool, bool]:
    m = TitleChrF(process_group=group)
    m.update(["Le Voyage"], ["Le voyage"])  # one example per rank
    m.sync()
    inside_sync = m.compute().n
    m.unsync()
    with m.sync_context():
        inside_ctx = m.compute().n
        try:
            m.update(["x"], ["y"])
        except RuntimeError:
            update_refused = True
        else:
            update_refused = False
    after = m.compute().n
    m.sync()
    try:
        m.sync()
    except RuntimeError:
        resync_refused = True
    else:
        resync_refused = False
    m.unsync()
    return inside_sync, inside_ctx, after, update_refused, resync_refused


@pytest.mark.ddp
def test_compute_inside_sync_does_not_sync_twice(ddp_pool):
    for world in (2, 4):
        for out in ddp_pool.run(_double_sync_task, world):
            assert out == (world, world, world, True, True)


def test_update_while_synced_is_refused_not_lost():
    m = TitleChrF(**TWIN)
    m.update(["a"], ["a"])
    with m.sync_context():
        with pytest.raises(RuntimeError, match="synced"):
            m.update(["b"], ["b"])
        with pytest.raises(RuntimeError, match="synced"):
            m.forward(["b"], ["b"])
        with pytest.raises(RuntimeError, match="synced"):
            m.merge_state(TitleChrF())
        assert m.compute().n == 2  # the synced states, used as they are
    assert m.compute(sync=False).n == 1


# ------------------------------------------------------------------ 2. collection routing
def test_collection_routes_keywords_by_update_signature():
    preds = ["Grand Budapest", "Le voyage de Chihiro"]
    target = ["Grand Budapest Hotel", "Le Voyage de Chihiro"]
    col = MetricCollection({"wr": WordRecall(), "chrf": TitleChrF()})
    col.update(preds=preds, target=target)
    res = col.compute()
    # GrandBudapestHotel: units Grand|Budap|estHo|tel, 2 of 4 found; LeVoyagedeChihiro:
    # LeVoy|agede|Chihi|ro, 3 of 4 (the output has "Levoy"). With the arguments swapped
    # (reference taken for the output) it would be (1 + 3/4) / 2.
    assert res["wr"].value == pytest.approx((2 / 4 + 3 / 4) / 2)
    with pytest.raises(TypeError, match="'split'"):
        col.update(preds=preds, target=target, split=["simple", "hard"])
    # a keyword goes only to the members that take it
    col2 = MetricCollection({"wr": WordRecall(), "gap": OCRRobustnessGap()})
    col2.update(preds=preds, target=target, split=["simple", "hard"])
    assert col2.compute()["gap"].extras["simple_wr"] == pytest.approx(0.5)
    # update is atomic: a member that rejects the batch leaves every member as it was
    before = {k: m.state_dict() for k, m in col2.items()}
    with pytest.raises(InputError):
        col2.update(preds=preds, target=target, split=["simple", "medium"])
    for k, m in col2.items():
        assert all(torch.equal(a, b) for a, b in zip(before[k].values(), m.state_dict().values()) if torch.is_tensor(a))


def test_wrong_keyword_names_the_public_method():
    with pytest.raises(TypeError, match=r"TitleChrF\.update\(preds.*'hyps'"):
        TitleChrF().update(hyps=["a"], refs=["a"])
    import inspect

    assert list(inspect.signature(TitleChrF().update).parameters) == ["preds", "target"]
    assert list(inspect.signature(OCRRobustnessGap().forward).parameters) == ["preds", "target", "split"]
    assert "preds" in (TitleChrF.update.__doc__ or "")


# ------------------------------------------------------------------ 3. collection sync groups
def test_collection_syncs_members_with_their_own_settings():
    calls = {"twin": 0, "triple": 0}

    def twin(t: torch.Tensor, g: Any) -> list[torch.Tensor]:
        calls["twin"] += 1
        return _twin_ranks(t, g)

    def triple(t: torch.Tensor, g: Any) -> list[torch.Tensor]:
        calls["triple"] += 1
        return _triple_ranks(t, g)

    avail = {"distributed_available_fn": lambda: True}
    col = MetricCollection(
        {"a": TitleChrF(dist_sync_fn=twin, **avail), "b": PlanChrFLike(dist_sync_fn=triple, **avail)}
    )
    col.update(["Le Voyage"], ["Le voyage"])
    out = col.compute()
    assert out["a"].n == 2 and out["b"].n == 3  # each member gathered by its own function
    assert calls["twin"] > 0 and calls["triple"] > 0


class PlanChrFLike(TitleChrF):
    pass


# ------------------------------------------------------------------ 4. aliasing
def test_states_never_alias_the_callers_buffers():
    m = SpearmanRho()
    x, y = np.empty(3), np.empty(3)
    for batch in ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]):
        x[:] = batch
        y[:] = batch[::-1]
        m.update(x, y)
    assert m.state_dict()["preds"].tolist() == [1, 2, 3, 4, 5, 6]
    t = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    m2 = SpearmanRho()
    m2.update(t, t.flip(0))
    t.zero_()
    assert m2.state_dict()["preds"].tolist() == [1, 2, 3]
    res = m2.compute()
    # the way out: a result is the caller's to change
    w = WordRecall()
    w.update(["abcde"], ["abcde"])
    r = w.compute()
    r.per_item.zero_()
    assert w.compute().per_item.tolist() == [1.0] and w.state_dict()["values"].tolist() == [1.0]
    assert res.value == pytest.approx(-1.0)


class PassThrough(Metric):
    """A metric whose statistics are the caller's own arrays (the base must copy them)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.add_state("values", Cat(torch.float64))
        self.add_state("total", Sum(torch.float64, (3,)))

    def _stats(self, preds: Any) -> dict[str, Any]:
        return {"values": preds, "total": preds}

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return MetricResult(float(stats["total"].sum()), int(stats["values"].numel()), self.signature)


@pytest.mark.parametrize("kind", ["numpy", "tensor"])
def test_the_base_copies_statistics_that_share_the_callers_memory(kind):
    m = PassThrough()
    buf = np.zeros(3) if kind == "numpy" else torch.zeros(3, dtype=torch.float64)
    for batch in ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]):
        buf[:] = torch.tensor(batch) if kind == "tensor" else batch
        m.update(buf)
    buf[:] = 0
    assert m.state_dict()["values"].tolist() == [1, 2, 3, 4, 5, 6]
    assert m.compute().value == 21.0


def test_state_dict_and_merge_state_do_not_share_memory():
    a = WordRecall()
    a.update(["abcde"], ["abcde"])
    sd = a.state_dict()
    b = WordRecall()
    b.load_state_dict(sd)
    sd["values"].zero_()
    assert b.compute().per_item.tolist() == [1.0]
    c = WordRecall()
    c.merge_state(b)
    b.state_dict()  # no handle on b's storage can reach c
    assert c.compute().per_item.tolist() == [1.0]


# ------------------------------------------------------------------ 5. atomic forward
def test_forward_on_an_undefined_batch_is_flagged_and_accumulated():
    m = SpearmanRho()
    with pytest.warns(UndefinedValueWarning, match="undefined"):
        r = m.forward([1.0], [2.0])  # one pair: rho is undefined
    assert r.defined is False and np.isnan(r.value) and r.n == 0 and "2 pairs" in r.extras["undefined"]
    assert "undefined" in str(r)
    m.forward([2.0, 3.0], [1.0, 5.0])
    assert m.compute().n == 3  # the first batch was accumulated
    g = OCRRobustnessGap()
    with pytest.warns(UndefinedValueWarning):
        assert g.forward(["abc"], ["abc"], ["simple"]).defined is False
    g.update(["abc"], ["abd"], ["hard"])
    assert g.compute().value == pytest.approx(1.0)


def test_forward_with_bad_input_merges_nothing():
    m = OCRRobustnessGap()
    m.update(["abc"], ["abc"], ["simple"])
    before = m.state_dict()
    with pytest.raises(InputError):
        m.forward(["abc", "x"], ["abc", "x"], ["simple", "medium"])
    after = m.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    col = MetricCollection({"wr": WordRecall(), "gap": OCRRobustnessGap()})
    with pytest.raises(InputError):
        col.forward(preds=["a"], target=["a"], split=["medium"])
    assert col["wr"].update_count == 0


def test_undefined_result_is_only_for_forward():
    with pytest.raises(ValueError, match="NaN"):
        MetricResult(float("nan"), 1, SpearmanRho().signature)
    with pytest.raises(InputError):
        spearman_rho([1.0], [2.0])


# ------------------------------------------------------------------ 6. objects sync
class Notes(Metric):
    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.add_state("count", Sum(torch.int64))
        self.add_state("notes", Objects())
        self.add_state("names", Objects(sync=True))

    def _stats(self, preds: list[str]) -> dict[str, Any]:
        return {"count": len(preds), "notes": list(preds), "names": [p.upper() for p in preds]}

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return MetricResult(int(stats["count"]), int(stats["count"]), self.signature, extras=dict(stats))


def test_objects_sync_uses_dist_sync_fn_without_a_process_group():
    m = Notes(sync_objects=True, **TWIN)
    m.update(["a", "b"])
    r = m.compute()
    assert r.extras["notes"] == ["a", "b", "a", "b"] and r.extras["names"] == ["A", "B", "A", "B"]
    m2 = Notes(**TWIN)  # only the Objects state declared sync=True travels by default
    m2.update(["a"])
    assert m2.compute().extras["notes"] == ["a"] and m2.compute().extras["names"] == ["A", "A"]


def test_sync_without_any_process_group_is_a_clear_error():
    m = Notes(distributed_available_fn=lambda: True)
    m.update(["a"])
    with pytest.raises(SyncError, match="init_process_group"):
        m.compute()


# ------------------------------------------------------------------ 7. devices
def test_to_moves_every_state_including_the_saved_unsynced_ones():
    m = SpearmanRho(**TWIN)
    m.update([1.0, 2.0], [2.0, 1.0])
    m.sync()
    m.to("meta")  # a device every machine has: the states must follow it
    assert m.device.type == "meta"
    assert all(t.device.type == "meta" for v in m._state.values() for t in (v if isinstance(v, list) else [v]))
    assert m._unsynced is not None
    assert all(t.device.type == "meta" for v in m._unsynced.values() for t in (v if isinstance(v, list) else [v]))
    m.unsync()
    assert all(t.device.type == "meta" for t in m._state["preds"])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (the meta-device test runs everywhere)")
def test_cuda_states_sync_and_compute_on_the_device():  # pragma: no cover - GPU machines only
    m = SpearmanRho(**TWIN).to("cuda")
    m.update([1.0, 2.0, 3.0], [1.0, 3.0, 2.0])
    synced = m.synced_state()
    assert synced["preds"].is_cuda and synced["target"].is_cuda
    assert m.compute().value == pytest.approx(0.5)
    from transcreval import SeparabilityAUC

    a = SeparabilityAUC().to("cuda")
    a.update([0.1, 0.9], [0, 1])
    assert a.compute().value == 1.0


# ------------------------------------------------------------------ 8. metadata as states
def test_segment_names_survive_merge_load_and_reset():
    m = SegmentKendallTau()
    m.update([1, 2, 3, 3, 2, 1], [1, 2, 3, 1, 2, 3], ["a", "a", "a", "b", "b", "b"], ["India", "India"] * 3)
    other = SegmentKendallTau()
    other.merge_state(m)
    assert set(other.compute().extras["per_group"]) == {"India"}
    loaded = SegmentKendallTau()
    loaded.load_state_dict(m.state_dict())
    assert set(loaded.compute().extras["per_group"]) == {"India"}
    m.reset()
    assert m.state_dict()["names"] == []


def _segment_names_task(rank: int, world: int, group: Any) -> dict[str, float]:
    m = SegmentKendallTau(process_group=group)
    country = ["India", "Japan", "Brazil", "Nigeria"][rank]
    m.update([1, 2, 3], [1, 3, 2], [f"img{rank}"] * 3, [country] * 3)
    return dict(m.compute().extras["per_group"])


@pytest.mark.ddp
def test_segment_group_names_are_the_same_on_every_rank(ddp_pool):
    for world in (2, 4):
        outs = ddp_pool.run(_segment_names_task, world)
        assert all(o == outs[0] for o in outs)
        assert set(outs[0]) == set(["India", "Japan", "Brazil", "Nigeria"][:world])


# ------------------------------------------------------------------ 9. strict state input
def test_merge_state_mapping_is_strict():
    m = WordRecall()
    with pytest.raises(KeyError, match="missing"):
        m.merge_state({"total": torch.tensor(1.0)})
    full = WordRecall().state_dict()
    with pytest.raises(KeyError, match="unexpected"):
        m.merge_state({**full, "extra": torch.tensor(1)})


def test_integer_states_refuse_fractions_and_bool_max_min_work():
    with pytest.raises(InputError, match="whole numbers"):
        Sum(torch.int64).coerce(2.7, None)
    assert Sum(torch.int64).coerce(3.0, None).item() == 3
    with pytest.raises(ValueError, match="bool"):
        Sum(torch.bool)

    class Flags(Metric):
        def __init__(self, **kw: Any) -> None:
            super().__init__(**kw)
            self.add_state("any", Max(torch.bool))
            self.add_state("all", Min(torch.bool))

        def _stats(self, preds: list[bool]) -> dict[str, Any]:
            t = torch.tensor(preds, dtype=torch.bool)
            return {"any": t.any(), "all": t.all()}

        def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
            return MetricResult(float(stats["any"]), 1, self.signature, extras={"all": bool(stats["all"])})

    f = Flags()
    f.update([False, False])
    assert f.compute().value == 0.0 and f.compute().extras["all"] is False
    f.update([True])
    assert f.compute().value == 1.0
    g = Flags(**TWIN)
    g.update([True, True])
    assert g.compute().extras["all"] is True  # bool states travel through the packed sync


# ------------------------------------------------------------------ 10. class == function
def test_code_mode_rating_similarity_agrees_when_nothing_is_readable():
    answers, human = ["n/a", "??"], [3, 4]
    fn = overall_rating_similarity(answers, human, mode="posteriq-code")
    m = OverallRatingSimilarity(mode="posteriq-code")
    m.update(answers, human)
    assert m.compute().value == fn.value == 0.0


# ------------------------------------------------------------------ 19. one result type
def test_stat_functions_and_classes_return_the_same_result_type():
    f = spearman_rho([1, 2, 3, 4], [1, 3, 2, 4], bootstrap=50, seed=1)
    m = SpearmanRho(bootstrap=50, seed=1)
    m.update([1, 2, 3, 4], [1, 3, 2, 4])
    c = m.compute()
    assert isinstance(f, MetricResult) and isinstance(c, MetricResult)
    assert f.value == c.value and f.extras == c.extras
    w = WordRecall()
    w.update(["abcdefghij"], ["abcdeXXXXX"])
    d = json.loads(json.dumps(w.compute().to_dict()))
    assert (
        d["per_item"] == [0.5]
        and d["extras"] == {"n_unparsable": 0, "item_status": ["ok"]}
        and d["signature"].startswith("WordRecall")
    )
    assert json.dumps(c.to_dict())  # tuples (the interval) and nested dicts serialise too


# ------------------------------------------------------------------ 21. the package surface
def test_dir_shows_only_public_names_and_python_m_works():
    import subprocess
    import sys

    import transcreval

    assert all(not n.startswith("_") or n == "__version__" for n in dir(transcreval))
    assert not {"annotations", "importlib", "TYPE_CHECKING", "Any"} & set(dir(transcreval))
    out = subprocess.run([sys.executable, "-m", "transcreval", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("transcreval ")


def test_truncated_png_does_not_leak_its_file_handle(tmp_path):
    from PIL import Image

    from transcreval.errors import ImageDecodeError
    from transcreval.io import open_image

    p = tmp_path / "t.png"
    Image.new("RGB", (64, 64), (200, 10, 10)).save(p)
    p.write_bytes(p.read_bytes()[:60])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        with pytest.raises(ImageDecodeError):
            open_image(p)
        gc.collect()


def test_segment_ids_equal_in_python_are_one_segment_for_class_and_function():
    from transcreval.functional import segment_kendall_tau

    preds, target = [1.0, 2.0, 3.0, 3.0, 1.0, 2.0], [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]
    segs = [1, 1.0, np.int64(1), "b", "b", "b"]
    m = SegmentKendallTau()
    m.update(preds, target, segs)
    assert m.compute().n == segment_kendall_tau(preds, target, segs).n == 2


# ------------------------------------------------------------------ found in review
def test_calling_a_metric_dispatches_to_its_own_forward():
    calls = []

    class Logged(WordRecall):
        def forward(self, *args: Any, **kwargs: Any) -> MetricResult:
            calls.append("forward")
            return super().forward(*args, **kwargs)

    m = Logged()
    m(["abcde"], ["abcde"])
    assert calls == ["forward"]
    col = MetricCollection({"wr": Logged()})
    col(preds=["abcde"], target=["abcde"])
    assert len(calls) == 1  # the collection calls the member's batch pieces, atomically


def test_qwk_rejects_out_of_scale_ratings_at_update_and_keeps_its_data():
    from transcreval import QuadraticWeightedKappa

    m = QuadraticWeightedKappa(labels=[1, 2, 3])
    m.update([1, 2, 3], [1, 3, 3])
    with pytest.raises(InputError, match="not among the labels"):
        m.update([5], [1])
    assert m.compute().n == 3


def test_reset_inside_sync_context_and_load_state_dict_while_synced():
    m = WordRecall(**TWIN)
    m.update(["abcde"], ["abcde"])
    sd = m.state_dict()
    with m.sync_context():
        with pytest.raises(RuntimeError, match="synced"):
            m.load_state_dict(sd)
        m.reset()
    assert not m.is_synced and m.update_count == 0


def test_unpicklable_travelling_objects_fail_at_update_on_their_own_rank():
    m = Notes(**TWIN)
    with pytest.raises(InputError, match="pickled"):
        m._merge(m._canonical({"count": 1, "notes": [], "names": [lambda: 0]}))
    m2 = Notes(**TWIN)
    m2.update(["ok"])  # plain strings travel fine
    assert m2.compute().extras["names"] == ["OK", "OK"]


def test_merge_state_refuses_a_metric_built_with_other_options():
    a, b = WordRecall(), WordRecall(mode="posteriq-code", unit=3)
    b.update(["abc"], ["abc"])
    with pytest.raises(TypeError, match="options differ"):
        a.merge_state(b)
    with pytest.raises(TypeError, match="options differ"):
        TitleChrF().merge_state(TitleChrF(lowercase=True))


def test_state_values_out_of_range_or_shape_are_input_errors():
    for bad in (1e19, 2.0**63, 2**63, 1 + 0j):
        with pytest.raises(InputError):
            Sum(torch.int64).coerce(bad, None)
    with pytest.raises(InputError, match="shape"):
        Cat(torch.float64).coerce(torch.zeros(2, 3), None)
    assert Cat(torch.float64, (3,)).coerce(torch.zeros(2, 3), None).shape == (2, 3)
    assert Cat(torch.float64, (3,)).coerce(torch.zeros(3), None).shape == (1, 3)


def test_segment_names_table_does_not_grow_with_updates_and_errors_name_segments():
    m = SegmentKendallTau()
    for i in range(200):
        m.update([1.0, 2.0], [1.0, 2.0], [f"s{i % 5}"] * 2, ["India"] * 2)
    assert len(m.state_dict()["names"]) == 6  # five segments and one group, each once
    bad = SegmentKendallTau()
    bad.update([1, 2], [1, 2], ["s", "s"], ["x", "y"])
    with pytest.raises(InputError, match="segment 's' appears in two groups"):
        bad.compute()
    with pytest.raises(InputError, match="hashable"):
        SegmentKendallTau().update([1], [1], [["not", "hashable"]])


def test_degenerate_data_is_undefined_not_empty():
    from transcreval import FontSizeStability
    from transcreval.errors import EmptyInputError, UndefinedValueError

    f = FontSizeStability()
    f.update(["abcde"], ["abcde"], [20])
    with pytest.raises(UndefinedValueError) as e:
        f.compute()
    assert not isinstance(e.value, EmptyInputError)
    g = OCRRobustnessGap()
    g.update(["abcde"], ["abcde"], ["simple"])
    with pytest.raises(UndefinedValueError) as e2:
        g.compute()
    assert not isinstance(e2.value, EmptyInputError)
    with pytest.raises(EmptyInputError):
        OCRRobustnessGap().compute()


def test_inputs_that_used_to_give_raw_errors():
    from transcreval.functional import box_recall_rate

    with pytest.raises(InputError, match="one-dimensional"):
        spearman_rho(np.array([[1, 2], [3, 4]]), np.array([[1, 2], [4, 3]]))
    with pytest.raises(InputError, match="meta"):
        spearman_rho(torch.empty(3, device="meta"), torch.empty(3, device="meta"))
    for answer in ([7], {"score": 7}, 3 + 1j):
        with pytest.raises(InputError, match="a score must be"):
            overall_rating_similarity([answer, 5], [1, 2])
    assert box_recall_rate([np.int64(1)], [np.int64(2)]).value == 0.5


def test_to_dict_turns_numpy_and_torch_non_finite_scalars_into_json_values():
    r = MetricResult(1.0, 1, SpearmanRho().signature, extras={"a": np.float64("nan"), "b": torch.tensor(float("inf"))})
    d = r.to_dict()
    assert d["extras"] == {"a": None, "b": "inf"}
    json.dumps(d, allow_nan=False)
