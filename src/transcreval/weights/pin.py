"""Pinned weights: a loaded model stays tied to the exact file content it was loaded from.

Metrics load their weights once, when they are built, and keep them; a file that changes on
disk afterwards (a fine-tuning loop re-saving its checkpoint at one path) must never be loaded
into the same metric under the first file's signature. :func:`check_unchanged` is the check
made wherever a loaded file would be read again (another device, another process).
"""

from __future__ import annotations

from collections.abc import Iterable

from transcreval.errors import WeightsChangedError
from transcreval.weights.resolve import ResolvedWeights, sha256_file

__all__ = ["check_unchanged"]


def check_unchanged(weights: Iterable[ResolvedWeights], what: str) -> None:
    """Raise WeightsChangedError when a loaded file's content is no longer what was loaded."""
    for w in weights:
        try:
            now = sha256_file(w.path)
        except OSError as exc:
            raise WeightsChangedError(
                f"{what}: the weights file {w.path} loaded earlier cannot be read any more ({exc}); "
                "build a new metric when the file is back"
            ) from None
        if now != w.sha256:
            raise WeightsChangedError(
                f"{what}: the weights file {w.path} changed since it was loaded (sha256 {w.sha256[:12]}... "
                f"is now {now[:12]}...): the metric keeps the model it was built with and would mix two models "
                "under one signature. Build a new metric (or call the functional twin) to score with the new file"
            )
