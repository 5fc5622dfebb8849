"""The run's judge: built from ``--judge``, counted, estimated and held to a budget.

``--judge`` is a JSON object (inline or a ``.json`` file): ``{"model": "gpt-4o", "base_url":
"http://localhost:8000/v1", "max_concurrency": 8, ...}`` with the keyword arguments of
:class:`~transcreval.judge.OpenAICompatibleJudge` (``"backend": "replay"`` answers from the
cache only). The API key comes from ``OPENAI_API_KEY``, never from the file. Answers are cached
in the run's ``cache/judge.sqlite`` unless ``"cache"`` names another file.

:class:`MeteredJudge` wraps the judge for the runner: it counts per unit the calls made, the
HTTP requests they took (retries included), the calls that failed, the answers served from the
cache and the tokens the endpoint reported (results.json), and stops cleanly before a batch
that would pass ``--max-judge-calls`` or ``--max-tokens`` (:class:`BudgetExceeded`, from the
run's :class:`~transcreval.runs.budget.JudgeBudget`, shared by the ranks under torchrun;
everything answered so far is cached and stored, so a rerun continues). With ``dry_run=True``
it sends nothing: it records the distinct requests, whether the cache holds them, and estimates
their prompt tokens (:func:`estimate_tokens`, :func:`planned_usage`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from transcreval.errors import InputError, TranscrevalError

__all__ = [
    "CALL_FAILURES",
    "BudgetExceeded",
    "MeteredJudge",
    "build_judge",
    "call_failed",
    "estimate_tokens",
    "read_judge_config",
]

_FORBIDDEN = ("api_key", "default_headers")
#: tokens per character of prompt text (a rough average for Latin text; an estimate only)
CHARS_PER_TOKEN = 4.0


#: a judge reply that is no answer (what a judge metric's record then carries as its status)
CALL_FAILURES = ("api_error", "refused", "timeout", "truncated")


def call_failed(status: Any) -> bool:
    """A record's status says a judge call gave no answer: a :data:`CALL_FAILURES` status, or one
    derived from it (MPTc's ``gt_title_api_error``: the GT poster's title call failed). An
    ``unparsable`` answer was an answer (the cache keeps it; a parser fix reads it again)."""
    return isinstance(status, str) and (
        status in CALL_FAILURES or status.endswith(tuple(f"_{s}" for s in CALL_FAILURES))
    )


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


_ZERO = {
    "calls": 0,
    "http_requests": 0,
    "failed": 0,
    "cached": 0,
    "prompt_tokens": 0,
    "completion_tokens": 0,
    "total_tokens": 0,
    "est_prompt_tokens": 0,
}


class MeteredJudge:
    """Counts, estimates and budgets the run's judge (see the module docstring)."""

    def __init__(
        self,
        judge: Any,
        *,
        max_calls: int | None = None,
        max_tokens: int | None = None,
        dry_run: bool = False,
        shared: Path | None = None,
    ) -> None:
        from transcreval.runs.budget import JudgeBudget

        for name, v in (("max_judge_calls", max_calls), ("max_tokens", max_tokens)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise InputError(f"--{name.replace('_', '-')} must be a non-negative integer, got {v!r}")
        from transcreval.runs.served import ServedLog

        self.inner = judge
        self.max_calls, self.max_tokens, self.dry_run = max_calls, max_tokens, dry_run
        #: the budget, in a file shared by the ranks under torchrun (``shared``), else in memory
        self.budget = JudgeBudget(max_calls, max_tokens, shared)
        #: dry run: per unit, every distinct request seen: key -> (in the cache, estimated prompt tokens)
        self.planned: dict[str, dict[str, tuple[bool, int]]] = {}
        self.served = ServedLog(getattr(judge, "model", None))  # which model answered (runs.served)
        self.unit = ""
        self.usage: dict[str, dict[str, int]] = {}
        #: per unit, the calls of this run that got no answer, by status, and a detail of each status
        self.failures: dict[str, dict[str, int]] = {}
        self.details: dict[str, dict[str, str]] = {}
        self.answered: dict[str, int] = {}  # per unit: usable answers (sent or cached) of this run
        #: per unit and metric, the statuses of the records this run scored (:meth:`note_records`)
        self.scored: dict[str, dict[str, dict[str, int]]] = {}
        self.calls = 0
        self.tokens = 0

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
            seen = self.planned.setdefault(self.unit, {})
            for k, r in zip(ids, reqs):
                if k in seen:
                    continue
                seen[k] = (k in hits, 0 if k in hits else estimate_tokens(r))
                if k in hits:
                    b["cached"] += 1
                else:
                    b["calls"] += 1
                    b["est_prompt_tokens"] += seen[k][1]
            return [JudgeReply("api_error", detail="dry run: not sent") for _ in reqs]
        booked_calls = booked_tokens = 0
        if self.budget.active and reqs:
            hits = self._cached(keys or [])
            todo = {k: r for k, r in zip(keys or [str(i) for i in range(len(reqs))], reqs) if k not in hits}
            booked_calls = len(todo)
            booked_tokens = sum(estimate_tokens(r) for r in todo.values()) if self.max_tokens is not None else 0
            why = self.budget.reserve(booked_calls, booked_tokens)
            if why is not None:
                raise BudgetExceeded(why)
        calls_before, tokens_before = self.calls, self.tokens
        replies = self.inner.complete(reqs)
        self.served.note(self.unit, keys, replies)
        done: set[str] = set()
        for i, rep in enumerate(replies):
            if rep.ok:
                self.answered[self.unit] = self.answered.get(self.unit, 0) + 1
            if rep.cached:
                b["cached"] += 1
                continue
            k = rep.key or str(i)
            if k in done:
                continue
            done.add(k)
            b["calls"] += 1
            b["http_requests"] += int(getattr(rep, "attempts", 1) or 1)
            self.calls += 1
            if not rep.ok:
                b["failed"] += 1
                by = self.failures.setdefault(self.unit, {})
                by[rep.status] = by.get(rep.status, 0) + 1
                self.details.setdefault(self.unit, {}).setdefault(rep.status, rep.detail)
            usage = dict(rep.usage or {})
            spent = int(usage.get("total_tokens") or 0) or estimate_tokens(reqs[i])
            for name in ("prompt_tokens", "completion_tokens"):
                b[name] += int(usage.get(name) or 0)
            b["total_tokens"] += spent
            self.tokens += spent
        tokens = self.tokens - tokens_before if self.max_tokens is not None else 0
        self.budget.settle(booked_calls, self.calls - calls_before, booked_tokens, tokens)
        return list(replies)

    def note_records(self, unit: str, records: Sequence[Any]) -> None:
        """Count the statuses of records this run scored for ``unit``, per metric (for :meth:`unusable`)."""
        per = self.scored.setdefault(unit, {})
        for r in records:
            c = per.setdefault(r.metric, {})
            c[r.status] = c.get(r.status, 0) + 1

    def unusable(self) -> str | None:
        """Why the judge cannot be used, else None: a unit of this run sent calls and got not one
        usable answer (every call failed, none came from the cache), or a metric of a unit whose
        calls failed in this run got no value on any item this run scored for it, some of them
        for want of an answer (:func:`call_failed`), though the unit's other calls answered."""
        reasons = []
        for unit, by in self.failures.items():
            if not sum(by.values()):
                continue
            counts = ", ".join(f"{k} {v}" for k, v in sorted(by.items()))
            if not self.answered.get(unit):
                why = f"metric {unit!r} got no usable answer: its calls failed ({counts})"
            else:
                dead = {
                    m: {s: n for s, n in st.items() if call_failed(s)}
                    for m, st in self.scored.get(unit, {}).items()
                    if not st.get("ok") and any(call_failed(s) for s in st)
                }
                if not dead:
                    continue
                each = "; ".join(
                    f"{m}: " + ", ".join(f"{s} {n}" for s, n in sorted(st.items())) for m, st in dead.items()
                )
                why = (
                    f"{'metric' if len(dead) == 1 else 'metrics'} {', '.join(map(repr, dead))} got no usable answer "
                    f"on any item this run scored ({each}), though other calls of unit {unit!r} answered "
                    f"(its failed calls: {counts})"
                )
            first = "; ".join(f"{k}: {d}" for k, d in sorted(self.details.get(unit, {}).items()) if d)
            reasons.append(f"{why}; {first}" if first else why)
        return "; ".join(reasons) or None

    def take(self, unit: str) -> dict[str, int]:
        """The usage counted for ``unit`` since the last take (and reset it)."""
        return self.usage.pop(unit, dict(_ZERO))

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()


def planned_usage(planned: Mapping[str, Mapping[str, tuple[bool, int]]]) -> dict[str, dict[str, int]]:
    """A dry run's count per unit from its distinct requests (:attr:`MeteredJudge.planned`):
    ``calls`` (not in the cache), ``cached``, ``est_prompt_tokens`` of the calls."""
    out = {}
    for unit, keys in planned.items():
        calls = [est for cached, est in keys.values() if not cached]
        out[unit] = {"calls": len(calls), "cached": len(keys) - len(calls), "est_prompt_tokens": sum(calls)}
    return out


def judge_summary(usage: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """Totals over units (for results.json and dry-run output)."""
    total: dict[str, float] = {}
    for u in usage.values():
        for k, v in u.items():
            total[k] = total.get(k, 0) + v
    return {"per_unit": {k: dict(v) for k, v in usage.items()}, "total": total}
