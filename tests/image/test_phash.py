"""pHash: every bit equals imagehash.phash, for every input kind, mode and size."""

from __future__ import annotations

import io
import itertools

import imagehash
import numpy as np
import pytest
import torch
from PIL import Image

import transcreval.functional.image.pil_resample as resample
from tests._helpers.tester import MetricCase, check_metric, partial
from transcreval import PHashDistance
from transcreval.errors import EmptyInputError, ImageDecodeError, InputError
from transcreval.functional import edit_intensity_split, phash, phash_bits, phash_distance, phash_distances, phash_hex


def _rng(seed=0):
    return np.random.default_rng(seed)


def _images(n=60, seed=0, max_side=700):
    rng = _rng(seed)
    out = []
    for t in range(n):
        h, w = (int(v) for v in rng.integers(1, max_side, size=2))
        kind = t % 5
        if kind == 0:
            a = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        elif kind == 1:
            a = np.full((h, w, 3), rng.integers(0, 256), dtype=np.uint8)  # constant: DCT ties
        elif kind == 2:
            a = (np.linspace(0, 255, w)[None, :, None] * np.ones((h, 1, 3))).astype(np.uint8)
        elif kind == 3:
            a = rng.integers(0, 256, (h, w), dtype=np.uint8)
        else:  # smooth blobs, poster-like
            yy, xx = np.mgrid[0:h, 0:w]
            a = (127 + 120 * np.sin(xx / (w / 3 + 1)) * np.cos(yy / (h / 5 + 1))).astype(np.uint8)
        out.append(Image.fromarray(a))
    return out


def _ref_hex(images, **kw):
    return [str(imagehash.phash(im, **kw)) for im in images]


def test_bit_identical_to_imagehash_on_many_sizes():
    imgs = _images(80)
    imgs += [Image.new("RGB", (1, 1), (3, 200, 9)), Image.new("L", (1, 1), 7), Image.new("L", (32, 32), 9)]
    imgs += [Image.fromarray(_rng(1).integers(0, 256, (32, 500), dtype=np.uint8))]  # one pass only
    imgs += [Image.fromarray(_rng(2).integers(0, 256, (900, 32), dtype=np.uint8))]
    assert phash_hex(imgs) == _ref_hex(imgs)


@pytest.mark.parametrize("mode", ["1", "L", "LA", "P", "PA", "RGB", "RGBA", "CMYK", "YCbCr", "I", "I;16", "F", "HSV"])
def test_every_pil_mode(mode):
    base = Image.fromarray(_rng(3).integers(0, 256, (97, 61, 3), dtype=np.uint8))
    if mode == "I;16":
        # 16-bit: scaled by transcreval.io's rule, so it hashes as its 8-bit copy does in imagehash
        # (imagehash's own convert("L") clips 16-bit values at 255)
        a16 = _rng(4).integers(0, 65536, (97, 61)).astype(np.uint16)
        assert phash_hex([Image.fromarray(a16)]) == _ref_hex([Image.fromarray(np.round(a16 / 257).astype(np.uint8))])
        return
    im = base.convert("L").convert(mode) if mode in ("I", "F") else base.convert(mode)  # I, F: L's 0..255 scale
    # mode F is float data: its range is stated (transcreval.io's rule), here PIL's 0..255
    assert phash_hex([im], input_range=(0, 255) if mode == "F" else None) == _ref_hex([im])


@pytest.mark.parametrize("hash_size,hf", [(8, 4), (4, 4), (8, 2), (6, 5), (16, 4)])
def test_hash_sizes(hash_size, hf):
    imgs = _images(12, seed=5)
    assert phash_hex(imgs, hash_size=hash_size, highfreq_factor=hf) == _ref_hex(
        imgs, hash_size=hash_size, highfreq_factor=hf
    )


def test_int64_packing_matches_hex():
    imgs = _images(20, seed=6)
    hashes = phash(imgs)
    assert hashes.dtype == torch.int64 and hashes.shape == (20,)
    assert [format(int(h) & (2**64 - 1), "016x") for h in hashes] == _ref_hex(imgs)
    bits = phash_bits(imgs)
    assert bits.shape == (20, 64) and bits.dtype == torch.bool


