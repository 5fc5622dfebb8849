"""The OCR engine: text detectors, text masks and the OCR title reader.

Import the public names from :mod:`transcreval.ocr`; the OCR metric (``OCRMaskIoU``) lives there.
"""
