"""The run's judge: built from ``--judge``, counted, estimated and held to a budget.

``--judge`` is a JSON object (inline or a ``.json`` file): ``{"model": "gpt-4o", "base_url":
"http://localhost:8000/v1", "max_concurrency": 8, ...}`` with the keyword arguments of
:class:`~transcreval.judge.OpenAICompatibleJudge` (``"backend": "replay"`` answers from the
cache only). The API key comes from ``OPENAI_API_KEY``, never from the file. Answers are cached
in the run's ``cache/judge.sqlite`` unless ``"cache"`` names another file.

:class:`MeteredJudge` wraps the judge for the runner: it counts per unit the calls made, the
answers served from the cache and the tokens the endpoint reported (results.json), and stops
cleanly before a batch that would pass ``--max-judge-calls`` or ``--max-tokens``
(:class:`BudgetExceeded`; everything answered so far is cached and stored, so a rerun
continues). With ``dry_run=True`` it sends nothing: it counts the distinct requests, how many
the cache already holds, and estimates their prompt tokens (:func:`estimate_tokens`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from transcreval.errors import InputError, TranscrevalError

__all__ = ["BudgetExceeded", "MeteredJudge", "build_judge", "estimate_tokens", "read_judge_config"]

_FORBIDDEN = ("api_key", "default_headers")
#: tokens per character of prompt text (a rough average for Latin text; an estimate only)
CHARS_PER_TOKEN = 4.0


class BudgetExceeded(TranscrevalError):
    """The next judge batch would pass ``--max-judge-calls`` or ``--max-tokens``."""


def read_judge_config(spec: str | Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``--judge``'s value as a dict: a mapping, a JSON object text, or a ``.json`` file."""
    if spec is None:
        return None
    if isinstance(spec, Mapping):
        cfg = dict(spec)
    else:
        text = str(spec).strip()
        if not text.startswith("{"):
            p = Path(text).expanduser()
            if not p.is_file():
                raise InputError(f"--judge {text!r}: neither a JSON object nor an existing .json file")
            text = p.read_text(encoding="utf-8")
        try:
            cfg = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"--judge: not valid JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(cfg, dict):
            raise InputError('--judge must be a JSON object such as {"model": "gpt-4o"}')
    bad = [k for k in _FORBIDDEN if k in cfg]
    if bad:
        raise InputError(
            f"--judge may not hold {bad}: API keys and secret headers come from the environment (OPENAI_API_KEY)"
        )
    if not isinstance(cfg.get("model"), str) and cfg.get("backend") != "replay":
        raise InputError('--judge needs "model": the model name the endpoint serves')
    return cfg


def build_judge(config: Mapping[str, Any] | None, cache_dir: Path, *, dry_run: bool = False) -> Any:
    """The judge a config describes, caching in ``cache_dir/judge.sqlite`` by default. For a dry
    run nothing is created: an existing cache is opened read-only (to count what it holds)."""
    if config is None:
        return None
    cfg = dict(config)
    backend = cfg.pop("backend", "openai-compatible")
    path = str(cfg.pop("cache", None) or cache_dir / "judge.sqlite")
    cache: str | None = path
    if dry_run:
        if Path(path).is_file():
            cfg["cache_mode"] = "read-only"
        else:
            cache = None
    else:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    if backend == "replay":
        from transcreval.engines.judge.replay import ReplayJudge

        return ReplayJudge(cache, **cfg)
    if backend != "openai-compatible":
        raise InputError(f"--judge backend must be 'openai-compatible' or 'replay', got {backend!r}")
    from transcreval.engines.judge.openai_judge import OpenAICompatibleJudge

    try:
        return OpenAICompatibleJudge(cache=cache, **cfg)
    except TypeError as e:
        raise InputError(f"--judge: {e} (the keys are OpenAICompatibleJudge's keyword arguments)") from None


def _image_tokens(width: int, height: int) -> int:
    """OpenAI's high-detail rule: fit in 2048 x 2048, shortest side to 768, 170 per 512-tile + 85."""
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def estimate_tokens(request: Any) -> int:
    """An estimate of a request's prompt tokens: text characters / 4, plus each image by OpenAI's
    high-detail tiling rule. Providers count differently; this is for budgeting only."""
    text = len(request.text) / CHARS_PER_TOKEN
    return math.ceil(text) + sum(_image_tokens(*im.size) for im in request.images)


_ZERO = {"calls": 0, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "est_prompt_tokens": 0}


