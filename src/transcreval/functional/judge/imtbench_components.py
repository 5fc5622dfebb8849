"""IMTBench's four components and the overall score S (§4, Eq. 6), item by item.

For each item (a source image with its text, the reference image I_tgt and reference
translation T_tgt, and a system's output image I^_tgt and translation text T^_tgt):

* ``S_text`` (Eq. 2): COMET of (T_src, T_tgt, T^_tgt) (:mod:`transcreval.functional.text.comet`);
* ``S_bg`` (Eq. 3): 1 - masked LPIPS between I_tgt and I^_tgt over the background
  (:func:`~transcreval.functional.background_preservation`); the background mask is the
  complement of the text an OCR detector finds in I_tgt (``bg_mask="ocr"``) or given
  (``bg_mask="given"``); an output of another size is resized to the reference's size
  (bicubic, antialiased; ``resize="output-to-reference"``) or not scored
  (``resize="error"``: status ``"size_mismatch"``);
* ``S_align`` (Eq. 5) and ``S_vis`` (Eq. 4): the judge, one joint call per item by default
  (:mod:`transcreval.functional.judge.imtbench_calls`);
* ``S = (S_text + S_bg + S_align + S_vis) / 4`` (Eq. 6) where all four exist; NaN otherwise.

A component that cannot be computed for an item is missing (NaN with its status), never 0:
``"missing_output"`` (no output image or no translation text), ``"no_background"`` (the mask
keeps no pixel), ``"size_mismatch"``, or the judge's failure status.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from transcreval.core.common import check_choice, check_texts
from transcreval.core.options import MetricOptions, option
from transcreval.engines.judge.pipeline import range_signature
from transcreval.engines.judge.types import FAILURE_STATUSES
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional.judge.imtbench_calls import ItemScore, judge_items
from transcreval.functional.text.comet import comet_samples, normalize_scores

__all__ = [
    "BG_MASKS",
    "COMPONENTS",
    "RESIZES",
    "STATUSES",
    "BackgroundOptions",
    "ItemComponents",
    "background_items",
    "imtbench_items",
    "overall_score",
    "text_items",
]

COMPONENTS = ("S_text", "S_bg", "S_align", "S_vis")
STATUSES = ("ok", "missing_output", "no_background", "size_mismatch", *FAILURE_STATUSES)
BG_MASKS = ("ocr", "given")
RESIZES = ("output-to-reference", "error")


@dataclass(frozen=True, kw_only=True)
class BackgroundOptions(MetricOptions):
    """How S_bg is computed (IMTBench Eq. 3): ``resize`` ("output-to-reference" or "error"),
    the OCR detector of the background masks and how far its text boxes grow
    (``ocr_dilate_px``), the LPIPS network (``lpips_net``, ``lpips_weights``, ``lpips_version``,
    ``lpips_mode`` "area" or "upsample"), ``device`` and ``input_range`` of float images.
    :class:`~transcreval.functional.judge.imtbench_score.IMTBenchOptions` extends it."""

    resize: str = option("output-to-reference", signature_order=1)
    ocr_backend: Any = option("rapidocr", signature=None)
    ocr_dilate_px: float = option(0, signature=None)
    #: the network's weights by digest (not loaded), as ``lpips_<key>``
    lpips_net: str = option("alex", signature=lambda o: _lpips_entries(o))
    lpips_weights: Any = option(None, signature=None)
    lpips_version: str | None = option(None, signature=None)
    lpips_mode: str = "area"
    device: Any = option(None, signature=None)
    input_range: Any = option(None, signature=lambda o: range_signature(o.input_range), signature_order=1)

    def check(self) -> None:
        from transcreval.engines.ocr.masks import check_dilate_px
        from transcreval.io import check_input_range

        self.set_checked("input_range", check_input_range(self.input_range))
        check_choice("resize", self.resize, RESIZES)
        check_choice("lpips_mode", self.lpips_mode, ("area", "upsample"))
        self.set_checked("ocr_dilate_px", check_dilate_px(self.ocr_dilate_px, "ocr_dilate_px"))


def _lpips_entries(o: BackgroundOptions) -> dict[str, str]:
    """The LPIPS network's ids in the signature (``lpips_net``, ``lpips_trunk``, ...), by
    digest: the network is not loaded."""
    from transcreval.features.lpips_network import lpips_weights_signature

    return {f"lpips_{k}": v for k, v in lpips_weights_signature(o.lpips_net, o.lpips_weights, o.lpips_version).items()}


def overall_score(values: Mapping[str, float]) -> float:
    """Eq. 6 for one item: the mean of the four components, NaN unless all four are finite."""
    vals = [float(values[c]) for c in COMPONENTS]
    return sum(vals) / 4.0 if all(math.isfinite(v) for v in vals) else math.nan


@dataclass
class ItemComponents:
    """Per component, the items' values (NaN where missing) and statuses, in input order."""

    values: dict[str, list[float]] = field(default_factory=dict)
    status: dict[str, list[str]] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.values[COMPONENTS[0]]) if self.values else 0

    def overall(self) -> list[float]:
        """S per item (Eq. 6)."""
        return [overall_score({c: self.values[c][i] for c in COMPONENTS}) for i in range(self.n)]

    def item_status(self) -> list[str]:
        """Per item: "ok" when S exists, else the first component's reason."""
        out = []
        for i in range(self.n):
            bad = [self.status[c][i] for c in COMPONENTS if self.status[c][i] != "ok"]
            out.append(bad[0] if bad else "ok")
        return out


