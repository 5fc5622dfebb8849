"""What an :class:`~transcreval.judge.OpenAICompatibleJudge` sends besides the prompt: the checks of
``extra_params`` made when a judge is built, the request options among them, and which header
names and request fields count as credentials (never stored, never pickled).

``extra_params`` are part of every cache key and are stored in run.json, with every cached answer
and in results.json, so no credential may be among them: a secret-looking header
(:func:`secret_header`) or query or body field (:func:`secret_field`, at any depth of
``extra_body``) is refused when the judge is built, naming where credentials go instead. A URL
may carry one too (``http://user:password@host/v1?key=...``): :func:`redact_url` and
:func:`redact_urls` hide its user, password, query values and fragment wherever a URL is
recorded or printed (the command line in run.json and results.json, error messages)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from transcreval.errors import InputError

__all__ = ["REQUEST_OPTIONS", "check_extra_params", "redact_url", "redact_urls", "secret_field", "secret_header"]

_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie|password|signature|credential", re.I)
# parameters that chat.completions.create takes as request options rather than body fields, and the
# SDK request-option names they become (extra_params written for create work the same; "extra_body"
# is merged into the body)
REQUEST_OPTIONS = {"extra_headers": "headers", "extra_query": "params", "timeout": "timeout"}


def secret_header(name: str) -> bool:
    """True for a header whose name suggests it carries a credential (never pickled)."""
    return bool(_SECRET_HEADER.search(name))


# words of a field name that name a credential; "token" only in the compounds below (max_tokens,
# allowed_token_ids are request fields), "key" not after "cache" (OpenAI's prompt_cache_key)
_SECRET_WORDS = {"key", "apikey", "secret", "password", "passwd", "pwd", "cookie", "credential", "credentials",
                 "auth", "authorization", "signature", "sig", "bearer"}  # fmt: skip
_TOKEN_KINDS = {"access", "auth", "api", "bearer", "refresh", "id", "session", "security", "secret", "private",
                "client", "oauth", "personal"}  # fmt: skip
_NOT_SECRET_BEFORE_KEY = {"cache"}


def _words(name: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)]


def secret_field(name: str) -> bool:
    """True for a query or body field whose name names a credential (``key``, ``api-key``,
    ``apiKey``, ``access_token``, ``password``, ``client_secret``, ...), word by word so that
    ``max_tokens``, ``allowed_token_ids`` or ``prompt_cache_key`` are not."""
    words = _words(str(name))
    for i, w in enumerate(words):
        before = words[i - 1] if i else ""
        if w in _SECRET_WORDS and not (w == "key" and before in _NOT_SECRET_BEFORE_KEY):
            return True
        if w == "token" and (len(words) == 1 or before in _TOKEN_KINDS):
            return True
    return False


def _secret_paths(value: Any, path: str) -> list[str]:
    """The paths of every secret-looking field name in nested mappings and lists."""
    found: list[str] = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            here = f"{path}[{k!r}]"
            if secret_field(str(k)):
                found.append(here)
            found += _secret_paths(v, here)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found += _secret_paths(v, f"{path}[{i}]")
    return found


def _refuse_secret(where: str) -> InputError:
    return InputError(
        f"{where} may not carry a credential: extra_params are stored in run.json, with every cached answer and in "
        "results.json; pass credentials as default_headers= (never stored, not pickled) or api_key= (OPENAI_API_KEY)"
    )


def check_extra_params(extra: Mapping[str, Any]) -> None:
    """InputError unless ``extra_params`` leaves the judge's own fields alone (also through
    ``extra_body``), gives ``extra_body`` / ``extra_headers`` / ``extra_query`` as mappings (header
    values as strings, no credential: those go in ``default_headers``, which are never stored) and
    ``timeout`` as a positive number of seconds. Checked once, when the judge is built."""
    for k in ("extra_body", "extra_headers", "extra_query"):
        if extra.get(k) is not None and not isinstance(extra[k], Mapping):
            raise InputError(f"extra_params[{k!r}] must be a mapping, got {type(extra[k]).__name__}")
    reserved = {"model", "messages", "stream", "n"}
    for where, keys in (
        ("extra_params", set(extra)),
        ("extra_params['extra_body']", set(extra.get("extra_body") or {})),
    ):
        if reserved & keys:
            raise InputError(f"{where} may not set {sorted(reserved & keys)}: the judge sets them")
    for name, value in (extra.get("extra_headers") or {}).items():
        if not isinstance(value, str):
            raise InputError(f"extra_params['extra_headers'][{name!r}] must be a string, got {type(value).__name__}")
        if secret_header(str(name)):
            raise InputError(
                f"extra_params['extra_headers'] may not carry {name!r}: extra_params are stored with every cached "
                "answer; pass credentials as default_headers= (never stored, not pickled) or api_key="
            )
    body = {k: v for k, v in extra.items() if k not in REQUEST_OPTIONS}
    for name, value in (("extra_params", body), ("extra_params['extra_query']", extra.get("extra_query") or {})):
        found = _secret_paths(value, name)
        if found:
            raise _refuse_secret(found[0])
    timeout = extra.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0):
        raise InputError(f"extra_params['timeout'] must be a positive number of seconds, got {timeout!r}")


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")
_HIDDEN = "***"


def redact_url(url: str) -> str:
    """``url`` without what may be a secret: its user and password (``***@``), every query value
    (``?api-version=***&key=***``: the names stay) and its fragment (``#***``). Scheme, host,
    port and path stay as they are (what :func:`~transcreval.engines.judge.keys.endpoint_id` keeps)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    if "@" in authority:
        authority = f"{_HIDDEN}@{authority.rsplit('@', 1)[1]}"
    tail, hash_, fragment = tail.partition("#")
    path, q, query = tail.partition("?")
    if q:
        pieces = (p.partition("=") for p in query.split("&"))
        query = "&".join(f"{name}={_HIDDEN}" if eq else (_HIDDEN if name else "") for name, eq, _ in pieces)
    return f"{scheme}://{authority}{path}{q}{query}{hash_}{_HIDDEN if fragment else ''}"


def redact_urls(text: str) -> str:
    """``text`` with every URL in it (``scheme://...`` up to a space or a quote) through :func:`redact_url`."""
    return _URL.sub(lambda m: redact_url(m.group(0)), text)
