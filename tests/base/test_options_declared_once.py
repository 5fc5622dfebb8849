"""Options declared once: keywords and signatures come from the options dataclass.

* :func:`~transcreval.core.options.options_signature` / :func:`~transcreval.core.options.takes_options`
  show a dataclass's fields as a twin's or a class's keywords, and a field's ``signature``
  metadata (a name, None, or a function of the options) is the one way a signature is built;
* over the whole registry: no metric class writes its own ``_signature_options`` (the base
  reads its options object), and building a signature from a metric's options object loads no
  model and reads no weights file (the loaders are made to raise), while giving the class's
  signature exactly;
* the LPIPS family's keywords, in its classes and twins, are its options dataclasses' fields;
* so are those of the other families whose keywords used to be written out by hand (pHash, chrF),
  and no options class writes its own ``signature_options`` (a field's metadata says it).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from typing import Any

import pytest

from tests._helpers.comet_env import NEEDS_COMET, needs_comet
from transcreval.core.metric import Metric
from transcreval.core.options import MetricOptions, option, options_signature, takes_options
from transcreval.core.registry import get_metric, list_metrics

NAMES = [m.name for m in list_metrics()]


@dataclasses.dataclass(frozen=True)
class _Toy(MetricOptions):
    order: int = option(6)
    beta: float = option(2.0, signature="b")
    cache: Any = option(None, signature=None)
    lowercase: bool = option(False, signature=lambda o: {"case": "lc" if o.lowercase else "mixed"})


def test_a_signature_metadata_function_prints_derived_entries_at_its_place():
    assert _Toy().signature_options() == {"order": 6, "b": 2.0, "case": "mixed"}
    assert list(_Toy(lowercase=True).signature_options().items())[-1] == ("case", "lc")


@dataclasses.dataclass(frozen=True)
class _ToyChild(_Toy):
    top: int = option(3, signature_order=-1)


def test_a_negative_signature_order_prints_a_subclass_field_before_the_inherited_ones():
    assert list(_ToyChild().signature_options()) == ["top", "order", "b", "case"]


@dataclasses.dataclass(frozen=True)
class _LastBase(MetricOptions):
    who: str = option("me", signature_order=1)
    tag: int = option(1, signature=lambda o: {"t": o.tag, "t2": 2 * o.tag}, signature_order=1)
    plain: int = 0


@dataclasses.dataclass(frozen=True)
class _LastChild(_LastBase):
    a: int = 2
    b: int = option(3, signature_order=-1)


def test_a_positive_signature_order_prints_a_base_field_after_every_subclass_field():
    assert list(_LastChild().signature_options().items()) == [
        ("b", 3), ("plain", 0), ("a", 2), ("who", "me"), ("t", 1), ("t2", 2)
    ]  # fmt: skip


def test_a_twin_shows_the_fields_as_keyword_only_parameters_and_nothing_else():
    @takes_options(_Toy)
    def toy(preds: Any, target: Any, **options: Any) -> float:
        return float(_Toy.take(options, "toy").beta)

    params = inspect.signature(toy).parameters
    assert list(params) == ["preds", "target", "order", "beta", "cache", "lowercase"]
    assert all(params[n].kind is inspect.Parameter.KEYWORD_ONLY for n in ("order", "beta", "cache", "lowercase"))
    assert params["beta"].default == 2.0
    assert toy(1, 2, beta=3.0) == 3.0
    with pytest.raises(TypeError, match="nope"):
        toy(1, 2, nope=1)


def test_a_class_init_takes_positional_fields_and_keeps_its_kwargs():
    def __init__(self: Any, order: int = 6, *args: Any, **kwargs: Any) -> None: ...

    sig = options_signature(_Toy, __init__, positional=("beta",))
    kinds = {n: p.kind for n, p in sig.parameters.items()}
    assert list(kinds) == ["self", "order", "beta", "cache", "lowercase", "kwargs"]
    assert kinds["beta"] is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert kinds["kwargs"] is inspect.Parameter.VAR_KEYWORD


# ----------------------------------------------------------------------------- the whole registry
def _params() -> list[Any]:
    return [pytest.param(n, marks=needs_comet if n in NEEDS_COMET else (), id=n) for n in NAMES]


@pytest.mark.parametrize("name", _params())
def test_no_metric_class_writes_its_own_signature_options(name):
    cls = get_metric(name).load()
    own = [k.__qualname__ for k in cls.__mro__ if k is not Metric and "_signature_options" in vars(k)]
    assert not own, f"{own} override _signature_options: declare the signature in the options dataclass"


#: the functions that load a model or read a weights file: a signature must call none of them
LOADERS = (
    ("transcreval.features.lpips_network", "load_lpips_network"),
    ("transcreval.features.extractor", "get_extractor"),
    ("transcreval.features.clip_models", "get_clip"),
    ("transcreval.engines.ocr.base", "get_detector"),
    ("transcreval.weights.load", "load_state_dict"),
    ("torch", "load"),
)

#: metrics whose options still load their model to name it in the signature (strict xfails:
#: a family that stops loading must leave this list)
LOADS_FOR_SIGNATURE = {
    "IMTBenchScore": "bg_mask='ocr' names the OCR detector by its own record: get_detector builds it",
}


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("building a signature called a model loader")


def _forbid_loaders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each loader's code is replaced by :func:`_refuse` (so every binding of it, wherever it
    was imported by name, raises, and process-wide caches behind it cannot hide a call)."""
    for module, attr in LOADERS:
        fn = inspect.unwrap(getattr(importlib.import_module(module), attr))
        monkeypatch.setattr(fn, "__code__", _refuse.__code__)


