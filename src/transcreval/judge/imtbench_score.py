"""IMTBenchScore: IMTBench's overall score S (§4, Eq. 6) from its four components."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import torch

from transcreval.core.metric import Metric
from transcreval.core.options import options_signature
from transcreval.core.result import MetricResult
from transcreval.core.states import Cat
from transcreval.functional.judge.imtbench_components import COMPONENTS
from transcreval.functional.judge.imtbench_score import (
    PACKAGES,
    IMTBenchOptions,
    imtbench_score_from_stats,
    imtbench_score_stats,
)


class IMTBenchScore(Metric):
    """IMTBench's S = (S_text + S_bg + S_align + S_vis) / 4 per item (Eq. 6), averaged over items.

    ``update(preds, target, translations, references, sources, mask=None)``: the system's output
    images, the reference images I_tgt, the system's translation texts (None where it gave
    none), the reference translations, the source texts, and (``bg_mask="given"``) the
    background masks (1 = background). Per item: S_text is COMET (:class:`COMETScore`), S_bg
    is 1 - masked LPIPS over the background (:class:`BackgroundPreservation`), S_vis and S_align
    come from the judge (one joint call per item by default, as the paper's prompt). S exists
    where all four do; the value is the mean of S over those items, ``per_item`` holds S (NaN
    where a component is missing: never counted as 0) and ``extras`` each component's mean,
    count and reasons for missing items.

    Args:
        judge: the VLM judge (an OpenAICompatibleJudge, a ReplayJudge, ...).
        comet: a :class:`~transcreval.COMETScore`, a dict of its options, or None (COMET-22 DA).
        judge_call: "joint" (default: one call per item for S_vis and S_align, App. A.3) or
            "separate" (one call per score).
        reference: show the reference image I_tgt to the S_vis judge (Eq. 4; default True).
        combine: S_vis from "naturalness" (Eq. 4, default), "min" or "mean" with the artifacts score.
        templates: replace the judge templates: ``{"joint" | "harmonization" | "alignment": template}``.
        bg_mask: "ocr" (default: background = outside the text OCR finds in I_tgt) or "given".
        ocr_backend, ocr_dilate_px: the OCR detector and how far detected text is grown.
        lpips_net, lpips_weights: the LPIPS network of S_bg (alex; weights as :class:`LPIPS`).
        lpips_version: the LPIPS version ("0.1" or "0.0") of linear layers that are not lpips'
            own (as :class:`LPIPS`: required for such layers, checked against lpips' digests).
        lpips_mode: how the mask meets LPIPS' layers: "area" (default, Eq. 3: per layer at its
            resolution) or "upsample" (lpips' upsampled map times the mask).
        resize: "output-to-reference" (default: an output of another size is resized to the
            reference's, bicubic) or "error" (such an item's S_bg is missing: "size_mismatch").
        device: where LPIPS runs.
        input_range: the value range of float images, e.g. ``(-1, 1)`` (default ``(0, 1)``), for
            the LPIPS and the judge inputs alike (:mod:`transcreval.io`).
        **kwargs: :class:`~transcreval.core.metric.Metric` options (process_group, ...).

    The options are one :class:`~transcreval.functional.judge.imtbench_score.IMTBenchOptions`
    (``metric.options``), the object the twin and the IMTBench protocol build too.
    """

    version_packages: tuple[str, ...] = PACKAGES
    #: the role of each ``update`` argument (:mod:`transcreval.engines.judge.roles`)
    input_roles: ClassVar[Mapping[str, str]] = {
        "preds": "image",
        "target": "image",
        "translations": "text",
        "references": "text",
        "sources": "text",
        "mask": "mask",
    }

    def __init__(self, *, judge: Any, **kwargs: Any) -> None:
        own = {f: kwargs.pop(f) for f in IMTBenchOptions.__dataclass_fields__ if f in kwargs}
        self.options = IMTBenchOptions(judge=judge, **own)
        super().__init__(**kwargs)
        self.setup = self.options.loaded  # the COMET model, LPIPS network and OCR detector, loaded now
        for c in COMPONENTS:
            self.add_state(f"v_{c}", Cat(torch.float64))
            self.add_state(f"s_{c}", Cat(torch.int64))

    def _stats(
        self,
        preds: Any,
        target: Any,
        translations: Sequence[str | None],
        references: Sequence[str],
        sources: Sequence[str],
        mask: Any = None,
    ) -> dict[str, Any]:
        """``preds``: output images; ``target``: reference images; ``translations``: the system's
        texts; ``references``: reference translations; ``sources``: source texts; ``mask``:
        background masks (``bg_mask="given"`` only)."""
        return imtbench_score_stats(self.setup.items(preds, target, translations, references, sources, mask=mask))

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return imtbench_score_from_stats(stats, self.options)


# help() shows the options by name and default, from the options dataclass
IMTBenchScore.__init__.__signature__ = options_signature(IMTBenchOptions, IMTBenchScore.__init__)  # type: ignore[attr-defined]
