"""OCR text-mask IoU (MPTc-Bench App. B.5): the pure pieces and the functional twin.

For each pair (system output, target image): the output is first scaled to the target's size
(MPTc: "scale target images to source size"), text is detected in both images, all detected
polygons of each image are filled into one union mask, and the pair's score is the IoU of the
two masks, ``|A & B| / |A | B|`` in [0, 1], higher = the output keeps the target's text layout.

A pair where neither image has any detected text has no IoU (0 / 0): it is reported as NaN in
the per-pair values and counted (``both_empty``), and the metric's mean leaves it out. A pair
where only one side has text has IoU 0 and is counted as ``one_empty``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import torch

from transcreval.core.common import check_choice
from transcreval.core.options import MetricOptions, option
from transcreval.core.result import MetricResult
from transcreval.errors import EmptyInputError, InputError, UndefinedValueError

if TYPE_CHECKING:
    from transcreval.engines.ocr.base import TextDetector

__all__ = [
    "PACKAGES",
    "RESAMPLES",
    "OCRMaskIoUOptions",
    "bind_detector",
    "check_resample",
    "empty_counts",
    "mean_defined",
    "ocr_mask_counts",
    "ocr_mask_iou",
    "ocr_mask_iou_from_counts",
    "ocr_mask_iou_from_stats",
    "ocr_mask_iou_stats",
    "ocr_mask_ious",
    "paired_images",
    "resize_to",
]

Resample = Literal["nearest", "bilinear", "bicubic", "lanczos", "area"]
RESAMPLES = ("nearest", "bilinear", "bicubic", "lanczos", "area")
#: distributions whose versions change the numbers (Pillow's resampling; the class's ``version_packages``)
PACKAGES = ("pillow",)
_STATS = ("intersection", "union", "pred_area", "target_area")


@dataclass(frozen=True)
class OCRMaskIoUOptions(MetricOptions):
    """The options of :class:`~transcreval.OCRMaskIoU` and its twins, checked once.

    ``backend`` / ``backend_options`` choose the detector (:func:`~transcreval.ocr.get_detector`);
    the signature prints what the detector reports (backend, package, detection model and its
    SHA-256, parameters' digest, runtime) once the options are bound to it
    (:func:`bind_detector`), then ``resize`` (the resampling filter) and ``dil`` (the dilation).
    ``input_range`` cannot change a value (it says how float images are read).
    """

    #: printed as what the bound detector reports (``detector_options``), empty until bound
    backend: Any = option("rapidocr", signature=lambda o: dict(o.detector_options))
    resample: str = option("bicubic", signature="resize")
    dilate_px: float = option(0, signature="dil")
    input_range: Any = option(None, signature=None)
    backend_options: Mapping[str, Any] = option(signature=None, default_factory=dict)
    detector_options: tuple[tuple[str, Any], ...] = option((), signature=None, compare=False)

    def check(self) -> None:
        from transcreval.engines.ocr.masks import check_dilate_px
        from transcreval.io import check_input_range

        check_choice("resample", self.resample, RESAMPLES)
        self.set_checked("dilate_px", check_dilate_px(self.dilate_px))
        self.set_checked("input_range", check_input_range(self.input_range))
        if not isinstance(self.backend_options, Mapping):
            raise InputError(f"backend_options must be a dict of the backend's options, got {self.backend_options!r}")
        self.set_checked("backend_options", dict(self.backend_options))

    def detector(self) -> TextDetector:
        """The detector (built, or the one shared in this process)."""
        from transcreval.engines.ocr.base import get_detector

        return get_detector(self.backend, **self.backend_options)

    def run(self) -> dict[str, Any]:
        """What :func:`ocr_mask_counts` takes besides the detector."""
        return {"resample": self.resample, "dilate_px": self.dilate_px, "input_range": self.input_range}


def bind_detector(options: OCRMaskIoUOptions, detector: TextDetector) -> OCRMaskIoUOptions:
    """The options with the detector's identity (what the result's signature prints). A model
    not downloaded yet has no hash: bind again after detecting (the class binds when signing)."""
    info = detector.info_for(False)
    found = (*info.signature_options().items(), ("rt", info.runtime.replace(" ", "-")))
    return options.replace(detector_options=found)


def check_resample(resample: str) -> Any:
    """The Pillow resampling filter named ``resample``."""
    from PIL import Image

    table = {
        "nearest": Image.Resampling.NEAREST,
        "bilinear": Image.Resampling.BILINEAR,
        "bicubic": Image.Resampling.BICUBIC,
        "lanczos": Image.Resampling.LANCZOS,
        "area": Image.Resampling.BOX,
    }
    if resample not in table:
        raise InputError(f"resample must be one of {sorted(table)}, got {resample!r}")
    return table[resample]


def resize_to(rgb: np.ndarray, size: tuple[int, int], resample: str = "bicubic") -> np.ndarray:
    """An H x W x 3 uint8 image resized to ``size = (height, width)`` with Pillow (a no-op when equal)."""
    if rgb.shape[:2] == tuple(size):
        return rgb
    from PIL import Image

    im = Image.fromarray(rgb, "RGB").resize((int(size[1]), int(size[0])), check_resample(resample))
    return np.asarray(im)


def paired_images(
    preds: Any, target: Any, input_range: tuple[float, float] | None = None
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Both sides as uint8 RGB arrays (float data read with ``input_range``), checked to pair up one to one."""
    from transcreval.engines.ocr.images import as_rgb_uint8

    p, t = as_rgb_uint8(preds, input_range=input_range), as_rgb_uint8(target, input_range=input_range)
    if len(p) != len(t):
        raise InputError(f"preds and target must pair up: {len(p)} preds vs {len(t)} target images")
    if not p:
        raise EmptyInputError("no image pairs: pass at least one (preds, target) pair")
    return p, t


