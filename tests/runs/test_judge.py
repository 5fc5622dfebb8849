"""Judge cost control in the runner: dry runs, budgets, token totals, and a
judge that is never asked the same thing twice across an interrupted and resumed run.

The MPTc-Bench adapter's judge unit on the embedded demo set, against the fake OpenAI-compatible
server over HTTP (its request log is the ground truth of what was sent).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from transcreval.cli import main
from transcreval.demo.run_set import write_demo_set
from transcreval.engines.judge.fake_server import FakeOpenAIServer, prompt_text, synthetic_answer

pytest.importorskip("openai")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo-set")
    manifest, systems = write_demo_set(root)
    return manifest, systems


@pytest.fixture
def server():
    with FakeOpenAIServer() as s:
        yield s


def _args(demo, out, server, *extra, **judge_options):
    manifest, systems = demo
    judge = json.dumps({"model": "fake-judge", "base_url": server.base_url, "max_retries": 0, **judge_options})
    args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(out), "--judge", judge, "--metrics", "judge"]
    for name, path in systems.items():
        args += ["-s", f"{name}={path}"]
    return [*args, "--progress", "none", *extra]


def _bodies(server) -> Counter:
    return Counter(json.dumps(b, sort_keys=True) for b in server.requests)


def test_dry_run_counts_calls_and_sends_nothing_then_counts_them_cached(demo, server, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(_args(demo, out, server, "--dry-run", "--format", "json")) == 0
    dry = json.loads(capsys.readouterr().out)
    assert server.request_count == 0 and not out.exists()  # nothing sent, nothing written
    planned = dry["judge"]["judge"]
    assert planned["calls"] > 0 and planned["cached"] == 0 and planned["est_prompt_tokens"] > 85 * planned["calls"]
    assert {r["system"] for r in dry["rows"]} == {"text-edit", "redesign", "GT"}
    assert main(_args(demo, out, server)) == 0
    capsys.readouterr()
    assert server.request_count == planned["calls"]  # the dry run's count is what the run sent
    assert set(_bodies(server).values()) == {1}
    assert main(_args(demo, out, server, "--dry-run", "--format", "json")) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["judge"].get("judge", {}).get("calls", 0) == 0  # every item is done: nothing to ask
    assert all(r["done"] == r["items"] for r in again["rows"])


def _tree(folder):
    """Every file and its size, but SQLite's WAL side files (opening a WAL database, even read-only, makes them)."""
    return sorted(
        (str(p.relative_to(folder)), p.stat().st_size)
        for p in folder.rglob("*")
        if not p.name.endswith(("-shm", "-wal"))
    )


@pytest.mark.parametrize("where", ["inside", "outside"])
def test_a_fresh_dry_run_counts_what_fresh_leaves_the_cache_outside_the_run_included(
    demo, server, tmp_path, capsys, where
):
    """--fresh empties the run directory, a judge "cache" file in it included, but not one
    elsewhere: --dry-run --fresh predicts the calls the --fresh run then makes, either way, and
    changes nothing (tests/runs/test_review31.py checks the default cache)."""
    out = tmp_path / "run"
    cache = str((out if where == "inside" else tmp_path / "elsewhere") / "answers.sqlite")
    assert main(_args(demo, out, server, cache=cache)) == 0
    first = server.request_count
    capsys.readouterr()
    before = _tree(tmp_path)
    assert main(_args(demo, out, server, "--fresh", "--dry-run", "--format", "json", cache=cache)) == 0
    dry = json.loads(capsys.readouterr().out)
    assert _tree(tmp_path) == before and server.request_count == first  # nothing written, deleted or sent
    assert main(_args(demo, out, server, "--fresh", cache=cache)) == 0
    capsys.readouterr()
    paid = server.request_count - first
    assert paid == (first if where == "inside" else 0)
    assert dry["judge"]["judge"]["calls"] == paid
    assert dry["judge"]["judge"]["cached"] == first - paid
    assert all(r["done"] == 0 for r in dry["rows"])  # every item is scored again, from the cache or not