def _put(comp: ItemComponents, name: str, scores: Sequence[ItemScore]) -> None:
    comp.values[name] = [s.value if s.ok else math.nan for s in scores]
    comp.status[name] = [s.status for s in scores]


def text_items(
    translations: Sequence[str | None],
    references: Sequence[str],
    sources: Sequence[str],
    *,
    scorer: Callable[[list[dict[str, str]]], list[float]],
    bounds: tuple[float, float] | None,
) -> list[ItemScore]:
    """S_text per item (``"missing_output"`` where the system gave no text)."""
    n = len(translations)
    if not len(references) == len(sources) == n:
        raise InputError(f"{n} translations, {len(references)} references, {len(sources)} sources: one each per item")
    have = [i for i, t in enumerate(translations) if t is not None]
    samples = comet_samples([translations[i] for i in have], [references[i] for i in have], [sources[i] for i in have])
    scores = normalize_scores(scorer(samples), bounds) if samples else []
    out = [ItemScore("missing_output", detail="the system gave no translation text")] * n
    for i, s in zip(have, scores):
        out[i] = ItemScore("ok", float(s))
    return out


def _fit(pred: Any, size: tuple[int, int]) -> Any:
    import torch.nn.functional as F

    return F.interpolate(pred[None], size=size, mode="bicubic", antialias=True, align_corners=False)[0].clamp(0, 1)


def background_items(
    preds: Sequence[Any],
    target: Sequence[Any],
    *,
    mask: Any = "ocr",
    options: BackgroundOptions | None = None,
    **kwargs: Any,
) -> list[ItemScore]:
    """S_bg per pair: ``preds`` output images (None: missing), ``target`` reference images;
    ``mask`` "ocr" or one background mask per pair (1 = background); the options as
    :class:`BackgroundOptions` (``options=`` or one by one)."""
    import numpy as np
    import torch

    from transcreval.functional.image.masked_lpips import background_preservation_per_pair, ocr_background

    o = options if options is not None else BackgroundOptions.take(kwargs, "background_items")
    input_range = o.input_range
    n = len(preds)
    if len(target) != n:
        raise InputError(f"{len(target)} reference images for {n} outputs")
    out = [ItemScore("missing_output", detail="no output image")] * n
    have = [i for i in range(n) if preds[i] is not None]
    if not have:
        return out
    refs = {i: _decoded(target[i], f"target[{i}]", input_range) for i in have}
    outs = {i: _decoded(preds[i], f"preds[{i}]", input_range) for i in have}
    if isinstance(mask, str):
        check_choice("mask", mask, BG_MASKS[:1])
        found = ocr_background([refs[i] for i in have], backend=o.ocr_backend, dilate_px=o.ocr_dilate_px)
        masks = dict(zip(have, found))
    else:
        if len(mask) != n:
            raise InputError(f"{len(mask)} background masks for {n} items")
        masks = {i: mask[i] for i in have}
    pairs = []
    for i in have:
        size = tuple(refs[i].shape[-2:])
        m = torch.as_tensor(np.asarray(masks[i])).bool()
        if m.ndim == 3 and m.shape[-1] == 1:
            m = m[..., 0]
        if tuple(outs[i].shape[-2:]) != size:
            if o.resize == "error":
                got = tuple(outs[i].shape[-2:])
                out[i] = ItemScore("size_mismatch", detail=f"output {got} vs reference {size}")
                continue
            outs[i] = _fit(outs[i], size)
        if not bool(m.any()):
            out[i] = ItemScore("no_background", detail="the background mask keeps no pixel (all text)")
            continue
        pairs.append((i, m))
    if pairs:
        values = background_preservation_per_pair(
            [outs[i] for i, _ in pairs],
            [refs[i] for i, _ in pairs],
            [m for _, m in pairs],
            net=o.lpips_net,
            weights=o.lpips_weights,
            version=o.lpips_version,
            mode=o.lpips_mode,
            device=o.device,
        )
        for (i, _), v in zip(pairs, values.tolist()):
            out[i] = ItemScore("ok", float(v))
    return out


