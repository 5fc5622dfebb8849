"""Cache keys: SHA-256 of a canonical JSON of everything that decides a judge's answer.

The key covers the cache schema, the backend kind, the model, the prompt template's id and
version, every message (text verbatim, images as hashes of their pixels), the effective
decoding parameters and an optional namespace. It does not cover the endpoint URL (the same
model served elsewhere replays the same answers; pass ``cache_namespace=`` to separate them)
and never the API key.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

from transcreval.judge.types import JudgeRequest

#: Bumped when the key layout changes; old entries then simply stop matching.
KEY_SCHEMA = 1

__all__ = ["KEY_SCHEMA", "canonical_json", "record_key", "request_key", "request_record"]


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
    request: JudgeRequest, *, backend: str, model: str, params: Mapping[str, Any], namespace: str | None = None
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
    return record


def request_key(
    request: JudgeRequest, *, backend: str, model: str, params: Mapping[str, Any], namespace: str | None = None
) -> str:
    """The SHA-256 hex digest of :func:`canonical_json` of :func:`request_record`."""
    return record_key(request_record(request, backend=backend, model=model, params=params, namespace=namespace))


def record_key(record: Mapping[str, Any]) -> str:
    """The cache key of a :func:`request_record`."""
    return hashlib.sha256(canonical_json(record).encode("utf-8")).hexdigest()
