"""The options of Khanuja et al.'s Table 3, checked once for the Python entry and the runner.

:func:`check_options` takes the options by name (those of
:func:`~transcreval.protocols.khanuja.pipeline.evaluate`) and refuses a wrong one with an
:class:`~transcreval.errors.InputError` naming it, before any model is built or judge asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.khanuja.tables import VISUAL_SIGNS

__all__ = ["check_options"]


def check_options(o: Mapping[str, Any]) -> dict[str, int]:
    """Check Table 3's options (those of :func:`~transcreval.protocols.khanuja.pipeline.evaluate`);
    the visual-change signs."""
    if o["vlm_cultural"] not in ("output", "delta"):
        raise InputError(f"vlm_cultural must be 'output' or 'delta', got {o['vlm_cultural']!r}")
    if o["average"] not in ("countries", "segments"):
        raise InputError(f"average must be 'countries' or 'segments', got {o['average']!r}")
    if o["csi_matching"] not in ("judge", "exact"):
        raise InputError(f"csi_matching must be 'judge' or 'exact', got {o['csi_matching']!r}")
    chunk = o["chunk_size"]
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise InputError(f"chunk_size must be a positive integer, got {chunk!r}")
    if not isinstance(o["embedding"], (bool, Mapping)):
        raise InputError(
            f"embedding is True, False or a mapping of encoder options, got {type(o['embedding']).__name__}"
        )
    if not isinstance(o["vlm_judges"] or {}, Mapping):
        raise InputError("vlm_judges is a mapping {row label: judge}, e.g. {'GPT-4o': judge}")
    signs = {**VISUAL_SIGNS, **dict(o["visual_signs"] or {})}
    if set(signs) != set(VISUAL_SIGNS) or any(v not in (1, -1) for v in signs.values()):
        raise InputError(f"visual_signs maps {sorted(VISUAL_SIGNS)} to 1 or -1, got {o['visual_signs']!r}")
    return signs
