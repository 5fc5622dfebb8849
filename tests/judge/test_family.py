"""Family-wide checks: every registered judge metric (tests.judge.cases covers them all) follows
the shared conventions of the judge machinery, so a new judge metric inherits them."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pytest

from tests._helpers.comet_env import registry_params
from tests.judge.cases import CASES, answer, call
from transcreval import MetricCollection
from transcreval.core.registry import list_metrics
from transcreval.functional.choice.style_score import POSTERIQ_STYLES
from transcreval.judge import ITEM_STATUSES, STATUSES, FunctionJudge

JUDGE_METRICS = sorted(m.name for m in list_metrics(domain="judge"))
FAIL = np.full((24, 16, 3), 77, np.uint8)  # the judge cannot read any request showing this image


def failing_answer(request):
    if any(p.image.getpixel((0, 0)) == (77, 77, 77) for p in request.images):
        return "Hard to say, it is a nice poster."
    return answer(request)


def with_item_failing(args, i):
    """The update arguments with item ``i`` of ``preds`` replaced by the unreadable image."""
    preds, *rest = args
    preds = list(preds)
    preds[i] = FAIL
    return (preds, *rest)


def test_the_cases_cover_every_registered_judge_metric():
    assert sorted(CASES) == JUDGE_METRICS
    assert ITEM_STATUSES[: len(STATUSES)] == STATUSES and ITEM_STATUSES[0] == "ok"


@pytest.mark.parametrize("name", registry_params(JUDGE_METRICS))
def test_scripted_judge_gives_the_case_value(name):
    """Three items scored by the scripted judge give the case's value, per item and overall, and
    the states loaded into a fresh instance give the same value without calling the judge."""
    factory, args, value = CASES[name]
    metric = factory(FunctionJudge(answer))
    res = call(metric, args(3))
    other = factory(FunctionJudge(answer))
    other.load_state_dict(metric.state_dict())
    assert other.compute().value == pytest.approx(res.value, nan_ok=True)
    assert res.n == 3 and res.per_item.numel() == 3
    assert res.extras["item_status"] == ["ok"] * 3
    per_item = res.per_item.tolist()
    assert not any(math.isnan(v) for v in per_item) and len(set(per_item)) == 1
    if value is not None:  # rates in % keep per-item values on the 0-1 scale
        assert res.value == pytest.approx(value)
        assert value in (pytest.approx(per_item[0]), pytest.approx(100 * per_item[0]))


def check_aligned(res, statuses, value):
    assert res.extras["item_status"] == statuses
    assert res.per_item.numel() == len(statuses)
    assert [math.isnan(v) for v in res.per_item.tolist()] == [s != "ok" for s in statuses]
    ok = [v for v, s in zip(res.per_item.tolist(), statuses) if s == "ok"]
    assert res.n == len(ok) and len(set(ok)) == 1
    # rates in % (WinRate, QuizHitRate) keep per-item values on the 0-1 scale
    assert value is None or value in (pytest.approx(ok[0]), pytest.approx(100 * ok[0]))
    assert res.extras["n_failed"] == statuses.count("unparsable") == res.extras["failures"]["unparsable"]


@pytest.mark.parametrize("name", registry_params(JUDGE_METRICS))
def test_per_item_lines_up_with_the_inputs_and_says_why(name):
    """3 items, item 1 unreadable: per_item [v, NaN, v] and item_status [ok, unparsable, ok],
    in forward, in compute over two updates, and inside a collection."""
    factory, args, value = CASES[name]
    metric = factory(FunctionJudge(failing_answer))
    check_aligned(call(metric, with_item_failing(args(3), 1)), ["ok", "unparsable", "ok"], value)
    call(metric, with_item_failing(args(2), 0))  # a second batch, its first item unreadable
    check_aligned(metric.compute(), ["ok", "unparsable", "ok", "unparsable", "ok"], value)
    # the same through a collection (its own code path for forward)
    col = MetricCollection({"m": factory(FunctionJudge(failing_answer))})
    got = call(col, with_item_failing(args(3), 2))["m"]
    check_aligned(got, ["ok", "ok", "unparsable"], value)


def test_an_item_without_a_value_is_undefined_not_a_failure():
    """CSIOverlap: a source with no culture-specific item has no score: NaN, status "undefined"."""
    from tests.judge.cases import OUTPUT, SOURCE
    from transcreval import CSIOverlap

    def fn(request):
        if request.template_id == "khanuja.csi-replacements" and "bread" not in request.text:
            return '{"replacements": {}}'
        return answer(request)

    white = np.full((24, 16, 3), 255, np.uint8)
    res = CSIOverlap(judge=FunctionJudge(fn))([OUTPUT, OUTPUT], [SOURCE, white], country="Japan", category="food")
    assert res.extras["item_status"] == ["ok", "undefined"] and math.isnan(res.per_item[1])
    assert res.per_item[0] == 0.5 and res.n == 1 and res.extras["n_failed"] == 0 and res.extras["n_no_csi"] == 1


# ---------------------------------------------------------------------- options reach the signature
def _tpl(template_id):
    from transcreval.judge import TEMPLATES

    return TEMPLATES[template_id].with_text(TEMPLATES[template_id].user + "\nBe brief.")


# name: (base options, {option: another value}); every constructor option of the class is listed
VARIANTS = {
    "TitleExtraction": ({}, {"char_order": 4, "word_order": 2, "beta": 3.0, "lowercase": True, "template": "x"}),
    "QuizHitRate": (
        {"labels": ["drama", "comedy", "horror", "action"]},
        {
            "kind": "decade",
            "labels": ["drama", "comedy", "horror", "romance"],
            "n_options": 3,
            "question": "Which genre?",
            "hint": "one word",
            "seed": 1,
            "template": "x",
        },
    ),
    "JudgeScore": ({}, {"aspect": "adaptation", "template": "mptc.aesthetic+adaptation"}),
    "WinRate": ({}, {"seed": 1, "both_orders": True, "template": "x"}),
    "MarketPreferenceRate": ({}, {"seed": 1, "both_orders": True, "template": "x"}),
    "VLMTranscreationScore": ({}, {"aspect": "intent", "template": "x"}),
    "CSIOverlap": ({}, {"matching": "exact", "templates": "objects"}),
    "HarmonizationScore": ({}, {"combine": "min", "reference": False, "template": "imtbench.joint-ref"}),
    "AlignmentScore": ({}, {"template": "imtbench.joint"}),
    "JudgedPointScore": ({}, {"mode": "posteriq-code", "template": "x"}),
    "JudgedStyleScore": ({}, {"labels": [*POSTERIQ_STYLES[:-1], "Vaporwave"], "template": "x"}),  # 17 labels too
    "JudgedFontRichness": ({"vocabulary": ["bold", "serif"]}, {"vocabulary": ["bold", "italic"], "template": "x"}),
    "IMTBenchScore": lambda: _imtbench_variants(),  # needs comet: built when its case runs
}
#: constructor options that never change a value
NO_VALUE_OPTIONS = ("self", "judge", "kwargs", "on_failure", "device")


def _imtbench_variants():
    import torch
    import torchvision

    from tests._helpers.every_metric import squeeze_trunk, tiny_comet
    from tests.io.test_decoding_family import DarkBoxes, lpips_file

    torch.manual_seed(1)
    other = Path(tempfile.mkdtemp(prefix="transcreval-family-")) / "squeezenet-seed1.pth"
    torch.save(torchvision.models.squeezenet1_1().state_dict(), other)
    comet = {"model": "test/tiny-comet", "checkpoint": tiny_comet()}
    base = {"comet": comet, "lpips_net": "squeeze", "lpips_weights": squeeze_trunk()}
    return base, {
        "comet": {**comet, "normalize": (0.0, 2.0)},
        "judge_call": "separate",
        "reference": False,
        "combine": "min",
        "templates": {"joint": _tpl("imtbench.joint-ref")},
        "bg_mask": "given",
        "ocr_backend": DarkBoxes(),
        "ocr_dilate_px": 2,
        # another network: its trunk file and linear layers are in the signature, not only the name
        "lpips_net": ("alex", lpips_file()),
        "lpips_weights": {"torchvision-squeezenet1_1": str(other)},
        "lpips_version": "0.0",
        "lpips_mode": "upsample",
        "resize": "error",
        "input_range": (-1.0, 1.0),
    }
