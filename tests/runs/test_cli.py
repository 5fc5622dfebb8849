"""The run commands: ls, validate, evaluate, rescore,
compare, report; --format json; exit codes; progress on stderr; kill -9 and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from sacrebleu.metrics import CHRF
from sacrebleu.significance import PairedTest

from tests._helpers.runner_toy import evaluate_args, write_set
from transcreval.cli import main

TOY = "tests._helpers.runner_toy:ADAPTER"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def toy(tmp_path):
    d = write_set(tmp_path / "data", n=30)
    d["out"] = tmp_path / "run"
    d["counter"] = tmp_path / "count.txt"
    return d


def _args(d, *extra):
    return evaluate_args(d, *extra)


def test_evaluate_prints_the_tables_and_json_is_machine_readable(toy, capsys):
    assert main(_args(toy)) == 0
    text = capsys.readouterr().out
    assert "**Toy table**" in text and "n/of" in text and "30/30" in text
    assert main(_args(toy, "--format", "json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["run_dir"] == str(toy["out"]) and data["stopped"] is None
    assert data["counts"]["better"]["chrf"] == {"n": 30, "of": 30, "failures": {}}
    assert data["tables"]["toy"]["name"] == "Toy table"
    assert main(["rescore", str(toy["out"]), "--format", "json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["tables"] == data["tables"] and again["counts"] == data["counts"]


def test_python_dash_m_runs_the_same_command(toy):
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        [sys.executable, "-m", "transcreval", *_args(toy, "--format", "json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tables"]["toy"]["rows"] == ["base", "better"]


def test_exit_code_2_names_the_problem_on_stderr(toy, capsys):
    bad = toy["manifest"].parent / "bad.jsonl"
    bad.write_text('{"id": "a", "reference_text": "x"}\n{"id": "a", "reference_text": "y"}\n')
    args = _args(toy)
    args[args.index("-m") + 1] = str(bad)
    assert main(args) == 2
    assert "bad.jsonl:2: id 'a' repeats bad.jsonl:1" in capsys.readouterr().err
    assert main(["rescore", str(toy["out"] / "nowhere")]) == 2
    assert main(["evaluate", "-p", "no-such", "-m", str(bad), "-o", str(toy["out"]), "-s", "a=b"]) == 2


@pytest.mark.parametrize("test_type", ["bs", "ar"])
def test_compare_agrees_with_sacrebleus_paired_tests_on_chrf(tmp_path, capsys, monkeypatch, test_type):
    """Same seed and resamples: sacrebleu's paired bootstrap / approximate randomisation on corpus
    chrF of the two systems' texts, against `transcreval compare` on the run (corpus chrF
    resampled from the stored per-item n-gram statistics; one item per cluster, as sacrebleu)."""
    toy = write_set(tmp_path / "data", n=40, grouped=False)
    toy["out"], toy["counter"] = tmp_path / "run", tmp_path / "count.txt"
    assert main(_args(toy)) == 0
    capsys.readouterr()
    seed, n = 12345, 1000
    test = "bootstrap" if test_type == "bs" else "randomization"
    args = ["compare", str(toy["out"]), "-b", "base", "--compat", "sacrebleu", "--seed", str(seed)]
    assert main([*args, "--n-resamples", str(n), "--test", test, "--format", "json"]) == 0
    rows = {r["metric"]: r for r in json.loads(capsys.readouterr().out)["comparisons"]}
    ids = sorted(toy["refs"])
    refs = [toy["refs"][i] for i in ids]
    base = [toy["texts"]["base"][i] for i in ids]
    better = [toy["texts"]["better"][i] for i in ids]
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    paired = PairedTest([("base", base), ("better", better)], {"chrF": CHRF()}, [refs], test_type, n, 1000)
    _, scores = paired()
    (key,) = [k for k in scores if k != "System"]
    bl, sy = scores[key]
    assert rows["chrf"]["baseline_value"] == pytest.approx(bl.score, abs=1e-9)
    assert rows["chrf"]["value"] == pytest.approx(sy.score, abs=1e-9)
    assert rows["chrf"]["p_value"] == sy.p_value
    assert 0.5 * (rows["chrf"]["value_ci"][1] - rows["chrf"]["value_ci"][0]) == pytest.approx(sy.ci, abs=1e-4)
    assert main(["compare", str(toy["out"]), "-b", "base"]) == 0
    assert "delta vs base" in capsys.readouterr().out
    assert (toy["out"] / "comparisons.json").is_file()


def test_report_writes_markdown_html_and_figures(toy, capsys):
    assert main(_args(toy)) == 0
    capsys.readouterr()
    assert main(["report", str(toy["out"]), "-b", "base", "--format", "json"]) == 0
    paths = json.loads(capsys.readouterr().out)
    assert Path(paths["html"]).name == "report.html" and Path(paths["markdown"]).is_file()
    md = Path(paths["markdown"]).read_text()
    assert "Toy table" in md and "Baseline base" in md


def test_progress_is_log_lines_off_a_terminal_and_silent_with_none(toy, capsys):
    assert main([*_args(toy)[:-2], "--progress", "log", "--option", f"counter={toy['counter']}"]) == 0
    err = capsys.readouterr().err
    assert "chrf: 0/60 (0%)" in err and "chrf: 60/60 (100%)" in err and "\r" not in err
    assert main(_args(toy, "--fresh")) == 0
    assert capsys.readouterr().err == ""


def test_bar_mode_draws_on_stderr(toy, capsys):
    assert main([*_args(toy), "--progress", "bar"]) == 0
    assert "\r" in capsys.readouterr().err


def test_validate_collects_every_problem_and_counts_groups(toy, capsys):
    assert main(["validate", "-p", TOY, "-m", str(toy["manifest"]), "-s", f"base={toy['systems']['base']}"]) == 0
    out = capsys.readouterr().out
    assert "30 item(s) in 15 group(s)" in out and "30/30 usable" in out and out.rstrip().endswith("ok")
    bad = toy["manifest"].parent / "bad.jsonl"
    bad.write_text('{"id": "a"}\n{"id": "b", "reference_text": "x", "colour": 1}\nnot json?\n')
    assert main(["validate", "-p", TOY, "-m", str(bad), "--format", "json"]) == 2
    got = capsys.readouterr()
    assert "not a JSON object" in got.err  # a line that is not JSON stops the reading: named with its line
    bad.write_text('{"id": "a"}\n{"id": "b", "reference_text": "x", "colour": 1}\n{"id": "c", "reference_text": "x"}\n')
    assert main(["validate", "-p", TOY, "-m", str(bad), "--format", "json"]) == 2
    rep = json.loads(capsys.readouterr().out)
    assert len(rep["errors"]) == 2 and rep["items"] == 1 and rep["ok"] is False
    assert "bad.jsonl:1" in rep["errors"][0] and "bad.jsonl:2" in rep["errors"][1]


def test_ls_protocols_and_metrics(capsys):
    assert main(["ls", "protocols"]) == 0
    out = capsys.readouterr().out
    assert all(p in out for p in ("mptc", "khanuja", "posteriq"))
    assert main(["ls", "metrics", "-p", "mptc", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [u["name"] for u in data["units"]] == ["judge", "clip", "fid", "ocr"] and "planner" in data["options"]
    assert main(["ls", "metrics"]) == 0
    assert "PHashDistance" in capsys.readouterr().out


def _stored_items(run: Path) -> set[str]:
    got = set()
    for p in (run / "items").glob("*/*.jsonl"):
        for line in p.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # the torn last line of the killed run
            if "item" in row:
                got.add(f"{p.stem} {p.parent.name} {row['item']}")
    return got


def test_kill_9_mid_run_then_resume_computes_nothing_twice(toy, tmp_path):
    """SIGKILL while a slow unit runs; the rerun scores exactly the items with no stored line,
    each once, and the results equal an uninterrupted run's."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = [sys.executable, "-m", "transcreval", *_args(toy, "--option", "delay=0.15", "--batch-size", "2")]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    chrf_file = toy["out"] / "items" / "base" / "chrf.jsonl"
    while time.monotonic() < deadline and proc.poll() is None:
        if chrf_file.exists() and len(chrf_file.read_text().splitlines()) >= 6:
            break
        time.sleep(0.05)
    assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read().decode()[-2000:]}"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    stored = _stored_items(toy["out"])
    scored_before = Counter(toy["counter"].read_text().splitlines())
    assert 6 <= len(stored) < 60  # mid-run: some, not all
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    rerun = Counter(toy["counter"].read_text().splitlines()) - scored_before
    everything = {f"{u} {s} {i}" for u in ("chrf", "length") for s in ("base", "better") for i in toy["refs"]}
    everything |= {f"feat {s} {i}" for s in ("base", "better", "REF") for i in toy["refs"]}
    assert set(rerun.values()) == {1}  # nothing scored twice in the rerun
    assert set(rerun) == everything - stored  # exactly the items without a stored line
    fresh = tmp_path / "fresh"
    assert main([*_args(toy)[:-2], "--option", f"counter={tmp_path / 'c2.txt'}", "-o", str(fresh)]) == 0
    a = json.loads((toy["out"] / "results.json").read_text())
    b = json.loads((fresh / "results.json").read_text())
    assert a["result"]["records"] == b["result"]["records"] and a["result"]["tables"] == b["result"]["tables"]


def test_compare_refuses_too_few_resamples_and_marks_tiny_samples(tmp_path, capsys):
    """`compare --n-resamples 1` is a one-line error; two source items are never significant
    ."""
    d = write_set(tmp_path / "data", n=2, grouped=False)
    d["out"], d["counter"] = tmp_path / "run", tmp_path / "count.txt"
    assert main(_args(d)) == 0
    capsys.readouterr()
    assert main(["compare", str(d["out"]), "-b", "base", "--n-resamples", "1"]) == 2
    err = capsys.readouterr().err
    assert "n_resamples=1 is too few" in err and "at least 40" in err and len(err.strip().splitlines()) == 1
    assert main(["compare", str(d["out"]), "-b", "base", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["comparisons"]
    assert rows and all(r["too_few_clusters"] and not r["significant"] for r in rows)
    assert main(["compare", str(d["out"]), "-b", "base"]) == 0
    assert "never significant" in capsys.readouterr().out
