"""chrF: character n-gram F-score (Popovic 2015), exactly as sacrebleu computes it.

Used for title fidelity in MPTc-Bench (§5.1, Table 4): ``TitleChrF`` compares the title read
from the system's poster with the title read from the human target-market poster, and
``PlanChrF`` the planner's proposed title with the same reference. Both average *sentence*
chrF over examples (as the paper does) on a 0-100 scale, higher is better.

Per segment and order ``n`` the statistics are three integers: hypothesis n-grams, reference
n-grams, matched n-grams (clipped counts). Character n-grams are taken after deleting all
whitespace (``whitespace=False``, sacrebleu's default); word n-grams (chrF++, ``word_order>0``)
after sacrebleu's punctuation splitting. With several references a segment keeps the
statistics of the reference with the best sentence score (first one on ties). The score is

    P = mean of per-order precisions, R = mean of per-order recalls (over the orders where both
        hypothesis and reference have n-grams: sacrebleu's "effective order")
    chrF = 100 * (1 + beta^2) P R / (beta^2 P + R)

and the corpus score applies the same formula to the element-wise sum of segment statistics.
Numbers equal ``sacrebleu.metrics.CHRF(...).sentence_score / corpus_score`` to 1e-9.
"""

from __future__ import annotations

try:  # the C loop behind collections.Counter, without Counter's per-call ABC checks
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other Python implementations

    def _count_elements(mapping: dict[str, int], iterable: Any) -> None:
        for x in iterable:
            mapping[x] = mapping.get(x, 0) + 1


from collections.abc import Sequence
from typing import Any, Literal

import torch

from transcreval.common import check_text
from transcreval.errors import EmptyInputError, InputError
from transcreval.result import MetricResult, Signature

__all__ = [
    "check_chrf_options",
    "chrf_from_statistics",
    "chrf_statistics",
    "corpus_chrf",
    "normalize_references",
    "sentence_chrf",
    "title_chrf",
    "title_chrf_from_stats",
    "title_chrf_stats",
]

_PUNCTS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_EPS = 1e-16
RefLayout = Literal["sample", "stream"] | None


class _Grams:
    """All n-gram counts of one text: character n-grams of every order in one dict (their
    lengths tell the order apart), word n-grams per order, and how many n-grams each order has."""

    __slots__ = ("chars", "sizes", "words")

    def __init__(self, text: str, char_order: int, word_order: int, whitespace: bool) -> None:
        line = text if whitespace else "".join(text.split())
        size = len(line)
        self.chars: dict[str, int] = {}
        _count_elements(self.chars, [line[i : i + n] for n in range(1, char_order + 1) for i in range(size - n + 1)])
        self.sizes = [max(0, size - n + 1) for n in range(1, char_order + 1)]
        self.words: list[dict[str, int]] = []
        if word_order > 0:
            words = _words(text)
            for n in range(1, word_order + 1):
                counts: dict[str, int] = {}
                _count_elements(counts, [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)])
                self.words.append(counts)
                self.sizes.append(max(0, len(words) - n + 1))


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


def _min_overlap(h: dict[str, int], r: dict[str, int]) -> int:
    total = 0
    for g in h.keys() & r.keys():
        a, b = h[g], r[g]
        total += a if a < b else b
    return total


def _match(hyp: _Grams, ref: _Grams, char_order: int) -> list[int]:
    """``[hyp, ref, matched]`` n-gram counts per order (characters, then words)."""
    matched = [0] * len(hyp.sizes)
    h, r = hyp.chars, ref.chars
    for g in h.keys() & r.keys():
        a, b = h[g], r[g]
        matched[len(g) - 1] += a if a < b else b
    for k, (hw, rw) in enumerate(zip(hyp.words, ref.words)):
        matched[char_order + k] = _min_overlap(hw, rw)
    stats: list[int] = []
    for n_hyp, n_ref, m in zip(hyp.sizes, ref.sizes, matched):
        # a hypothesis n-gram only counts when the reference has n-grams of that order
        stats += [n_hyp if n_ref else 0, n_ref, m]
    return stats


