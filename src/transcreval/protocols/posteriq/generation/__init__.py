"""PosterIQ's generation benchmark (Table 6) from PosterIQ's score files or from generated images and a judge.

:func:`evaluate_generation` reads ``{model}_score.json`` files as PosterIQ's ``gen_metric.py``
writes them, or judges folders of generated images with the project's own prompts, and returns
a :class:`~transcreval.protocols.records.ProtocolResult` with ``tables["table6"]``. One module per
idea: :mod:`.inputs` (prompts and score files), :mod:`.judging` (asking a judge), :mod:`.scoring`
(per item and per task, both modes), :mod:`.tables` (Table 6), :mod:`.pipeline` (the one
pipeline) and :mod:`.runner` (``transcreval evaluate -p posteriq-gen``).
docs/protocols/posteriq.md ("Generation") documents the inputs, modes and denominators.
"""

from __future__ import annotations

from transcreval.protocols.posteriq.generation.inputs import GEN_TASKS, read_prompts, read_score_file
from transcreval.protocols.posteriq.generation.pipeline import evaluate_generation, score_items
from transcreval.protocols.posteriq.generation.scoring import DENOMINATORS, gen_options
from transcreval.protocols.posteriq.generation.tables import TABLE6_COLUMNS

__all__ = [
    "DENOMINATORS",
    "GEN_TASKS",
    "TABLE6_COLUMNS",
    "evaluate_generation",
    "gen_options",
    "read_prompts",
    "read_score_file",
    "score_items",
]
