"""Cache keys: SHA-256 of a canonical JSON of everything that decides a judge's answer.

The key covers the cache schema, the backend kind, the model, the prompt template's id and
version, every message (text verbatim, images as hashes of their pixels), the effective
decoding parameters, the endpoint (:func:`endpoint_id`: host, port and path of the base URL,
so the same model name on another provider or server never replays these answers; an
:class:`~transcreval.judge.OpenAICompatibleJudge` with ``endpoint_in_key=False`` leaves it
out) and an optional namespace. Never the API key, nor a base URL's user, password or query.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

from transcreval.engines.judge.types import JudgeRequest
from transcreval.errors import InputError

#: Bumped when the key layout changes; old entries then simply stop matching.
KEY_SCHEMA = 1

__all__ = ["KEY_SCHEMA", "canonical_json", "endpoint_id", "record_key", "request_key", "request_record"]

#: where the openai SDK sends requests when no base URL is given
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def endpoint_id(base_url: str | None) -> str:
    """The endpoint as it enters cache keys: ``host[:port]/path`` of the base URL, lower-case host,
    no scheme, no trailing slash, and never a user, password, query or fragment (which may hold
    secrets). ``None`` is OpenAI's endpoint, where the SDK sends requests without a base URL."""
    from urllib.parse import urlsplit

    url = (base_url or DEFAULT_BASE_URL).strip()
    parts = urlsplit(url if "://" in url else f"http://{url}")
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    return f"{(parts.hostname or '').lower()}{port}{parts.path.rstrip('/')}"


def _normalise(obj: Any) -> Any:
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise ValueError(f"non-finite number {obj!r} cannot enter a cache key")
        return int(obj) if obj.is_integer() else obj  # 0.0 and 0 give the same key
    if isinstance(obj, Mapping):
        return {str(k): _normalise(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_normalise(v) for v in obj]
    raise TypeError(f"{type(obj).__name__} cannot enter a cache key")


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys, no spaces, UTF-8 text kept as is, integral floats as integers."""
    return json.dumps(_normalise(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_record(
    request: JudgeRequest,
    *,
    backend: str,
    model: str,
    params: Mapping[str, Any],
    namespace: str | None = None,
    endpoint: str | None = None,
) -> dict[str, Any]:
    """The JSON-able description of a call that the key hashes (and the cache stores)."""
    record: dict[str, Any] = {
        "schema": KEY_SCHEMA,
        "backend": backend,
        "model": model,
        **request.canonical(),
        "params": dict(params),
    }
    if namespace:
        record["namespace"] = namespace
    if endpoint:
        record["endpoint"] = endpoint
    return record


def request_key(
    request: JudgeRequest,
    *,
    backend: str,
    model: str,
    params: Mapping[str, Any],
    namespace: str | None = None,
    endpoint: str | None = None,
) -> str:
    """The SHA-256 hex digest of :func:`canonical_json` of :func:`request_record`."""
    record = request_record(
        request, backend=backend, model=model, params=params, namespace=namespace, endpoint=endpoint
    )
    return record_key(record)


def record_key(record: Mapping[str, Any]) -> str:
    """The cache key of a :func:`request_record` (InputError when its text is not valid Unicode)."""
    text = canonical_json(record)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as e:
        before = text[max(0, e.start - 40) : e.start]
        raise InputError(
            f"a judge request holds a lone surrogate ({text[e.start : e.end]!r} after ...{before!r}), "
            "which is not text and cannot be sent: it usually comes from bytes decoded with errors='surrogateescape' "
            "(in a template or a field); decode them properly"
        ) from None
    return hashlib.sha256(data).hexdigest()
