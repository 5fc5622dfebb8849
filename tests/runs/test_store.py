"""The run directory's lines: the newest line of an item wins by its sequence
number, not by the file it sits in, and merging rank files is idempotent across a crash."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests._helpers.runner_toy import write_set
from transcreval import evaluate
from transcreval.runs.store import RunDir

TOY = "tests._helpers.runner_toy:ADAPTER"


@pytest.fixture
def toy(tmp_path):
    d = write_set(tmp_path / "data", n=6)
    d["counter"] = tmp_path / "count.txt"
    d["out"] = tmp_path / "run"
    return d


def _eval(d, **opts):
    return evaluate(TOY, d["manifest"], d["systems"], d["out"], options={"counter": str(d["counter"]), **opts})


def test_a_stale_rank_file_never_overrides_a_newer_single_process_line(toy):
    """A torchrun run that died before its merge left a rank file; a later one-process run with
    another option scores the items again: its lines win, at once and on every rerun."""
    _eval(toy, length_scale=3.0)
    base = toy["out"] / "items" / "base"
    (base / "length.jsonl").rename(base / "length.rank1.jsonl")  # as a dead rank 1 left it
    run = _eval(toy, length_scale=1.0)
    got = {r.item_id: (r.value, r.status) for r in run.results.select(system="base", metric="length")}
    assert got == {i: (float(len(t)), "ok") for i, t in toy["texts"]["base"].items()}
    before = Counter(toy["counter"].read_text().splitlines())
    again = _eval(toy, length_scale=1.0)
    assert Counter(toy["counter"].read_text().splitlines()) == before  # nothing scored again
    assert again.results.records == run.results.records


def _crash_on_unlink(monkeypatch):
    real = Path.unlink

    def unlink(self, *a, **k):
        if ".rank" in self.name:
            raise KeyboardInterrupt("killed between the append and the unlink")
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "unlink", unlink)
    return real


def test_merging_rank_files_is_idempotent_across_a_crash(tmp_path, monkeypatch):
    ranked = RunDir(tmp_path, rank=1, world=2)
    ranked.append("sys", "judge", [{"item": "a", "key": "k", "records": [], "payload": {}}, {"usage": {"calls": 3}}])
    main = RunDir(tmp_path)
    real = _crash_on_unlink(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        main.merge_ranks()
    assert main.usage("sys", "judge") == {"calls": 3}  # the merged copy and the rank file: one usage
    assert [x.get("item") for x in main.read_unit("sys", "judge")] == ["a", None]
    monkeypatch.setattr(Path, "unlink", real)
    main.merge_ranks()  # the next merge finishes the job without appending twice
    lines = (tmp_path / "items" / "sys" / "judge.jsonl").read_text().splitlines()
    assert len(lines) == 2 and not list((tmp_path / "items" / "sys").glob("*.rank*"))
    assert main.usage("sys", "judge") == {"calls": 3}
    assert json.loads(lines[1])["usage"] == {"calls": 3}
