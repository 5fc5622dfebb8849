"""MPTc-Bench protocol steps.

* :func:`edit_intensity_study` (App. B.2, Table 7, Figure 11): for candidate (SRC, GT) poster
  pairs, the pHash distance, LPIPS (alex) and DINOv2 cosine distance of every pair, computed
  in one pass over the pairs; the Surface/Deep split by pHash (<= 12 / >= 30, inclusive, middle
  band discarded); the separability AUC of each distance (deep = positive) with a seeded
  bootstrap interval; the threshold sweep t_s in {10, 12, 14}, t_d in {28, 30, 32}; and the
  per-band means and standard deviations of Table 7. :func:`format_edit_intensity` prints it.
* :func:`similarity_metrics` (§5.3, Table 5): CLIP, FID_GT and FID_SRC as one
  :class:`~transcreval.MetricCollection` updated with ``(outputs, gt_posters, source=src_posters)``:
  the outputs' Inception features are computed once for both FIDs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from transcreval.errors import InputError
from transcreval.result import MetricResult

__all__ = ["EditIntensityStudy", "edit_intensity_study", "format_edit_intensity", "similarity_metrics"]

DISTANCES = ("phash", "lpips", "dinov2")


@dataclass
class EditIntensityStudy:
    """Everything MPTc App. B.2 reports, from one pass over the pairs.

    Attributes:
        distances: per pair, ``{"phash": int64 (N,), "lpips": float64 (N,), "dinov2": float64 (N,)}``.
        bands: per pair, ``"surface"``, ``"intermediate"`` or ``"deep"`` (the primary split).
        auc: per distance, the separability AUC (deep vs surface) with ``extras["ci"]`` when
            bootstrapping.
        sweep: per distance, one row per (t_s, t_d) of the threshold sweep.
        band_summary: per band, ``n`` and the mean/std of LPIPS and DINOv2 distances (Table 7).
        thresholds: the primary ``(surface_max, deep_min)``.
    """

    distances: dict[str, torch.Tensor]
    bands: list[str]
    auc: dict[str, MetricResult]
    sweep: dict[str, list[dict[str, Any]]]
    band_summary: list[dict[str, Any]]
    thresholds: tuple[float, float]
    options: dict[str, Any] = field(default_factory=dict)


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
        x = to_rgb_float(img, input_range=input_range)
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
    from transcreval.functional.image.lpips import lpips
    from transcreval.functional.image.phash import edit_intensity_split, phash_distance
    from transcreval.functional.stats.separability import separability_auc, threshold_sweep

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
        parts["phash"].append(phash_distance(src, tgt, input_range=input_range).cpu())
        a, b = _resized(src, lpips_size, input_range), _resized(tgt, lpips_size, input_range)
        lp = lpips(a, b, net=lpips_net, weights=lpips_weights, device=device)
        parts["lpips"].append(torch.as_tensor(lp).detach().double().cpu())
        parts["dinov2"].append(dinov2_distance_values(src, tgt, ext, input_range=input_range).cpu())
    dist = {k: torch.cat(v) for k, v in parts.items()}
    bands = list(edit_intensity_split(dist["phash"], surface_max=surface_max, deep_min=deep_min))
    keep = [i for i, b in enumerate(bands) if b != "intermediate"]
    labels = [int(bands[i] == "deep") for i in keep]
    boot = {"bootstrap": bootstrap, "seed": seed, "confidence": confidence}
    auc = {k: separability_auc(dist[k][keep].double().numpy(), labels, **boot) for k in DISTANCES}
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
    return EditIntensityStudy(dist, bands, auc, sweep, summary, (surface_max, deep_min), opts)


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
        rows = [r["auc"] for r in study.sweep[k]]
        lines.append(
            f"AUC {k:<7} {res.value:.4f}{ci_txt}; sweep {min(rows):.4f} to {max(rows):.4f} over {len(rows)} settings"
        )
    return "\n".join(lines)


def similarity_metrics(
    *,
    clip_model: str | None = None,
    clip_pretrained: Any = None,
    fid_weights: Any = None,
    fid_preprocess: str = "torch-fidelity",
    **kwargs: Any,
) -> Any:
    """MPTc Table 5's metrics as one collection: ``CLIP`` (CLIPSimilarity), ``FID_GT`` and
    ``FID_SRC``. Update with ``(outputs, gt_posters, source=src_posters)``."""
    from transcreval.collection import MetricCollection
    from transcreval.image.fid import FID
    from transcreval.multimodal.embedding_similarity import CLIPSimilarity

    return MetricCollection(
        {
            "CLIP": CLIPSimilarity(clip_model, clip_pretrained, **kwargs),
            "FID_GT": FID(fid_weights, fid_preprocess),
            "FID_SRC": FID(fid_weights, fid_preprocess, real_from="source"),
        }
    )
