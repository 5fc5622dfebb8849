"""The runner: manifest and outputs, the run directory, resume, rescore.

Uses the toy protocol of tests/_helpers/runner_toy.py: chrF of text outputs (checked against
sacrebleu), a length unit, a set-level statistic from stored features, and a counter file that
records every item each unit scored, so "computed once" is counted, not assumed.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from sacrebleu.metrics import CHRF

from tests._helpers.runner_toy import ADAPTER, features_of, write_set
from transcreval import Run, evaluate
from transcreval.errors import InputError
from transcreval.runs.features import frechet_from_rows
from transcreval.runs.store import RunDir

TOY = "tests._helpers.runner_toy:ADAPTER"


def counted(path: Path) -> Counter:
    return Counter(path.read_text().splitlines()) if path.exists() else Counter()


@pytest.fixture
def toy(tmp_path):
    d = write_set(tmp_path / "data")
    d["counter"] = tmp_path / "count.txt"
    d["out"] = tmp_path / "run"
    return d


def _eval(d, **kw):
    opts = {"counter": str(d["counter"]), **kw.pop("options", {})}
    return evaluate(TOY, d["manifest"], kw.pop("systems", d["systems"]), kw.pop("out", d["out"]), options=opts, **kw)


def test_chrf_records_equal_sacrebleu_and_the_table_is_their_mean(toy):
    run = _eval(toy)
    chrf = CHRF()
    for s, texts in toy["texts"].items():
        got = {r.item_id: r.value for r in run.results.select(system=s, metric="chrf")}
        want = {i: chrf.sentence_score(t, [toy["refs"][i]]).score for i, t in texts.items()}
        assert got == pytest.approx(want, abs=1e-9)
        cell = run.tables["toy"].cell(s, "chrf")
        assert cell.value == pytest.approx(np.mean(list(want.values())), abs=1e-9) and cell.n == len(want)


def test_set_level_statistic_comes_from_the_stored_features(toy):
    run = _eval(toy)
    ids = sorted(toy["refs"])
    for s, texts in toy["texts"].items():
        fake = [features_of(texts[i]) for i in ids]
        real = [features_of(toy["refs"][i]) for i in ids]
        assert run.tables["toy"].cell(s, "spread").value == pytest.approx(frechet_from_rows(fake, real), rel=1e-12)


def test_items_are_matched_by_id_never_by_order(toy, tmp_path):
    first = _eval(toy)
    lines = toy["systems"]["base"].read_text().splitlines()
    shuffled = tmp_path / "shuffled.jsonl"
    shuffled.write_text("\n".join(reversed(lines)) + "\n")
    other = _eval(toy, systems={"base": shuffled, "better": toy["systems"]["better"]}, out=tmp_path / "run2")
    assert first.results.records == other.results.records


def test_evaluate_twice_computes_nothing_again_and_rescore_equals_evaluate(toy):
    run = _eval(toy)
    after_first = counted(toy["counter"])
    assert set(after_first.values()) == {1} and len(after_first) == 12 * 2 * 2 + 12 * 3  # chrf, length, feat (+REF)
    again = _eval(toy)
    assert counted(toy["counter"]) == after_first  # every item x unit was done: no call at all
    assert again.results.records == run.results.records
    before = json.loads(run.store.results.read_text())
    rescored = Run(toy["out"]).rescore()
    assert rescored.records == run.results.records and rescored.tables == run.results.tables
    after = json.loads(run.store.results.read_text())
    # the one field that may differ: when each results.json was aggregated (stamped to the second)
    assert before["provenance"].pop("aggregated") and after["provenance"].pop("aggregated")
    assert after == before


def test_a_config_change_reruns_only_the_affected_unit(toy):
    _eval(toy)
    before = counted(toy["counter"])
    run = _eval(toy, options={"length_scale": 3.0})
    new = counted(toy["counter"]) - before
    assert {k.split()[0] for k in new} == {"length"} and sum(new.values()) == 24
    lengths = {r.item_id: r.value for r in run.results.select(system="base", metric="length")}
    assert lengths == {i: 3.0 * len(t) for i, t in toy["texts"]["base"].items()}


def test_a_change_in_the_seventh_digit_of_a_float_option_reruns_the_unit(toy):
    """The toy's length unit is keyed by a Signature: 0.1234567 and 0.1234568 printed alike with
    %g, so the second run reused the first one's records."""
    _eval(toy, options={"length_scale": 0.1234567})
    run = _eval(toy, options={"length_scale": 0.1234568})
    lengths = {r.item_id: r.value for r in run.results.select(system="base", metric="length")}
    assert lengths == {i: 0.1234568 * len(t) for i, t in toy["texts"]["base"].items()}
    assert run.info["units"]["length"]["signature"].startswith("length|scale:0.1234568|")


