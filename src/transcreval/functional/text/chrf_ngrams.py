"""chrF's n-gram statistics, computed two exact ways (the engine behind :mod:`.chrf`).

Per segment and order ``n`` the statistics are three integers: hypothesis n-grams, reference
n-grams, and matched n-grams (the sum over n-grams of the smaller of the two counts). Both ways
give these integers exactly, so the scores do not depend on which one ran:

* **dictionaries** (short texts): characters are counted by the C loop behind
  ``collections.Counter``; longer n-grams are cut (with cached ``slice`` objects) only from the
  stretches of characters that both texts hold, since an n-gram with a character the other text
  lacks cannot match, and matches come from a C-level key intersection tallied by length (a
  Python loop only over n-grams both texts repeat). Equal texts match everything. Texts
  repeated within a call (shared references) are read once.
* **integer codes** (longer texts, both strings together at least :data:`NUMPY_MIN_CHARS`):
  characters become small integer ids (code points, or ranks among the pair's distinct
  characters), each n-gram the exact integer ``sum id_i * 2**(b * (n - 1 - i))`` tagged with
  its order in the top bits, and counting and matching are sorts and searches in numpy. The
  encoding is a bijection (``b`` bits per character, ``order * b <= 60``), so equal codes are
  equal n-grams; where the alphabet is too large for that, the dictionaries are used.

Word n-grams (chrF++) always use dictionaries (few per text).
"""

from __future__ import annotations

try:  # the C loop behind collections.Counter, without Counter's per-call ABC checks
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other Python implementations

    def _count_elements(mapping: dict[str, int], iterable: Any) -> None:
        for x in iterable:
            mapping[x] = mapping.get(x, 0) + 1


import functools
from typing import Any

import numpy as np

__all__ = ["NUMPY_MIN_CHARS", "fscore", "segment_statistics"]

_PUNCTS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_EPS = 1e-16
#: a pair whose two (whitespace-stripped) texts hold at least this many characters together is
#: matched with integer codes in numpy (below it, dictionaries are faster)
NUMPY_MIN_CHARS = 96
_TAG_SHIFT = 60
_SLICE_CACHE_CHARS = 160  # lines up to this long cut their n-grams with cached slices


@functools.lru_cache(maxsize=256)
def _slices(size: int, order: int) -> tuple[slice, ...]:
    """The slices of every character n-gram of orders 2..order of a line of ``size`` characters."""
    return tuple(slice(i, i + n) for n in range(2, order + 1) for i in range(size - n + 1))


@functools.lru_cache(maxsize=1024)
def _sizes(size: int, order: int) -> tuple[int, ...]:
    """How many n-grams of each order 1..order a line of ``size`` characters has."""
    return tuple(max(0, size - n + 1) for n in range(1, order + 1))


def _words(text: str) -> list[str]:
    """sacrebleu's chrF++ tokenisation: split on whitespace, detach one edge punctuation mark."""
    out: list[str] = []
    for w in text.split():
        if len(w) == 1:
            out.append(w)
        elif w[-1] in _PUNCTS:
            out += [w[:-1], w[-1]]
        elif w[0] in _PUNCTS:
            out += [w[0], w[1:]]
        else:
            out.append(w)
    return out


class _Text:
    """One (pre-processed) text: its character line, n-gram counts per order, character counts."""

    __slots__ = ("bare", "line", "sizes", "unigrams", "words")

    def __init__(self, text: str, char_order: int, word_order: int, whitespace: bool) -> None:
        self.bare = not whitespace  # the line holds no whitespace
        self.line = text if whitespace else "".join(text.split())
        self.sizes = _sizes(len(self.line), char_order)
        self.unigrams: dict[str, int] = {}
        if char_order:
            _count_elements(self.unigrams, self.line)
        self.words: list[dict[str, int]] = []
        if word_order > 0:
            words = _words(text)
            sizes = list(self.sizes)
            for n in range(1, word_order + 1):
                counts: dict[str, int] = {}
                _count_elements(counts, [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)])
                self.words.append(counts)
                sizes.append(max(0, len(words) - n + 1))
            self.sizes = tuple(sizes)


