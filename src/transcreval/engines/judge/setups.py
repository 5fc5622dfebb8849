"""What names a judge's setup: the model that answered, the cache it uses, the setup a replay reads back.

Shared by :class:`~transcreval.engines.judge.base.CachingJudge` and its replay twin
:class:`~transcreval.engines.judge.base.ReplayJudge`.
"""

from __future__ import annotations

import os
import re
from typing import Any

from transcreval.engines.judge.cache import JudgeCache, normalise_mode
from transcreval.errors import InputError, JudgeCacheError

__all__ = ["NOT_GIVEN", "SETUP_ARGUMENTS", "open_cache", "recorded_setup", "same_model"]

# what an endpoint may append to the model name asked for and still serve that model: a dated
# snapshot (gpt-4o-2024-08-06, claude-3-5-sonnet-20241022, gpt-4-0613) or a default tag (llava:latest)
_SNAPSHOT = re.compile(r"(-\d{4}-\d{2}-\d{2}|-\d{8}|-\d{4}|:latest)")


def same_model(asked: str, served: str | None) -> bool:
    """Whether an answer reported as ``served`` comes from the model ``asked`` for: the same name
    (case aside), or a dated snapshot / default tag of it. None (not reported) is not a mismatch."""
    if served is None or not str(served).strip():
        return True
    a, s = asked.strip().casefold(), str(served).strip().casefold()
    return s == a or (s.startswith(a) and _SNAPSHOT.fullmatch(s[len(a) :]) is not None)


def open_cache(cache: Any, mode: str) -> JudgeCache | None:
    """``cache`` as a :class:`JudgeCache` (a path or an instance), or None for no cache.

    An instance keeps its own mode when that is the stricter one: a read-only ``JudgeCache`` stays
    read-only under the default ``cache_mode="read-write"`` (it was reopened read-write, and
    written to); a read-write one under ``cache_mode="read-only"`` is reopened read-only (same
    path and busy timeout)."""
    mode = normalise_mode(mode)
    if cache is None or mode == "off":
        return None
    if isinstance(cache, JudgeCache):
        if cache.mode == mode or cache.mode == "read-only":
            return cache
        return JudgeCache(cache.path, mode, busy_timeout=cache.busy_timeout)
    if isinstance(cache, (str, os.PathLike)):
        return JudgeCache(cache, mode)
    raise InputError(f"cache must be a file path, a JudgeCache or None, got {type(cache).__name__}")


#: the default of ReplayJudge's setup arguments: "not given, read it from the cache"
NOT_GIVEN: Any = type("NotGiven", (), {"__repr__": lambda self: "NOT_GIVEN"})()
SETUP_ARGUMENTS = {
    "backend": "backend",
    "model": "model",
    "params": "params",
    "namespace": "cache_namespace",
    "endpoint": "endpoint",
    "image_max_side": "image_max_side",
}


def recorded_setup(store: JudgeCache, given: dict[str, Any]) -> dict[str, Any]:
    """The one recorded setup that agrees with every setting given (JudgeCacheError otherwise)."""
    recorded = store.setups()
    setups = [s for s in recorded if all(v is NOT_GIVEN or s[k] == v for k, v in given.items())]
    if len(setups) == 1:
        return {k: setups[0][k] if v is NOT_GIVEN else v for k, v in given.items()}
    if setups:
        # show what tells the candidates apart, None values included: that is what to pass
        differ = [k for k in SETUP_ARGUMENTS if len({repr(s[k]) for s in setups}) > 1]
        listing = "; ".join(", ".join(f"{k}={s[k]!r}" for k in differ) for s in setups)
        choose = " or ".join(f"{SETUP_ARGUMENTS[k]}=" for k in differ)
        raise JudgeCacheError(
            f"ReplayJudge cannot tell which recorded setup to replay from {store.path}: {len(setups)} match, "
            f"differing in {listing}. Pass {choose} to choose one (None means recorded without one), or use "
            "judge.replay() on the recording judge"
        )
    listing = "; ".join(", ".join(f"{k}={v!r}" for k, v in s.items() if v not in (None, {})) for s in recorded)
    raise JudgeCacheError(
        f"ReplayJudge cannot tell which recorded setup to replay from {store.path} (none matches; recorded: "
        f"{listing or 'none'}): pass model=, backend=, params=, endpoint=, cache_namespace= or image_max_side= "
        "to choose one (or use judge.replay() on the recording judge)"
    )
