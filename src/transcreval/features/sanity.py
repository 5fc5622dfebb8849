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

__all__ = ["MIN_INPUT_SPREAD", "constant_features", "feature_verdict", "warn_if_constant"]

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
    return feature_verdict(images, outputs)[1]


def feature_verdict(images: torch.Tensor, outputs: Mapping[str, torch.Tensor]) -> tuple[bool, str | None]:
    """``(settled, problem)``: ``problem`` as :func:`constant_features`; ``settled`` when the
    batch decided the question (the features are degenerate, or one output varies with the
    images), False when it could not tell (images too alike, non-finite features).

    The outputs are looked at deepest first (the last is the smallest, and where untrained
    weights show most), and the first one that varies ends the check: on LPIPS' trunk the
    first layer alone is ~16x the size of the rest.
    """
    import torch

    n = int(images.shape[0])
    if n < 2:
        return False, None
    x = images.detach().flatten(1).float()
    if float((x - x[:1]).abs().mean(dim=1).max()) < MIN_INPUT_SPREAD:
        return False, None
    problems = []
    for name, value in reversed(list(outputs.items())):
        f = value.detach().flatten(1).to(torch.float64)
        if not bool(torch.isfinite(f).all()):
            return False, None  # non-finite features are reported by the metrics themselves
        size = float(f.norm(dim=1).max()) / max(f.shape[1], 1) ** 0.5
        spread = float((f - f[:1]).norm(dim=1).max()) / max(float(f[0].norm()), 1e-30)
        if size < ABS_SIZE:
            problems.append(f"{name!r} is vanishing (root-mean-square {size:.1e})")
        elif spread < REL_SPREAD:
            problems.append(f"{name!r} is the same for every image (relative spread {spread:.1e})")
        else:
            return True, None
    return True, "; ".join(reversed(problems)) or None


def warn_if_constant(name: str, signature: str, images: torch.Tensor, outputs: Mapping[str, torch.Tensor]) -> bool:
    """Warn (pointing at the caller's line) when :func:`constant_features` finds a problem;
    returns whether the question is settled for these weights (warned, or the features vary
    with the images): an extractor stops checking then, its weights being pinned."""
    from transcreval.utils.warn import warn_user

    settled, problem = feature_verdict(images, outputs)
    if problem is None:
        return settled
    warn_user(
        f"extractor {name!r} ({signature}) gave degenerate features for {images.shape[0]} different images: "
        f"{problem}. Its weights are probably not trained (a random initialisation?): every distance computed "
        "from them is meaningless. Load the real weights (`transcreval weights list` shows where they are looked for)."
    )
    return True
