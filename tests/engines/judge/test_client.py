"""OpenAICompatibleJudge against a scripted loopback server: every status, retries, caching."""

from __future__ import annotations

import base64
import io
import json
import logging
import pickle
import re
import socket
import time
import warnings

import numpy as np
import pytest
from PIL import Image

from tests.judge.conftest import SCORE_TEMPLATE, SECRET, TEXT_TEMPLATE, image
from transcreval.engines.judge.fake_server import (
    FakeAnswer,
    FakeDrop,
    FakeHang,
    FakeHTTPError,
    FakeOpenAIServer,
    FakeRaw,
)
from transcreval.errors import JudgeConfigError, JudgeUnreachableError
from transcreval.judge import JudgeCache, OpenAICompatibleJudge


def make(server, cache=None, **kw):
    kw.setdefault("max_retries", 2)
    kw.setdefault("timeout", 5.0)
    return OpenAICompatibleJudge("fake-judge", base_url=server.base_url, api_key=SECRET, cache=cache, **kw)


def ask(judge, item="1"):
    return judge.complete([TEXT_TEMPLATE.render(item=item)])[0]


def test_ok_answer_is_cached_and_replayed_without_a_request(server, cache_path):
    server.script('{"score": 4}')
    judge = make(server, cache_path)
    r = ask(judge)
    assert (r.status, r.text, r.cached, r.finish_reason, r.model) == ("ok", '{"score": 4}', False, "stop", "fake-judge")
    assert r.usage and r.usage["completion_tokens"] >= 1
    assert server.request_count == 1
    again = make(server, cache_path)  # a new process would do the same: a new judge on the same file
    r2 = ask(again)
    assert (r2.status, r2.text, r2.cached, r2.key) == ("ok", '{"score": 4}', True, r.key)
    assert server.request_count == 1 and again.calls_made == 0


def test_defaults_sent_temperature_zero_and_seed(server):
    ask(make(server))
    body = server.requests[0]
    assert body["temperature"] == 0 and body["seed"] == 0 and body["max_tokens"] == 1024
    assert body["model"] == "fake-judge"
    assert server.auth_headers[0] == f"Bearer {SECRET}"


def test_none_parameters_are_not_sent(server):
    ask(make(server, temperature=None, seed=None))
    assert "temperature" not in server.requests[0] and "seed" not in server.requests[0]


def test_429_with_retry_after_is_honoured(server):
    server.script(FakeHTTPError(429, headers={"retry-after": "1.2"}), '{"score": 2}')
    t0 = time.perf_counter()
    r = ask(make(server))
    waited = time.perf_counter() - t0
    assert r.status == "ok" and r.text == '{"score": 2}'
    assert server.request_count == 2
    assert waited >= 1.15  # the SDK's own backoff would be ~0.5 s: the header was followed


def test_retry_after_ms_is_honoured(server):
    server.script(FakeHTTPError(503, headers={"retry-after-ms": "900"}), '{"score": 2}')
    t0 = time.perf_counter()
    assert ask(make(server)).status == "ok"
    assert time.perf_counter() - t0 >= 0.85


def test_rate_limit_that_outlives_the_retries_is_an_api_error_and_not_cached(server, cache_path):
    server.script(*[FakeHTTPError(429, headers={"retry-after": "0.05"})] * 3)
    judge = make(server, cache_path, max_retries=2)
    r = ask(judge)
    assert r.status == "api_error" and "rate limited after 2 retries" in r.detail and r.text is None
    assert server.request_count == 3
    assert len(JudgeCache(cache_path)) == 0
    server.script('{"score": 1}')
    assert ask(judge).status == "ok"  # asked again: errors were never cached
    assert server.request_count == 4


def test_5xx_is_retried_then_succeeds(server):
    server.script(FakeHTTPError(500), FakeHTTPError(502), '{"score": 3}')
    r = ask(make(server, max_retries=2))
    assert r.status == "ok" and server.request_count == 3


def test_5xx_forever_is_an_api_error(server):
    server.script(*[FakeHTTPError(500, message="boom")] * 2)
    r = ask(make(server, max_retries=1))
    assert r.status == "api_error" and "HTTP 500" in r.detail and "boom" in r.detail