def _case(name: str) -> Any:
    marks: list[Any] = list(needs_comet) if name in NEEDS_COMET else []
    if name in LOADS_FOR_SIGNATURE:
        marks.append(pytest.mark.xfail(strict=True, raises=AssertionError, reason=LOADS_FOR_SIGNATURE[name]))
    return pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", [_case(n) for n in NAMES])
def test_a_signature_loads_no_model(name, monkeypatch):
    from tests._helpers.every_metric import build

    metric = build(name)  # building a metric may load its model (a missing file fails there)
    opts = metric.options
    init = {f.name: getattr(opts, f.name) for f in dataclasses.fields(opts) if f.init}
    fresh = type(opts)(**init)  # the same options, as a twin builds them: nothing loaded yet
    _forbid_loaders(monkeypatch)
    assert str(fresh.signature(metric.name, metric.version_packages)) == str(metric.signature)
    assert str(metric.signature) == str(metric.signature)  # the class's signature loads nothing either


def test_the_loader_guard_catches_a_signature_that_loads(monkeypatch):
    from transcreval.functional.image.lpips import LPIPSOptions

    _forbid_loaders(monkeypatch)
    with pytest.raises(AssertionError, match="model loader"):
        LPIPSOptions(net="squeeze").network


# ----------------------------------------------------------------------------- the LPIPS family
LPIPS_FAMILY = {
    "LPIPS": ("LPIPSOptions", ()),
    "MaskedLPIPS": ("MaskedLPIPSOptions", ()),
    "BackgroundPreservation": ("BackgroundOptions", ("mask",)),
}


@pytest.mark.parametrize("name", sorted(LPIPS_FAMILY))
def test_lpips_family_keywords_are_its_options_fields(name):
    info = get_metric(name)
    cls, twin = info.load(), info.load_functional()
    options_type = cls.options_type
    assert options_type.__name__ == LPIPS_FAMILY[name][0]
    fields = {f.name for f in dataclasses.fields(options_type)}
    twin_fields = fields - set(LPIPS_FAMILY[name][1])  # a twin's input (BackgroundPreservation's mask)
    cls_params = inspect.signature(cls).parameters
    twin_params = inspect.signature(twin).parameters
    assert {n for n in cls_params if n != "kwargs"} == fields
    assert [n for n in cls_params][:2] == ["net", "weights"]
    assert {n for n, p in twin_params.items() if p.kind is p.KEYWORD_ONLY} == twin_fields
    for n in twin_fields:
        assert cls_params[n].default == twin_params[n].default, n


