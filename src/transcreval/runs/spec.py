"""The runner contract under its older path: it lives in :mod:`transcreval.protocols.adapter`
(protocols never import the run layer), and this module re-exports it unchanged, so an adapter
written as ``from transcreval.runs.spec import ProtocolAdapter, Unit`` keeps working."""

from __future__ import annotations

from transcreval.protocols.adapter import *  # noqa: F403  (every public name, the same objects)
from transcreval.protocols.adapter import __all__ as __all__