def _runs(text: _Text, common: set[str]) -> list[str]:
    """The stretches (2 characters or more) of ``text``'s line made only of ``common`` characters:
    every n-gram (n >= 2) both texts share lies inside one such stretch of each."""
    line = text.line
    if len(common) == len(text.unigrams):
        return [line]
    # cut at the characters the other text lacks: a space where the line has no whitespace
    # (then str.split() drops the empty pieces), else one of those characters
    sep = " " if text.bare else next(iter(text.unigrams.keys() - common))
    cut = "".join([c if c in common else sep for c in line])
    return [s for s in (cut.split() if text.bare else cut.split(sep)) if len(s) > 1]


def _run_grams(runs: list[str], order: int) -> tuple[dict[str, int], int]:
    """Counts of the character n-grams of orders 2..order lying inside ``runs``, and how many
    there are in all (more than the counts' keys when one repeats)."""
    counts: dict[str, int] = {}
    total = 0
    for s in runs:
        size = len(s)
        if size <= _SLICE_CACHE_CHARS:
            _count_elements(counts, map(s.__getitem__, _slices(size, order)))
        else:
            _count_elements(counts, (s[i : i + n] for n in range(2, order + 1) for i in range(size - n + 1)))
        total += sum(_sizes(size, order)) - size
    return counts, total


def _char_matches_dict(hyp: _Text, ref: _Text, order: int) -> list[int]:
    """Matched character n-grams per order 1..order: the sum over shared n-grams of the smaller
    count. Characters from the two character counts; longer n-grams are cut only from the
    stretches of characters both texts hold (:func:`_runs`; an n-gram with a character the other
    text lacks cannot match), each shared one counting once (a C-level key intersection tallied
    by length) plus ``min(count) - 1`` where both texts repeat it."""
    if order == 0:
        return []
    if hyp.line == ref.line:  # every n-gram matches all its occurrences
        return list(hyp.sizes[:order])
    hu, ru = hyp.unigrams, ref.unigrams
    common = hu.keys() & ru.keys()
    matched = [0] * order
    if not common:
        return matched
    matched[0] = sum(map(min, map(hu.__getitem__, common), map(ru.__getitem__, common)))
    if order == 1:
        return matched
    hr, rr = _runs(hyp, common), _runs(ref, common)
    if not hr or not rr:
        return matched
    (hc, h_total), (rc, r_total) = _run_grams(hr, order), _run_grams(rr, order)
    shared = hc.keys() & rc.keys()
    per_order: dict[int, int] = {}
    _count_elements(per_order, map(len, shared))
    if len(hc) != h_total and len(rc) != r_total:  # both texts repeat some n-gram
        for g in shared:
            a, b = hc[g], rc[g]
            if a > 1 and b > 1:
                per_order[len(g)] += (a if a < b else b) - 1
    for n in range(2, order + 1):
        matched[n - 1] = per_order.get(n, 0)
    return matched


def _overlap(h: dict[str, int], r: dict[str, int]) -> int:
    """Sum over shared n-grams of the smaller count (word n-grams)."""
    common = h.keys() & r.keys()
    return sum(map(min, map(h.__getitem__, common), map(r.__getitem__, common)))


