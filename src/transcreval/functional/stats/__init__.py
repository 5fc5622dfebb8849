"""Functional twins of the stats metrics (the mirror of ``transcreval.stats``)."""
