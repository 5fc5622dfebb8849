"""Model files: the manifest, the resolver, safe loading, and the ``transcreval weights`` CLI.

One path for every model file (see :mod:`transcreval.weights.resolve` for the order): explicit
argument > ``TRANSCREVAL_WEIGHTS_DIR`` > files installed packages ship > user cache
(``TRANSCREVAL_CACHE``) > torch hub's checkpoints > download (sha256-checked, atomic, locked).
``TRANSCREVAL_OFFLINE=1`` / ``HF_HUB_OFFLINE=1`` turn downloads off. A miss raises
:class:`~transcreval.errors.WeightsNotFoundError` with every place searched and the command to run.

Nothing here imports torch until a state dict is loaded.
"""

from __future__ import annotations

from transcreval.weights.fetch import fetch
from transcreval.weights.load import check_finite, check_keys, load_state_dict, load_strict
from transcreval.weights.manifest import WeightsEntry, entries, get_entry, register_weights, unregister_weights
from transcreval.weights.pin import check_unchanged
from transcreval.weights.resolve import (
    ResolvedWeights,
    cache_dir,
    cache_root,
    candidates,
    check_file,
    fetch_command,
    is_offline,
    locate,
    resolve,
    resolve_file,
    sha256_file,
    shipped_path,
    torch_hub_dir,
    verify_file,
    weights_dirs,
)

__all__ = [
    "ResolvedWeights",
    "WeightsEntry",
    "cache_dir",
    "cache_root",
    "candidates",
    "check_file",
    "check_finite",
    "check_keys",
    "check_unchanged",
    "entries",
    "fetch",
    "fetch_command",
    "get_entry",
    "is_offline",
    "load_state_dict",
    "load_strict",
    "locate",
    "register_weights",
    "resolve",
    "resolve_file",
    "sha256_file",
    "shipped_path",
    "torch_hub_dir",
    "unregister_weights",
    "verify_file",
    "weights_dirs",
]
