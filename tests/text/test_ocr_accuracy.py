"""OCRAccuracy (transcreval.text.ocr_accuracy): PosterIQ's OCR instance accuracy (Eq. 1) in both
modes, hand-worked from the paper's Supp. B or the script's behaviour
(docs/posteriq-paper-vs-code.md), the refusal filter, bad input, the harness.
"""

from __future__ import annotations

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import (
    OCRAccuracy,
)
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional import (
    ocr_accuracy,
)

CODE = "posteriq-code"


def test_ocr_accuracy_hand_examples():
    # logo: the whole transcription must equal the text once invisible characters are stripped
    assert ocr_accuracy(["ACA NA\n"], ["ACANA"]).value == 1.0
    assert ocr_accuracy(["ACANA\u200b"], ["ACANA"]).value == 1.0  # a zero-width space is invisible
    assert ocr_accuracy(["acana"], ["ACANA"]).value == 0.0  # exact match: case kept
    assert ocr_accuracy(["ACANA!"], ["ACANA"]).value == 0.0  # punctuation is visible
    assert ocr_accuracy(["千と千尋"], ["千と千尋"]).value == 1.0
    # code: ASCII letters and digits, lower-cased: case and punctuation vanish, so does CJK
    assert ocr_accuracy(["acana!"], ["ACANA"], mode=CODE).value == 1.0
    assert ocr_accuracy(["千と千尋"], ["千と"], mode=CODE).value == 1.0  # both clean to "": equal
    # poster: instances pooled over posters (Eq. 1: N counts instances). Poster 1: 2 of 3;
    # poster 2: 1 of 1: 3/4 (the mean over posters, the code's average, would be 5/6)
    preds = ["ROCK SHOW\nFRIDAY 28 FEB", "LIVE"]
    target = [["ROCK SHOW", "FRIDAY", "TICKETS"], ["LIVE"]]
    assert ocr_accuracy(preds, target).value == pytest.approx(3 / 4)
    assert ocr_accuracy(preds, target, mode=CODE).value == pytest.approx((2 / 3 + 1) / 2)


def test_ocr_accuracy_code_refusal_filter_and_errors():
    # the script leaves out posters scoring below 0.05; logos are never filtered
    preds, target = ["nothing", "LIVE", "x"], [[f"T{i}" for i in range(21)], ["LIVE"], "ACANA"]
    m = OCRAccuracy(mode=CODE, refusal_filter=True)
    m.update(preds, target)
    res = m.compute()
    assert res.value == 0.5 and res.extras["item_status"] == ["refused", "ok", "ok"]
    assert ocr_accuracy(preds, target, mode=CODE).value == pytest.approx(1 / 3)
    with pytest.raises(InputError, match="posteriq-code"):
        OCRAccuracy(refusal_filter=True)
    with pytest.raises(InputError, match="no visible character"):
        ocr_accuracy(["a"], [" \n"])
    with pytest.raises(InputError, match="text instances"):
        ocr_accuracy(["a"], [3])
    with pytest.raises(InputError, match="string"):
        ocr_accuracy([3], ["a"])
    with pytest.raises(EmptyInputError):
        ocr_accuracy([None], ["a"], on_unreadable="drop")


def _ref_ocr(preds, target):  # Eq. 1 written out: instances pooled, whitespace/format chars stripped
    def strip(s):
        return "".join(c for c in s if not c.isspace() and c not in "\u200b\u200c\u200d\ufeff")

    hits = total = 0
    for p, t in zip(preds, target):
        texts = [t] if isinstance(t, str) else t
        for x in texts:
            ok = strip(x) == strip(p) if isinstance(t, str) else strip(x) in strip(p)
            hits += ok
            total += 1
    return hits / total


@pytest.mark.ddp
def test_ocr_accuracy_class_harness(ddp_pool):
    preds = ["ACANA", "Adorr gon", "ROCK SHOW live", "TICKETS\nVIMEO", "ZZ", "Le Voyage"]
    target = ["ACANA", "Adorrgon", ["ROCK SHOW", "LIVE"], ["TICKETS", "VIMEO", "YOUTUBE"], ["A", "B"], "Le Voyage"]
    batches = [(preds[:2], target[:2]), (preds[2:4], target[2:4]), (preds[4:], target[4:])]
    check_metric(MetricCase(partial(OCRAccuracy), ocr_accuracy, _ref_ocr, batches, join_lists, atol=1e-12), ddp_pool)