def _lin_file(version: str) -> str:
    from transcreval.weights import resolve

    return str(resolve(f"lpips-squeeze-lin-v{version}").path)


@pytest.mark.parametrize(
    ("weights", "version"),
    [
        pytest.param(lambda: {}, None, id="trunk-only"),
        pytest.param(lambda: {"lpips-squeeze-lin-v0.1": _lin_file("0.1")}, None, id="lin-v0.1-file"),
        pytest.param(lambda: {"lpips-squeeze-lin-v0.0": _lin_file("0.1")}, None, id="v0.1-file-under-v0.0"),
        pytest.param(lambda: {"lpips-squeeze-lin-v0.0": _lin_file("0.0")}, None, id="lin-v0.0-file"),
        pytest.param(lambda: {}, "0.0", id="version-0.0"),
    ],
)
def test_lpips_weights_signature_without_loading_equals_the_loaded_networks(weights, version, monkeypatch):
    from tests._helpers.every_metric import squeeze_trunk
    from transcreval.features.lpips_network import load_lpips_network, lpips_weights_signature

    given = {**squeeze_trunk(), **weights()}
    want = load_lpips_network("squeeze", given, version=version).signature_options()
    _forbid_loaders(monkeypatch)
    assert lpips_weights_signature("squeeze", given, version) == want


# ----------------------------------------------------------------------------- the other families
#: metric -> (its options class, its twins), each keyword list read from the options dataclass
FAMILIES = {
    "PHashDistance": ("PHashOptions", ("phash_distance", "phash_distances")),
    "TitleChrF": ("ChrFOptions", ("title_chrf", "chrf_statistics", "sentence_chrf", "corpus_chrf")),
    "PlanChrF": ("ChrFOptions", ("plan_chrf",)),
    "BoxRecallRate": ("BoxRecallOptions", ("box_recall_rate",)),
    "CenterBias": ("BoxOptions", ("center_bias",)),
    "AreaRatio": ("BoxOptions", ("area_ratio",)),
    "PatchIoU": ("PatchOptions", ("patch_iou",)),
    "MatchAccuracy": ("MatchAccuracyOptions", ("match_accuracy",)),
}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_keywords_are_its_options_fields(name):
    info = get_metric(name)
    cls = info.load()
    options_type = type(cls().options)
    assert options_type.__name__ == FAMILIES[name][0]
    fields = {f.name: f for f in dataclasses.fields(options_type) if f.init}
    init = inspect.signature(cls).parameters
    assert {n for n in init if n != "kwargs"} == set(fields)
    assert init["kwargs"].kind is inspect.Parameter.VAR_KEYWORD  # Metric options pass on
    module = importlib.import_module(cls.__module__.replace("transcreval.", "transcreval.functional.", 1))
    for twin_name in FAMILIES[name][1]:
        twin = inspect.signature(getattr(module, twin_name)).parameters
        keywords = {n: p for n, p in twin.items() if p.kind is p.KEYWORD_ONLY}
        assert set(keywords) == set(fields), twin_name
        assert not [p for p in twin.values() if p.kind is p.VAR_KEYWORD], twin_name
        for n, f in fields.items():
            assert init[n].default == keywords[n].default == f.default, (twin_name, n)
            assert init[n].kind is inspect.Parameter.KEYWORD_ONLY, n


def _options_classes() -> list[type[MetricOptions]]:
    """Every options class of the packages that declare them (each module imported)."""
    import pkgutil

    for package in ("transcreval.functional", "transcreval.engines", "transcreval.features"):
        path = importlib.import_module(package).__path__
        for mod in pkgutil.walk_packages(path, package + "."):
            importlib.import_module(mod.name)
    seen: list[type[MetricOptions]] = []
    todo = list(MetricOptions.__subclasses__())
    while todo:
        k = todo.pop()
        seen.append(k)
        todo.extend(k.__subclasses__())
    return sorted(seen, key=lambda k: k.__qualname__)


