"""What an open_clip image encoder sees: the crop modes and the two preprocessing paths.

open_clip models see a square (224x224 for ViT-B-32). How a poster of another shape becomes
that square is the ``crop`` option of the CLIP-family metrics:

* ``None`` (default): the model's own transform, as the papers used it: CLIP resizes the
  shorter side and cuts the centre square (a portrait poster loses its top and bottom, often
  the title), SigLIP squashes the whole image to the square;
* ``"center"``: shorter side to the size, centre crop (CLIP's own mode, forced);
* ``"pad"``: longer side to the size, the rest padded with black (the whole poster, smaller);
* ``"squash"``: the whole image stretched to the square (aspect ratio changed).

``docs/metrics/CLIPSimilarity.md`` shows the three on a portrait poster
(``docs/images/clip-crop.png``).

Paths: ``preprocess="open_clip"`` applies open_clip's own PIL transform (``open_clip.
image_transform`` with the chosen resize mode), ``"tensor"`` the same steps as torch ops on
float pixels (faster, slightly different numbers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from transcreval.errors import InputError

if TYPE_CHECKING:
    import torch

__all__ = [
    "CROPS",
    "RESIZE_MODES",
    "batch_transform",
    "check_crop",
    "pil_transform",
    "resize_mode",
    "tensor_pipeline",
]

CROPS = (None, "center", "pad", "squash")
#: crop option -> open_clip's resize mode
RESIZE_MODES = {"center": "shortest", "pad": "longest", "squash": "squash"}


def check_crop(crop: Any) -> str | None:
    if crop not in CROPS:
        raise InputError(f"crop must be None (the model's own transform), 'center', 'pad' or 'squash', got {crop!r}")
    return crop


def resize_mode(cfg: dict[str, Any], crop: str | None) -> str:
    """open_clip's resize mode for ``crop`` (None: the model's own)."""
    return str(cfg.get("resize_mode", "shortest")) if crop is None else RESIZE_MODES[crop]


def pil_transform(net: Any, own: Any, crop: str | None) -> Any:
    """The PIL transform for ``crop``: the model's own transform ``own`` when ``crop`` is None or
    names the model's own mode, else open_clip's transform with that resize mode."""
    import open_clip

    cfg = dict(net.visual.preprocess_cfg)
    if crop is None or RESIZE_MODES[crop] == cfg.get("resize_mode", "shortest"):
        return own
    return open_clip.image_transform(
        cfg["size"],
        is_train=False,
        mean=cfg.get("mean"),
        std=cfg.get("std"),
        resize_mode=RESIZE_MODES[crop],
        interpolation=cfg.get("interpolation"),
        fill_color=cfg.get("fill_color", 0),
    )


def batch_transform(transform: Any) -> Any:
    """``transform`` (open_clip's PIL transform) as a function of a list of PIL images returning
    their N x C x H x W batch, equal bit for bit to stacking ``transform(image)`` per image.

    The PIL steps (resize, crop, ``convert("RGB")``) run per image, spread over the thread
    budget's workers (PIL's resampling releases the GIL); the tensor steps (``ToTensor``'s
    ``/ 255`` and ``Normalize``) run once on the stacked uint8 batch, the same float32
    operations in the same order, so each element is the same number. A transform of another
    shape, or images that do not come out as same-size 8-bit RGB, take the per-image path.
    """
    import torch
    from open_clip.transform import MaybeToTensor
    from torchvision.transforms import Compose, Normalize, ToTensor

    from transcreval.utils.threads import map_threads

    steps = list(transform.transforms) if isinstance(transform, Compose) else []
    split = (  # exactly these classes: a subclass may compute something else
        len(steps) >= 2
        and type(steps[-2]) in (ToTensor, MaybeToTensor)
        and type(steps[-1]) is Normalize
        and not steps[-1].inplace
    )

    def per_image(pils: list[Any]) -> torch.Tensor:
        return torch.stack(map_threads(transform, pils))

    if not split:
        return per_image
    pil_steps, normalize = Compose(steps[:-2]), steps[-1]

    def batched(pils: list[Any]) -> torch.Tensor:
        import numpy as np

        if torch.get_default_dtype() != torch.float32:  # ToTensor converts to the default dtype
            return per_image(pils)
        out = map_threads(pil_steps, pils)
        if not out or any(getattr(p, "mode", None) != "RGB" or p.size != out[0].size for p in out):
            return per_image(pils)
        x = torch.from_numpy(np.stack([np.asarray(p, dtype=np.uint8) for p in out])).permute(0, 3, 1, 2).contiguous()
        return normalize(x.to(torch.float32).div(255))

    return batched


def tensor_pipeline(cfg: dict[str, Any], crop: str | None = None) -> Any:
    """open_clip's eval transform as torch ops on float [0, 1] images (``preprocess="tensor"``)."""
    size = cfg["size"]
    size = (size, size) if isinstance(size, int) else tuple(size)
    mode, interp = resize_mode(cfg, crop), cfg.get("interpolation", "bicubic")
    if size[0] != size[1] or interp not in ("bicubic", "bilinear"):
        raise InputError(f"preprocess='tensor' supports square bicubic/bilinear transforms, not {cfg}; use 'open_clip'")
    fill = float(cfg.get("fill_color", 0) or 0) / 255.0

    def fn(x: torch.Tensor) -> torch.Tensor:
        import torch
        import torch.nn.functional as F

        h, w = x.shape[-2:]
        s = size[0]
        if mode == "squash":
            oh, ow = s, s
        elif mode == "shortest":
            oh, ow = (s, int(s * w / h)) if h <= w else (int(s * h / w), s)
        else:  # longest: the whole image inside the square
            ratio = max(h / s, w / s)
            oh, ow = max(1, round(h / ratio)), max(1, round(w / ratio))
        y = F.interpolate(x.float(), size=(oh, ow), mode=interp, antialias=True, align_corners=False).clamp(0, 1)
        if mode == "longest":
            top, left = (s - oh) // 2, (s - ow) // 2
            y = F.pad(y, (left, s - ow - left, top, s - oh - top), value=fill)
        else:
            top, left = round((oh - s) / 2.0), round((ow - s) / 2.0)
            y = y[..., top : top + s, left : left + s]
        mean = torch.tensor(cfg["mean"], device=y.device, dtype=y.dtype).view(1, -1, 1, 1)
        std = torch.tensor(cfg["std"], device=y.device, dtype=y.dtype).view(1, -1, 1, 1)
        return (y - mean) / std

    return fn
