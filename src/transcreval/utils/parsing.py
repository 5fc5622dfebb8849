"""Parsers for free-text model answers: boxes, patch ids, choice letters, yes/no, scores.

Every parser takes any string and returns a :class:`Parsed` (a value and a status); none raises
on malformed text, and none invents a value: when an answer does not say one thing clearly the
status says so ("unparsable", "ambiguous", "out_of_range", "empty") and ``value`` is None.
Metrics count these items and score them as their ``on_unreadable`` option says (0, or left
out); the
``posteriq_code_*`` parsers reproduce PosterIQ's public evaluation code instead, quirks included
(see docs/posteriq-paper-vs-code.md).
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from transcreval.errors import InputError

T = TypeVar("T")
Status = Literal["ok", "empty", "unparsable", "ambiguous", "out_of_range"]
Box = tuple[float, float, float, float]

__all__ = [
    "Parsed",
    "parse_boxes",
    "parse_choice",
    "parse_patch_ids",
    "parse_score",
    "parse_yes_no",
    "posteriq_code_boxes",
    "posteriq_code_patch_ids",
    "posteriq_code_score",
]

_MAX_SPAN = 20_000  # longer bracketed spans are not literal-evaluated (cost guard)
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"


@dataclass(frozen=True)
class Parsed(Generic[T]):
    """A parsed answer: ``value`` when ``status == "ok"``, else None, with a short reason."""

    value: T | None
    status: Status
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _fail(status: Status, detail: str) -> Parsed[Any]:
    return Parsed(None, status, detail)


def _text(answer: Any) -> str | None:
    if answer is None:
        return None
    if isinstance(answer, bytes):
        return answer.decode("utf-8", errors="replace")
    return answer if isinstance(answer, str) else str(answer)


def _bracket_spans(text: str, open_ch: str = "[", close_ch: str = "]") -> list[str]:
    """Outermost balanced ``[...]`` spans, in order of appearance."""
    spans, depth, start = [], 0, -1
    for i, ch in enumerate(text):
        if ch == open_ch:
            if depth == 0:
                start = i
            depth += 1
        elif ch == close_ch and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def _literal(span: str) -> Any:
    """JSON or a Python literal, or None; never raises."""
    if len(span) > _MAX_SPAN:
        return None
    try:
        return json.loads(span)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(span)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, IndexError, KeyError):
        return None
    except Exception:  # literal_eval can surface other errors on pathological input
        return None


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(float(x))


def _as_boxes(obj: Any) -> list[Box] | None:
    if isinstance(obj, dict):
        for key in ("boxes", "bboxes", "bbox", "box"):
            if key in obj:
                return _as_boxes(obj[key])
        return None
    if isinstance(obj, (list, tuple)):
        if len(obj) == 4 and all(_is_number(v) for v in obj):
            return [tuple(float(v) for v in obj)]  # type: ignore[list-item]
        if obj and all(isinstance(b, (list, tuple)) and len(b) == 4 and all(_is_number(v) for v in b) for b in obj):
            return [tuple(float(v) for v in b) for b in obj]  # type: ignore[misc]
    return None


def _is_empty_box_list(obj: Any) -> bool:
    if isinstance(obj, dict):
        return any(isinstance(obj.get(k), (list, tuple)) and not obj[k] for k in ("boxes", "bboxes"))
    return isinstance(obj, (list, tuple)) and not obj


_BOX_RE = re.compile(rf"[\[(]\s*({_NUMBER})\s*,\s*({_NUMBER})\s*,\s*({_NUMBER})\s*,\s*({_NUMBER})\s*[\])]")


def parse_boxes(
    answer: Any,
    *,
    coords: Literal["normalized", "pixel"] = "normalized",
    image_size: tuple[float, float] | None = None,
    tolerance: float = 1e-6,
) -> Parsed[list[Box]]:
    """Boxes ``[x0, y0, x1, y1]`` from an answer, normalised to [0, 1].

    Accepts a list of boxes or a single box, as JSON or a Python literal (``[[...]]``, tuples,
    ``{"boxes": ...}``), with integers, decimals, negatives or exponents and prose around it;
    failing that, every ``[a, b, c, d]``/``(a, b, c, d)`` group in the text. An empty list
    (``[]``, ``{"boxes": []}``) is an answer with no boxes (PosterIQ's prompt asks for "empty if
    no matches"); prose with no list stays unparsable. ``coords`` is what the
    caller asked the model for: ``"normalized"`` (values must lie in [0, 1]) or ``"pixel"``
    (divided by ``image_size = (width, height)``). Values outside [0, 1] give "out_of_range".
    """
    text = _text(answer)
    if text is None or not text.strip():
        return _fail("empty", "no answer")
    if coords not in ("normalized", "pixel"):
        raise InputError(f"coords must be 'normalized' or 'pixel', got {coords!r}")
    if coords == "pixel" and (image_size is None or min(image_size) <= 0):
        raise InputError("coords='pixel' needs image_size=(width, height) with positive sides")
    boxes: list[Box] | None = None
    empty_list = False
    for span in sorted(_bracket_spans(text) + _bracket_spans(text, "{", "}"), key=len, reverse=True):
        obj = _literal(span)
        empty_list = empty_list or _is_empty_box_list(obj)
        boxes = _as_boxes(obj)
        if boxes:
            break
    if not boxes:
        found = [tuple(float(g) for g in m.groups()) for m in _BOX_RE.finditer(text)]
        boxes = [b for b in found if all(math.isfinite(v) for v in b)]  # type: ignore[misc]
    if not boxes:
        if empty_list:
            return Parsed([], "ok", "an empty list: no boxes")
        return _fail("unparsable", "no [x0, y0, x1, y1] list found")
    if coords == "pixel":
        w, h = float(image_size[0]), float(image_size[1])  # type: ignore[index]
        boxes = [(b[0] / w, b[1] / h, b[2] / w, b[3] / h) for b in boxes]
    if any(v < -tolerance or v > 1 + tolerance for b in boxes for v in b):
        return _fail("out_of_range", "coordinates outside [0, 1] (pixel answers need coords='pixel')")
    if any(b[2] < b[0] or b[3] < b[1] for b in boxes):
        return _fail("unparsable", "a box has x1 < x0 or y1 < y0 (expected [x0, y0, x1, y1])")
    return Parsed(boxes, "ok")


def parse_patch_ids(answer: Any, *, n_patches: int = 49) -> Parsed[list[int]]:
    """Patch ids (0..n_patches-1) from an answer like ``[3, 4, 10]`` (duplicates are kept).

    A JSON/Python list anywhere in the text (the last one that holds only integers), or an
    answer made only of integers and separators. Non-integral numbers make it unparsable; ids
    outside the grid give "out_of_range".
    """
    text = _text(answer)
    if text is None or not text.strip():
        return _fail("empty", "no answer")
    ids: list[int] | None = None
    for span in reversed(_bracket_spans(text)):
        obj = _literal(span)
        if isinstance(obj, (list, tuple)) and all(
            (_is_number(v) and float(v).is_integer()) or (isinstance(v, str) and v.strip().lstrip("+-").isdigit())
            for v in obj
        ):
            ids = [int(float(v)) for v in obj]
            break
    if ids is None and re.fullmatch(r"[\s,;]*\d+(?:[\s,;]+\d+)*[\s,;.]*", text):
        ids = [int(v) for v in re.findall(r"\d+", text)]
    if ids is None:
        return _fail("unparsable", "no list of integer patch ids found")
    if any(i < 0 or i >= n_patches for i in ids):
        return _fail("out_of_range", f"patch ids must lie in 0..{n_patches - 1}")
    return Parsed(ids, "ok")


_NEGATION = re.compile(
    r"(?i)\b(?:not|never|no|rule[sd]?\s+out|ruling\s+out|except|exclud\w*|eliminat\w*|neither|nor|"
    r"unless|instead\s+of|rather\s+than|wrong|incorrect)\b|n't\b"
)


def parse_choice(answer: Any, options: Sequence[str] | str = "ABCD") -> Parsed[str]:
    """One option letter from an answer ("B", "(B)", "Answer: B", ``{"answer": "B"}``, ...).

    Looks, in order, for a JSON ``answer``/``choice`` field, an "answer is/answer: X" phrase, a
    letter opening the answer followed by punctuation or the end, and finally the standalone
    option letters in the text (a capital "A"/"I" followed by a lower-case word is read as an
    English word). Two different letters at the deciding step give "ambiguous"; so does a
    free-text answer that negates, excludes or hedges ("Not A.", "I would rule out C", "A or B"),
    which is never read as a choice.
    """
    text = _text(answer)
    opts = [str(o).strip().upper() for o in options]
    if text is None or not text.strip():
        return _fail("empty", "no answer")
    letters = "".join(re.escape(o) for o in opts if len(o) == 1)
    if not letters:
        raise ValueError("options must be single letters")
    for span in _bracket_spans(text, "{", "}"):
        obj = _literal(span)
        if isinstance(obj, dict):
            for key in ("answer", "choice", "option"):
                v = obj.get(key)
                if isinstance(v, str) and v.strip().strip("()").upper() in opts:
                    return Parsed(v.strip().strip("()").upper(), "ok")
    cue = {
        m.upper() for m in re.findall(rf"(?i)\b(?:answer|choice|option)\s*(?:is|:|=)?\s*[\(\[]?([{letters}])\b", text)
    }
    if len(cue) == 1:
        return Parsed(cue.pop(), "ok")
    if len(cue) > 1:
        return _fail("ambiguous", f"the answer names {sorted(cue)}")
    head = re.match(rf"^\s*[\(\[]?([{letters}])[\)\]]?(?:[.:)\]]|\s*$|\s*\n)", text)
    if head:
        return Parsed(head.group(1), "ok")
    if _NEGATION.search(text) or re.search(rf"\b[{letters}]\s+or\s+[\(\[]?[{letters}]\b", text):
        return _fail("ambiguous", "the answer rules options out or hedges between them; not read as a choice")
    tokens = {
        m.group(1)
        for m in re.finditer(rf"(?<![A-Za-z0-9'])([{letters}])(?![A-Za-z0-9'])", text)
        if not (m.group(1) in "AI" and re.match(r"\s+[a-z]", text[m.end() :]))
    }
    if len(tokens) == 1:
        return Parsed(tokens.pop(), "ok")
    if len(tokens) > 1:
        return _fail("ambiguous", f"several options named: {sorted(tokens)}")
    return _fail("unparsable", "no option letter found")


_YES = {"yes", "y", "true", "是", "对"}
_NO = {"no", "n", "false", "否", "不是"}


def parse_yes_no(answer: Any) -> Parsed[bool]:
    """True for yes, False for no: a JSON ``answer`` field, the first word, or the only one of
    yes/no that the text contains (both present, undecided by the first word: "ambiguous")."""
    text = _text(answer)
    if text is None or not text.strip():
        return _fail("empty", "no answer")
    for span in _bracket_spans(text, "{", "}"):
        obj = _literal(span)
        if isinstance(obj, dict):
            for key in ("answer", "covered", "verdict", "result"):
                v = obj.get(key)
                if isinstance(v, bool):
                    return Parsed(v, "ok")
                if isinstance(v, str) and v.strip().lower() in _YES | _NO:
                    return Parsed(v.strip().lower() in _YES, "ok")
    words = re.findall(r"[A-Za-z]+|是|对|否|不是", text.lower())
    if words and words[0] in _YES | _NO:
        return Parsed(words[0] in _YES, "ok")
    has_yes = any(w in ("yes", "是", "对") for w in words)
    has_no = any(w in ("no", "否", "不是") for w in words)
    if has_yes != has_no:
        return Parsed(has_yes, "ok")
    return _fail("ambiguous" if has_yes else "unparsable", "both yes and no" if has_yes else "no yes/no found")


def parse_score(answer: Any, *, low: float = 0.0, high: float = 10.0) -> Parsed[float]:
    """A numeric score in [low, high]: ``X/high``, "X out of high", "score: X", ``{"score": X}``,
    else the only number in the text. Cue found but out of range: "out_of_range"; several
    different numbers and no cue: "ambiguous"."""
    text = _text(answer)
    if text is None or not text.strip():
        return _fail("empty", "no answer")
    hi = f"{high:g}"
    for span in _bracket_spans(text, "{", "}"):
        obj = _literal(span)
        if isinstance(obj, dict):
            for key in ("score", "rating", "value"):
                v = obj.get(key)
                if isinstance(v, (int, float)) and _is_number(v):
                    fv = float(v)
                    return (
                        Parsed(fv, "ok")
                        if low <= fv <= high
                        else _fail("out_of_range", f"{fv:g} outside [{low:g}, {high:g}]")
                    )
    cues = [
        rf"({_NUMBER})\s*/\s*{re.escape(hi)}(?![\d.])",
        rf"({_NUMBER})\s+out\s+of\s+{re.escape(hi)}(?![\d.])",
        rf"(?i)(?:score|rating|分数|评分)\s*(?:is|of|[:=：])?\s*({_NUMBER})(?![\d.]|\s*[-–~]\s*\d)",
    ]
    for pattern in cues:
        found = {float(v) for v in re.findall(pattern, text)}
        if len(found) == 1:
            v = found.pop()
            return Parsed(v, "ok") if low <= v <= high else _fail("out_of_range", f"{v:g} outside [{low:g}, {high:g}]")
        if len(found) > 1:
            return _fail("ambiguous", f"several scores: {sorted(found)}")
    # a number glued to a word or a range ("A-1", "v2", "7-8") is not a score
    numbers = {float(v) for v in re.findall(rf"(?<![\w.])(?<!\w[-+]){_NUMBER}(?![\w.]|[-–~]\d)", text)}
    numbers = {v for v in numbers if math.isfinite(v)}
    if len(numbers) == 1:
        v = numbers.pop()
        return Parsed(v, "ok") if low <= v <= high else _fail("out_of_range", f"{v:g} outside [{low:g}, {high:g}]")
    if len(numbers) > 1:
        return _fail("ambiguous", f"several numbers and no score cue: {sorted(numbers)[:5]}")
    return _fail("unparsable", "no number found")


# ---------------------------------------------------------------------- PosterIQ's public code
def posteriq_code_boxes(answer: Any) -> list[Box]:
    """PosterIQ code's box parser: keep only ``[],.`` digits and spaces (minus signs vanish),
    take the numbers *with a decimal point* (integers are dropped), group them by four and drop
    an incomplete tail. Never fails: unreadable answers give ``[]``."""
    text = _text(answer) or ""
    kept = re.sub(r"[^\[\],. \d]", "", text)  # \d as the script's regex: Unicode digits too
    nums = [float(v) for v in re.findall(r"\d+\.\d+", kept)]
    return [tuple(nums[i : i + 4]) for i in range(0, len(nums) - len(nums) % 4, 4)]  # type: ignore[misc]


def posteriq_code_patch_ids(answer: Any) -> Parsed[list[int]]:
    """PosterIQ code's patch-id parser: the text between the last ``[`` and the last ``]``,
    split on commas, ``int()`` of each non-blank piece (``[]`` and ``[19, 20,]`` read as no
    patch and two). No brackets (or in the wrong order): ``[]``. A piece ``int()`` rejects
    crashes PosterIQ's script; here it is "unparsable"."""
    text = _text(answer) or ""
    lo, hi = text.rfind("["), text.rfind("]")
    if lo == -1 or hi == -1 or hi < lo:
        return Parsed([], "ok")
    pieces = [p.strip() for p in text[lo + 1 : hi].split(",")]
    try:  # blank pieces are skipped: "[]" is no patch, "[19, 20,]" two
        return Parsed([int(p) for p in pieces if p], "ok")
    except ValueError:
        return _fail("unparsable", "a piece int() rejects (PosterIQ's script crashes here)")


# PosterIQ's five score patterns, in its scorer's order (docs/posteriq-paper-vs-code.md): a
# number "/ 10", "out of 10", after "score"/"rating" and a colon or spaces, before "分"/"point(s)",
# then any number; a number is digits with an optional point and more digits ("7." reads 7)
_CODE_NUMBER = r"(\d+\.?\d*)"
_CODE_SCORE_PATTERNS = [
    _CODE_NUMBER + r"\s*/\s*10",
    _CODE_NUMBER + r"\s*out\s*of\s*10",
    r"(?:score|rating|分数|评分)[:：\s]+" + _CODE_NUMBER,
    _CODE_NUMBER + r"\s*(?:分|points?)",
    r"\b" + _CODE_NUMBER + r"\b",
]


def posteriq_code_score(answer: Any) -> float | None:
    """PosterIQ code's score reader: five patterns in order, only the *first* match of each is
    looked at, and it is taken when it lies in [0, 10]; otherwise the next pattern. None when
    no pattern gives an in-range number ("Score: 12, then 8" gives None)."""
    text = _text(answer) or ""
    for pattern in _CODE_SCORE_PATTERNS:
        m = re.search(pattern, text, flags=re.IGNORECASE)
        if m:
            v = float(m.group(1))
            if 0 <= v <= 10:
                return v
    return None
