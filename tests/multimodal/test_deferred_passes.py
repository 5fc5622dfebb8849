"""Deferred network passes of the open_clip embedding metrics (transcreval.core.held_calls).

``update`` outside a collection converts and checks its inputs, holds them, and runs the tower
on the held calls together. Every test compares with the same calls made without deferral
(each ``update`` inside a ``feature_scope``, where the metric never defers): the states must be
equal bit for bit, whatever path reads them."""

from __future__ import annotations

import copy
import pickle

import pytest
import torch

from tests._helpers.model_weights import (
    TINY_CLIP,
    clip_metric,
    poster_like,
    tiny_clip_checkpoint,
    tiny_siglip_dir,
    tiny_tokenizer_dir,
)
from transcreval.errors import EmptyInputError, HeldCallsError, InputError
from transcreval.features.clip_models import CLIPEncoder, get_clip
from transcreval.features.extractor import feature_scope
from transcreval.features.images import chunk_rows
from transcreval.utils.threads import default_threads

CLS = "transcreval.multimodal.embedding_similarity."
KIND = {
    "CLIPSimilarity": "clip",
    "VisualSimilarity": "siglip",
    "CulturalRelevanceDelta": "siglip",
    "SemanticEquivalence": "siglip",
}
NAMES = list(KIND)
SIZES = (1, 1, 2, 1, 3, 1)  # items per update call


def _metric(name, **kw):
    return clip_metric(CLS + name, tiny=KIND[name], **kw)


def _encoder(name, preprocess="open_clip"):
    if KIND[name] == "clip":
        return get_clip(TINY_CLIP, tiny_clip_checkpoint(), preprocess=preprocess)
    return get_clip(tiny_siglip_dir(), tokenizer=tiny_tokenizer_dir(), preprocess=preprocess)


def _calls(name, sizes=SIZES, seed=10):
    """One tuple of update arguments per call; calls alternate between two image sizes."""
    out = []
    for k, n in enumerate(sizes):
        w, h = (70, 52) if k % 2 == 0 else (40, 90)
        p = list(poster_like(n, w, h, seed=seed + 2 * k))
        s = list(poster_like(n, w, h, seed=seed + 2 * k + 1, shift=0.1))
        if name in ("CLIPSimilarity", "VisualSimilarity"):
            out.append((p, s))
        elif name == "CulturalRelevanceDelta":
            out.append((p, s, [("india", "japan", "brazil")[(k + i) % 3] for i in range(n)]))
        else:
            out.append((p, [("food", "mammal", "beverage")[(k + i) % 3] for i in range(n)]))
    return out


def _joined(calls):
    return tuple([x for c in calls for x in c[i]] for i in range(len(calls[0])))


def _deferred(name, calls, **kw):
    m = _metric(name, **kw)
    for c in calls:
        m.update(*c)
    return m


def _one_by_one(name, calls, **kw):
    """The same calls without deferral (a metric never defers inside a feature scope)."""
    m = _metric(name, **kw)
    for c in calls:
        with feature_scope():
            m.update(*c)
    return m


def _assert_same_states(got, want):
    assert got.keys() == want.keys()
    for k in want:
        if isinstance(want[k], torch.Tensor):
            assert torch.equal(got[k], want[k]), k
        else:
            assert got[k] == want[k], k


@pytest.mark.parametrize("preprocess", ["open_clip", "tensor"])
@pytest.mark.parametrize("name", NAMES)
def test_deferred_updates_equal_one_by_one_and_one_batch(name, preprocess):
    calls = _calls(name)
    stats = _encoder(name, preprocess).extractor.stats
    stats.reset()
    m = _deferred(name, calls, preprocess=preprocess)
    assert stats.images_computed == 0  # held: the network has not run
    assert m.update_count == len(calls)
    ref = _one_by_one(name, calls, preprocess=preprocess)
    _assert_same_states(m.state_dict(), ref.state_dict())
    got, want = m.compute(), ref.compute()
    assert got.value == want.value and torch.equal(got.per_item, want.per_item)
    batch = _metric(name, preprocess=preprocess)
    batch.update(*_joined(calls))
    assert torch.equal(batch.compute().per_item, got.per_item)
    assert m.update_count == ref.update_count == len(calls)


