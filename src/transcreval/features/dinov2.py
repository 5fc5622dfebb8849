"""DINOv2 (ViT-S/14, ViT-B/14) CLS features through timm, from torch hub's or timm's weights file.

The network is timm's ``vit_small_patch14_dinov2`` / ``vit_base_patch14_dinov2`` built for
224x224 inputs; weights load from either layout, through timm's own ``checkpoint_filter_fn``
(which turns torch hub's DINOv2 checkpoint, ``dinov2_vits14_pretrain.pth`` with its
``mask_token``, into timm's keys and resamples the 37x37 position embeddings of the 518-pixel
model to the 16x16 grid), then strict loading. The output is the CLS token after the final
norm (``model(x)`` of timm's model with ``num_classes=0``).

Preprocessing ``dinov2-224-v2`` (our choice; MPTc-Bench does not state one): torchvision's
``Resize(256, bicubic, antialias=True)`` + ``CenterCrop(224)`` + ImageNet ``Normalize`` on float
tensors, as torch ops with torchvision's exact sizes (the longer side ``int(256 * long / short)``,
truncated; the crop offset ``int(round((size - 224) / 2))``), resized values clamped to [0, 1].
(The earlier pipeline ``dinov2-224`` rounded the longer side and floored the offset: on e.g.
1024x683 images it resized to 384x256 instead of 383x256, input differences up to 0.62.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from transcreval.errors import WeightsFormatError
from transcreval.features.preprocess import Preprocess, register_preprocess
from transcreval.features.registry import ExtractorSpec, register_extractor
from transcreval.weights.load import load_state_dict, load_strict

if TYPE_CHECKING:
    import torch

__all__ = ["ARCHS", "build_dinov2", "crop_offset", "preprocess_dinov2", "resized_size"]

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
#: extractor name -> (timm architecture, manifest entry (transcreval.weights.builtin), torch hub file)
ARCHS = {
    "dinov2-vits14": ("vit_small_patch14_dinov2", "dinov2-vits14", "dinov2_vits14_pretrain.pth"),
    "dinov2-vitb14": ("vit_base_patch14_dinov2", "dinov2-vitb14", "dinov2_vitb14_pretrain.pth"),
}

RESIZE, CROP = 256, 224


def resized_size(h: int, w: int, size: int = RESIZE) -> tuple[int, int]:
    """torchvision's ``Resize(size)`` output: the shorter side ``size``, the longer
    ``int(size * long / short)`` (truncated, as torchvision computes it)."""
    if h <= w:
        return size, max(1, int(size * w / h))
    return max(1, int(size * h / w)), size


def crop_offset(length: int, crop: int = CROP) -> int:
    """torchvision's ``CenterCrop`` offset along one side: ``int(round((length - crop) / 2.0))``."""
    return round((length - crop) / 2.0)


def preprocess_dinov2(x: torch.Tensor) -> torch.Tensor:
    """torchvision's Resize(256, bicubic, antialias) (clamped to [0, 1]), CenterCrop(224), ImageNet Normalize."""
    import torch
    import torch.nn.functional as F

    h, w = x.shape[-2:]
    oh, ow = resized_size(int(h), int(w))
    y = F.interpolate(x.float(), size=(oh, ow), mode="bicubic", antialias=True, align_corners=False).clamp(0, 1)
    top, left = crop_offset(oh), crop_offset(ow)
    y = y[..., top : top + CROP, left : left + CROP]
    mean = torch.tensor(IMAGENET_MEAN, device=y.device).view(1, 3, 1, 1)
    std = torch.tensor(IMAGENET_STD, device=y.device).view(1, 3, 1, 1)
    return (y - mean) / std


register_preprocess(
    Preprocess(
        "dinov2-224-v2",
        preprocess_dinov2,
        "torchvision Resize(256, bicubic, antialias) clamped to [0, 1], CenterCrop(224), ImageNet Normalize",
    )
)


def timm_dinov2(arch: str) -> Any:
    """timm's DINOv2 architecture for 224x224 inputs, randomly initialised (no download)."""
    import timm

    return timm.create_model(arch, pretrained=False, img_size=224, num_classes=0)


def build_dinov2(spec: ExtractorSpec, weights: Mapping[str, Any], device: torch.device, dtype: torch.dtype) -> Any:
    """Build the extractor from a torch hub- or timm-layout file (timm's filter, then strict keys)."""
    import torch
    from timm.models.vision_transformer import checkpoint_filter_fn

    from transcreval.features.images import fixed_batches

    arch, entry, _ = ARCHS[spec.name]
    resolved = weights[entry]
    state = load_state_dict(resolved.path)
    model = timm_dinov2(arch)
    try:
        state = checkpoint_filter_fn(state, model)
    except Exception as exc:  # timm's own conversion failed: the file is not a DINOv2 checkpoint
        raise WeightsFormatError(f"{resolved.path} is not a DINOv2 {arch} checkpoint ({exc})") from exc
    load_strict(model, state, f"extractor {spec.name} from {resolved.path}")

    class _CLS(torch.nn.Module):
        def __init__(self, net: torch.nn.Module) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return fixed_batches(self.net, x)

    return _CLS(model).to(device=device, dtype=dtype)


for _ext, (_arch, _entry, _file) in ARCHS.items():
    register_extractor(
        ExtractorSpec(
            name=_ext,
            backend="timm",
            weights=(_entry,),
            preprocess="dinov2-224-v2",
            outputs=("cls",),
            build="transcreval.features.dinov2:build_dinov2",
            requires=(("timm", "image"),),
            description=f"DINOv2 {_arch}: CLS token after the final norm (timm), 224x224",
        )
    )
del _ext, _arch, _entry, _file
