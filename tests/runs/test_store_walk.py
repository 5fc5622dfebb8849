"""The store's two questions on the walk from a manifest row to its per-item record: the engine
asks which works are still to do (``RunDir.pending``), ``aggregate`` reads the run in one call
(``RunDir.read_stored``); each reads a unit file once, and both key works as runs.keys does."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from tests._helpers.runner_toy import write_set
from transcreval import evaluate
from transcreval.runs.keys import Keying, system_works
from transcreval.runs.manifest import items_from_lock
from transcreval.runs.store import RunDir

TOY = "tests._helpers.runner_toy:ADAPTER"


@pytest.fixture
def toy(tmp_path):
    d = write_set(tmp_path / "data", n=4)
    d["out"] = tmp_path / "run"
    evaluate(TOY, d["manifest"], d["systems"], d["out"], metrics=["chrf"], progress="none")
    return d


def _key_by_hand(info, unit, system, item, output):
    """The work key as docs say it is made, written out here (not through runs.keys)."""
    payload = [
        info["protocol"],
        str(info["protocol_version"]),
        unit,
        system,
        info["units"][unit]["signature_digest"],
        item.digest,
        output.digest,
        output.status,
    ]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()


def _setup(toy):
    store = RunDir(toy["out"])
    info = store.read_run()
    items, outputs = items_from_lock(store.read_lock())
    keying = Keying(info["protocol"], str(info["protocol_version"]), "chrf", info["units"]["chrf"]["signature_digest"])
    return store, info, items, outputs, keying


def _later(store, info):
    """A store of a later pass (its lines win by sequence number)."""
    return RunDir(store.root, generation=int(info["generation"]) + 1)


def test_pending_gives_the_works_not_done_with_their_keys(toy):
    store, info, items, outputs, keying = _setup(toy)
    works = system_works(items, outputs, "base", None)
    assert store.pending("base", "chrf", works, keying) == []  # the pass scored every item
    ids = [it.id for it in items]
    stored = {json.loads(x)["item"]: json.loads(x) for x in store.unit_path("base", "chrf").read_text().splitlines()}
    later = _later(store, info)
    transient = {**stored[ids[1]], "records": [{**r, "status": "timeout"} for r in stored[ids[1]]["records"]]}
    stale = {**stored[ids[2]], "key": "0" * 64}
    later.append("base", "chrf", [{k: v for k, v in x.items() if k != "seq"} for x in (transient, stale)])
    got = RunDir(toy["out"]).pending("base", "chrf", works, keying)
    want = [ids[1], ids[2]]
    assert [w.item.id for w, _ in got] == want
    for w, k in got:
        assert k == _key_by_hand(info, "chrf", "base", w.item, outputs["base"][w.item.id])
    # without a signature nothing is known done: every work, with no key
    assert [(w.item.id, k) for w, k in store.pending("base", "chrf", works, None)] == [(i, "") for i in ids]


def test_read_stored_keeps_per_work_the_line_whose_key_is_current(toy):
    store, info, items, _, _ = _setup(toy)
    ids = [it.id for it in items]
    stored = {json.loads(x)["item"]: json.loads(x) for x in store.unit_path("better", "chrf").read_text().splitlines()}
    later = _later(store, info)
    later.append("better", "chrf", [{**{k: v for k, v in stored[ids[0]].items() if k != "seq"}, "key": "0" * 64}])
    run = RunDir(toy["out"]).read_stored(info)
    assert [it.id for it in run.items] == ids
    assert set(run.current) == {("chrf", s, i) for s in ("base", "better") for i in ids} - {("chrf", "better", ids[0])}
    for i in ids[1:]:
        assert run.current[("chrf", "better", i)] == stored[i]
        assert [r.value for r in run.records[("chrf", "better", i)]] == [r["value"] for r in stored[i]["records"]]
    lock = (toy["out"] / "manifest.lock.jsonl").read_bytes()
    assert run.lock_sha256 == hashlib.sha256(lock).hexdigest()


def test_a_pass_reads_each_unit_file_once_to_plan_and_once_to_aggregate(toy, monkeypatch):
    reads: Counter = Counter()
    original = RunDir.read_unit

    def counting(self, system, unit):
        reads[(system, unit)] += 1
        return original(self, system, unit)

    monkeypatch.setattr(RunDir, "read_unit", counting)
    evaluate(TOY, toy["manifest"], toy["systems"], toy["out"], metrics=["chrf"], progress="none")
    assert reads == {("base", "chrf"): 2, ("better", "chrf"): 2}
