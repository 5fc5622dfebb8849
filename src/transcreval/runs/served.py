"""Which model answered each judge request, per unit and per item.

An endpoint reports the model that served each answer, which need not be the one asked for (a
router, a fallback, a misconfigured ``base_url``). The run's :class:`ServedLog` (kept by
:class:`~transcreval.runs.judging.MeteredJudge`) remembers every answer of the batch being
scored, keyed by request, and counts the served model names of the calls the run makes, per unit;
the engine writes those counts on the batch's usage line (``{"usage": ..., "served": {name: n}}``).

When a batch holds any answer from a model other than the one asked for (:func:`same_model`:
a dated snapshot or ``:latest`` tag of it is the same model), :func:`served_per_item` scores
each of its items again, one at a time, answered from that memory (nothing is sent, nothing
is counted), to learn which answers belong to which item; every line of that batch then records
``"served": {model: answers}``. To learn which metrics those answers scored, it scores the item
once more with each other model's answers withheld (as failed calls): the metrics whose records
change are that model's, recorded as ``"other_model_metrics": {model: [metrics]}``. results.json
counts the items with answers from another model per unit, system and metric (only the metrics
they scored), and the report lists them.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from transcreval.engines.judge.setups import same_model
from transcreval.errors import TranscrevalError

__all__ = ["ServedLog", "other_models", "served_per_item"]


def other_models(asked: str | None, served: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``served`` (keyed by model name) that are not the model ``asked`` for."""
    if not asked:
        return {}
    return {name: n for name, n in served.items() if not same_model(asked, name)}


class ServedLog:
    """The answers of the batch in progress and the served models of the calls made, per unit."""

    def __init__(self, asked: str | None) -> None:
        self.asked = asked
        self.batch: dict[str, Any] = {}  # request key -> reply, for the batch being scored
        self.calls: dict[str, dict[str, int]] = {}  # unit -> served model -> calls answered
        self._replay: Mapping[str, Any] | None = None
        self._seen: dict[str, Any] = {}

    @property
    def replaying(self) -> bool:
        return self._replay is not None

    def note(self, unit: str, keys: Sequence[str] | None, replies: Sequence[Any]) -> None:
        """Remember a call's replies (by request key) and count the served model of fresh answers."""
        if keys is not None:
            self.batch.update(zip(keys, replies))
        counted: set[str] = set()
        for i, r in enumerate(replies):
            key = keys[i] if keys is not None else str(i)
            if r.cached or r.model is None or key in counted:
                continue
            counted.add(key)
            per = self.calls.setdefault(unit, {})
            per[str(r.model)] = per.get(str(r.model), 0) + 1

    def replay(self, keys: Sequence[str]) -> list[Any]:
        """The remembered replies of ``keys`` (a key not asked in the batch: an api_error reply)."""
        from transcreval.engines.judge.types import JudgeReply

        assert self._replay is not None
        out = []
        for k in keys:
            r = self._replay.get(k)
            if r is None:
                r = JudgeReply("api_error", detail="not asked in this batch", key=k)
            else:
                self._seen[k] = r
            out.append(r)
        return out

    @contextlib.contextmanager
    def replaying_from(self, replies: Mapping[str, Any]) -> Iterator[None]:
        before, self._replay = self._replay, replies
        try:
            yield
        finally:
            self._replay = before

    def take_batch(self) -> dict[str, Any]:
        """The replies of the batch just scored (and forget them)."""
        out, self.batch = self.batch, {}
        return out

    def take_calls(self, unit: str) -> dict[str, int]:
        """The served models of the calls made for ``unit`` since the last take (and reset them)."""
        return self.calls.pop(unit, {})

    def item_models(self, score_one: Callable[[], Any]) -> tuple[dict[str, int], dict[str, list[tuple[str, str]]]]:
        """``score_one()`` answered from the replay: the served model of each distinct answer it
        used, and what it scored (per metric, the records' status and value)."""
        self._seen = {}
        outcomes: Any = ()
        with contextlib.suppress(TranscrevalError):  # what it asked before failing still counts
            outcomes = score_one()
        counts: dict[str, int] = {}
        for r in self._seen.values():
            if r.model is not None:
                counts[str(r.model)] = counts.get(str(r.model), 0) + 1
        scored: dict[str, list[tuple[str, str]]] = {}
        for out in outcomes or ():
            for rec in out.records:
                scored.setdefault(rec.metric, []).append((str(rec.status), repr(float(rec.value))))
        return counts, scored


def served_per_item(
    log: ServedLog, score: Callable[[Sequence[Any]], Any], works: Sequence[Any]
) -> list[dict[str, Any]]:
    """Per work, what its line records when the batch just scored holds any answer from another
    model than the one asked for: ``"served": {model: answers}`` and ``"other_model_metrics":
    {model: [metrics]}``, the metrics that model's answers scored (those whose records change
    when its answers are withheld); else one empty dict per work (nothing to record)."""
    from transcreval.engines.judge.types import JudgeReply

    replies = log.take_batch()
    names = {str(r.model) for r in replies.values() if getattr(r, "model", None) is not None}
    others = other_models(log.asked, dict.fromkeys(names, 1))
    if not others:
        return [{} for _ in works]
    out = []
    with log.replaying_from(replies):
        for w in works:
            models, scored = log.item_models(functools.partial(score, [w]))
            entry: dict[str, Any] = {"served": models} if models else {}
            by_model = {}
            for name in sorted(set(models) & set(others)):
                withheld = {
                    k: JudgeReply("api_error", detail=f"withheld: answered by {name}", key=k)
                    if str(getattr(r, "model", None)) == name
                    else r
                    for k, r in replies.items()
                }
                with log.replaying_from(withheld):
                    _, without = log.item_models(functools.partial(score, [w]))
                by_model[name] = sorted(m for m in {*scored, *without} if scored.get(m) != without.get(m))
            if by_model:
                entry["other_model_metrics"] = by_model
            out.append(entry)
    return out
