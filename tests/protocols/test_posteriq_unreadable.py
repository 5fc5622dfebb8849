"""Unreadable answers across the PosterIQ family.

Every registered PosterIQ metric that reads a model's free-text answers takes
``on_unreadable="zero" | "drop"`` with "zero" as the default (PosterIQ's code, and the formulas
read literally: a perfect answer plus an unreadable one averages 0.5), counts the unreadable
item either way, and lines ``per_item`` / ``extras["item_status"]`` up with the inputs. The
metrics without the option are listed in ``NO_OPTION`` with the reason (also in their docs
pages). An empty list ``[]`` is an answer (no boxes, no patches); prose stays unreadable.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import TextLocalizationIoU, WordRecall
from transcreval.core.registry import get_metric, list_metrics
from transcreval.core.result import MetricResult
from transcreval.errors import InputError
from transcreval.functional import box_recall_rate, match_accuracy, patch_iou, text_localization_iou

A = (0.0, 0.0, 0.5, 0.5)


@dataclass
class Case:
    args: tuple[Any, ...]  # update arguments: item 0 answered right, item 1 unreadable (one more for some)
    zero: float
    drop: float
    init: dict[str, Any] = field(default_factory=dict)
    kwargs: dict[str, Any] = field(default_factory=dict)


CASES: dict[str, Case] = {
    "WordRecall": Case((["Hello World", None], ["Hello World", "Grand Hotel"]), 0.5, 1.0),
    "OCRAccuracy": Case((["ACANA", None], ["ACANA", "ACUTAS"]), 0.5, 1.0),
    # simple: WR 1 and the missing answer; hard: WR 1. zero: 0.5 - 1; drop: 1 - 1
    "OCRRobustnessGap": Case(
        (
            ["Hello World", None, "Grand Hotel"],
            ["Hello World", "Le Voyage", "Grand Hotel"],
            ["simple", "simple", "hard"],
        ),
        -0.5,
        0.0,
    ),
    # per-size means: zero {20: 0.5, 40: 1}, drop {20: 1, 40: 1}; sample std
    "FontSizeStability": Case(
        (["Hello World", None, "Grand Hotel"], ["Hello World", "Le Voyage", "Grand Hotel"], [20, 20, 40]),
        math.sqrt(0.125),
        0.0,
    ),
    # a = 1/2 with k = 2 is chance (0); a = 1 is 1
    "KOptionScore": Case((["A", None], ["A", "B"]), 0.0, 1.0, init={"k": 2}),
    "TextLocalizationIoU": Case(([[A], "I cannot find the text."], [[A], [A]]), 0.5, 1.0, init={"top_n": 1}),
    "BoxRecallRate": Case((["[[0.1, 0.1, 0.2, 0.2]]", "no boxes to give"], [1, 1]), 0.5, 1.0),
    "PatchIoU": Case((["[3, 4]", "no idea"], [[3, 4], [1]]), 0.5, 1.0),
    "MatchAccuracy": Case((["[3, 4]", "no idea"], [2, 1]), 0.5, 1.0),
    "StyleScore": Case((["Pop Art", "it could be anything"], ["Pop Art", "Pop Art"]), 0.5, 1.0),
    "PointScore": Case(([["Yes", "Yes"], ["Yes", "hmm"]],), 0.5, 1.0),
}
NO_OPTION = {
    "CenterBias": "averages over paired boxes: an answer without boxes adds no pair (BoxRecallRate scores it 0)",
    "AreaRatio": "averages over paired boxes: an answer without boxes adds no pair (BoxRecallRate scores it 0)",
    "OverallRatingSimilarity": "a correlation of readable pairs; PosterIQ's code skips unreadable ones",
    "FontRichness": "every description is readable: naming no attribute covers nothing",
    "JudgedPointScore": "reads a judge's replies: judge failures follow on_failure",
    "JudgedStyleScore": "reads a judge's replies: judge failures follow on_failure",
    "JudgedFontRichness": "reads a judge's replies: judge failures follow on_failure",
}


def test_every_posteriq_metric_is_covered():
    family = {m.name for m in list_metrics(paper="PosterIQ")}
    assert family == set(CASES) | set(NO_OPTION), "a PosterIQ metric is neither tested nor listed as exempt"
    for name in NO_OPTION:
        assert "on_unreadable" not in inspect.signature(get_metric(name).load()).parameters


@pytest.mark.parametrize("name", sorted(CASES))
def test_zero_by_default_drop_on_request_counted_either_way(name):
    info, case = get_metric(name), CASES[name]
    cls, fn = info.load(), info.load_functional()
    assert inspect.signature(cls).parameters["on_unreadable"].default == "zero"
    assert inspect.signature(fn).parameters["on_unreadable"].default == "zero"
    n_items = len(case.args[0])
    for rule, expected in (("zero", case.zero), ("drop", case.drop), (None, case.zero)):
        opts = {} if rule is None else {"on_unreadable": rule}
        m = cls(**case.init, **opts)
        m.update(*case.args, **case.kwargs)
        res = m.compute()
        assert res.value == pytest.approx(expected, abs=1e-12), (name, rule)
        assert res.extras["n_unparsable"] == 1, (name, rule)
        f_kw = {"k": case.init["k"]} if "k" in case.init else {}
        f_kw.update({"top_n": case.init["top_n"]} if "top_n" in case.init else {})
        twin = fn(*case.args, **f_kw, **opts)
        assert float(twin) == pytest.approx(expected, abs=1e-12), (name, rule)
        if isinstance(twin, MetricResult):  # the twin returns what compute() returns
            assert str(twin.signature) == str(res.signature), (name, rule)
        if res.per_item is not None:  # one entry per input item, with its status
            assert len(res.per_item) == n_items and len(res.extras["item_status"]) == n_items
            assert res.extras["item_status"][1] == "unparsable" and res.extras["item_status"][0] == "ok"
            bad = float(res.per_item[1])
            assert bad == 0.0 if rule != "drop" else math.isnan(bad)
        assert f"unreadable:{rule or 'zero'}" in str(res.signature)
    with pytest.raises(InputError, match="on_unreadable"):
        cls(**case.init, on_unreadable="skip")


def test_metrics_built_with_different_rules_do_not_merge():
    a, b = WordRecall(), WordRecall(on_unreadable="drop")
    b.update(["x"], ["x"])
    with pytest.raises(TypeError, match="options differ"):
        a.merge_state(b)


# ---------------------------------------------------------------- item 5: "[]" is an answer
def test_an_empty_list_is_an_answer_prose_stays_unreadable():
    # the text-localisation prompt asks for "[]" when nothing matches: 0 boxes, IoU 0, recall 0
    m = TextLocalizationIoU(top_n=1, on_unreadable="drop")
    m.update([[A], "[]", "I could not find any of these texts."], [[A], [A], [A]])
    res = m.compute()
    assert res.value == pytest.approx(0.5) and res.n == 2 and res.extras["n_unparsable"] == 1
    assert res.extras["item_status"] == ["ok", "ok", "unparsable"]
    assert box_recall_rate(["[]", "I could not find any"], [2, 2], on_unreadable="drop").value == 0.0
    with pytest.raises(InputError):  # the prose answer alone: nothing readable to average
        box_recall_rate(["I could not find any"], [2], on_unreadable="drop")
    assert patch_iou(["[]"], [[3]], on_unreadable="drop").value == 0.0
    assert match_accuracy(["[]"], [0], on_unreadable="drop").value == 1.0


def test_code_mode_reads_unreadable_answers_as_the_script_does():
    # the script's parser reads prose as no boxes: nothing is unreadable, the image adds no box
    # to the pooled IoU; a missing answer (None) is unreadable and adds nothing either way
    for rule in ("zero", "drop"):
        m = TextLocalizationIoU(top_n=1, mode="posteriq-code", on_unreadable=rule)
        m.update([[A], "no boxes", None], [[A], [A], [A]])
        res = m.compute()
        assert (res.value, res.n, res.extras["n_unparsable"]) == (1.0, 1, 1)
        assert res.extras["item_status"] == ["ok", "undefined", "unparsable"]
    assert text_localization_iou(["no boxes", [A]], [[A], [A]], top_n=1, mode="posteriq-code").value == 1.0


@pytest.mark.ddp
def test_unreadable_items_in_the_class_harness(ddp_pool):
    preds = [[A], "nothing here", [(0.0, 0.0, 0.25, 0.5)], "[]", None, [A]]
    target = [[A], [A], [A], [A], [A], [A]]
    batches = [(preds[:2], target[:2]), (preds[2:4], target[2:4]), (preds[4:], target[4:])]

    def reference(p, g):  # Eq. 4 with top 1; unreadable answers (prose, None) and "[]" score 0
        vals = []
        for a, b in zip(p, g):
            box = a[0] if isinstance(a, list) else None
            if box is None:
                vals.append(0.0)
                continue
            ix = max(0.0, min(box[2], b[0][2]) - max(box[0], b[0][0]))
            iy = max(0.0, min(box[3], b[0][3]) - max(box[1], b[0][1]))
            area = lambda r: (r[2] - r[0]) * (r[3] - r[1])  # noqa: E731
            vals.append(ix * iy / (area(box) + area(b[0]) - ix * iy))
        return sum(vals) / len(vals)

    check_metric(
        MetricCase(
            partial(TextLocalizationIoU, top_n=1),
            lambda p, g: text_localization_iou(p, g, top_n=1),
            reference,
            batches,
            join_lists,
            atol=1e-12,
            extras_keys=("n_unparsable", "item_status"),
        ),
        ddp_pool,
    )
