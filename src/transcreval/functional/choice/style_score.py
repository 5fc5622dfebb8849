"""PosterIQ's style score (Eq. 13): accuracy of the judged style against the target style.

Paper: the answer is read against the fixed style list (``labels``; default PosterIQ's 17
styles, :data:`POSTERIQ_STYLES`): an exact match after normalising case, spaces and hyphens,
else the only label named as whole words; answers naming no label or several are unreadable:
counted in ``n_unparsable`` and scored 0 (``on_unreadable="zero"``, the default: a literal
reading of Eq. 13, where such an answer is not the target label) or left out (``"drop"``). The
list is fixed for the whole evaluation, so a score never depends on how the items were batched.
``mode="posteriq-code"``: ``answer.lower() == target.lower()`` exactly (no stripping); anything
else is wrong (a missing answer, None, is unreadable).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import transcreval.core.common as C
from transcreval.core.options import MetricOptions, option
from transcreval.core.result import MetricResult
from transcreval.core.state_checks import list_digest
from transcreval.errors import InputError

__all__ = [
    "POSTERIQ_STYLES",
    "StyleScoreOptions",
    "check_labels",
    "read_label",
    "style_score",
    "style_score_from_stats",
    "style_score_stats",
]

#: distributions whose versions change the numbers (none)
PACKAGES: tuple[str, ...] = ()

#: PosterIQ's 17 poster styles (its style-understanding and style-generation label set)
POSTERIQ_STYLES: tuple[str, ...] = (
    "Acid Graphics",
    "Cinema 4D Style",
    "Cyberpunk Style",
    "Diffuse Glow Style",
    "Flat Design",
    "Glitch Art",
    "Illustrative Style",
    "Japanese Style",
    "Memphis Style",
    "Minimalist Style",
    "New Chinese Aesthetic",
    "Papercut Style",
    "Pixel Art",
    "Pop Art",
    "Retro Style",
    "Typographic Minimalism",
    "Vaporwave Style",
)


def _norm_label(s: str) -> str:
    return " ".join(s.casefold().replace("_", " ").replace("-", " ").split())


def read_label(answer: Any, labels: Sequence[str]) -> str | None:
    """The one label an answer names (exact after normalising case/spaces/hyphens, else the only
    label mentioned as whole words); None when none or several."""
    if answer is None:
        return None
    text = _norm_label(str(answer).strip().strip(".!\"'`"))
    by_norm = {_norm_label(lab): lab for lab in labels}
    if text in by_norm:
        return by_norm[text]
    hits = {lab for n, lab in by_norm.items() if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text)}
    # a label inside a longer matching label ("pop" in "pop art") does not count separately
    hits = {h for h in hits if not any(h != o and _norm_label(h) in _norm_label(o) for o in hits)}
    return hits.pop() if len(hits) == 1 else None


def check_labels(labels: Sequence[str]) -> list[str]:
    """``labels`` as a list of distinct strings."""
    if labels is None:
        raise InputError("labels must be the fixed list of style names (default: PosterIQ's 17 styles)")
    labs = C.as_list(labels, "labels")
    if not labs or not all(isinstance(x, str) for x in labs) or len(set(labs)) != len(labs):
        raise InputError("labels must be a non-empty list of distinct style names")
    return labs


def _labels_key(labels: Sequence[str]) -> str:
    """How the signature names a style list: "posteriq17" for the paper's, else its digest."""
    return "posteriq17" if tuple(labels) == POSTERIQ_STYLES else list_digest(labels)


@dataclass(frozen=True)
class StyleScoreOptions(MetricOptions):
    """The options of :class:`~transcreval.StyleScore` and :func:`style_score`: the fixed style
    list (``labels``, kept as a tuple), ``mode`` and ``on_unreadable``."""

    labels: Sequence[str] = option(POSTERIQ_STYLES, signature=lambda o: {"labels": _labels_key(o.labels)})
    mode: C.Mode = "paper"
    on_unreadable: C.OnUnreadable = option("zero", signature="unreadable")

    def check(self) -> None:
        self.set_checked("labels", tuple(check_labels(self.labels)))
        C.check_mode(self.mode)
        C.check_on_unreadable(self.on_unreadable)


def style_score_stats(preds: Sequence[Any], target: Sequence[str], *, options: StyleScoreOptions) -> dict[str, Any]:
    """Per item 1 (right style) or 0; unreadable answers counted (0 or left out)."""
    labs, mode, on_unreadable = list(options.labels), options.mode, options.on_unreadable
    p, t = C.as_list(preds, "preds"), C.as_list(target, "target")
    C.same_length(p, t, "style_score (preds vs target)")
    agg = C.MeanStats()
    for a, b in zip(p, t):
        if not isinstance(b, str):
            raise InputError(f"target styles must be strings, got {type(b).__name__}")
        if mode == "paper" and b not in labs:
            raise InputError(f"target style {b!r} is not one of the labels (pass labels=[...] for another style list)")
        if a is None:
            agg.unreadable(on_unreadable)
            continue
        if mode == "posteriq-code":
            agg.add(float(str(a).lower() == b.lower()))
            continue
        got = read_label(a, labs)
        if got is None:
            agg.unreadable(on_unreadable)
        else:
            agg.add(float(got == b))
    return agg.as_stats()


def style_score_from_stats(stats: dict[str, Any], options: StyleScoreOptions) -> MetricResult:
    """The mean (``per_item`` one value per answer, ``extras``: ``n_unparsable``, ``item_status``)."""
    return C.mean_result(stats, options.signature("StyleScore", PACKAGES), "StyleScore")


def style_score(
    preds: Sequence[Any],
    target: Sequence[str],
    *,
    labels: Sequence[str] = POSTERIQ_STYLES,
    mode: C.Mode = "paper",
    on_unreadable: C.OnUnreadable = "zero",
) -> MetricResult:
    """Style score (PosterIQ Eq. 13), in [0, 1], higher is better: the fraction of judged styles
    (``preds``, names or raw answers) equal to the target styles; an answer naming no label
    (or several) scores 0 (``on_unreadable="zero"``) or is left out (``"drop"``). What
    :class:`~transcreval.StyleScore` computes on the same items."""
    opts = StyleScoreOptions(labels=labels, mode=mode, on_unreadable=on_unreadable)
    return style_score_from_stats(style_score_stats(preds, target, options=opts), opts)
