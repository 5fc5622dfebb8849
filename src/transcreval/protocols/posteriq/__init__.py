"""PosterIQ (Feng et al.): Tables 1-5 and 7 from models' raw answers, in one call.

:func:`evaluate` reads records (one per system x task item: the raw answer and the ground
truth, :mod:`~transcreval.protocols.posteriq.inputs`), scores every item with the registered
metrics' functional layer and returns a :class:`~transcreval.protocols.records.ProtocolResult`:
one record per item and metric (joinable by ``item_id``) and the paper's Tables 1-5 and 7 in
its layout. docs/protocols/posteriq.md lists the inputs, every choice the paper leaves open and
its option, and which published numbers can be reproduced from which inputs.

The aggregates of task scores already computed are here too: :func:`posteriq_summary`
(Table 7), :func:`wr_gap` and :func:`font_size_std` (Table 1's Delta and Std).

The package holds one idea per module: :mod:`.inputs` (the record format), :mod:`.sources` and
:mod:`.bench` (where records come from: files, folders, PosterIQ's own result files),
:mod:`.scoring` (options, per-item records and cells, the OCR tasks), :mod:`.tasks` (the font,
layout and understanding tasks), :mod:`.tables` (the paper's layout), :mod:`.summary` (Table 7 and
Table 1's aggregates), :mod:`.pipeline` (:func:`evaluate`) and :mod:`.runner`
(``transcreval evaluate -p posteriq``, through the same :func:`evaluate`). The generation
benchmark (Table 6) is the subpackage :mod:`.generation`: :func:`evaluate_generation`.
"""

from __future__ import annotations

from transcreval.protocols.posteriq.generation.pipeline import evaluate_generation
from transcreval.protocols.posteriq.inputs import TARGET_FORMS, TASKS
from transcreval.protocols.posteriq.pipeline import evaluate
from transcreval.protocols.posteriq.scoring import CODE_TASK_K, TASK_K
from transcreval.protocols.posteriq.sources import load_records
from transcreval.protocols.posteriq.summary import (
    GROUP_ORDER,
    POSTERIQ_EXCLUDED,
    POSTERIQ_GROUPS,
    font_size_std,
    posteriq_summary,
    wr_gap,
)
from transcreval.protocols.posteriq.tables import TABLE_COLUMNS

__all__ = [
    "CODE_TASK_K",
    "GROUP_ORDER",
    "POSTERIQ_EXCLUDED",
    "POSTERIQ_GROUPS",
    "TABLE_COLUMNS",
    "TARGET_FORMS",
    "TASKS",
    "TASK_K",
    "evaluate",
    "evaluate_generation",
    "font_size_std",
    "load_records",
    "posteriq_summary",
    "wr_gap",
]
