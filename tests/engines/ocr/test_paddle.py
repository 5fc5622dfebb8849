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
import os
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests._helpers.text_images import render
from transcreval.engines.ocr.masks import polygons_to_mask, result_mask
from transcreval.engines.ocr.paddle import PADDLE_DET_DEFAULTS, PaddleOCRDetector
from transcreval.errors import InputError, MissingDependencyError

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


# Stand-ins for paddleocr's two entry points with the *explicit* keyword signatures of
# PaddleOCR 3.x (paddleocr/_models/text_detection.py with _text_detection.TextDetectionMixin,
# paddleocr/_pipelines/ocr.py, and the common inference options of paddleocr/_common_args.py:
# device, enable_hpi, use_tensorrt, precision, enable_mkldnn, mkldnn_cache_capacity,
# cpu_threads, enable_cinn). No **kwargs: a misspelled or renamed argument is a TypeError here,
# as PaddleOCR itself raises on unknown options. max_side_limit / text_det_max_side_limit are
# PaddleOCR >= 3.1 additions. A live recording from PaddleOCR is still owed (see the data file).
CALLS: dict[str, list[Any]] = {}


def _given(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k != "self" and v is not None}


class TextDetection:
    def __init__(
        self,
        *,
        model_name: str | None = None,
        model_dir: str | None = None,
        limit_side_len: int | None = None,
        limit_type: str | None = None,
        max_side_limit: int | None = None,
        thresh: float | None = None,
        box_thresh: float | None = None,
        unclip_ratio: float | None = None,
        input_shape: tuple[int, int, int] | None = None,
        device: str | None = None,
        enable_hpi: bool | None = None,
        use_tensorrt: bool | None = None,
        precision: str | None = None,
        enable_mkldnn: bool | None = None,
        mkldnn_cache_capacity: int | None = None,
        cpu_threads: int | None = None,
        enable_cinn: bool | None = None,
    ) -> None:
        CALLS["det_init"].append(_given(locals()))
        CALLS["env_at_init"].append(os.environ.get("PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK"))

    def predict(
        self,
        input: Any,
        *,
        batch_size: int = 1,
        limit_side_len: int | None = None,
        limit_type: str | None = None,
        max_side_limit: int | None = None,
        thresh: float | None = None,
        box_thresh: float | None = None,
        unclip_ratio: float | None = None,
    ) -> Any:
        CALLS["det_predict"].append((input, batch_size))
        yield _textdet_result(input)


class PaddleOCR:
    def __init__(
        self,
        doc_orientation_classify_model_name: str | None = None,
        doc_orientation_classify_model_dir: str | None = None,
        doc_unwarping_model_name: str | None = None,
        doc_unwarping_model_dir: str | None = None,
        text_detection_model_name: str | None = None,
        text_detection_model_dir: str | None = None,
        textline_orientation_model_name: str | None = None,
        textline_orientation_model_dir: str | None = None,
        textline_orientation_batch_size: int | None = None,
        text_recognition_model_name: str | None = None,
        text_recognition_model_dir: str | None = None,
        text_recognition_batch_size: int | None = None,
        use_doc_orientation_classify: bool | None = None,
        use_doc_unwarping: bool | None = None,
        use_textline_orientation: bool | None = None,
        text_det_limit_side_len: int | None = None,
        text_det_limit_type: str | None = None,
        text_det_max_side_limit: int | None = None,
        text_det_thresh: float | None = None,
        text_det_box_thresh: float | None = None,
        text_det_unclip_ratio: float | None = None,
        text_det_input_shape: tuple[int, int, int] | None = None,
        text_rec_score_thresh: float | None = None,
        return_word_box: bool | None = None,
        text_rec_input_shape: tuple[int, int, int] | None = None,
        lang: str | None = None,
        ocr_version: str | None = None,
        *,
        paddlex_config: Any = None,
        device: str | None = None,
        enable_hpi: bool | None = None,
        use_tensorrt: bool | None = None,
        precision: str | None = None,
        enable_mkldnn: bool | None = None,
        mkldnn_cache_capacity: int | None = None,
        cpu_threads: int | None = None,
        enable_cinn: bool | None = None,
    ) -> None:
        CALLS["ocr_init"].append(_given(locals()))
        CALLS["env_at_init"].append(os.environ.get("PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK"))

    def predict(
        self,
        input: Any,
        *,
        use_doc_orientation_classify: bool | None = None,
        use_doc_unwarping: bool | None = None,
        use_textline_orientation: bool | None = None,
        text_det_limit_side_len: int | None = None,
        text_det_limit_type: str | None = None,
        text_det_max_side_limit: int | None = None,
        text_det_thresh: float | None = None,
        text_det_box_thresh: float | None = None,
        text_det_unclip_ratio: float | None = None,
        text_rec_score_thresh: float | None = None,
        return_word_box: bool | None = None,
    ) -> list[Any]:
        CALLS["ocr_predict"].append(input)
        return [_ocr_result()]


@pytest.fixture
def fake_paddle(monkeypatch):
    CALLS.clear()
    CALLS.update({"det_init": [], "det_predict": [], "ocr_init": [], "ocr_predict": [], "env_at_init": []})
    mod = types.ModuleType("paddleocr")
    mod.__spec__ = importlib.machinery.ModuleSpec("paddleocr", None)
    mod.TextDetection = TextDetection  # type: ignore[attr-defined]
    mod.PaddleOCR = PaddleOCR  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "paddleocr", mod)
    monkeypatch.delenv("PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK", raising=False)
    return CALLS


