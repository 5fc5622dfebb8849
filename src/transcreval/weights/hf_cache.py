"""Files in the Hugging Face hub cache, found without importing huggingface_hub or going online.

open_clip downloads its pretrained checkpoints (CLIP, SigLIP) and tokenizers through
``huggingface_hub`` into the hub cache (``$HF_HUB_CACHE``, by default
``~/.cache/huggingface/hub``): ``models--<org>--<name>/snapshots/<commit>/<file>``, with
``refs/main`` naming the commit a plain download resolved to. The weights resolver searches it
like torch hub's checkpoint directory, so a machine where open_clip ran once needs no network.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cached_file", "hf_hub_cache", "repo_dir", "snapshot_with"]


def hf_hub_cache() -> Path:
    """The hub cache directory, as huggingface_hub computes it (``HF_HUB_CACHE``,
    ``HUGGINGFACE_HUB_CACHE``, ``HF_HOME/hub``, ``XDG_CACHE_HOME/huggingface/hub``)."""
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var, "").strip():
            return Path(os.environ[var]).expanduser()
    home = os.environ.get("HF_HOME", "").strip()
    if home:
        return Path(home).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.join("~", ".cache")
    return Path(xdg).expanduser() / "huggingface" / "hub"


def repo_dir(repo: str) -> Path:
    """The cache directory of model repository ``org/name``."""
    return hf_hub_cache() / ("models--" + repo.replace("/", "--"))


def _snapshots(repo: str) -> list[Path]:
    d = repo_dir(repo)
    out = []
    ref = d / "refs" / "main"
    if ref.is_file():
        out.append(d / "snapshots" / ref.read_text(encoding="utf-8").strip())
    snaps = d / "snapshots"
    if snaps.is_dir():
        out += sorted(p for p in snaps.iterdir() if p.is_dir() and p not in out)
    return out


def cached_file(repo: str, filename: str) -> Path | None:
    """The cached ``filename`` of ``repo`` (the snapshot ``refs/main`` names first), or None."""
    for snap in _snapshots(repo):
        if (snap / filename).is_file():
            return snap / filename
    return None


def snapshot_with(repo: str, *any_of: str) -> Path | None:
    """A cached snapshot directory of ``repo`` holding at least one of ``any_of``, or None."""
    for snap in _snapshots(repo):
        if any((snap / f).is_file() for f in any_of):
            return snap
    return None
