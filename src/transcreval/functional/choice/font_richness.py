"""PosterIQ's font richness (Eq. 14-15): how many of a fixed set of font attributes a set of
generated posters shows.

For each attribute ``a`` of the vocabulary (37 in the paper), ``R_a`` is the fraction of
posters the judge assigned it to; the score is the mean of ``R_a`` over the vocabulary. Paper:
attributes are matched as whole words/phrases in a description, attributes outside the
vocabulary are ignored. ``mode="posteriq-code"``: substring matching after lowering both sides,
as PosterIQ's ``gen_metric.py`` does ("serif" also matches "sans-serif", "thin" "nothing").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from transcreval.core.common import Mode, as_list, check_mode
from transcreval.core.options import MetricOptions, option
from transcreval.core.result import MetricResult
from transcreval.core.state_checks import list_digest
from transcreval.errors import EmptyInputError, InputError

__all__ = [
    "FontRichnessOptions",
    "check_vocabulary",
    "font_richness",
    "font_richness_from_stats",
    "font_richness_stats",
]

#: distributions whose versions change the numbers (none)
PACKAGES: tuple[str, ...] = ()


def check_vocabulary(vocabulary: Sequence[str]) -> list[str]:
    vocab = as_list(vocabulary, "vocabulary")
    if not vocab or not all(isinstance(v, str) for v in vocab) or len(set(vocab)) != len(vocab):
        raise InputError("vocabulary must be a non-empty list of distinct attribute names")
    return vocab


def _attributes(item: Any, vocab: Sequence[str], mode: Mode, what: str = "a poster's attributes") -> set[str]:
    if isinstance(item, str):
        if mode == "posteriq-code":  # gen_metric.py lowers both sides before its substring test
            lowered = item.lower()
            return {a for a in vocab if a.lower() in lowered}
        text = item.casefold()
        return {a for a in vocab if re.search(rf"(?<![\w-]){re.escape(a.casefold())}(?![\w-])", text)}
    names = as_list(item, what)
    for j, a in enumerate(names):  # a nested list or a number is no attribute name (it raised TypeError)
        if not isinstance(a, str):
            raise InputError(f"{what}[{j}] must be an attribute name (a string), got {type(a).__name__} {a!r}")
    return {a for a in names if a in set(vocab)}


@dataclass(frozen=True)
class FontRichnessOptions(MetricOptions):
    """The options of :class:`~transcreval.FontRichness` and :func:`font_richness`: the fixed
    attribute ``vocabulary`` (kept as a tuple) and ``mode``."""

    vocabulary: Sequence[str] = option(signature=lambda o: {"attrs": list_digest(o.vocabulary)})
    mode: Mode = "paper"

    def check(self) -> None:
        self.set_checked("vocabulary", tuple(check_vocabulary(self.vocabulary)))
        check_mode(self.mode)


def font_richness_stats(preds: Sequence[Any], *, options: FontRichnessOptions) -> dict[str, Any]:
    """How many posters show each vocabulary attribute, and how many posters there are."""
    vocab = list(options.vocabulary)
    counts = [0] * len(vocab)
    items = as_list(preds, "preds")
    for i, item in enumerate(items):
        if item is None:
            raise InputError(f"preds[{i}]: a poster has no attribute list or description (None)")
        found = _attributes(item, vocab, options.mode, f"preds[{i}]")
        for k, a in enumerate(vocab):
            counts[k] += a in found
    return {"attribute_counts": counts, "posters": len(items)}


def font_richness_from_stats(stats: dict[str, Any], options: FontRichnessOptions) -> MetricResult:
    """Mean coverage; ``extras["coverage"]`` maps each attribute to its ``R_a``."""
    n = int(stats["posters"])
    if n == 0:
        raise EmptyInputError("font richness needs at least one poster")
    counts = [int(c) for c in stats["attribute_counts"]]
    coverage = {a: c / n for a, c in zip(options.vocabulary, counts)}
    signature = options.signature("FontRichness", PACKAGES)
    return MetricResult(sum(counts) / (n * len(counts)), n, signature, extras={"coverage": coverage})


def font_richness(preds: Sequence[Any], *, vocabulary: Sequence[str], mode: Mode = "paper") -> MetricResult:
    """Font richness (PosterIQ Eq. 14-15), in [0, 1], higher is better: what
    :class:`~transcreval.FontRichness` computes on the same posters.

    ``preds[i]`` lists the attributes the judge assigned to poster ``i``, or is its raw
    description; ``vocabulary`` is the fixed attribute list.
    """
    opts = FontRichnessOptions(vocabulary=vocabulary, mode=mode)
    return font_richness_from_stats(font_richness_stats(preds, options=opts), opts)
