"""OCR metrics: the pure pieces and functional twins."""
