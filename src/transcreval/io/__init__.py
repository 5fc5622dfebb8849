"""Image inputs: the one decoding rule every image metric follows (``docs/inputs.md``).

Accepted images: file paths (``str`` / ``os.PathLike``), encoded ``bytes``, PIL images of any
mode, numpy arrays and torch tensors, and lists mixing them. Arrays may be ``HW``, ``HWC`` or
``CHW``; channels are 1 (L), 2 (L + alpha), 3 (RGB) or 4 (RGBA). A batch is a list/tuple or a
4-D array/tensor; a single 3-D array is one image only when its layout says so
(:mod:`transcreval.io.layout`: ``N x H x W`` grayscale batches are never guessed).

Values (:mod:`transcreval.io.values`): ``bool`` 0/1, ``uint8`` 0..255 and ``uint16`` 0..65535
have a fixed meaning; float data (and PIL mode ``F``) lie in ``input_range`` (default
``(0, 1)``); other integer dtypes need ``input_range``. PIL 8-bit modes are converted by PIL;
``I;16`` is 0..65535 and ``I`` is read as 16-bit. Consumers that need 8 bits quantise as
``round(x * 255)``, so a 16-bit PNG, a float TIFF or a float tensor of a picture give the
pixels of its 8-bit copy everywhere (CLIP, judges, OCR, pHash), and its [0, 1] values where the
metric works in floats (LPIPS, FID, DINOv2).

Numpy arrays default to channels-last, tensors to channels-first; when the shape does not
tell, pass ``channels="first"`` or ``"last"``. Alpha is ignored (the colour channels are used as
they are, as PIL's RGBA->RGB does). EXIF orientation is **not** applied by default, so results
match tools that read the stored pixels (imagehash, PIL); ``exif_transpose=True`` rotates images
as viewers show them. Decoding is defensive: missing files, unknown formats, truncated or
corrupt data and images larger than ``max_pixels`` raise
:class:`~transcreval.errors.ImageDecodeError` naming the file.

Masks (:mod:`transcreval.io.masks`): a mask of another size than its images is resized by area
majority, and only when its aspect ratio matches (or ``resize_mask=True``).
"""

from __future__ import annotations

from transcreval.io.convert import to_rgb_float, to_rgb_pil, to_rgb_uint8
from transcreval.io.decode import DEFAULT_MAX_PIXELS, is_encoded, is_pil, open_image
from transcreval.io.gray import pil_gray, to_gray_uint8
from transcreval.io.layout import Channels, split_batch, to_hwc
from transcreval.io.masks import read_mask
from transcreval.io.values import HIGH_DEPTH_MODES, Range, check_input_range, pil_rgb8, quantize, unit_float

__all__ = [
    "DEFAULT_MAX_PIXELS",
    "HIGH_DEPTH_MODES",
    "Channels",
    "Range",
    "check_input_range",
    "is_encoded",
    "is_pil",
    "open_image",
    "pil_gray",
    "pil_rgb8",
    "quantize",
    "read_mask",
    "split_batch",
    "to_gray_uint8",
    "to_hwc",
    "to_rgb_float",
    "to_rgb_pil",
    "to_rgb_uint8",
    "unit_float",
]
