"""The decoding rule's pieces, each failing on the old code:
PIL modes and bit depths, fixed integer meanings, the N x H x W rule, judge image parts, mask
resizing (area majority, aspect ratio, colour masks) and LPIPS' memory guard."""

from __future__ import annotations

import io
import warnings
from fractions import Fraction

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PIL import Image

from tests._helpers import random_weights as rw
from transcreval.errors import InputError
from transcreval.io import split_batch, to_gray_uint8, to_rgb_float, to_rgb_pil, to_rgb_uint8
from transcreval.io.masks import check_mask_size, resize_mask, same_aspect

RNG = np.random.default_rng(15)
GRAY = RNG.integers(0, 256, (20, 28), dtype=np.uint8)
RGB = RNG.integers(0, 256, (20, 28, 3), dtype=np.uint8)


def _gray3(a: np.ndarray) -> np.ndarray:
    return np.repeat(a[..., None], 3, -1)


def _file(im: Image.Image, fmt: str) -> bytes:
    buf = io.BytesIO()
    im.save(buf, format=fmt)
    return buf.getvalue()


# ------------------------------------------------------------------ items 1, 18: modes and bit depths
@pytest.mark.parametrize(
    "make",
    [
        lambda: Image.fromarray(GRAY.astype(np.uint16) * 257),  # I;16 in memory
        lambda: _file(Image.fromarray(GRAY.astype(np.uint16) * 257), "PNG"),  # 16-bit PNG
        lambda: _file(Image.fromarray(GRAY.astype(np.uint16) * 257), "TIFF"),  # 16-bit TIFF
        lambda: _file(Image.fromarray(GRAY.astype(np.uint16) * 257), "PPM"),  # 16-bit PGM: PIL mode I
        lambda: _file(Image.fromarray(GRAY.astype(np.float32) / 255), "TIFF"),  # float TIFF: mode F
        lambda: Image.fromarray(GRAY).convert("I"),  # mode I holds L's scale
        lambda: GRAY.astype(np.uint16) * 257,  # uint16 array: 0..65535
        lambda: torch.from_numpy(GRAY.astype(np.float64) / 255)[None],
    ],
)
def test_high_depth_inputs_give_the_8bit_pixels_on_every_path(make):
    want = _gray3(GRAY)
    assert np.array_equal(to_rgb_uint8([make()])[0], want)
    assert np.array_equal(np.asarray(to_rgb_pil([make()])[0]), want)
    assert np.array_equal(np.asarray(to_gray_uint8([make()])[0]), GRAY)
    assert torch.allclose(to_rgb_float([make()])[0], torch.from_numpy(want).permute(2, 0, 1).float() / 255, atol=1e-6)


def test_a_16bit_png_is_not_clipped_by_pil():
    """PIL's own conversions clip 16-bit values at 255 (a white image); the rule scales them."""
    png16 = _file(Image.fromarray(GRAY.astype(np.uint16) * 257), "PNG")
    assert np.asarray(Image.open(io.BytesIO(png16)).convert("RGB")).mean() > 250  # what PIL (and imagehash) see
    assert abs(float(to_rgb_uint8(png16)[0].mean()) - float(GRAY.mean())) < 1e-9


@pytest.mark.parametrize("mode", ["1", "L", "LA", "P", "PA", "RGB", "RGBA", "CMYK", "YCbCr", "HSV"])
def test_8bit_modes_are_converted_by_pil(mode):
    im = Image.fromarray(RGB).convert(mode)
    want = np.asarray(im.convert("RGBA").convert("RGB") if mode in ("P", "PA", "LA") else im.convert("RGB"))
    assert np.array_equal(to_rgb_uint8(im)[0], want)
    assert np.array_equal(to_gray_uint8(im)[0], np.asarray(im.convert("L")))  # imagehash's own grayscale


