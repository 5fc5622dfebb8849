"""Judge budgets that make progress.

``--max-judge-calls`` below one batch ran nothing and stopped, on every rerun: a batch is now
scored item by item up to the budget, so each rerun goes on. Under several processes the budget
and ``--dry-run`` are global (one total over the ranks). The budget counts calls, every request
sent to the endpoint (a failed one asked again by a later batch counts again); the HTTP requests
they took, retries included, are reported beside them. When the budget stops a run whose judge
got no usable answer, exit code 4 wins and stderr says both. The MPTc judge unit on the demo set
against the fake OpenAI-compatible server.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from transcreval import evaluate
from transcreval.cli import main
from transcreval.demo.run_set import write_demo_set
from transcreval.engines.judge.fake_server import FakeHTTPError, FakeOpenAIServer, synthetic_answer

pytest.importorskip("openai")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return write_demo_set(tmp_path_factory.mktemp("demo-set"))


def _args(demo, out, server, *extra, retries=0):
    manifest, systems = demo
    cfg = json.dumps({"model": "fake-judge", "base_url": server.base_url, "max_retries": retries})
    args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(out), "--judge", cfg, "--metrics", "judge"]
    for name, path in systems.items():
        args += ["-s", f"{name}={path}"]
    return [*args, "--progress", "none", *extra]


def _bodies(server) -> Counter:
    return Counter(json.dumps(b, sort_keys=True) for b in server.requests)


def _full_count(demo, tmp_path) -> int:
    with FakeOpenAIServer() as server:
        assert main(_args(demo, tmp_path / "full", server)) == 0
        return server.request_count


def test_a_budget_below_one_batch_progresses_on_every_rerun(demo, tmp_path, capsys):
    need = _full_count(demo, tmp_path)
    budget = 5  # less than one batch of any prompt (4 posters): the old runner sent nothing, ever
    with FakeOpenAIServer() as server:
        codes, spent = [], []
        for _ in range(need):  # bounded: each pass must make progress
            before = server.request_count
            codes.append(main(_args(demo, tmp_path / "run", server, "--max-judge-calls", str(budget))))
            spent.append(server.request_count - before)
            if codes[-1] == 0:
                break
        capsys.readouterr()
        assert codes[-1] == 0 and set(codes[:-1]) <= {3}
        assert all(0 < s <= budget for s in spent[:-1])  # every stopped pass spent something, never past the budget
        assert server.request_count == need and set(_bodies(server).values()) == {1}  # nothing asked twice
    data = json.loads((tmp_path / "run" / "results.json").read_text())
    assert data["judge_usage"]["total"]["calls"] == need


def test_http_requests_with_retries_are_reported_beside_calls(demo, tmp_path, capsys):
    with FakeOpenAIServer() as server:
        server.script(FakeHTTPError(500), FakeHTTPError(503))  # two retried attempts, then answers
        assert main(_args(demo, tmp_path / "run", server, "--format", "json", retries=2)) == 0
        sent = server.request_count
    usage = json.loads(capsys.readouterr().out)["judge_usage"]["total"]
    assert usage["http_requests"] == sent and usage["calls"] == sent - 2


def test_the_budget_counts_every_call_sent_a_failed_request_asked_again_included(demo, tmp_path, capsys):
    """Each request fails the first time the endpoint sees it: a later batch of the same run that
    asks it again sends it again. The budget holds what the endpoint received, not distinct
    requests, and judge_usage's calls are those requests (docs/cli.md, judge cost control)."""
    seen: set[str] = set()

    def first_time_fails(body):
        key = json.dumps(body, sort_keys=True)
        if key in seen:
            return synthetic_answer(body)
        seen.add(key)
        return FakeHTTPError(500)

    budget = 40
    with FakeOpenAIServer(first_time_fails) as server:
        rc = main(_args(demo, tmp_path / "run", server, "--max-judge-calls", str(budget)))
        sent, bodies = server.request_count, _bodies(server)
    err = capsys.readouterr().err
    assert rc in (3, 4) and "stopped early" in err and f"--max-judge-calls {budget}" in err
    assert max(bodies.values()) == 2 and len(bodies) < sent  # some requests were sent twice in this one run
    assert sent == budget  # every one of them counted against the budget
    usage = json.loads((tmp_path / "run" / "results.json").read_text())["judge_usage"]["total"]
    assert usage["calls"] == sent and usage["failed"] == len(bodies)  # each first sending failed


