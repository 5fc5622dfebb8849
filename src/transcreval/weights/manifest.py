"""The weights manifest: every model file transcreval knows, by name.

A :class:`WeightsEntry` describes **one file**: its file name (how it is found in a directory),
sha256 and size (how it is verified), where it can be downloaded, its licence, which extractor
or metric uses it, and optionally which installed package already ships it (the ``lpips`` wheel
ships its linear layers) and whether torch hub's checkpoint directory may hold it (torchvision
trunks). Models made of several files (a transformers directory, an open_clip checkpoint plus a
config) are several entries; an extractor lists every entry it needs.

The files transcreval itself uses (the LPIPS trunks and layers, FID's Inception, DINOv2, the
default CLIP/SigLIP checkpoints, the COMET models, PP-OCRv5) are data in
:mod:`transcreval.weights.builtin`, registered when this module is imported: the manifest knows
them without importing any extractor or engine. Adding your own model is one
:func:`register_weights` call per file::

    register_weights(WeightsEntry(
        name="my-inception",                      # stable public name, used by the CLI
        filename="pt_inception-2015-12-05-6726825d.pth",
        sha256="6726825d...",                     # full hex digest; None only with sha256_note
        size=95_628_359,
        urls=("https://github.com/.../pt_inception-2015-12-05-6726825d.pth",),
        licence="Apache-2.0",
        used_by=("extractor my-inception", "FID"),
        hash_source="how the digest was established",
    ))

Hugging Face files are ordinary entries whose URL is a ``/resolve/<revision>/<file>`` address
(pin the revision to a commit so the sha256 stays valid).

This module imports nothing heavy (no torch), so ``transcreval weights list`` stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator

from transcreval.utils.named_table import NamedTable
from transcreval.weights.builtin import BUILTIN
from transcreval.weights.entry import WeightsEntry

__all__ = ["WeightsEntry", "entries", "get_entry", "register_weights", "unregister_weights"]

_MANIFEST = NamedTable("weights", WeightsEntry)


def register_weights(entry: WeightsEntry, *, overwrite: bool = False) -> WeightsEntry:
    """Add a file to the manifest (``overwrite=True`` to replace an entry of the same name)."""
    return _MANIFEST.add(entry, overwrite=overwrite, caller="register_weights")


def unregister_weights(name: str) -> None:
    """Remove an entry (mainly for tests that register temporary files)."""
    _MANIFEST.remove(name)


def get_entry(name: str) -> WeightsEntry:
    """The manifest entry called ``name``; a ``KeyError`` lists the known names."""
    return _MANIFEST.get(name)


def entries() -> Iterator[WeightsEntry]:
    """Every registered entry, sorted by name."""
    return iter(_MANIFEST.values())


for _entry in BUILTIN:
    register_weights(_entry)
del _entry