def _grams_np(ids: np.ndarray, bits: int, order: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct n-gram codes of every order (order in the top bits) and their counts."""
    cur = ids
    parts = [cur | np.uint64(1 << _TAG_SHIFT)]
    shift = np.uint64(bits)
    for n in range(2, min(order, len(ids)) + 1):
        cur = (cur[:-1] << shift) | ids[n - 1 :]
        parts.append(cur | np.uint64(n << _TAG_SHIFT))
    return np.unique(np.concatenate(parts), return_counts=True)


def _code_points(line: str) -> np.ndarray:
    return np.frombuffer(line.encode("utf-32-le"), dtype=np.uint32)


def _char_matches_np(hyp: str, ref: str, order: int) -> list[int] | None:
    """Matched character n-grams per order (1..order) with integer codes; None when the pair's
    alphabet needs more than ``60 // order`` bits per character."""
    if order == 0:
        return []
    if order > 7 or not hyp or not ref:
        return None
    ch, cr = _code_points(hyp), _code_points(ref)
    both = np.concatenate((ch, cr))
    bits = max(1, int(both.max()).bit_length())
    if bits * order > _TAG_SHIFT:  # rank the pair's distinct characters instead of code points
        alphabet, both = np.unique(both, return_inverse=True)
        bits = max(1, (len(alphabet) - 1).bit_length())
        if bits * order > _TAG_SHIFT:
            return None
    ids = both.astype(np.uint64)
    hu, hc = _grams_np(ids[: len(ch)], bits, order)
    ru, rc = _grams_np(ids[len(ch) :], bits, order)
    pos = np.minimum(np.searchsorted(ru, hu), len(ru) - 1)
    hit = ru[pos] == hu
    shared = np.minimum(hc[hit], rc[pos[hit]])
    tags = (hu[hit] >> np.uint64(_TAG_SHIFT)).astype(np.intp)
    per_order = np.bincount(tags, weights=shared, minlength=order + 1)
    return [int(v) for v in per_order[1 : order + 1]]


def _statistics(hyp: _Text, ref: _Text, char_order: int) -> list[int]:
    """``[hyp, ref, matched]`` n-gram counts per order (characters, then words)."""
    matched: list[int] | None = None
    if len(hyp.line) + len(ref.line) >= NUMPY_MIN_CHARS:
        matched = _char_matches_np(hyp.line, ref.line, char_order)
    if matched is None:
        matched = _char_matches_dict(hyp, ref, char_order)
    for hw, rw in zip(hyp.words, ref.words):
        matched.append(_overlap(hw, rw))
    stats: list[int] = []
    for n_hyp, n_ref, m in zip(hyp.sizes, ref.sizes, matched):
        # a hypothesis n-gram only counts when the reference has n-grams of that order
        stats += (n_hyp if n_ref else 0, n_ref, m)
    return stats


def fscore(stats: list[int], beta: float, eps_smoothing: bool) -> float:
    """chrF (0-100) of one ``[hyp, ref, match] * orders`` list of ints: sacrebleu's formula,
    operation for operation (so the floats are the same)."""
    factor = beta**2
    score = prec_sum = rec_sum = 0.0
    effective = 0
    order = len(stats) // 3
    for i in range(0, 3 * order, 3):
        n_hyp, n_ref, n_match = stats[i], stats[i + 1], stats[i + 2]
        prec = n_match / n_hyp if n_hyp > 0 else _EPS
        rec = n_match / n_ref if n_ref > 0 else _EPS
        denom = factor * prec + rec
        score += ((1 + factor) * prec * rec / denom) if denom > 0 else _EPS
        if n_hyp > 0 and n_ref > 0:
            prec_sum += prec
            rec_sum += rec
            effective += 1
    if eps_smoothing:
        return 100 * score / order
    if effective == 0:
        return 0.0
    prec_avg, rec_avg = prec_sum / effective, rec_sum / effective
    if prec_avg + rec_avg == 0:
        return 0.0
    return 100 * ((1 + factor) * prec_avg * rec_avg / (factor * prec_avg + rec_avg))


def segment_statistics(
    hyps: list[str],
    refs: list[list[str]],
    *,
    char_order: int,
    word_order: int,
    beta: float,
    lowercase: bool,
    whitespace: bool,
    eps_smoothing: bool,
) -> tuple[list[list[int]], list[float]]:
    """Per hypothesis: the statistics of its best reference (highest sentence chrF, the first on
    ties) and that sentence chrF. ``refs[i]`` are hypothesis ``i``'s references (non-empty)."""
    width = 3 * (char_order + word_order)
    rows: list[list[int]] = []
    scores: list[float] = []
    cache: dict[str, _Text] = {}  # repeated strings (shared references) are read once

    def text(s: str) -> _Text:
        got = cache.get(s)
        if got is None:
            got = cache[s] = _Text(s, char_order, word_order, whitespace)
        return got

    for hyp, rs in zip(hyps, refs):
        if lowercase:
            hyp, rs = hyp.lower(), [r.lower() for r in rs]
        h = text(hyp)
        best, best_f = None, -1.0
        for r in rs:
            st = _statistics(h, text(r), char_order)
            f = fscore(st, beta, eps_smoothing)
            if f > best_f:
                best, best_f = st, f
        rows.append(best if best is not None else [0] * width)
        scores.append(best_f)
    return rows, scores