def test_mode_i_outside_8bit_and_mode_f_outside_the_range_are_errors():
    with pytest.raises(InputError, match=r"mode 'I'.*0\.\.255.*I;16"):
        to_rgb_float(Image.fromarray(np.full((4, 4), 4000, dtype=np.int32)))
    with pytest.raises(InputError, match=r"input_range=\(0, 255\)"):
        to_rgb_float(Image.fromarray(np.full((4, 4), 200.0, dtype=np.float32)))
    f = Image.fromarray(np.full((4, 4), 200.0, dtype=np.float32))
    assert to_rgb_uint8(f, input_range=(0, 255))[0].max() == 200


# ------------------------------------------------------------------ item 17: integers have a fixed meaning
@pytest.mark.parametrize("rng", [(-1, 1), (0, 255), (0, 65535)])
def test_input_range_never_rescales_uint8_or_uint16(rng):
    want = torch.from_numpy(_gray3(GRAY)).permute(2, 0, 1).float()[None] / 255
    assert torch.equal(to_rgb_float(GRAY, input_range=rng), want)
    assert torch.allclose(to_rgb_float(GRAY.astype(np.uint16) * 257, input_range=rng), want, atol=1e-7)
    assert np.array_equal(to_gray_uint8(GRAY, input_range=rng)[0], GRAY)
    assert np.array_equal(to_rgb_uint8(torch.from_numpy(GRAY), input_range=rng)[0], _gray3(GRAY))


def test_integers_without_a_fixed_meaning_need_input_range():
    with pytest.raises(InputError, match=r"int64 has no fixed value range.*uint8.*uint16"):
        to_rgb_float(GRAY.astype(np.int64))
    assert torch.allclose(to_rgb_float(GRAY.astype(np.int64), input_range=(0, 255)), to_rgb_float(GRAY))


def test_the_range_error_names_the_stated_range():
    with pytest.raises(InputError, match=r"span \[-3, 2\], outside input_range=\(-1, 1\)"):
        to_rgb_float(np.array([[-3.0, 2.0]], dtype=np.float32), input_range=(-1, 1))


# ------------------------------------------------------------------ item 31: N x H x W
@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_top_level_3d_array_with_2_to_4_planes_is_ambiguous(n):
    x = np.stack([GRAY] * n)
    for arr in (x, torch.from_numpy(x)):
        with pytest.raises(InputError, match=r"ambiguous.*x\[:, None\]"):
            split_batch(arr)
    assert len(split_batch(x, channels="first")) == 1  # said explicitly: one image
    assert len(split_batch(x[:, None])) == n and len(split_batch(list(x))) == n
    assert len(split_batch(np.transpose(x, (1, 2, 0)))) == 1  # H x W x C: numpy's layout, one image


def test_a_3d_array_with_many_planes_says_how_to_pass_grayscale_images():
    with pytest.raises(InputError, match=r"cannot tell the channel dimension.*7 grayscale images.*x\[:, None\]"):
        to_rgb_float(np.zeros((7, 20, 28), dtype=np.uint8))
    assert to_rgb_float(torch.zeros(1, 20, 28)).shape == (1, 3, 20, 28)  # 1 x H x W is one image either way


# ------------------------------------------------------------------ item 16: one image per judge part
def test_to_image_part_refuses_a_batch_of_several_images():
    from transcreval.engines.judge.images import to_image_part

    batch = torch.from_numpy(np.stack([RGB, RGB[::-1]])).permute(0, 3, 1, 2)
    with pytest.raises(InputError, match=r"poster: expected one image, got a batch of 2"):
        to_image_part(batch, what="poster")
    assert to_image_part(batch[:1]).sha256 == to_image_part(RGB).sha256 == to_image_part(batch[0]).sha256
    with pytest.raises(InputError, match="expected one image, got a list"):
        to_image_part([RGB, RGB])


@pytest.fixture(scope="module")
def alex_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("w") / "alex.pth"
    torch.save(
        rw.lpips_layout_state("alex", rw.features_only(rw.trunk_state("alex", 7)), rw.lin_state("alex", 8)), path
    )
    return path


