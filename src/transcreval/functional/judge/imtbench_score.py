"""IMTBenchScore's pieces: the checked set-up, the statistics, the value, the functional twin.

``S = (S_text + S_bg + S_align + S_vis) / 4`` per item (IMTBench §4, Eq. 6), over the items
where all four exist (:mod:`transcreval.functional.judge.imtbench_components` computes them);
the metric's value is the mean of S over those items. A missing component is reported as
missing, never averaged as 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from transcreval.core.common import check_bool, check_choice
from transcreval.core.result import MetricResult
from transcreval.engines.judge.types import FAILURE_STATUSES
from transcreval.engines.judge.verdicts import check_judge
from transcreval.errors import InputError
from transcreval.functional.judge.imtbench import check_combine
from transcreval.functional.judge.imtbench_calls import JUDGE_CALLS, check_judge_templates
from transcreval.functional.judge.imtbench_components import (
    BG_MASKS,
    COMPONENTS,
    STATUSES,
    BackgroundOptions,
    ItemComponents,
    imtbench_items,
)

__all__ = [
    "PACKAGES",
    "IMTBenchOptions",
    "IMTBenchSetup",
    "components_from_stats",
    "imtbench_score",
    "imtbench_score_from_stats",
    "imtbench_score_stats",
]

PACKAGES = ("unbabel-comet",)


@dataclass(frozen=True, kw_only=True)
class IMTBenchOptions(BackgroundOptions):
    """IMTBenchScore's options, the one object the class, its twin and the protocol take: the
    judge, ``comet`` (a COMETScore, a dict of its options or None), ``judge_call``, ``reference``,
    ``combine``, ``templates``, ``bg_mask`` and S_bg's options (:class:`BackgroundOptions`).
    Checked when built; :attr:`loaded` loads what the components need (once)."""

    judge: Any
    comet: Any = None
    judge_call: str = "joint"
    reference: bool = True
    combine: str = "naturalness"
    templates: Mapping[str, Any] | None = None
    bg_mask: str = "ocr"

    def check(self) -> None:
        check_judge(self.judge, "IMTBenchScore")
        super().check()
        check_choice("judge_call", self.judge_call, JUDGE_CALLS)
        check_choice("bg_mask", self.bg_mask, BG_MASKS)
        check_bool("reference", self.reference)
        check_combine(self.combine)
        check_judge_templates(self.templates, reference=self.reference)

    @cached_property
    def loaded(self) -> IMTBenchSetup:
        """The COMET model, LPIPS network and OCR detector, loaded once (an unknown backend fails here)."""
        from transcreval.features.lpips_network import load_lpips_network

        detector = self.ocr_backend
        if self.bg_mask == "ocr":
            from transcreval.engines.ocr.base import get_detector

            detector = get_detector(self.ocr_backend)
        network = load_lpips_network(self.lpips_net, self.lpips_weights, self.device, version=self.lpips_version)
        judge_options = {
            "call": self.judge_call,
            "combine": self.combine,
            "reference": self.reference,
            "templates": check_judge_templates(self.templates, reference=self.reference),
            "input_range": self.input_range,
        }
        background = BackgroundOptions.take(
            {**{k: getattr(self, k) for k in BackgroundOptions.__dataclass_fields__}, "ocr_backend": detector}
        )
        return IMTBenchSetup(
            self, loaded_comet(self.comet), judge_options, background, dict(network.signature_options())
        )

    def signature_options(self) -> dict[str, Any]:
        return self.loaded.signature_options()


@dataclass
class IMTBenchSetup:
    """What the four components need, loaded from :class:`IMTBenchOptions` (its ``loaded``)."""

    options: IMTBenchOptions
    comet: Any  # a COMETScore or LoadedCOMET (its scorer, mapping and signature)
    judge_options: dict[str, Any]
    background: BackgroundOptions
    lpips_signature: Mapping[str, Any]

    def items(self, *inputs: Any, mask: Any = None) -> ItemComponents:
        """The four components of each item; ``inputs``: ``preds, target, translations,
        references, sources`` as :func:`imtbench_score` takes them, ``mask``: the background
        masks with ``bg_mask="given"``."""
        if len(inputs) != 5:
            raise TypeError(
                f"IMTBenchSetup.items takes 5 inputs (preds, target, translations, references, sources), "
                f"got {len(inputs)}; pass the background masks by name: mask=..."
            )
        bg_mask = self.options.bg_mask
        if bg_mask == "given" and mask is None:
            raise InputError("bg_mask='given': pass the background masks (mask=..., 1 = background), one per item")
        if bg_mask == "ocr" and mask is not None:
            raise InputError("bg_mask='ocr' makes the background masks by OCR: do not pass mask=")
        return imtbench_items(
            *inputs,
            judge=self.options.judge,
            comet=self.comet.scorer,
            comet_bounds=self.comet.bounds,
            mask="ocr" if bg_mask == "ocr" else mask,
            judge_options=self.judge_options,
            background_options=self.background,
        )

    def signature_options(self) -> dict[str, Any]:
        o, jo = self.options, self.judge_options
        d = dict(o.judge.describe()) if hasattr(o.judge, "describe") else {}
        tpl = jo["templates"]["joint" if jo["call"] == "joint" else "harmonization"]
        bg = o.bg_mask
        if bg == "ocr":
            info = self.background.ocr_backend.info_for(False)
            bg = f"ocr:{info.backend}:{info.det_model}@{info.det_sha256[:12]}:dil{o.ocr_dilate_px:g}"
        return {
            **{f"comet_{k}": v for k, v in self.comet.signature.options},
            "judge": f"{d.get('backend', type(o.judge).__name__)}:{d.get('model', '?')}",
            "call": jo["call"],
            "tpl": tpl.ref,
            "ref": jo["reference"],
            "combine": jo["combine"],
            "bg": bg,
            **{f"lpips_{k}": v for k, v in self.lpips_signature.items()},
            "lpips_mode": o.lpips_mode,
            "resize": o.resize,
            # how float images were read (absent at the default, (0, 1))
            **({"range": f"{r[0]:g},{r[1]:g}"} if (r := o.input_range) not in (None, (0.0, 1.0)) else {}),
        }


def loaded_comet(comet: Any) -> Any:
    """The COMET model S_text scores with, from IMTBench's ``comet`` option: a
    :class:`~transcreval.COMETScore` as it is, a dict of its options or None (COMET-22 DA) as a
    :class:`~transcreval.functional.text.comet.LoadedCOMET`."""
    from transcreval.functional.text.comet import COMETOptions, LoadedCOMET

    if comet is None:
        return LoadedCOMET.load(COMETOptions())
    if isinstance(comet, Mapping):
        return LoadedCOMET.load(COMETOptions.take(comet, "COMETScore"))
    is_metric = isinstance(getattr(comet, "options", None), COMETOptions) and hasattr(comet, "scorer")
    if isinstance(comet, LoadedCOMET) or is_metric:
        return comet  # a COMETScore: its model is loaded already
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


def imtbench_score_from_stats(stats: Mapping[str, Any], options: IMTBenchOptions) -> MetricResult:
    """The mean of S over the items where all four components exist; ``per_item`` S per item
    (NaN where one is missing); ``extras``: per component its mean (``components``), its item
    count (``n_components``) and why it is missing where it is (``missing``), ``item_status``
    per item, ``n_items``, and the items the judge failed on (``n_failed``, ``failures`` per
    failure status, as every judge metric reports them)."""
    import torch

    from transcreval.errors import EmptyInputError, UndefinedValueError

    signature = options.signature("IMTBenchScore", PACKAGES)
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
) -> MetricResult:
    """IMTBench's S (Eq. 6): the mean over items of (S_text + S_bg + S_align + S_vis) / 4, over
    the items where all four exist; options as :class:`IMTBenchOptions`. Returns what
    ``IMTBenchScore.compute()`` returns."""
    opts = IMTBenchOptions.take({"judge": judge, **options}, "imtbench_score")
    comp = opts.loaded.items(preds, target, translations, references, sources, mask=mask)
    return imtbench_score_from_stats(imtbench_score_stats(comp), opts)
