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

from typing import TYPE_CHECKING

from transcreval.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from transcreval.runs.api import Run as Run
    from transcreval.runs.api import evaluate as evaluate
    from transcreval.runs.api import load_adapter as load_adapter
    from transcreval.runs.spec import Item as Item
    from transcreval.runs.spec import Outcome as Outcome
    from transcreval.runs.spec import Output as Output
    from transcreval.runs.spec import Prepared as Prepared
    from transcreval.runs.spec import ProtocolAdapter as ProtocolAdapter
    from transcreval.runs.spec import RunData as RunData
    from transcreval.runs.spec import Unit as Unit
    from transcreval.runs.spec import UnitContext as UnitContext
    from transcreval.runs.spec import Work as Work
    from transcreval.runs.validation import validate as validate

__all__, __getattr__, __dir__ = lazy_exports(globals())
