"""Functional twins of the choice metrics (the mirror of ``transcreval.choice``)."""
