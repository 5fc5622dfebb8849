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
Numbers equal ``sacrebleu.metrics.CHRF(...).sentence_score / corpus_score`` exactly (the same floats).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import torch

from transcreval.core.common import check_bool, check_choice, check_positive_int, check_text, check_texts
from transcreval.core.options import MetricOptions, option, takes_options
from transcreval.core.result import MetricResult
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional.text.chrf_ngrams import fscore, segment_statistics

__all__ = [
    "PACKAGES",
    "ChrFOptions",
    "chrf_from_statistics",
    "chrf_statistics",
    "corpus_chrf",
    "normalize_references",
    "plan_chrf",
    "sentence_chrf",
    "title_chrf",
    "title_chrf_from_stats",
    "title_chrf_stats",
]

RefLayout = Literal["sample", "stream"] | None
#: distributions whose versions change the numbers (none: the engine is transcreval's own)
PACKAGES: tuple[str, ...] = ()


def chrf_from_statistics(stats: Sequence[int], beta: float = 2.0, eps_smoothing: bool = False) -> float:
    """chrF (0-100) from one ``[hyp, ref, match] * orders`` statistics vector (sacrebleu's formula)."""
    if len(stats) % 3:
        raise InputError(f"chrF statistics must hold 3 numbers per order, got {len(stats)}")
    return fscore([int(v) for v in stats], beta, eps_smoothing)


_BYTES = (bytes, bytearray, memoryview)


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
    if isinstance(refs, _BYTES):
        raise InputError("target must be a list of references, got bytes: decode them and wrap them in a list")
    if not isinstance(refs, Sequence):
        raise InputError(f"target must be a list of references, got {type(refs).__name__}")
    refs = list(refs)
    if ref_layout not in (None, "sample", "stream"):
        raise InputError(f"ref_layout must be 'sample', 'stream' or None, got {ref_layout!r}")
    if all(isinstance(r, str) for r in refs) and ref_layout != "stream":
        if len(refs) != n_hyps:
            raise InputError(f"mismatched lengths: {n_hyps} hypotheses but {len(refs)} references")
        return [[check_text(r, "target", i)] for i, r in enumerate(refs)]
    if any(isinstance(r, str) for r in refs):  # one reference per text, and one of them is not a string
        i = next(i for i, r in enumerate(refs) if not isinstance(r, str))
        check_text(refs[i], "target", i)  # raises, naming the item and its type (bytes: decode them)
    nested = []
    for i, r in enumerate(refs):
        if isinstance(r, _BYTES):
            raise InputError(f"target[{i}] is bytes, where a list of references is expected: decode them")
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


@dataclass(frozen=True)
class ChrFOptions(MetricOptions):
    """The options of TitleChrF / PlanChrF and their twins (as ``sacrebleu.metrics.CHRF``'s);
    the signature prints them as sacrebleu does (``nc``, ``nw``, ``b``, ``case``, ``eff``, ``space``)."""

    char_order: int = option(6, signature="nc")
    word_order: int = option(0, signature="nw")
    beta: float = option(2.0, signature="b")
    lowercase: bool = option(False, signature=lambda o: {"case": "lc" if o.lowercase else "mixed"})
    #: printed with eps_smoothing, after it: sacrebleu's order (``eff`` then ``space``)
    whitespace: bool = option(False, signature=None)
    eps_smoothing: bool = option(False, signature=lambda o: {"eff": not o.eps_smoothing, "space": o.whitespace})
    ref_layout: RefLayout = option(None, signature=None)

    def check(self) -> None:
        check_positive_int("char_order", self.char_order, minimum=0)
        check_positive_int("word_order", self.word_order, minimum=0)
        if self.char_order + self.word_order == 0:
            raise InputError("char_order + word_order must be at least 1")
        if isinstance(self.beta, bool) or not isinstance(self.beta, (int, float)) or not self.beta > 0:
            raise InputError(f"beta must be positive, got {self.beta!r}")
        for name in ("lowercase", "whitespace", "eps_smoothing"):
            check_bool(name, getattr(self, name))
        check_choice("ref_layout", self.ref_layout, (None, "sample", "stream"))

    def engine(self) -> Mapping[str, Any]:
        """The keywords of :func:`chrf_statistics` / :func:`~.chrf_ngrams.segment_statistics`, read
        only (built once per options object, which is frozen; callers pass them on with ``**``)."""
        got: Mapping[str, Any] | None = self.__dict__.get("_engine")
        if got is None:
            got = MappingProxyType({k: v for k, v in self.as_kwargs().items() if k != "ref_layout"})
            object.__setattr__(self, "_engine", got)
        return got

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_engine"}  # rebuilt from the fields


