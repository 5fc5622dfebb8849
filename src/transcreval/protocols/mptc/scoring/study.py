"""MPTc-Bench protocol steps: the edit-intensity study, the Table 5 collection, the plan loss.

* :func:`edit_intensity_study` (App. B.2, Table 7, Figure 11): for candidate (SRC, GT) poster
  pairs, the pHash distance, LPIPS (alex) and DINOv2 cosine distance of every pair, computed
  in one pass over the pairs; the Surface/Deep split by pHash (<= 12 / >= 30, inclusive, middle
  band discarded); the separability AUC of each distance (deep = positive) with a seeded
  bootstrap interval; the threshold sweep t_s in {10, 12, 14}, t_d in {28, 30, 32}; and the
  per-band means and standard deviations of Table 7. :func:`format_edit_intensity` prints it.
* :func:`similarity_metrics` (§5.3, Table 5): CLIP, FID_GT and FID_SRC as one
  :class:`~transcreval.MetricCollection` updated with ``(outputs, gt_posters, source=src_posters)``:
  the outputs' Inception features are computed once for both FIDs.
* :func:`plan_to_render_loss` (§5.1, Figure 6): the share of the planner's title fidelity that
  rendering loses, from :class:`~transcreval.TitleChrF` and :class:`~transcreval.PlanChrF`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch

from transcreval.core.result import MetricResult
from transcreval.errors import InputError

__all__ = [
    "EditIntensityStudy",
    "edit_intensity_study",
    "format_edit_intensity",
    "plan_to_render_loss",
    "similarity_metrics",
]

DISTANCES = ("phash", "lpips", "dinov2")


@dataclass
class EditIntensityStudy:
    """Everything MPTc App. B.2 reports, from one pass over the pairs.

    Attributes:
        distances: per pair, ``{"phash": int64 (N,), "lpips": float64 (N,), "dinov2": float64 (N,)}``.
        bands: per pair, ``"surface"``, ``"intermediate"`` or ``"deep"`` (the primary split).
        auc: per distance, the separability AUC (deep vs surface) with ``extras["ci"]`` when
            bootstrapping; when the split has no deep or no surface pair, an undefined result
            (``defined=False``, value NaN, ``extras["undefined"]`` the reason) and everything
            else is still reported.
        sweep: per distance, one row per (t_s, t_d) of the threshold sweep (a row without an
            AUC has ``"undefined"``: the reason).
        band_summary: per band, ``n`` and the mean/std of LPIPS and DINOv2 distances (Table 7).
        thresholds: the primary ``(surface_max, deep_min)``.
        figures: ``{"fig11_distributions": Table}``, Fig. 11's LPIPS and DINOv2 box-plot numbers
            per band (:func:`~transcreval.protocols.mptc.figures.fig11_distributions`).
    """

    distances: dict[str, torch.Tensor]
    bands: list[str]
    auc: dict[str, MetricResult]
    sweep: dict[str, list[dict[str, Any]]]
    band_summary: list[dict[str, Any]]
    thresholds: tuple[float, float]
    options: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, Any] = field(default_factory=dict)


def _chunks(n: int, size: int) -> list[range]:
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def _decoded(items: Sequence[Any], what: str) -> list[Any]:
    """Files decoded once (PIL images), anything else as it is."""
    import os

    from transcreval.io import open_image

    return [open_image(x) if isinstance(x, (str, bytes, bytearray, os.PathLike)) else x for x in items]


def _resized(images: list[Any], size: int, input_range: Any) -> torch.Tensor:
    import torch.nn.functional as F

    from transcreval.io import to_rgb_float

    out = []
    for img in images:
        x = to_rgb_float([img], input_range=input_range)  # one item: a 3-D array is one image
        x = x if isinstance(x, torch.Tensor) else torch.stack(x)
        out.append(F.interpolate(x, size=(size, size), mode="bicubic", antialias=True, align_corners=False).clamp(0, 1))
    return torch.cat(out)


def edit_intensity_study(
    source: Sequence[Any],
    target: Sequence[Any],
    *,
    surface_max: float = 12,
    deep_min: float = 30,
    sweep_surface: Sequence[float] = (10, 12, 14),
    sweep_deep: Sequence[float] = (28, 30, 32),
    lpips_net: str = "alex",
    lpips_weights: Any = None,
    lpips_size: int = 256,
    dinov2_model: str = "vits14",
    dinov2_weights: Any = None,
    bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    batch_size: int = 16,
    input_range: Any = None,
    device: Any = None,
) -> EditIntensityStudy:
    """MPTc-Bench App. B.2 on candidate pairs ``(source[i], target[i])`` (SRC and GT posters).

    Each pair is decoded once per chunk of ``batch_size`` pairs and goes through pHash (exact
    imagehash bits on the stored pixels), LPIPS (both images resized to ``lpips_size`` squared
    with antialiased bicubic, since paired posters differ in size) and DINOv2 (its own
    preprocessing). Pairs with pHash <= ``surface_max`` are Surface, >= ``deep_min`` Deep (both
    inclusive, App. B.2's form; the band between is discarded from the AUCs).
    """
    from transcreval.functional.image.dinov2_distance import dinov2_distance_values, dinov2_extractor
    from transcreval.functional.image.lpips import lpips_per_pair
    from transcreval.functional.image.phash import edit_intensity_split, phash_distances
    from transcreval.functional.stats.separability import threshold_sweep
    from transcreval.protocols.mptc.figures import fig11_distributions

    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
    if len(source) != len(target):
        raise InputError(f"{len(source)} source but {len(target)} target posters: pass aligned pairs")
    if len(source) == 0:
        raise InputError("edit_intensity_study needs at least one pair")
    if not surface_max < deep_min:
        raise InputError(f"surface_max ({surface_max}) must be below deep_min ({deep_min})")
    ext = dinov2_extractor(dinov2_model, dinov2_weights, device)
    parts: dict[str, list[torch.Tensor]] = {k: [] for k in DISTANCES}
    for rows in _chunks(len(source), batch_size):
        src = _decoded([source[i] for i in rows], "source")
        tgt = _decoded([target[i] for i in rows], "target")
        parts["phash"].append(phash_distances(src, tgt, input_range=input_range).cpu())
        a, b = _resized(src, lpips_size, input_range), _resized(tgt, lpips_size, input_range)
        lp = lpips_per_pair(a, b, net=lpips_net, weights=lpips_weights, device=device)
        parts["lpips"].append(torch.as_tensor(lp).detach().double().cpu())
        parts["dinov2"].append(dinov2_distance_values(src, tgt, ext, input_range=input_range).cpu())
    dist = {k: torch.cat(v) for k, v in parts.items()}
    bands: list[str] = list(edit_intensity_split(dist["phash"], surface_max=surface_max, deep_min=deep_min))
    keep = [i for i, b in enumerate(bands) if b != "intermediate"]
    labels = [int(bands[i] == "deep") for i in keep]
    boot: dict[str, Any] = {"bootstrap": bootstrap, "seed": seed, "confidence": confidence}
    auc = {k: _auc_or_undefined(dist[k][keep].double().numpy(), labels, boot) for k in DISTANCES}
    ph = dist["phash"].double().numpy()
    sweep = {k: threshold_sweep(dist[k].double().numpy(), ph, sweep_surface, sweep_deep, **boot) for k in DISTANCES}
    summary = []
    for band in ("surface", "intermediate", "deep"):
        idx = [i for i, b in enumerate(bands) if b == band]
        row: dict[str, Any] = {"band": band, "n": len(idx)}
        for k in ("lpips", "dinov2"):
            v = dist[k][idx]
            row[f"{k}_mean"] = float(v.mean()) if idx else math.nan
            row[f"{k}_std"] = float(v.std()) if len(idx) > 1 else math.nan
        summary.append(row)
    opts = {"lpips": f"{lpips_net}@{lpips_size}", "dinov2": dinov2_model, **boot}
    thresholds = (surface_max, deep_min)
    fig11 = fig11_distributions({k: dist[k].tolist() for k in ("lpips", "dinov2")}, bands, thresholds)
    return EditIntensityStudy(dist, bands, auc, sweep, summary, thresholds, opts, {"fig11_distributions": fig11})


def _auc_or_undefined(d: Any, labels: list[int], boot: dict[str, Any]) -> MetricResult:
    """The separability AUC, or an undefined result saying why (no deep or no surface pair):
    the distances, bands and band summary of the study are kept either way."""
    from transcreval.errors import EmptyInputError, UndefinedValueError
    from transcreval.functional.stats.resampling import BootstrapOptions
    from transcreval.functional.stats.separability import separability_auc

    try:
        return separability_auc(d, labels, **boot)
    except (EmptyInputError, UndefinedValueError) as exc:
        n_deep = sum(labels)
        sig = BootstrapOptions(**boot).signature("SeparabilityAUC")
        extras = {"undefined": str(exc), "n_deep": n_deep, "n_surface": len(labels) - n_deep}
        return MetricResult(math.nan, 0, sig, extras=extras, defined=False)


def format_edit_intensity(study: EditIntensityStudy) -> str:
    """Table 7 (per band: n, LPIPS and DINOv2 mean +- std), the AUCs and the sweep ranges, as text."""
    ts, td = study.thresholds
    lines = [f"pHash band        n   LPIPS mean +- std   DINOv2 mean +- std   (surface <= {ts:g}, deep >= {td:g})"]
    for r in study.band_summary:
        lines.append(
            f"{r['band']:<13} {r['n']:>5}   {r['lpips_mean']:.4f} +- {r['lpips_std']:.4f}    "
            f"{r['dinov2_mean']:.4f} +- {r['dinov2_std']:.4f}"
        )
    for k in DISTANCES:
        res = study.auc[k]
        ci = res.extras.get("ci")
        ci_txt = f" [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else ""
        auc_txt = f"{res.value:.4f}{ci_txt}" if res.defined else f"undefined ({res.extras['undefined']})"
        rows = [r["auc"] for r in study.sweep[k] if "undefined" not in r]
        rng = f"{min(rows):.4f} to {max(rows):.4f}" if rows else "undefined"
        lines.append(f"AUC {k:<7} {auc_txt}; sweep {rng} over {len(rows)} of {len(study.sweep[k])} settings")
    return "\n".join(lines)


def similarity_metrics(
    *,
    clip_model: str | None = None,
    clip_pretrained: Any = None,
    fid_weights: Any = None,
    fid_preprocess: Literal["torch-fidelity", "clean"] = "torch-fidelity",
    **kwargs: Any,
) -> Any:
    """MPTc Table 5's metrics as one collection: ``CLIP`` (CLIPSimilarity), ``FID_GT`` and
    ``FID_SRC``. Update with ``(outputs, gt_posters, source=src_posters)``.

    ``kwargs`` reach every member that takes them: the options of every feature metric
    (``input_range``, ``batch_size``, ``feature_cache``) and the Metric options
    (``process_group``, ``sync_on_compute``...) go to all three; CLIP's own options
    (``tokenizer``, ``preprocess``, ``crop``) to CLIP; a keyword no member takes is a TypeError."""
    import inspect

    from transcreval.core.collection import MetricCollection
    from transcreval.core.metric import Metric
    from transcreval.image.fid import FID
    from transcreval.multimodal.embedding_similarity import CLIPSimilarity

    shared = {"input_range", "batch_size", "feature_cache", *inspect.signature(Metric.__init__).parameters}
    fid_kw = {k: v for k, v in kwargs.items() if k in shared}
    return MetricCollection(
        {
            "CLIP": CLIPSimilarity(clip_model, clip_pretrained, **kwargs),
            "FID_GT": FID(fid_weights, fid_preprocess, **fid_kw),
            "FID_SRC": FID(fid_weights, fid_preprocess, real_from="source", **fid_kw),
        }
    )


def plan_to_render_loss(visual: float | MetricResult, plan: float | MetricResult) -> float:
    """Plan-to-render loss in percent (MPTc-Bench §5.1, Figure 6):
    ``(1 - visual / plan) * 100``.

    ``visual`` is :class:`~transcreval.TitleChrF` (the title read off the rendered outputs) and
    ``plan`` is :class:`~transcreval.PlanChrF` (the planner's proposed titles), both 0-100 and
    both against the same reference titles; pass the two results or their values. 0 means
    rendering kept all the fidelity of the plan, 100 means it lost all of it, a negative value
    means the rendered titles scored above the plan. Lower is better.

    Raises :class:`~transcreval.errors.InputError` when a value is not a finite number in
    [0, 100], when ``plan`` is 0 (the loss is undefined: nothing to lose), or when the two
    results summarise different numbers of items (not the same reference set).
    """
    values = []
    for name, x in (("visual", visual), ("plan", plan)):
        v = x.value if isinstance(x, MetricResult) else x
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 <= v <= 100:
            raise InputError(
                f"plan_to_render_loss: {name} must be a chrF value in [0, 100] (or its MetricResult), got {v!r}"
            )
        values.append(float(v))
    if isinstance(visual, MetricResult) and isinstance(plan, MetricResult) and visual.n != plan.n:
        raise InputError(
            f"plan_to_render_loss: TitleChrF summarises {visual.n} items but PlanChrF {plan.n}; "
            "compute both over the same reference titles"
        )
    if values[1] == 0:
        raise InputError(
            "plan_to_render_loss: PlanChrF is 0, so there is no fidelity to lose and the loss is undefined"
        )
    return (1.0 - values[0] / values[1]) * 100.0
