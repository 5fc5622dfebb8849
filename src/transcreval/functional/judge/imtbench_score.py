"""IMTBenchScore's pieces: the checked set-up, the statistics, the value, the functional twin.

``S = (S_text + S_bg + S_align + S_vis) / 4`` per item (IMTBench §4, Eq. 6), over the items
where all four exist (:mod:`transcreval.functional.judge.imtbench_components` computes them);
the metric's value is the mean of S over those items. A missing component is reported as
missing, never averaged as 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from transcreval.common import check_choice
from transcreval.engines.judge.types import FAILURE_STATUSES
from transcreval.engines.judge.verdicts import check_judge
from transcreval.errors import InputError
from transcreval.functional.judge.imtbench import check_combine
from transcreval.functional.judge.imtbench_calls import JUDGE_CALLS, check_judge_templates
from transcreval.functional.judge.imtbench_components import (
    BG_MASKS,
    COMPONENTS,
    RESIZES,
    STATUSES,
    ItemComponents,
    imtbench_items,
)

__all__ = [
    "IMTBenchSetup",
    "components_from_stats",
    "imtbench_score",
    "imtbench_score_from_stats",
    "imtbench_score_stats",
    "imtbench_setup",
]


@dataclass
class IMTBenchSetup:
    """Everything the four components need, checked once (see :func:`imtbench_setup`)."""

    judge: Any
    comet: Any  # a COMETScore (its scorer, mapping and signature)
    judge_options: dict[str, Any]
    bg_mask: str
    background_options: dict[str, Any]
    lpips_signature: dict[str, Any] = field(default_factory=dict)

    def items(
        self,
        preds: Sequence[Any],
        target: Sequence[Any],
        translations: Sequence[str | None],
        references: Sequence[str],
        sources: Sequence[str],
        mask: Any = None,
    ) -> ItemComponents:
        """The four components of each item (``mask``: the background masks with ``bg_mask="given"``)."""
        if self.bg_mask == "given" and mask is None:
            raise InputError("bg_mask='given': pass the background masks (mask=..., 1 = background), one per item")
        if self.bg_mask == "ocr" and mask is not None:
            raise InputError("bg_mask='ocr' makes the background masks by OCR: do not pass mask=")
        return imtbench_items(
            preds,
            target,
            translations,
            references,
            sources,
            judge=self.judge,
            comet=self.comet.scorer,
            comet_bounds=self.comet.bounds,
            mask="ocr" if self.bg_mask == "ocr" else mask,
            judge_options=self.judge_options,
            background_options=self.background_options,
        )

    def signature_options(self) -> dict[str, Any]:
        jo = self.judge_options
        d = dict(self.judge.describe()) if hasattr(self.judge, "describe") else {}
        tpl = jo["templates"]["joint" if jo["call"] == "joint" else "harmonization"]
        bo = self.background_options
        bg = self.bg_mask
        if bg == "ocr":
            info = bo["ocr_backend"].info_for(False)
            bg = f"ocr:{info.backend}:{info.det_model}@{info.det_sha256[:12]}:dil{bo['ocr_dilate_px']:g}"
        return {
            **{f"comet_{k}": v for k, v in self.comet.signature.options},
            "judge": f"{d.get('backend', type(self.judge).__name__)}:{d.get('model', '?')}",
            "call": jo["call"],
            "tpl": tpl.ref,
            "ref": jo["reference"],
            "combine": jo["combine"],
            "bg": bg,
            **{f"lpips_{k}": v for k, v in self.lpips_signature.items()},
            "lpips_mode": bo["lpips_mode"],
            "resize": bo["resize"],
            # how float images were read (absent at the default, (0, 1))
            **({"range": f"{r[0]:g},{r[1]:g}"} if (r := jo["input_range"]) not in (None, (0.0, 1.0)) else {}),
        }


def imtbench_setup(
    *,
    judge: Any,
    comet: Any = None,
    judge_call: str = "joint",
    reference: bool = True,
    combine: str = "naturalness",
    templates: Mapping[str, Any] | None = None,
    bg_mask: str = "ocr",
    ocr_backend: Any = "rapidocr",
    ocr_dilate_px: float = 0,
    lpips_net: str = "alex",
    lpips_weights: Any = None,
    lpips_version: str | None = None,
    lpips_mode: str = "area",
    resize: str = "output-to-reference",
    device: Any = None,
    input_range: Any = None,
) -> IMTBenchSetup:
    """Check every option now and load what the components need (COMET model, LPIPS network,
    OCR detector). ``comet``: a :class:`~transcreval.COMETScore`, a dict of its options, or
    None (the default COMET-22 DA). The other options: see :class:`~transcreval.IMTBenchScore`."""
    from transcreval.engines.ocr.masks import check_dilate_px
    from transcreval.features.lpips_network import load_lpips_network
    from transcreval.io import check_input_range

    check_judge(judge, "IMTBenchScore")
    input_range = check_input_range(input_range)
    check_choice("judge_call", judge_call, JUDGE_CALLS)
    check_choice("bg_mask", bg_mask, BG_MASKS)
    check_choice("resize", resize, RESIZES)
    check_choice("lpips_mode", lpips_mode, ("area", "upsample"))
    judge_options = {
        "call": judge_call,
        "combine": check_combine(combine),
        "reference": reference,
        "templates": check_judge_templates(templates, reference=reference),
        "input_range": input_range,
    }
    dilate = check_dilate_px(ocr_dilate_px, "ocr_dilate_px")
    detector = ocr_backend
    if bg_mask == "ocr":
        from transcreval.engines.ocr.base import get_detector

        detector = get_detector(ocr_backend)  # an unknown backend fails now
    network = load_lpips_network(lpips_net, lpips_weights, device, version=lpips_version)
    background = {
        "resize": resize,
        "ocr_backend": detector,
        "ocr_dilate_px": dilate,
        "lpips_net": lpips_net,
        "lpips_weights": lpips_weights,
        "lpips_version": lpips_version,
        "lpips_mode": lpips_mode,
        "device": device,
        "input_range": input_range,
    }
    return IMTBenchSetup(
        judge, _comet_metric(comet), judge_options, bg_mask, background, dict(network.signature_options())
    )


def _comet_metric(comet: Any) -> Any:
    from transcreval.text.comet import COMETScore

    if comet is None:
        return COMETScore()
    if isinstance(comet, COMETScore):
        return comet
    if isinstance(comet, Mapping):
        return COMETScore(**comet)
    raise InputError(f"comet must be a COMETScore, a dict of its options or None, got {type(comet).__name__}")


# --------------------------------------------------------------------------- metric statistics
def imtbench_score_stats(comp: ItemComponents) -> dict[str, Any]:
    """The states of :class:`~transcreval.IMTBenchScore` for one batch: per component, the item
    values (``v_<component>``, NaN where missing) and status codes (``s_<component>``, indices
    into :data:`~transcreval.functional.judge.imtbench_components.STATUSES`)."""
    import torch

    out: dict[str, Any] = {}
    for c in COMPONENTS:
        out[f"v_{c}"] = torch.tensor(comp.values[c], dtype=torch.float64)
        out[f"s_{c}"] = torch.tensor([STATUSES.index(s) for s in comp.status[c]], dtype=torch.int64)
    return out


def components_from_stats(stats: Mapping[str, Any]) -> ItemComponents:
    """The per-item components back from :func:`imtbench_score_stats` (or synced) states."""
    comp = ItemComponents()
    for c in COMPONENTS:
        comp.values[c] = [float(v) for v in stats[f"v_{c}"].tolist()]
        comp.status[c] = [STATUSES[int(k)] for k in stats[f"s_{c}"].tolist()]
    return comp


def imtbench_score_from_stats(stats: Mapping[str, Any], signature: Any) -> Any:
    """The mean of S over the items where all four components exist; ``per_item`` S per item
    (NaN where one is missing); ``extras``: per component its mean (``components``), its item
    count (``n_components``) and why it is missing where it is (``missing``), ``item_status``
    per item, ``n_items``, and the items the judge failed on (``n_failed``, ``failures`` per
    failure status, as every judge metric reports them)."""
    import torch

    from transcreval.errors import EmptyInputError, UndefinedValueError
    from transcreval.result import MetricResult

    comp = components_from_stats(stats)
    if comp.n == 0:
        raise EmptyInputError("IMTBenchScore needs at least one item")
    overall = comp.overall()
    complete = [s for s in overall if math.isfinite(s)]
    missing = {c: {s: n for s in STATUSES[1:] if (n := comp.status[c].count(s))} for c in COMPONENTS}
    if not complete:
        raise UndefinedValueError(
            f"IMTBenchScore: none of {comp.n} items has all four components (missing: {missing}); "
            "a missing component is never counted as 0"
        )
    status = comp.item_status()
    failures = {s: status.count(s) for s in FAILURE_STATUSES}
    means = {}
    for c in COMPONENTS:
        ok = [v for v in comp.values[c] if math.isfinite(v)]
        means[c] = math.fsum(ok) / len(ok) if ok else math.nan
    return MetricResult(
        value=math.fsum(complete) / len(complete),
        n=len(complete),
        signature=signature,
        per_item=torch.tensor(overall, dtype=torch.float64),
        extras={
            "components": means,
            "n_components": {c: sum(1 for v in comp.values[c] if math.isfinite(v)) for c in COMPONENTS},
            "missing": missing,
            "item_status": status,
            "n_items": comp.n,
            # judge failures counted as every judge metric counts them (items, by status)
            "n_failed": sum(failures.values()),
            "failures": failures,
        },
    )


def imtbench_score(
    preds: Sequence[Any],
    target: Sequence[Any],
    translations: Sequence[str | None],
    references: Sequence[str],
    sources: Sequence[str],
    mask: Any = None,
    *,
    judge: Any,
    **options: Any,
) -> float:
    """IMTBench's S (Eq. 6): the mean over items of (S_text + S_bg + S_align + S_vis) / 4, over
    the items where all four exist. Options as :class:`~transcreval.IMTBenchScore`."""
    from transcreval.result import Signature

    setup = imtbench_setup(judge=judge, **options)
    comp = setup.items(preds, target, translations, references, sources, mask)
    return float(imtbench_score_from_stats(imtbench_score_stats(comp), Signature.make("imtbench_score")).value)
