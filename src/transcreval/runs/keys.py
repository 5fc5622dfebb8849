"""The work key: what makes a stored line the current result of one item x unit x system.

The engine writes each line with the key of its work, and reads the stored lines back to skip
the works already done; ``aggregate`` keeps, per item, the stored line whose key is the current
one. Both key a work here, the same way:

* :func:`signature_digest`: the sha256 of a unit's signature (its canonical JSON);
* :func:`work_key`: the sha256 of the protocol and its version, the unit, the system, that digest,
  the item's and the output's content digests (images by sha256) and the output's status;
* :func:`reference_output`: the item's own reference as the output of a reference system (MPTc's
  ``"GT"`` row), keyed like any other output;
* :func:`is_current` (the key matches) and :func:`is_done` (it matches, and no record or payload
  holds a transient judge failure, :data:`TRANSIENT`: such a line is redone on the next run);
* :func:`system_works`, :class:`Keying`, :func:`to_do` and :func:`current`: one system's works of a
  unit, keyed, checked against its stored lines in one call (the store asks these for the engine,
  :meth:`~transcreval.runs.store.RunDir.pending`, and for ``aggregate``,
  :meth:`~transcreval.runs.store.RunDir.read_stored`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from transcreval.runs.manifest import content_digest
from transcreval.runs.spec import Item, Output, Work

__all__ = [
    "TRANSIENT",
    "Keying",
    "current",
    "is_current",
    "is_done",
    "is_transient",
    "reference_output",
    "signature_digest",
    "system_works",
    "to_do",
    "work_key",
]

#: record statuses redone on the next run (the answer may come back next time)
TRANSIENT = ("api_error", "timeout")


def is_transient(status: Any) -> bool:
    """A transient judge failure, or a status derived from one (MPTc's ``gt_title_api_error``:
    the title could not be scored because the GT poster's title call failed): redone on resume."""
    return isinstance(status, str) and (status in TRANSIENT or status.endswith(tuple(f"_{t}" for t in TRANSIENT)))


def signature_digest(signature: Any) -> str:
    """sha256 of a unit signature's canonical JSON (a printed signature is its own JSON string)."""
    canonical = getattr(signature, "canonical_json", None)
    text = canonical() if callable(canonical) else json.dumps(str(signature), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def work_key(protocol: str, version: str, unit: str, digest: str, work: Work) -> str:
    """sha256 of what defines a unit's result for one item: the protocol and its version, the
    unit, the system, the unit's signature (its :func:`signature_digest`), the item's and the
    output's content (images by sha256)."""
    payload = [
        protocol,
        str(version),
        unit,
        work.system,
        digest,
        work.item.digest,
        work.output.digest,
        work.output.status,
    ]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()


def reference_output(item: Item, system: str) -> Output:
    """The item's own reference (image and text) as the output of a reference system ("GT")."""
    if item.reference_image is None and item.reference_text is None:
        return Output(
            system,
            item.id,
            digest=content_digest({"ref": None}),
            status="missing_output",
            detail="the item has no reference",
            where=item.where,
        )
    return Output(
        system,
        item.id,
        item.reference_image,
        item.reference_text,
        {},
        content_digest({"ref": item.digest}),
        "ok",
        "",
        item.where,
    )


def is_current(line: Mapping[str, Any] | None, key: str) -> bool:
    """The stored line holds the result of the work keyed ``key``."""
    return line is not None and line.get("key") == key


def is_done(line: Mapping[str, Any] | None, key: str) -> bool:
    """The stored line is current and holds no transient failure in its records or its payload's
    ``status`` (a unit whose payload holds a judge's verdicts says there when one failed)."""
    if line is None or not is_current(line, key):
        return False
    if is_transient((line.get("payload") or {}).get("status")):
        return False
    return not any(is_transient(r.get("status")) for r in line.get("records", ()))


@dataclass(frozen=True)
class Keying:
    """What keys every work of one unit besides the work itself (:func:`work_key`'s other parts)."""

    protocol: str
    version: str
    unit: str
    digest: str

    def key(self, work: Work) -> str:
        """The work's key (:func:`work_key`)."""
        return work_key(self.protocol, self.version, self.unit, self.digest, work)


def system_works(
    items: Sequence[Item], outputs: Mapping[str, Mapping[str, Output]], system: str, reference_system: str | None
) -> list[Work]:
    """One system's work per item: its output, or the item's own reference for the unit's
    reference system (:func:`reference_output`)."""
    if system == reference_system:
        return [Work(it, reference_output(it, system), system) for it in items]
    return [Work(it, outputs[system][it.id], system) for it in items]


def to_do(
    keying: Keying | None, works: Sequence[Work], latest: Mapping[str, Mapping[str, Any]]
) -> list[tuple[Work, str]]:
    """The works whose newest stored line (``latest``, by item id) is not done (:func:`is_done`),
    each with its key; without a ``keying`` (no signature yet) nothing can be known done: every
    work, with an empty key."""
    if keying is None:
        return [(w, "") for w in works]
    keyed = [(w, keying.key(w)) for w in works]
    return [(w, k) for w, k in keyed if not is_done(latest.get(w.item.id), k)]


def current(keying: Keying, works: Sequence[Work], latest: Mapping[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The newest stored line (``latest``, by item id) of each work whose key is current
    (:func:`is_current`), by item id; a work without one is absent."""
    out: dict[str, dict[str, Any]] = {}
    for w in works:
        line = latest.get(w.item.id)
        if line is not None and is_current(line, keying.key(w)):
            out[w.item.id] = line
    return out