def test_arrays_and_tensors_match_pil():
    rng = _rng(7)
    rgb = rng.integers(0, 256, (5, 120, 80, 3), dtype=np.uint8)
    rgba = rng.integers(0, 256, (120, 80, 4), dtype=np.uint8)
    gray = rng.integers(0, 256, (120, 80), dtype=np.uint8)
    expected = _ref_hex([Image.fromarray(a) for a in rgb])
    assert phash_hex(rgb) == expected  # NHWC numpy batch
    assert phash_hex(torch.from_numpy(rgb).permute(0, 3, 1, 2)) == expected  # NCHW tensor batch
    assert phash_hex([torch.from_numpy(a).permute(2, 0, 1) for a in rgb]) == expected  # list of CHW
    assert phash_hex(torch.from_numpy(rgb).float() / 255) == expected  # float [0, 1], exact multiples
    assert phash_hex(rgb.astype(np.float64), input_range=(0, 255)) == expected
    assert phash_hex([rgba]) == _ref_hex([Image.fromarray(rgba)])
    assert phash_hex([gray]) == _ref_hex([Image.fromarray(gray)])


def test_paths_and_bytes(tmp_path):
    imgs = _images(4, seed=8)
    paths = []
    for i, im in enumerate(imgs):
        p = tmp_path / f"im{i}.png"
        im.save(p)
        paths.append(p)
    expected = _ref_hex([Image.open(p) for p in paths])
    assert phash_hex(paths) == expected
    assert phash_hex([str(p) for p in paths]) == expected
    assert phash_hex([p.read_bytes() for p in paths]) == expected


@pytest.mark.parametrize(("n", "threads", "sizes"), [(9, 2, [4, 1, 4]), (3, 2, [2, 1]), (9, 1, [4, 4, 1]), (1, 4, [1])])
def test_files_are_hashed_a_few_per_chunk_and_a_few_spread_over_the_workers(tmp_path, monkeypatch, n, threads, sizes):
    """Files (size unknown before decoding) go 4 to a chunk, so a resize call's fixed cost is
    shared; a chunk holds at most ceil(n / workers) items, so a few files still spread."""
    import transcreval.functional.image.hashing as hashing

    imgs = _images(n, seed=15)
    paths = []
    for i, im in enumerate(imgs):
        paths.append(tmp_path / f"im{i}.png")
        im.save(paths[-1])
    seen: list[int] = []
    real = hashing._resize_chunk

    def spy(items, size, kw):
        seen.append(len(items))
        return real(items, size, kw)

    monkeypatch.setattr(hashing, "_resize_chunk", spy)
    assert phash_hex(paths, num_threads=threads) == _ref_hex([Image.open(p) for p in paths])
    assert sorted(seen) == sorted(sizes)


def test_large_image():
    im = Image.fromarray(_rng(9).integers(0, 256, (3000, 4000, 3), dtype=np.uint8))
    assert phash_hex([im]) == _ref_hex([im])


@pytest.mark.slow
def test_very_large_image():
    im = Image.fromarray(np.tile(_rng(10).integers(0, 256, (100, 160), dtype=np.uint8), (100, 100)))  # 10000x16000
    assert phash_hex([im]) == _ref_hex([im])


def test_float64_path_used_on_gpus_is_exact(monkeypatch):
    # CUDA tensors (and torch builds without int8 matmul) take the float64 path: force it here.
    monkeypatch.setattr(resample, "_INT8", False)
    imgs = _images(25, seed=11)
    assert phash_hex(imgs) == _ref_hex(imgs)
    tensors = [torch.from_numpy(np.array(im.convert("RGB"))).permute(2, 0, 1) for im in imgs]
    assert phash_hex(tensors) == _ref_hex([im.convert("RGB") for im in imgs])


@pytest.mark.parametrize(("in_size", "out_size"), [(512, 32), (600, 32), (257, 32), (1001, 64), (256, 32), (255, 32)])
def test_banded_int8_pass_equals_the_dense_product(in_size, out_size):
    """A pass that shrinks by BAND_FACTOR or more multiplies each half of the outputs by only the
    input columns its weights reach: the same integers as the dense product (and as PIL)."""
    digits, shift = resample._int8_digits(in_size, out_size)
    n = resample.BAND_MIN_ROWS + 40  # bands are used from BAND_MIN_ROWS rows on
    rows = torch.from_numpy(_rng(in_size).integers(-128, 128, (n, in_size), dtype=np.int8))
    want = resample._recombine(torch._int_mm(rows, digits), shift, resample._int32_bias(in_size, out_size))
    bands = resample._int8_bands(in_size, out_size)
    assert len(bands) == (2 if in_size >= resample.BAND_FACTOR * out_size else 1)
    assert torch.equal(resample._pass_int8(rows, in_size, out_size), want)
    for k in (n, 8):  # the rows as one image: banded, and 8 of them (too few rows: dense)
        gray = (rows[:k].view(torch.uint8) ^ 0x80).numpy()
        pil = np.asarray(Image.fromarray(gray).resize((out_size, k), Image.Resampling.LANCZOS))
        assert np.array_equal(resample._pass_int8(rows[:k], in_size, out_size).numpy(), pil)