def test_the_stand_ins_refuse_arguments_paddleocr_does_not_take():
    import inspect

    for fn in (TextDetection.__init__, TextDetection.predict, PaddleOCR.__init__, PaddleOCR.predict):
        kinds = {p.kind for p in inspect.signature(fn).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, fn
    CALLS.update({"det_init": [], "ocr_init": [], "env_at_init": []})
    with pytest.raises(TypeError, match="box_threshold"):
        TextDetection(box_threshold=0.6)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="use_doc_unwarp"):
        PaddleOCR(use_doc_unwarp=False)  # type: ignore[call-arg]


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
    # no hoster probing while a local model is built, and the user's environment is left as it was
    assert fake_paddle["env_at_init"] == ["True"]
    assert "PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK" not in os.environ


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

    class NestedTextDetection(TextDetection):
        def predict(self, input: Any, *, batch_size: int = 1, **_: Any) -> Any:
            return [Opaque({"dt_polys": RECORDED["text_detection"]["dt_polys"], "dt_scores": [0.9]})]

    monkeypatch.setattr(mod, "TextDetection", NestedTextDetection)
    (res,) = PaddleOCRDetector(det_model_dir=model_dirs["det"]).detect(_image())
    assert len(res.polygons) == 1


def test_inconsistent_recognition_results_raise(fake_paddle, model_dirs, monkeypatch):
    mod = sys.modules["paddleocr"]

    class BadPaddleOCR(PaddleOCR):
        def predict(self, input: Any, **_: Any) -> list[Any]:
            r = _ocr_result()
            r["rec_texts"] = ["a", "b"]
            return [r]

    monkeypatch.setattr(mod, "PaddleOCR", BadPaddleOCR)
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


def test_an_unhashed_model_is_hashed_once_paddlex_has_downloaded_it(fake_paddle, tmp_path, monkeypatch):
    """Review 10, item 8: the signature read before the download must not pin "unhashed" for the run,
    and the model is looked for where PaddleX keeps it (PADDLE_PDX_CACHE_HOME)."""
    monkeypatch.setenv("PADDLE_PDX_CACHE_HOME", str(tmp_path / "pdx"))
    monkeypatch.delenv("TRANSCREVAL_OFFLINE", raising=False)  # the stand-in downloads nothing
    det = PaddleOCRDetector()  # no local directory: PaddleOCR downloads on first use
    assert det.info_for(False).det_sha256 == ""
    assert det.info.signature_options()["det"].endswith("@unhashed")
    d = tmp_path / "pdx" / "official_models" / "PP-OCRv5_server_det"
    d.mkdir(parents=True)  # what PaddleX's download leaves behind
    (d / "inference.pdiparams").write_bytes(b"downloaded weights")
    (res,) = det.detect(_image())
    want = hashlib.sha256(b"downloaded weights").hexdigest()
    assert res.detector.det_sha256 == want and det.info_for(False).det_sha256 == want
    assert fake_paddle["env_at_init"] == [None]  # a download: PaddleX may probe its hosters


def test_identity_records_padding_and_max_side_limit(fake_paddle, model_dirs):
    """Review 10, item 12: what ran is recorded, our padding and PaddleX's max side included."""
    params = dict(PaddleOCRDetector(det_model_dir=model_dirs["det"]).info_for(False).det_params)
    assert params["pad"] == "32px,1:16" and params["max_side_limit"] == "paddlex-default"
    det = PaddleOCRDetector(
        det_model_dir=model_dirs["det"], rec_model_dir=model_dirs["rec"], params={"max_side_limit": 2000}
    )
    assert dict(det.info_for(False).det_params)["max_side_limit"] == 2000
    det.detect(_image())
    det.detect(_image(), recognize=True)
    assert fake_paddle["det_init"][-1]["max_side_limit"] == 2000
    assert fake_paddle["ocr_init"][-1]["text_det_max_side_limit"] == 2000
    assert "PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK" not in os.environ


def test_boxes_on_flat_colour_are_dropped_and_counted(fake_paddle, model_dirs):
    """The family rule of the rapidocr backends: the stand-in returns its recorded
    text boxes for any image; on a plain image they cover no texture, so they are dropped and
    counted, with and without recognition; on the recorded text image they are all kept."""
    det = PaddleOCRDetector(det_model_dir=model_dirs["det"], rec_model_dir=model_dirs["rec"], text_score=0.2)
    plain = np.full((320, 640, 3), (200, 30, 30), np.uint8)
    (res,) = det.detect(plain)
    want = len(RECORDED["text_detection"]["dt_polys"])
    assert res.polygons == () and res.n_flat_dropped == want
    (rec,) = det.detect(plain, recognize=True)
    assert rec.polygons == () and rec.texts == () and rec.n_flat_dropped == len(RECORDED["ocr_pipeline"]["rec_texts"])
    (text,) = det.detect(_image())
    assert len(text) == want and text.n_flat_dropped == 0
    assert dict(det.info.det_params)["flat_step"] == 8
