"""MPTc-Bench in ``transcreval evaluate``: the runner adapter (:data:`ADAPTER`) and its pieces.

* :mod:`~transcreval.protocols.mptc.runner.adapter`: :class:`MPTcAdapter`, what the catalog registers;
* :mod:`~transcreval.protocols.mptc.runner.inputs`: manifest items and outputs as MPTc records;
* :mod:`~transcreval.protocols.mptc.runner.units`: the stored, resumable per-item scoring;
* :mod:`~transcreval.protocols.mptc.runner.tables`: the paper's tables from the stored records.
"""

from __future__ import annotations

from transcreval.protocols.mptc.runner.adapter import ADAPTER, MPTcAdapter

__all__ = ["ADAPTER", "MPTcAdapter"]