def ocr_mask_counts(
    preds: Any,
    target: Any,
    *,
    detector: Any,
    resample: str = "bicubic",
    dilate_px: float = 0,
    input_range: tuple[float, float] | None = None,
) -> dict[str, torch.Tensor]:
    """Per-pair pixel counts: ``intersection``, ``union``, ``pred_area``, ``target_area`` (int64, N).

    ``preds`` are resized to their target's size before detection, so every count is in the
    target's pixel grid; ``detector`` is a :class:`~transcreval.engines.ocr.base.TextDetector`
    (detection only; results are cached by image content, so a target shared by several
    outputs is detected once). ``input_range``: the value range of float images (default (0, 1)).
    """
    from transcreval.engines.ocr.masks import check_dilate_px, mask_iou_counts, result_mask

    check_resample(resample)
    dilate_px = check_dilate_px(dilate_px)
    p_imgs, t_imgs = paired_images(preds, target, input_range)
    p_imgs = [resize_to(p, t.shape[:2], resample) for p, t in zip(p_imgs, t_imgs)]
    found = detector.detect_arrays([*p_imgs, *t_imgs], recognize=False)  # one batch: detected in parallel
    rows = []
    for rp, rt in zip(found[: len(p_imgs)], found[len(p_imgs) :]):
        mp = result_mask(rp, dilate_px=dilate_px)
        mt = result_mask(rt, dilate_px=dilate_px)
        inter, union = mask_iou_counts(mp, mt)
        rows.append((inter, union, int(np.count_nonzero(mp)), int(np.count_nonzero(mt))))
    cols = torch.tensor(rows, dtype=torch.int64).reshape(-1, 4)
    return {name: cols[:, i].contiguous() for i, name in enumerate(_STATS)}


def ocr_mask_iou_from_counts(intersection: torch.Tensor, union: torch.Tensor) -> torch.Tensor:
    """Per-pair IoU (float64): ``intersection / union``, NaN where the union is empty."""
    inter, uni = intersection.to(torch.float64), union.to(torch.float64)
    out = torch.full_like(inter, float("nan"))
    ok = uni > 0
    out[ok] = inter[ok] / uni[ok]
    return out


def empty_counts(pred_area: torch.Tensor, target_area: torch.Tensor) -> tuple[int, int]:
    """``(both_empty, one_empty)``: pairs with no text on either side, and on exactly one side."""
    p0, t0 = pred_area == 0, target_area == 0
    return int((p0 & t0).sum()), int((p0 ^ t0).sum())


def ocr_mask_iou_stats(preds: Any, target: Any, *, detector: Any, options: OCRMaskIoUOptions) -> dict[str, Any]:
    """A batch's statistics (the states of :class:`~transcreval.OCRMaskIoU`).

    ``iou``: per-pair IoU (NaN where both unions are empty); ``iou_sum`` / ``defined``: their
    sum and count over defined pairs; ``pairs``; ``both_empty`` / ``one_empty``;
    ``intersection`` / ``union``: pixel counts summed over pairs (the pooled IoU).
    """
    c = ocr_mask_counts(preds, target, detector=detector, **options.run())
    iou = ocr_mask_iou_from_counts(c["intersection"], c["union"])
    ok = ~torch.isnan(iou)
    both, one = empty_counts(c["pred_area"], c["target_area"])
    return {
        "iou": iou,
        "iou_sum": iou[ok].sum(),
        "defined": int(ok.sum()),
        "pairs": int(iou.numel()),
        "both_empty": both,
        "one_empty": one,
        "intersection": c["intersection"].sum(),
        "union": c["union"].sum(),
    }


