"""Credentials in ``extra_params`` (issue 31, item 15): extra_params are stored in run.json, with
every cached answer and in results.json, so a key in ``extra_query`` / ``extra_body`` (or a body
field of its own) is refused, as a secret ``extra_headers`` entry already was; ordinary request
fields that merely contain such words are not."""

from __future__ import annotations

import pytest

from transcreval.engines.judge.openai_params import check_extra_params, secret_field
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