def _decoded(image: Any, what: str, input_range: Any) -> Any:
    """One image as a float ``3 x H x W`` tensor in [0, 1] (:mod:`transcreval.io`); an error names ``what``."""
    from transcreval.io import to_rgb_float

    try:
        return to_rgb_float([image], input_range=input_range)[0]
    except InputError as e:
        raise InputError(f"{what}: {e}") from None


def image_items(images: Any, what: str) -> list[Any]:
    """A batch of images as a list of items (None kept: an item without an image). A 4-D array
    or tensor is split; a single 3-D one is refused where it is ambiguous (:mod:`transcreval.io`)."""
    import numpy as np
    import torch

    from transcreval.io import split_batch

    if isinstance(images, (np.ndarray, torch.Tensor)):
        try:
            return split_batch(images)
        except InputError as e:
            raise InputError(f"{what}: {e}") from None
    if isinstance(images, (str, bytes)) or not isinstance(images, Sequence):
        raise InputError(f"{what} must be a list with one image (or None) per item, got {type(images).__name__}")
    return list(images)


def imtbench_items(
    preds: Sequence[Any],
    target: Sequence[Any],
    translations: Sequence[str | None],
    references: Sequence[str],
    sources: Sequence[str],
    *,
    judge: Any,
    comet: Callable[[list[dict[str, str]]], list[float]],
    comet_bounds: tuple[float, float] | None = None,
    mask: Any = "ocr",
    judge_options: Mapping[str, Any] | None = None,
    background_options: BackgroundOptions | None = None,
) -> ItemComponents:
    """The four components of every item (see the module docstring).

    ``preds``: output images (None where the system gave none); ``target``: reference images;
    ``translations``: the system's texts (None where missing); ``references``: reference
    translations; ``sources``: source texts; ``comet``: a COMET scorer (``samples -> scores``)
    whose scores ``comet_bounds`` maps to [0, 1]; ``mask``: "ocr" or a background mask per
    item; ``judge_options``: :func:`~transcreval.functional.judge.imtbench_calls.judge_items`'s
    (``call``, ``combine``, ``reference``, ``templates``); ``background_options``:
    :class:`BackgroundOptions`.
    """
    preds, target = image_items(preds, "preds"), image_items(target, "target")
    texts = check_texts(translations, "translations", missing_ok=True)
    references, sources = check_texts(references, "references"), check_texts(sources, "sources")
    n = len(preds)
    if n == 0:
        raise EmptyInputError("IMTBench: empty batch: pass at least one item")
    if not len(target) == len(texts) == len(references) == len(sources) == n:
        raise InputError(
            f"{n} outputs (preds), {len(target)} reference images (target), {len(texts)} translations, "
            f"{len(references)} references, {len(sources)} sources: one each per item"
        )
    comp = ItemComponents()
    _put(comp, "S_text", text_items(texts, references, sources, scorer=comet, bounds=comet_bounds))
    _put(comp, "S_bg", background_items(preds, target, mask=mask, options=background_options or BackgroundOptions()))
    have = [i for i in range(n) if preds[i] is not None]
    vis = [ItemScore("missing_output", detail="no output image")] * n
    align = list(vis)
    if have:
        v, a = judge_items(
            [preds[i] for i in have],
            [target[i] for i in have],
            [texts[i] for i in have],
            judge=judge,
            **dict(judge_options or {}),
        )
        for i, vi, ai in zip(have, v, a):
            vis[i], align[i] = vi, ai
    _put(comp, "S_align", align)
    _put(comp, "S_vis", vis)
    return comp