def test_a_changed_output_reruns_only_that_item(toy):
    _eval(toy)
    before = counted(toy["counter"])
    p = toy["systems"]["base"]
    lines = [json.loads(x) for x in p.read_text().splitlines()]
    lines[3]["text"] = "a brand new answer"
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    _eval(toy)
    new = counted(toy["counter"]) - before
    assert sorted(new) == sorted(f"{u} base {lines[3]['id']}" for u in ("chrf", "length", "feat"))


def test_missing_outputs_are_counted_failures_with_their_denominator(toy, tmp_path):
    p = tmp_path / "partial.jsonl"
    lines = toy["systems"]["base"].read_text().splitlines()
    p.write_text("\n".join([*lines[:9], json.dumps({"id": "it11"})]) + "\n")  # it09, it10 missing; it11 no text
    run = _eval(toy, systems={"base": p, "better": toy["systems"]["better"]})
    recs = {r.item_id: r for r in run.results.select(system="base", metric="chrf")}
    assert len(recs) == 12  # never dropped
    assert recs["it09"].status == recs["it10"].status == "missing_output" and recs["it11"].status == "no_text"
    assert all(math.isnan(recs[i].value) for i in ("it09", "it10", "it11"))
    cell = run.tables["toy"].cell("base", "chrf")
    assert (cell.n, cell.n_missing) == (9, 3)
    data = json.loads(run.store.results.read_text())
    assert data["counts"]["base"]["chrf"] == {"n": 9, "of": 12, "failures": {"missing_output": 2, "no_text": 1}}


def _images(tmp_path, toy, kind):
    d = tmp_path / kind
    d.mkdir()
    for i, k in enumerate(sorted(toy["refs"])):
        Image.fromarray(np.full((8, 6, 3), 20 * i, dtype=np.uint8)).save(d / f"{k}.{kind}")
    return d


def test_image_outputs_from_a_directory_and_a_pattern_and_undecodable_files(toy, tmp_path, capsys):
    d = _images(tmp_path, toy, "png")
    (d / "it02.png").write_bytes(b"not a png at all")
    (d / "it03.png").unlink()
    run = _eval(toy, systems={"dir": d, "pat": str(d / "{id}.png")}, metrics=["pixels"], progress="log")
    for s in ("dir", "pat"):
        got = {r.item_id: r for r in run.results.select(system=s, metric="brightness")}
        assert got["it02"].status == "undecodable_output" and got["it03"].status == "missing_output"
        assert got["it05"].value == pytest.approx(100 / 255, abs=1e-6)
    jpg = _images(tmp_path, toy, "jpg")
    _eval(toy, systems={"lossy": jpg}, metrics=["pixels"], out=tmp_path / "run-jpg", progress="log")
    assert "lossy format" in capsys.readouterr().err


def test_paths_resolve_against_the_manifest_folder_or_root(toy, tmp_path):
    imgs = _images(tmp_path, toy, "png")
    rows = [{"id": k, "image": f"png/{k}.png"} for k in sorted(toy["refs"])]
    (tmp_path / "outs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    a = _eval(toy, systems={"s": tmp_path / "outs.jsonl"}, metrics=["pixels"])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "outs.jsonl").write_text((tmp_path / "outs.jsonl").read_text())
    b = _eval(toy, systems={"s": elsewhere / "outs.jsonl"}, metrics=["pixels"], out=tmp_path / "r2")
    assert {r.status for r in b.results.records if r.metric == "brightness"} == {"missing_file"}
    c = _eval(toy, systems={"s": elsewhere / "outs.jsonl"}, metrics=["pixels"], out=tmp_path / "r3", root=tmp_path)
    assert [r.value for r in c.results.records] == [r.value for r in a.results.records]
    assert imgs.is_dir()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"id": "a", "reference_text": "x", "colour": 1}, "unknown key"),
        ({"reference_text": "x"}, "'id' is required"),
        ({"id": "a"}, "'reference_text' is required"),
        ({"id": "a", "reference_text": "x", "source_image": "nope.png"}, "not a file"),
    ],
)
def test_bad_manifest_lines_name_the_line(tmp_path, line, message):
    m = tmp_path / "m.jsonl"
    m.write_text(json.dumps({"id": "ok", "reference_text": "y"}) + "\n" + json.dumps(line) + "\n")
    with pytest.raises(InputError, match=rf"m\.jsonl:2: .*{message}"):
        evaluate(TOY, m, {"s": tmp_path / "s.jsonl"}, tmp_path / "run")


