"""The ``paddleocr`` backend at its boundary: a stand-in ``paddleocr`` module returns result
objects in PaddleX 3.x's layout (tests/data/paddleocr_results.json); no paddle install needed.

What is checked is everything on our side of the boundary: the arguments we pass (model names
and directories, PP-OCRv5 detection defaults, unwarping and orientation off, BGR pixels), how
results are read (int16 polygons, nested ``json['res']`` results, rec_* fields), the recorded
identity (versions, SHA-256 of the weights), model-directory checks and offline behaviour.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests._helpers.text_images import render
from transcreval.errors import InputError, MissingDependencyError
from transcreval.ocr.masks import polygons_to_mask, result_mask
from transcreval.ocr.paddle import PADDLE_DET_DEFAULTS, PaddleOCRDetector

RECORDED = json.loads((Path(__file__).parent / "data" / "paddleocr_results.json").read_text())


class _Result(dict):
    """PaddleX results are dicts with a ``json`` view of the form {"res": {...}}."""

    @property
    def json(self) -> dict[str, Any]:
        return {"res": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in self.items()}}


def _textdet_result(inp: np.ndarray) -> _Result:
    r = dict(RECORDED["text_detection"])
    r["dt_polys"] = np.asarray(r["dt_polys"], dtype=np.int16)
    r["input_img"] = inp
    return _Result(r)


def _ocr_result() -> _Result:
    r = dict(RECORDED["ocr_pipeline"])
    r["rec_polys"] = [np.asarray(p, dtype=np.int16) for p in r["rec_polys"]]
    r["dt_polys"] = [np.asarray(p, dtype=np.int16) for p in r["dt_polys"]]
    return _Result(r)


@pytest.fixture
def fake_paddle(monkeypatch):
    calls: dict[str, list[Any]] = {"det_init": [], "det_predict": [], "ocr_init": [], "ocr_predict": []}

    class TextDetection:
        def __init__(self, **kwargs: Any) -> None:
            calls["det_init"].append(kwargs)

        def predict(self, inp: Any, batch_size: int = 1) -> Any:
            calls["det_predict"].append((inp, batch_size))
            yield _textdet_result(inp)

    class PaddleOCR:
        def __init__(self, **kwargs: Any) -> None:
            calls["ocr_init"].append(kwargs)

        def predict(self, inp: Any) -> list[Any]:
            calls["ocr_predict"].append(inp)
            return [_ocr_result()]

    mod = types.ModuleType("paddleocr")
    mod.__spec__ = importlib.machinery.ModuleSpec("paddleocr", None)
    mod.TextDetection = TextDetection  # type: ignore[attr-defined]
    mod.PaddleOCR = PaddleOCR  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "paddleocr", mod)
    monkeypatch.delenv("PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK", raising=False)
    return calls


@pytest.fixture
def model_dirs(tmp_path):
    out = {}
    for name in ("det", "rec"):
        d = tmp_path / f"PP-OCRv5_server_{name}"
        d.mkdir()
        (d / "inference.yml").write_text(f"Global:\n  model_name: PP-OCRv5_server_{name}\n")
        (d / "inference.json").write_text("{}")
        (d / "inference.pdiparams").write_bytes(f"weights of {name}".encode())
        out[name] = d
    return out


def _image():
    spec = RECORDED["image"]
    return render(spec["text"], spec["script"], font_px=spec["font_px"], size=tuple(spec["size"])).image


def test_detection_passes_the_papers_settings_and_reads_int16_polygons(fake_paddle, model_dirs):
    det = PaddleOCRDetector(det_model_dir=model_dirs["det"])
    img = _image()
    (res,) = det.detect(img)
    (kw,) = fake_paddle["det_init"]
    assert kw == {"model_name": "PP-OCRv5_server_det", "model_dir": str(model_dirs["det"]), "device": "cpu",
                  **PADDLE_DET_DEFAULTS}  # fmt: skip
    assert kw["limit_side_len"] == 64 and kw["box_thresh"] == 0.6 and kw["unclip_ratio"] == 1.5
    ((inp, batch),) = fake_paddle["det_predict"]
    assert batch == 1 and inp.dtype == np.uint8 and inp.shape == (320, 640, 3)
    np.testing.assert_array_equal(inp, np.asarray(img)[..., ::-1])  # BGR, as PaddleX reads arrays
    want = np.asarray(RECORDED["text_detection"]["dt_polys"], dtype=np.float32)
    assert res.image_size == (320, 640) and res.texts is None
    np.testing.assert_array_equal(np.stack(res.polygons), want)
    assert res.polygons[0].dtype == np.float32
    np.testing.assert_array_equal(result_mask(res), polygons_to_mask(list(want), (320, 640)))
    import os

    assert os.environ.get("PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK") == "True"  # no hoster probing with local files


def test_recognition_turns_unwarping_and_orientation_off(fake_paddle, model_dirs):
    det = PaddleOCRDetector(det_model_dir=model_dirs["det"], rec_model_dir=model_dirs["rec"], text_score=0.2)
    (res,) = det.detect(_image(), recognize=True)
    (kw,) = fake_paddle["ocr_init"]
    assert kw["use_doc_orientation_classify"] is False
    assert kw["use_doc_unwarping"] is False
    assert kw["use_textline_orientation"] is False
    assert kw["text_detection_model_name"] == "PP-OCRv5_server_det"
    assert kw["text_recognition_model_name"] == "PP-OCRv5_server_rec"
    assert kw["text_recognition_model_dir"] == str(model_dirs["rec"])
    assert kw["text_det_limit_side_len"] == 64 and kw["text_det_limit_type"] == "min"
    assert kw["text_det_box_thresh"] == 0.6 and kw["text_det_unclip_ratio"] == 1.5 and kw["text_det_thresh"] == 0.3
    assert kw["text_rec_score_thresh"] == 0.2
    rec = RECORDED["ocr_pipeline"]
    assert res.texts == tuple(rec["rec_texts"]) and res.scores == tuple(rec["rec_scores"])
    np.testing.assert_array_equal(np.stack(res.polygons), np.asarray(rec["rec_polys"], dtype=np.float32))


def test_identity_records_versions_weights_hash_and_params(fake_paddle, model_dirs):
    det = PaddleOCRDetector(
        det_model_dir=model_dirs["det"], rec_model_dir=model_dirs["rec"], params={"box_thresh": 0.5}
    )
    info = det.info_for(False)
    assert info.backend == "paddleocr" and info.det_model == "PP-OCRv5_server_det"
    assert info.package.startswith("paddleocr ") and info.runtime.startswith("paddlepaddle ")
    assert info.det_sha256 == hashlib.sha256(b"weights of det").hexdigest()
    params = dict(info.det_params)
    assert params["box_thresh"] == 0.5 and params["limit_side_len"] == 64
    assert params["doc_unwarping"] is False and params["doc_orientation"] is False
    rec = det.info_for(True)
    assert rec.rec_sha256 == hashlib.sha256(b"weights of rec").hexdigest() and rec.rec_model == "PP-OCRv5_server_rec"
    (res,) = det.detect(_image())
    assert res.detector == info


def test_results_nested_under_json_res_are_read(fake_paddle, model_dirs, monkeypatch):
    """Some PaddleX versions expose fields only through ``result.json['res']``."""

    class Opaque:
        def __init__(self, inner: dict[str, Any]) -> None:
            self.json = {"res": inner}

        def __getitem__(self, key: str) -> Any:
            raise KeyError(key)

    mod = sys.modules["paddleocr"]

    class TextDetection:
        def __init__(self, **kwargs: Any) -> None:
            pass

        def predict(self, inp: Any, batch_size: int = 1) -> list[Any]:
            return [Opaque({"dt_polys": RECORDED["text_detection"]["dt_polys"], "dt_scores": [0.9]})]

    monkeypatch.setattr(mod, "TextDetection", TextDetection)
    (res,) = PaddleOCRDetector(det_model_dir=model_dirs["det"]).detect(_image())
    assert len(res.polygons) == 1


def test_inconsistent_recognition_results_raise(fake_paddle, model_dirs, monkeypatch):
    mod = sys.modules["paddleocr"]

    class PaddleOCR:
        def __init__(self, **kwargs: Any) -> None:
            pass

        def predict(self, inp: Any) -> list[Any]:
            r = _ocr_result()
            r["rec_texts"] = ["a", "b"]
            return [r]

    monkeypatch.setattr(mod, "PaddleOCR", PaddleOCR)
    det = PaddleOCRDetector(det_model_dir=model_dirs["det"], rec_model_dir=model_dirs["rec"])
    with pytest.raises(RuntimeError, match="2 texts"):
        det.detect(_image(), recognize=True)


def test_thin_images_are_padded_and_polygons_clipped(fake_paddle, model_dirs):
    det = PaddleOCRDetector(det_model_dir=model_dirs["det"])
    (res,) = det.detect(np.full((10, 200, 3), 255, np.uint8))
    ((inp, _),) = fake_paddle["det_predict"]
    assert inp.shape[0] >= 32 and inp.shape[1] == 200
    assert res.image_size == (10, 200)
    for p in res.polygons:
        assert p[:, 1].max() <= 10 and p[:, 0].max() <= 200


def test_model_dir_checks_and_offline_downloads(fake_paddle, tmp_path, monkeypatch):
    with pytest.raises(InputError, match="no such directory"):
        PaddleOCRDetector(det_model_dir=tmp_path / "nope")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match=r"missing inference\.yml, inference\.pdiparams, inference\.json"):
        PaddleOCRDetector(det_model_dir=empty)
    with pytest.raises(InputError, match="unknown paddleocr detection parameters"):
        PaddleOCRDetector(params={"box_threshold": 0.5})
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    det = PaddleOCRDetector()  # no local model: PaddleOCR would download it
    with pytest.raises(FileNotFoundError, match="det_model_dir"):
        det.detect(_image())
    assert fake_paddle["det_init"] == []


def test_missing_paddleocr_names_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "paddleocr" else real(n, *a))
    with pytest.raises(MissingDependencyError, match=r"transcreval\[paddle\]"):
        PaddleOCRDetector()


def test_paddle_detector_is_reachable_by_name_and_pickles(fake_paddle, model_dirs):
    import pickle

    from transcreval.ocr import get_detector

    det = get_detector("paddleocr", det_model_dir=str(model_dirs["det"]))
    assert isinstance(det, PaddleOCRDetector)
    det.detect(_image())
    clone = pickle.loads(pickle.dumps(det))
    assert clone._det is None  # the loaded model stays behind; it is rebuilt lazily
    (res,) = clone.detect(_image())
    assert len(res.polygons) == 1
