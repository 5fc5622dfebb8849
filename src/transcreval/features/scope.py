"""Per-update sharing of converted inputs and extractor outputs: :func:`feature_scope`.

The scope lives on the ground floor (:mod:`transcreval.core.scope`), where a
:class:`~transcreval.core.collection.MetricCollection` opens it without loading any extractor;
this module keeps its names where the feature extractors are.
"""

from __future__ import annotations

from transcreval.core.scope import current_scope, feature_scope, shared_input

__all__ = ["current_scope", "feature_scope", "shared_input"]
