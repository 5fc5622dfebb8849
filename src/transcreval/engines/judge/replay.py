"""Judges that need no endpoint: :class:`ReplayJudge` (cache only) and :class:`FunctionJudge`.

``ReplayJudge`` answers from a response cache and never calls anything; a request it does not
hold is an error (:class:`~transcreval.errors.JudgeCacheMiss`). Use it in CI, and to reproduce
a published run from its cache file. Its keys must equal the recording judge's, so it takes
the backend, model and decoding parameters from the cache when the file holds one setup (or
from ``judge.replay()`` / explicit arguments when it holds several).

``FunctionJudge`` answers with a Python function ``fn(request) -> str`` (a local model, a
rule for tests); it caches like any judge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from transcreval.engines.judge.base import CachingJudge
from transcreval.engines.judge.cache import JudgeCache
from transcreval.engines.judge.types import JudgeReply, JudgeRequest
from transcreval.errors import InputError, JudgeCacheError

__all__ = ["FunctionJudge", "ReplayJudge"]


#: the default of ReplayJudge's setup arguments: "not given, read it from the cache"
NOT_GIVEN: Any = type("NotGiven", (), {"__repr__": lambda self: "NOT_GIVEN"})()
_ARGUMENT = {
    "backend": "backend",
    "model": "model",
    "params": "params",
    "namespace": "cache_namespace",
    "endpoint": "endpoint",
    "image_max_side": "image_max_side",
}


class ReplayJudge(CachingJudge):
    """Answers only from a judge cache; a miss raises :class:`~transcreval.errors.JudgeCacheMiss`.

    Args:
        cache: the cache file (opened read-only) or a :class:`JudgeCache`.
        model, backend, params, cache_namespace, endpoint, image_max_side: the recording judge's
            settings. Those not given are read from the setup stored with the answers; the file
            must then hold exactly one setup that matches the ones given. ``None`` given for
            ``cache_namespace``, ``endpoint`` or ``image_max_side`` means "recorded without one"
            (a run with ``namespace=None`` is told apart from one with a namespace); ``model``,
            ``backend`` and ``params`` given as None mean "not given".
    """

    replay_only: ClassVar[bool] = True

    def __init__(
        self,
        cache: Any,
        *,
        model: str | None = None,
        backend: str | None = None,
        params: Mapping[str, Any] | None = None,
        cache_namespace: str | None = NOT_GIVEN,
        endpoint: str | None = NOT_GIVEN,
        image_max_side: int | None = NOT_GIVEN,
    ) -> None:
        if cache is None:
            raise InputError("ReplayJudge needs a cache file: ReplayJudge(cache='judge.sqlite')")
        store = cache if isinstance(cache, JudgeCache) else JudgeCache(cache, "read-only")
        given: dict[str, Any] = {
            "backend": NOT_GIVEN if backend is None else backend,
            "model": NOT_GIVEN if model is None else model,
            "params": NOT_GIVEN if params is None else {k: v for k, v in params.items() if v is not None},
            "namespace": cache_namespace,
            "endpoint": endpoint,
            "image_max_side": image_max_side,
        }
        if any(v is NOT_GIVEN for v in given.values()):
            given = self._from_recorded(store, given)
        self.backend = given["backend"]  # type: ignore[misc]
        super().__init__(
            given["model"],
            cache=store,
            cache_mode=store.mode,
            max_concurrency=1,
            params=given["params"],
            image_max_side=given["image_max_side"],
            cache_namespace=given["namespace"],
            cache_endpoint=given["endpoint"],
        )

    @staticmethod
    def _from_recorded(store: JudgeCache, given: dict[str, Any]) -> dict[str, Any]:
        """The one recorded setup that agrees with every setting given (JudgeCacheError otherwise)."""
        recorded = store.setups()
        setups = [s for s in recorded if all(v is NOT_GIVEN or s[k] == v for k, v in given.items())]
        if len(setups) == 1:
            return {k: setups[0][k] if v is NOT_GIVEN else v for k, v in given.items()}
        if setups:
            # show what tells the candidates apart, None values included: that is what to pass
            differ = [k for k in _ARGUMENT if len({repr(s[k]) for s in setups}) > 1]
            listing = "; ".join(", ".join(f"{k}={s[k]!r}" for k in differ) for s in setups)
            choose = " or ".join(f"{_ARGUMENT[k]}=" for k in differ)
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

    def _call(self, request: JudgeRequest, params: Mapping[str, Any]) -> JudgeReply:  # pragma: no cover
        raise AssertionError("ReplayJudge never calls an endpoint")

    def __repr__(self) -> str:
        assert self.cache is not None
        return f"ReplayJudge({str(self.cache.path)!r}, model={self.model!r}, backend={self.backend!r})"


class FunctionJudge(CachingJudge):
    """A judge whose answers come from ``fn(request) -> str`` (or a :class:`JudgeReply`).

    An exception inside ``fn`` becomes an "api_error" reply (never a score). ``model`` names
    the function in cache keys and signatures: change it when the function changes.
    """

    backend: ClassVar[str] = "function"

    def __init__(
        self,
        fn: Callable[[JudgeRequest], str | JudgeReply],
        model: str = "function",
        *,
        cache: Any = None,
        cache_mode: str = "read-write",
        max_concurrency: int = 1,
        params: Mapping[str, Any] | None = None,
        cache_namespace: str | None = None,
    ) -> None:
        if not callable(fn):
            raise InputError("FunctionJudge needs a callable fn(request) -> str")
        super().__init__(
            model,
            cache=cache,
            cache_mode=cache_mode,
            max_concurrency=max_concurrency,
            params=params,
            cache_namespace=cache_namespace,
        )
        self.fn = fn

    def _call(self, request: JudgeRequest, params: Mapping[str, Any]) -> JudgeReply:
        try:
            out = self.fn(request)
        except Exception as e:
            return JudgeReply("api_error", detail=f"{type(e).__name__}: {e}"[:300])
        if isinstance(out, JudgeReply):
            return out
        if not isinstance(out, str):
            return JudgeReply("api_error", detail=f"fn returned {type(out).__name__}, not a string")
        if not out.strip():
            return JudgeReply("api_error", text=out, detail="empty answer")
        return JudgeReply("ok", text=out, model=self.model)