#: options classes that still write signature_options by hand (strict xfails: a family that
#: declares its signature in field metadata must leave this list)
OWN_SIGNATURE_OPTIONS: set[str] = set()


def _options_case(k: type[MetricOptions]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason="hand-written")] if k.__qualname__ in OWN_SIGNATURE_OPTIONS else []
    return pytest.param(k, id=k.__qualname__, marks=marks)


@pytest.mark.parametrize("options_type", [_options_case(k) for k in _options_classes()])
def test_no_options_class_writes_its_own_signature_options(options_type):
    assert "signature_options" not in vars(options_type), (
        f"{options_type.__qualname__} overrides signature_options: say how each field prints with option(signature=...)"
    )
    assert "metric_options" not in vars(options_type), f"{options_type.__qualname__}: declare metric_options as fields"


# ----------------------------------------------------------------------------- the judge family
class _DescribedJudge:
    """A judge that says what it is, with sampling settings (never asked)."""

    def complete(self, requests: Any) -> Any:
        raise AssertionError("a signature asked the judge")

    def describe(self) -> dict[str, Any]:
        return {"backend": "openai", "model": "m", "temperature": 0.5, "seed": 7, "max_tokens": 64}


def _judge_names() -> list[str]:
    from tests.judge.cases import CASES

    return sorted(n for n in CASES if n != "IMTBenchScore")


@pytest.mark.parametrize("name", _judge_names())
def test_a_judge_metric_prints_its_own_options_then_the_judge_and_prompt(name):
    from tests.judge.cases import CASES

    opts = CASES[name][0](_DescribedJudge()).options.replace(input_range=(0, 255))
    own = {f.name for f in dataclasses.fields(opts)} - {"judge", "template", "on_failure", "input_range"}
    keys = list(opts.signature_options())
    judge = ["judge", "t", "max_tok"] if "seed" in own else ["judge", "t", "seed", "max_tok"]
    tail = [*judge, "tpl", "range"]
    assert keys[-len(tail) :] == tail, keys  # a metric's own seed keeps its place, among its own options
    assert opts.signature_options()["seed"] == 7  # the judge's sampling seed is what prints


# ----------------------------------------------------------------------------- IMTBenchScore
def test_imtbench_signature_names_comet_and_lpips_without_loading_them(tmp_path, monkeypatch):
    """COMET by its checkpoint's digest and declared range, LPIPS by its files' digests, as the
    loaded model and network would say (no comet is needed, none is loaded)."""
    import hashlib

    import yaml

    from tests._helpers.every_metric import _judge, squeeze_trunk
    from transcreval.features.lpips_network import load_lpips_network
    from transcreval.functional.judge.imtbench_score import IMTBenchOptions

    root = tmp_path / "comet"
    (root / "checkpoints").mkdir(parents=True)
    (root / "checkpoints" / "model.ckpt").write_bytes(b"no model here")
    (root / "hparams.yaml").write_text(yaml.safe_dump({"final_activation": "sigmoid"}), encoding="utf-8")
    lpips = load_lpips_network("squeeze", squeeze_trunk()).signature_options()  # the loaded network's record
    _forbid_loaders(monkeypatch)
    opts = IMTBenchOptions(
        judge=_judge(),
        comet={"model": "test/x", "checkpoint": str(root)},
        lpips_net="squeeze",
        lpips_weights=squeeze_trunk(),
        bg_mask="given",
        input_range=(0, 255),
    )
    got = opts.signature_options()
    assert list(got.items())[:3] == [
        ("comet_model", "test/x"),
        ("comet_ckpt", hashlib.sha256(b"no model here").hexdigest()[:12]),
        ("comet_norm", "identity"),
    ]
    assert {
        k.removeprefix("lpips_"): v for k, v in got.items() if k.startswith("lpips_") and k != "lpips_mode"
    } == lpips
    assert list(got)[3:9] == ["judge", "call", "tpl", "ref", "combine", "bg"]
    assert list(got)[-3:] == ["lpips_mode", "resize", "range"] and got["bg"] == "given"
