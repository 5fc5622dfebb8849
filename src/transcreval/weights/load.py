"""Safe loading: ``torch.load(weights_only=True)`` or safetensors, strict key matching.

Never ``strict=False``: a key mismatch that leaves layers random (lpips issue #106) is a
:class:`~transcreval.errors.WeightsFormatError` naming the missing and unexpected keys.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from transcreval.errors import WeightsFormatError

if TYPE_CHECKING:
    import torch


def load_state_dict(path: str | os.PathLike[str]) -> dict[str, torch.Tensor]:
    """Read a state dict onto the CPU: ``.safetensors`` with safetensors, anything else with
    ``torch.load(weights_only=True)`` (no arbitrary code runs). A nested ``{"state_dict": ...}``
    checkpoint is unwrapped."""
    import torch

    p = Path(path)
    try:
        if p.suffix == ".safetensors":
            from safetensors.torch import load_file

            data: Any = load_file(str(p), device="cpu")
        else:
            data = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise WeightsFormatError(
            f"cannot load weights from {p}: {type(exc).__name__}: {exc}. Is the file complete, and a "
            "PyTorch state dict (.pth/.pt, saved with torch.save) or a .safetensors file?"
        ) from exc
    if isinstance(data, Mapping) and "state_dict" in data and isinstance(data["state_dict"], Mapping):
        data = data["state_dict"]
    if not isinstance(data, Mapping) or not all(isinstance(v, torch.Tensor) for v in data.values()):
        raise WeightsFormatError(f"{p} does not hold a state dict (a mapping of names to tensors)")
    return dict(data)


def check_keys(state: Mapping[str, Any], expected: Mapping[str, Any] | set[str], what: str) -> None:
    """Raise WeightsFormatError unless ``state`` has exactly the ``expected`` keys (and shapes,
    when ``expected`` maps names to tensors)."""
    want = set(expected)
    have = set(state)
    missing = sorted(want - have)
    unexpected = sorted(have - want)
    problems = []
    if missing:
        problems.append(f"missing {len(missing)} keys ({', '.join(missing[:6])}{' ...' if len(missing) > 6 else ''})")
    if unexpected:
        problems.append(
            f"unexpected {len(unexpected)} keys ({', '.join(unexpected[:6])}{' ...' if len(unexpected) > 6 else ''})"
        )
    if isinstance(expected, Mapping):
        for k in sorted(want & have):
            a, b = getattr(state[k], "shape", None), getattr(expected[k], "shape", None)
            if a is not None and b is not None and tuple(a) != tuple(b):
                problems.append(f"{k}: shape {tuple(a)}, expected {tuple(b)}")
    if problems:
        raise WeightsFormatError(f"{what}: the weights do not match the network: " + "; ".join(problems))


def load_strict(module: torch.nn.Module, state: Mapping[str, torch.Tensor], what: str, *, assign: bool = False) -> None:
    """``module.load_state_dict(state, strict=True)`` with a readable error on any mismatch."""
    check_keys(state, module.state_dict(), what)
    module.load_state_dict(dict(state), strict=True, assign=assign)


def check_finite(state: Mapping[str, Any], what: str) -> None:
    """Raise WeightsFormatError naming the tensors of ``state`` that hold NaN or infinite values
    (such weights give NaN for every input)."""
    import torch

    bad = [
        k
        for k, v in state.items()
        if isinstance(v, torch.Tensor) and v.is_floating_point() and not bool(torch.isfinite(v).all())
    ]
    if bad:
        raise WeightsFormatError(
            f"{what}: {len(bad)} tensors hold NaN or infinite values ({', '.join(bad[:6])}"
            f"{' ...' if len(bad) > 6 else ''}); the file is damaged or was saved from a diverged model"
        )
