"""Judges that need no endpoint: :class:`ReplayJudge` (cache only; defined in
:mod:`~transcreval.engines.judge.base`, whose ``judge.replay()`` builds it) and :class:`FunctionJudge`.

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

from transcreval.engines.judge.base import CachingJudge, ReplayJudge
from transcreval.engines.judge.types import JudgeReply, JudgeRequest
from transcreval.errors import InputError

__all__ = ["FunctionJudge", "ReplayJudge"]


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