@takes_options(ChrFOptions)
def chrf_statistics(preds: Sequence[str], target: Any, **options: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-segment statistics and sentence scores of system texts ``preds`` against ``target``.

    Returns ``(stats, scores)``: an int64 tensor ``(N, 3 * (char_order + word_order))`` and a
    float64 tensor ``(N,)`` of sentence chrF.
    """
    opts = ChrFOptions.take(options, "chrf_statistics")
    rows, scores = _segments(preds, target, opts)
    width = 3 * (opts.char_order + opts.word_order)
    stats = torch.tensor(rows, dtype=torch.int64).reshape(len(rows), width)
    return stats, torch.tensor(scores, dtype=torch.float64)


def _segments(preds: Any, target: Any, options: ChrFOptions) -> tuple[list[list[int]], list[float]]:
    """Inputs checked (the options were, when built); per text the best reference's statistics
    and sentence chrF."""
    hyp_list = check_texts(preds, "preds")
    ref_lists = normalize_references(target, len(hyp_list), options.ref_layout)
    return segment_statistics(hyp_list, ref_lists, **options.engine())


@takes_options(ChrFOptions)
def sentence_chrf(preds: Sequence[str], target: Any, **options: Any) -> torch.Tensor:
    """Sentence-level chrF (0-100) of each system text, a float64 tensor ``(N,)``.

    Equals ``CHRF(...).sentence_score(pred, refs_i).score`` for each pair. ``target``: one
    string per text, or a list of references per text (see :func:`normalize_references`).
    Options: ``char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
    eps_smoothing=False, ref_layout=None``.
    """
    return chrf_statistics(preds, target, **options)[1]


def title_chrf_stats(preds: Sequence[str], target: Any, *, options: ChrFOptions) -> dict[str, Any]:
    """A batch's statistics: summed n-gram counts, sum and count of sentence scores, the scores.

    Plain Python numbers (the metric base adds them up without creating tensors per update);
    the score sum of a batch is torch's float64 sum, as it always was.
    """
    rows, scores = _segments(preds, target, options)
    width = 3 * (options.char_order + options.word_order)
    if len(rows) == 1:
        summed, total = rows[0], scores[0]
    else:
        summed = [sum(col) for col in zip(*rows)] if rows else [0] * width
        total = float(torch.tensor(scores, dtype=torch.float64).sum())
    return {"ngram_stats": summed, "score_sum": total, "count": len(scores), "scores": scores}


def title_chrf_from_stats(stats: dict[str, Any], options: ChrFOptions, name: str = "TitleChrF") -> MetricResult:
    """Mean sentence chrF; ``per_item`` the sentence scores, ``extras["corpus"]`` corpus chrF
    (``name``: the metric the signature names, "TitleChrF" or "PlanChrF")."""
    n = int(stats["count"])
    if n == 0:
        raise EmptyInputError("title chrF needs at least one (text, reference) pair")
    corpus = chrf_from_statistics([int(v) for v in stats["ngram_stats"]], options.beta, options.eps_smoothing)
    return MetricResult(
        value=float(stats["score_sum"]) / n,
        n=n,
        signature=options.signature(name, PACKAGES),
        per_item=torch.as_tensor(stats["scores"], dtype=torch.float64),
        extras={"corpus": corpus},
    )


@takes_options(ChrFOptions)
def title_chrf(preds: Sequence[str], target: Any, **options: Any) -> MetricResult:
    """Mean sentence chrF over examples (0-100, higher is better): MPTc-Bench's title chrF (§5.1),
    the result :class:`~transcreval.TitleChrF` computes on the same data (``.value`` the mean,
    ``per_item`` the sentence scores, ``extras["corpus"]`` corpus chrF).

    ``preds``: the titles read from the system outputs; ``target``: per example, the title of
    the human target-market poster (a string, or a list of references). Options: those of
    :class:`ChrFOptions`, checked before any input is read.
    """
    opts = ChrFOptions.take(options, "title_chrf")
    return title_chrf_from_stats(title_chrf_stats(preds, target, options=opts), opts)


@takes_options(ChrFOptions)
def plan_chrf(preds: Sequence[str], target: Any, **options: Any) -> MetricResult:
    """:func:`title_chrf` of the planner's proposed titles (MPTc-Bench Fig. 6): the result
    :class:`~transcreval.PlanChrF` computes (the same numbers, signed "PlanChrF")."""
    opts = ChrFOptions.take(options, "plan_chrf")
    return title_chrf_from_stats(title_chrf_stats(preds, target, options=opts), opts, "PlanChrF")


@takes_options(ChrFOptions)
def corpus_chrf(preds: Sequence[str], target: Any, **options: Any) -> float:
    """Corpus-level chrF (0-100): the formula on summed statistics; equals sacrebleu's ``corpus_score``."""
    stats, _ = chrf_statistics(preds, target, **options)
    if stats.shape[0] == 0:
        raise EmptyInputError("corpus_chrf needs at least one (text, reference) pair")
    return chrf_from_statistics(stats.sum(0).tolist(), options.get("beta", 2.0), options.get("eps_smoothing", False))
