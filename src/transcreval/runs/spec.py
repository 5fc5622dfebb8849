"""The runner contract under its older path: it lives in :mod:`transcreval.protocols.adapter`
(protocols never import the run layer), and this module re-exports it unchanged, so an adapter
written as ``from transcreval.protocols.adapter import ProtocolAdapter, Unit`` keeps working."""

from __future__ import annotations

from transcreval.protocols.adapter import (
    FAILED_OUTPUT_STATUSES,
    Item,
    Outcome,
    Output,
    Prepared,
    ProtocolAdapter,
    RunData,
    Unit,
    UnitContext,
    Work,
    failed_records,
)

__all__ = [
    "FAILED_OUTPUT_STATUSES",
    "Item",
    "Outcome",
    "Output",
    "Prepared",
    "ProtocolAdapter",
    "RunData",
    "Unit",
    "UnitContext",
    "Work",
    "failed_records",
]
