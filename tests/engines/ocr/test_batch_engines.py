"""The batched rapidocr path: how many one-thread engines a detector keeps.

Each engine holds its own onnxruntime sessions (~150 MB), and detectors are shared within the
process (get_detector), so whatever the idle list holds stays for the life of the process."""

from __future__ import annotations

import threading
import time

import numpy as np

import transcreval.utils.threads
from transcreval.engines.ocr.detector import OCRResult
from transcreval.engines.ocr.rapid import RapidOCRDetector


class _Slow(RapidOCRDetector):
    """Each detection takes a while (so batches from several threads overlap) and makes no
    onnxruntime call; the engines are stand-ins (built by _checkout through rapidocr.RapidOCR)."""

    def _run(self, eng, rgb, recognize):
        time.sleep(0.2)
        return OCRResult((), rgb.shape[:2], self.info_for(recognize))


class _FakeEngine:
    made = 0

    def __init__(self, **kw) -> None:
        type(self).made += 1


def test_concurrent_batches_keep_no_more_engines_than_the_thread_budget(monkeypatch):
    monkeypatch.setattr(transcreval.utils.threads, "default_threads", lambda: 2)
    det = _Slow(cache_size=0)
    det.info_for(False)  # the real default engine (the identity), built before the stand-ins
    import rapidocr

    monkeypatch.setattr(rapidocr, "RapidOCR", _FakeEngine)
    users, start = 4, threading.Barrier(4)
    images = [np.full((64, 64 + i, 3), i, np.uint8) for i in range(2 * users)]

    def user(k: int) -> None:
        start.wait()
        det.detect(images[2 * k : 2 * k + 2])

    threads = [threading.Thread(target=user, args=(k,)) for k in range(users)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # the budget is 2 workers: however many engines the 4 user threads' batches built at once, at
    # most 2 stay in the idle list
    assert len(det._idle) <= 2, f"{len(det._idle)} idle engines kept ({_FakeEngine.made} made) for a budget of 2"


def test_a_smaller_batch_keeps_the_engines_a_larger_one_built(monkeypatch):
    """Idle engines are capped by the thread budget, not by the current batch: a 2-image batch after
    a 4-image one must not drop engines that the next large batch would build again."""
    monkeypatch.setattr(transcreval.utils.threads, "default_threads", lambda: 4)
    det = _Slow(cache_size=0)
    det.info_for(False)
    import rapidocr

    monkeypatch.setattr(rapidocr, "RapidOCR", _FakeEngine)
    images = [np.full((64, 64 + i, 3), i, np.uint8) for i in range(4)]
    det.detect(images)
    built = len(det._idle)
    assert 1 <= built <= 4
    det.detect(images[:2])
    assert len(det._idle) == built
