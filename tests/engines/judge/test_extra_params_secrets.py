"""Credentials in ``extra_params``: extra_params are stored in run.json, with
every cached answer and in results.json, so a key in ``extra_query`` / ``extra_body`` (or a body
field of its own) is refused, as a secret ``extra_headers`` entry already was; ordinary request
fields that merely contain such words are not."""

from __future__ import annotations

import pytest

from transcreval.engines.judge.openai_params import check_extra_params, redact_url, redact_urls, secret_field
from transcreval.errors import InputError

SECRET = "sk-live-0123456789"


@pytest.mark.parametrize(
    "extra",
    [
        {"extra_query": {"api-key": SECRET}},
        {"extra_query": {"key": SECRET}},
        {"extra_query": {"access_token": SECRET}},
        {"extra_query": {"apiKey": SECRET}},
        {"extra_body": {"api_key": SECRET}},
        {"extra_body": {"auth": {"password": SECRET}}},  # nested
        {"extra_body": {"metadata": [{"token": SECRET}]}},  # inside a list
        {"api_key": SECRET},  # a body field of its own
        {"client_secret": SECRET},
        {"extra_headers": {"Authorization": f"Bearer {SECRET}"}},  # as before
    ],
)
def test_credentials_in_extra_params_are_refused_without_echoing_them(extra):
    with pytest.raises(InputError, match="default_headers") as err:
        check_extra_params(extra)
    assert SECRET not in str(err.value)


@pytest.mark.parametrize(
    "extra",
    [
        {"extra_query": {"api-version": "2024-06-01"}},
        {"extra_body": {"top_k": 1, "allowed_token_ids": [1, 2], "skip_special_tokens": False}},
        {"max_completion_tokens": 64, "prompt_cache_key": "run-1", "response_format": {"type": "json_object"}},
        {"extra_body": {"chat_template_kwargs": {"enable_thinking": False}, "min_tokens": 1}},
        {"logit_bias": {"1734": -100}, "extra_headers": {"X-Run": "r1"}},
    ],
)
def test_ordinary_request_fields_are_accepted(extra):
    check_extra_params(extra)


def test_the_secret_field_rule():
    for name in ("api-key", "API_KEY", "x-api-key", "apikey", "key", "access_token", "refreshToken", "password",
                 "client_secret", "Authorization", "session_token", "cookie", "private_key", "sig"):  # fmt: skip
        assert secret_field(name), name
    for name in ("max_tokens", "allowed_token_ids", "prompt_cache_key", "top_k", "monkey", "keywords", "api-version"):
        assert not secret_field(name), name


def test_the_judge_refuses_them_when_built():
    pytest.importorskip("openai")
    from transcreval.judge import OpenAICompatibleJudge

    with pytest.raises(InputError, match="extra_query"):
        OpenAICompatibleJudge(
            "m", base_url="http://127.0.0.1:9/v1", api_key="EMPTY", extra_params={"extra_query": {"key": SECRET}}
        )


# ---------------------------------------------------------------- credentials in a URL
@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"http://user:{SECRET}@127.0.0.1:8000/v1", "http://***@127.0.0.1:8000/v1"),
        (f"https://{SECRET}@host.example/v1", "https://***@host.example/v1"),  # a token as the user
        ("https://a:b@c@host.example/v1", "https://***@host.example/v1"),  # an unescaped @ in the password
        (
            f"https://host.example/v1?api-version=2024-06-01&key={SECRET}",
            "https://host.example/v1?api-version=***&key=***",
        ),
        (f"https://host.example/v1?{SECRET}", "https://host.example/v1?***"),
        (f"https://host.example/v1#{SECRET}", "https://host.example/v1#***"),
        (f"http://u:{SECRET}@host.example?sig={SECRET}#{SECRET}", "http://***@host.example?sig=***#***"),
        ("http://localhost:8000/v1", "http://localhost:8000/v1"),  # nothing to hide
        ("not a url", "not a url"),
    ],
)
def test_a_url_is_shown_without_user_password_query_values_or_fragment(url, shown):
    from transcreval.engines.judge.keys import endpoint_id

    assert redact_url(url) == shown
    if "://" in url:  # the redacted URL keeps what the cache key keeps of the endpoint
        assert endpoint_id(redact_url(url)) == endpoint_id(url)


def test_every_url_in_a_text_is_redacted_the_rest_kept():
    text = f'{{"model": "m", "base_url": "http://user:{SECRET}@h:1/v1", "x": "see https://h/?k={SECRET} now"}}'
    assert redact_urls(text) == '{"model": "m", "base_url": "http://***@h:1/v1", "x": "see https://h/?k=*** now"}'


def test_the_judge_never_shows_a_password_of_its_base_url():
    pytest.importorskip("openai")
    from transcreval.errors import JudgeUnreachableError
    from transcreval.judge import OpenAICompatibleJudge

    judge = OpenAICompatibleJudge("m", base_url=f"http://user:{SECRET}@127.0.0.1:9/v1", max_retries=0, timeout=2)
    assert SECRET not in repr(judge) and "127.0.0.1:9/v1" in repr(judge)
    from transcreval.engines.judge.types import JudgeRequest, Message, TextPart

    with pytest.raises(JudgeUnreachableError) as err:  # nothing listens on port 9: the message names the endpoint
        judge.complete([JudgeRequest((Message("user", (TextPart("hi"),)),), "t", "1")])
    assert SECRET not in str(err.value) and "http://***@127.0.0.1:9/v1" in str(err.value)
