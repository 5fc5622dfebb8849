"""The protocol catalog: every paper protocol with what it reproduces.

A protocol turns a system's raw outputs into a paper's tables (``transcreval.protocols.<name>``).
``list_protocols()`` returns :class:`ProtocolInfo` entries; ``transcreval list --protocols``
prints them. Importing this module imports no protocol: ``info.load()`` imports it on demand.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

__all__ = ["PROTOCOLS", "ProtocolInfo", "get_protocol", "list_protocols"]


@dataclass(frozen=True)
class ProtocolInfo:
    """What the catalog knows about one protocol.

    Attributes:
        name: the short name (``transcreval.protocols.<name>``, ``--protocol <name>``).
        paper: the paper's key in :data:`transcreval.core.registry.PAPERS`.
        module: the module that implements it.
        tables: the paper's tables and figures it reproduces (``"Table 3"``, ``"Fig. 7"``, ...).
        summary: one line on what it computes.
        runner: ``"module:ATTR"`` of its runner adapter (``transcreval evaluate --protocol <name>``);
            empty when the protocol is used from Python only.
        meta_evaluate: ``"module:ATTR"`` of its meta-evaluation of any metric's scores against the
            paper's human ratings (``transcreval meta-evaluate --protocol <name>``); empty if none.
    """

    name: str
    paper: str
    module: str
    tables: tuple[str, ...]
    summary: str
    runner: str = ""
    meta_evaluate: str = ""

    def load(self) -> ModuleType:
        """Import the protocol's module."""
        return importlib.import_module(self.module)


# One entry per paper protocol, in the papers' order (MPTc-Bench, Khanuja et al., PosterIQ, IMTBench).
PROTOCOLS: tuple[ProtocolInfo, ...] = (
    ProtocolInfo(
        name="mptc",
        paper="MPTc-Bench",
        module="transcreval.protocols.mptc",
        tables=(
            "Table 3",
            "Table 4",
            "Table 5",
            "Table 7",
            "Table 8",
            "Table 9",
            "Table 10",
            "App. B.2",
            "App. B.3",
            "Fig. 3",
            "Fig. 4",
            "Fig. 6",
            "Fig. 7",
            "Fig. 8",
            "Fig. 9",
            "Fig. 11",
        ),
        summary="from item/output records: judge tables + GT row, similarity, OCR, error types, temporal, clusters",
        runner="transcreval.protocols.mptc.runner:ADAPTER",
    ),
    ProtocolInfo(
        name="khanuja",
        paper="Khanuja et al.",
        module="transcreval.protocols.khanuja",
        tables=("Table 1", "Table 3"),
        summary="segment-level Kendall tau of object-, embedding- and VLM-based metrics against human ratings",
        runner="transcreval.protocols.khanuja.runner:ADAPTER",
        meta_evaluate="transcreval.protocols.khanuja.meta:meta_evaluate",
    ),
    ProtocolInfo(
        name="posteriq",
        paper="PosterIQ",
        module="transcreval.protocols.posteriq",
        tables=("Table 1", "Table 2", "Table 3", "Table 4", "Table 5", "Table 7"),
        summary="every understanding table from raw model answers (JSONL records); Table 7 from task scores too",
        runner="transcreval.protocols.posteriq.runner:ADAPTER",
    ),
    ProtocolInfo(
        name="posteriq-gen",
        paper="PosterIQ",
        module="transcreval.protocols.posteriq.generation",
        tables=("Table 6",),
        summary="the generation table from gen_metric.py's score files, or from generated images and a judge",
        runner="transcreval.protocols.posteriq.generation.runner:ADAPTER",
    ),
    ProtocolInfo(
        name="imtbench",
        paper="IMTBench",
        module="transcreval.protocols.imtbench",
        tables=("Table 2", "Fig. 6"),
        summary="S_text (COMET), S_bg, S_align, S_vis and S per item; Table 2 per scenario and language",
        runner="transcreval.protocols.imtbench.runner:ADAPTER",
    ),
)


def list_protocols(paper: str | None = None) -> list[ProtocolInfo]:
    """The registered protocols, optionally those of one paper (a case-insensitive prefix)."""
    if paper is None:
        return list(PROTOCOLS)
    return [p for p in PROTOCOLS if p.paper.lower().startswith(paper.lower())]


def get_protocol(name: str) -> ProtocolInfo:
    """The protocol called ``name``; a ``KeyError`` naming the known ones otherwise."""
    for p in PROTOCOLS:
        if p.name == name:
            return p
    known = ", ".join(p.name for p in PROTOCOLS) or "none yet"
    raise KeyError(f"no protocol named {name!r}; known protocols: {known}")