def test_hang_past_the_timeout_is_a_timeout(server, cache_path):
    server.script(FakeHang(30), FakeHang(30))
    judge = make(server, cache_path, timeout=0.4, max_retries=1)
    r = ask(judge)
    assert r.status == "timeout" and r.text is None and "0.4 s" in r.detail
    assert server.request_count == 2
    assert len(JudgeCache(cache_path)) == 0


def test_malformed_response_body_is_an_api_error(server):
    server.script(FakeRaw(b'{"choices": [ this is not json'))
    r = ask(make(server))
    assert r.status == "api_error" and "malformed" in r.detail


def test_an_answer_that_is_not_json_is_an_api_error(server):
    server.script(FakeRaw(b"upstream proxy error", content_type="text/plain"), FakeRaw(b"[1, 2]"))
    judge = make(server)
    first, second = ask(judge, "a"), ask(judge, "b")  # one at a time: scripted answers go in arrival order
    assert first.status == "api_error" and "not a JSON object" in first.detail and "upstream proxy" in first.detail
    assert second.status == "api_error" and "not a JSON object" in second.detail


def test_requests_and_replies_equal_the_sdks_typed_call(server):
    """We POST through the SDK client and read the JSON ourselves (chat.completions.create costs
    ~0.5 ms more CPU a call): the body, headers and reply fields must equal what create sends and
    returns for the same parameters, extra_body / extra_headers / extra_query included."""
    from openai import OpenAI

    extra = {
        "response_format": {"type": "json_object"},
        "stop": ["\n\n"],
        "extra_body": {"top_k": 1},
        "extra_headers": {"X-Run": "r1"},
        "extra_query": {"api-version": "2"},
    }
    answer = FakeAnswer('{"score": 3}', finish_reason="stop")
    server.script(answer, answer)
    judge = make(server, temperature=0.2, seed=7, max_tokens=64, extra_params=extra)
    ours = ask(judge)
    request = judge._prepare(TEXT_TEMPLATE.render(item="1"))
    params = judge.effective_params(request)
    sdk = OpenAI(base_url=server.base_url, api_key=SECRET, max_retries=0)
    typed = sdk.chat.completions.create(model="fake-judge", messages=judge._messages(request), **params)
    assert server.requests[0] == server.requests[1]
    assert server.request_paths[0] == server.request_paths[1] == "/v1/chat/completions?api-version=2"
    assert server.requests[0]["top_k"] == 1 and "extra_body" not in server.requests[0]
    ours_h, sdk_h = ({k.lower(): v for k, v in h.items()} for h in server.request_headers[:2])
    for h in (ours_h, sdk_h):
        h.pop("x-stainless-retry-count", None)
        h.pop("x-stainless-read-timeout", None)
        h.pop("x-stainless-timeout", None)
    assert ours_h == sdk_h and ours_h["x-run"] == "r1"
    assert (ours.text, ours.model, ours.finish_reason, ours.system_fingerprint) == (
        typed.choices[0].message.content,
        typed.model,
        typed.choices[0].finish_reason,
        typed.system_fingerprint,
    )
    assert ours.usage == {k: getattr(typed.usage, k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}


def test_a_servers_own_request_field_is_sent_in_the_body(server):
    """extra_params are request fields: a server's own (vLLM's top_k) is sent as given; create would
    refuse it as an unknown argument before sending anything."""
    server.script('{"score": 2}')
    r = ask(make(server, extra_params={"top_k": 5, "repetition_penalty": 1.1}))
    assert r.status == "ok"
    assert server.requests[0]["top_k"] == 5 and server.requests[0]["repetition_penalty"] == 1.1


def test_response_without_choices_is_an_api_error(server):
    server.script(FakeRaw(json.dumps({"id": "x", "object": "chat.completion", "choices": []}).encode()))
    r = ask(make(server))
    assert r.status == "api_error" and "no choices" in r.detail


def test_truncated_answer_keeps_its_text_but_is_not_cached(server, cache_path):
    server.script(FakeAnswer('{"score": ', finish_reason="length"))
    judge = make(server, cache_path)
    r = ask(judge)
    assert r.status == "truncated" and r.text == '{"score": ' and "max_tokens" in r.detail
    assert len(JudgeCache(cache_path)) == 0


@pytest.mark.parametrize(
    "action",
    [
        FakeAnswer(None, refusal="I can't help with that."),
        FakeAnswer("", finish_reason="content_filter"),
        FakeHTTPError(400, message="The response was filtered", code="content_filter"),
        FakeHTTPError(400, message="blocked by the content management policy"),
    ],
    ids=["refusal-field", "finish-content-filter", "400-code", "400-azure-wording"],
)
def test_refusals(server, cache_path, action):
    server.script(action)
    judge = make(server, cache_path)
    r = ask(judge)
    assert r.status == "refused", r
    assert server.request_count == 1  # refusals are not retried
    assert len(JudgeCache(cache_path)) == 0


def test_other_400_is_an_api_error(server):
    server.script(FakeHTTPError(400, message="max_tokens is too large"))
    r = ask(make(server))
    assert r.status == "api_error" and "HTTP 400" in r.detail and "max_tokens is too large" in r.detail


def test_empty_answer_is_an_api_error(server):
    server.script(FakeAnswer("   "))
    assert ask(make(server)).status == "api_error"


def test_auth_error_raises_and_keeps_earlier_answers(server, cache_path):
    server.script('{"score": 1}', '{"score": 2}', FakeHTTPError(401, message=f"Incorrect API key provided: {SECRET}"))
    judge = make(server, cache_path, max_concurrency=1)
    with pytest.raises(JudgeConfigError) as e:
        judge.complete([TEXT_TEMPLATE.render(item=str(i)) for i in range(4)])
    assert "rejected the API key" in str(e.value) and SECRET not in str(e.value)
    assert len(JudgeCache(cache_path)) == 2  # what came back before the error is kept
    assert server.request_count == 3  # and nothing after the error was sent


def test_auth_error_in_a_concurrent_batch_stops_sending(cache_path):
    def responder(body):
        return FakeHTTPError(401, message="bad key")

    with FakeOpenAIServer(responder, latency=0.05) as server:
        judge = make(server, cache_path, max_concurrency=4)
        with pytest.raises(JudgeConfigError):
            judge.complete([TEXT_TEMPLATE.render(item=str(i)) for i in range(40)])
        assert server.request_count < 40


def test_unknown_model_raises(server):
    server.script(FakeHTTPError(404, message="model 'x' does not exist"))
    with pytest.raises(JudgeConfigError, match="404 for model 'fake-judge'"):
        ask(make(server))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_endpoint_raises_a_clear_error():
    judge = OpenAICompatibleJudge(
        "m", base_url=f"http://127.0.0.1:{_free_port()}/v1", api_key=SECRET, max_retries=0, timeout=2
    )
    with pytest.raises(JudgeUnreachableError, match=r"never answered.*check base_url"):
        ask(judge)


def test_connection_lost_after_a_first_answer_is_a_per_item_error(server):
    judge = make(server, max_retries=0)
    server.script('{"score": 1}')
    assert ask(judge, "a").status == "ok"
    server.stop()
    r = ask(judge, "b")
    assert r.status == "api_error" and "connection failed" in r.detail


def test_missing_key_for_the_hosted_api_is_an_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(JudgeConfigError, match="OPENAI_API_KEY"):
        OpenAICompatibleJudge("gpt-4o")


def test_key_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-42")
    judge = OpenAICompatibleJudge("fake-judge", base_url=server.base_url)
    ask(judge)
    assert server.auth_headers[-1] == "Bearer sk-from-env-42"


def test_local_server_without_a_key(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert ask(OpenAICompatibleJudge("fake-judge", base_url=server.base_url)).status == "ok"


def test_images_are_sent_as_lossless_png_data_urls(server):
    img = image(3, (9, 7))
    judge = make(server)
    judge.complete([SCORE_TEMPLATE.render({"image": img}, item="x")])
    content = server.requests[0]["messages"][0]["content"]
    urls = [p["image_url"]["url"] for p in content if p["type"] == "image_url"]
    assert len(urls) == 1 and urls[0].startswith("data:image/png;base64,")
    decoded = Image.open(io.BytesIO(base64.b64decode(urls[0].split(",", 1)[1])))
    assert decoded.format == "PNG" and np.array_equal(np.asarray(decoded.convert("RGB")), img)
    assert [p["type"] for p in content] == ["image_url", "text"]  # the marker put the image first


def test_identical_requests_in_a_batch_make_one_call(server):
    judge = make(server, max_concurrency=4)
    replies = judge.complete([TEXT_TEMPLATE.render(item="same")] * 5 + [TEXT_TEMPLATE.render(item="other")])
    assert server.request_count == 2
    assert len({r.key for r in replies}) == 2 and all(r.status == "ok" for r in replies)


def test_concurrency_is_bounded():
    with FakeOpenAIServer(latency=0.1) as server:
        judge = make(server, max_concurrency=3)
        replies = judge.complete([TEXT_TEMPLATE.render(item=str(i)) for i in range(12)])
        assert all(r.status == "ok" for r in replies)
        assert server.request_count == 12 and server.max_in_flight <= 3


def test_the_fake_endpoint_never_answers_before_its_latency(monkeypatch):
    """The latency counts from the request's arrival, the server's own work inside it: a slow
    responder (here 10 ms of a 100 ms latency) still answers no sooner than 100 ms after the
    request (a lower bound only), and the server sleeps only what is left, not a further 100 ms."""
    import sys

    import transcreval.engines.judge.fake_server as fake

    slept = []
    real_sleep = time.sleep

    def sleep(seconds):
        if sys._getframe(1).f_globals.get("__name__") == fake.__name__:  # the server's sleeps only
            slept.append(seconds)
        real_sleep(seconds)

    def responder(body):
        real_sleep(0.01)
        return '{"score": 3}'

    monkeypatch.setattr(fake.time, "sleep", sleep)
    with FakeOpenAIServer(responder, latency=0.1) as server:
        started = time.monotonic()
        assert ask(make(server), "1").status == "ok"
        assert time.monotonic() - started >= 0.1
    assert len(slept) <= 1 and all(s <= 0.1 - 0.01 for s in slept)  # none when the machine stalled 90 ms


def test_replies_keep_the_request_order():
    def responder(body):
        item = re.search(r"item (\d+)", body["messages"][0]["content"]).group(1)
        return json.dumps({"score": int(item) % 5 + 1})

    with FakeOpenAIServer(responder, latency=0.01) as server:
        replies = make(server, max_concurrency=8).complete([TEXT_TEMPLATE.render(item=str(i)) for i in range(30)])
    assert [json.loads(r.text)["score"] for r in replies] == [i % 5 + 1 for i in range(30)]


def test_read_only_and_off_modes(server, cache_path):
    make(server, cache_path).complete([TEXT_TEMPLATE.render(item="1")])
    ro = make(server, cache_path, cache_mode="read-only")
    assert ask(ro, "1").cached
    assert not ask(ro, "2").cached
    assert len(JudgeCache(cache_path)) == 1  # read-only never writes
    off = make(server, cache_path, cache_mode="off")
    n = server.request_count
    assert not ask(off, "1").cached and server.request_count == n + 1


def test_the_api_key_never_reaches_logs_cache_pickles_or_errors(server, cache_path, caplog):
    caplog.set_level(logging.DEBUG)  # every logger, the SDK's and httpx's included
    server.script(
        '{"score": 5}',
        FakeHTTPError(500, message=f"internal error for key {SECRET}"),
        FakeHTTPError(500, message=f"internal error for key {SECRET}"),
        FakeHTTPError(400, message=f"bad request from {SECRET}"),
        FakeHTTPError(401, message=f"Incorrect API key provided: {SECRET}"),
    )
    judge = make(server, cache_path, max_retries=1, max_concurrency=1)
    texts = []
    for item in ("1", "2", "3"):
        r = ask(judge, item)
        texts += [r.detail, repr(r)]
    with pytest.raises(JudgeConfigError) as e:
        ask(judge, "4")
    texts += [str(e.value), repr(e.value), repr(judge), str(judge.describe())]
    assert all(SECRET not in t for t in texts)
    assert SECRET not in caplog.text
    for suffix in ("", "-wal", "-shm"):
        p = cache_path.parent / (cache_path.name + suffix)
        if p.exists():
            assert SECRET.encode() not in p.read_bytes()
    assert SECRET.encode() not in pickle.dumps(judge)


def test_pickled_judge_reads_the_key_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-after-unpickle")
    judge = pickle.loads(pickle.dumps(make(server)))
    ask(judge)
    assert server.auth_headers[-1] == "Bearer sk-env-after-unpickle"


def test_an_unpickled_judge_built_with_a_key_says_it_needs_one(server, monkeypatch, caplog):
    """A judge given api_key= never falls back to the placeholder key once unpickled: with no
    OPENAI_API_KEY it says why it cannot call; with one it says which key it uses."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judge = pickle.loads(pickle.dumps(make(server)))
    with pytest.raises(
        JudgeConfigError, match=r"never pickled \(it was built with api_key=\.\.\.\): set OPENAI_API_KEY"
    ):
        ask(judge)
    assert server.request_count == 0
    keyless = pickle.loads(pickle.dumps(OpenAICompatibleJudge("fake-judge", base_url=server.base_url)))
    ask(keyless)  # a local server that checks no key: the placeholder, as before pickling
    assert server.auth_headers[-1] == "Bearer EMPTY"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-42")
    with caplog.at_level(logging.WARNING, logger="transcreval.judge"):
        judge = pickle.loads(pickle.dumps(make(server)))
    assert "uses OPENAI_API_KEY of this process" in caplog.text
    ask(judge, "2")
    assert server.auth_headers[-1] == "Bearer sk-env-42"


def test_pickling_keeps_plain_headers_and_drops_secret_ones_saying_so(server, caplog):
    headers = {"X-Title": "my eval", "HTTP-Referer": "https://example.org", "api-key": SECRET, "X-Auth-Token": SECRET}
    judge = make(server, default_headers=headers)
    blob = pickle.dumps(judge)
    assert SECRET.encode() not in blob
    twin = pickle.loads(blob)
    assert twin._headers == {"X-Title": "my eval", "HTTP-Referer": "https://example.org"}
    server.script(FakeHTTPError(401, message="missing api-key header"))
    with caplog.at_level(logging.WARNING, logger="transcreval.judge"):
        twin._api_key = "sk-present"  # the key is there; the Azure-style header is not
        with pytest.raises(JudgeConfigError, match=r"unpickled without the header\(s\) \['X-Auth-Token', 'api-key'\]"):
            ask(twin)
    assert "X-Auth-Token" in caplog.text
    sent = {k.lower(): v for k, v in server.request_headers[-1].items()}
    assert sent["x-title"] == "my eval" and sent["http-referer"] == "https://example.org"
    assert "api-key" not in sent and "x-auth-token" not in sent


def test_bad_options_are_rejected(server):
    for kw, match in (
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"timeout": 0}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"extra_params": {"messages": []}}, "extra_params"),
        ({"extra_params": {"extra_headers": "X-Run: 1"}}, "extra_headers"),
        ({"extra_params": {"extra_body": [("top_k", 1)]}}, "extra_body"),
        ({"cache_mode": "sometimes"}, "cache mode"),
    ):
        with pytest.raises(ValueError, match=match):
            make(server, **kw)


# ----------------------------------------------------------------------  items 26, 27
def test_a_connection_dropped_mid_answer_before_any_answer_is_a_per_item_error(cache_path):
    """Item 27: the endpoint is there (it sent a status line and part of the body) but the
    connection dropped before the first answer completed: a per-item api_error, not 'unreachable';
    the other items are asked and scored."""
    from transcreval import JudgeScore

    with FakeOpenAIServer(lambda body: '{"score": 4}') as server:
        server.script(FakeDrop(), FakeDrop())  # the first attempt and its one retry
        judge = make(server, cache_path, max_retries=1, max_concurrency=1)
        r = ask(judge, "first")
        assert r.status == "api_error" and "dropped before the answer was complete" in r.detail
        assert "RemoteProtocolError" in r.detail and SECRET not in r.detail
        assert server.request_count == 2 and len(JudgeCache(cache_path)) == 0  # retried, never cached
        server.script(FakeDrop(), FakeDrop())
        img = [image(i) for i in range(3)]
        res = JudgeScore(judge=judge)(img, img, target_market="Japan", source_market="USA", genre="drama")
        assert res.extras["item_status"].count("api_error") == 1 and res.n == 2 and res.value == 4.0


def test_a_refused_connection_is_still_unreachable():
    judge = OpenAICompatibleJudge("m", base_url=f"http://127.0.0.1:{_free_port()}/v1", api_key=SECRET, max_retries=0)
    with pytest.raises(JudgeUnreachableError, match="never answered"):
        ask(judge)


@pytest.mark.parametrize(
    ("asked", "served", "same"),
    [
        ("gpt-4o", "gpt-4o", True),
        ("gpt-4o", "gpt-4o-2024-08-06", True),
        ("claude-3-5-sonnet", "claude-3-5-sonnet-20241022", True),
        ("gpt-4", "gpt-4-0613", True),
        ("llava", "llava:latest", True),
        ("Qwen/Qwen2.5-VL-7B-Instruct", "qwen/qwen2.5-vl-7b-instruct", True),
        ("gpt-4o", None, True),
        ("gpt-4o", "gpt-4o-mini", False),
        ("gpt-4o", "gpt-4o-mini-2024-07-18", False),
        ("gpt-x", "WRONG-MODEL", False),
        ("gpt-4o-2024-08-06", "gpt-4o", False),
    ],
)
def test_served_model_names_that_are_the_model_asked_for(asked, served, same):
    from transcreval.engines.judge.base import same_model

    assert same_model(asked, served) is same


def test_an_answer_from_another_model_is_recorded_and_warned_about(cache_path, capsys):
    """Item 26: a response naming another model was scored, cached under the asked name and
    replayed, with no warning."""
    from transcreval.cli import main as cli_main
    from transcreval.errors import JudgeModelWarning
    from transcreval.judge import ReplayJudge

    with FakeOpenAIServer(lambda body: '{"score": 4}', model="WRONG-MODEL") as server:
        judge = OpenAICompatibleJudge("gpt-x", base_url=server.base_url, api_key=SECRET, cache=cache_path)
        reqs = [TEXT_TEMPLATE.render(item=str(i)) for i in range(3)]
        with pytest.warns(JudgeModelWarning, match=r"'WRONG-MODEL' when 'gpt-x' was asked \(3 answer"):
            replies = judge.complete(reqs)
        assert [r.model for r in replies] == ["WRONG-MODEL"] * 3 and all(r.ok for r in replies)
        assert judge.served_models == {"WRONG-MODEL": 3}
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            judge.complete(reqs)  # warned once per judge and name
    rows = list(JudgeCache(cache_path).rows())
    assert {r["model"] for r in rows} == {"gpt-x"} and {r["meta"]["model"] for r in rows} == {"WRONG-MODEL"}
    assert JudgeCache(cache_path).stats()["served"] == {"openai-compatible:gpt-x": {"WRONG-MODEL": 3}}
    with pytest.warns(JudgeModelWarning, match="from the cache"):
        ReplayJudge(cache_path).complete(reqs)
    assert cli_main(["judge-cache", "stats", str(cache_path)]) == 0
    assert "served as WRONG-MODEL (3)" in capsys.readouterr().out


def test_a_dated_snapshot_or_the_same_name_is_not_warned_about(cache_path):
    with FakeOpenAIServer(lambda body: '{"score": 4}', model="gpt-4o-2024-08-06") as server:
        judge = OpenAICompatibleJudge("gpt-4o", base_url=server.base_url, api_key=SECRET, cache=cache_path)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            judge.complete([TEXT_TEMPLATE.render(item="1")])
        assert judge.served_models == {"gpt-4o-2024-08-06": 1}
    with FakeOpenAIServer() as server:  # by default the fake server answers as the model asked for
        judge = OpenAICompatibleJudge("any-name", base_url=server.base_url, api_key=SECRET)
        assert ask(judge).model == "any-name"
