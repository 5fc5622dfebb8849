"""Thumbnails for the report's galleries: images decoded through :mod:`transcreval.io`,
shrunk, with an optional OCR text mask overlaid in red, encoded as PNG bytes."""

from __future__ import annotations

import io as _io
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from transcreval.errors import InputError, MissingDependencyError

__all__ = ["ItemImages", "figure_png", "thumbnail_png"]

MASK_RGB = (230, 30, 30)
MASK_ALPHA = 0.45


@dataclass(frozen=True)
class ItemImages:
    """Where the report finds each item's pictures (paths, bytes, PIL images, arrays or tensors).

    Attributes:
        source: ``{item_id: image}``, the source posters.
        reference: ``{item_id: image}``, the human target-market references.
        outputs: ``{system: {item_id: image}}``, each system's outputs.
        masks: ``{"source" | "reference": {item_id: mask}}``: OCR text masks (bool, or an image
            whose bright pixels are text) overlaid in red on the source and reference pictures.
        output_masks: ``{system: {item_id: mask}}``: the same on each system's outputs (apart
            from ``masks``: a system may itself be named "source" or "reference").
        size: the longest side of a thumbnail, in pixels.

    The pictures are asked for by role and, for an output, by system (:meth:`image`,
    :meth:`mask`), so a system's name is never read as a role.
    """

    source: Mapping[str, Any] = field(default_factory=dict)
    reference: Mapping[str, Any] = field(default_factory=dict)
    outputs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    masks: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    output_masks: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    size: int = 160

    def __post_init__(self) -> None:
        if isinstance(self.size, bool) or not isinstance(self.size, int) or not 16 <= self.size <= 2048:
            raise InputError(f"ItemImages.size must be an integer from 16 to 2048 pixels, got {self.size!r}")
        for name in ("source", "reference", "outputs", "masks", "output_masks"):
            if not isinstance(getattr(self, name), Mapping):
                raise InputError(f"ItemImages.{name} must be a mapping keyed by item id (or by system / role)")
        other = [k for k in self.masks if k not in _INPUT_ROLES]
        if other:
            raise InputError(
                f"ItemImages.masks holds the 'source' and 'reference' masks only, not {other!r}: give a system's "
                "masks as output_masks={system: {item_id: mask}}"
            )

    def image(self, role: str, item_id: str, system: str | None = None) -> Any:
        """The picture of ``role``: ``"source"``, ``"reference"``, or ``"output"`` of ``system``; None
        where none was given."""
        if role == "output":
            return self.outputs.get(_system(system), {}).get(item_id)
        return _role(self, role).get(item_id)

    def mask(self, role: str, item_id: str, system: str | None = None) -> Any:
        """The OCR mask of the same picture as :meth:`image`, or None."""
        if role == "output":
            return self.output_masks.get(_system(system), {}).get(item_id)
        _role(self, role)
        return self.masks.get(role, {}).get(item_id)


_INPUT_ROLES = ("source", "reference")


def _role(images: ItemImages, role: str) -> Mapping[str, Any]:
    if role not in _INPUT_ROLES:
        raise InputError(f"a picture's role is 'source', 'reference' or 'output' (with its system), got {role!r}")
    return images.source if role == "source" else images.reference


def _system(system: str | None) -> str:
    if system is None:
        raise InputError("an output picture needs its system: image('output', item_id, system)")
    return system


def _pil() -> Any:
    try:
        from PIL import Image
    except ImportError as e:  # pragma: no cover - pillow is a core dependency
        raise MissingDependencyError("report thumbnails", "pillow", "report") from e
    return Image


def _decoded(image: Any, limit: int) -> Any:
    """A PIL RGB image of at most ``limit`` pixels a side, decoded through transcreval.io."""
    from transcreval.io import open_image, to_rgb_float

    Image = _pil()
    if isinstance(image, (str, bytes, bytearray, os.PathLike)):
        image = open_image(image)
        image.thumbnail((limit, limit))
    t = to_rgb_float(image)
    x = t[0]  # one image: a 1 x 3 x H x W tensor
    arr = x.detach().cpu().clamp(0, 1).mul(255).round().byte().permute(1, 2, 0).numpy()
    im = Image.fromarray(arr, mode="RGB")
    im.thumbnail((limit, limit))
    return im


def _overlay(im: Any, mask: Any) -> Any:
    from transcreval.io import to_rgb_float

    Image = _pil()
    t = to_rgb_float(mask)
    m = t[0][0] >= 0.5  # the first channel of the one mask
    layer = Image.fromarray(m.cpu().numpy().astype("uint8") * 255, mode="L").resize(im.size, Image.Resampling.NEAREST)
    alpha = layer.point(lambda v: int(v * MASK_ALPHA))
    red = Image.new("RGB", im.size, MASK_RGB)
    return Image.composite(red, im, alpha)


def thumbnail_png(image: Any, mask: Any = None, size: int = 160) -> bytes:
    """PNG bytes of a thumbnail (longest side ``size``), with ``mask`` overlaid in red if given."""
    im = _decoded(image, size)
    if mask is not None:
        im = _overlay(im, mask)
    buf = _io.BytesIO()
    im.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def figure_png(figure: Any, dpi: int = 110) -> bytes:
    """PNG bytes of a matplotlib figure (or of the figure of a ``(fig, ax)`` pair)."""
    fig = figure[0] if isinstance(figure, tuple) else figure
    if not hasattr(fig, "savefig"):
        raise InputError(f"expected a matplotlib Figure or a (fig, ax) pair, got {type(figure).__name__}")
    buf = _io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()
