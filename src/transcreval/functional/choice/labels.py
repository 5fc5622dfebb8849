"""Reading PosterIQ's choice answers: option letters, A/B, alignment, rotation, colour and effects.

Paper mode reads what an answer says: :func:`read_one_label` finds the labels an answer names
(whole words or phrases, case, hyphens, underscores and punctuation aside; the longest phrase
wins where phrases overlap, so "counterclockwise" is never also "clockwise" and "reddish-brown"
never also "red") and gives the label when exactly one is named, None otherwise (nothing, or
several different labels: unreadable). Synonyms map to PosterIQ's labels ("centered" ->
"center-aligned", "anticlockwise" -> "counterclockwise rotation").

``posteriq_code_*`` functions reproduce the rules of PosterIQ's public script (docs/
posteriq-paper-vs-code.md): answers cleaned to ASCII letters and digits and tested by substring,
and its refusal filter for lettered options.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.functional.text.cleaning import posteriq_clean
from transcreval.utils.parsing import parse_choice

__all__ = [
    "ALIGNMENT_LABELS",
    "ROTATION_LABELS",
    "find_labels",
    "posteriq_code_alignment",
    "posteriq_code_contains",
    "posteriq_code_effects",
    "posteriq_code_font_matching",
    "posteriq_code_layout_comparison",
    "posteriq_code_refused",
    "posteriq_code_rotation",
    "posteriq_code_style",
    "read_ab",
    "read_alignment",
    "read_color_effects",
    "read_letter",
    "read_one_label",
    "read_rotation",
]

#: PosterIQ's alignment labels and the phrasings read as each
ALIGNMENT_LABELS: dict[str, tuple[str, ...]] = {
    "left-aligned": ("left-aligned", "left alignment", "aligned left", "align left", "flush left", "left"),
    "center-aligned": (
        "center-aligned",
        "centre-aligned",
        "center alignment",
        "centre alignment",
        "aligned center",
        "centrally aligned",
        "centered",
        "centred",
        "center",
        "centre",
    ),
    "right-aligned": ("right-aligned", "right alignment", "aligned right", "align right", "flush right", "right"),
}
#: PosterIQ's rotation labels and the phrasings read as each
ROTATION_LABELS: dict[str, tuple[str, ...]] = {
    "clockwise rotation": ("clockwise rotation", "rotated clockwise", "clockwise"),
    "counterclockwise rotation": (
        "counterclockwise rotation",
        "counter-clockwise rotation",
        "anticlockwise rotation",
        "anti-clockwise rotation",
        "rotated counterclockwise",
        "counterclockwise",
        "counter-clockwise",
        "anticlockwise",
        "anti-clockwise",
    ),
    "no rotation": ("no rotation", "not rotated", "unrotated", "without rotation", "none"),
}
_AB_SUBJECT = re.compile(r"^\s*\**([AB])\**\s+(?:is|has|looks|shows|offers|features|presents|appears|provides|wins)\b")
_AB_CUE = re.compile(
    r"(?i)\b(?:image|poster|option|layout|design|picture|version|answer|choice)\s*(?:is\s*)?[:=]?\s*[\(\[\"'*]*([ab])\b"
)


def _norm(text: str) -> str:
    return " " + " ".join(re.sub(r"[\W_]+", " ", text.casefold()).split()) + " "


def find_labels(answer: Any, synonyms: Mapping[str, Sequence[str]]) -> list[str]:
    """The labels an answer names, in order of appearance (a label once), reading the phrases
    of ``synonyms`` (label -> phrasings) as whole words; longer phrases win overlaps."""
    if answer is None:
        return []
    text = _norm(str(answer))
    phrases = sorted(
        ((_norm(p), label) for label, ps in synonyms.items() for p in (label, *ps)), key=lambda x: -len(x[0])
    )
    taken = [False] * len(text)
    hits: list[tuple[int, str]] = []
    for phrase, label in phrases:
        start = text.find(phrase)
        while start != -1:
            span = range(start + 1, start + len(phrase) - 1)
            if not any(taken[i] for i in span):
                for i in span:
                    taken[i] = True
                hits.append((start, label))
            start = text.find(phrase, start + 1)
    return list(dict.fromkeys(label for _, label in sorted(hits)))


def read_one_label(answer: Any, synonyms: Mapping[str, Sequence[str]]) -> str | None:
    """The one label an answer names; None when it names none or several."""
    found = find_labels(answer, synonyms)
    return found[0] if len(found) == 1 else None


def read_alignment(answer: Any) -> str | None:
    """ "left-aligned", "center-aligned" or "right-aligned" (``['center-aligned']``, "Centered",
    "The text is right aligned." all read); None when unreadable."""
    return read_one_label(answer, ALIGNMENT_LABELS)


def read_rotation(answer: Any) -> str | None:
    """ "clockwise rotation", "counterclockwise rotation" or "no rotation"; None when unreadable."""
    return read_one_label(answer, ROTATION_LABELS)


def read_letter(answer: Any, letters: str) -> str | None:
    """One option letter (``transcreval.utils.parsing.parse_choice``); None when unreadable."""
    got = parse_choice(answer, letters)
    return got.value if got.ok else None


def read_ab(answer: Any) -> str | None:
    """ "A" or "B" from a layout-comparison answer ("B", "**A**", "Image A", "Poster B is more
    appealing", "A has the better layout", "Answer: A"); None when it names neither or both."""
    if answer is None:
        return None
    text = str(answer)
    bare = text.strip().strip("*`'\"[](){}.:!; \n").upper()
    if bare in ("A", "B"):
        return bare
    cued = {m.upper() for m in _AB_CUE.findall(text)}
    if cued:
        return cued.pop() if len(cued) == 1 else None
    subject = _AB_SUBJECT.match(text)  # "A has the better layout": a letter, not an article
    return subject.group(1) if subject else read_letter(text, "AB")


def read_color_effects(
    answer: Any, colors: Sequence[str], effects: Sequence[str]
) -> tuple[str | None, list[str] | None]:
    """The colour an answer names (None when none or several) and the effects it names (None
    when the answer is missing or blank), both read from one pass so "colorful background" is
    an effect, not the colour "colorful"."""
    if answer is None or not str(answer).strip():
        return None, None
    vocab = {c: (c,) for c in colors}
    vocab.update({e: (e,) for e in effects})
    found = find_labels(answer, vocab)
    named_colors = [f for f in found if f in colors]
    return (named_colors[0] if len(named_colors) == 1 else None), [f for f in found if f in effects]


# ---------------------------------------------------------------------- PosterIQ's public code
_CODE_LETTERS = "ABCDEFGHI"


def posteriq_code_refused(answer: Any) -> bool:
    """The script's refusal filter (font matching and attributes): after cleaning, no letter
    A-I at all, or more than 5 characters in which several letters occur and none twice."""
    text = posteriq_clean(answer)
    counts = [text.count(c) for c in _CODE_LETTERS]
    if not any(counts):
        return True
    return len(text) > 5 and max(counts) <= 1 and sum(c > 0 for c in counts) > 1


def posteriq_code_contains(answer: Any, target: Any) -> bool:
    """The cleaned target occurs in the cleaned answer (font attributes, font effect 1)."""
    return posteriq_clean(target) in posteriq_clean(answer)


def posteriq_code_font_matching(answer: Any, target: Any) -> bool:
    """Font matching: wrong when the cleaned answer is longer than 20 characters, else the
    cleaned target must occur in it."""
    text = posteriq_clean(answer)
    return len(text) <= 20 and posteriq_clean(target) in text


def posteriq_code_effects(answer: Any, color: str, effects: Sequence[str]) -> tuple[bool, float | None]:
    """Font effect 2: the colour and each effect tested, uncleaned, against the cleaned answer
    (so labels with a space or hyphen never match); None when there are no effects."""
    text = posteriq_clean(answer)
    share = sum(e in text for e in effects) / len(effects) if effects else None
    return color in text, share


def posteriq_code_layout_comparison(answer: Any, target: str) -> bool | None:
    """Layout comparison: the target letter against the first cleaned character (None when the
    cleaned answer is empty: the script crashes there)."""
    text = posteriq_clean(answer)
    return (target in text[0]) if text else None


def posteriq_code_alignment(answer: Any, targets: Sequence[str]) -> list[bool]:
    """Alignment: per target label, whether it occurs verbatim in the raw answer."""
    text = str(answer)
    return [t in text for t in targets]


def posteriq_code_rotation(answer: Any, target: str) -> bool:
    """Rotation: the target phrase in the raw answer; a clockwise target fails when the answer
    says "counterclockwise rotation"."""
    text = str(answer)
    if target == "clockwise rotation":
        return "counterclockwise rotation" not in text and "clockwise rotation" in text
    return target in text


def posteriq_code_style(answer: Any, target: str) -> bool:
    """Style understanding: the stripped, lower-cased answer inside the target or the target
    inside it."""
    a, t = str(answer).strip().lower(), target.lower()
    return a in t or t in a