def test_a_fresh_dry_run_refuses_what_fresh_refuses(demo, server, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("not a run")
    assert main(_args(demo, out, server, "--fresh", "--dry-run")) == 2
    assert "holds no run.json" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_text_dry_run_prints_a_table(demo, server, tmp_path, capsys):
    assert main(_args(demo, tmp_path / "run", server, "--dry-run")) == 0
    out = capsys.readouterr().out
    assert "judge calls" in out and "est. prompt tokens" in out and "to compute" in out


def test_a_call_budget_stops_cleanly_and_the_rerun_never_asks_twice(demo, server, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(_args(demo, out, server, "--max-judge-calls", "20", "--batch-size", "1")) == 3
    err = capsys.readouterr().err
    assert "stopped early" in err and "--max-judge-calls 20" in err
    first = server.request_count
    assert 0 < first <= 20
    data = json.loads((out / "results.json").read_text())  # the work done so far is aggregated and kept
    assert data["judge_usage"]["per_unit"]["judge"]["calls"] == first
    assert main(_args(demo, out, server)) == 0
    assert set(_bodies(server).values()) == {1}  # no request was sent twice over the two runs
    data = json.loads((out / "results.json").read_text())
    usage = data["judge_usage"]["per_unit"]["judge"]
    assert usage["calls"] == server.request_count
    # the fake server reports (prompt + answer characters) // 4 + 2 tokens per call: the totals add them up
    want = sum((len(prompt_text(b)) + len(synthetic_answer(b))) // 4 + 2 for b in server.requests)
    assert usage["total_tokens"] == want
    assert data["judge_usage"]["total"]["calls"] == server.request_count
    assert {c["n"] for c in data["counts"]["redesign"].values() if c["of"]} >= {4}


@pytest.mark.parametrize(
    ("error", "code"),
    [(RuntimeError("a bug in the middle of a batch"), 1), (OSError(28, "No space left on device"), 2)],
)
def test_calls_paid_in_a_batch_an_error_ends_are_counted(demo, server, tmp_path, capsys, monkeypatch, error, code):
    """Whatever ends a batch between two of its judge calls (a bug, a full disk here; Ctrl-C in
    tests/runs/test_review31.py, the budget above), the calls it made were paid and their answers
    cached: a usage line records them, so judge_usage and the served-model counts over the failed
    run and its rerun equal the requests the endpoint got."""
    from transcreval.engines.judge.openai_judge import OpenAICompatibleJudge

    real = OpenAICompatibleJudge.complete
    seen = {"calls": 0}

    def failing(self, requests):
        seen["calls"] += 1
        if seen["calls"] == 3:  # the first batch's third set of calls: two were paid before
            raise error
        return real(self, requests)

    out = tmp_path / "run"
    monkeypatch.setattr(OpenAICompatibleJudge, "complete", failing)
    assert main(_args(demo, out, server)) == code
    assert server.request_count > 0
    monkeypatch.setattr(OpenAICompatibleJudge, "complete", real)
    assert main(_args(demo, out, server)) == 0
    capsys.readouterr()
    data = json.loads((out / "results.json").read_text())
    assert data["judge_usage"]["total"]["calls"] == server.request_count
    assert sum(data["provenance"]["judge"]["per_unit"]["judge"]["served"].values()) == server.request_count
    assert set(_bodies(server).values()) == {1}  # and none was asked twice


def test_a_token_budget_stops_before_spending(demo, server, tmp_path, capsys):
    assert main(_args(demo, tmp_path / "run", server, "--max-tokens", "10")) == 3
    assert "--max-tokens 10" in capsys.readouterr().err
    assert server.request_count == 0


def test_an_unreachable_judge_is_exit_code_4(demo, tmp_path, capsys):
    manifest, systems = demo
    judge = json.dumps({"model": "m", "base_url": "http://127.0.0.1:9/v1", "max_retries": 0, "timeout": 5})
    args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(tmp_path / "r"), "--judge", judge]
    args += ["-s", f"text-edit={systems['text-edit']}", "--metrics", "judge", "--progress", "none"]
    assert main(args) == 4
    assert "the judge cannot be used" in capsys.readouterr().err


def test_api_keys_never_come_from_the_judge_config(demo, tmp_path, capsys):
    manifest, systems = demo
    args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(tmp_path / "r"), "-s", f"a={systems['redesign']}"]
    assert main([*args, "--judge", '{"model": "m", "api_key": "sk-secret"}']) == 2
    err = capsys.readouterr().err
    assert "OPENAI_API_KEY" in err and "sk-secret" not in err


def test_validate_decodes_images_and_checks_protocol_fields(tmp_path, capsys):
    manifest, systems = write_demo_set(tmp_path)
    (tmp_path / "images" / "rrr_redesign.png").write_bytes(b"\x89PNG broken")
    rows = [json.loads(x) for x in systems["text-edit"].read_text().splitlines()]
    rows[0]["meta"] = {"error_labels": [["no_such_error"]]}
    systems["text-edit"].write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["validate", "-p", "mptc", "-m", str(manifest), "--format", "json"]
    assert main([*args, "-s", f"redesign={systems['redesign']}", "-s", f"text-edit={systems['text-edit']}"]) == 2
    rep = json.loads(capsys.readouterr().out)
    assert rep["systems"]["redesign"]["undecodable_output"] == 1 and rep["systems"]["redesign"]["ok"] == 3
    assert any("rrr" in w and "does not decode" in w for w in rep["warnings"])
    assert (
        len(rep["errors"]) == 1 and "unknown error type" in rep["errors"][0] and "text-edit.jsonl:1" in rep["errors"][0]
    )
    assert rep["groups"] == {"spirited": 1, "parasite": 1, "amelie": 1, "rrr": 1}


def test_a_key_in_extra_params_is_refused_and_stored_nowhere(demo, tmp_path, capsys):
    """``extra_query`` / ``extra_body`` secrets ended up in run.json, judge.sqlite and
    results.json; the run refuses them before writing anything."""
    manifest, systems = demo
    out = tmp_path / "r"
    args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(out), "-s", f"a={systems['redesign']}"]
    args += ["--metrics", "judge", "--progress", "none"]
    for extra in ({"extra_query": {"api-key": "sk-query-secret"}}, {"extra_body": {"access_token": "sk-query-secret"}}):
        cfg = {"model": "m", "base_url": "http://127.0.0.1:9/v1", "extra_params": extra}
        assert main([*args, "--judge", json.dumps(cfg)]) == 2
        err = capsys.readouterr().err
        assert "may not carry" in err and "sk-query-secret" not in err
    stored = [p for p in out.rglob("*") if p.is_file()] if out.exists() else []
    assert not any(b"sk-query-secret" in p.read_bytes() for p in stored), stored
