"""Per-item pieces of a judge batch: the judge check, item ids, seeded per-item RNGs, fields, rendering.

The per-item RNG for orders and shuffles is SHA-256 of seed, item id and purpose (never
Python's salted ``hash``), the same in every process and run; content ids name items by their
pixels and strings.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.engines.judge.prompt_template import is_missing
from transcreval.engines.judge.types import ImagePart, Judge, JudgeRequest
from transcreval.errors import InputError

__all__ = ["broadcast", "check_judge", "content_id", "item_id_list", "item_rng", "render_each"]


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
    :func:`transcreval.engines.judge.roles.text_field` instead, which checks that each value is text.
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
