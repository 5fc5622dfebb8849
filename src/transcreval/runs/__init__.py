"""Running a protocol over a data set: ``transcreval evaluate / validate / rescore / compare / report``.

* :func:`evaluate` (also ``transcreval.evaluate``): a manifest and several systems' outputs into
  a resumable run directory; returns a :class:`Run` (``.results``, ``.items``, ``.compare()``,
  ``.report()``);
* :class:`Run`: an existing run directory;
* :func:`validate`: check a manifest and outputs without scoring anything;
* the contract a protocol implements to plug in: :class:`ProtocolAdapter`, :class:`Unit`
  (:mod:`transcreval.runs.spec`).

Names load on first use; ``docs/cli.md`` describes the commands and the run directory.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {
    "evaluate": "transcreval.runs.api",
    "Run": "transcreval.runs.api",
    "load_adapter": "transcreval.runs.api",
    "validate": "transcreval.runs.validate",
    "ProtocolAdapter": "transcreval.runs.spec",
    "Unit": "transcreval.runs.spec",
    "UnitContext": "transcreval.runs.spec",
    "Prepared": "transcreval.runs.spec",
    "Outcome": "transcreval.runs.spec",
    "Work": "transcreval.runs.spec",
    "Item": "transcreval.runs.spec",
    "Output": "transcreval.runs.spec",
    "RunData": "transcreval.runs.spec",
}

__all__ = [
    "Item",
    "Outcome",
    "Output",
    "Prepared",
    "ProtocolAdapter",
    "Run",
    "RunData",
    "Unit",
    "UnitContext",
    "Work",
    "evaluate",
    "load_adapter",
    "validate",
]

if TYPE_CHECKING:
    from transcreval.runs.api import Run, evaluate, load_adapter
    from transcreval.runs.spec import Item, Outcome, Output, Prepared, ProtocolAdapter, RunData, Unit, UnitContext, Work
    from transcreval.runs.validate import validate


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'transcreval.runs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