def chrf_from_statistics(stats: Sequence[int], beta: float = 2.0, eps_smoothing: bool = False) -> float:
    """chrF (0-100) from one ``[hyp, ref, match] * orders`` statistics vector (sacrebleu's formula)."""
    if len(stats) % 3:
        raise InputError(f"chrF statistics must hold 3 numbers per order, got {len(stats)}")
    factor = beta**2
    score = prec_sum = rec_sum = 0.0
    effective = 0
    order = len(stats) // 3
    for i in range(order):
        n_hyp, n_ref, n_match = (int(v) for v in stats[3 * i : 3 * i + 3])
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
    return 100 * ((1 + factor) * prec_avg * rec_avg) / (factor * prec_avg + rec_avg)


def _check_texts(texts: Any, what: str) -> list[str]:
    if isinstance(texts, str):
        raise InputError(f"{what} must be a list of strings, got a bare string: wrap it in a list")
    if not isinstance(texts, Sequence):
        raise InputError(f"{what} must be a list of strings, got {type(texts).__name__}")
    return [check_text(t, f"{what}[{i}]") for i, t in enumerate(texts)]


def normalize_references(refs: Any, n_hyps: int, ref_layout: RefLayout = None) -> list[list[str]]:
    """References as one list of strings per hypothesis (sample-major).

    Accepts one string per hypothesis, or lists of references: sample-major (``refs[i]`` are
    the references of hypothesis ``i``) or stream-major (sacrebleu's layout: ``refs[k][i]`` is
    the ``k``-th reference of hypothesis ``i``). When the shape does not tell which (square
    input), ``ref_layout="sample"`` or ``"stream"`` must say. ``None`` entries in a multi-reference
    list mean "no reference here" (variable reference counts, as in sacrebleu).
    """
    if isinstance(refs, str):
        raise InputError("target must be a list (one reference, or a list of references, per text), got a bare string")
    if not isinstance(refs, Sequence):
        raise InputError(f"target must be a list of references, got {type(refs).__name__}")
    refs = list(refs)
    if ref_layout not in (None, "sample", "stream"):
        raise InputError(f"ref_layout must be 'sample', 'stream' or None, got {ref_layout!r}")
    if all(isinstance(r, str) for r in refs) and ref_layout != "stream":
        if len(refs) != n_hyps:
            raise InputError(f"mismatched lengths: {n_hyps} hypotheses but {len(refs)} references")
        return [[check_text(r, f"target[{i}]")] for i, r in enumerate(refs)]
    nested = []
    for i, r in enumerate(refs):
        if isinstance(r, str) or not isinstance(r, Sequence):
            raise InputError(
                f"target[{i}] must be a list of strings when references are nested, got {type(r).__name__}"
            )
        nested.append(list(r))
    sample_ok = len(nested) == n_hyps
    stream_ok = len(nested) > 0 and all(len(s) == n_hyps for s in nested)
    layout = ref_layout
    if layout is None:
        if sample_ok and stream_ok and n_hyps > 1:
            raise InputError(
                f"ambiguous references: {len(nested)} lists of {n_hyps} strings could be sample-major "
                "(refs[i] = references of hypothesis i) or stream-major (sacrebleu: refs[k][i]); "
                "pass ref_layout='sample' or ref_layout='stream'"
            )
        if sample_ok:
            layout = "sample"
        elif stream_ok:
            raise InputError(
                f"references look stream-major (sacrebleu's layout: {len(nested)} streams of {n_hyps}); "
                "pass ref_layout='stream', or give one list of references per hypothesis"
            )
        else:
            raise InputError(f"mismatched lengths: {n_hyps} hypotheses but {len(nested)} reference lists")
    if layout == "stream":
        if not stream_ok:
            lens = sorted({len(s) for s in nested})
            raise InputError(f"stream-major references must each hold {n_hyps} strings, got lengths {lens}")
        nested = [list(col) for col in zip(*nested)] if nested else [[] for _ in range(n_hyps)]
    elif not sample_ok:
        raise InputError(f"mismatched lengths: {n_hyps} hypotheses but {len(nested)} reference lists")
    out: list[list[str]] = []
    for i, rs in enumerate(nested):
        kept = []
        for k, r in enumerate(rs):
            if r is None:
                continue
            kept.append(check_text(r, f"reference {k} of hypothesis {i}"))
        if not kept:
            raise InputError(f"hypothesis {i} has no reference")
        out.append(kept)
    return out


