"""Direction and range are written once, in the registry; ``Metric`` gives them to the classes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from transcreval.core.metric import Metric
from transcreval.core.registry import list_metrics

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.mark.parametrize("info", list_metrics(), ids=lambda m: m.name)
def test_every_class_takes_direction_and_range_from_its_entry(info):
    cls = info.load()
    assert (cls.higher_is_better, cls.value_range) == (info.higher_is_better, info.value_range)
    assert "higher_is_better" in vars(cls) and "value_range" in vars(cls)  # set on the class itself


@pytest.mark.parametrize("info", list_metrics(), ids=lambda m: m.name)
def test_no_registered_class_writes_them_in_its_source(info):
    path = SRC / (info.module.replace(".", "/") + ".py")
    (node,) = [n for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef) and n.name == info.name]
    written = {
        t.id
        for stmt in node.body
        for t in ([stmt.target] if isinstance(stmt, ast.AnnAssign) else getattr(stmt, "targets", []))
        if isinstance(t, ast.Name)
    }
    assert not written & {"higher_is_better", "value_range"}, f"{info.name}: write them in registry.py only"


def test_a_registered_class_that_declares_them_is_refused():
    # a class with a registered name and module (as a second definition of TitleChrF would be)
    with pytest.raises(TypeError, match=r"TitleChrF declares \['value_range'\]: .* registry entry only"):
        type("TitleChrF", (Metric,), {"__module__": "transcreval.text.chrf", "value_range": (0.0, 1.0)})


def test_unregistered_classes_keep_their_own():
    class Mine(Metric):
        higher_is_better = False
        value_range = (0.0, 2.0)

    class TitleChrF(Metric):  # a registered name in another module is not the registered class
        higher_is_better = False

    assert (Mine.higher_is_better, Mine.value_range) == (False, (0.0, 2.0))
    assert TitleChrF.higher_is_better is False and TitleChrF.value_range is None


def test_an_instance_may_narrow_the_direction_without_changing_the_class():
    from transcreval.judge import FunctionJudge
    from transcreval.judge.transcreation_score import VLMTranscreationScore

    m = VLMTranscreationScore(judge=FunctionJudge(lambda request: "{}"), aspect="intent")
    assert m.higher_is_better is True and VLMTranscreationScore.higher_is_better is None