# ------------------------------------------------------------------ item 15: mask resizing
def _majority_reference(mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Area majority written out with exact fractions, pixel by pixel."""
    (hi, wi), (ho, wo) = mask.shape, size
    out = np.zeros(size, dtype=bool)
    for y in range(ho):
        for x in range(wo):
            area = Fraction(0)
            for sy in range(hi):
                oy = min(Fraction(y + 1, ho), Fraction(sy + 1, hi)) - max(Fraction(y, ho), Fraction(sy, hi))
                if oy <= 0:
                    continue
                for sx in range(wi):
                    if mask[sy, sx]:
                        ox = min(Fraction(x + 1, wo), Fraction(sx + 1, wi)) - max(Fraction(x, wo), Fraction(sx, wi))
                        if ox > 0:
                            area += oy * ox
            out[y, x] = area > Fraction(1, 2 * ho * wo)  # more than half of the output pixel's area
    return out


@pytest.mark.parametrize(
    ("src", "dst"), [((12, 18), (8, 12)), ((9, 7), (20, 15)), ((16, 16), (5, 5)), ((10, 6), (10, 9))]
)
def test_area_majority_equals_an_exact_fraction_reference(src, dst):
    m = np.random.default_rng(sum(src) + sum(dst)).random(src) > 0.5
    got = resize_mask(torch.from_numpy(m).float(), dst)
    assert got.dtype == torch.float32 and np.array_equal(got.numpy() > 0.5, _majority_reference(m, dst))


def _stroke_mask(h: int, w: int, cols: list[int]) -> torch.Tensor:
    """A background mask (1 = counts) with one-pixel text strokes (0) at ``cols``."""
    m = torch.ones(h, w)
    m[:, cols] = 0
    return m


def test_thin_text_strokes_survive_where_legacy_nearest_drops_them():
    big = _stroke_mask(64, 128, list(range(1, 128, 4)))  # 1-px strokes at odd columns
    nearest = F.interpolate(big[None, None], size=(32, 64), mode="nearest")[0, 0]  # the old resize
    assert int((nearest == 0).sum()) == 0  # every stroke gone: text counted as background
    assert int((resize_mask(big, (32, 64)) == 0).sum()) == 32 * 32  # each stroke kept (a tie counts as text)
    for offset in range(4):  # strokes as wide as a resized pixel survive at any offset
        wide = _stroke_mask(64, 128, [c + d for c in range(offset, 124, 8) for d in (0, 1)])
        assert int((resize_mask(wide, (32, 64)) == 0).sum()) >= 32 * len(range(offset, 124, 8)), offset


def test_masked_lpips_uses_the_area_majority_mask(alex_file):
    from transcreval.functional import masked_lpips_per_pair

    path = alex_file
    g = torch.Generator().manual_seed(3)
    a, b = torch.rand(1, 3, 40, 48, generator=g), torch.rand(1, 3, 40, 48, generator=g)
    big = _stroke_mask(80, 96, list(range(1, 96, 4)))
    with pytest.warns(UserWarning, match="area majority"):
        got = masked_lpips_per_pair(a, b, big, weights=path)
    assert torch.equal(got, masked_lpips_per_pair(a, b, resize_mask(big, (40, 48)) > 0.5, weights=path))
    assert not torch.equal(got, masked_lpips_per_pair(a, b, torch.ones(40, 48, dtype=torch.bool), weights=path))


# ------------------------------------------------------------------ item 24: mask shapes
def test_aspect_ratio_rule():
    assert same_aspect((384, 256), (768, 512)) and same_aspect((383, 255), (767, 511))
    assert not same_aspect((256, 384), (384, 256))
    assert check_mask_size((48, 32), (96, 64), False, "mask 0") is True
    with pytest.raises(InputError, match=r"mask 0 is 32x48.*images are 48x32.*looks transposed.*resize_mask=True"):
        check_mask_size((32, 48), (48, 32), False, "mask 0")
    assert check_mask_size((32, 48), (48, 32), True, "mask 0") is True


@pytest.mark.parametrize("cls", ["MaskedLPIPS", "BackgroundPreservation"])
def test_a_transposed_mask_is_an_error_unless_resize_mask(alex_file, cls):
    import transcreval

    g = torch.Generator().manual_seed(4)
    a, b = torch.rand(2, 3, 40, 56, generator=g), torch.rand(2, 3, 40, 56, generator=g)
    mask = torch.ones(56, 40, dtype=torch.bool)
    mask[:10] = False
    metric = getattr(transcreval, cls)
    with pytest.raises(InputError, match="looks transposed"):
        metric(weights=alex_file).update(a, b, mask=mask)
    m = metric(weights=alex_file, resize_mask=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # asked for: no warning
        m.update(a, b, mask=mask)
    assert 0 < m.compute().extras["mean_coverage"] < 1
    with pytest.raises(InputError, match="resize_mask must be True or False"):
        metric(weights=alex_file, resize_mask="yes")


@pytest.mark.parametrize("shape", [(40, 56, 3), (40, 56, 4), (2, 40, 56, 3), (2, 3, 40, 56)])
def test_a_colour_mask_is_named_as_one(alex_file, shape):
    from transcreval import MaskedLPIPS

    a = torch.rand(2, 3, 40, 56, generator=torch.Generator().manual_seed(5))
    mask = np.full(shape, 255, dtype=np.uint8)  # an RGB(A) image of the mask
    with pytest.raises(InputError, match=rf"{shape[-1] if shape[-1] < 5 else shape[1]} channels \(a colour image\?\)"):
        MaskedLPIPS(weights=alex_file).update(a, a, mask=mask)
    with pytest.raises(InputError, match="channels"):
        MaskedLPIPS(weights=alex_file).update(a, a, mask=[mask if len(shape) == 3 else mask[0]] * 2)


# ------------------------------------------------------------------ item 22: LPIPS memory guard
@pytest.mark.parametrize("cls", ["LPIPS", "MaskedLPIPS", "BackgroundPreservation"])
def test_lpips_refuses_a_huge_image_before_running_with_the_estimate(alex_file, cls):
    import transcreval

    big = torch.zeros(1, 3, 1, 1).expand(1, 3, 8000, 8000)  # 64 Mpx without allocating them
    metric = getattr(transcreval, cls)(weights=alex_file)
    before = metric.network.extractor.stats.forward_passes
    extra = {} if cls == "LPIPS" else {"mask": torch.ones(1, 1, dtype=torch.bool).expand(8000, 8000)}
    with pytest.raises(
        InputError, match=r"8000x8000 = 64,000,000 pixels exceed max_pixels=.*about 19\.5 GB.*reduce\(2\)"
    ):
        metric.update(big, big, **extra)
    assert metric.network.extractor.stats.forward_passes == before and metric.update_count == 0


def test_lpips_max_pixels_option(alex_file):
    from transcreval import LPIPS
    from transcreval.functional import lpips_per_pair
    from transcreval.functional.image.lpips_memory import default_max_pixels, pair_bytes

    a = torch.rand(1, 3, 40, 48, generator=torch.Generator().manual_seed(6))
    with pytest.raises(InputError, match=r"40x48 = 1,920 pixels exceed max_pixels=1,000"):
        lpips_per_pair(a, a, weights=alex_file, max_pixels=1000)
    assert float(lpips_per_pair(a, a, weights=alex_file, max_pixels=None)) == 0.0
    assert float(LPIPS(weights=alex_file, max_pixels=1920).forward(a, a).value) == 0.0
    for bad in (0, -5, 2.5, True, "big"):
        with pytest.raises(InputError, match="max_pixels must be"):
            LPIPS(weights=alex_file, max_pixels=bad)
    # the defaults: about 8 GiB per pair; vgg's trunk is the heaviest
    assert default_max_pixels("vgg") < default_max_pixels("squeeze") < default_max_pixels("alex")
    assert 28e6 < default_max_pixels("alex") < 29e6 and default_max_pixels("alex", itemsize=8) < 15e6
    assert pair_bytes("alex", 8000, 8000) == 64_000_000 * 304