def chrf_statistics(
    preds: Sequence[str],
    target: Any,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: float = 2.0,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    ref_layout: RefLayout = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-segment statistics and sentence scores of system texts ``preds`` against ``target``.

    Returns ``(stats, scores)``: an int64 tensor ``(N, 3 * (char_order + word_order))`` and a
    float64 tensor ``(N,)`` of sentence chrF.
    """
    check_chrf_options(char_order, word_order, beta)
    hyp_list = _check_texts(preds, "preds")
    ref_lists = normalize_references(target, len(hyp_list), ref_layout)
    width = 3 * (char_order + word_order)
    rows: list[list[int]] = []
    scores: list[float] = []
    cache: dict[str, _Grams] = {}  # repeated strings (shared references) are counted once

    def grams(text: str) -> _Grams:
        got = cache.get(text)
        if got is None:
            got = cache[text] = _Grams(text, char_order, word_order, whitespace)
        return got

    for hyp, rs in zip(hyp_list, ref_lists):
        if lowercase:
            hyp, rs = hyp.lower(), [r.lower() for r in rs]
        h = grams(hyp)
        best, best_f = None, -1.0
        for r in rs:
            st = _match(h, grams(r), char_order)
            f = chrf_from_statistics(st, beta, eps_smoothing)
            if f > best_f:
                best, best_f = st, f
        rows.append(best if best is not None else [0] * width)
        scores.append(best_f)
    stats = torch.tensor(rows, dtype=torch.int64).reshape(len(rows), width)
    return stats, torch.tensor(scores, dtype=torch.float64)


def check_chrf_options(char_order: int, word_order: int, beta: float) -> None:
    """Validate chrF's n-gram orders and beta (raises InputError)."""
    if not isinstance(char_order, int) or char_order < 0 or not isinstance(word_order, int) or word_order < 0:
        raise InputError(f"char_order and word_order must be non-negative integers, got {char_order!r}, {word_order!r}")
    if char_order + word_order == 0:
        raise InputError("char_order + word_order must be at least 1")
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta > 0:
        raise InputError(f"beta must be positive, got {beta!r}")


def sentence_chrf(preds: Sequence[str], target: Any, **options: Any) -> torch.Tensor:
    """Sentence-level chrF (0-100) of each system text, a float64 tensor ``(N,)``.

    Equals ``CHRF(...).sentence_score(pred, refs_i).score`` for each pair. ``target``: one
    string per text, or a list of references per text (see :func:`normalize_references`).
    Options: ``char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
    eps_smoothing=False, ref_layout=None``.
    """
    return chrf_statistics(preds, target, **options)[1]


def title_chrf_stats(preds: Sequence[str], target: Any, **options: Any) -> dict[str, Any]:
    """A batch's statistics: summed n-gram counts, sum and count of sentence scores, the scores."""
    stats, scores = chrf_statistics(preds, target, **options)
    return {"ngram_stats": stats.sum(0), "score_sum": scores.sum(), "count": scores.numel(), "scores": scores}


def title_chrf_from_stats(
    stats: dict[str, Any], signature: Signature, beta: float = 2.0, eps_smoothing: bool = False
) -> MetricResult:
    """Mean sentence chrF; ``per_item`` the sentence scores, ``extras["corpus"]`` corpus chrF."""
    n = int(stats["count"])
    if n == 0:
        raise EmptyInputError("title chrF needs at least one (text, reference) pair")
    corpus = chrf_from_statistics([int(v) for v in stats["ngram_stats"]], beta, eps_smoothing)
    return MetricResult(
        value=float(stats["score_sum"]) / n,
        n=n,
        signature=signature,
        per_item=stats["scores"],
        extras={"corpus": corpus},
    )


def title_chrf(preds: Sequence[str], target: Any, **options: Any) -> float:
    """Mean sentence chrF over examples (0-100, higher is better): MPTc-Bench's title chrF (§5.1).

    ``preds``: the titles read from the system outputs; ``target``: per example, the title of
    the human target-market poster (a string, or a list of references).
    """
    stats = title_chrf_stats(preds, target, **options)
    beta, eps = options.get("beta", 2.0), options.get("eps_smoothing", False)
    return title_chrf_from_stats(stats, Signature.make("title_chrf"), beta, eps).value


def corpus_chrf(preds: Sequence[str], target: Any, **options: Any) -> float:
    """Corpus-level chrF (0-100): the formula on summed statistics; equals sacrebleu's ``corpus_score``."""
    stats, _ = chrf_statistics(preds, target, **options)
    if stats.shape[0] == 0:
        raise EmptyInputError("corpus_chrf needs at least one (text, reference) pair")
    return chrf_from_statistics(stats.sum(0).tolist(), options.get("beta", 2.0), options.get("eps_smoothing", False))
