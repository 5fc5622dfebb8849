"""From judge replies to verdicts.

A :class:`Verdict` is one answer read by a metric: its status (one of :data:`STATUSES`), the
value read when the status is "ok", and what went wrong otherwise. :func:`ask` sends a batch
of requests and reads every reply with the metric's reader; an answer that arrived but cannot
be read is "unparsable" (or "refused" when it opens like a refusal).

The failure bookkeeping lives in :mod:`transcreval.engines.judge.tally`, the per-item pieces (ids,
seeded orders, rendering) in :mod:`transcreval.engines.judge.items`, the batch flow every judge metric
shares in :mod:`transcreval.engines.judge.pipeline`; their names are importable from here too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from transcreval.engines.judge.items import broadcast, check_judge, content_id, item_id_list, item_rng, render_each
from transcreval.engines.judge.parse import Read, extract_json, looks_like_refusal
from transcreval.engines.judge.tally import (
    FailureTally,
    JudgeTally,
    OnFailure,
    check_on_failure,
    check_valid_count,
    failures_dict,
    item_statuses,
    judge_extras,
    judge_result,
)
from transcreval.engines.judge.types import Judge, JudgeReply, JudgeRequest
from transcreval.errors import InputError

__all__ = [
    "FailureTally",
    "JudgeTally",
    "OnFailure",
    "Verdict",
    "ask",
    "broadcast",
    "check_judge",
    "check_on_failure",
    "check_valid_count",
    "content_id",
    "failures_dict",
    "item_id_list",
    "item_rng",
    "item_statuses",
    "json_reader",
    "judge_extras",
    "judge_result",
    "render_each",
]


@dataclass(frozen=True)
class Verdict:
    """One judge answer as a metric reads it."""

    status: str
    value: Any = None
    detail: str = ""
    reply: JudgeReply | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def json_reader(read: Callable[[Mapping[str, Any]], Read[Any]]) -> Callable[[str], Read[Any]]:
    """A reader of raw answers: find the JSON object, then apply ``read`` to it."""

    def reader(text: str) -> Read[Any]:
        obj = extract_json(text)
        if not obj.ok:
            return obj
        return read(obj.value)  # type: ignore[arg-type]

    return reader


def ask(
    judge: Judge,
    requests: Sequence[JudgeRequest],
    reader: Callable[[str], Read[Any]] | Sequence[Callable[[str], Read[Any]]],
) -> list[Verdict]:
    """Send ``requests`` (one batch) and read each reply; same order.

    ``reader`` reads every reply, or is a list with one reader per request. A reader that
    raises makes that answer "unparsable" (the other answers are read as usual).
    """
    if not requests:
        return []
    readers = list(reader) if isinstance(reader, Sequence) else [reader] * len(requests)
    if len(readers) != len(requests):
        raise InputError(f"{len(readers)} readers for {len(requests)} requests")
    replies = judge.complete(list(requests))
    if len(replies) != len(requests):
        raise InputError(f"the judge returned {len(replies)} replies for {len(requests)} requests")
    out = []
    for rep, read in zip(replies, readers):
        if rep.status != "ok":
            out.append(Verdict(rep.status, None, rep.detail, rep))
            continue
        try:
            got = read(rep.text or "")
        except Exception as e:  # a reader bug must not lose the batch (nor fail every rerun of a cached answer)
            got = Read(None, f"the answer could not be read ({type(e).__name__}: {str(e)[:120]})")
        if not isinstance(got, Read):
            got = Read(None, f"the reader returned {type(got).__name__}, not a Read")
        if got.ok:
            out.append(Verdict("ok", got.value, "", rep))
        elif looks_like_refusal(rep.text):
            out.append(Verdict("refused", None, f"the model declined: {(rep.text or '')[:120]!r}", rep))
        else:
            out.append(Verdict("unparsable", None, got.error, rep))
    return out
