"""IMTBench's S_text model, loaded below the metric classes (LoadedCOMET), agrees with the
COMETScore it stands for: the same options, mapping and signature. A fake scorer stands in for
the checkpoint, so this runs without unbabel-comet."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from transcreval.errors import InputError
from transcreval.functional.judge.imtbench_score import loaded_comet
from transcreval.functional.text.comet import DEFAULT_MODEL, COMETOptions, LoadedCOMET
from transcreval.text.comet import COMETScore


class _FakeScorer:
    def __init__(self, unit_range: bool) -> None:
        self.unit_range = unit_range
        self.files = SimpleNamespace(sha256="0123456789ab" + "c" * 52)


@pytest.fixture
def fake_scorer(monkeypatch):
    monkeypatch.setattr(COMETOptions, "scorer", lambda self: _FakeScorer(self.model == DEFAULT_MODEL))


@pytest.mark.parametrize(
    "options",
    [{}, {"model": "test/other", "normalize": (-1, 1)}, {"model": "test/other", "normalize": "identity"}],
    ids=["default", "affine", "identity"],
)
def test_loaded_comet_is_what_the_metric_holds(fake_scorer, options):
    metric = COMETScore(**options)
    loaded = loaded_comet(options or None)
    assert isinstance(loaded, LoadedCOMET)
    assert loaded.options == metric.options
    assert loaded.bounds == metric.bounds and loaded.normalize == metric.normalize
    assert str(loaded.signature) == str(metric.signature)


def test_a_metric_is_taken_as_it_is_and_anything_else_is_named(fake_scorer):
    metric = COMETScore()
    assert loaded_comet(metric) is metric
    with pytest.raises(InputError, match="comet must be a COMETScore, a dict of its options or None, got int"):
        loaded_comet(3)
    with pytest.raises(TypeError, match="unexpected keyword"):
        loaded_comet({"modle": "x"})


def test_auto_on_a_model_of_unknown_range_fails_as_the_metric_does(fake_scorer):
    with pytest.raises(InputError) as from_metric:
        COMETScore(model="test/other")
    with pytest.raises(InputError) as from_loaded:
        loaded_comet({"model": "test/other"})
    assert str(from_loaded.value) == str(from_metric.value)
