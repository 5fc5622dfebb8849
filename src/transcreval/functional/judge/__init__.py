"""Functional twins of the judge metrics (the mirror of the metric classes in ``transcreval.judge``)."""
