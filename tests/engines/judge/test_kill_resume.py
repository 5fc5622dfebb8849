"""SIGKILL a judging run at any point and rerun it: no answer that came back is lost, and no
call whose answer was stored is made again. The run and the fake endpoint are real processes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

N = 48
LATENCY = 0.4
#: an answer the server finished sending this long before the kill must be stored (the client
#: commits it within milliseconds; a loaded 2-core machine can stall a process for ~1 s)
COMMIT_GRACE = 1.5

RUN = textwrap.dedent(
    """
    import sys
    from transcreval.judge import OpenAICompatibleJudge, PromptTemplate
    t = PromptTemplate("kill.test", "1", 'Rate item {item}. Reply {{"score": <integer 1-5>}}')
    judge = OpenAICompatibleJudge("fake-judge", base_url=sys.argv[1], api_key="sk-x", cache=sys.argv[2],
                                  max_concurrency=4, max_retries=0, timeout=30)
    replies = judge.complete([t.render(item=str(i)) for i in range(int(sys.argv[3]))])
    assert all(r.status == "ok" for r in replies), [r.detail for r in replies if r.status != "ok"]
    print("done", sum(not r.cached for r in replies), flush=True)
    """
)


def prompts(path: Path) -> dict[str, str]:
    """key -> SHA-256 of the prompt text, for the stored answers."""
    import hashlib
    import json

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        out = {}
        for key, request in conn.execute("SELECT key, request FROM replies"):
            text = "\n".join(p["text"] for m in json.loads(request)["messages"] for p in m["content"])
            out[hashlib.sha256(text.encode()).hexdigest()] = key
        return out
    finally:
        conn.close()


def sent_before(log: Path, t: float) -> set[str]:
    """Prompts whose answers the server finished sending before time t."""
    out = set()
    for line in log.read_text().splitlines():
        kind, digest, *rest = line.split()
        if kind == "sent" and float(rest[0]) < t:
            out.add(digest)
    return out


def rows(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return dict(conn.execute("SELECT key, text FROM replies"))
    except sqlite3.OperationalError:  # the table is not created yet
        return {}
    finally:
        conn.close()


def lines(path: Path) -> int:
    """Requests the server received."""
    return sum(line.startswith("recv ") for line in path.read_text().splitlines()) if path.exists() else 0


@pytest.fixture
def endpoint(tmp_path):
    log = tmp_path / "requests.log"
    proc = subprocess.Popen(
        # 0.4 s per answer: a run of 48 calls at concurrency 4 takes ~5 s, so after the last kill
        # point (30 stored) ~2 s of calls remain, far more than a loaded machine's scheduling delays
        [sys.executable, "-m", "transcreval.engines.judge.fake_server", "--latency", str(LATENCY), "--log", str(log)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        yield url, log
    finally:
        proc.kill()
        proc.wait(30)


def test_sigkill_at_any_point_loses_nothing_and_repeats_nothing(tmp_path, endpoint):
    url, log = endpoint
    cache = tmp_path / "judge.sqlite"
    script = tmp_path / "run.py"
    script.write_text(RUN)
    cmd = [sys.executable, str(script), url, str(cache), str(N)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    for kill_at in (1, 9, 30):  # kill three times, at different points of the run
        kept = rows(cache)
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while len(rows(cache)) < kill_at and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert proc.poll() is None, "the run finished before it could be killed"
        killed_at = time.time()
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        after = rows(cache)
        # an answer that came back well before the kill (ample time to commit it) is stored
        assert sent_before(log, killed_at - COMMIT_GRACE) <= set(prompts(cache))
        # every answer stored before (and before this kill) is still there, unchanged
        assert {k: after[k] for k in kept} == kept
        assert len(after) >= kill_at

    stored, received_before = rows(cache), lines(log)
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    new_calls = int(done.stdout.split()[1])
    final = rows(cache)
    assert len(final) == N
    assert {k: final[k] for k in stored} == stored
    # the rerun asked only for what was missing, once each
    assert new_calls == N - len(stored)
    assert lines(log) - received_before == N - len(stored)


class Interrupted(BaseException):
    """What the test's SIGINT handler raises (a KeyboardInterrupt that cannot end the pytest session)."""


@pytest.mark.parametrize("concurrency", [2, 4])
def test_ctrl_c_stops_the_batch_and_keeps_only_the_calls_in_flight(tmp_path, concurrency):
    """SIGINT while a 60-call batch runs: no call starts after it; the calls in flight finish and
    are cached (before the fix the pool went on and sent all 60, in a script or a notebook)."""
    import threading

    from transcreval.judge import FunctionJudge, JudgeCache, PromptTemplate

    started: list[str] = []
    lock = threading.Lock()
    # Python drops an exception that a signal handler raises while the main thread runs a weakref
    # callback or __del__ ("Exception ignored in ..."): rare, and no library can catch it. Then
    # the handler has run but the batch goes on; the interrupt is sent again, and the claim is
    # checked against the interrupt that did arrive (``sent[-1]``).
    sent: list[int] = []
    handled: list[int] = []

    def fn(request):
        with lock:
            started.append(request.text)
            n = len(started)
            lost = bool(handled) and len(handled) == len(sent) and n > sent[-1] + concurrency
            if n == 5 or lost:
                sent.append(n)
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        time.sleep(0.02)
        return '{"score": 3}'

    def interrupt(*_):
        handled.append(len(started))
        raise Interrupted

    t = PromptTemplate("ctrl-c.test", "1", "Rate item {item}.")
    judge = FunctionJudge(fn, cache=tmp_path / "c.sqlite", max_concurrency=concurrency)
    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        with pytest.raises(Interrupted):
            judge.complete([t.render(item=str(i)) for i in range(60)])
    finally:
        signal.signal(signal.SIGINT, previous)
    judge.close()  # waits for the worker threads: nothing more may start meanwhile
    time.sleep(0.1)
    assert len(sent) <= 3, f"the interrupt was lost {len(sent) - 1} times"
    assert sent[-1] <= len(started) <= sent[-1] + concurrency
    assert judge.calls_made == len(started)
    assert len(JudgeCache(tmp_path / "c.sqlite")) == len(started)  # every call that returned is kept
    again = FunctionJudge(fn, cache=tmp_path / "c.sqlite", max_concurrency=concurrency)
    started.clear()
    replies = again.complete([t.render(item=str(i)) for i in range(5)])  # five that had started
    assert all(r.ok and r.cached for r in replies) and started == []
