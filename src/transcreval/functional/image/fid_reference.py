"""Saved FID reference statistics: a set's float64 moment sums with the signature that made them.

A reference file is a safetensors file holding ``n`` (int64), ``sum`` (d, float64) and
``outer`` (d x d, float64), with metadata: the format name and version, the feature
extractor's identity (network, weights sha256, preprocessing, dtype, output) and the
transcreval version. Loading it into a metric whose extractor has another identity raises
:class:`~transcreval.errors.SignatureMismatchError` naming every difference: numbers computed
with other weights or another resize are never mixed silently (clean-fid and torch-fidelity
key their stored statistics by a user-chosen name only). Writes are atomic (a temporary file
in the same directory, then ``os.replace``).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from transcreval._version import __version__
from transcreval.errors import InputError, SignatureMismatchError

if TYPE_CHECKING:
    import torch

__all__ = ["FORMAT", "check_reference_identity", "load_fid_reference", "save_fid_reference"]

FORMAT = "transcreval-fid-reference"
FORMAT_VERSION = "1"


def save_fid_reference(path: str | os.PathLike[str], stats: Mapping[str, Any], identity: Mapping[str, Any]) -> Path:
    """Write ``stats`` (``n``, ``sum``, ``outer``) and the extractor ``identity`` to ``path``."""
    import torch
    from safetensors.torch import save_file

    n = int(stats["n"])
    if n < 2:
        raise InputError(f"a FID reference needs at least 2 images, this one has {n}")
    tensors = {
        "n": torch.tensor([n], dtype=torch.int64),
        "sum": stats["sum"].detach().to("cpu", torch.float64).contiguous(),
        "outer": stats["outer"].detach().to("cpu", torch.float64).contiguous(),
    }
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "identity": json.dumps(dict(identity), sort_keys=True),
        "n": str(n),
        "transcreval": __version__,
    }
    dest = Path(path).expanduser()
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    os.close(fd)
    try:
        save_file(tensors, tmp, metadata=meta)
        os.replace(tmp, dest)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return dest


def load_fid_reference(path: str | os.PathLike[str]) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """``({"n", "sum", "outer"}, identity)`` from a file written by :func:`save_fid_reference`."""
    import torch
    from safetensors import safe_open

    p = Path(path).expanduser()
    if not p.is_file():
        raise InputError(f"FID reference {p} does not exist (create one with FID.save_reference(path))")
    try:
        with safe_open(str(p), framework="pt") as f:
            meta = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118
    except Exception as exc:
        raise InputError(f"{p} is not a readable FID reference file ({type(exc).__name__}: {exc})") from exc
    if meta.get("format") != FORMAT or set(tensors) != {"n", "sum", "outer"}:
        raise InputError(f"{p} is not a transcreval FID reference (format {meta.get('format')!r})")
    if meta.get("format_version") != FORMAT_VERSION:
        raise InputError(f"{p}: FID reference format version {meta.get('format_version')!r} is not supported")
    n_t = tensors["n"]
    if n_t.dtype != torch.int64 or n_t.numel() != 1 or str(meta.get("n")) != str(int(n_t.reshape(()))):
        raise InputError(
            f"{p}: inconsistent FID reference: the image count must be one int64 equal to the metadata's "
            f"(tensor n {n_t.dtype} {n_t.flatten().tolist()[:2]}, metadata n {meta.get('n')!r}); recompute it"
        )
    stats = {"n": n_t.reshape(()), "sum": tensors["sum"], "outer": tensors["outer"]}
    d = stats["sum"].shape[0] if stats["sum"].ndim == 1 else -1
    if d < 1 or stats["outer"].shape != (d, d) or int(stats["n"]) < 2:
        raise InputError(
            f"{p}: inconsistent FID reference (n={int(stats['n'])}, sum {tuple(stats['sum'].shape)}, "
            f"outer {tuple(stats['outer'].shape)})"
        )
    try:
        identity = json.loads(meta["identity"])
    except (KeyError, TypeError, ValueError):
        identity = None
    if not isinstance(identity, dict):
        raise InputError(
            f"{p} is not a valid FID reference (bad identity metadata: {meta.get('identity')!r:.80}); "
            "recompute it with FID(...).update(images, real=True); .save_reference(path)"
        )
    identity["_saved_with"] = meta.get("transcreval", "?")
    return stats, identity


def check_reference_identity(saved: Mapping[str, Any], current: Mapping[str, Any], path: Any) -> None:
    """Raise SignatureMismatchError unless the saved identity equals the current extractor's.

    The versions of the packages that computed the features (recorded since they key the
    feature cache) are compared too, but only warned about: an upgrade changes Inception features
    in the last bits at most, and a reference stays usable."""
    keys = sorted((set(saved) | set(current)) - {"_saved_with", "versions"})
    if "versions" in saved and saved.get("versions") != current.get("versions"):
        from transcreval.utils.warn import warn_user

        warn_user(
            f"the FID reference {path} was computed with package versions {saved['versions']}, this FID runs "
            f"with {current.get('versions')}: numbers may differ in the last digits"
        )
    diffs = [
        f"{k}: reference {saved.get(k)!r}, this metric {current.get(k)!r}"
        for k in keys
        if saved.get(k) != current.get(k)
    ]
    if diffs:
        raise SignatureMismatchError(
            f"the FID reference {path} was computed with other settings than this FID: "
            + "; ".join(diffs)
            + ". Recompute the reference with this metric's weights and preprocessing "
            "(FID(...).update(images, real=True); .save_reference(path)), or build the FID with the "
            "reference's settings."
        )
