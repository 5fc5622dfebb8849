"""Judge client throughput against a fake endpoint with 50 ms latency (a separate process).

* 1,000 calls at concurrency 16: the ideal wall time is 1000 x 50 ms / 16 = 3.125 s; ours must
  stay within 1.3x of it. The reference is the bare openai SDK driven by a 16-thread pool with
  no cache (the least any client must pay), timed on the same endpoint in the same run.
* The cached rerun (a new judge on the same cache file) makes zero requests and takes < 1 s.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from transcreval.judge import OpenAICompatibleJudge, PromptTemplate

N, CONCURRENCY, LATENCY = 1000, 16, 0.05
IDEAL = N * LATENCY / CONCURRENCY
TEMPLATE = PromptTemplate("bench.score", "1", 'Rate item {item} of round {round}. Reply {{"score": <integer 1-5>}}')
_round = itertools.count()


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory):
    log = tmp_path_factory.mktemp("judge") / "requests.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "transcreval.engines.judge.fake_server", "--latency", str(LATENCY), "--log", str(log)],
        stdout=subprocess.PIPE,
        text=True,
    )
    url = proc.stdout.readline().strip()
    yield url, log
    proc.kill()
    proc.wait(30)


def received(log: Path) -> int:
    return sum(line.startswith("recv ") for line in log.read_text().splitlines()) if log.exists() else 0


def _requests(r: int):
    return [TEMPLATE.render(item=str(i), round=str(r)) for i in range(N)]


GROUP = "judge: 1000 calls, 16 in flight, 50 ms latency"


def test_reference_bare_sdk(endpoint, timed):
    url, _ = endpoint
    from openai import OpenAI

    client = OpenAI(base_url=url, api_key="sk-bench", max_retries=0)

    def reference():
        messages = [OpenAICompatibleJudge._messages(q) for q in _requests(next(_round))]
        with ThreadPoolExecutor(CONCURRENCY) as pool:
            out = list(
                pool.map(
                    lambda m: client.chat.completions.create(model="fake-judge", messages=m, temperature=0, seed=0),
                    messages,
                )
            )
        assert len(out) == N

    timed(GROUP, "reference", reference, rounds=3)


def test_ours_1000_calls_within_1_3x_of_ideal(endpoint, tmp_path, timed, benchmark):
    url, log = endpoint
    judge = OpenAICompatibleJudge(
        "fake-judge", base_url=url, api_key="sk-bench", cache=tmp_path / "c.sqlite", max_concurrency=CONCURRENCY
    )

    def ours():
        before = received(log)
        replies = judge.complete(_requests(next(_round)))
        assert all(x.status == "ok" and not x.cached for x in replies)
        assert received(log) - before == N

    timed(GROUP, "ours", ours, rounds=3)
    best, median = benchmark.stats.stats.min, benchmark.stats.stats.median
    print(
        f"\n1000 calls: ideal {IDEAL:.3f} s, ours best {best:.3f} s = {best / IDEAL:.2f}x the ideal "
        f"(median {median:.3f} s = {median / IDEAL:.2f}x)"
    )
    # the best of three rounds: other processes on a shared machine only ever slow a round down
    assert best <= 1.3 * IDEAL, f"{best:.2f} s is more than 1.3x the ideal {IDEAL:.3f} s"


def test_cached_rerun_makes_no_request(endpoint, tmp_path, timed, benchmark):
    url, log = endpoint
    path = tmp_path / "c.sqlite"
    reqs = _requests(next(_round))
    OpenAICompatibleJudge("fake-judge", base_url=url, api_key="sk-bench", cache=path, max_concurrency=16).complete(reqs)
    before = received(log)

    def rerun():
        judge = OpenAICompatibleJudge("fake-judge", base_url=url, api_key="sk-bench", cache=path, max_concurrency=16)
        replies = judge.complete(reqs)
        assert all(r.cached for r in replies) and judge.calls_made == 0
        judge.close()

    timed("judge: cached rerun of 1000 calls", "ours", rerun, rounds=5)
    wall = benchmark.stats.stats.max
    print(f"\ncached rerun of 1000 calls: {wall * 1e3:.0f} ms, {received(log) - before} requests")
    assert received(log) == before
    assert wall < 1.0