def test_held_calls_run_when_they_fill_a_chunk_per_worker():
    enc = _encoder("CLIPSimilarity")
    limit = enc.pass_rows()
    assert limit == chunk_rows(enc.net, "cpu") * default_threads()
    calls = _calls("CLIPSimilarity", sizes=(1,) * (limit + 1))
    m = _metric("CLIPSimilarity")
    enc.extractor.stats.reset()
    for c in calls[: limit - 1]:
        m.update(*c)
    assert enc.extractor.stats.images_computed == 0
    m.update(*calls[limit - 1])  # the held rows reach the limit: one pass over both image inputs
    assert enc.extractor.stats.images_computed == 2 * limit
    assert enc.extractor.stats.forward_passes == 1
    m.update(*calls[limit])
    assert enc.extractor.stats.images_computed == 2 * limit
    _assert_same_states(m.state_dict(), _one_by_one("CLIPSimilarity", calls).state_dict())


def test_full_size_tensor_inputs_run_one_pass_per_input():
    """preprocess="tensor" holds images at full size: joining preds and target in one pass would
    double the peak memory, so each input runs its own pass (states as one by one all the same)."""
    enc = _encoder("CLIPSimilarity", preprocess="tensor")
    calls = _calls("CLIPSimilarity", sizes=(2, 2))[:1]  # one image size
    m = _metric("CLIPSimilarity", preprocess="tensor")
    enc.extractor.stats.reset()
    m.update(*calls[0])
    m.compute()
    assert enc.extractor.stats.forward_passes == 2 and enc.extractor.stats.images_computed == 4
    _assert_same_states(m.state_dict(), _one_by_one("CLIPSimilarity", calls, preprocess="tensor").state_dict())


@pytest.mark.parametrize("name", NAMES)
def test_bad_input_raises_at_update_and_keeps_nothing(name):
    good = _calls(name, sizes=(2, 1))
    bad = list(good[0])
    bad[1] = bad[1][:1]  # one item too few in the second input
    m = _metric(name)
    m.update(*good[0])
    with pytest.raises(InputError, match="one per"):
        m.update(*bad)
    with pytest.raises(InputError, match="outside"):
        m.update(*([torch.full((3, 8, 8), 3.0)], *good[1][1:]))
    m.update(*good[1])
    assert m.update_count == 2
    _assert_same_states(m.state_dict(), _one_by_one(name, good).state_dict())


def test_failed_pass_keeps_the_held_calls(monkeypatch):
    calls = _calls("CLIPSimilarity")
    m = _deferred("CLIPSimilarity", calls)

    def broken(*args, **kwargs):
        raise RuntimeError("out of memory (simulated)")

    with monkeypatch.context() as patch:
        patch.setattr(CLIPEncoder, "embeddings_of", broken)
        with pytest.raises(HeldCallsError, match=r"6 held update call\(s\) failed .*still held") as err:
            m.compute()
        assert isinstance(err.value.__cause__, RuntimeError)
        with pytest.raises(HeldCallsError):
            m.state_dict()
    assert m.update_count == len(calls)
    _assert_same_states(m.state_dict(), _one_by_one("CLIPSimilarity", calls).state_dict())


def test_a_failed_pass_before_a_collection_update_leaves_every_member_unchanged(monkeypatch):
    """The held calls run before the new batch is computed: when their pass fails, no member of
    the collection takes the batch (all or none)."""
    from transcreval.core.collection import MetricCollection

    calls = _calls("CLIPSimilarity", sizes=(1, 1, 2))
    first, second = _metric("CLIPSimilarity"), _deferred("CLIPSimilarity", calls[:2])
    coll = MetricCollection({"first": first, "second": second})
    real = CLIPEncoder.embeddings_of

    def fails_on_held(self, many, **kw):
        if len(many) > 1:
            raise RuntimeError("simulated failure of the held pass")
        return real(self, many, **kw)

    with monkeypatch.context() as patch:
        patch.setattr(CLIPEncoder, "embeddings_of", fails_on_held)
        with pytest.raises(HeldCallsError):
            coll.update(*calls[2])
        with pytest.raises(HeldCallsError):
            second.forward(*calls[2])
    assert first.update_count == 0 and second.update_count == 2
    coll.update(*calls[2])
    _assert_same_states(second.state_dict(), _one_by_one("CLIPSimilarity", calls).state_dict())
    _assert_same_states(first.state_dict(), _one_by_one("CLIPSimilarity", calls[2:]).state_dict())


def test_reset_drops_the_held_calls():
    stats = _encoder("VisualSimilarity").extractor.stats
    m = _deferred("VisualSimilarity", _calls("VisualSimilarity"))
    stats.reset()
    m.reset()
    with pytest.raises(EmptyInputError):
        m.compute()
    assert stats.images_computed == 0 and m.update_count == 0


def _sync_kw():
    return {"dist_sync_fn": lambda t, group: [t.clone(), t.clone()], "distributed_available_fn": lambda: True}


