"""OCR title chrF: :class:`~transcreval.TitleChrF` on titles read by OCR from the images
(:class:`~transcreval.ocr.OCRTitleExtractor`; MPTc-Bench's OCR baseline reads the top-confidence
line: ``reader=OCRTitleExtractor(rule="confidence")``), offline and with no VLM."""

from __future__ import annotations

import dataclasses
from typing import Any

import torch

from transcreval.core.result import MetricResult
from transcreval.engines.ocr.title import OCRTitleExtractor
from transcreval.errors import InputError, UndefinedValueError
from transcreval.functional.text.chrf import title_chrf

__all__ = ["ocr_title_chrf"]


def ocr_title_chrf(
    preds: Any,
    target: Any,
    *,
    reader: OCRTitleExtractor | None = None,
    input_range: tuple[float, float] | None = None,
    **chrf_options: Any,
) -> MetricResult:
    """:class:`~transcreval.TitleChrF` on titles read by OCR from images (no VLM, offline).

    ``preds``: the system outputs; ``target``: the human target-market posters (MPTc §5.1
    reads the title from both). ``reader`` defaults to ``OCRTitleExtractor()`` (rapidocr,
    largest line; MPTc App. B.5's baseline is ``rule="confidence"``); ``input_range`` is the
    value range of float images (default (0, 1));
    ``chrf_options`` are TitleChrF's (:func:`~transcreval.functional.title_chrf`).

    A pair whose *target* title cannot be read (no line read in the reference poster, whatever
    the output shows) has no reference to score against: chrF against an empty reference is
    undefined, so such pairs are left out of the mean and the corpus score, their ``per_item``
    entry is NaN, and ``extras["no_title_target"]`` counts them (as ``OCRMaskIoU`` does with
    pairs that have no text on either side). When no target title can be read at all, this
    raises :class:`~transcreval.errors.UndefinedValueError`. A pair whose output title cannot
    be read is kept and scores 0 against the reference title (the system lost its title);
    ``extras["no_title_preds"]`` counts those among the scored pairs. ``extras["pairs"]`` is
    the number of pairs given; ``result.n`` the number scored.

    The result's signature is TitleChrF's plus the reader's
    :meth:`OCRTitleExtractor.signature_options` (backend, package, detection and recognition
    models with their hashes, parameters digest, title rule), so titles read with another
    detector or rule give another signature.
    """
    read = reader if reader is not None else OCRTitleExtractor()
    hyp, ref = read.read(preds, input_range=input_range), read.read(target, input_range=input_range)
    if len(hyp) != len(ref):
        raise InputError(f"preds and target must pair up: {len(hyp)} outputs vs {len(ref)} target images")
    keep = [i for i, r in enumerate(ref) if r.found]
    if hyp and not keep:
        raise UndefinedValueError(
            f"OCR title chrF is undefined: no title could be read in any of the {len(ref)} target images "
            "(chrF against an empty reference); check the images, or the OCR backend and its min_score"
        )
    res = title_chrf([hyp[i].text for i in keep], [ref[i].text for i in keep], **chrf_options)
    per_item = torch.full((len(ref),), float("nan"), dtype=torch.float64)
    if keep:
        per_item[torch.tensor(keep)] = torch.as_tensor(res.per_item, dtype=torch.float64)
    extras = {
        **res.extras,
        "pairs": len(ref),
        "no_title_preds": sum(not hyp[i].found for i in keep),
        "no_title_target": len(ref) - len(keep),
        "item_status": ["ok" if r.found else "undefined" for r in ref],
    }
    sig = res.signature
    sig = dataclasses.replace(sig, options=(*sig.options, *read.signature_options().items()))
    return dataclasses.replace(res, per_item=per_item, extras=extras, signature=sig)
