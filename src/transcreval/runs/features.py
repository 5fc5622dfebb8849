"""Stored per-item feature vectors under their older path: :func:`pack`, :func:`unpack` and
:func:`frechet_from_rows` live in :mod:`transcreval.protocols.stored_features` (a protocol's
units and tables use them; protocols never import the run layer); this module re-exports them."""

from __future__ import annotations

from transcreval.protocols.stored_features import *  # noqa: F403  (every public name, the same objects)
from transcreval.protocols.stored_features import __all__ as __all__
