"""The judge posts through the SDK client instead of chat.completions.create (7935394): the cases
where the two could differ, and the checks of extra_params when a judge is built."""

from __future__ import annotations

import json

import pytest

from tests.judge.conftest import SECRET, TEXT_TEMPLATE
from transcreval.engines.judge.fake_server import FakeRaw
from transcreval.judge import OpenAICompatibleJudge

_CHAT = {
    "id": "x",
    "object": "chat.completion",
    "model": "fake-judge",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"score": 3}'}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9},
}


def make(server, **kw):
    return OpenAICompatibleJudge(
        "fake-judge", base_url=server.base_url, api_key=SECRET, max_retries=0, timeout=5.0, **kw
    )


@pytest.mark.parametrize("content_type", ["text/plain", "text/html; charset=utf-8", "application/octet-stream"])
def test_a_json_answer_under_another_content_type_is_read(server, content_type):
    """chat.completions.create (cast_to=ChatCompletion) parses a JSON body whatever its
    Content-Type; post(cast_to=object) returns the body as a str for any type not ending in
    'json' (openai 1.40: anything but exactly application/json). Proxies and small local servers
    send JSON as text/plain: every call would become an api_error."""
    server.script(FakeRaw(json.dumps(_CHAT).encode(), content_type=content_type))
    r = make(server).complete([TEXT_TEMPLATE.render(item="1")])[0]
    assert (r.status, r.text, r.finish_reason) == ("ok", '{"score": 3}', "stop"), r.detail
    assert r.usage == {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9}


def test_a_non_json_body_is_still_an_api_error(server):
    """The other side of the fix above: text that is not JSON stays a malformed response."""
    server.script(FakeRaw(b"upstream proxy error", content_type="text/plain"))
    r = make(server).complete([TEXT_TEMPLATE.render(item="1")])[0]
    assert r.status == "api_error" and "upstream proxy" in r.detail


@pytest.mark.parametrize("field", ["model", "messages", "stream", "n"])
def test_extra_body_may_not_set_the_fields_the_judge_sets(server, field):
    """_body merges extra_body over the judge's own fields, so extra_params={'extra_body':
    {'stream': True}} slips past the reserved-field check (a real server then streams SSE and
    every call fails; 'model' sends another model under this model's cache keys)."""
    with pytest.raises(ValueError, match="extra_params"):
        make(server, extra_params={"extra_body": {field: True}})


def test_extra_header_values_are_checked_at_construction(server):
    """A non-string header value fails inside the SDK on every call, reported as a 'malformed
    response' per item; options are checked once at construction."""
    with pytest.raises(ValueError, match="extra_headers"):
        make(server, extra_params={"extra_headers": {"X-Run": 1}})


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        ({"extra_headers": {"Authorization": "Bearer sk-x"}}, "default_headers"),
        ({"extra_headers": {"X-Api-Key": "k"}}, "default_headers"),
        ({"timeout": "30"}, "timeout"),
        ({"timeout": 0}, "timeout"),
        ({"extra_query": ["a"]}, "extra_query"),
    ],
)
def test_more_extra_params_are_refused_at_construction(server, extra, match):
    with pytest.raises(ValueError, match=match):
        make(server, extra_params=extra)


def test_a_timeout_from_extra_params_is_the_one_reported(server):
    from transcreval.engines.judge.fake_server import FakeHang

    server.script(FakeHang(5))
    r = make(server, extra_params={"timeout": 0.3}).complete([TEXT_TEMPLATE.render(item="1")])[0]
    assert r.status == "timeout" and "within 0.3 s" in r.detail
