"""The machinery every caching judge shares: keys, cache look-ups, de-duplication, a bounded pool.

A subclass implements ``_call(request, params) -> JudgeReply`` for one request; this base
answers from the cache where it can, makes each distinct missing call once (identical requests
in a batch share one call), at most ``max_concurrency`` at a time, and stores every "ok"
answer the moment it arrives, so a run killed at any point loses nothing that came back. An
interrupted batch (Ctrl-C) sends no further call: only the calls already in flight finish
(and are cached).

:class:`ReplayJudge`, the judge that answers only from a cache, lives here beside the base
whose ``replay()`` builds it (re-exported by :mod:`~transcreval.engines.judge.replay`).
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import Any, ClassVar

from transcreval.engines.judge.cache import JudgeCache, normalise_mode
from transcreval.engines.judge.images import to_image_part
from transcreval.engines.judge.keys import record_key, request_key, request_record
from transcreval.engines.judge.setups import NOT_GIVEN, open_cache, recorded_setup, same_model
from transcreval.engines.judge.types import ImagePart, JudgeReply, JudgeRequest, Message
from transcreval.errors import InputError, JudgeCacheMiss, JudgeModelWarning

log = logging.getLogger("transcreval.judge")

__all__ = ["CachingJudge", "ReplayJudge", "open_cache", "same_model"]


class CachingJudge:
    """Base of the judges: see the module docstring. Not used directly."""

    backend: ClassVar[str] = "abstract"
    #: answer only from the cache; a miss raises JudgeCacheMiss
    replay_only: ClassVar[bool] = False

    def __init__(
        self,
        model: str,
        *,
        cache: Any = None,
        cache_mode: str = "read-write",
        max_concurrency: int = 8,
        params: Mapping[str, Any] | None = None,
        image_max_side: int | None = None,
        cache_namespace: str | None = None,
        cache_endpoint: str | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InputError(f"model must be a non-empty string, got {model!r}")
        if not isinstance(max_concurrency, int) or isinstance(max_concurrency, bool) or max_concurrency < 1:
            raise InputError(f"max_concurrency must be a positive integer, got {max_concurrency!r}")
        if image_max_side is not None and (not isinstance(image_max_side, int) or image_max_side < 1):
            raise InputError(f"image_max_side must be a positive integer or None, got {image_max_side!r}")
        self.model = model
        self.cache = open_cache(cache, cache_mode)
        self.cache_mode = self.cache.mode if self.cache is not None else normalise_mode(cache_mode)
        self.max_concurrency = max_concurrency
        self.params = {k: v for k, v in (params or {}).items() if v is not None}
        self.image_max_side = image_max_side
        self.cache_namespace = cache_namespace
        self.cache_endpoint = cache_endpoint  # the endpoint as it enters keys (keys.endpoint_id), or None
        self._executor: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._pool_pid = -1
        self._count_lock = threading.Lock()
        self.calls_made = 0  # calls that reached _call in this process (cache hits excluded)
        #: how many answers (fresh or cached) each served model name gave, as the endpoint reported it
        self.served_models: dict[str, int] = {}

    # ------------------------------------------------------------------ identity
    def describe(self) -> dict[str, Any]:
        """Backend, model and decoding parameters (what a result's signature prints)."""
        return {"backend": self.backend, "model": self.model, **self.params}

    def effective_params(self, request: JudgeRequest) -> dict[str, Any]:
        merged = {**self.params, **{k: v for k, v in request.params.items() if v is not None}}
        return dict(sorted(merged.items()))

    def _prepare(self, request: JudgeRequest) -> JudgeRequest:
        if self.image_max_side is None:
            return request
        msgs = tuple(
            Message(
                m.role,
                tuple(
                    to_image_part(p, max_side=self.image_max_side) if isinstance(p, ImagePart) else p for p in m.parts
                ),
            )
            for m in request.messages
        )
        return JudgeRequest(msgs, request.template_id, request.template_version, request.params)

    def key(self, request: JudgeRequest) -> str:
        """The cache key of a request under this judge's model and parameters."""
        request = self._prepare(request)
        return request_key(
            request,
            backend=self.backend,
            model=self.model,
            params=self.effective_params(request),
            namespace=self.cache_namespace,
            endpoint=self.cache_endpoint,
        )

    def setup(self) -> dict[str, Any]:
        """What a replay needs to rebuild this judge's keys (stored next to every answer)."""
        return {
            "backend": self.backend,
            "model": self.model,
            "params": dict(sorted(self.params.items())),
            "namespace": self.cache_namespace,
            "endpoint": self.cache_endpoint,
            "image_max_side": self.image_max_side,
        }

    def replay(self) -> ReplayJudge:
        """A :class:`~transcreval.judge.ReplayJudge` on this judge's cache with exactly its settings."""
        if self.cache is None:
            raise InputError(f"{type(self).__name__} has no cache to replay")
        return ReplayJudge(
            JudgeCache(self.cache.path, "read-only"),
            model=self.model,
            backend=self.backend,
            params=self.params,
            cache_namespace=self.cache_namespace,
            image_max_side=self.image_max_side,
            endpoint=self.cache_endpoint,
        )

    # ------------------------------------------------------------------ answering
    def complete(self, requests: Sequence[JudgeRequest]) -> list[JudgeReply]:
        """Answer every request (same order): from the cache, else by one call per distinct request."""
        reqs = [self._prepare(r) for r in requests]
        for i, r in enumerate(reqs):
            if not isinstance(r, JudgeRequest):
                raise InputError(f"request {i} is a {type(r).__name__}, not a JudgeRequest")
        params = [self.effective_params(r) for r in reqs]
        records = [
            request_record(
                r,
                backend=self.backend,
                model=self.model,
                params=p,
                namespace=self.cache_namespace,
                endpoint=self.cache_endpoint,
            )
            for r, p in zip(reqs, params)
        ]
        keys = [record_key(rec) for rec in records]
        replies: dict[str, JudgeReply] = {}
        if self.cache is not None:
            for k, hit in self.cache.get_many(keys).items():
                m = hit.meta
                replies[k] = JudgeReply(
                    "ok",
                    hit.text,
                    key=k,
                    cached=True,
                    model=m.get("model"),
                    finish_reason=m.get("finish_reason"),
                    system_fingerprint=m.get("system_fingerprint"),
                    usage=m.get("usage"),
                )
        todo: dict[str, int] = {}
        for i, k in enumerate(keys):
            if k not in replies and k not in todo:
                todo[k] = i
        if todo and self.replay_only:
            first = reqs[next(iter(todo.values()))]
            raise JudgeCacheMiss(
                f"{len(todo)} of {len(set(keys))} distinct judge requests are not in the cache "
                f"({self.cache.path if self.cache else 'no cache'}; model {self.model!r}, first missing: template "
                f"{first.template_id}@{first.template_version}, key {next(iter(todo))[:16]}...). A replay judge "
                "never calls an endpoint: rerun with OpenAICompatibleJudge(cache=...) to fill the cache, and check "
                "that the model, decoding parameters, endpoint, image_max_side and templates match the recorded run "
                f"(this replay: {self._setup_text()}; `transcreval judge-cache stats` lists the recorded setups)."
            )
        if todo:
            replies.update(self._run(todo, reqs, params, records))
        out = [replies[k] for k in keys]
        self._note_served(out)
        return out

    def _note_served(self, replies: Sequence[JudgeReply]) -> None:
        """Count the served model of each answer; warn once per name that is not the model asked for."""
        new: list[tuple[str, int]] = []
        with self._count_lock:
            for r in replies:
                if r.model is None:
                    continue
                name = str(r.model)
                first = name not in self.served_models
                self.served_models[name] = self.served_models.get(name, 0) + 1
                if first and not same_model(self.model, name):
                    new.append((name, sum(x.model == r.model for x in replies)))
        for name, n in new:
            warnings.warn(
                f"the judge answered as model {name!r} when {self.model!r} was asked ({n} answer(s) in this batch"
                f"{', from the cache' if any(x.cached and x.model == name for x in replies) else ''}): they are "
                f"scored and cached under {self.model!r}. Check base_url and the model name; if {name!r} is the "
                "server's own name for that model, filter JudgeModelWarning. judge.served_models counts the served "
                "names; the cache stores each answer's served model (`transcreval judge-cache stats`).",
                JudgeModelWarning,
                stacklevel=3,
            )

    def _run(
        self,
        todo: Mapping[str, int],
        reqs: list[JudgeRequest],
        params: list[dict[str, Any]],
        records: list[dict[str, Any]],
    ) -> dict[str, JudgeReply]:
        stop = threading.Event()
        setup = self.setup()

        def one(k: str, i: int) -> JudgeReply:
            if stop.is_set():
                return JudgeReply("api_error", detail="not sent: the batch was stopped by an earlier error", key=k)
            reply = self._call(reqs[i], params[i])
            reply = JudgeReply(**{**reply.__dict__, "key": k})
            with self._count_lock:
                self.calls_made += 1
            if reply.ok and self.cache is not None and reply.text is not None:
                record = records[i]
                meta = {
                    "model": reply.model,
                    "finish_reason": reply.finish_reason,
                    "system_fingerprint": reply.system_fingerprint,
                    "usage": dict(reply.usage) if reply.usage else None,
                    "setup": setup,
                }
                self.cache.put(k, record, reply.text, meta)
            log.debug("judge %s %s: %s", reqs[i].template_id, k[:12], reply.status)
            return reply

        if len(todo) == 1 or self.max_concurrency == 1:
            return {k: one(k, i) for k, i in todo.items()}
        pool = self._pool()
        futures: dict[Future[JudgeReply], str] = {}
        try:
            for k, i in todo.items():
                futures[pool.submit(one, k, i)] = k
            _, pending = wait(futures, return_when=FIRST_EXCEPTION)
        except BaseException:
            # Ctrl-C (KeyboardInterrupt) or any other interruption: send nothing more. Calls
            # already in flight finish in their threads and their answers are cached.
            stop.set()
            for f in futures:
                f.cancel()
            log.warning(
                "judge batch interrupted: %d of %d calls had not started and were not sent; calls in flight "
                "finish and are cached",
                sum(f.cancelled() for f in futures) + len(todo) - len(futures),
                len(todo),
            )
            raise
        if pending:  # a fatal error (bad key, unreachable endpoint): stop sending, keep what came back
            stop.set()
            for f in pending:
                f.cancel()
            wait(pending)
        out: dict[str, JudgeReply] = {}
        error: BaseException | None = None
        for f, k in futures.items():
            if f.cancelled():
                continue
            exc = f.exception()
            if exc is not None:
                error = error or exc
            else:
                out[k] = f.result()
        if error is not None:
            raise error
        return out

    def _setup_text(self) -> str:
        s = self.setup()
        return ", ".join(f"{k}={v!r}" for k, v in s.items() if v not in (None, {}) and k not in ("backend", "model"))

    def _pool(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._executor is None or self._pool_pid != os.getpid():
                self._executor = ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="transcreval-judge")
                self._pool_pid = os.getpid()
            return self._executor

    def _call(self, request: JudgeRequest, params: Mapping[str, Any]) -> JudgeReply:
        raise NotImplementedError

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Shut the worker threads down and close the cache file."""
        with self._pool_lock:
            if self._executor is not None and self._pool_pid == os.getpid():
                self._executor.shutdown(wait=True)
            self._executor = None
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> CachingJudge:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def __deepcopy__(self, memo: dict[int, Any]) -> CachingJudge:
        return self  # a judge is a shared service: metric clones share it

    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        d["_executor"] = None
        d["_pool_lock"] = None
        d["_count_lock"] = None
        d["_pool_pid"] = -1
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)
        self._pool_lock = threading.Lock()
        self._count_lock = threading.Lock()

    def __repr__(self) -> str:
        cache = f", cache={str(self.cache.path)!r}" if self.cache is not None else ""
        return f"{type(self).__name__}(model={self.model!r}{cache})"


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
            given = recorded_setup(store, given)
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

    def _call(self, request: JudgeRequest, params: Mapping[str, Any]) -> JudgeReply:  # pragma: no cover
        raise AssertionError("ReplayJudge never calls an endpoint")

    def __repr__(self) -> str:
        assert self.cache is not None
        return f"ReplayJudge({str(self.cache.path)!r}, model={self.model!r}, backend={self.backend!r})"
