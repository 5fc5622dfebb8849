"""A run someone else can check: run.json and results.json record the
command line, the dates, the manifest's and inputs' digests, every signature and the package
versions; the judge's served models are counted, answers from another model are recorded per item
and counted; the report prints all of it with the count of each item status."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from tests._helpers.runner_toy import evaluate_args, write_set
from transcreval._version import __version__
from transcreval.cli import main


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def toy(tmp_path):
    d = write_set(tmp_path / "data", n=12)
    lines = d["systems"]["better"].read_text().splitlines()
    # one output missing, one without text: two more statuses to count
    kept = [ln for ln in lines if '"it03"' not in ln]
    kept = [json.dumps({"id": "it05", "text": ""}) if '"it05"' in ln else ln for ln in kept]
    d["systems"]["better"].write_text("\n".join(kept) + "\n")
    d["out"] = tmp_path / "run"
    return d


def _args(d, *extra):
    return evaluate_args(d, *extra)


def _iso(text: str) -> datetime:
    got = datetime.fromisoformat(text)
    assert got.tzinfo is not None
    return got


def test_run_json_and_results_json_say_how_the_run_was_made(toy, capsys):
    first = _args(toy, "--metrics", "chrf")
    assert main(first) == 0
    second = _args(toy)
    assert main(second) == 0
    capsys.readouterr()
    info = json.loads((toy["out"] / "run.json").read_text())
    assert [p["command"] for p in info["passes"]] == [["transcreval", *first], ["transcreval", *second]]
    for p in info["passes"]:
        assert _iso(p["started"]) <= _iso(p["finished"]) and p["transcreval"] == __version__
    assert info["created"] == info["passes"][0]["started"]
    assert info["manifest"]["sha256"] == _sha(toy["manifest"])
    assert info["versions"]["transcreval"] == __version__ and "numpy" in info["versions"]

    res = json.loads((toy["out"] / "results.json").read_text())
    prov = res["provenance"]
    assert prov["command"] == ["transcreval", *second] and len(prov["passes"]) == 2
    assert prov["manifest"]["sha256"] == _sha(toy["manifest"])
    assert prov["manifest"]["lock_sha256"] == _sha(toy["out"] / "manifest.lock.jsonl")
    assert prov["units"] == {k: v["signature"] for k, v in info["units"].items()}
    assert prov["units"]["chrf"] == "chrf|sacrebleu-sentence" and prov["versions"] == info["versions"]
    assert prov["created"] == info["created"] and prov["evaluated"] == info["passes"][-1]["finished"]
    assert prov["judge"] is None  # no judge in this run
    assert res["counts"]["better"]["chrf"] == {"n": 10, "of": 12, "failures": {"missing_output": 1, "no_text": 1}}


def test_urls_in_recorded_command_lines_lose_their_secrets_older_passes_too():
    """A password, a query value in a URL of the command line never reaches run.json or
    results.json; a run.json written before (its passes verbatim) is redacted when read again."""
    from transcreval.runs.provenance import run_provenance, start_pass

    judge = '{"model": "m", "base_url": "http://user:hunter2@h:8000/v1?key=hunter3"}'
    old = {"passes": [{"command": ["transcreval", "evaluate", "--judge", judge], "started": "t0"}], "created": "t0"}
    info: dict = {}
    start_pass(info, old, ["transcreval", "evaluate", f"--judge={judge}"])
    prov = run_provenance({**old, **info}, lock_sha256=None, signatures={}, served={})
    prov_old = run_provenance(old, lock_sha256=None, signatures={}, served={})
    for text in (json.dumps(info), json.dumps(prov), json.dumps(prov_old)):
        assert "hunter" not in text and "user" not in text
        assert "http://***@h:8000/v1?key=***" in text
    assert info["passes"][0]["command"][:3] == ["transcreval", "evaluate", "--judge"]  # the rest as it was
    assert info["created"] == "t0"


# ---------------------------------------------------------------- the judge's served models (item 18)
def _item_images(manifest: Path, systems: dict[str, Path], item: str) -> list[str]:
    """The data URLs the judge sends for every picture of ``item`` (source, reference, outputs)."""
    from transcreval.engines.judge.images import to_image_part

    root = manifest.parent
    paths = [root / "images" / f"{item}_src.png", root / "images" / f"{item}_gt.png"]
    paths += [root / "images" / f"{item}_{s}.png" for s in systems]
    return [to_image_part(str(p)).data_url() for p in paths if p.is_file()]


def test_answers_from_another_model_are_recorded_per_item_counted_and_reported(tmp_path, capsys):
    pytest.importorskip("openai")
    from transcreval.demo.run_set import write_demo_set
    from transcreval.engines.judge.fake_server import FakeAnswer, FakeOpenAIServer, synthetic_answer

    manifest, systems = write_demo_set(tmp_path / "data")
    marked = _item_images(manifest, systems, "rrr")
    assert marked

    def about_rrr(body) -> bool:
        return any(url in json.dumps(body) for url in marked)

    def responder(body):  # every request about item "rrr" is answered by another model
        text = synthetic_answer(body)
        return FakeAnswer(text, model="gpt-4o-mini") if about_rrr(body) else text

    out = tmp_path / "run"
    with FakeOpenAIServer(responder) as server:
        judge = json.dumps({"model": "fake-judge", "base_url": server.base_url, "max_retries": 0})
        args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(out), "--judge", judge, "--metrics", "judge"]
        for name, path in systems.items():
            args += ["-s", f"{name}={path}"]
        with pytest.warns(Warning, match="gpt-4o-mini"):
            assert main([*args, "--progress", "none"]) == 0
        n_requests = server.request_count
        other = {"n": sum(about_rrr(b) for b in server.requests)}  # the server's own log
    capsys.readouterr()
    assert 0 < other["n"] < n_requests

    res = json.loads((out / "results.json").read_text())
    judge_prov = res["provenance"]["judge"]
    assert judge_prov["asked"]["model"] == "fake-judge"
    unit = judge_prov["per_unit"]["judge"]
    # the calls the run made, by the model that answered them: the server's own log
    assert unit["served"] == {"fake-judge": n_requests - other["n"], "gpt-4o-mini": other["n"]}
    # per item: exactly item rrr, for every system and the GT row
    assert set(unit["other_model"]) == {*systems, "GT"}
    assert all(v["items"] == ["rrr"] for v in unit["other_model"].values())
    # answers per item count the distinct requests its scores used (one source-poster answer serves
    # every system), so they add up to at least the calls
    assert sum(v["answers"]["gpt-4o-mini"] for v in unit["other_model"].values()) >= other["n"]
    for system in systems:
        lines = [json.loads(x) for x in (out / "items" / system / "judge.jsonl").read_text().splitlines()]
        flagged = {ln["item"]: ln["served"] for ln in lines if "item" in ln and "gpt-4o-mini" in ln.get("served", {})}
        assert set(flagged) == {"rrr"}, system
        assert set(flagged["rrr"]) == {"gpt-4o-mini"}  # every answer of that item came from it
        cell = res["counts"][system]
        assert {m: c.get("other_model", 0) for m, c in cell.items()} == dict.fromkeys(cell, 1)

    assert main(["report", str(out)]) == 0
    md = (out / "report.md").read_text()
    assert re.search(r"answers from another model", md, flags=re.I) and "gpt-4o-mini" in md and "rrr" in md
    assert "fake-judge" in md


def test_answers_from_another_model_are_attributed_to_the_metrics_they_scored(tmp_path, capsys):
    """Only MPTc's genre/decade quiz is answered by another model: results.json's provenance and
    the report name genre_hit and year_hit for every item, and no other metric of the unit."""
    pytest.importorskip("openai")
    from transcreval.demo.run_set import write_demo_set
    from transcreval.engines.judge.fake_answers import prompt_text
    from transcreval.engines.judge.fake_server import FakeAnswer, FakeOpenAIServer, synthetic_answer

    manifest, systems = write_demo_set(tmp_path / "data")

    def responder(body):
        text = synthetic_answer(body)
        return FakeAnswer(text, model="gpt-4o-mini") if "multiple-choice" in prompt_text(body) else text

    out = tmp_path / "run"
    with FakeOpenAIServer(responder) as server:
        judge = json.dumps({"model": "fake-judge", "base_url": server.base_url, "max_retries": 0})
        args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(out), "--judge", judge, "--metrics", "judge"]
        for name, path in systems.items():
            args += ["-s", f"{name}={path}"]
        with pytest.warns(Warning, match="gpt-4o-mini"):
            assert main([*args, "--progress", "none"]) == 0
        assert main(["report", str(out)]) == 0
    capsys.readouterr()
    res = json.loads((out / "results.json").read_text())
    per_system = res["provenance"]["judge"]["per_unit"]["judge"]["other_model"]
    assert set(per_system) == {*systems, "GT"}
    for system, got in per_system.items():
        n = res["counts"][system]["genre_hit"]["of"]
        assert got["metrics"] == {"genre_hit": n, "year_hit": n}, system
    for system in systems:
        lines = [json.loads(x) for x in (out / "items" / system / "judge.jsonl").read_text().splitlines()]
        tagged = [ln["other_model_metrics"] for ln in lines if "item" in ln]
        assert tagged and all(t == {"gpt-4o-mini": ["genre_hit", "year_hit"]} for t in tagged), system
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "items per metric they scored" in md and "genre_hit: " in md


def test_the_report_shows_each_status_and_how_the_run_was_made(toy, capsys):
    import html
    import shlex

    args = _args(toy)
    assert main(args) == 0
    assert main(["report", str(toy["out"])]) == 0
    capsys.readouterr()
    md = (toy["out"] / "report.md").read_text()
    page = (toy["out"] / "report.html").read_text()
    # per metric and system, the count of each status (with the items and the ok ones)
    assert "| metric | system | items | ok | missing_output | no_text |" in md.replace("\\_", "_")
    assert "| chrf | better | 12 | 10 | 1 | 1 |" in md and "| chrf | base | 12 | 12 | 0 | 0 |" in md
    # how: the command, the dates, the digests, every signature, the versions
    res = json.loads((toy["out"] / "results.json").read_text())
    prov = res["provenance"]
    command = shlex.join(["transcreval", *args])
    assert html.escape(command) in page
    for value in (
        prov["manifest"]["sha256"],
        prov["manifest"]["lock_sha256"],
        prov["created"],
        prov["evaluated"],
        prov["versions"]["numpy"],
        *prov["units"].values(),
    ):
        assert html.escape(value) in page and value.replace("|", "\\|") in md, value
    assert "How these numbers were made" in md and "Package versions" in md


def test_a_run_without_a_manifest_records_each_system_file_it_read(tmp_path, capsys):
    """PosterIQ's result files carry the ground truth: with no manifest, run.json and results.json
    record each file's path (relative ones under --root) and sha256, and the report shows them
    in place of a manifest."""
    from transcreval import evaluate

    item = {"task": "logo ocr", "subtask": "", "name": "A.jpg", "path": "logo_ocr/A.jpg", "prompt": "?", "gt": "A"}
    data = tmp_path / "data"
    data.mkdir()
    files = {"A": "Model-A_bench.json", "B": "Model-B_bench.json"}
    for name, answer in (("A", "A"), ("B", "B")):
        (data / files[name]).write_text(json.dumps([{**item, "response": answer}]), encoding="utf-8")
    out = tmp_path / "run"
    evaluate("posteriq", None, files, out, root=data)
    want = {s: {"path": str((data / f).resolve()), "sha256": _sha(data / f)} for s, f in files.items()}
    info = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert info["manifest"]["from"] == "the systems' own files" and info["manifest"]["files"] == want
    res = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert res["provenance"]["manifest"]["files"] == want
    assert main(["report", str(out)]) == 0
    capsys.readouterr()
    md = (out / "report.md").read_text(encoding="utf-8")
    how = md[md.index("How these numbers were made") :]
    assert "none: the ground truth came from the systems' own files" in how
    assert all(w["sha256"] in how for w in want.values())