STATE_PATHS = ["compute", "state_dict", "pickle", "deepcopy", "clone", "load_state_dict", "merge_state", "sync", "to"]


@pytest.mark.parametrize("path", STATE_PATHS)
@pytest.mark.parametrize("name", ["CLIPSimilarity", "CulturalRelevanceDelta"])
def test_every_state_read_sees_the_held_calls(name, path):
    calls = _calls(name)
    ref = _one_by_one(name, calls)
    want = ref.state_dict()
    m = _deferred(name, calls[:3] if path == "merge_state" else calls)
    if path == "compute":
        got, exp = m.compute(), ref.compute()
        assert got.value == exp.value and torch.equal(got.per_item, exp.per_item)
        return
    if path == "state_dict":
        out = m
    elif path == "pickle":
        out = pickle.loads(pickle.dumps(m))
    elif path == "deepcopy":
        out = copy.deepcopy(m)
    elif path == "clone":
        out = m.clone()
    elif path == "load_state_dict":  # the loaded states replace what a fresh metric holds
        out = _deferred(name, _calls(name, sizes=(2,), seed=90))
        out.load_state_dict(m.state_dict())
    elif path == "merge_state":  # both sides hold calls: the merged states keep call order
        out = m
        out.merge_state(_deferred(name, calls[3:]))
    elif path == "to":
        out = m.to("cpu")
    else:
        ref, m = _one_by_one(name, calls, **_sync_kw()), _deferred(name, calls, **_sync_kw())
        ref.sync()
        m.sync()
        _assert_same_states(m.state_dict(), ref.state_dict())
        ref.unsync()
        m.unsync()
        assert m.compute().value == ref.compute().value  # a syncing compute
        _assert_same_states(m.state_dict(), want)
        return
    _assert_same_states(out.state_dict(), want)
    if path == "merge_state":  # update_count counts this object's own calls; merging adds none
        assert out.update_count == 3
    elif path != "load_state_dict":
        assert out.update_count == len(calls)


@pytest.mark.parametrize("name", NAMES)
def test_forward_and_collections_run_the_held_calls_first(name):
    from transcreval.core.collection import MetricCollection

    calls = _calls(name, sizes=(1, 2, 1, 1))
    m = _deferred(name, calls[:2])
    batch = m.forward(*calls[2])  # not deferred: its own value, after the held calls in the states
    assert batch.value == _one_by_one(name, calls[2:3]).compute().value
    coll = MetricCollection([m])
    stats = _encoder(name).extractor.stats
    stats.reset()
    coll.update(*calls[3])  # inside the collection's feature scope: runs now
    assert stats.images_computed > 0
    _assert_same_states(m.state_dict(), _one_by_one(name, calls).state_dict())


def test_updates_inside_a_feature_scope_run_now_and_share():
    """Inside a feature scope (a collection's, or one the caller opens) nothing is held: the
    metrics updated there share the converted inputs and the tower's results."""
    vs, se = _metric("VisualSimilarity"), _metric("SemanticEquivalence")
    p, s = _calls("VisualSimilarity", sizes=(3,))[0]
    stats = _encoder("VisualSimilarity").extractor.stats
    stats.reset()
    with feature_scope():
        vs.update(p, s)
        se.update(p, "food")
        assert stats.images_computed == len(p) + len(s)  # at once, and preds' embeddings shared
    assert stats.scope_hits == 1


def test_a_refilled_input_buffer_does_not_change_a_held_call():
    """A held call keeps converted copies, never the caller's buffer."""
    buf = torch.stack(list(poster_like(2, 40, 40, seed=3))).float() / 255
    other = torch.stack(list(poster_like(2, 40, 40, seed=4))).float() / 255
    ref = _one_by_one("CLIPSimilarity", [(buf.clone(), other.clone())], preprocess="tensor")
    m = _metric("CLIPSimilarity", preprocess="tensor")
    m.update(buf, other)
    buf.fill_(0.5)
    other.fill_(0.25)
    _assert_same_states(m.state_dict(), ref.state_dict())


def test_to_runs_the_held_calls_where_they_were_made():
    """``to(device)`` runs the held calls on the device they were made on, then moves the states."""
    calls = _calls("CLIPSimilarity", sizes=(1, 2))
    m = _deferred("CLIPSimilarity", calls)
    stats = _encoder("CLIPSimilarity").extractor.stats
    stats.reset()
    m.to("meta")
    assert stats.images_computed == 6  # on the CPU tower
    assert m.device.type == "meta" and m.update_count == 2