class MeteredJudge:
    """Counts, estimates and budgets the run's judge (see the module docstring)."""

    def __init__(
        self, judge: Any, *, max_calls: int | None = None, max_tokens: int | None = None, dry_run: bool = False
    ) -> None:
        for name, v in (("max_judge_calls", max_calls), ("max_tokens", max_tokens)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise InputError(f"--{name.replace('_', '-')} must be a non-negative integer, got {v!r}")
        from transcreval.runs.served import ServedLog

        self.inner = judge
        self.max_calls, self.max_tokens, self.dry_run = max_calls, max_tokens, dry_run
        self.served = ServedLog(getattr(judge, "model", None))  # which model answered (runs.served)
        self.unit = ""
        self.usage: dict[str, dict[str, int]] = {}
        self.calls = 0
        self.tokens = 0
        self._seen: set[str] = set()  # dry run: distinct requests already counted

    # the Judge protocol, and what metrics read off a judge
    def describe(self) -> Mapping[str, Any]:
        return dict(self.inner.describe()) if hasattr(self.inner, "describe") else {}

    @property
    def cache(self) -> Any:
        return getattr(self.inner, "cache", None)

    def __getattr__(self, name: str) -> Any:  # model, params, key, ... of the wrapped judge
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __deepcopy__(self, memo: dict[int, Any]) -> MeteredJudge:
        return self  # a shared service, as the judges themselves

    def _bucket(self) -> dict[str, int]:
        return self.usage.setdefault(self.unit, dict(_ZERO))

    def _keys(self, requests: Sequence[Any]) -> list[str] | None:
        key = getattr(self.inner, "key", None)
        return [key(r) for r in requests] if callable(key) else None

    def _cached(self, keys: Sequence[str]) -> set[str]:
        cache = self.cache
        if cache is None or not keys:
            return set()
        return set(cache.get_many(list(dict.fromkeys(keys))))

    def complete(self, requests: Sequence[Any]) -> list[Any]:
        from transcreval.engines.judge.types import JudgeReply

        reqs = list(requests)
        keys = self._keys(reqs)
        if self.served.replaying:  # attributing a batch's answers to its items: nothing is sent or counted
            return self.served.replay(keys or [])
        b = self._bucket()
        if self.dry_run:
            hits = self._cached(keys or [])
            ids = keys if keys is not None else [str(id(r)) for r in reqs]
            for k, r in zip(ids, reqs):
                if k in self._seen:
                    continue
                self._seen.add(k)
                if k in hits:
                    b["cached"] += 1
                else:
                    b["calls"] += 1
                    b["est_prompt_tokens"] += estimate_tokens(r)
            return [JudgeReply("api_error", detail="dry run: not sent") for _ in reqs]
        if (self.max_calls is not None or self.max_tokens is not None) and reqs:
            hits = self._cached(keys or [])
            todo = {k: r for k, r in zip(keys or [str(i) for i in range(len(reqs))], reqs) if k not in hits}
            if self.max_calls is not None and self.calls + len(todo) > self.max_calls:
                raise BudgetExceeded(
                    f"the next judge batch needs {len(todo)} call(s); {self.calls} of --max-judge-calls "
                    f"{self.max_calls} are spent"
                )
            est = sum(estimate_tokens(r) for r in todo.values())
            if self.max_tokens is not None and self.tokens + est > self.max_tokens:
                raise BudgetExceeded(
                    f"the next judge batch needs about {est} prompt tokens; {self.tokens} of --max-tokens "
                    f"{self.max_tokens} are spent"
                )
        replies = self.inner.complete(reqs)
        self.served.note(self.unit, keys, replies)
        done: set[str] = set()
        for i, rep in enumerate(replies):
            if rep.cached:
                b["cached"] += 1
                continue
            k = rep.key or str(i)
            if k in done:
                continue
            done.add(k)
            b["calls"] += 1
            self.calls += 1
            usage = dict(rep.usage or {})
            spent = int(usage.get("total_tokens") or 0) or estimate_tokens(reqs[i])
            for name in ("prompt_tokens", "completion_tokens"):
                b[name] += int(usage.get(name) or 0)
            b["total_tokens"] += spent
            self.tokens += spent
        return list(replies)

    def take(self, unit: str) -> dict[str, int]:
        """The usage counted for ``unit`` since the last take (and reset it)."""
        return self.usage.pop(unit, dict(_ZERO))

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()


def judge_summary(usage: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """Totals over units (for results.json and dry-run output)."""
    total: dict[str, float] = {}
    for u in usage.values():
        for k, v in u.items():
            total[k] = total.get(k, 0) + v
    return {"per_unit": {k: dict(v) for k, v in usage.items()}, "total": total}
