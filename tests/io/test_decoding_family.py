"""One decoding rule for every image metric and every judge metric.

The same picture as an 8-bit PNG, a 16-bit PNG, a 16-bit PGM, a float TIFF, a PIL ``I;16``
image, a uint16 array, a float tensor and a [-1, 1] float tensor (``input_range=(-1, 1)``,
scored against 8-bit references) gives the value of the uint8 picture in every registered
image metric, and the judge metrics send the judge exactly the 8-bit picture's pixels. The
tables are checked against :mod:`transcreval.core.registry`, so a new metric fails here until it is
added (and then inherits every check). Pictures hold multiples of 1/255, so every encoding
decodes to the same 8-bit pixels: "within quantisation" is exact here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from PIL import Image

from tests._helpers import model_weights as mw
from tests._helpers import random_weights as rw
from tests._helpers.comet_env import registry_params
from tests.judge.cases import answer
from transcreval.core.registry import list_metrics
from transcreval.engines.ocr.base import DetectorInfo, OCRResult, TextDetector
from transcreval.errors import InputError
from transcreval.judge import FunctionJudge

H, W = 48, 64
MM = "transcreval.multimodal.embedding_similarity."


def picture(seed: int) -> np.ndarray:
    """A seeded H x W uint8 grayscale picture with structure (gradient, a block, noise)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:H, 0:W]
    a = 60 + 50 * np.sin(xx / (4 + seed) + seed) + 40 * np.cos(yy / 5.0)
    y0, x0 = rng.integers(0, H // 2), rng.integers(0, W // 2)
    a[y0 : y0 + H // 3, x0 : x0 + W // 3] = rng.integers(150, 250)
    return np.clip(a + rng.normal(0, 12, a.shape), 0, 255).round().astype(np.uint8)


PREDS = [picture(1), picture(2)]
TARGET = [picture(3), picture(4)]


def encode(kind: str, a: np.ndarray, where: Path) -> Any:
    """The picture ``a`` (uint8) in one of the forms a user may hand a metric."""
    name = f"{kind}-{abs(hash(a.tobytes())) % 10**8}"
    if kind == "uint8":
        return a
    if kind == "png8":
        Image.fromarray(a).save(where / f"{name}.png")
        return str(where / f"{name}.png")
    if kind == "png16":  # PIL mode I;16
        Image.fromarray(a.astype(np.uint16) * 257).save(where / f"{name}.png")
        return where / f"{name}.png"
    if kind == "pgm16":  # PIL opens 16-bit PGM as mode I
        Image.fromarray(a.astype(np.uint16) * 257).save(where / f"{name}.pgm")
        return where / f"{name}.pgm"
    if kind == "tiff_float":  # PIL mode F
        Image.fromarray(a.astype(np.float32) / 255).save(where / f"{name}.tif")
        return where / f"{name}.tif"
    if kind == "pil_i16":
        return Image.fromarray(a.astype(np.uint16) * 257)
    if kind == "uint16":
        return a.astype(np.uint16) * 257
    if kind == "tensor_float":  # 1 x H x W, in a list: one image
        return torch.from_numpy(a.astype(np.float32) / 255)[None]
    if kind == "tensor_m11":  # scored with input_range=(-1, 1)
        return torch.from_numpy(a.astype(np.float32) / 127.5 - 1)[None].expand(3, -1, -1)
    raise KeyError(kind)


KINDS = ["png8", "png16", "pgm16", "tiff_float", "pil_i16", "uint16", "tensor_float", "tensor_m11"]


def options(kind: str) -> dict[str, Any]:
    return {"input_range": (-1, 1)} if kind == "tensor_m11" else {}


# ------------------------------------------------------------------ image metrics
class DarkBoxes(TextDetector):
    """A fake detector: one box around the pixels darker than 100, and a record of what it saw."""

    backend = "dark-boxes"

    def __init__(self) -> None:
        super().__init__(cache_size=0)
        self.seen: list[np.ndarray] = []

    def _detect_one(self, rgb: np.ndarray, recognize: bool) -> OCRResult:
        self.seen.append(rgb.copy())
        ys, xs = np.nonzero(rgb[..., 0] < 100)
        polys = ()
        if len(xs):
            x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
            polys = (np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32),)
        return OCRResult(polys, rgb.shape[:2], self.info_for(recognize))

    def _make_info(self, recognize: bool) -> DetectorInfo:
        return DetectorInfo("dark-boxes", "test 0", "", "dark", "0" * 64)


@functools.cache
def lpips_file() -> str:
    path = mw.weights_dir() / "inputs-family-lpips-alex.pth"
    if not path.exists():
        feats, lins = rw.features_only(rw.trunk_state("alex", seed=5)), rw.lin_state("alex", seed=6)
        torch.save(rw.lpips_layout_state("alex", feats, lins), path)
    return str(path)


MASK = np.ones((H, W), dtype=bool)
MASK[10:20, 8:40] = False  # a "text" band that does not count


def _pairs(m: Any, p: Any, t: Any) -> None:
    m.update(p, t)


def _masked(m: Any, p: Any, t: Any) -> None:
    m.update(p, t, mask=MASK)


def _build(cls_path: str, cached: str = "", **fixed: Any) -> Callable[..., Any]:
    """A factory ``make(cache, **options)``; ``cached`` names how the metric takes the feature
    cache ("features", "lpips": with cache_preds, "" none)."""

    def make(cache: Any, **opts: Any) -> Any:
        import importlib

        mod, _, name = cls_path.rpartition(".")
        cls = getattr(importlib.import_module(mod), name)
        kw = {k: v() if callable(v) else v for k, v in fixed.items()}
        if cached:
            kw["feature_cache"] = cache
        if cached == "lpips":
            kw["cache_preds"] = True
        return cls(**kw, **opts)

    return make


def _clip(cls_name: str, tiny: str) -> Callable[..., Any]:
    return lambda cache, **o: mw.clip_metric(MM + cls_name, tiny=tiny, feature_cache=cache, **o)


# name -> (factory(feature cache, **options), update(metric, preds, target)). Networks read their
# features through a content-keyed FeatureCache: every encoding that decodes to the very floats
# of the uint8 picture is served from it (so the checks stay cheap); any other pixels are not.
IMAGE_METRICS: dict[str, tuple[Callable[..., Any], Callable[..., None]]] = {
    "PHashDistance": (_build("transcreval.PHashDistance"), _pairs),
    "LPIPS": (_build("transcreval.LPIPS", "lpips", weights=lpips_file), _pairs),
    "MaskedLPIPS": (_build("transcreval.MaskedLPIPS", "lpips", weights=lpips_file), _masked),
    "BackgroundPreservation": (_build("transcreval.BackgroundPreservation", "lpips", weights=lpips_file), _masked),
    "FID": (_build("transcreval.FID", "features", weights=mw.inception_file), _pairs),
    "DINOv2Distance": (_build("transcreval.DINOv2Distance", "features", weights=mw.dinov2_file), _pairs),
    "CLIPSimilarity": (_clip("CLIPSimilarity", "clip"), _pairs),
    "VisualSimilarity": (_clip("VisualSimilarity", "siglip"), _pairs),
    "CulturalRelevanceDelta": (
        _clip("CulturalRelevanceDelta", "siglip"),
        lambda m, p, t: m.update(p, t, country="Japan"),
    ),
    "SemanticEquivalence": (_clip("SemanticEquivalence", "siglip"), lambda m, p, t: m.update(p, category="food")),
    "OCRMaskIoU": (lambda cache, **o: _build("transcreval.OCRMaskIoU")(cache, backend=DarkBoxes(), **o), _pairs),
}
IMAGE_DOMAINS = ("image", "multimodal", "ocr")


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    return tmp_path


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One content-keyed feature cache for the module: the uint8 pictures' features are computed once."""
    from transcreval.features import FeatureCache

    return FeatureCache(tmp_path_factory.mktemp("features") / "features.sqlite")


def test_every_registered_image_and_judge_metric_is_covered():
    images = {m.name for m in list_metrics() if m.domain in IMAGE_DOMAINS}
    judges = {m.name for m in list_metrics() if m.domain == "judge"}
    assert images == set(IMAGE_METRICS), "add the new image metric to IMAGE_METRICS: it must pass these checks"
    assert judges == set(JUDGE_METRICS), "add the new judge metric to JUDGE_METRICS: it must pass these checks"


#: the value is computed from the states; FID's Frechet distance of 2048-dim covariances costs
#: seconds, so its states (which fix the value) are compared instead
STATES_ONLY = {"FID"}


def outcome(name: str, m: Any) -> dict[str, torch.Tensor]:
    """What must agree: the metric's states, and its value (except for STATES_ONLY)."""
    out = {k: v.to(torch.float64) for k, v in m.state_dict().items() if isinstance(v, torch.Tensor)}
    if name not in STATES_ONLY:
        out["value"] = torch.tensor(float(m.compute().value), dtype=torch.float64)
    return out


def same(got: dict[str, torch.Tensor], want: dict[str, torch.Tensor]) -> bool:
    return got.keys() == want.keys() and all(
        torch.allclose(got[k], want[k], rtol=1e-5, atol=1e-5, equal_nan=True) for k in want
    )


def run_image_metric(name: str, kind: str, where: Path, cache: Any) -> tuple[dict[str, torch.Tensor], Any]:
    factory, update = IMAGE_METRICS[name]
    m = factory(cache, **options(kind))
    preds = [encode(kind, a, where) for a in PREDS]
    update(m, preds, list(TARGET))  # the references stay uint8 arrays
    return outcome(name, m), m


@pytest.mark.parametrize("name", sorted(IMAGE_METRICS))
def test_every_encoding_of_a_picture_gives_the_same_value(env, cache, name):
    want, _ = run_image_metric(name, "uint8", env, cache)
    for kind in KINDS:
        got, m = run_image_metric(name, kind, env, cache)
        assert same(got, want), f"{name}: {kind} gives {got.get('value')}, uint8 gives {want.get('value')}"
        if name == "OCRMaskIoU":  # the detector saw the 8-bit pixels themselves
            seen = m.detector.seen
            for a in PREDS:  # in any order: an update detects its outputs and references in one batch
                assert any(np.array_equal(s, np.repeat(a[..., None], 3, -1)) for s in seen), kind


# ------------------------------------------------------------------ judge metrics
def _judge(cls_name: str, **fixed: Any) -> Callable[..., Any]:
    def make(judge: Any, **opts: Any) -> Any:
        import transcreval

        return getattr(transcreval, cls_name)(judge=judge, **fixed, **opts)

    return make


def _imtbench_case(judge: Any, **opts: Any) -> Any:
    from tests.judge.cases import imtbench_metric

    return imtbench_metric(judge, **opts)


CTX = {"target_market": "Japan", "source_market": "USA", "genre": "drama"}
# name -> (factory(judge, **options), update arguments (positional, keywords) for outputs and sources)
JUDGE_METRICS: dict[str, tuple[Callable[..., Any], Callable[[list[Any], list[Any]], tuple[tuple[Any, ...], dict]]]] = {
    "TitleExtraction": (_judge("TitleExtraction"), lambda o, s: ((o, ["Parasite"] * len(o)), {})),
    "QuizHitRate": (
        _judge("QuizHitRate", labels=["drama", "comedy", "horror", "action"]),
        lambda o, s: ((o, ["drama"] * len(o)), {}),
    ),
    "JudgeScore": (_judge("JudgeScore"), lambda o, s: ((o, s), CTX)),
    "WinRate": (_judge("WinRate"), lambda o, s: ((o, s), CTX)),
    "MarketPreferenceRate": (_judge("MarketPreferenceRate"), lambda o, s: ((o, s), {"target_market": "Japan"})),
    "VLMTranscreationScore": (_judge("VLMTranscreationScore"), lambda o, s: ((o, s), {"country": "Japan"})),
    "CSIOverlap": (_judge("CSIOverlap"), lambda o, s: ((o, s), {"country": "Japan", "category": "food"})),
    "HarmonizationScore": (_judge("HarmonizationScore"), lambda o, s: ((o, s), {})),  # output beside I_tgt
    "AlignmentScore": (_judge("AlignmentScore"), lambda o, s: ((o, ["Sale"] * len(o)), {})),
    "JudgedPointScore": (_judge("JudgedPointScore"), lambda o, s: ((o, [["a title"]] * len(o)), {})),
    "JudgedStyleScore": (_judge("JudgedStyleScore"), lambda o, s: ((o, ["Memphis Style"] * len(o)), {})),
    "JudgedFontRichness": (_judge("JudgedFontRichness", vocabulary=["bold", "serif"]), lambda o, s: ((o,), {})),
    # needs comet (its cases run in `make test-comet`): its images reach LPIPS (S_bg) and the judge
    "IMTBenchScore": (
        lambda judge, **o: _imtbench_case(judge, **o),
        lambda o, s: ((o, s, ["Soldes"] * len(o), ["Soldes"] * len(o), ["Sale"] * len(o)), {}),
    ),
}


def sent_images(name: str, outputs: list[Any], sources: list[Any], **opts: Any) -> list[np.ndarray]:
    """The pixels of every image the judge was sent, in request order."""
    seen: list[np.ndarray] = []

    def respond(request: Any) -> str:
        seen.extend(np.asarray(p.image) for p in request.images)
        return answer(request)

    factory, args = JUDGE_METRICS[name]
    metric = factory(FunctionJudge(respond), **opts)
    pos, kw = args(outputs, sources)
    metric.update(*pos, **kw)
    return seen


def _as_path(x: Any) -> Any:
    return Path(x) if isinstance(x, str) else x


@pytest.mark.parametrize("name", registry_params(sorted(JUDGE_METRICS)))
def test_judges_are_sent_the_8bit_pixels_whatever_the_encoding(tmp_path, name):
    want = sent_images(name, list(PREDS), list(TARGET))
    pictures = {a.tobytes() for a in (*PREDS, *TARGET)}
    assert want and all(s.shape == (H, W, 3) and s[..., 0].tobytes() in pictures for s in want)
    for kind in KINDS:
        # str paths as Path: what a string means to each judge metric is tested with the judges
        outs = [_as_path(encode(kind, a, tmp_path)) for a in PREDS]
        srcs = [_as_path(encode(kind, a, tmp_path)) for a in TARGET]
        got = sent_images(name, outs, srcs, **options(kind))
        assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(got, want)), f"{name}: {kind}"


