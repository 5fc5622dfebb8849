"""Engines: the machinery metrics run on, kept apart from the metric domain folders.

* :mod:`transcreval.engines.judge`: VLM/LLM judge clients, the response cache, replay, answer
  parsing, prompt templates (data files in ``prompts/``), the judge pipeline and the fake server;
* :mod:`transcreval.engines.ocr`: text detectors (RapidOCR, PP-OCRv5 mobile, PaddleOCR), text
  masks and the OCR title reader;
* :mod:`transcreval.engines.comet`: the COMET scorer around unbabel-comet and its known models.

The public names stay where users import them (:mod:`transcreval.judge`, :mod:`transcreval.ocr`);
a metric domain folder (``judge/``, ``ocr/``, ``image/``, ...) holds only metric classes and their
bases. The feature extractors (:mod:`transcreval.features`) and weight handling
(:mod:`transcreval.weights`) are engines too, kept at the top level. See docs/architecture.md.
"""
