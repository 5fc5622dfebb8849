"""Paper protocols: aggregate tables that reproduce the papers' reporting.

One package per paper (``mptc``, ``khanuja``, ``posteriq``, ``imtbench``), each registered in
:mod:`~transcreval.protocols.catalog`; beside them the pieces they share: the runner contract
(:mod:`~transcreval.protocols.adapter`), per-item records and tables
(:mod:`~transcreval.protocols.records`) and stored feature vectors
(:mod:`~transcreval.protocols.stored_features`). Protocols never import the run layer
(:mod:`transcreval.runs`): it finds them through the catalog.
"""
