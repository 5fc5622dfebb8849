"""From judge replies to verdicts, and the failure bookkeeping every judge metric shares.

A :class:`Verdict` is one answer read by a metric: its status (one of :data:`STATUSES`), the
value read when the status is "ok", and what went wrong otherwise. :func:`ask` sends a batch
of requests and reads every reply with the metric's reader; an answer that arrived but cannot
be read is "unparsable" (or "refused" when it opens like a refusal). :class:`FailureTally`
counts failures per status; metrics store it as an int64 vector state and report it as
``extras["failures"]`` next to ``n_valid`` and ``n_failed``. A failure is never scored.

Also here: the per-item RNG for orders and shuffles (SHA-256 of seed, item id and purpose,
never Python's salted ``hash``), content ids for items, and per-item field broadcasting.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from transcreval.errors import InputError, JudgeFailure
from transcreval.judge.parse import Read, extract_json, looks_like_refusal
from transcreval.judge.types import FAILURE_STATUSES, ITEM_STATUSES, ImagePart, Judge, JudgeReply, JudgeRequest

OnFailure = Literal["skip", "raise"]

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


class FailureTally:
    """Counts of failed items per status (api_error, refused, timeout, truncated, unparsable)."""

    def __init__(self) -> None:
        self.counts = [0] * len(FAILURE_STATUSES)
        self.first: dict[str, str] = {}

    def add(self, status: str, detail: str = "") -> None:
        if status not in FAILURE_STATUSES:
            raise ValueError(f"not a failure status: {status!r}")
        self.counts[FAILURE_STATUSES.index(status)] += 1
        self.first.setdefault(status, detail)

    @property
    def n_failed(self) -> int:
        return sum(self.counts)

    def raise_if_any(self, what: str, on_failure: OnFailure) -> None:
        if on_failure == "raise" and self.n_failed:
            lines = ", ".join(f"{s}: {n}" for s, n in zip(FAILURE_STATUSES, self.counts) if n)
            first = "; ".join(f"{s}: {d}" for s, d in self.first.items() if d)
            raise JudgeFailure(
                f"{what}: {self.n_failed} judge answer(s) failed ({lines}){'; first: ' + first if first else ''}. "
                "Answers that came back are cached; on_failure='skip' scores the others and reports the failures."
            )


def failures_dict(counts: Sequence[int]) -> dict[str, int]:
    """``{status: count}`` for every failure status (zeros included)."""
    return {s: int(n) for s, n in zip(FAILURE_STATUSES, counts)}


def check_on_failure(on_failure: str) -> OnFailure:
    if on_failure not in ("skip", "raise"):
        raise InputError(f"on_failure must be 'skip' or 'raise', got {on_failure!r}")
    return on_failure  # type: ignore[return-value]


def check_judge(judge: Any, what: str) -> Judge:
    if judge is None:
        raise InputError(
            f"{what} needs a judge: judge=OpenAICompatibleJudge(model=..., cache=...) or judge=ReplayJudge(cache=...)"
        )
    if not callable(getattr(judge, "complete", None)):
        raise InputError(f"{what}: judge must have a complete(requests) method, got {type(judge).__name__}")
    return judge


def item_rng(seed: int, item_id: str, purpose: str) -> random.Random:
    """A random generator for one item and purpose, the same in every process and run."""
    digest = hashlib.sha256(f"{seed}:{item_id}:{purpose}".encode("utf-8", "surrogatepass")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def content_id(*parts: Any) -> str:
    """An item id from its content (image pixel hashes and strings): stable across processes."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, ImagePart):
            h.update(b"img:" + p.sha256.encode())
        elif isinstance(p, (list, tuple)):
            h.update(b"seq:" + content_id(*p).encode())
        else:
            h.update(b"str:" + str(p).encode("utf-8", "surrogatepass") + b"\x00")
    return h.hexdigest()[:24]


def item_id_list(item_ids: Any, n: int) -> list[str] | None:
    """``item_ids`` as n strings (None stays None: ids then come from the content)."""
    if item_ids is None:
        return None
    if isinstance(item_ids, (str, bytes)) or not isinstance(item_ids, Sequence):
        raise InputError("item_ids must be a list with one id per item")
    ids = [str(x) for x in item_ids]
    if len(ids) != n:
        raise InputError(f"item_ids has {len(ids)} ids for {n} items")
    return ids


def broadcast(value: Any, n: int, name: str, *, required: bool = True) -> list[Any]:
    """A per-item list: a string (or scalar) for every item, or a sequence of length n.

    Text fields (markets, genres, translations, ...) go through
    :func:`transcreval.judge.roles.text_field` instead, which checks that each value is text.
    """
    if value is None:
        if required:
            raise InputError(f"{name} is required: one value for all items, or a list with one per item")
        return [None] * n
    if isinstance(value, (str, int, float)):
        return [value] * n
    if isinstance(value, Sequence):
        items = list(value)
        if len(items) != n:
            raise InputError(f"{name} has {len(items)} values for {n} items")
        return items
    raise InputError(f"{name} must be a string or a list of strings, got {type(value).__name__}")