def ocr_mask_iou_from_stats(stats: dict[str, Any], options: OCRMaskIoUOptions) -> MetricResult:
    """Mean IoU over the pairs where it is defined.

    ``per_item``: every pair's IoU in order (NaN for pairs with no text on either side);
    ``extras``: ``pairs``, ``both_empty`` (left out of the mean), ``one_empty`` (IoU 0),
    ``pooled`` (summed intersections over summed unions) and ``item_status`` (per pair "ok", or
    "undefined" where both sides have no text). Raises :class:`EmptyInputError`
    with no pairs and :class:`UndefinedValueError` when no pair has any detected text.
    """
    pairs, defined = int(stats["pairs"]), int(stats["defined"])
    if pairs == 0:
        raise EmptyInputError("OCR mask IoU has no image pairs: call update(preds, target) first")
    if defined == 0:
        raise UndefinedValueError(
            f"OCR mask IoU is undefined: none of the {pairs} pairs has detected text in either image "
            "(0 / 0 for every pair); check the images, or the backend and its detection parameters"
        )
    iou = torch.as_tensor(stats["iou"], dtype=torch.float64)
    return MetricResult(
        value=float(stats["iou_sum"]) / defined,
        n=defined,
        signature=options.signature("OCRMaskIoU", PACKAGES),
        per_item=iou,
        extras={
            "pairs": pairs,
            "both_empty": int(stats["both_empty"]),
            "one_empty": int(stats["one_empty"]),
            "pooled": float(stats["intersection"]) / float(stats["union"]),
            "item_status": ["ok" if v == v else "undefined" for v in iou.tolist()],
        },
    )


def ocr_mask_iou(
    preds: Any,
    target: Any,
    *,
    backend: Any = "rapidocr",
    resample: Resample = "bicubic",
    dilate_px: float = 0,
    input_range: tuple[float, float] | None = None,
    **backend_options: Any,
) -> MetricResult:
    """OCR text-mask IoU (MPTc-Bench App. B.5): the mean over pairs of the IoU of the OCR text
    masks, in [0, 1], higher is better; the result :class:`~transcreval.OCRMaskIoU` computes
    (``per_item`` every pair's IoU, NaN where neither image has detected text; ``extras``
    ``pairs``, ``both_empty``, ``one_empty``, ``pooled``, ``item_status``). The per-pair values
    alone: :func:`ocr_mask_ious`.

    Args:
        preds: the system outputs (paths, PIL, arrays, tensors), each scaled to its target's
            size first.
        target: the images whose text layout they should keep (MPTc: the source posters).
        backend: ``"rapidocr"`` (default, offline), ``"ppocrv5-mobile"``, ``"paddleocr"`` or a
            :class:`~transcreval.engines.ocr.base.TextDetector`.
        resample: the filter that scales outputs to their target's size (Pillow's; default
            bicubic, Pillow's own default, as the paper does not say).
        dilate_px: grow both masks by this many pixels before comparing (default 0; finite).
        input_range: the value range of float images (default (0, 1); e.g. ``(-1, 1)`` or
            ``(0, 255)``), as in :func:`transcreval.io.to_rgb_float`.
        **backend_options: options of the backend.
    """
    opts = OCRMaskIoUOptions(backend, resample, dilate_px, input_range, backend_options)
    det = opts.detector()
    stats = ocr_mask_iou_stats(preds, target, detector=det, options=opts)
    return ocr_mask_iou_from_stats(stats, bind_detector(opts, det))


def ocr_mask_ious(preds: Any, target: Any, **options: Any) -> torch.Tensor:
    """Per-pair OCR text-mask IoU (MPTc-Bench App. B.5), float64 of length N, in [0, 1]; the
    options (``backend``, ``resample``, ``dilate_px``, ``input_range``, backend options) as
    :func:`ocr_mask_iou`. NaN for a pair where neither image has detected text (IoU undefined:
    count them with ``torch.isnan``; :func:`ocr_mask_iou` reports them in
    ``extras["both_empty"]`` and leaves them out of its mean, ``torch.nanmean`` of these)."""
    names = ("backend", "resample", "dilate_px", "input_range")
    opts = OCRMaskIoUOptions(**{k: options.pop(k) for k in names if k in options}, backend_options=options)
    counts = ocr_mask_counts(preds, target, detector=opts.detector(), **opts.run())
    return ocr_mask_iou_from_counts(counts["intersection"], counts["union"])


def mean_defined(values: Sequence[float] | torch.Tensor) -> tuple[float, int]:
    """Mean of the non-NaN values and how many there are (``(nan, 0)`` when none)."""
    t = torch.as_tensor(values, dtype=torch.float64)
    ok = ~torch.isnan(t)
    n = int(ok.sum())
    return (float(t[ok].mean()) if n else float("nan")), n
