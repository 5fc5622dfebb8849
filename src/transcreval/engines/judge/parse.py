"""Reading judge answers: lenient about the wrapping, strict about the content.

:func:`extract_json` finds the JSON object in an answer: the whole answer, a fenced code
block (```json ... ```), a block between ``||V^=^V||`` delimiters (VIEScore / IMTBench style,
whose content may be bare ``"key": value`` pairs), or the one balanced ``{...}`` object in
surrounding prose. A Python-literal dict (single quotes) and trailing commas are accepted.
Every object the answer holds counts (inside and outside code blocks and delimited blocks):
two different objects, a key written twice (also in another case), or none make the answer
unparsable: nothing is guessed.

The field readers then take one value: an integer on a scale (a JSON integer, an integral
float, a digit string, or a one-element list of those, as IMTBench's ``[7]``), a choice
letter, a string, a boolean or a list of strings. A value of the wrong type or outside the
scale makes the answer unparsable (never clamped, never rounded). :func:`read_bare` reads an
answer that is nothing but one word or letter ("B", "Yes."); any other prose is unparsable.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")

__all__ = [
    "Read",
    "extract_json",
    "looks_like_refusal",
    "read_bare",
    "read_bool",
    "read_choice",
    "read_int",
    "read_str",
    "read_str_list",
]

_MAX_CHARS = 200_000
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.S)
_DELIM = re.compile(r"\|\|\s*V[\^ˆ]=[\^ˆ]V\s*\|\|")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


@dataclass(frozen=True)
class Read(Generic[T]):
    """A value read from an answer, or why none could be (``value`` None, ``error`` set)."""

    value: T | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


def _fail(why: str) -> Read[Any]:
    return Read(None, why)


class _DuplicateKey(Exception):
    """A JSON object names one key twice: which value was meant cannot be told."""


def _no_duplicates(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    seen: set[Any] = set()
    for k, _ in pairs:
        if k in seen:
            raise _DuplicateKey(k)
        seen.add(k)
    return dict(pairs)


def _literal(span: str) -> Any:
    """A Python literal (None when it is none); a dict display naming a key twice raises."""
    try:
        tree = ast.parse(span, mode="eval")
    except Exception:
        return None
    try:
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                _no_duplicates([(k, None) for k in keys])
        return ast.literal_eval(tree)
    except _DuplicateKey:
        raise
    except Exception:
        return None


def _loads(span: str) -> Any:
    """JSON, JSON without trailing commas, or a Python literal; None when none parses.

    Raises :class:`_DuplicateKey` when an object names a key twice.
    """
    for candidate in (span, _TRAILING_COMMA.sub(r"\1", span)):
        try:
            return json.loads(candidate, object_pairs_hook=_no_duplicates)
        except (ValueError, RecursionError):
            pass
    return _literal(span)


def _balanced_objects(text: str) -> list[str]:
    """Outermost ``{...}`` spans, ignoring braces inside JSON/Python strings."""
    spans, depth, start, quote, escape = [], 0, -1, "", False
    for i, ch in enumerate(text):
        if quote:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'" and depth > 0:
            # an apostrophe in prose inside braces is rare; a real string is closed on the same line
            if ch == "'" and text.find("'", i + 1) == -1:
                continue
            quote = ch
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def _objects_in(text: str) -> list[dict[str, Any]]:
    out = []
    for span in _balanced_objects(text):
        obj = _loads(span)
        if isinstance(obj, dict):
            out.append(obj)
    return out


def _one(objs: list[dict[str, Any]], where: str) -> Read[dict[str, Any]]:
    distinct: list[dict[str, Any]] = []
    for o in objs:
        if o not in distinct:
            distinct.append(o)
    if len(distinct) == 1:
        return Read(distinct[0])
    if not distinct:
        return _fail(f"no JSON object {where}")
    return _fail(f"{len(distinct)} different JSON objects {where}")


def extract_json(answer: Any) -> Read[dict[str, Any]]:
    """The JSON object an answer holds (see the module docstring)."""
    if answer is None:
        return _fail("no answer")
    text = answer if isinstance(answer, str) else str(answer)
    text = text.strip().lstrip("\ufeff")
    if not text:
        return _fail("empty answer")
    if len(text) > _MAX_CHARS:
        return _fail(f"answer too long to read ({len(text)} characters)")
    try:
        return _extract(text)
    except _DuplicateKey as e:
        return _fail(f"the key {e.args[0]!r} appears twice in one JSON object")


def _extract(text: str) -> Read[dict[str, Any]]:
    whole = _loads(text) if text[0] in "{[" else None
    if isinstance(whole, dict):
        return Read(whole)
    found: list[dict[str, Any]] = []
    rest = text
    delims = list(_DELIM.finditer(text))
    if len(delims) >= 2:
        if len(delims) % 2:
            return _fail(f"{len(delims)} ||V^=^V|| delimiters: the blocks are not paired")
        blocks = [(delims[i], delims[i + 1]) for i in range(0, len(delims), 2)]
        for start, end in blocks:
            inner = text[start.end() : end.start()].strip()
            if not inner.startswith("{"):
                inner = "{" + inner.rstrip().rstrip(",") + "}"
            obj = _loads(inner)
            objs = [obj] if isinstance(obj, dict) else _objects_in(inner)
            if not objs:
                return _fail("a block between ||V^=^V|| delimiters is not JSON")
            found += objs
        rest = "".join(
            text[a:b] for a, b in zip([0, *(e.end() for _, e in blocks)], [*(s.start() for s, _ in blocks), len(text)])
        )
    pieces, pos = [], 0
    for m in _FENCE.finditer(rest):
        content = m.group(1).strip()
        obj = _loads(content)
        found += [obj] if isinstance(obj, dict) else _objects_in(content)
        pieces.append(rest[pos : m.start()])
        pos = m.end()
    pieces.append(rest[pos:])
    for piece in pieces:
        found += _objects_in(piece)
    return _one(found, "in the answer")


# ---------------------------------------------------------------------- field readers
def _norm_key(k: Any) -> str:
    return str(k).strip().lower()


def _get(obj: Mapping[str, Any], keys: Sequence[str]) -> tuple[str, Any] | Read[Any] | None:
    """The first of ``keys`` present (case and surrounding spaces aside): ``(key, value)``; None
    when none is; a failed :class:`Read` when the key is written twice (``Score`` and ``score``)."""
    spellings: dict[str, list[Any]] = {}
    for k in obj:
        spellings.setdefault(_norm_key(k), []).append(k)
    for k in keys:
        real = spellings.get(k.lower())
        if real is None:
            continue
        if len(real) > 1 and len({json.dumps(obj[r], sort_keys=True, default=str) for r in real}) > 1:
            return _fail(
                f"the key {k!r} appears {len(real)} times ({', '.join(map(repr, real))}) with different values"
            )
        return str(real[0]), obj[real[0]]
    return None


def _show(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def _as_int(v: Any) -> int | None:
    if isinstance(v, list) and len(v) == 1:
        v = v[0]
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str):
        m = re.fullmatch(r"([-+]?\d{1,30})(?:\.0+)?", v.strip())
        if m:
            return int(m.group(1))
    return None


def _read_field(obj: Mapping[str, Any], keys: Sequence[str], check: Callable[[str, Any], Read[T]]) -> Read[T]:
    """``check(key, value)`` of the first of ``keys`` present (:func:`_get`); a failed read when
    none is or when the key is written twice with different values."""
    got = _get(obj, keys)
    if got is None:
        return _fail(f"no {'/'.join(keys)} key")
    if isinstance(got, Read):
        return got
    return check(*got)


def read_int(obj: Mapping[str, Any], keys: Sequence[str], low: int, high: int) -> Read[int]:
    """An integer in [low, high] under the first of ``keys`` present (case-insensitive)."""

    def check(k: str, v: Any) -> Read[int]:
        n = _as_int(v)
        if n is None:
            return _fail(f"{k}={_show(v)} is not an integer")
        if not low <= n <= high:
            return _fail(f"{k}={n} is outside {low}-{high}")
        return Read(n)

    return _read_field(obj, keys, check)


def read_choice(obj: Mapping[str, Any], keys: Sequence[str], letters: str) -> Read[str]:
    """One option letter (``"B"``, ``"(b)"``, ``"Image B"``, ``"Option B."``) under ``keys``."""

    def check(k: str, v: Any) -> Read[str]:
        if not isinstance(v, str):
            return _fail(f"{k}={_show(v)} is not a letter")
        s = v.strip().strip("()[].:*\"' ").strip()
        s = re.sub(r"(?i)^(?:image|poster|option|answer|choice)\s+", "", s).strip("()[].:*\"' ")
        if len(s) == 1 and s.upper() in letters.upper():
            return Read(s.upper())
        return _fail(f"{k}={_show(v)} is not one of {', '.join(letters)}")

    return _read_field(obj, keys, check)


def read_str(obj: Mapping[str, Any], keys: Sequence[str], *, allow_empty: bool = True) -> Read[str]:
    """A string, stripped (None or blank: ``""`` when ``allow_empty``, else a failed read)."""

    def check(k: str, v: Any) -> Read[str]:
        if v is None and allow_empty:
            return Read("")
        if not isinstance(v, str):
            return _fail(f"{k}={_show(v)} is not a string")
        if not v.strip() and not allow_empty:
            return _fail(f"{k} is empty")
        return Read(v.strip())

    return _read_field(obj, keys, check)


def _as_bool(k: str, v: Any) -> Read[bool]:
    if isinstance(v, bool):
        return Read(v)
    if isinstance(v, str) and v.strip().lower().rstrip(".") in ("yes", "true", "no", "false"):
        return Read(v.strip().lower().rstrip(".") in ("yes", "true"))
    return _fail(f"{k}={_show(v)} is not true/false")


def read_bool(obj: Mapping[str, Any], keys: Sequence[str]) -> Read[bool]:
    """A boolean: JSON true/false or the strings yes/no/true/false."""
    return _read_field(obj, keys, _as_bool)


def _as_str_list(k: str, v: Any) -> Read[list[str]]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        return _fail(f"{k} is not a list of strings")
    return Read(list(dict.fromkeys(x.strip() for x in v if x.strip())))


def read_str_list(obj: Mapping[str, Any], keys: Sequence[str]) -> Read[list[str]]:
    """A list of non-empty strings (stripped; duplicates kept once, order kept)."""
    return _read_field(obj, keys, _as_str_list)


_BARE_EDGES = "*_`\"'“”‘’()[] \t\n"


def read_bare(text: str | None, words: Mapping[str, T], *, prefixes: Sequence[str] = ()) -> Read[T]:
    """The value of an answer that is nothing but one of ``words`` (case aside), optionally after
    one of ``prefixes`` ("Answer:") and wrapped in quotes, brackets, bold marks or a final
    period. ``"B"``, ``"(B)"``, ``"**Yes.**"`` and ``"Answer: B"`` are read; any other text
    ("It is definitely not B.", "B or C", "Yes, but ...") is not: nothing is guessed from prose.
    """
    if text is None:
        return _fail("no answer")
    s = text.strip().strip(_BARE_EDGES)
    for p in sorted(prefixes, key=len, reverse=True):
        m = re.match(rf"(?i){re.escape(p)}\s*(?:is\s*)?[:\-]?\s*", s)
        if m and m.end() < len(s):
            s = s[m.end() :]
            break
    s = s.strip(_BARE_EDGES).rstrip(".!:").strip(_BARE_EDGES)
    by_word = {w.lower(): v for w, v in words.items()}
    if s.lower() in by_word:
        return Read(by_word[s.lower()])
    shown = ", ".join(words)
    return _fail(f"not JSON, and not a bare answer ({shown}): {text.strip()[:60]!r}")


_REFUSAL = re.compile(
    r"^\W*(?:i['’]m sorry|i am sorry|sorry,|i can(?:no|['’])t (?:help|assist|comply|provide|do that|evaluate)|"
    r"i cannot (?:help|assist|comply|provide|evaluate)|i['’]m (?:not able|unable) to|i am (?:not able|unable) to|"
    r"as an ai\b)",
    re.I,
)


def looks_like_refusal(text: str | None) -> bool:
    """True when an answer opens like a refusal ("I'm sorry, I can't ..."); used only to label
    an unreadable answer "refused" instead of "unparsable"."""
    return bool(text) and bool(_REFUSAL.match(text.strip()))  # type: ignore[union-attr]
