"""The OCR backends by name: :func:`get_detector` builds (and shares) a detector, and
:func:`register_backend` adds one. The detector interface itself (:class:`TextDetector`,
:class:`OCRResult`, :class:`DetectorInfo`) is in :mod:`~transcreval.engines.ocr.detector`,
which every backend builds on; it is re-exported here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from transcreval.engines.ocr.detector import (
    DetectorInfo,
    OCRResult,
    TextDetector,
    file_sha256,
    freeze_params,
    options_key,
)
from transcreval.errors import InputError
from transcreval.utils.packages import package_version

__all__ = [
    "DetectorInfo",
    "OCRResult",
    "TextDetector",
    "available_backends",
    "file_sha256",
    "freeze_params",
    "get_detector",
    "options_key",
    "package_version",
    "register_backend",
]

# ---------------------------------------------------------------------- backend registry
_BACKENDS: dict[str, Callable[..., TextDetector]] = {}
_INSTANCES: dict[tuple[str, str], TextDetector] = {}
_INSTANCES_LOCK = threading.Lock()


def register_backend(name: str, factory: Callable[..., TextDetector]) -> None:
    """Make ``get_detector(name, **options)`` build detectors with ``factory(**options)``."""
    _BACKENDS[name] = factory


def _builtin_backends() -> None:
    if "rapidocr" in _BACKENDS:
        return
    from transcreval.engines.ocr.paddle import PaddleOCRDetector
    from transcreval.engines.ocr.rapid import PPOCRv5MobileDetector, RapidOCRDetector

    _BACKENDS.setdefault("rapidocr", RapidOCRDetector)
    _BACKENDS.setdefault("ppocrv5-mobile", PPOCRv5MobileDetector)
    _BACKENDS.setdefault("paddleocr", PaddleOCRDetector)


def available_backends() -> list[str]:
    """The names :func:`get_detector` accepts."""
    _builtin_backends()
    return sorted(_BACKENDS)


def get_detector(backend: str | TextDetector = "rapidocr", **options: Any) -> TextDetector:
    """The detector for ``backend`` with ``options``, shared within the process.

    A :class:`TextDetector` instance is returned as it is (``options`` must then be empty).
    Two calls with the same backend and options return the same object, so metrics and
    mask helpers share one loaded model and one result cache.
    """
    if isinstance(backend, TextDetector):
        if options:
            raise InputError(f"options {sorted(options)} given with a detector instance; configure the instance")
        return backend
    if not isinstance(backend, str):
        raise InputError(f"backend must be a name or a TextDetector, got {type(backend).__name__}")
    _builtin_backends()
    if backend not in _BACKENDS:
        raise InputError(f"unknown OCR backend {backend!r}; choose one of {sorted(_BACKENDS)}")
    key = (backend, repr(options_key(options)))
    with _INSTANCES_LOCK:
        det = _INSTANCES.get(key)
        if det is None:
            det = _BACKENDS[backend](**options)
            _INSTANCES[key] = det
    return det
