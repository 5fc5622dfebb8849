"""The fake server's synthetic answers: the JSON a prompt asks for, filled from a hash of the request.

Used by :mod:`transcreval.engines.judge.fake_server`; the numbers mean nothing (see there).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

__all__ = ["prompt_text", "synthetic_answer"]


def prompt_text(body: dict[str, Any]) -> str:
    """All text parts of a chat request's messages, joined by newlines."""
    parts = []
    for m in body.get("messages", []):
        c = m.get("content")
        if isinstance(c, str):
            parts.append(c)
        elif isinstance(c, list):
            parts.extend(p.get("text", "") for p in c if isinstance(p, dict) and p.get("type") == "text")
    return "\n".join(parts)


_SLOT = re.compile(r'"(\w+)"\s*:\s*(?:"<([^>]*)>"|<([^>]*)>|(\[))')


def synthetic_answer(body: dict[str, Any]) -> str:
    """A made-up answer in the format the prompt asks for (the last ``{...}`` example in it).

    Slots: ``<integer A-B>`` -> an integer in [A, B]; ``<true or false>`` -> a boolean;
    ``<one of: X, Y>`` -> one of the options; a JSON list (``["<name>", ...]``) or ``<list ...>``
    -> an empty list; anything else -> a short string. Values come from
    a SHA-256 of the request, so the same request always gets the same answer.
    """
    text = prompt_text(body)
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).digest()
    start = text.rfind("\n{")
    tail = text[start + 1 :] if start != -1 else (text if text.startswith("{") else "")
    out: dict[str, Any] = {}
    for i, m in enumerate(_SLOT.finditer(tail)):
        key, spec = m.group(1), (m.group(2) or m.group(3) or ("list" if m.group(4) else "")).strip()
        r = digest[i % len(digest)]
        rng = re.match(r"integer (-?\d+)\s*-\s*(-?\d+)", spec)
        if rng:
            lo, hi = int(rng.group(1)), int(rng.group(2))
            out[key] = lo + r % (hi - lo + 1)
        elif spec.startswith("true or false"):
            out[key] = bool(r % 2)
        elif spec.startswith("one of:"):
            opts = [o.strip() for o in spec[len("one of:") :].split(",") if o.strip()]
            out[key] = opts[r % len(opts)] if opts else ""
        elif spec.startswith("list"):
            out[key] = []
        else:
            out[key] = f"synthetic {key}"
    return json.dumps(out) if out else '{"answer": "synthetic"}'
