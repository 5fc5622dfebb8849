"""StyleScore (transcreval.choice.style_score): PosterIQ's style accuracy in both modes
(hand-worked), the fixed label list, the harness.
"""

from __future__ import annotations

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import (
    StyleScore,
)
from transcreval.errors import InputError
from transcreval.functional import (
    style_score,
)

CODE = "posteriq-code"


LABELS = ["minimalist", "pop art", "retro", "vintage", "pop"]


def test_style_score():
    pred = ["Minimalist", "pop art poster", "I think it's retro or vintage", "Retro "]
    target = ["minimalist", "pop art", "retro", "retro"]
    # paper: 3 readable answers, all right; the retro-or-vintage answer is ambiguous: scored 0 by
    # default (it was left out, 1.0, as on_unreadable="drop" still does)
    assert style_score(pred, target, labels=LABELS).value == 0.75
    assert style_score(pred, target, labels=LABELS, on_unreadable="drop").value == 1.0
    # code: exact lower-case equality, no stripping: only the first
    assert style_score(pred, target, mode=CODE).value == 0.25
    # the label list is fixed (default: PosterIQ's 17 styles), never taken from a batch
    assert style_score(["I'd say pop art"], ["Pop Art"]).value == 1.0
    with pytest.raises(InputError, match="labels"):
        style_score(["retro"], ["retro"])  # not one of PosterIQ's style names
    m = StyleScore(LABELS)
    m.update(pred, target)
    assert m.compute().extras["n_unparsable"] == 1
    with pytest.raises(InputError, match="not one of the labels"):
        style_score(["retro"], ["grunge"], labels=LABELS)


@pytest.mark.ddp
def test_style_score_class_harness(ddp_pool):
    pred = ["retro", "pop art", "vintage", "retro", "minimalist"]
    target = ["retro", "pop", "vintage", "vintage", "minimalist"]
    sb = [(pred[:2], target[:2]), (pred[2:4], target[2:4]), (pred[4:], target[4:])]
    check_metric(
        MetricCase(
            partial(StyleScore, labels=LABELS),
            lambda p, t: style_score(p, t, labels=LABELS),
            lambda p, t: sum(a == b for a, b in zip(p, t)) / len(p),
            sb,
            join_lists,
            atol=1e-12,
        ),
        ddp_pool,
    )
