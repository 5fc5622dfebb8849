"""One option convention for every feature metric and its functional twin, and weights
pinned when a metric is built: family-wide tests over the registry.

Every registered image/multimodal metric that loads weights has a case in
``tests/_helpers/feature_metrics.py`` (checked below), so a new feature metric inherits these
tests. Every registered functional twin (all domains) refuses unknown keywords.
"""

from __future__ import annotations

import inspect
import shutil
import sqlite3
from pathlib import Path

import pytest
import torch

from tests._helpers.feature_metrics import CASES, images, second_file
from transcreval.core.registry import list_metrics
from transcreval.errors import FeatureCacheError, InputError, WeightsChangedError
from transcreval.features import FeatureCache

FEATURE_METRICS = sorted(m.name for m in list_metrics() if m.domain in ("image", "multimodal") and "weights" in m.needs)
PINNABLE = sorted(n for n, c in CASES.items() if c.file is not None)


def test_every_feature_metric_has_a_case():
    assert sorted(CASES) == FEATURE_METRICS, "add the new feature metric to tests/_helpers/feature_metrics.py"


def _batch(seed: int = 0):
    return images(3, seed=seed), images(3, seed=seed + 50)


# ----------------------------------------------------------------------------- feature_cache
@pytest.mark.parametrize("name", FEATURE_METRICS)
def test_feature_cache_as_a_path_is_opened_at_construction_and_used(name, tmp_path):
    case = CASES[name]
    a, b = _batch()
    path = tmp_path / "features.sqlite"
    metric = case.build(feature_cache=str(path))
    assert path.exists(), "the cache file is opened when the metric is built"
    metric.update(*case.inputs(a, b))
    metric.state_dict()  # the open_clip metrics hold update calls until a state is read (held_calls)
    assert len(FeatureCache(path)) > 0
    twin_path = tmp_path / "twin.sqlite"
    case.twin(*case.inputs(a, b), feature_cache=twin_path)
    assert len(FeatureCache(twin_path)) > 0, "the functional twin uses feature_cache= too"


@pytest.mark.parametrize("name", FEATURE_METRICS)
def test_bad_feature_options_fail_at_construction(name, tmp_path):
    case = CASES[name]
    a, b = _batch()
    for bad, match in (
        ({"feature_cache": 3}, "feature_cache must be"),
        ({"batch_size": 0}, "batch_size"),
        ({"input_range": (1, 0)}, "low < high"),
        ({"input_range": "01"}, "input_range"),
    ):
        with pytest.raises(InputError, match=match):
            case.build(**bad)
        with pytest.raises(InputError, match=match):
            case.twin(*case.inputs(a, b), **bad)
    foreign = tmp_path / "app.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE users (id INTEGER)")
    with pytest.raises(FeatureCacheError, match="not a transcreval feature cache"):
        case.build(feature_cache=foreign)


@pytest.mark.parametrize("name", FEATURE_METRICS)
def test_functional_twin_takes_the_class_option_names(name):
    from transcreval.core.registry import get_metric

    params = inspect.signature(get_metric(name).load_functional()).parameters
    assert {"input_range", "batch_size", "feature_cache"} <= set(params)
    assert "cache" not in params
    assert not any(p.kind is p.VAR_KEYWORD for p in params.values())


# ----------------------------------------------------------------------------- input_range
@pytest.mark.parametrize("name", FEATURE_METRICS)
def test_input_range_as_a_list_works_alone_in_a_collection_and_in_the_twin(name):
    from transcreval.core.collection import MetricCollection

    case = CASES[name]
    a, b = _batch(seed=3)
    sa = [x.float() / 127.5 - 1 for x in a]
    sb = [x.float() / 127.5 - 1 for x in b]
    want = case.build().forward(*case.inputs(a, b)).value
    alone = case.build(input_range=[-1, 1]).forward(*case.inputs(sa, sb)).value
    coll = MetricCollection({"m": case.build(input_range=[-1, 1])})
    coll.update(*case.inputs(sa, sb))
    together = coll.compute()["m"].value
    twin = case.twin(*case.inputs(sa, sb), input_range=[-1, 1])
    twin_value = twin.value if hasattr(twin, "value") else float(twin.double().mean())
    for got in (alone, together, twin_value):
        assert got == pytest.approx(want, abs=1e-4)