def test_a_budget_stop_is_said_when_the_judge_also_answered_nothing(demo, tmp_path, capsys):
    """Every call fails and the budget stops the run: exit code 4 (the judge cannot be used) wins,
    and stderr says both, so the rerun is known to have work left."""
    with FakeOpenAIServer(lambda body: FakeHTTPError(500)) as server:
        rc = main(_args(demo, tmp_path / "run", server, "--max-judge-calls", "10"))
        assert 0 < server.request_count <= 10
    err = capsys.readouterr().err
    assert rc == 4, err
    assert "the judge cannot be used" in err
    assert "stopped early" in err and "--max-judge-calls 10" in err


def _budgeted(rank, world, group, manifest, systems, out, base_url, budget, dry_run):
    judge = {"model": "fake-judge", "base_url": base_url, "max_retries": 0}
    got = evaluate(
        "mptc",
        manifest,
        systems,
        out,
        judge=judge,
        metrics=["judge"],
        max_judge_calls=budget,
        dry_run=dry_run,
        batch_size=2,
    )
    if dry_run:
        return got.to_dict()
    return {"stopped": got.stopped, "primary": got.primary}


def test_under_several_processes_the_budget_and_the_dry_run_are_global(demo, tmp_path, ddp_pool):
    manifest, systems = demo
    paths = {k: str(v) for k, v in systems.items()}
    need = _full_count(demo, tmp_path)
    single = evaluate(
        "mptc",
        manifest,
        systems,
        tmp_path / "dry1",
        judge={"model": "m", "base_url": "http://127.0.0.1:9/v1"},
        metrics=["judge"],
        dry_run=True,
    )
    with FakeOpenAIServer() as server:
        dry = ddp_pool.run(_budgeted, 4, str(manifest), paths, str(tmp_path / "run"), server.base_url, None, True)
        assert server.request_count == 0
        assert dry[0]["judge"] == single.to_dict()["judge"]  # one total over the ranks, as one process counts
        budget, passes = 20, 0
        while passes < need:
            passes += 1
            before = server.request_count
            outs = ddp_pool.run(
                _budgeted, 4, str(manifest), paths, str(tmp_path / "run"), server.base_url, budget, False
            )
            assert server.request_count - before <= budget  # the budget is global: not 4 x 20
            stops = {o["stopped"] is not None for o in outs}
            assert len(stops) == 1  # every rank knows the run stopped
            if not stops.pop():
                break
            assert server.request_count > before  # and every pass made progress
        assert server.request_count == need and set(_bodies(server).values()) == {1}
    data = json.loads((tmp_path / "run" / "results.json").read_text())
    assert data["judge_usage"]["total"]["calls"] == need


def test_torchrun_holds_the_cli_budget_over_both_ranks(demo, tmp_path):
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    torchrun = shutil.which("torchrun") or str(Path(sys.executable).with_name("torchrun"))
    if not Path(torchrun).exists():
        pytest.skip("no torchrun next to this Python")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", "OMP_NUM_THREADS": "1"}
    with FakeOpenAIServer() as server:
        args = _args(demo, tmp_path / "run", server, "--max-judge-calls", "20", "--batch-size", "1")
        cmd = [torchrun, "--standalone", "--nproc-per-node", "2", "-m", "transcreval", *args]
        done = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)
        sent = server.request_count
    assert 0 < sent <= 20, done.stderr[-3000:]  # the old runner sent 40: each rank spent the whole budget
    assert done.stderr.count("stopped early") == 1  # rank 0 says it once
    assert "exitcode: 3" in done.stderr  # torchrun reports rank 0's code (and exits 1 itself)
    assert "transcreval/runs" not in done.stderr  # no traceback of ours
    data = json.loads((tmp_path / "run" / "results.json").read_text())
    assert data["judge_usage"]["total"]["calls"] == sent
