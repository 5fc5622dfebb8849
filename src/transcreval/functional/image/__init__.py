"""Functional twins of the image metrics (the mirror of ``transcreval.image``)."""
