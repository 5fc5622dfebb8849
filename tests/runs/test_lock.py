"""One process at a time in a run directory.

A second ``evaluate`` on a directory another process is evaluating refuses at once, naming the
holder (pid, host, start time); a lock left by ``kill -9`` is stale and taken over. Processes
are caught mid-run by the toy's ``gate`` option (a chrF batch waits for a file), so nothing
depends on timing; start-up timeouts are generous.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests._helpers.runner_toy import write_set
from transcreval import Run, evaluate
from transcreval.errors import InputError

TOY = "tests._helpers.runner_toy:ADAPTER"
ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 300


@pytest.fixture
def toy(tmp_path):
    d = write_set(tmp_path / "data", n=6)
    d["out"] = tmp_path / "run"
    d["counter"] = tmp_path / "count.txt"
    d["gate"] = tmp_path / "gate"
    return d


def _cmd(d, *extra):
    cmd = [sys.executable, "-m", "transcreval", "evaluate", "-p", TOY, "-m", str(d["manifest"]), "-o", str(d["out"])]
    for name, path in d["systems"].items():
        cmd += ["-s", f"{name}={path}"]
    return [*cmd, "--option", f"counter={d['counter']}", *extra]


def _env():
    return {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def _start_blocked(d):
    """A run held at its first chrF batch (it has taken the directory and scored nothing yet)."""
    proc = subprocess.Popen(
        _cmd(d, "--option", f"gate={d['gate']}", "--progress", "none"),
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and proc.poll() is None:
        if d["counter"].exists() and "chrf" in d["counter"].read_text():
            return proc
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"the first run never reached its chrF batch: {proc.communicate()[1][-3000:]}")


def test_a_second_evaluate_refuses_at_once_naming_the_holder(toy):
    first = _start_blocked(toy)
    try:
        second = subprocess.run(
            _cmd(toy, "--progress", "none"), cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=TIMEOUT
        )
        assert second.returncode == 2, second.stderr[-3000:]
        err = second.stderr
        assert f"pid {first.pid}" in err and socket.gethostname() in err and "since" in err
        assert len(err.strip().splitlines()) == 1  # one line, no traceback
    finally:
        toy["gate"].write_text("open")
        _, err = first.communicate(timeout=TIMEOUT)
    assert first.returncode == 0, err[-3000:]
    scored = Counter(toy["counter"].read_text().splitlines())
    assert set(scored.values()) == {1}  # nothing scored by both
    assert not (toy["out"] / "run.lock").exists()  # released


def test_a_lock_left_by_kill_9_is_stale_and_taken_over(toy):
    first = _start_blocked(toy)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=TIMEOUT)
    lock = json.loads((toy["out"] / "run.lock").read_text())
    assert lock["pid"] == first.pid and lock["host"] == socket.gethostname()
    second = subprocess.run(
        _cmd(toy, "--progress", "log"), cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=TIMEOUT
    )
    assert second.returncode == 0, second.stderr[-3000:]
    assert f"pid {first.pid}" in second.stderr and "gone" in second.stderr
    assert not (toy["out"] / "run.lock").exists()
    records = Run(toy["out"]).results.select(metric="chrf")
    assert len(records) == 12 and {r.status for r in records} == {"ok"}


def test_rescore_and_evaluate_in_this_process_refuse_while_the_directory_is_held(toy):
    from transcreval.runs.lock import run_lock

    evaluate(TOY, toy["manifest"], toy["systems"], toy["out"])
    with run_lock(toy["out"], "test"):
        with pytest.raises(InputError, match=f"pid {os.getpid()}"):
            evaluate(TOY, toy["manifest"], toy["systems"], toy["out"])
        with pytest.raises(InputError, match="in use"):
            Run(toy["out"]).rescore()
    assert Run(toy["out"]).rescore().records  # released: free again


def test_a_failed_start_leaves_no_directory_behind(toy, tmp_path):
    with pytest.raises(InputError, match="unknown option"):
        evaluate(TOY, toy["manifest"], toy["systems"], tmp_path / "never", options={"nope": 1})
    with pytest.raises(InputError):
        evaluate(TOY, toy["manifest"], {"base": tmp_path / "missing.jsonl"}, tmp_path / "never")
    assert not (tmp_path / "never").exists()