class JudgeTally:
    """A batch's statistics being built, one item at a time and in input order.

    ``add(value)`` records a valid item, ``fail(status)`` a failed one (counted per status,
    never scored), ``undefined()`` an item whose answers are fine but which has no value.
    ``stats()`` gives the states every judge metric declares: ``total`` (sum of the valid
    values), ``count`` (valid items), ``failures`` (int64 counts in :data:`FAILURE_STATUSES`
    order), ``values`` (one value per item, NaN unless "ok": it lines up with the inputs) and
    ``item_status`` (one code per item, an index into :data:`ITEM_STATUSES`).
    """

    def __init__(self) -> None:
        self.total = 0.0
        self.count = 0
        self.values: list[float] = []
        self.codes: list[int] = []
        self.failed = FailureTally()

    def add(self, value: float) -> None:
        v = float(value)
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError(f"a judge item value must be finite, got {value!r}")
        self.total += v
        self.count += 1
        self.values.append(v)
        self.codes.append(0)

    def fail(self, status: str, detail: str = "") -> None:
        self.failed.add(status, detail)
        self.values.append(float("nan"))
        self.codes.append(ITEM_STATUSES.index(status))

    def undefined(self) -> None:
        """An item with no value that is not a failure (e.g. nothing to score in it)."""
        self.values.append(float("nan"))
        self.codes.append(ITEM_STATUSES.index("undefined"))

    def stats(self) -> dict[str, Any]:
        import numpy as np

        return {
            "total": self.total,
            "count": self.count,
            "failures": list(self.failed.counts),
            "values": np.asarray(self.values, dtype=np.float64),
            "item_status": np.asarray(self.codes, dtype=np.int64),
        }


def item_statuses(codes: Any) -> list[str]:
    """The ``item_status`` codes of a judge metric's states as status names."""
    values = codes.tolist() if hasattr(codes, "tolist") else list(codes)
    return [ITEM_STATUSES[int(c)] for c in values]


def judge_extras(stats: Mapping[str, Any]) -> dict[str, Any]:
    """``n_valid``, ``n_failed`` and ``failures`` (a count per failure status) from stats."""
    counts = [
        int(x) for x in (stats["failures"].tolist() if hasattr(stats["failures"], "tolist") else stats["failures"])
    ]
    return {"n_valid": int(stats["count"]), "n_failed": sum(counts), "failures": failures_dict(counts)}


def check_valid_count(stats: Mapping[str, Any], what: str) -> int:
    """The number of valid items; EmptyInputError (naming the failures) when there is none."""
    from transcreval.errors import EmptyInputError

    n = int(stats["count"])
    if n == 0:
        ex = judge_extras(stats)
        detail = ", ".join(f"{s}: {c}" for s, c in ex["failures"].items() if c) or "no items"
        raise EmptyInputError(
            f"{what}: no valid judge answers to score ({detail}); failures are never scored: see "
            "extras['failures'] of earlier results, or rerun with on_failure='raise' to see the first error"
        )
    return n


def render_each(
    template: Any,
    rows: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]],
    arguments: Mapping[str, str] | None = None,
    what: str = "judge metric",
) -> list[JudgeRequest]:
    """Render ``template`` once per ``(images, fields)`` row.

    A field the template needs must have a value (not None, not NaN) on every row: when it has
    none the InputError names the metric argument that supplies it (``arguments`` maps field ->
    argument name), and the items that lack one. Nothing is rendered (nor sent) before every
    row is complete.
    """
    from transcreval.judge.templates import is_missing

    args = dict(arguments or {})
    order = [f for f in args if f in template.fields] + [f for f in template.fields if f not in args]
    absent = {f: [i for i, (_, fields) in enumerate(rows) if is_missing(fields.get(f))] for f in order}
    everywhere = [f for f, items in absent.items() if items and len(items) == len(rows)]
    if everywhere:
        names = ", ".join(repr(f) for f in everywhere)
        given = ", ".join(f"{args.get(f, f)}=" for f in everywhere)
        raise InputError(f"{what}: template {template.ref} needs {names}: pass {given}")
    for f, items in absent.items():
        if items:
            shown = ", ".join(map(str, items[:5])) + (f" (and {len(items) - 5} more)" if len(items) > 5 else "")
            raise InputError(
                f"{what}: {args.get(f, f)} has no value (None or NaN) for item(s) {shown} of {len(rows)}; "
                f"template {template.ref} needs {f!r} for every item"
            )
    return [template.render(images, **fields) for images, fields in rows]


def judge_result(value: float, stats: Mapping[str, Any], signature: Any, **extras: Any) -> Any:
    """A :class:`~transcreval.result.MetricResult` with the per-item values and the failure extras.

    ``per_item`` lines up with the inputs (NaN where an item failed or is undefined) and
    ``extras["item_status"]`` says why, item by item ("ok" or a status of :data:`ITEM_STATUSES`).
    """
    import torch

    from transcreval.result import MetricResult

    values = stats["values"]
    per_item = values.clone() if isinstance(values, torch.Tensor) else torch.as_tensor(values, dtype=torch.float64)
    status = item_statuses(stats["item_status"])
    if len(status) != per_item.numel():
        raise AssertionError(f"{signature.name}: {len(status)} item statuses for {per_item.numel()} item values")
    return MetricResult(
        float(value),
        int(stats["count"]),
        signature,
        per_item=per_item,
        extras={**judge_extras(stats), "item_status": status, **extras},
    )
