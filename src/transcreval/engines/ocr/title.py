"""The OCR title baseline: read a poster's title as the text of one detected line.

MPTc-Bench (§5.1, App. B.5) reads titles with a VLM and reports an OCR baseline next to it:
the "top-confidence line" (``rule="confidence"``, the MPTc protocol's default). This class
defaults to the line with the largest box (``rule="largest"``), the other common reading of a
poster's title. This module gives both with any :mod:`transcreval.ocr` backend, so
:class:`~transcreval.TitleChrF` can run on a machine with no VLM and no network::

    from transcreval.text.chrf import TitleChrF
    from transcreval.ocr import OCRTitleExtractor

    read = OCRTitleExtractor()                     # rapidocr, offline
    chrf = TitleChrF()
    chrf.update(read(outputs), read(human_targets))   # system titles, then reference titles

``rule="confidence"`` picks the line recognised with the highest confidence instead (the
"top-confidence line" MPTc App. B.5 reports for PP-OCRv5: chrF 0.1341 on source posters; what
:func:`~transcreval.protocols.mptc.ocr_tables` uses by default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from transcreval.engines.ocr.base import OCRResult, TextDetector, get_detector
from transcreval.errors import InputError

Rule = Literal["largest", "confidence"]


@dataclass(frozen=True)
class TitleReading:
    """The line chosen as an image's title.

    Attributes:
        text: the recognised text (``""`` when no line was read).
        score: its recognition confidence (0.0 when no line was read).
        area: the area of its polygon in pixels (0.0 when no line was read).
        polygon: its polygon, or ``None``.
        n_lines: how many lines were read in the image.
    """

    text: str
    score: float
    area: float
    polygon: np.ndarray | None
    n_lines: int

    @property
    def found(self) -> bool:
        return self.polygon is not None


def choose_title(result: OCRResult, rule: Rule = "largest", min_score: float = 0.0) -> TitleReading:
    """The title line of one recognised :class:`OCRResult` under ``rule``.

    ``"largest"``: the line whose polygon has the largest area; ``"confidence"``: the line with
    the highest recognition score. Ties go to the earlier line in the detector's reading order
    (top to bottom, then left to right). Lines scoring below ``min_score`` or reading as
    whitespace are ignored. No line gives an empty reading (``found`` is False).
    """
    if result.texts is None or result.scores is None:
        raise InputError("choose_title needs a result with recognised text: detect(images, recognize=True)")
    if rule not in ("largest", "confidence"):
        raise InputError(f"rule must be 'largest' or 'confidence', got {rule!r}")
    areas = result.areas
    keep = [i for i, (t, s) in enumerate(zip(result.texts, result.scores)) if t.strip() and s >= min_score]
    if not keep:
        return TitleReading("", 0.0, 0.0, None, 0)
    key = areas if rule == "largest" else np.asarray(result.scores, dtype=np.float64)
    best = max(keep, key=lambda i: (float(key[i]), -i))
    return TitleReading(
        result.texts[best].strip(), float(result.scores[best]), float(areas[best]), result.polygons[best], len(keep)
    )


class OCRTitleExtractor:
    """Read each image's title as one OCR line: the largest (default) or the most confident
    (``rule="confidence"``, MPTc App. B.5's baseline).

    Args:
        backend: ``"rapidocr"`` (default, offline), ``"ppocrv5-mobile"``, ``"paddleocr"`` or a
            :class:`~transcreval.engines.ocr.base.TextDetector`.
        rule: ``"largest"`` (default: largest polygon area) or ``"confidence"`` (highest
            recognition score, MPTc App. B.5's "top-confidence line").
        min_score: ignore lines recognised with a lower confidence (default 0: keep what the
            backend keeps; rapidocr itself drops lines below 0.5).
        **backend_options: options of the backend (see :func:`~transcreval.ocr.get_detector`).

    ``extractor(images) -> list[str]`` gives the titles (``""`` where no line was read);
    ``extractor.read(images) -> list[TitleReading]`` gives the chosen lines with their scores
    and polygons. ``extractor.info`` identifies the detector and recogniser (versions, model
    hashes, parameters).
    """

    def __init__(
        self,
        backend: str | TextDetector = "rapidocr",
        *,
        rule: Rule = "largest",
        min_score: float = 0.0,
        **backend_options: Any,
    ) -> None:
        if rule not in ("largest", "confidence"):
            raise InputError(f"rule must be 'largest' or 'confidence', got {rule!r}")
        if not 0.0 <= float(min_score) <= 1.0:
            raise InputError(f"min_score must lie in [0, 1], got {min_score}")
        self.detector = get_detector(backend, **backend_options)
        self.rule: Rule = rule
        self.min_score = float(min_score)

    @property
    def info(self) -> Any:
        return self.detector.info_for(True)

    def signature_options(self) -> dict[str, Any]:
        """Options for a metric signature: detector identity, the title rule and ``min_score``."""
        info = self.info
        return {
            **info.signature_options(),
            "rec": f"{info.rec_model}@{info.rec_sha256[:12] or 'unhashed'}",
            "title": self.rule,
            "minsc": self.min_score,
        }

    def read(self, images: Any, *, input_range: tuple[float, float] | None = None) -> list[TitleReading]:
        """The chosen title line of each image (``input_range``: the value range of float images)."""
        results = self.detector.detect(images, recognize=True, input_range=input_range)
        return [choose_title(r, self.rule, self.min_score) for r in results]

    def __call__(self, images: Any, *, input_range: tuple[float, float] | None = None) -> list[str]:
        """The title text of each image (``""`` where no line was read)."""
        return [r.text for r in self.read(images, input_range=input_range)]

    def __repr__(self) -> str:
        return f"OCRTitleExtractor(backend={self.detector.backend!r}, rule={self.rule!r})"
