"""Exit codes that say what happened.

A judge that answers no call (always 500, always 429, or never within the timeout) is exit code 4,
not 0; every run with failed records prints a per-status summary on stderr; a local judge cache
that cannot be used (a corrupt file, a full disk) is a local problem with its own message and
fix, not "the judge cannot be used". The MPTc judge unit on the demo set against the fake
OpenAI-compatible server.
"""

from __future__ import annotations

import json

import pytest

from transcreval.cli import main
from transcreval.demo.run_set import write_demo_set
from transcreval.engines.judge.fake_server import FakeHang, FakeHTTPError, FakeOpenAIServer, synthetic_answer

pytest.importorskip("openai")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return write_demo_set(tmp_path_factory.mktemp("demo-set"))


def _args(demo, out, server, **judge):
    manifest, systems = demo
    cfg = json.dumps({"model": "fake-judge", "base_url": server.base_url, "max_retries": 0, **judge})
    args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(out), "--judge", cfg, "--metrics", "judge"]
    return [*args, "-s", f"redesign={systems['redesign']}", "--progress", "none"]


@pytest.mark.parametrize(
    ("fault", "status"),
    [(FakeHTTPError(500), "api_error"), (FakeHTTPError(429), "api_error"), (FakeHang(3.0), "timeout")],
    ids=["always-500", "always-429", "hang"],
)
def test_a_judge_that_answers_no_call_is_exit_code_4(demo, tmp_path, capsys, fault, status):
    with FakeOpenAIServer(lambda body: fault) as server:
        rc = main(_args(demo, tmp_path / "run", server, timeout=1))
        sent = server.request_count
    err = capsys.readouterr().err
    assert rc == 4, err
    assert sent > 0 and "the judge cannot be used" in err and f"{status} {sent}" in err
    assert "failures" in err and status in err  # the per-status summary
    assert (tmp_path / "run" / "results.json").is_file()  # the failures are on record, and a rerun redoes them


def test_exit_4_wins_over_a_budget_stop_and_both_are_said(demo, tmp_path, capsys):
    """Every call fails and the budget also stops the run: exit 4, and the "stopped early" line
    is printed too (the rerun has both to go on with)."""
    with FakeOpenAIServer(lambda body: FakeHTTPError(500)) as server:
        rc = main([*_args(demo, tmp_path / "run", server), "--max-judge-calls", "3"])
        sent = server.request_count
    err = capsys.readouterr().err
    assert rc == 4, err
    assert 0 < sent <= 3 and "the judge cannot be used" in err
    assert "stopped early" in err and "--max-judge-calls 3" in err


def test_some_failed_calls_are_exit_0_with_a_failure_summary(demo, tmp_path, capsys):
    n = {"calls": 0}

    def flaky(body):
        n["calls"] += 1
        return FakeHTTPError(500) if n["calls"] % 3 == 0 else synthetic_answer(body)

    with FakeOpenAIServer(flaky) as server:
        rc = main(_args(demo, tmp_path / "run", server))
    err = capsys.readouterr().err
    assert rc == 0, err
    assert err.startswith("failures")
    assert any("api_error" in x and "(of " in x for x in err.splitlines())
    capsys.readouterr()
    with FakeOpenAIServer() as server:  # all answered now: the failed lines are redone, no summary
        assert main(_args(demo, tmp_path / "run", server)) == 0
        assert server.request_count > 0
    assert "api_error" not in capsys.readouterr().err


def test_a_corrupt_judge_cache_is_a_local_problem_with_its_fix(demo, tmp_path, capsys):
    out = tmp_path / "run"
    (out / "cache").mkdir(parents=True)
    (out / "cache" / "judge.sqlite").write_bytes(b"not a database at all" * 50)
    with FakeOpenAIServer() as server:
        rc = main(_args(demo, out, server))
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "judge.sqlite" in err and "move the damaged file aside" in err and "not the judge" in err
    assert "the judge cannot be used" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_full_disk_under_the_judge_cache_is_a_local_problem(demo, tmp_path, capsys, monkeypatch):
    from transcreval.engines.judge.cache import JudgeCache
    from transcreval.errors import JudgeCacheError

    def full(self, *a, **k):
        raise JudgeCacheError(f"{self.path}: cannot write (SQLite says: database or disk is full)")

    monkeypatch.setattr(JudgeCache, "put_many", full, raising=False)
    monkeypatch.setattr(JudgeCache, "put", full, raising=False)
    with FakeOpenAIServer() as server:
        rc = main(_args(demo, tmp_path / "run", server))
    err = capsys.readouterr().err
    assert rc == 2 and "disk is full" in err and "not the judge" in err, err
