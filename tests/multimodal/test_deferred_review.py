"""Review probes of the deferred passes (transcreval.core.held_calls): a failing pass must leave the
metric exactly as it was, whatever raised and whichever method started the pass (the first two
from the review branch, 8196567)."""

from __future__ import annotations

import pytest

from tests.multimodal.test_deferred_passes import _assert_same_states, _calls, _deferred, _encoder, _metric, _one_by_one
from transcreval.core import held_calls
from transcreval.errors import HeldCallsError
from transcreval.features.clip_models import CLIPEncoder


def _failing_pass(monkeypatch, error):
    """Make the held pass raise ``error`` until the returned switch is turned off."""
    real = CLIPEncoder.embeddings_of
    fail = {"on": True}

    def failing(self, many, **kw):
        if fail["on"]:
            raise error
        return real(self, many, **kw)

    monkeypatch.setattr(CLIPEncoder, "embeddings_of", failing)
    return fail


def test_a_failed_merge_state_leaves_update_count_unchanged(monkeypatch):
    """merge_state runs this metric's own held calls first: when their pass fails nothing is
    merged and the count is unchanged; the retry merges once. update_count counts this object's
    own calls: merging (a metric or its state_dict, alike) adds none."""
    calls = _calls("CLIPSimilarity", sizes=(1, 1, 2, 1))
    m, other = _deferred("CLIPSimilarity", calls[:2]), _deferred("CLIPSimilarity", calls[2:])
    other.state_dict()  # the other side's calls run now: only m's pass can fail below
    fail = _failing_pass(monkeypatch, RuntimeError("simulated failure of the held pass"))
    with pytest.raises(HeldCallsError):
        m.merge_state(other)
    assert m.update_count == 2  # nothing was merged
    fail["on"] = False
    m.merge_state(other)  # the retry the error message invites
    assert m.update_count == 2
    _assert_same_states(m.state_dict(), _one_by_one("CLIPSimilarity", calls).state_dict())


def test_an_interrupted_pass_keeps_the_held_calls(monkeypatch):
    """Ctrl-C during a long deferred pass (KeyboardInterrupt is not an Exception) must not drop
    the held calls silently while update_count still counts them."""
    calls = _calls("CLIPSimilarity", sizes=(1, 2))
    m = _deferred("CLIPSimilarity", calls)
    fail = _failing_pass(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        m.compute()
    fail["on"] = False
    assert m.update_count == len(calls)
    _assert_same_states(m.state_dict(), _one_by_one("CLIPSimilarity", calls).state_dict())


def _one_call_short_of_a_pass():
    """(metric holding pass_rows() - 1 one-pair calls, every call of the pass, pass_rows())."""
    limit = _encoder("CLIPSimilarity").pass_rows()
    calls = _calls("CLIPSimilarity", sizes=(1,) * limit)
    m = _metric("CLIPSimilarity")
    for c in calls[:-1]:
        m.update(*c)
    return m, calls, limit


def test_an_update_whose_pass_fails_keeps_nothing_of_its_own_call(monkeypatch):
    """An update that raises keeps nothing of its call (a caller retrying it must not count it
    twice); the calls held before it stay held."""
    m, calls, limit = _one_call_short_of_a_pass()
    fail = _failing_pass(monkeypatch, RuntimeError("simulated failure of the held pass"))
    with pytest.raises(HeldCallsError, match=f"this update's call is not kept; {limit - 1} earlier"):
        m.update(*calls[-1])  # fills the pass, which fails
    assert m.update_count == limit - 1
    fail["on"] = False
    m.update(*calls[-1])  # the retry
    assert m.update_count == limit
    _assert_same_states(m.state_dict(), _one_by_one("CLIPSimilarity", calls).state_dict())


def test_held_images_past_hold_bytes_start_the_pass(monkeypatch):
    """Large images (held at full size with preprocess="tensor") run before a chunk per worker
    fills: the bytes held stay bounded."""
    monkeypatch.setattr(held_calls, "HOLD_BYTES", 1)
    enc = _encoder("CLIPSimilarity")
    calls = _calls("CLIPSimilarity", sizes=(1, 1))
    m = _metric("CLIPSimilarity")
    enc.extractor.stats.reset()
    m.update(*calls[0])
    assert enc.extractor.stats.images_computed == 2 and m._held == []
    m.update(*calls[1])
    _assert_same_states(m.state_dict(), _one_by_one("CLIPSimilarity", calls).state_dict())


def test_a_merge_that_fails_after_the_pass_surfaces_its_own_error(monkeypatch):
    """The pass succeeded and the held list is already empty when a merge raises: the update
    must re-raise that error, not an IndexError from dropping its own call a second time."""
    m, calls, _ = _one_call_short_of_a_pass()

    def failing_merge(*a, **kw):
        raise ValueError("simulated merge failure")

    monkeypatch.setattr(m, "_merge", failing_merge)
    with pytest.raises(ValueError, match="simulated merge failure"):
        m.update(*calls[-1])  # fills the pass; the pass runs, the first merge raises


def test_no_property_runs_the_held_pass():
    """Reading a property never runs a network: every property of a metric holding calls is read
    and the calls stay held, the tower untouched; the explicit read (state_dict) runs them."""

    enc = _encoder("CLIPSimilarity")
    calls = _calls("CLIPSimilarity", sizes=(1, 1))
    m = _deferred("CLIPSimilarity", calls)
    enc.extractor.stats.reset()
    names = sorted(
        {n for c in type(m).__mro__ for n, v in vars(c).items() if isinstance(v, property)} - {"__weakref__"}
    )
    assert {"name", "signature", "update_count", "device"} <= set(names)  # the probe sees the properties
    for n in names:
        getattr(m, n)
    assert len(m._held) == len(calls), f"reading the properties {names} ran the held calls"
    assert enc.extractor.stats.images_computed == 0
    _assert_same_states(m.state_dict(), _one_by_one("CLIPSimilarity", calls).state_dict())
    assert m._held == [] and enc.extractor.stats.images_computed > 0
