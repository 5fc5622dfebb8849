"""IMTBench (Lyu et al.): per-item S_text, S_bg, S_align, S_vis and S, and Table 2.

The package has the inner layout every protocol shares:

* :mod:`~transcreval.protocols.imtbench.inputs`: the benchmark manifest and the systems' outputs;
* :mod:`~transcreval.protocols.imtbench.scoring`: the per-item components for :func:`evaluate`;
* :mod:`~transcreval.protocols.imtbench.tables`: Table 2 from per-item records (:func:`table2`);
* :mod:`~transcreval.protocols.imtbench.pipeline`: :func:`evaluate`, the whole protocol in one call;
* :mod:`~transcreval.protocols.imtbench.runner` (with its units in
  :mod:`~transcreval.protocols.imtbench.units`): the adapter of ``transcreval evaluate --protocol imtbench``.

docs/protocols/imtbench.md describes the inputs, options and tables.
"""

from __future__ import annotations

from transcreval.protocols.imtbench.inputs import IMTBenchItem, SystemOutput, read_manifest, read_outputs
from transcreval.protocols.imtbench.pipeline import evaluate
from transcreval.protocols.imtbench.tables import COLUMNS, table2

__all__ = ["COLUMNS", "IMTBenchItem", "SystemOutput", "evaluate", "read_manifest", "read_outputs", "table2"]