# ----------------------------------------------------------------------------- unknown keywords
def _twin_call(info):
    fn = info.load_functional()
    params = inspect.signature(fn).parameters.values()
    args = [None for p in params if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty]
    kwargs = {p.name: None for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty}
    return fn, args, kwargs


@pytest.mark.parametrize("info", list_metrics(), ids=lambda m: m.name)
def test_every_functional_twin_refuses_unknown_keywords(info):
    fn, args, kwargs = _twin_call(info)
    with pytest.raises(TypeError, match="definitely_not_an_option"):
        fn(*args, **kwargs, definitely_not_an_option=1)


# ----------------------------------------------------------------------------- pinned weights
@pytest.mark.parametrize("name", PINNABLE)
def test_weights_are_pinned_when_the_metric_is_built(name, tmp_path):
    """A checkpoint re-saved at the same path between updates (a fine-tuning loop saving each
    epoch) is never mixed in: the metric keeps the model it was built with (the value equals
    the first file's on both batches, the signature stays); moving it to another device, where
    the file would have to be read again, refuses (WeightsChangedError)."""
    from transcreval.features import clear_extractors

    case = CASES[name]
    assert case.file is not None and case.weights is not None
    path = tmp_path / f"model{Path(case.file()).suffix}"
    shutil.copyfile(case.file(), path)
    (a1, b1), (a2, b2) = _batch(seed=1), _batch(seed=2)
    clear_extractors()  # an instance of the same content loaded from another path would not need the file
    first = case.build(**case.weights(str(path)))
    sig = str(first.signature)
    first.update(*case.inputs(a1, b1))
    shutil.copyfile(second_file(name), path)  # re-saved at the same path
    first.update(*case.inputs(a2, b2))
    both = first.compute()
    unchanged = case.build(**case.weights(case.file()))
    unchanged.update(*case.inputs(a1, b1))
    unchanged.update(*case.inputs(a2, b2))
    assert both.value == pytest.approx(unchanged.compute().value, abs=1e-9)
    assert str(both.signature) == sig
    other = case.build(**case.weights(second_file(name)))
    other.update(*case.inputs(a1, b1))
    other.update(*case.inputs(a2, b2))
    assert other.compute().value != pytest.approx(both.value, abs=1e-6), "the two checkpoints must differ"
    if name not in ("LPIPS", "MaskedLPIPS", "BackgroundPreservation"):  # LPIPS runs where the images are
        first.to("cpu:0")  # another device: the file would have to be read again
        with pytest.raises(WeightsChangedError, match="changed"):
            first.update(*case.inputs(a1, b1))


@pytest.mark.parametrize("name", ["FID", "DINOv2Distance", "CLIPSimilarity"])
def test_an_unpickled_metric_refuses_a_file_that_changed(name, tmp_path):
    import pickle

    case = CASES[name]
    assert case.file is not None and case.weights is not None
    path = tmp_path / f"model{Path(case.file()).suffix}"
    shutil.copyfile(case.file(), path)
    metric = case.build(**case.weights(str(path)))
    blob = pickle.dumps(metric)
    assert pickle.loads(blob).signature == metric.signature  # the same file: fine
    shutil.copyfile(second_file(name), path)
    from transcreval.features import clear_extractors
    from transcreval.features.clip_models import clear_clip_encoders

    clear_extractors()
    clear_clip_encoders()
    with pytest.raises(WeightsChangedError):
        pickle.loads(blob)


def test_features_equal_after_moving_the_extractor_without_a_change(tmp_path):
    """``on()`` to another device with the file unchanged gives the same features."""
    from tests._helpers.model_weights import dinov2_file
    from transcreval.functional.image.dinov2_distance import dinov2_extractor

    ext = dinov2_extractor("vits14", dinov2_file("hub"))
    x = torch.stack([i.float() / 255 for i in images(2, seed=4)])
    moved = ext.on("cpu:0")
    assert moved is not ext and moved.weights == ext.weights
    assert torch.allclose(moved(x)["cls"], ext(x)["cls"], atol=1e-6)
    assert ext.on("cpu") is ext
