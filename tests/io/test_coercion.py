"""Image input coercion: every input kind becomes float32 RGB [0, 1] NCHW, or a clear error."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch
from PIL import Image

from transcreval.errors import EmptyInputError, ImageDecodeError, InputError
from transcreval.io import open_image, to_gray_uint8, to_rgb_float

RNG = np.random.default_rng(0)
RGB = RNG.integers(0, 256, (24, 16, 3), dtype=np.uint8)


def _expected(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.array(a)).permute(2, 0, 1).float()[None] / 255.0


@pytest.mark.parametrize(
    "make",
    [
        lambda: RGB,  # HWC numpy
        lambda: [np.transpose(RGB, (2, 0, 1))],  # CHW numpy (in a list: one image)
        lambda: RGB[None],  # NHWC numpy
        lambda: [torch.from_numpy(RGB).permute(2, 0, 1)],  # CHW tensor (in a list: one image)
        lambda: torch.from_numpy(RGB).permute(2, 0, 1)[None].float() / 255,  # NCHW float tensor
        lambda: Image.fromarray(RGB),
        lambda: [Image.fromarray(RGB)],
        lambda: RGB.astype(np.float64) / 255,
    ],
)
def test_rgb_inputs_agree(make):
    out = to_rgb_float(make())
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32 and out.shape == (1, 3, 24, 16)
    assert torch.allclose(out, _expected(RGB), atol=1e-6)


def test_pil_modes_become_rgb():
    im = Image.fromarray(RGB)
    for mode in ["L", "LA", "RGBA", "P", "PA", "CMYK", "1", "YCbCr", "HSV"]:
        conv = im.convert(mode)
        out = to_rgb_float(conv)
        assert out.shape == (1, 3, 24, 16), mode
        ref = np.asarray(conv.convert("RGBA").convert("RGB") if mode in ("P", "PA", "LA") else conv.convert("RGB"))
        assert torch.allclose(out, _expected(ref), atol=1e-6), mode
    i16 = Image.fromarray(RNG.integers(0, 65536, (24, 16)).astype(np.uint16))
    out = to_rgb_float(i16)
    assert torch.allclose(out[0, 0], torch.from_numpy(np.asarray(i16).astype(np.float32) / 65535), atol=1e-6)


def test_gray_and_alpha_arrays():
    gray = RGB[..., 0]
    out = to_rgb_float(gray)
    assert torch.equal(out[0, 0], out[0, 2]) and out.shape == (1, 3, 24, 16)
    rgba = np.concatenate([RGB, np.zeros_like(RGB[..., :1])], axis=-1)
    assert torch.allclose(to_rgb_float(rgba), _expected(RGB))  # alpha ignored
    assert to_rgb_float(np.ones((4, 4), dtype=bool)).min() == 1.0


def test_mixed_sizes_give_a_list():
    out = to_rgb_float([RGB, RGB[:10]])
    assert isinstance(out, list) and [t.shape for t in out] == [(3, 24, 16), (3, 10, 16)]


def test_value_range_rules():
    with pytest.raises(InputError, match=r"input_range=\(0, 255\)"):
        to_rgb_float(RGB.astype(np.float32))
    with pytest.raises(InputError, match=r"input_range=\(-1, 1\)"):
        to_rgb_float(RGB.astype(np.float32) / 127.5 - 1)
    out = to_rgb_float(RGB.astype(np.float32) / 127.5 - 1, input_range=(-1, 1))
    assert torch.allclose(out, _expected(RGB), atol=1e-6)
    assert torch.allclose(to_rgb_float(RGB.astype(np.int32), input_range=(0, 255)), _expected(RGB), atol=1e-6)
    with pytest.raises(InputError, match="no fixed value range"):
        to_rgb_float(RGB.astype(np.int16))
    with pytest.raises(InputError, match="NaN or infinite"):
        to_rgb_float(np.full((4, 4, 3), np.inf, dtype=np.float32))
    with pytest.raises(InputError, match="high > low"):
        to_rgb_float(RGB.astype(np.float32), input_range=(1, 1))


def test_channel_layout():
    ambiguous = RNG.random((3, 5, 3)).astype(np.float32)  # 3x5x3: numpy default is HWC
    assert to_rgb_float(ambiguous).shape == (1, 3, 3, 5)
    assert to_rgb_float(ambiguous, channels="first").shape == (1, 3, 5, 3)
    assert to_rgb_float([torch.from_numpy(ambiguous)]).shape == (1, 3, 5, 3)  # tensors default to CHW
    with pytest.raises(InputError, match="cannot tell the channel dimension"):
        to_rgb_float(np.zeros((10, 10, 9), dtype=np.uint8))
    with pytest.raises(InputError, match="channels='first'"):
        to_rgb_float(np.zeros((10, 10, 3), dtype=np.uint8), channels="first")


def test_batch_errors():
    with pytest.raises(EmptyInputError):
        to_rgb_float([])
    with pytest.raises(InputError, match="zero-size"):
        to_rgb_float(np.zeros((0, 5, 3), dtype=np.uint8))
    with pytest.raises(InputError, match="unsupported"):
        to_rgb_float(42)
    with pytest.raises(InputError, match="unsupported type"):
        to_rgb_float([RGB, 42])
    with pytest.raises(InputError, match="complex"):
        to_rgb_float(np.zeros((4, 4), dtype=np.complex64))


def _png_bytes(a: np.ndarray, **save) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, format=save.pop("format", "PNG"), **save)
    return buf.getvalue()


def test_files_and_bytes(tmp_path):
    data = _png_bytes(RGB)
    p = tmp_path / "a.png"
    p.write_bytes(data)
    for src in (p, str(p), data, bytearray(data)):
        assert torch.allclose(to_rgb_float(src), _expected(RGB))


def test_decoding_errors_name_the_file(tmp_path):
    bad = tmp_path / "broken.png"
    bad.write_bytes(_png_bytes(RGB)[:60])
    with pytest.raises(ImageDecodeError, match=r"broken\.png: truncated or corrupt"):
        to_rgb_float(bad)
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"\x00" * 100)
    with pytest.raises(ImageDecodeError, match=r"junk\.jpg: not an image"):
        to_rgb_float(junk)
    with pytest.raises(ImageDecodeError, match="is a directory"):
        to_rgb_float(tmp_path)
    with pytest.raises(ImageDecodeError, match="empty byte string"):
        to_rgb_float(b"")
    assert issubclass(ImageDecodeError, ValueError)


def test_decompression_bomb_refused(tmp_path):
    big = tmp_path / "big.png"
    Image.new("L", (3000, 3000)).save(big)  # compresses to a few KB
    with pytest.raises(ImageDecodeError, match="exceeds max_pixels"):
        open_image(big, max_pixels=1_000_000)
    with pytest.raises(ImageDecodeError, match="exceeds max_pixels"):
        to_rgb_float(big, max_pixels=1_000_000)
    assert open_image(big).size == (3000, 3000)


def test_exif_orientation_is_explicit(tmp_path):
    a = np.zeros((10, 20, 3), dtype=np.uint8)
    a[:, :5] = 255  # white left edge
    im = Image.fromarray(a)
    exif = im.getexif()
    exif[0x0112] = 6  # rotate 90 CW to display
    p = tmp_path / "rot.jpg"
    im.save(p, exif=exif, quality=95)
    stored = to_rgb_float(p)
    shown = to_rgb_float(p, exif_transpose=True)
    assert stored.shape == (1, 3, 10, 20)  # default: stored pixels, as imagehash/PIL read them
    assert shown.shape == (1, 3, 20, 10)  # as viewers display it


def test_gray_uint8_matches_pil_convert():
    for a in (RGB, np.concatenate([RGB, RGB[..., :1]], axis=-1), RGB[..., 0]):
        ours = to_gray_uint8([a])[0]
        assert np.array_equal(ours, np.asarray(Image.fromarray(a).convert("L")))
    t = to_gray_uint8([torch.from_numpy(RGB).permute(2, 0, 1)])[0]
    assert isinstance(t, torch.Tensor) and torch.equal(t, torch.from_numpy(np.array(Image.fromarray(RGB).convert("L"))))


def test_read_mask_keeps_the_ones_at_every_bit_depth(tmp_path):
    """A mask file is read at its own bit depth: PIL's convert("L") clips 16-bit values and
    rounds float ones (0.3 -> 0), which would drop pixels of the mask."""
    from transcreval.io import read_mask

    want = np.zeros((6, 9), dtype=bool)
    want[1:4, 2:7] = True
    files = {
        "L.png": Image.fromarray(want.astype(np.uint8) * 255),
        "L01.png": Image.fromarray(want.astype(np.uint8)),  # 0/1 in 8 bits
        "1.png": Image.fromarray(want),  # 1-bit
        "I16.png": Image.fromarray(want.astype(np.uint16)),  # I;16, 0/1
        "F.tif": Image.fromarray(want.astype(np.float32) * 0.3),
        "RGB.png": Image.fromarray(np.repeat(want[..., None].astype(np.uint8) * 200, 3, -1)),
    }
    for name, im in files.items():
        im.save(tmp_path / name)
        got = read_mask(tmp_path / name)
        assert got.dtype == bool and got.shape == want.shape and np.array_equal(got, want), name
    assert np.array_equal(read_mask((tmp_path / "L.png").read_bytes()), want)
    assert np.array_equal(read_mask(Image.open(tmp_path / "F.tif")), want)
    # the old reading lost the float and 16-bit 0/1 masks
    assert not Image.open(tmp_path / "F.tif").convert("L").getbbox()
    with pytest.raises(ImageDecodeError):
        (tmp_path / "bad.png").write_bytes(b"not a png")
        read_mask(tmp_path / "bad.png")