def test_duplicate_ids_and_duplicate_outputs_are_errors(toy, tmp_path):
    m = tmp_path / "dup.jsonl"
    m.write_text(toy["manifest"].read_text() + toy["manifest"].read_text().splitlines()[0] + "\n")
    with pytest.raises(InputError, match="repeats"):
        evaluate(TOY, m, toy["systems"], tmp_path / "r")
    o = tmp_path / "o.jsonl"
    o.write_text(toy["systems"]["base"].read_text() * 2)
    with pytest.raises(InputError, match="a second output"):
        evaluate(TOY, toy["manifest"], {"s": o}, tmp_path / "r")


def test_protocol_version_mismatch_refuses_with_how_to_start_fresh(toy, monkeypatch):
    _eval(toy)
    monkeypatch.setattr(type(ADAPTER), "version", "2")
    with pytest.raises(InputError, match=r"version '1'.*version '2'.*--fresh"):
        _eval(toy)
    run = _eval(toy, fresh=True)
    assert run.info["protocol_version"] == "2"


def test_fresh_never_deletes_a_folder_that_is_not_a_run(toy, tmp_path):
    keep = tmp_path / "precious"
    keep.mkdir()
    (keep / "thesis.tex").write_text("x")
    with pytest.raises(InputError, match="not empty"):
        _eval(toy, out=keep)
    with pytest.raises(InputError, match="not a run directory"):
        _eval(toy, out=keep, fresh=True)
    assert (keep / "thesis.tex").exists()


def test_a_torn_last_line_is_redone(toy):
    _eval(toy)
    store = RunDir(toy["out"])
    path = store.unit_path("base", "chrf")
    text = path.read_text()
    path.write_text(text[: len(text) - 40])  # a crash in the middle of the last line
    before = counted(toy["counter"])
    run = _eval(toy)
    new = counted(toy["counter"]) - before
    assert sum(new.values()) == 1 and next(iter(new)).startswith("chrf base")
    assert len(run.results.select(system="base", metric="chrf")) == 12


def test_stopped_units_show_as_not_computed_in_rescore(toy):
    _eval(toy, metrics=["chrf"])
    info = json.loads((toy["out"] / "run.json").read_text())
    assert set(info["units"]) == {"chrf"}
    res = Run(toy["out"]).rescore()
    assert {r.metric for r in res.records} == {"chrf"}
    path = RunDir(toy["out"]).unit_path("better", "chrf")
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:5]))  # as if stopped after 5 items
    res = Run(toy["out"]).rescore()
    status = Counter(r.status for r in res.select(system="better"))
    assert status == {"ok": 5, "not_computed": 7}


def test_run_items_frame_and_api(toy):
    pytest.importorskip("pandas")
    run = _eval(toy)
    df = run.items
    assert len(df) == 12 * 2 * 2 and set(df["metric"]) == {"chrf", "length"}
    assert df.groupby(["system", "metric"]).size().tolist() == [12, 12, 12, 12]
    assert repr(Run(run.path)) == f"Run({str(run.path)!r})"


def test_unknown_metric_and_option_name_the_known_ones(toy):
    with pytest.raises(InputError, match=r"unknown metric\(s\) \['nope'\].*chrf"):
        _eval(toy, metrics=["nope"])
    with pytest.raises(InputError, match=r"unknown option\(s\) \['nope'\].*length_scale"):
        _eval(toy, options={"nope": 1})


def test_packed_features_round_trip_and_frechet_equals_fid_from_sums():
    """The stored-feature path of set-level metrics: float32 vectors survive the payload exactly,
    and the Frechet distance of the rows equals FID computed from the metric's float64 sums."""
    import torch

    from transcreval.functional.image.fid import fid_value_from_stats
    from transcreval.functional.image.frechet import moments
    from transcreval.runs.features import pack, unpack

    rng = np.random.default_rng(3)
    fake = rng.normal(size=(9, 16)).astype(np.float32)
    real = (rng.normal(size=(7, 16)) + 0.3).astype(np.float32)
    assert all(np.array_equal(unpack(pack(v)), v) for v in fake)
    assert np.array_equal(unpack(pack(torch.from_numpy(real[0]))), real[0])
    stats = {}
    for side, rows in (("fake", fake), ("real", real)):
        for k, v in moments(torch.from_numpy(rows)).items():
            stats[f"{side}_{k}"] = v
    want = fid_value_from_stats(stats)[0]
    assert frechet_from_rows(list(fake), list(real)) == pytest.approx(want, rel=1e-12)
    with pytest.raises(InputError, match="damaged"):
        unpack("not base64!!")
