"""The ``"paddleocr"`` backend: PaddleOCR 3.x with the PP-OCRv5 server detector.

MPTc-Bench (App. B.5) extracts text polygons with PP-OCRv5; PaddleOCR's PP-OCRv5 default is
the *server* detector, which no PyPI wheel ships. This backend runs it through the
``paddleocr`` package (``pip install 'transcreval[paddle]'``, about 1.4 GB with paddlepaddle).
Give a local model directory (``det_model_dir=``, holding ``inference.yml`` and
``inference.pdiparams`` plus ``inference.json`` or ``inference.pdmodel``), or let PaddleOCR
download the model on a connected machine (into PaddleX's cache,
``$PADDLE_PDX_CACHE_HOME/official_models``, by default ``~/.paddlex/official_models``).

When every model is local, PaddleX's probe of its model hosters is turned off through the
``PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK`` environment variable (it would fail offline). The
variable is set only while ``paddleocr`` is imported and the model is built, then restored;
PaddleX reads it when it is first imported, so if that import happens here, PaddleX keeps the
check off for the rest of the process. Set the variable yourself to choose.

Geometry-changing steps are off: document orientation classification, document unwarping
(UVDoc) and text-line orientation, so polygons stay in the input image's coordinates.
Detection parameters are passed explicitly (PaddleOCR's PP-OCRv5 defaults unless changed),
so the result records what ran.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from transcreval.engines.ocr.detector import (
    DetectorInfo,
    OCRResult,
    TextDetector,
    file_sha256,
)
from transcreval.engines.ocr.flat import FLAT_STEP, result_without_flat
from transcreval.engines.ocr.rapid import (  # PADDLE_DET_DEFAULTS: the paddle backend's detection parameters
    MAX_ASPECT,
    MIN_SIDE,
    PADDLE_DET_DEFAULTS,
    clip_polygons,
    pad_for_detection,
)
from transcreval.errors import InputError, MissingDependencyError

_MODEL_FILES = ("inference.yml", "inference.pdiparams")
#: Accepted in ``params`` and passed on only when given (PaddleOCR >= 3.1 takes it; PaddleX's
#: own default applies otherwise and is recorded as "paddlex-default").
PADDLE_DET_OPTIONAL = ("max_side_limit",)
_SOURCE_CHECK = "PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK"


def paddlex_models_dir() -> Path:
    """Where PaddleX keeps downloaded official models: ``$PADDLE_PDX_CACHE_HOME/official_models``
    (PaddleX's default cache home is ``~/.paddlex``)."""
    home = os.environ.get("PADDLE_PDX_CACHE_HOME") or str(Path.home() / ".paddlex")
    return Path(home).expanduser() / "official_models"


@contextlib.contextmanager
def _no_source_check(local: bool) -> Iterator[None]:
    """Turn PaddleX's model-hoster probe off while building models that are all local (restored after)."""
    if not local or _SOURCE_CHECK in os.environ:
        yield
        return
    os.environ[_SOURCE_CHECK] = "True"
    try:
        yield
    finally:
        os.environ.pop(_SOURCE_CHECK, None)


def check_model_dir(path: str | os.PathLike[str] | None, what: str) -> str | None:
    """A Paddle inference-model directory, checked for its files; ``None`` passes through."""
    if path is None:
        return None
    p = Path(path)
    if not p.is_dir():
        raise InputError(f"{what}={os.fspath(path)!r}: no such directory")
    missing = [f for f in _MODEL_FILES if not (p / f).is_file()]
    if not ((p / "inference.json").is_file() or (p / "inference.pdmodel").is_file()):
        missing.append("inference.json (or inference.pdmodel)")
    if missing:
        raise InputError(
            f"{what}={os.fspath(path)!r} is not a Paddle inference model directory: missing {', '.join(missing)}"
        )
    return os.fspath(p)


def _first(results: Any) -> Any:
    """The single result of a ``predict`` call on one image (a list or a generator)."""
    for r in results:
        return r
    raise RuntimeError("paddleocr returned no result for the image")


def _get(res: Any, key: str) -> Any:
    """A field of a PaddleX result object (dict-like; some versions nest it under 'res')."""
    try:
        return res[key]
    except (KeyError, TypeError):
        pass
    inner = getattr(res, "json", None)
    if isinstance(inner, dict):
        inner = inner.get("res", inner)
        if key in inner:
            return inner[key]
    raise KeyError(f"paddleocr result has no field {key!r}")


class PaddleOCRDetector(TextDetector):
    """Text detection (and recognition) with PaddleOCR 3.x, PP-OCRv5 server models by default.

    Args:
        det_model_name: PaddleOCR detection model name (``"PP-OCRv5_server_det"``).
        det_model_dir: a local directory with that model (no download when given).
        rec_model_name / rec_model_dir: the recognition model, used when recognising.
        params: detection parameters by PaddleOCR's names (limit_side_len, limit_type,
            thresh, box_thresh, unclip_ratio; max_side_limit, PaddleOCR >= 3.1); the rest keep
            PaddleOCR's PP-OCRv5 defaults (max_side_limit: PaddleX's own, recorded as
            "paddlex-default"). The signature also records our padding of tiny images (``pad``).
        text_score: with recognition, drop lines below this recognition score (PaddleOCR's
            ``text_rec_score_thresh``, default 0.0).
        device: ``"cpu"`` (default), ``"gpu"``, ``"gpu:0"`` ...
        recognize / cache_size: see :class:`~transcreval.engines.ocr.base.TextDetector`.
    """

    backend = "paddleocr"

    def __init__(
        self,
        *,
        det_model_name: str = "PP-OCRv5_server_det",
        det_model_dir: str | os.PathLike[str] | None = None,
        rec_model_name: str = "PP-OCRv5_server_rec",
        rec_model_dir: str | os.PathLike[str] | None = None,
        params: dict[str, Any] | None = None,
        text_score: float = 0.0,
        device: str = "cpu",
        recognize: bool = False,
        cache_size: int = 256,
    ) -> None:
        super().__init__(recognize=recognize, cache_size=cache_size)
        if importlib.util.find_spec("paddleocr") is None:
            raise MissingDependencyError("the 'paddleocr' OCR backend", "paddleocr", "paddle")
        known = set(PADDLE_DET_DEFAULTS) | set(PADDLE_DET_OPTIONAL)
        unknown = set(params or {}) - known
        if unknown:
            raise InputError(f"unknown paddleocr detection parameters {sorted(unknown)}; known: {sorted(known)}")
        if not 0.0 <= float(text_score) <= 1.0:
            raise InputError(f"text_score must lie in [0, 1], got {text_score}")
        self.det_model_name = det_model_name
        self.det_model_dir = check_model_dir(det_model_dir, "det_model_dir")
        self.rec_model_name = rec_model_name
        self.rec_model_dir = check_model_dir(rec_model_dir, "rec_model_dir")
        self.det_params = {**PADDLE_DET_DEFAULTS, **(params or {})}
        self.text_score = float(text_score)
        self.device = device
        self._det: Any = None
        self._pipeline: Any = None

    def _unpicklable(self) -> tuple[str, ...]:
        return ("_det", "_pipeline")

    def _check_download_allowed(self, name: str, model_dir: str | None) -> None:
        if model_dir is None and os.environ.get("TRANSCREVAL_OFFLINE") == "1":
            raise FileNotFoundError(
                f"paddleocr model {name} has no local directory and TRANSCREVAL_OFFLINE=1 forbids downloading it; "
                f"pass its directory ({name.split('_')[-1]}_model_dir=...), or unset TRANSCREVAL_OFFLINE on a "
                f"connected machine (PaddleOCR saves models under {paddlex_models_dir()})"
            )

    def _detector(self) -> Any:
        if self._det is None:
            self._check_download_allowed(self.det_model_name, self.det_model_dir)
            with _no_source_check(self.det_model_dir is not None):
                from paddleocr import TextDetection

                self._det = TextDetection(
                    model_name=self.det_model_name, model_dir=self.det_model_dir, device=self.device, **self.det_params
                )
        return self._det

    def _ocr_pipeline(self) -> Any:
        if self._pipeline is None:
            self._check_download_allowed(self.det_model_name, self.det_model_dir)
            self._check_download_allowed(self.rec_model_name, self.rec_model_dir)
            p = self.det_params
            extra = {"text_det_max_side_limit": p["max_side_limit"]} if "max_side_limit" in p else {}
            with _no_source_check(self.det_model_dir is not None and self.rec_model_dir is not None):
                from paddleocr import PaddleOCR

                self._pipeline = PaddleOCR(
                    text_detection_model_name=self.det_model_name,
                    text_detection_model_dir=self.det_model_dir,
                    text_recognition_model_name=self.rec_model_name,
                    text_recognition_model_dir=self.rec_model_dir,
                    use_doc_orientation_classify=False,
                    use_doc_unwarping=False,
                    use_textline_orientation=False,
                    device=self.device,
                    text_det_limit_side_len=p["limit_side_len"],
                    text_det_limit_type=p["limit_type"],
                    text_det_thresh=p["thresh"],
                    text_det_box_thresh=p["box_thresh"],
                    text_det_unclip_ratio=p["unclip_ratio"],
                    text_rec_score_thresh=self.text_score,
                    **extra,
                )
        return self._pipeline

    def _weights_hash(self, name: str, model_dir: str | None) -> str:
        """SHA-256 of the model's weights where PaddleX keeps them, or "" while they are not there yet.

        The directory is the one given, else the one the loaded PaddleX predictor reports, else
        PaddleX's cache (:func:`paddlex_models_dir`). An empty hash is never cached
        (see :meth:`TextDetector.info_for`): it is looked up again once the model is downloaded.
        """
        if model_dir:
            d = Path(model_dir)
        else:
            loaded = getattr(getattr(self._det, "paddlex_predictor", None), "model_dir", None)
            d = Path(loaded) if loaded and name == self.det_model_name else paddlex_models_dir() / name
        f = d / "inference.pdiparams"
        return file_sha256(f) if f.is_file() else ""

    def _make_info(self, recognize: bool) -> DetectorInfo:
        params: dict[str, Any] = {"max_side_limit": "paddlex-default", **self.det_params}
        params.update(doc_orientation=False, doc_unwarping=False, textline_orientation=False)
        params["pad"] = f"{MIN_SIDE}px,1:{MAX_ASPECT}"  # pad_for_detection, as the rapidocr backends record
        params["flat_step"] = FLAT_STEP  # boxes on flat colour dropped, as the rapidocr backends do
        if recognize:
            params["text_score"] = self.text_score
        return DetectorInfo.of_run(
            self.backend,
            package="paddleocr",
            runtime="paddlepaddle",
            det_model=self.det_model_name,
            det_sha256=self._weights_hash(self.det_model_name, self.det_model_dir),
            params=params,
            rec_model=self.rec_model_name if recognize else "",
            rec_sha256=self._weights_hash(self.rec_model_name, self.rec_model_dir) if recognize else "",
        )

    def _detect_one(self, rgb: np.ndarray, recognize: bool) -> OCRResult:
        padded, (h, w) = pad_for_detection(rgb)
        bgr = np.ascontiguousarray(padded[..., ::-1])  # PaddleX takes arrays as BGR, as OpenCV reads them
        if not recognize:
            res = _first(self._detector().predict(bgr, batch_size=1))
            return result_without_flat(
                rgb, clip_polygons(_as_polys(_get(res, "dt_polys")), h, w), (h, w), self.info_for(False)
            )
        res = _first(self._ocr_pipeline().predict(bgr))
        texts, scores = list(_get(res, "rec_texts")), list(_get(res, "rec_scores"))
        raw = _as_polys(_get(res, "rec_polys"))
        if len(raw) != len(texts) or len(texts) != len(scores):
            raise RuntimeError(
                f"paddleocr returned {len(raw)} polygons, {len(texts)} texts and {len(scores)} scores for one image"
            )
        keep_p, keep_t, keep_s = [], [], []
        for poly, txt, sc in zip(raw, texts, scores):
            clipped = clip_polygons([poly], h, w)
            if clipped:
                keep_p.append(clipped[0])
                keep_t.append(str(txt))
                keep_s.append(float(sc))
        return result_without_flat(rgb, keep_p, (h, w), self.info_for(True), keep_t, keep_s)


def _as_polys(raw: Any) -> list[np.ndarray]:
    """PaddleX polygons (an int16 (N, 4, 2) array, or a list of (K, 2) arrays) as float32 arrays."""
    if raw is None:
        return []
    if isinstance(raw, np.ndarray) and raw.ndim == 3:
        return [p.astype(np.float32) for p in raw]
    out = []
    for p in raw:
        a = np.asarray(p, dtype=np.float32)
        if a.ndim != 2 or a.shape[1] != 2:
            raise RuntimeError(f"paddleocr returned a polygon of shape {a.shape}; expected (K, 2)")
        out.append(a)
    return out