@pytest.mark.parametrize(("in_size", "out_size"), [(512, 32), (900, 32), (2000, 32), (64, 32)])
def test_int32_recombination_equals_int64_at_its_bounds(in_size, out_size):
    """The int32 recombination of the three digit products (used where it cannot overflow) gives
    the int64 one's pixels, on products at the extremes int8 pixels can reach, every sign mix."""
    bias = resample._int32_bias(in_size, out_size)
    if bias is None:
        pytest.skip("this pass recombines in int64 only")
    digits, shift = resample._int8_digits(in_size, out_size)
    reach = 128 * digits.to(torch.int64).abs().sum(0)  # |product| bound per digit column
    signs = torch.tensor(list(itertools.product((-1, 0, 1), repeat=3)), dtype=torch.int64)  # 27 mixes
    k = out_size
    p = torch.empty((len(signs), 3 * k), dtype=torch.int64)
    for d in range(3):
        p[:, d * k : (d + 1) * k] = signs[:, d : d + 1] * reach[d * k : (d + 1) * k]
    p = torch.cat([p, p - 1, p + 1, p // 3]).clamp(-(1 << 31), (1 << 31) - 1).to(torch.int32)
    assert torch.equal(resample._recombine(p, shift, bias), resample._recombine(p, shift, None))


def test_int8_pass_uses_its_bands_from_band_min_rows_on(monkeypatch):
    """One product per band of outputs from BAND_MIN_ROWS rows on, one dense product below."""
    calls: list[int] = []
    real = torch._int_mm
    monkeypatch.setattr(torch, "_int_mm", lambda a, b: calls.append(int(b.shape[0])) or real(a, b))
    rng = _rng(16)
    for rows, want in ((resample.BAND_MIN_ROWS, 2), (resample.BAND_MIN_ROWS - 1, 1)):
        calls.clear()
        x = torch.from_numpy(rng.integers(-128, 128, (rows, 600), dtype=np.int8))
        resample._pass_int8(x, 600, 32)
        assert len(calls) == want and (want == 1) == (calls == [600]), (rows, calls)


def test_pillow_fallback_is_exact(monkeypatch):
    monkeypatch.setattr(resample, "_rule", ["pil"])
    imgs = _images(10, seed=12)
    assert phash_hex(imgs) == _ref_hex(imgs)


def test_pass_order_of_installed_pillow_is_reproduced():
    # if this fails, a new Pillow changed its resampling; results stay exact through the
    # Pillow fallback, but the fast path is off until _ORDER_RULES learns the new rule.
    assert resample.pass_order_rule() in ("horizontal-first", "pillow13")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_tensors_match():
    rgb = _rng(13).integers(0, 256, (6, 200, 150, 3), dtype=np.uint8)
    t = torch.from_numpy(rgb).permute(0, 3, 1, 2).cuda()
    assert phash_hex(t) == _ref_hex([Image.fromarray(a) for a in rgb])


def test_threads_do_not_change_results():
    imgs = _images(30, seed=14)
    assert torch.equal(phash(imgs, num_threads=1), phash(imgs, num_threads=3))


def test_dct_blocks_do_not_change_the_bits(monkeypatch):
    # the DCT runs in blocks of DCT_BLOCK images (bounded memory at corpus scale): a block edge
    # inside the batch, a last short block and a single-image block all give imagehash's bits
    import transcreval.functional.image.hashing as hashing

    imgs = _images(23, seed=21)
    monkeypatch.setattr(hashing, "DCT_BLOCK", 5)
    assert phash_hex(imgs) == _ref_hex(imgs)
    monkeypatch.setattr(hashing, "DCT_BLOCK", 1)
    assert phash_hex(imgs[:4]) == _ref_hex(imgs[:4])


def test_distance_equals_imagehash_subtraction():
    a, b = _images(20, seed=15), _images(20, seed=16)
    expected = [imagehash.phash(x) - imagehash.phash(y) for x, y in zip(a, b)]
    d = phash_distances(a, b)
    assert d.dtype == torch.int64 and d.tolist() == expected
    assert phash_distances(phash(a), phash(b)).tolist() == expected  # precomputed hashes
    ints = [int(h) & (2**64 - 1) for h in phash(a)]  # unsigned Python ints
    assert phash_distances(ints, b).tolist() == expected
    assert phash_distances(a, a).tolist() == [0] * 20


def test_edit_intensity_split_boundaries():
    d = [0, 11, 12, 13, 29, 30, 31, 64]
    assert edit_intensity_split(d) == ["surface"] * 3 + ["intermediate"] * 2 + ["deep"] * 3
    assert edit_intensity_split(d, inclusive=False) == ["surface"] * 2 + ["intermediate"] * 4 + ["deep"] * 2
    assert edit_intensity_split(torch.tensor(d), surface_max=5, deep_min=40) == ["surface"] + ["intermediate"] * 6 + [
        "deep"
    ]
    with pytest.raises(InputError):
        edit_intensity_split(d, surface_max=30, deep_min=12)
    with pytest.raises(InputError, match="NaN"):
        edit_intensity_split([1.0, float("nan")])


def test_bad_inputs():
    with pytest.raises(EmptyInputError):
        phash([])
    with pytest.raises(InputError, match="mismatched batch lengths"):
        phash_distances(_images(2), _images(3))
    with pytest.raises(InputError, match="outside"):
        phash(np.full((10, 10, 3), 2.0, dtype=np.float32))
    with pytest.raises(InputError, match="NaN"):
        phash(np.full((10, 10, 3), np.nan, dtype=np.float32))
    with pytest.raises(InputError, match="zero-size"):
        phash(np.zeros((0, 10, 3), dtype=np.uint8))
    with pytest.raises(InputError, match="channel"):
        phash(np.zeros((10, 10, 7), dtype=np.uint8))
    with pytest.raises(InputError, match="dimensions"):
        phash(np.zeros((2, 2, 10, 10, 3), dtype=np.uint8))
    with pytest.raises(InputError, match="input_range"):
        phash(np.zeros((10, 10), dtype=np.int32))
    with pytest.raises(ImageDecodeError, match="no such file"):
        phash(["/nonexistent/poster.png"])
    with pytest.raises(ImageDecodeError, match="not an image"):
        phash([b"this is not an image"])
    buf = io.BytesIO()
    Image.fromarray(_rng(17).integers(0, 256, (64, 64, 3), dtype=np.uint8)).save(buf, format="PNG")
    with pytest.raises(ImageDecodeError, match="truncated or corrupt"):
        phash([buf.getvalue()[:200]])
    with pytest.raises(InputError, match="mode 'LAB'"):
        phash([Image.new("LAB", (8, 8))])
    with pytest.raises(InputError, match="hash_size"):
        phash(_images(1), hash_size=1)
    with pytest.raises(InputError, match="int64"):
        phash(_images(1), hash_size=16)
    with pytest.raises(InputError):
        PHashDistance(hash_size=16)
    # one options object (HashOptions) checks the hashing functions' keywords, before any image is read
    with pytest.raises(TypeError, match=r"phash_bits.*hash_sise"):
        phash_bits(["/nonexistent/poster.png"], hash_sise=8)
    with pytest.raises(InputError, match="exif_transpose"):
        phash_hex(["/nonexistent/poster.png"], exif_transpose=1)


def _hash_batches():
    a, b = _images(12, seed=20, max_side=200), _images(12, seed=21, max_side=200)
    return [(a[0:5], b[0:5]), (a[5:10], b[5:10]), (a[10:], b[10:])]


def _join_images(batches):
    return ([x for bt in batches for x in bt[0]], [x for bt in batches for x in bt[1]])


@pytest.mark.ddp
def test_phash_distance_class_harness(ddp_pool):
    def ref(a, b):
        return float(np.mean([imagehash.phash(x) - imagehash.phash(y) for x, y in zip(a, b)]))

    case = MetricCase(
        factory=partial(PHashDistance),
        functional=phash_distance,
        reference=ref,
        batches=_hash_batches(),
        join=_join_images,
        exact_value=True,
        extras_keys=("surface", "deep", "intermediate"),
    )
    check_metric(case, ddp_pool)


def test_phash_distance_bands_in_extras():
    a, b = _images(10, seed=22), _images(10, seed=23)
    m = PHashDistance(surface_max=20, deep_min=33)
    res = m.forward(a, b)
    labels = edit_intensity_split(res.per_item, surface_max=20, deep_min=33)
    assert res.extras == {
        "surface": labels.count("surface"),
        "deep": labels.count("deep"),
        "intermediate": labels.count("intermediate"),
    }


def test_every_small_size_is_bit_identical_to_imagehash():
    # images narrower or shorter than the 32 px resize target are upsampled on that side;
    # Pillow 13's pass order must count an upsampled side as removing no pixels
    rng = np.random.default_rng(11)
    imgs = [
        Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)) for h in range(1, 65) for w in range(1, 65)
    ]
    ours = phash_hex(imgs)
    assert ours == [str(imagehash.phash(im)) for im in imgs]
    # ...by our exact resize, not by falling back to calling Pillow for every image
    assert resample.pass_order_rule() in ("horizontal-first", "pillow13")


