"""IMTBench's S_text model, loaded below the metric classes (LoadedCOMET), agrees with the
COMETScore it stands for: the same options, mapping and signature. A fake scorer stands in for
the checkpoint, so this runs without unbabel-comet."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests._helpers.comet_env import needs_comet
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


# ----------------------------------------------------------------------------- named, not loaded
def _fake_checkpoint(root, final_activation):
    """A COMET checkpoint's layout with bytes that are no model (never loaded)."""
    import yaml

    (root / "checkpoints").mkdir(parents=True)
    (root / "checkpoints" / "model.ckpt").write_bytes(b"not a model")
    hparams = {"class_identifier": "regression_metric", "final_activation": final_activation}
    (root / "hparams.yaml").write_text(yaml.safe_dump(hparams), encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("activation", "normalize", "norm"),
    [("sigmoid", "auto", "identity"), (None, "identity", "identity"), (None, (-1, 1), "(-1,1)->(0,1)")],
)
def test_named_options_bind_the_checkpoint_digest_and_mapping_without_loading(tmp_path, activation, normalize, norm):
    import hashlib

    from transcreval.functional.text.comet import named_options

    root = _fake_checkpoint(tmp_path / "m", activation)
    named = named_options(COMETOptions(model="test/x", checkpoint=str(root), normalize=normalize))
    digest = hashlib.sha256(b"not a model").hexdigest()[:12]
    assert named.scorer_options == (("ckpt", digest), ("norm", norm))


def test_named_options_refuse_auto_on_a_model_of_unknown_range_as_the_loaded_model_does(tmp_path):
    from transcreval.functional.text.comet import named_options, resolve_normalize

    root = _fake_checkpoint(tmp_path / "m", None)
    with pytest.raises(InputError) as named:
        named_options(COMETOptions(model="test/x", checkpoint=str(root)))
    with pytest.raises(InputError) as loaded:
        resolve_normalize("auto", False, "test/x")  # what bind_scorer says of a scorer without unit range
    assert str(named.value) == str(loaded.value)


@pytest.mark.parametrize(
    ("activation", "normalize"),
    [pytest.param(a, n, marks=needs_comet) for a, n in (("sigmoid", "auto"), (None, "identity"), (None, (-2, 2)))],
)
def test_named_options_are_the_loaded_models(tmp_path, activation, normalize):
    from tests._helpers.comet_model import build_tiny_comet
    from transcreval.functional.text.comet import named_options

    ckpt = build_tiny_comet(tmp_path / "tiny", final_activation=activation)
    options = COMETOptions(model="test/tiny-comet", checkpoint=str(ckpt), normalize=normalize)
    assert named_options(options) == LoadedCOMET.load(options).options
    assert named_options(options).scorer_options == LoadedCOMET.load(options).options.scorer_options
