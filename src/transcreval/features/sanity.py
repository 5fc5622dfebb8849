"""A check that an extractor's features carry information: degenerate weights give the same
(or vanishing) features for every image, and every distance computed from them is ~0.

A random initialisation is the usual cause: timm's DINOv2 starts its LayerScale near zero (the
blocks do nothing, so the CLS token barely depends on the image) and PyTorch's default
initialisation of a deep Inception shrinks the activations layer after layer (pool features of
about 1e-6). A metric built on such weights returns plausible-looking numbers (FID 9e-13, DINOv2
distance 0.0000), so the extractor warns once when it sees it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

__all__ = ["MIN_INPUT_SPREAD", "constant_features"]

#: images must differ by at least this mean absolute pixel difference (in [0, 1]) to be checked
MIN_INPUT_SPREAD = 0.01
#: features whose largest distance to the first image's is below this fraction of its norm
REL_SPREAD = 1e-3
#: features whose root-mean-square value is below this are vanishing
ABS_SIZE = 1e-4


def constant_features(images: torch.Tensor, outputs: Mapping[str, torch.Tensor]) -> str | None:
    """Why ``outputs`` look degenerate for the batch ``images`` (None when they do not, or when
    the images are too alike to tell: fewer than 2, or a mean absolute pixel difference to the
    first image below :data:`MIN_INPUT_SPREAD` for every image)."""
    import torch

    n = int(images.shape[0])
    if n < 2:
        return None
    x = images.detach().flatten(1).float()
    if float((x - x[:1]).abs().mean(dim=1).max()) < MIN_INPUT_SPREAD:
        return None
    problems = []
    for name, value in outputs.items():
        f = value.detach().flatten(1).to(torch.float64)
        if not bool(torch.isfinite(f).all()):
            return None  # non-finite features are reported by the metrics themselves
        size = float(f.norm(dim=1).max()) / max(f.shape[1], 1) ** 0.5
        spread = float((f - f[:1]).norm(dim=1).max()) / max(float(f[0].norm()), 1e-30)
        if size < ABS_SIZE:
            problems.append(f"{name!r} is vanishing (root-mean-square {size:.1e})")
        elif spread < REL_SPREAD:
            problems.append(f"{name!r} is the same for every image (relative spread {spread:.1e})")
        else:
            return None
    return "; ".join(problems) or None


def warn_if_constant(name: str, signature: str, images: torch.Tensor, outputs: Mapping[str, torch.Tensor]) -> bool:
    """Warn (pointing at the caller's line) when :func:`constant_features` finds a problem;
    returns whether it warned."""
    from transcreval.warn import warn_user

    problem = constant_features(images, outputs)
    if problem is None:
        return False
    warn_user(
        f"extractor {name!r} ({signature}) gave degenerate features for {images.shape[0]} different images: "
        f"{problem}. Its weights are probably not trained (a random initialisation?): every distance computed "
        "from them is meaningless. Load the real weights (`transcreval weights list` shows where they are looked for)."
    )
    return True
