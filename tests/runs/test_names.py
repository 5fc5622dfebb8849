"""System names in the run directory: every system keeps a folder of
its own, a name the protocol reserves for its reference row is refused, work keys include the
system, names equal up to case are refused (case-insensitive file systems)."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from sacrebleu.metrics import CHRF

from tests._helpers.runner_toy import write_set
from transcreval import evaluate
from transcreval.cli import main
from transcreval.errors import InputError
from transcreval.runs.engine import work_key
from transcreval.runs.spec import Item, Output, Work

TOY = "tests._helpers.runner_toy:ADAPTER"


@pytest.fixture
def toy(tmp_path):
    d = write_set(tmp_path / "data", n=8)
    d["counter"] = tmp_path / "count.txt"
    return d


def _eval(d, systems, out, **kw):
    return evaluate(TOY, d["manifest"], systems, out, options={"counter": str(d["counter"])}, **kw)


def test_two_names_that_old_code_mapped_to_one_folder_keep_their_own_records(toy, tmp_path):
    systems = {"a/b": toy["systems"]["base"], "a_b": toy["systems"]["better"]}
    run = _eval(toy, systems, tmp_path / "run")
    chrf = CHRF()
    for name, texts in (("a/b", toy["texts"]["base"]), ("a_b", toy["texts"]["better"])):
        got = {r.item_id: (r.value, r.status) for r in run.results.select(system=name, metric="chrf")}
        want = {
            i: (pytest.approx(chrf.sentence_score(t, [toy["refs"][i]]).score, abs=1e-9), "ok") for i, t in texts.items()
        }
        assert got == want
    folders = sorted(p.name for p in (tmp_path / "run" / "items").iterdir())
    assert folders == sorted(["a%2Fb", "a_b", "REF"])
    for f in ("a%2Fb", "a_b"):
        lines = (tmp_path / "run" / "items" / f / "chrf.jsonl").read_text().splitlines()
        assert len(lines) == 8  # each system's lines once, in its own file
    before = Counter(toy["counter"].read_text().splitlines())
    again = _eval(toy, systems, tmp_path / "run")  # a rerun computes nothing: no swap between the two
    assert Counter(toy["counter"].read_text().splitlines()) == before
    assert again.results.records == run.results.records


@pytest.mark.parametrize(
    "names",
    [("A", "a"), ("Modèle", "MODÈLE"), ("e\u0301", "\u00e9")],  # case; case of a non-ASCII letter; NFD vs NFC
)
def test_names_equal_up_to_case_or_unicode_form_are_refused(toy, tmp_path, names):
    systems = dict(zip(names, (toy["systems"]["base"], toy["systems"]["better"])))
    with pytest.raises(InputError, match="differ only in case"):
        _eval(toy, systems, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_folder_names_are_injective_and_stay_inside_items():
    from transcreval.runs.names import folder_name

    names = [
        "a/b",
        "a_b",
        "a%2Fb",
        "a b",
        " a b",
        "a b ",
        ".",
        "..",
        ".hidden",
        "x:y",
        "x|y",
        "日本語",
        "Gemini 3 + GPT-4.1",
    ]
    folders = [folder_name(n) for n in names]
    assert len(set(folders)) == len(names)
    assert all("/" not in f and "\\" not in f and f not in (".", "..") and not f.startswith(".") for f in folders)
    assert folder_name("Gemini 3 + GPT-4.1") == "Gemini 3 + GPT-4.1"  # readable names keep their folder
    assert folder_name("日本語") == "日本語"


def test_work_keys_include_the_system():
    it = Item("i1", "i1", digest="d")
    out = Output("x", "i1", text="t", digest="o")
    k1 = work_key("toy", "1", "chrf", "sig", Work(it, out, "a/b"))
    k2 = work_key("toy", "1", "chrf", "sig", Work(it, out, "a_b"))
    assert k1 != k2


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from transcreval.demo.run_set import write_demo_set

    return write_demo_set(tmp_path_factory.mktemp("demo-set"))


@pytest.mark.parametrize("name", ["GT", "gt"])
def test_a_system_named_like_the_reference_row_is_refused_by_validate_and_evaluate(demo, tmp_path, capsys, name):
    manifest, systems = demo
    base = ["-p", "mptc", "-m", str(manifest), "-s", f"{name}={systems['redesign']}"]
    assert main(["validate", *base]) == 2
    out = capsys.readouterr()
    assert "reference row" in out.out + out.err and name in out.out + out.err
    judge = json.dumps({"backend": "replay", "model": "m"})
    assert main(["evaluate", *base, "-o", str(tmp_path / "run"), "--judge", judge, "--progress", "none"]) == 2
    assert "reference row" in capsys.readouterr().err
    assert not Path(tmp_path / "run").exists()


def test_the_toy_reference_row_is_reserved_too(toy, tmp_path):
    with pytest.raises(InputError, match="reference row"):
        _eval(toy, {"REF": toy["systems"]["base"]}, tmp_path / "run")


def test_a_run_directory_of_the_old_format_is_brought_up_to_date_by_evaluate(toy, tmp_path):
    """Format-1 runs keyed lines without the system and named folders lossily: rescore refuses
    with what to do; evaluate sets the old lines aside, scores again and says so."""
    import io

    from transcreval import Run

    out = tmp_path / "run"
    first = _eval(toy, toy["systems"], out)
    info = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps({**info, "format": 1}))
    with pytest.raises(InputError, match=r"older transcreval \(run format 1\).*transcreval evaluate"):
        Run(out).rescore()
    assert Run(out).results.records == first.results.records  # results.json still reads
    err = io.StringIO()
    again = evaluate(
        TOY, toy["manifest"], toy["systems"], out, options={"counter": str(toy["counter"])}, stream=err, progress="log"
    )
    assert "older transcreval" in err.getvalue() and (out / "items.format1" / "base" / "chrf.jsonl").is_file()
    assert again.results.records == first.results.records
    assert json.loads((out / "run.json").read_text())["format"] == 2


def test_judge_usage_of_two_such_systems_is_counted_once(demo, tmp_path, capsys):
    pytest.importorskip("openai")
    from transcreval.engines.judge.fake_server import FakeOpenAIServer

    manifest, systems = demo
    with FakeOpenAIServer() as server:
        judge = json.dumps({"model": "fake-judge", "base_url": server.base_url, "max_retries": 0})
        args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(tmp_path / "run"), "--judge", judge]
        args += ["--metrics", "judge", "--progress", "none", "--format", "json"]
        args += ["-s", f"x/y={systems['redesign']}", "-s", f"x_y={systems['text-edit']}"]
        assert main(args) == 0
        sent = server.request_count
        data = json.loads(capsys.readouterr().out)
        assert data["judge_usage"]["total"]["calls"] == sent
        assert main(args) == 0  # a rerun asks nothing and counts nothing twice
        assert server.request_count == sent
        data = json.loads(capsys.readouterr().out)
        assert data["judge_usage"]["total"]["calls"] == sent
        assert {c["n"] for c in data["counts"]["x/y"].values()} == {c["n"] for c in data["counts"]["x_y"].values()}


def _as_format_1(out: Path, keep_created: bool) -> None:
    """Make a run directory look like run format 1: run.json without what format 2 added, lines
    without sequence numbers, and x/y's folder merged into x_y's (format 1 gave both ``x_y``)."""
    info = json.loads((out / "run.json").read_text())
    drop = {"passes", "generation", "format", *(() if keep_created else ("created",))}
    (out / "run.json").write_text(json.dumps({**{k: v for k, v in info.items() if k not in drop}, "format": 1}))
    for path in sorted((out / "items").rglob("*.jsonl")):
        lines = [{k: v for k, v in json.loads(x).items() if k != "seq"} for x in path.read_text().splitlines()]
        target = out / "items" / "x_y" / path.name
        path.unlink()
        with target.open("a") as f:
            f.writelines(json.dumps(x) + "\n" for x in lines)
    (out / "items" / "x%2Fy").rmdir()


@pytest.mark.parametrize("keep_created", [True, False])
def test_a_format_1_run_brought_up_to_date_keeps_its_judge_usage_and_creation_date(
    demo, tmp_path, capsys, keep_created
):
    """Its usage lines are set aside with its items; they are carried to the new lines, each once
    (two systems shared one format-1 folder), so judge_usage, the served-model counts and the
    creation date still say what the run cost and when it began."""
    pytest.importorskip("openai")
    from transcreval.engines.judge.fake_server import FakeOpenAIServer

    manifest, systems = demo
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        judge = json.dumps({"model": "fake-judge", "base_url": server.base_url, "max_retries": 0})
        args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(out), "--judge", judge]
        args += ["--metrics", "judge", "--progress", "none", "-s", f"x/y={systems['redesign']}"]
        args += ["-s", f"x_y={systems['text-edit']}"]
        assert main(args) == 0
        before = json.loads((out / "results.json").read_text())
        created = json.loads((out / "run.json").read_text())["created"]
        _as_format_1(out, keep_created)
        for k, path in enumerate(sorted(p for p in out.rglob("*") if p.is_file())):  # a run made in 2020
            os.utime(path, (1577836800 + k, 1577836800 + k))
        oldest = min(p.stat().st_mtime for p in out.rglob("*") if p.is_file())
        assert main(args) == 0
        assert main(args) == 0  # and once up to date, nothing is carried twice
        paid = server.request_count
    capsys.readouterr()
    after = json.loads((out / "results.json").read_text())
    assert (out / "items.format1" / "x_y").is_dir() and not (out / "items.format1.2").exists()
    paid_for = {k: v for k, v in after["judge_usage"]["total"].items() if k != "cached"}  # the rescoring's hits add
    assert paid_for == {k: v for k, v in before["judge_usage"]["total"].items() if k != "cached"}
    assert paid_for["calls"] == paid and after["judge_usage"]["total"]["cached"] >= paid
    served = after["provenance"]["judge"]["per_unit"]["judge"]["served"]
    assert served == before["provenance"]["judge"]["per_unit"]["judge"]["served"] and sum(served.values()) == paid
    info = json.loads((out / "run.json").read_text())
    if keep_created:
        assert info["created"] == created
    else:  # none recorded: the oldest file of the run, the latest it can have been made
        assert oldest == 1577836800 and info["created"] == "2020-01-01T00:00:00+00:00"


@pytest.mark.parametrize("bad_id", ["../secret/x", "a/../../secret/x", "/abs/secret/x"])
def test_an_id_that_would_lead_an_id_pattern_out_of_its_folder_is_refused(tmp_path, capsys, bad_id):
    """Item 9: outputs named by a pattern with {id} stay under the pattern's folder."""
    from PIL import Image

    outs = tmp_path / "outs"
    (outs / "sub").mkdir(parents=True)
    secret = tmp_path / "secret"
    secret.mkdir()
    Image.new("RGB", (4, 4)).save(secret / "x.png")
    Image.new("RGB", (4, 4)).save(outs / "sub" / "ok.png")
    rows = [{"id": "sub/ok", "reference_text": "r"}, {"id": bad_id, "reference_text": "r"}]
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    pattern = f"{outs}/{{id}}.png"
    with pytest.raises(InputError, match="leave"):
        evaluate(TOY, tmp_path / "m.jsonl", {"s": pattern}, tmp_path / "run", metrics=["pixels"])
    assert main(["validate", "-p", TOY, "-m", str(tmp_path / "m.jsonl"), "-s", f"s={pattern}"]) == 2
    assert "leave" in capsys.readouterr().out
    rows = rows[:1]  # an id with a subfolder that stays inside is fine
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = evaluate(TOY, tmp_path / "m.jsonl", {"s": pattern}, tmp_path / "run2", metrics=["pixels"])
    assert [r.status for r in run.results.records] == ["ok"]
