"""TextLocalizationIoU, BoxRecallRate, CenterBias, AreaRatio (transcreval.layout.boxes): hand-worked
boxes in both modes, PosterIQ's pixel ground truth, the script's area-ratio rule, the harness.

Expected numbers are derived in the comments from the paper's formulas (mode="paper") or from
the documented behaviour of PosterIQ's code (docs/posteriq-paper-vs-code.md; mode="posteriq-code").
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import (
    AreaRatio,
    BoxRecallRate,
    CenterBias,
    TextLocalizationIoU,
)
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional import (
    area_ratio,
    box_recall_rate,
    center_bias,
    text_localization_iou,
)

CODE = "posteriq-code"


A, B, C = (0.0, 0.0, 0.5, 0.5), (0.5, 0.5, 0.6, 0.6), (0.0, 0.6, 1.0, 1.0)  # areas .25, .01, .40


PRED = [A, (0.5, 0.5, 0.7, 0.7), (0.0, 0.6, 1.0, 0.8)]


def test_text_localization_hand_example():
    # paper, top 2 by ground-truth area: C (IoU .2/.4 = .5) and A (IoU 1): (0.5 + 1) / 2 = .75
    assert text_localization_iou([PRED], [[A, B, C]], top_n=2).value == pytest.approx(0.75)
    # code: the first two by position: A (1.0) and B (.01/.04 = .25), pooled: .625
    assert text_localization_iou([PRED], [[A, B, C]], top_n=2, mode=CODE).value == pytest.approx(0.625)
    # a missing prediction counts 0 in the paper's mean over n
    assert text_localization_iou([[A]], [[A, B, C]], top_n=3).value == pytest.approx(1 / 3)
    # raw answers are parsed; an unreadable one is counted and scores 0 (the default; it was left
    # out earlier item 4: 0.75, as on_unreadable="drop" still gives)
    m = TextLocalizationIoU(top_n=2)
    m.update([str([list(b) for b in PRED]), "I cannot find the text."], [[A, B, C], [A]])
    res = m.compute()
    assert res.value == pytest.approx(0.375) and res.extras["n_unparsable"] == 1
    m = TextLocalizationIoU(top_n=2, on_unreadable="drop")
    m.update([str([list(b) for b in PRED]), "I cannot find the text."], [[A, B, C], [A]])
    assert m.compute().value == pytest.approx(0.75)
    # code mode drops integers: "[[0, 0, 1, 1]]" parses to no boxes at all
    m2 = TextLocalizationIoU(top_n=1, mode=CODE)
    m2.update(["[[0.0, 0.0, 0.5, 0.5]]", "[[0, 0, 1, 1]]"], [[A], [C]])
    res2 = m2.compute()
    assert (res2.value, res2.n) == (1.0, 1)  # the integer answer adds no box at all
    m3 = TextLocalizationIoU(top_n=1, mode=CODE)
    m3.update(["[[0, 0, 0.5, 0.5]]"], [[A]])
    with pytest.raises(EmptyInputError):
        m3.compute()


def test_code_mode_best_of_four_readings():
    # a pixel answer for a 100x200 image: the code tries /[W, H], as is, /1024, /1000
    pixel = [(0.0, 0.0, 50.0, 100.0)]
    assert text_localization_iou([pixel], [[A]], top_n=1, mode=CODE, image_sizes=[(100, 200)]).value == 1.0
    assert text_localization_iou([pixel], [[A]], top_n=1, coords="pixel", image_sizes=[(100, 200)]).value == 1.0


def test_box_recall_center_bias_area_ratio():
    assert box_recall_rate([1, 3, 0], [2, 2, 4]).value == pytest.approx(0.5)
    assert center_bias([[(0, 0, 0.2, 0.2)]], [[(0.1, 0.1, 0.3, 0.3)]]).value == pytest.approx(math.sqrt(0.02))
    assert area_ratio(
        [[(0, 0, 0.2, 0.2), (0, 0, 0.1, 0.1)]], [[(0, 0, 0.4, 0.1), (0, 0, 0.4, 0.1)]]
    ).value == pytest.approx((1 + 0.25) / 2)
    # pixels: the code's /[W, H] reading finds the exact box; the paper needs coords="pixel"
    px, gt = [[(10, 10, 30, 30)]], [[(0.1, 0.1, 0.3, 0.3)]]
    assert center_bias(px, gt, mode=CODE, image_sizes=[(100, 100)]).value == 0.0
    assert center_bias(px, gt, coords="pixel", image_sizes=[(100, 100)]).value == 0.0
    with pytest.raises(InputError, match="coords='pixel'"):
        center_bias(px, gt)  # pixel boxes given as normalised
    with pytest.raises(InputError, match="zero area"):
        area_ratio([[(0, 0, 1, 1)]], [[(0.2, 0.2, 0.2, 0.5)]])
    with pytest.raises(InputError, match="positive"):
        box_recall_rate([1], [0])
    with pytest.raises(EmptyInputError):
        center_bias([], [])


def _iou(a, b):
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    area = lambda r: max(0.0, r[2] - r[0]) * max(0.0, r[3] - r[1])  # noqa: E731
    return inter / (area(a) + area(b) - inter)


def _ref_topn_iou(preds, gts, n=2):  # Eq. 4 per image, mean over images
    vals = []
    for p, g in zip(preds, gts):
        order = sorted(range(len(g)), key=lambda i: -(g[i][2] - g[i][0]) * (g[i][3] - g[i][1]))[: min(n, len(g))]
        vals.append(sum(_iou(p[i], g[i]) if i < len(p) else 0.0 for i in order) / len(order))
    return sum(vals) / len(vals)


BOX_PREDS = [PRED, [A], [C, B], [(0.1, 0.1, 0.4, 0.4)], [A, A, A]]


BOX_GTS = [[A, B, C], [A, C], [C, B], [A], [A, B, C]]


@pytest.mark.ddp
def test_box_classes_harness(ddp_pool):
    batches = [(BOX_PREDS[:2], BOX_GTS[:2]), (BOX_PREDS[2:4], BOX_GTS[2:4]), (BOX_PREDS[4:], BOX_GTS[4:])]
    check_metric(
        MetricCase(
            factory=partial(TextLocalizationIoU, top_n=2),
            functional=lambda p, g: text_localization_iou(p, g, top_n=2),
            reference=_ref_topn_iou,
            batches=batches,
            join=join_lists,
            atol=1e-12,
        ),
        ddp_pool,
    )

    def ref_center(p, g):
        d = [
            math.dist(((a[0] + a[2]) / 2, (a[1] + a[3]) / 2), ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2))
            for pi, gi in zip(p, g)
            for a, b in zip(pi, gi)
        ]
        return sum(d) / len(d)

    check_metric(
        MetricCase(partial(CenterBias), lambda p, g: center_bias(p, g), ref_center, batches, join_lists, atol=1e-12),
        ddp_pool,
    )

    def ref_area(p, g):
        area = lambda r: (r[2] - r[0]) * (r[3] - r[1])  # noqa: E731
        r = [min(area(a), area(b)) / max(area(a), area(b)) for pi, gi in zip(p, g) for a, b in zip(pi, gi)]
        return sum(r) / len(r)

    check_metric(
        MetricCase(partial(AreaRatio), lambda p, g: area_ratio(p, g), ref_area, batches, join_lists, atol=1e-12),
        ddp_pool,
    )


@pytest.mark.ddp
def test_box_recall_rate_class_harness(ddp_pool):
    rec = [([1, 3], [2, 2]), ([0, 5], [4, 5]), ([2], [3])]
    check_metric(
        MetricCase(
            partial(BoxRecallRate),
            box_recall_rate,
            lambda p, q: sum(min(1, a / b) for a, b in zip(p, q)) / len(p),
            rec,
            join_lists,
            atol=1e-12,
        ),
        ddp_pool,
    )


def test_pixel_ground_truth_with_image_sizes_in_both_modes():
    # PosterIQ's text_localization.json: ground truth in pixels with size = [W, H]; the model
    # answers in normalised coordinates. PosterIQ's script scores this exact answer 1.00.
    size = (1000, 1500)
    gt_px = [[(100, 150, 500, 450)]]
    answer = ["[[0.1, 0.1, 0.5, 0.3]]"]
    for mode in ("paper", CODE):
        got = text_localization_iou(answer, gt_px, top_n=1, mode=mode, target_coords="pixel", image_sizes=[size]).value
        assert got == pytest.approx(1.0)
        # pixel ground truth read as normalised: an error in both modes, never a silent number
        with pytest.raises(InputError, match="target_coords='pixel'"):
            text_localization_iou(answer, gt_px, top_n=1, mode=mode, image_sizes=[size])
        with pytest.raises(InputError, match="image_sizes"):
            text_localization_iou(answer, gt_px, top_n=1, mode=mode, target_coords="pixel")
    # predictions and ground truth both in pixels
    px_pred = [[(100, 150, 500, 450)]]
    assert (
        text_localization_iou(px_pred, gt_px, top_n=1, coords="pixel", target_coords="pixel", image_sizes=[size]).value
        == 1.0
    )
    # ground truth that looks normalised while pixels were announced
    with pytest.raises(InputError, match="look normalised"):
        text_localization_iou(answer, [[A]], top_n=1, target_coords="pixel", image_sizes=[size])
    m = TextLocalizationIoU(top_n=1, target_coords="pixel")
    m.update(answer, gt_px, image_sizes=[size])
    assert m.compute().value == pytest.approx(1.0)
    assert center_bias(
        [[(0.1, 0.1, 0.5, 0.3)]], gt_px, target_coords="pixel", image_sizes=[size]
    ).value == pytest.approx(0)


def test_inverted_boxes_are_errors_or_unreadable_never_scores():
    with pytest.raises(InputError, match="inverted"):
        center_bias([[(1, 1, 0, 0)]], [[(0.1, 0.1, 0.3, 0.3)]])
    with pytest.raises(InputError, match="inverted"):
        text_localization_iou([[A]], [[(0.5, 0.5, 0.0, 0.0)]], top_n=1)
    m = TextLocalizationIoU(top_n=1)
    m.update(["[[0.9, 0.9, 0.1, 0.1]]", [A]], [[A], [A]])  # an inverted box in an answer: unreadable
    res = m.compute()
    assert res.extras["n_unparsable"] == 1 and res.value == 0.5  # scored 0 (1.0 with on_unreadable="drop")


def _script_area_ratio(pred, gt, size):  # PosterIQ's layout-generation rule, written out independently
    area = lambda b: (b[2] - b[0]) * (b[3] - b[1])  # noqa: E731
    w, h = size
    readings = [
        (pred[0] / w, pred[1] / h, pred[2] / w, pred[3] / h),
        pred,
        tuple(v / 1024 for v in pred),
        tuple(v / 1000 for v in pred),
    ]
    ratios = [area(gt) / area(r) if area(r) > 0 else 0.0 for r in readings]
    r = min(ratios, key=lambda q: abs(q - 1))
    return 1 / r if r > 1 else r


def test_code_mode_area_ratio_follows_the_script_rule():
    rng = np.random.default_rng(4)
    size = (1400, 1400)
    pred = (100.0, 100.0, 640.0, 640.0)  # a 540 px box: the readings disagree on which is closest to 1
    gt = (0.1, 0.1, 0.5, 0.45)
    assert area_ratio([[pred]], [[gt]], mode=CODE, image_sizes=[size]).value == pytest.approx(
        _script_area_ratio(pred, gt, size), abs=1e-12
    )
    for _ in range(300):
        x0, y0 = rng.uniform(0, 900, 2)
        p = (x0, y0, x0 + rng.uniform(1, 500), y0 + rng.uniform(1, 500))
        g0 = rng.uniform(0, 0.5, 2)
        g = (g0[0], g0[1], g0[0] + rng.uniform(0.01, 0.5), g0[1] + rng.uniform(0.01, 0.5))
        got = area_ratio([[p]], [[g]], mode=CODE, image_sizes=[size]).value
        assert got == pytest.approx(_script_area_ratio(p, g, size), abs=1e-12)
        # inverted boxes: on both axes the script's area is positive, on one axis negative (0)
        for q in ((p[2], p[3], p[0], p[1]), (p[2], p[1], p[0], p[3])):
            got = area_ratio([[q]], [[g]], mode=CODE, image_sizes=[size]).value
            assert got == pytest.approx(_script_area_ratio(q, g, size), abs=1e-12)
    flipped = area_ratio(["[[0.5, 0.5, 0.1, 0.1]]"], [[(0.1, 0.1, 0.5, 0.5)]], mode=CODE, image_sizes=[(100, 100)])
    assert flipped.value == pytest.approx(1.0)  # read as is: (0.1 - 0.5) * (0.1 - 0.5) = the target's 0.16


def test_pixel_boxes_past_the_image_say_so():
    with pytest.raises(InputError, match="goes past the 1000x1000 image"):
        center_bias([[(0, 0, 1010, 20)]], [[(0.0, 0.0, 0.5, 0.5)]], coords="pixel", image_sizes=[(1000, 1000)])
    with pytest.raises(InputError, match="goes past the 1000x1000 image"):
        text_localization_iou([[A]], [[(0, 0, 1001, 20)]], top_n=1, target_coords="pixel", image_sizes=[(1000, 1000)])
    sizes = np.array([[100, 200]])  # an (N, 2) array of sizes is fine
    assert (
        text_localization_iou([[(0.0, 0.0, 50.0, 100.0)]], [[A]], top_n=1, coords="pixel", image_sizes=sizes).value
        == 1.0
    )


def test_code_box_parser_reads_unicode_digits_like_the_script():
    from transcreval.utils.parsing import posteriq_code_boxes

    assert posteriq_code_boxes("１.５ 0.2 0.3 0.4 0.5") == [(1.5, 0.2, 0.3, 0.4)]


@pytest.mark.parametrize("fn", [text_localization_iou, box_recall_rate, center_bias, area_ratio])
@pytest.mark.parametrize(
    "answer", ["[[10, 20, 200, 100]]", '{"boxes": [[10, 20, 200, 100]]}', "box: (10, 20, 200, 100)"]
)
def test_pixel_answers_in_normalised_mode_are_an_error_naming_coords_pixel(fn, answer):
    """Pixel boxes given as a model's answer text in normalised mode scored 0.0 with no warning
    (read as out of range, hence unreadable): coordinates above 1 there are an error naming
    coords="pixel", for every box metric, as boxes given as lists already were."""
    kw = {"top_n": 1} if fn is text_localization_iou else {}
    with pytest.raises(InputError, match=r"coords='pixel'.*image_sizes") as err:
        fn([answer], [[(0.1, 0.1, 0.5, 0.5)]], **kw)
    assert "200" in str(err.value)
    with pytest.raises(InputError, match="coords='pixel'"):
        fn([[(10, 20, 200, 100)]], [[(0.1, 0.1, 0.5, 0.5)]], **kw)  # as lists: already an error
    # the same answer with coords="pixel" and the image size is read and scored
    if fn is not box_recall_rate:  # BoxRecallRate's ground truth is normalised
        kw |= {"target_coords": "pixel"}
    gt = [(10, 20, 200, 100)] if fn is not box_recall_rate else [(10 / 640, 20 / 480, 200 / 640, 100 / 480)]
    got = fn([answer], [gt], coords="pixel", image_sizes=[(640, 480)], **kw)
    assert math.isfinite(got.value)
    # unreadable answers are still unreadable, not errors
    assert text_localization_iou(["no idea"], [[A]], top_n=1).extras["n_unparsable"] == 1


def test_pixel_answers_to_the_class_are_an_error_too():
    m = TextLocalizationIoU(top_n=1)
    with pytest.raises(InputError, match="coords='pixel'"):
        m.update(["[[10, 20, 200, 100]]"], [[A]])
