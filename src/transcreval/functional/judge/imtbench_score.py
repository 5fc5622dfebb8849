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
from transcreval.core.options import option
from transcreval.core.result import MetricResult
from transcreval.engines.judge.pipeline import judge_label
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
    "comet_signature",
    "components_from_stats",
    "imtbench_score",
    "imtbench_score_from_stats",
    "imtbench_score_stats",
]

PACKAGES = ("unbabel-comet",)


#: IMTBench's own options print first, then S_bg's (:class:`BackgroundOptions`)
_FIRST = -1


@dataclass(frozen=True, kw_only=True)
class IMTBenchOptions(BackgroundOptions):
    """IMTBenchScore's options, the one object the class, its twin and the protocol take: the
    judge, ``comet`` (a COMETScore, a dict of its options or None), ``judge_call``, ``reference``,
    ``combine``, ``templates``, ``bg_mask`` and S_bg's options (:class:`BackgroundOptions`).
    Checked when built; :attr:`loaded` loads what the components need (once). The signature
    names the COMET checkpoint and the LPIPS weights by digest without loading them; OCR masks
    name the detector by its own record (the detector is built, as BackgroundPreservation's)."""

    comet: Any = option(None, signature=lambda o: comet_signature(o.comet), signature_order=_FIRST)
    judge: Any = option(signature=lambda o: {"judge": judge_label(o.judge)}, signature_order=_FIRST)
    judge_call: str = option("joint", signature="call", signature_order=_FIRST)
    templates: Mapping[str, Any] | None = option(
        None, signature=lambda o: {"tpl": o.template().ref}, signature_order=_FIRST
    )
    reference: bool = option(True, signature="ref", signature_order=_FIRST)
    combine: str = option("naturalness", signature_order=_FIRST)
    bg_mask: str = option("ocr", signature=lambda o: {"bg": o.bg_label()}, signature_order=_FIRST)

    def check(self) -> None:
        check_judge(self.judge, "IMTBenchScore")
        super().check()
        check_choice("judge_call", self.judge_call, JUDGE_CALLS)
        check_choice("bg_mask", self.bg_mask, BG_MASKS)
        check_bool("reference", self.reference)
        check_combine(self.combine)
        check_judge_templates(self.templates, reference=self.reference)

    def template(self) -> Any:
        """The prompt the signature names: the joint call's, or the harmonization call's."""
        templates = check_judge_templates(self.templates, reference=self.reference)
        return templates["joint" if self.judge_call == "joint" else "harmonization"]

    @cached_property
    def detector(self) -> Any:
        """The OCR detector of ``bg_mask="ocr"`` (shared within the process; None for given masks)."""
        if self.bg_mask != "ocr":
            return None
        from transcreval.engines.ocr.base import get_detector

        return get_detector(self.ocr_backend)

    def bg_label(self) -> str:
        """Where the background masks come from: "given", or the OCR detector's backend, model
        and digest, and the dilation."""
        if self.detector is None:
            return self.bg_mask
        info = self.detector.info_for(False)
        return f"ocr:{info.backend}:{info.det_model}@{info.det_sha256[:12]}:dil{self.ocr_dilate_px:g}"

    @cached_property
    def loaded(self) -> IMTBenchSetup:
        """The COMET model, LPIPS network and OCR detector, loaded once (an unknown backend fails here)."""
        from transcreval.features.lpips_network import load_lpips_network

        # loaded now (and kept in the process-wide cache S_bg reads): missing weights fail here
        load_lpips_network(self.lpips_net, self.lpips_weights, self.device, version=self.lpips_version)
        judge_options = {
            "call": self.judge_call,
            "combine": self.combine,
            "reference": self.reference,
            "templates": check_judge_templates(self.templates, reference=self.reference),
            "input_range": self.input_range,
        }
        detector = self.ocr_backend if self.detector is None else self.detector
        background = BackgroundOptions.take(
            {**{k: getattr(self, k) for k in BackgroundOptions.__dataclass_fields__}, "ocr_backend": detector}
        )
        return IMTBenchSetup(self, loaded_comet(self.comet), judge_options, background)


@dataclass
class IMTBenchSetup:
    """What the four components need, loaded from :class:`IMTBenchOptions` (its ``loaded``)."""

    options: IMTBenchOptions
    comet: Any  # a COMETScore or LoadedCOMET (its scorer, mapping and signature)
    judge_options: dict[str, Any]
    background: BackgroundOptions

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


def comet_signature(comet: Any) -> dict[str, Any]:
    """COMET's entries in IMTBenchScore's signature (``comet_model``, ``comet_ckpt``,
    ``comet_norm``): those of the :class:`~transcreval.COMETScore` that ``comet`` stands for,
    named without loading a model (a COMETScore given is loaded already)."""
    from transcreval.functional.text.comet import PACKAGES as COMET_PACKAGES
    from transcreval.functional.text.comet import COMETOptions, named_options

    if comet is None or isinstance(comet, Mapping):
        options = COMETOptions() if comet is None else COMETOptions.take(comet, "COMETScore")
        signature = named_options(options).signature("COMETScore", COMET_PACKAGES)
    else:
        signature = loaded_comet(comet).signature
    return {f"comet_{k}": v for k, v in signature.options}


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
