"""WordRecall, OCRRobustnessGap, FontSizeStability (transcreval.text.word_recall): PosterIQ's Eq. 2
in both modes (hand-worked examples), missing answers, the Table 1 statistics, the harness.

Expected numbers are derived in the comments from the paper's formulas (mode="paper") or from
the documented behaviour of PosterIQ's code (docs/posteriq-paper-vs-code.md; mode="posteriq-code").
"""

from __future__ import annotations

import math
import statistics

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import (
    WordRecall,
)
from transcreval.errors import EmptyInputError, InputError, UndefinedValueError
from transcreval.functional import (
    font_size_stability,
    ocr_robustness_gap,
    word_recall,
)
from transcreval.protocols.posteriq import font_size_std, wr_gap

CODE = "posteriq-code"


def test_word_recall_hand_examples():
    # "Hello World Poster" -> "HelloWorldPoster": units Hello|World|Poste|r; the prediction
    # lacks "Hello" (case differs): 3/4. Code: chunks Hello|World|Poste (tail "r" dropped): 2/3.
    gt, pred = ["Hello World Poster"], ["hello World Poster!"]
    assert word_recall(pred, gt).value == 0.75
    assert word_recall(pred, gt, mode=CODE).value == pytest.approx(2 / 3)
    # CJK is kept by the paper's rule, deleted by the code's ASCII-only cleaning (then < 5 chars: 0)
    assert word_recall(["千と千尋の神隠し"], ["千と千尋の神隠し"]).value == 1.0
    assert word_recall(["千と千尋の神隠し"], ["千と千尋の神隠し"], mode=CODE).value == 0.0
    # short ground truth: one short unit (paper) vs score 0 (code)
    assert word_recall(["RRR!"], ["RRR"]).value == 1.0
    assert word_recall(["RRR!"], ["RRR"], mode=CODE).value == 0.0
    # spaces, newlines and literal escape sequences are stripped from both texts
    assert word_recall(["Line1\\nLine2"], ["Line1\nLine2"]).value == 1.0


def test_word_recall_missing_answers_are_counted_and_scored_zero():
    # A missing answer scores WR 0 by default (PosterIQ's code, Eq. 2 read
    # literally): a perfect answer plus a missing one is 0.5 (it was 1.0 when missing answers were
    # left out, which on_unreadable="drop" still gives)
    m = WordRecall()
    m.update(preds=["Hello World", None], target=["Hello World", "Poster"])
    res = m.compute()
    assert res.value == 0.5 and res.n == 2 and res.extras["n_unparsable"] == 1
    assert res.per_item.tolist() == [1.0, 0.0] and res.extras["item_status"] == ["ok", "unparsable"]
    d = WordRecall(on_unreadable="drop")
    d.update(preds=["Hello World", None], target=["Hello World", "Poster"])
    res = d.compute()
    assert res.value == 1.0 and res.n == 1 and res.extras["n_unparsable"] == 1
    assert res.per_item[0] == 1.0 and math.isnan(res.per_item[1])
    assert word_recall([None], ["abc"]).value == 0.0
    with pytest.raises(EmptyInputError, match="1 unparsable"):
        word_recall([None], ["abc"], on_unreadable="drop")
    with pytest.raises(InputError, match="empty"):
        word_recall(["x"], ["  \n "])
    with pytest.raises(InputError, match="mismatched"):
        word_recall(["a", "b"], ["a"])
    with pytest.raises(InputError, match="list"):
        word_recall("abc", "abc")
    with pytest.raises(InputError, match="mode"):
        word_recall(["a"], ["a"], mode="code")


def test_robustness_gap_and_font_size_stability():
    # Table 1 statistics from WR values already computed (the protocol helpers)
    assert wr_gap(0.965, 0.496) == pytest.approx(0.469)  # GPT-5, Table 1
    assert wr_gap([1.0, 0.5], [0.25]) == pytest.approx(0.5)
    by_size = {80: [1.0, 0.8], 60: [0.6], 40: 0.5}
    mean, std = font_size_std(by_size)
    assert mean == pytest.approx((0.9 + 0.6 + 0.5) / 3)
    assert std == pytest.approx(statistics.stdev([0.9, 0.6, 0.5]))
    assert font_size_std(by_size, ddof=0)[1] == pytest.approx(statistics.pstdev([0.9, 0.6, 0.5]))
    with pytest.raises(InputError):
        font_size_std({80: 1.0})
    # the functional twins take the texts, as the classes do
    preds, target = ["Hello World", "Hel", "Grand Hotel"], ["Hello World", "Hello", "Grand Hotel"]
    assert ocr_robustness_gap(preds, target, ["simple", "hard", "simple"]).value == pytest.approx(1.0 - 0.0)
    assert font_size_stability(preds, target, [20, 40, 40]).value == pytest.approx(statistics.stdev([1.0, 0.5]))
    with pytest.raises(UndefinedValueError, match="hard"):
        ocr_robustness_gap(preds, target, ["simple"] * 3)
    with pytest.raises(InputError, match="'simple' or 'hard'"):
        ocr_robustness_gap(preds, target, ["simple", "easy", "hard"])