@pytest.mark.parametrize("name", registry_params(sorted(JUDGE_METRICS)))
def test_judges_take_float_images_in_minus_one_to_one(tmp_path, name):
    """Item 12: the range the error message advises is accepted, at construction, by every judge metric."""
    floats = [torch.from_numpy(a.astype(np.float32) / 127.5 - 1)[None].expand(3, -1, -1) for a in PREDS]
    with pytest.raises(InputError, match=r"input_range=\(-1, 1\)"):
        sent_images(name, floats, list(TARGET))
    got = sent_images(name, floats, list(TARGET), input_range=(-1, 1))
    assert all(np.array_equal(a, b) for a, b in zip(got, sent_images(name, list(PREDS), list(TARGET))))
    with pytest.raises(InputError, match="input_range"):
        JUDGE_METRICS[name][0](FunctionJudge(answer), input_range=(1, -1))


# ------------------------------------------------------------------ item 31: N x H x W
def _gray_stack(n: int = 2) -> np.ndarray:
    return np.stack(PREDS[:n]).astype(np.float32) / 255  # N x H x W


@pytest.mark.parametrize("name", sorted(IMAGE_METRICS))
def test_a_3d_grayscale_batch_is_never_read_as_one_image(env, cache, name):
    factory, update = IMAGE_METRICS[name]
    batch, refs = _gray_stack(), np.stack(TARGET).astype(np.float32) / 255
    for x, y in ((batch, refs), (torch.from_numpy(batch), torch.from_numpy(refs))):
        with pytest.raises(InputError, match=r"ambiguous.*x\[:, None\]"):
            update(factory(cache), x, y)
    # the unambiguous spellings agree with a list of the grayscale images, and with uint8
    want, _ = run_image_metric(name, "uint8", env, cache)
    for x, y in ((list(batch), list(refs)), (torch.from_numpy(batch)[:, None], torch.from_numpy(refs)[:, None])):
        m = factory(cache)
        update(m, x, y)
        assert same(outcome(name, m), want)


@pytest.mark.parametrize("name", registry_params(sorted(JUDGE_METRICS)))
def test_judges_refuse_a_3d_grayscale_batch_too(name):
    batch = torch.from_numpy(_gray_stack())
    with pytest.raises(InputError, match=r"ambiguous|list of posters|list with one entry per poster"):
        sent_images(name, batch, list(TARGET))
    got, want = sent_images(name, list(batch[:, None]), list(TARGET)), sent_images(name, list(PREDS), list(TARGET))
    assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(got, want))