def test_precomputed_hash_inputs_are_checked():
    good = phash([Image.new("L", (40, 40), 9)])
    with pytest.raises(InputError, match="int64"):
        phash_distances(good.float(), good)
    with pytest.raises(InputError, match="int64"):
        phash_distances(good.numpy().astype(np.float64), good)
    with pytest.raises(InputError, match="object array"):
        phash_distances(np.array([object()], dtype=object), good)
    with pytest.raises(InputError, match="meta"):
        phash_distances(torch.empty(1, dtype=torch.int64, device="meta"), good)
    with pytest.raises(InputError, match="integers"):
        phash_distances([1.5], [2])
    with pytest.raises(InputError, match=">= 0"):
        edit_intensity_split([-3])
    with pytest.raises(InputError, match="NaN"):
        edit_intensity_split([float("nan")])


def test_options_are_checked_when_the_metric_is_built_and_max_pixels_reaches_decoding(tmp_path):
    with pytest.raises(InputError, match="channels"):
        PHashDistance(channels="foo")
    with pytest.raises(InputError, match="num_threads"):
        PHashDistance(num_threads=0)
    with pytest.raises(InputError, match="input_range"):
        PHashDistance(input_range=(1, 0))
    with pytest.raises(InputError, match="surface_max"):
        PHashDistance(surface_max=40)
    p = tmp_path / "big.png"
    Image.new("L", (300, 300), 3).save(p)
    with pytest.raises(ImageDecodeError, match="max_pixels"):
        phash([p], max_pixels=10_000)
    m = PHashDistance(max_pixels=10_000)
    with pytest.raises(ImageDecodeError, match="max_pixels"):
        m.update([p], [p])
    assert phash([p], max_pixels=100_000).shape == (1,)


