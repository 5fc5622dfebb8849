"""A judge behind any OpenAI-compatible chat endpoint (OpenAI, vLLM, SGLang, Ollama, ...).

Built on the ``openai`` SDK (``pip install 'transcreval[judge]'``): its retries (429, 408,
409, 5xx and connection errors, exponential backoff, ``retry-after`` / ``retry-after-ms``
honoured up to two minutes) and timeouts are used as they are. Each failure becomes a status,
never a score: "timeout" (no answer within ``timeout`` seconds on every attempt), "refused"
(a content filter, or the model declined), "truncated" (``finish_reason="length"``),
"api_error" (anything else: rate limits or server errors that outlived the retries, a
malformed response, an empty answer). Two kinds of errors stop the batch instead, because no
call can succeed: the endpoint rejects the key, model or URL (:class:`JudgeConfigError`), or
it never answered at all (:class:`JudgeUnreachableError`). Answers that came back before are
already in the cache.

The API key comes from ``api_key=`` or ``OPENAI_API_KEY``; it is never logged, cached, pickled or
put into an error message, nor is a user, password or query of ``base_url``. An unpickled judge
(a worker process, a restored metric) reads ``OPENAI_API_KEY`` again; a judge built with an explicit
``api_key=`` says so when that variable is not set (it never falls back to the placeholder key), and
headers whose name suggests a secret (``Authorization``, ``api-key``, ``*token*``, ...) are not pickled.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from transcreval.engines.judge.base import CachingJudge
from transcreval.engines.judge.keys import endpoint_id
from transcreval.engines.judge.openai_params import REQUEST_OPTIONS, check_extra_params, redact_url, secret_header
from transcreval.engines.judge.types import ImagePart, JudgeReply, JudgeRequest, TextPart
from transcreval.errors import InputError, JudgeConfigError, JudgeUnreachableError, MissingDependencyError

log = logging.getLogger("transcreval.judge")
__all__ = ["OpenAICompatibleJudge", "secret_header"]

_SENT = threading.local()  # HTTP requests of the call running in this thread


def _count_request(request: Any) -> None:
    """The HTTP client's request hook: one more request of this thread's call."""
    _SENT.n = getattr(_SENT, "n", 0) + 1


_PLACEHOLDER_KEY = "EMPTY"  # what local servers (vLLM, SGLang, Ollama) accept when they check no key
_FILTER_CODES = {"content_filter", "content_policy_violation", "responsibleaipolicyviolation"}
# transport errors (httpx's class names) raised before any connection to the endpoint existed: only
# these mean "unreachable"; a connection dropped after it was made is a per-item api_error
_NEVER_CONNECTED = {"ConnectError", "ConnectTimeout", "UnsupportedProtocol", "ProxyError", "InvalidURL"}


class OpenAICompatibleJudge(CachingJudge):
    """A judge on an OpenAI-compatible ``/chat/completions`` endpoint.

    Args:
        model: the model name the endpoint serves (part of every cache key).
        base_url: the endpoint, e.g. ``"http://localhost:8000/v1"`` (default: ``OPENAI_BASE_URL``
            or OpenAI's). The ``/chat/completions`` suffix is added by the SDK.
        api_key: the key; default ``OPENAI_API_KEY``. Local servers that check no key may be used
            without one when ``base_url`` is given.
        cache: a SQLite file for the response cache (or a :class:`JudgeCache`); None: no cache.
        cache_mode: "read-write" (default), "read-only" (read, never write) or "off". A read-only
            :class:`JudgeCache` given as ``cache`` stays read-only.
        max_concurrency: calls in flight at once (a bounded thread pool).
        timeout: seconds per attempt before giving up on an answer.
        max_retries: SDK retries after the first attempt (429 / 5xx / connection errors).
        temperature, seed, max_tokens, top_p: decoding parameters (None: not sent). Reasoning
            models that reject ``temperature`` need ``temperature=None``.
        extra_params: further request fields, sent in the body as given and part of the key (e.g.
            ``{"response_format": {...}}``, or a server's own fields such as vLLM's ``top_k``).
            ``extra_body`` (merged into the body), ``extra_headers``, ``extra_query`` and
            ``timeout`` mean what they mean to the SDK's ``chat.completions.create``.
        image_max_side: shrink images whose longer side exceeds this before sending (in the key).
        cache_namespace: a string added to every key (separates otherwise identical setups).
        endpoint_in_key: True (default): the endpoint (host, port and path of ``base_url``) is part
            of every cache key, so answers recorded from one provider or server are never replayed
            for the same model name elsewhere. False: answers are shared across endpoints (one
            model served by several replicas, or a server that moved).
        default_headers: extra HTTP headers (never stored; headers whose name suggests a secret
            are not pickled).
    """

    backend: ClassVar[str] = "openai-compatible"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        cache: Any = None,
        cache_mode: str = "read-write",
        max_concurrency: int = 8,
        timeout: float = 120.0,
        max_retries: int = 5,
        temperature: float | None = 0.0,
        seed: int | None = 0,
        max_tokens: int | None = 1024,
        top_p: float | None = None,
        extra_params: Mapping[str, Any] | None = None,
        image_max_side: int | None = None,
        cache_namespace: str | None = None,
        endpoint_in_key: bool = True,
        default_headers: Mapping[str, str] | None = None,
    ) -> None:
        try:
            import openai  # noqa: F401
        except ImportError as e:
            raise MissingDependencyError("OpenAICompatibleJudge", "openai", "judge") from e
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not timeout > 0:
            raise InputError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            raise InputError(f"max_retries must be a non-negative integer, got {max_retries!r}")
        if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
            raise InputError(f"max_tokens must be a positive integer or None, got {max_tokens!r}")
        check_extra_params(extra_params or {})
        params = {"temperature": temperature, "seed": seed, "max_tokens": max_tokens, "top_p": top_p}
        params.update(extra_params or {})
        base_url = base_url if base_url is not None else os.environ.get("OPENAI_BASE_URL")
        super().__init__(
            model,
            cache=cache,
            cache_mode=cache_mode,
            max_concurrency=max_concurrency,
            params=params,
            image_max_side=image_max_side,
            cache_namespace=cache_namespace,
            cache_endpoint=endpoint_id(base_url) if endpoint_in_key else None,
        )
        self.base_url = base_url
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self._headers = dict(default_headers or {})
        self._explicit_key = api_key is not None
        self._dropped_headers: list[str] = []  # secret headers a pickle did not carry
        self._api_key = self._resolve_key(api_key)
        self._client: Any = None
        self._answered = False  # the endpoint has answered at least once (any HTTP status)

    def _resolve_key(self, api_key: str | None) -> str | None:
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        if key:
            return str(key)
        if self.base_url:
            return _PLACEHOLDER_KEY
        raise JudgeConfigError(
            "no API key for the judge: pass api_key=... or set OPENAI_API_KEY (or pass base_url= for a "
            "local server that needs no key)"
        )

    # ------------------------------------------------------------------ secrets stay home
    def _redact(self, text: str) -> str:
        secrets = [self._api_key, *(v for k, v in self._headers.items() if secret_header(k))]
        for secret in secrets:
            if secret and secret != _PLACEHOLDER_KEY and len(secret) >= 4:
                text = text.replace(secret, "***")
        return text

    def __getstate__(self) -> dict[str, Any]:
        d = super().__getstate__()
        d["_client"] = None
        d["_api_key"] = None  # keys never travel: the unpickled judge reads OPENAI_API_KEY again
        d["_headers"] = {k: v for k, v in self._headers.items() if not secret_header(k)}
        d["_dropped_headers"] = sorted({*self._dropped_headers, *(k for k in self._headers if secret_header(k))})
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        d.setdefault("_explicit_key", False)
        d.setdefault("_dropped_headers", [])
        super().__setstate__(d)
        env = os.environ.get("OPENAI_API_KEY")
        if env:
            self._api_key = env
            if self._explicit_key:
                log.warning(
                    "an unpickled OpenAICompatibleJudge built with api_key=... uses OPENAI_API_KEY of this process "
                    "(keys are never pickled)"
                )
        elif self._explicit_key:
            self._api_key = None  # never the placeholder for a judge that was given a key: _get_client says so
        else:
            self._api_key = _PLACEHOLDER_KEY if self.base_url else None

    def _get_client(self) -> Any:
        if self._client is None:
            if self._api_key is None:
                given = " (it was built with api_key=...)" if self._explicit_key else ""
                raise JudgeConfigError(
                    f"this judge was unpickled and API keys are never pickled{given}: set OPENAI_API_KEY in this "
                    f"process, or build the judge in this process with api_key=...{self._dropped_note()}"
                )
            if self._dropped_headers:
                log.warning("OpenAICompatibleJudge%s", self._dropped_note())
            from openai import DefaultHttpxClient, OpenAI

            self._client = OpenAI(
                api_key=self._api_key,
                base_url=self.base_url,
                timeout=self.timeout,
                max_retries=self.max_retries,
                default_headers=self._headers or None,
                # the SDK's own HTTP client, counting each request it sends (its retries included)
                http_client=DefaultHttpxClient(event_hooks={"request": [_count_request]}),
            )
        return self._client

    def describe(self) -> dict[str, Any]:
        return {**super().describe()}

    # ------------------------------------------------------------------ one call
    @staticmethod
    def _messages(request: JudgeRequest) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for m in request.messages:
            if all(isinstance(p, TextPart) for p in m.parts):
                out.append({"role": m.role, "content": "\n".join(p.text for p in m.parts)})  # type: ignore[union-attr]
                continue
            content: list[dict[str, Any]] = []
            for p in m.parts:
                if isinstance(p, ImagePart):
                    content.append({"type": "image_url", "image_url": {"url": p.data_url()}})
                else:
                    content.append({"type": "text", "text": p.text})
            out.append({"role": m.role, "content": content})
        return out

    def _call(self, request: JudgeRequest, params: Mapping[str, Any]) -> JudgeReply:
        """One call; the reply's ``attempts`` counts the HTTP requests it took (the SDK's retries
        included), as this thread's client sent them."""
        _SENT.n = 0
        reply = self._send(request, params)
        attempts = max(1, getattr(_SENT, "n", 1))
        return reply if attempts == 1 else replace(reply, attempts=attempts)

    def _send(self, request: JudgeRequest, params: Mapping[str, Any]) -> JudgeReply:
        import openai

        client = self._get_client()
        body, options = self._body(request, params)
        try:
            # the SDK client's own POST (auth, retries, timeouts, its errors), read as plain JSON:
            # chat.completions.create would also walk the request through its typed transforms and
            # build a pydantic model of the answer, ~0.5 ms of CPU a call (40% of the SDK's cost)
            resp = client.post("/chat/completions", body=body, options=options, cast_to=object)
        except openai.APITimeoutError as e:
            if not self._answered and type(e.__cause__).__name__ == "ConnectTimeout":
                raise self._unreachable("the connection timed out") from None
            waited = float(options.get("timeout", self.timeout))  # extra_params' timeout overrides the judge's
            return JudgeReply("timeout", detail=f"no answer within {waited:g} s ({self.max_retries} retries)")
        except openai.APIConnectionError as e:
            cause = e.__cause__
            kind = type(cause).__name__ if cause is not None else ""
            if kind in _NEVER_CONNECTED or (cause is None and not self._answered):
                if not self._answered:
                    raise self._unreachable(self._redact(str(e))) from None
                return JudgeReply("api_error", detail=f"connection failed after {self.max_retries} retries")
            self._answered = True  # a connection was made: the endpoint is there, this answer was lost
            why = self._redact(str(cause))[:200]
            return JudgeReply(
                "api_error",
                detail=f"the connection was dropped before the answer was complete ({kind}: {why}; "
                f"{self.max_retries} retries)",
            )
        except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
            self._answered = True
            raise JudgeConfigError(
                f"the judge endpoint {self._where()} rejected the API key (HTTP {e.status_code}): set a valid "
                f"OPENAI_API_KEY or pass api_key={self._dropped_note()}"
            ) from None
        except openai.NotFoundError as e:
            self._answered = True
            raise JudgeConfigError(
                f"the judge endpoint {self._where()} answered 404 for model {self.model!r}: check the model name and "
                f"that base_url ends where the API starts (e.g. '.../v1'); server said: {self._message(e)}"
            ) from None
        except openai.APIStatusError as e:
            self._answered = True
            if e.status_code == 400 and self._is_filter(e):
                return JudgeReply("refused", detail=f"content filter (HTTP 400): {self._message(e)}")
            what = "rate limited" if e.status_code == 429 else f"HTTP {e.status_code}"
            retried = (
                f" after {self.max_retries} retries" if e.status_code in (408, 409, 429) or e.status_code >= 500 else ""
            )
            return JudgeReply("api_error", detail=f"{what}{retried}: {self._message(e)}")
        except openai.APIResponseValidationError as e:
            self._answered = True
            return JudgeReply("api_error", detail=f"malformed response: {self._redact(str(e))[:200]}")
        except (ValueError, TypeError, KeyError) as e:  # a body the SDK could not decode
            self._answered = True
            return JudgeReply(
                "api_error", detail=f"malformed response ({type(e).__name__}: {self._redact(str(e))[:200]})"
            )
        self._answered = True
        if isinstance(resp, str):  # a Content-Type other than JSON: the SDK hands the text back as is
            with contextlib.suppress(ValueError):  # not JSON either: _reply says "malformed response"
                resp = json.loads(resp)
        return self._reply(resp)

    def _body(self, request: JudgeRequest, params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The JSON body of one call and the SDK request options.

        Every parameter is a request field, sent as given (a server's own fields such as vLLM's
        ``top_k`` included), except the four that ``chat.completions.create`` also takes as
        request options: ``extra_body`` (fields merged into the body), ``extra_headers``,
        ``extra_query`` and ``timeout``.
        """
        body: dict[str, Any] = {"model": self.model, "messages": self._messages(request)}
        options: dict[str, Any] = {}
        extra: Mapping[str, Any] = {}
        for k, v in params.items():
            if k == "extra_body":
                extra = v
            elif k in REQUEST_OPTIONS:
                options[REQUEST_OPTIONS[k]] = v
            else:
                body[k] = v
        body.update(extra)
        return body, options

    def _reply(self, resp: Any) -> JudgeReply:
        """A reply from the decoded JSON answer (anything else is a malformed response)."""
        if not isinstance(resp, Mapping):
            what = repr(resp)[:200] if isinstance(resp, str) else type(resp).__name__
            return JudgeReply("api_error", detail=f"malformed response: not a JSON object ({self._redact(what)})")
        choices = resp.get("choices")
        if not isinstance(choices, list) or not choices:
            return JudgeReply("api_error", detail="malformed response: no choices")
        choice = choices[0] if isinstance(choices[0], Mapping) else {}
        msg = choice.get("message")
        msg = msg if isinstance(msg, Mapping) else {}
        finish = choice.get("finish_reason")
        text = msg.get("content")
        usage = resp.get("usage")
        usage_d = (
            {k: usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
            if isinstance(usage, Mapping)
            else None
        )
        common: dict[str, Any] = {
            "model": resp.get("model"),
            "finish_reason": finish,
            "system_fingerprint": resp.get("system_fingerprint"),
            "usage": usage_d,
        }
        refusal = msg.get("refusal")
        if refusal:
            return JudgeReply("refused", text=text, detail=f"the model declined: {str(refusal)[:200]}", **common)
        if finish == "content_filter":
            return JudgeReply("refused", text=text, detail="content filter (finish_reason='content_filter')", **common)
        if finish == "length":
            return JudgeReply(
                "truncated", text=text, detail="the answer hit max_tokens (finish_reason='length')", **common
            )
        if not isinstance(text, str) or not text.strip():
            return JudgeReply("api_error", text=text, detail="empty answer", **common)
        return JudgeReply("ok", text=text, **common)

    # ------------------------------------------------------------------ helpers
    def _dropped_note(self) -> str:
        if not self._dropped_headers:
            return ""
        return (
            f"; this judge was unpickled without the header(s) {self._dropped_headers}, which may hold secrets and "
            "are never pickled: build the judge in this process to send them"
        )

    def _where(self) -> str:
        return redact_url(self.base_url) if self.base_url else "api.openai.com"

    def _unreachable(self, why: str) -> JudgeUnreachableError:
        return JudgeUnreachableError(
            f"the judge endpoint {self._where()} never answered ({why}; {self.max_retries} retries): check base_url, "
            "that the server is running, and the network"
        )

    def _message(self, e: Any) -> str:
        body = getattr(e, "body", None)
        msg = None
        if isinstance(body, dict):
            err = body.get("error", body)
            msg = err.get("message") if isinstance(err, dict) else None
        return self._redact(str(msg if msg else getattr(e, "message", e)))[:300]

    @staticmethod
    def _is_filter(e: Any) -> bool:
        code = str(getattr(e, "code", "") or "").lower()
        if code in _FILTER_CODES:
            return True
        body = getattr(e, "body", None)
        text = str(body).lower() if body is not None else ""
        return "content_filter" in text or "content management policy" in text or "content_policy" in text

    def __repr__(self) -> str:
        cache = f", cache={str(self.cache.path)!r}" if self.cache is not None else ""
        url = redact_url(self.base_url) if self.base_url else None
        return f"OpenAICompatibleJudge(model={self.model!r}, base_url={url!r}{cache})"
