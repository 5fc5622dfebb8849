"""``batch_transform``: open_clip's PIL transform on a list of images, the PIL steps per image on
worker threads and ``ToTensor`` + ``Normalize`` once on the batch, equal bit for bit to stacking
the transform of each image (every resize mode, any image size and mode)."""

from __future__ import annotations

import numpy as np
import open_clip
import pytest
import torch
from PIL import Image

from transcreval.features.clip_preprocess import batch_transform


def _images() -> list[Image.Image]:
    rng = np.random.default_rng(0)
    sizes = [(300, 200), (200, 300), (64, 64), (17, 301), (224, 224)]
    out = [Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)) for h, w in sizes]
    out.append(Image.fromarray(rng.integers(0, 256, (120, 90), dtype=np.uint8)))  # grayscale
    out.append(Image.fromarray(rng.integers(0, 256, (90, 120, 4), dtype=np.uint8), "RGBA"))
    out.append(out[0].convert("P"))
    return out


@pytest.mark.parametrize("mode", ["shortest", "longest", "squash"])
@pytest.mark.parametrize("size", [224, 48])
def test_equal_to_the_per_image_transform(mode, size):
    t = open_clip.image_transform(size, is_train=False, resize_mode=mode)
    imgs = _images()
    want = torch.stack([t(p) for p in imgs])
    got = batch_transform(t)(imgs)
    assert got.dtype == want.dtype and got.shape == want.shape and got.is_contiguous()
    assert torch.equal(got, want)
    assert torch.equal(batch_transform(t)(imgs[:1]), want[:1])


def test_a_transform_of_another_shape_is_applied_per_image():
    """Anything but [PIL steps..., ToTensor, Normalize] (here a plain function) keeps the per-image path."""
    t = open_clip.image_transform(32, is_train=False)
    imgs = _images()[:3]
    assert torch.equal(batch_transform(lambda p: t(p) * 2)(imgs), torch.stack([t(p) * 2 for p in imgs]))


def test_pil_steps_that_end_in_different_sizes_fall_back():
    """A custom transform without a crop gives images of different sizes: the per-image path,
    which raises as torch.stack would."""
    from torchvision.transforms import Compose, Normalize, Resize, ToTensor

    t = Compose([Resize(32), ToTensor(), Normalize((0.5,) * 3, (0.5,) * 3)])
    imgs = _images()[:2]  # 300x200 and 200x300: 48x32 and 32x48
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        batch_transform(t)(imgs)
    same = [imgs[0], imgs[0].transpose(Image.Transpose.FLIP_LEFT_RIGHT)]
    assert torch.equal(batch_transform(t)(same), torch.stack([t(p) for p in same]))