def test_signature_records_the_versions_that_define_the_bits():
    import PIL
    import scipy

    sig = str(PHashDistance().signature)
    assert f"pillow:{PIL.__version__}" in sig and f"scipy:{scipy.__version__}" in sig


def _poster_jpegs(n: int) -> list[bytes]:
    """Poster-like 512x768 JPEGs: a vertical gradient, a few discs, mild noise."""
    from PIL import ImageDraw

    rng = _rng(22)
    out = []
    for _ in range(n):
        t = np.linspace(0, 1, 768)[:, None, None]
        base = rng.integers(0, 256, 3) * (1 - t) + rng.integers(0, 256, 3) * t + rng.normal(0, 6, (768, 512, 3))
        im = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8))
        d = ImageDraw.Draw(im)
        for _ in range(6):
            x, y, r = (int(v) for v in (rng.integers(0, 512), rng.integers(0, 768), rng.integers(20, 120)))
            d.ellipse((x - r, y - r, x + r, y + r), fill=tuple(int(v) for v in rng.integers(0, 256, 3)))
        b = io.BytesIO()
        im.save(b, "JPEG", quality=90)
        out.append(b.getvalue())
    return out


def test_fast_decode_is_close_on_jpeg_and_exact_elsewhere(monkeypatch):
    jpegs = _poster_jpegs(12)
    asked: list[tuple[object, ...]] = []
    from PIL import JpegImagePlugin

    real = JpegImagePlugin.JpegImageFile.draft
    monkeypatch.setattr(JpegImagePlugin.JpegImageFile, "draft", lambda self, *a: asked.append(a) or real(self, *a))
    phash(jpegs[:2], fast_decode=True, num_threads=1)
    assert asked == [("L", (128, 128))] * 2  # the decoder was asked for a reduced grayscale image
    monkeypatch.undo()
    d = phash_distances(phash(jpegs), phash(jpegs, fast_decode=True))
    assert int(d.max()) <= 4 and float(d.float().mean()) <= 1  # close (docs: 192/200 identical), not promised
    imgs = _images(10, seed=21)
    pngs = []
    for im in imgs:
        b = io.BytesIO()
        im.save(b, "PNG")
        pngs.append(b.getvalue())
    assert torch.equal(phash(pngs, fast_decode=True), phash(pngs))  # other formats: exact
    assert torch.equal(phash(imgs, fast_decode=True), phash(imgs))  # decoded images: exact
    assert dict(PHashDistance(fast_decode=True).signature.options).get("decode") == "draft"
    with pytest.raises(InputError, match="fast_decode"):
        PHashDistance(fast_decode="yes")
