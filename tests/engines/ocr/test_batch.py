"""Batched detection: several images run in parallel, one per worker thread, each on a one-thread
onnxruntime session of its own; results must equal rapidocr's default engine image by image."""

from __future__ import annotations

import numpy as np
import pytest

import transcreval.utils.threads
from tests._helpers.text_images import SAMPLES, render
from transcreval.engines.ocr.rapid import RapidOCRDetector
from transcreval.errors import InputError


class _Counting(RapidOCRDetector):
    """Counts detections and records the onnxruntime threads of the engine each ran on."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.ran_on: list[int] = []

    def _run(self, eng, rgb, recognize):
        self.ran_on.append(eng.cfg.EngineConfig.onnxruntime.intra_op_num_threads)
        return super()._run(eng, rgb, recognize)


@pytest.fixture
def two_workers(monkeypatch):
    """A thread budget of 2 whatever the machine (the batch path needs >= 2 workers)."""
    monkeypatch.setattr(transcreval.utils.threads, "default_threads", lambda: 2)


@pytest.fixture(scope="module")
def images() -> list[np.ndarray]:
    out = [
        np.asarray(render(text, script, angle=8 if script == "latin" else 0).image) for script, text in SAMPLES.items()
    ]
    out.append(np.full((300, 420, 3), 235, np.uint8))  # no text at all
    out.append(np.asarray(render("THIN STRIP", "latin").image)[:40])  # padded before detection
    return out


def _direct(rgb: np.ndarray, rec: bool):
    from rapidocr import RapidOCR

    eng = RapidOCR(params={"Global.log_level": "error"})
    return eng(rgb[..., ::-1], use_det=True, use_cls=False, use_rec=rec)


@pytest.mark.parametrize("recognize", [False, True])
def test_a_batch_equals_rapidocr_image_by_image(two_workers, images, recognize):
    det = _Counting(cache_size=0)
    batch = det.detect(images, recognize=recognize)
    assert set(det.ran_on) == {1} and len(det.ran_on) == len(images)  # all on one-thread sessions
    singles = [det.detect(im, recognize=recognize)[0] for im in images]
    assert det.ran_on[len(images) :] == [-1] * len(images)  # one image: rapidocr's default session
    for i, (b, s, im) in enumerate(zip(batch, singles, images)):
        assert len(b.polygons) == len(s.polygons), i
        assert all(np.array_equal(p, q) for p, q in zip(b.polygons, s.polygons)), i
        assert (b.texts, b.scores) == (s.texts, s.scores), i
        if im.shape[0] >= 100:  # the thin strip is padded by us first; rapidocr is fed as is
            ref = _direct(im, recognize)
            if ref.boxes is None:
                assert b.polygons == ()
            else:
                np.testing.assert_array_equal(np.stack(b.polygons), ref.boxes, err_msg=str(i))
                if recognize:
                    assert b.texts == tuple(ref.txts)


def test_engines_are_reused_across_batches(two_workers, images):
    det = _Counting(cache_size=0)
    det.detect(images[:4])
    made = len(det._idle)
    assert 1 <= made <= 2
    det.detect(images[:4])
    assert len(det._idle) == made  # no new session: the idle ones were taken again


def test_threads_given_runs_one_session_one_image_at_a_time(two_workers, images):
    det = _Counting(cache_size=0, threads=2)
    det.detect(images[:3])
    assert det.ran_on == [2, 2, 2] and det._idle == []


def test_one_worker_runs_the_batch_on_the_default_session(monkeypatch, images):
    monkeypatch.setattr(transcreval.utils.threads, "default_threads", lambda: 1)
    det = _Counting(cache_size=0)
    det.detect(images[:3])
    assert det.ran_on == [-1, -1, -1] and det._idle == []


def test_same_content_twice_in_a_batch_is_detected_once(two_workers, images):
    det = _Counting()
    a, b, c = det.detect([images[0], images[1], images[0].copy()])
    assert len(det.ran_on) == 2 and a is c and b is not a
    det.detect([images[1], images[2]])
    assert len(det.ran_on) == 3  # images[1] came from the cache
    off = _Counting(cache_size=0)
    off.detect([images[0], images[0]])
    assert len(off.ran_on) == 2  # no cache: no content hashing, every image detected


def test_a_failure_in_a_batch_names_the_image(two_workers, images, monkeypatch):
    det = RapidOCRDetector(cache_size=0)
    det.detect(images[:2])  # the sessions exist

    def broken(*a, **k):
        raise RuntimeError("onnxruntime exploded")

    monkeypatch.setattr(type(det._idle[0]), "__call__", broken)  # rapidocr's engine class
    with pytest.raises(InputError, match=r"rapidocr failed on an image of size .*onnxruntime exploded"):
        det.detect(images[:2])
    with pytest.raises(InputError, match="H x W x 3 uint8 RGB arrays, got float64"):
        det.detect_arrays([images[0], images[1].astype(np.float64)])


class _FailsOn(_Counting):
    """Fails on arrays of one shape (rapidocr's own error path is tested above)."""

    def __init__(self, bad_shape, **kw) -> None:
        super().__init__(**kw)
        self.bad_shape = bad_shape

    def _run(self, eng, rgb, recognize):
        if rgb.shape == self.bad_shape:
            raise InputError("this image fails")
        return super()._run(eng, rgb, recognize)


@pytest.mark.parametrize("budget", [1, 2])
def test_a_failure_in_a_batch_keeps_the_images_that_succeeded(monkeypatch, images, budget):
    """Work already done is never lost: the images detected before (or beside) a failing one are
    cached, so the call after the fix detects only what was left."""
    monkeypatch.setattr(transcreval.utils.threads, "default_threads", lambda: budget)
    good, bad = images[0], images[-1]  # shapes differ
    det = _FailsOn(bad.shape)
    with pytest.raises(InputError, match="this image fails"):
        det.detect([good, bad])
    assert len(det.ran_on) == 1
    det.bad_shape = None
    first, _ = det.detect([good, bad])
    assert len(det.ran_on) == 2  # only the image that failed ran again
    assert first is det.detect([good])[0]
