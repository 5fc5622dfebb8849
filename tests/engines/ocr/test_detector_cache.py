"""The result cache of ``TextDetector.detect_arrays`` when a backend overrides ``_detect_many``
(the class docstring invites it): the cache must not depend on the override calling ``done``.
Review tests (0ff51b4 on the review branch; its two-argument-override test is not taken: ``done`` is
part of the signature, added before any release)."""

from __future__ import annotations

import numpy as np

from transcreval.engines.ocr.detector import DetectorInfo, OCRResult, TextDetector

_INFO = DetectorInfo("fake", "test 0", "", "fake", "0" * 64)


class _Fake(TextDetector):
    """Counts the images it detects; no model."""

    backend = "fake"

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.ran = 0

    def _detect_one(self, rgb: np.ndarray, recognize: bool) -> OCRResult:
        self.ran += 1
        return OCRResult((), rgb.shape[:2], _INFO)

    def _make_info(self, recognize: bool) -> DetectorInfo:
        return _INFO


class _OwnBatchIgnoringDone(_Fake):
    """A backend batching on its own, with the new signature but never calling ``done``."""

    def _detect_many(self, rgbs, recognize, done=None):
        return [self._detect_one(rgb, recognize) for rgb in rgbs]


def _images():
    return [np.full((6, 9, 3), v, np.uint8) for v in (10, 20, 10)]


def test_an_override_that_ignores_done_still_fills_the_cache():
    det = _OwnBatchIgnoringDone()
    first = det.detect_arrays(_images())
    assert det.ran == 2  # the repeated image once
    again = det.detect_arrays(_images())
    assert det.ran == 2, "a successful batch must be cached whether or not the override called done"
    assert again[0] is first[0]


def test_the_base_loop_caches_each_result_as_it_comes():
    """Control: the base class's own loop (no override) caches, and dedupes within a batch."""
    det = _Fake()
    out = det.detect_arrays(_images())
    assert det.ran == 2 and out[0] is out[2]
    det.detect_arrays(_images())
    assert det.ran == 2


def test_a_cache_smaller_than_the_batch_keeps_its_last_images_in_input_order():
    det = _Fake(cache_size=2)
    imgs = [np.full((6, 9, 3), v, np.uint8) for v in (1, 2, 3, 4)]
    det.detect_arrays(imgs)
    det.detect_arrays(imgs[2:])
    assert det.ran == 4  # the last two were kept