def _ref_word_recall(pred, gt):  # the paper's Eq. 2, written out independently
    vals = []
    for g, p in zip(gt, pred):
        g2, p2 = "".join(g.split()), "".join(p.split())
        units = [g2[i : i + 5] for i in range(0, len(g2), 5)]
        vals.append(sum(u in p2 for u in units) / len(units))
    return sum(vals) / len(vals)


def _ref_word_recall_code(pred, gt):  # the code's chunks: ASCII alnum only, full 5-char chunks
    vals = []
    for g, p in zip(gt, pred):
        g2, p2 = (
            "".join(c for c in g if c.isascii() and c.isalnum()),
            "".join(c for c in p if c.isascii() and c.isalnum()),
        )
        chunks = [g2[i : i + 5] for i in range(0, len(g2) - 4, 5)]
        vals.append(sum(u in p2 for u in chunks) / len(chunks) if chunks else 0.0)
    return sum(vals) / len(vals)


GT_TEXT = [
    "Grand Budapest Hotel",
    "千と千尋の神隠し",
    "Amélie Poulain",
    "RRR",
    "Le Voyage de Chihiro",
    "Parasite 2019",
    "Film noir",
]


PRED_TEXT = [
    "The Grand Budapest Hotel",
    "千と千尋",
    "Amelie Poulain",
    "RRR",
    "Le voyage de Chihiro",
    "PARASITE 2019",
    "Film noir!",
]


@pytest.mark.ddp
@pytest.mark.parametrize("mode,ref", [("paper", _ref_word_recall), (CODE, _ref_word_recall_code)])
def test_word_recall_class_harness(ddp_pool, mode, ref):
    batches = [(PRED_TEXT[:3], GT_TEXT[:3]), (PRED_TEXT[3:6], GT_TEXT[3:6]), (PRED_TEXT[6:], GT_TEXT[6:])]
    case = MetricCase(
        factory=partial(WordRecall, mode=mode),
        functional=partial(word_recall, mode=mode),
        reference=ref,
        batches=batches,
        join=join_lists,
        atol=1e-12,
        extras_keys=("n_unparsable",),
    )
    check_metric(case, ddp_pool)


@pytest.mark.ddp
def test_gap_and_stability_classes_harness(ddp_pool):
    from transcreval import FontSizeStability, OCRRobustnessGap

    gt = ["Grand Budapest Hotel", "Le Voyage de Chihiro", "Parasite 2019", "Film noir", "Amelie Poulain", "Spirited"]
    pred = ["Grand Budapest", "Le voyage de Chihiro", "Parasite 2019", "Film", "Amelie", "Spirited Away"]
    split = ["simple", "hard", "simple", "hard", "simple", "hard"]
    batches = [(pred[:2], gt[:2], split[:2]), (pred[2:4], gt[2:4], split[2:4]), (pred[4:], gt[4:], split[4:])]

    def reference(p, g, s):  # Table 1's delta: mean simple WR - mean hard WR, Eq. 2 written out
        wr = {"simple": [], "hard": []}
        for a, b, c in zip(p, g, s):
            wr[c].append(_ref_word_recall([a], [b]))
        return sum(wr["simple"]) / len(wr["simple"]) - sum(wr["hard"]) / len(wr["hard"])

    check_metric(
        MetricCase(partial(OCRRobustnessGap), ocr_robustness_gap, reference, batches, join_lists, atol=1e-12), ddp_pool
    )

    sizes = [80, 60, 40, 80, 60, 40, 80, 60, 40]
    gt2 = [*gt, "Hotel", "Chihiro", "Noir"]
    pred2 = [*pred, "Hotel", "Chihir", "noir"]
    sb = [(pred2[:4], gt2[:4], sizes[:4]), (pred2[4:7], gt2[4:7], sizes[4:7]), (pred2[7:], gt2[7:], sizes[7:])]

    def stab_reference(p, g, s):
        by = {}
        for a, b, c in zip(p, g, s):
            by.setdefault(c, []).append(_ref_word_recall([a], [b]))
        return statistics.stdev([sum(v) / len(v) for v in by.values()])

    check_metric(
        MetricCase(partial(FontSizeStability), font_size_stability, stab_reference, sb, join_lists, atol=1e-12),
        ddp_pool,
    )
