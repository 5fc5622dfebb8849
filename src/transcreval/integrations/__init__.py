"""Bridges to other tools; each submodule imports its tool only when imported itself.

* :mod:`transcreval.integrations.torchmetrics`: ``wrap(metric)`` gives a
  ``torchmetrics.Metric`` for Lightning's ``self.log(...)`` (the ``lightning`` extra).
* :mod:`transcreval.integrations.tables`: a protocol result's per-item records as a pandas
  DataFrame (one row per item x system x metric) and CSV / Parquet files joinable by item id
  (the ``export`` extra).

See ``docs/integrations.md``.
"""
