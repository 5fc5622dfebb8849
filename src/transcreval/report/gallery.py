"""Galleries: the best, the worst and the most disagreeing items of a system on a metric.

* best / worst: the ``k`` items with the highest / lowest value (the other way round for a
  metric where lower is better);
* most disagreeing: the ``k`` items where the system and the baseline differ most
  (``|value - baseline value|``), both scored.

Equal values are ordered by item id, whatever the order of the records, and a card whose value
other items share says so ("tied: 3 items at 0.90, ordered by item id"). The gallery's metric is
by default the result's most spread one (:func:`spread_metric`: the most distinct values, so a
continuous score rather than a 0/1 hit where there is one).

Each card shows source | output | reference thumbnails (and the baseline's output for the
disagreeing ones), with OCR text masks overlaid where :class:`ItemImages` has them. A picture
that cannot be decoded becomes a labelled placeholder saying why; it never stops the report.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from transcreval.core.common import check_positive_int
from transcreval.errors import InputError
from transcreval.protocols.records import ProtocolResult
from transcreval.report.document import Card, GalleryBlock, fmt
from transcreval.report.thumbs import ItemImages, thumbnail_png

__all__ = ["gallery_blocks", "gallery_choice", "select_items", "spread_metric"]


def select_items(
    result: ProtocolResult,
    metric: str,
    system: str,
    *,
    baseline: str | None = None,
    k: int = 3,
    higher_is_better: bool = True,
) -> dict[str, list[tuple[str, float, float]]]:
    """``{"best": [...], "worst": [...], "disagreeing": [...]}`` of ``(item_id, value, baseline_value)``.

    Only items with a value count (``baseline_value`` is NaN without a baseline); "disagreeing"
    is empty without a baseline.
    """
    check_positive_int("k", k)
    mine = [(r.item_id, r.value) for r in result.select(system=system, metric=metric) if r.ok]
    base = {r.item_id: r.value for r in result.select(system=baseline, metric=metric) if r.ok} if baseline else {}
    rows = [(i, v, base.get(i, math.nan)) for i, v in mine]
    sign = -1.0 if higher_is_better else 1.0
    best = sorted(rows, key=lambda r: (sign * r[1], r[0]))[:k]
    worst = sorted(rows, key=lambda r: (-sign * r[1], r[0]))[:k]
    both = [r for r in rows if math.isfinite(r[2])]
    disagreeing = sorted(both, key=lambda r: (-abs(r[1] - r[2]), r[0]))[:k] if baseline and baseline != system else []
    return {"best": best, "worst": worst, "disagreeing": disagreeing}


def spread_metric(result: ProtocolResult) -> str | None:
    """The metric with the most distinct values (the first in record order among equals), or None."""
    distinct: dict[str, set[float]] = {}
    for r in result.records:
        distinct.setdefault(r.metric, set())
        if r.ok:
            distinct[r.metric].add(r.value)
    return max(distinct, key=lambda m: len(distinct[m])) if distinct else None


def gallery_choice(results: Sequence[ProtocolResult], named: Sequence[str] | None) -> list[list[str]]:
    """Per result, the metrics to show galleries of: ``named`` (each must be some result's
    metric), or its :func:`spread_metric`."""
    metrics = [list(dict.fromkeys(r.metric for r in res.records)) for res in results]
    if named is None:
        return [[m] if (m := spread_metric(res)) else [] for res in results]
    known = list(dict.fromkeys(m for ms in metrics for m in ms))
    for m in named:
        if m not in known:
            raise InputError(f"gallery metric {m!r} has no records; the metrics are {known}")
    return [[m for m in named if m in ms] for ms in metrics]


def _thumb(
    images: ItemImages, role: str, label: str, item_id: str, cache: dict, system: str | None = None
) -> tuple[str, bytes | None, str]:
    key = (role, system, item_id)
    if key not in cache:
        picture = images.image(role, item_id, system)
        if picture is None:
            cache[key] = (None, "no image given")
        else:
            try:
                cache[key] = (thumbnail_png(picture, images.mask(role, item_id, system), images.size), "")
            except (InputError, OSError) as e:  # ImageDecodeError included: show why, keep the report
                cache[key] = (None, str(e))
    png, why = cache[key]
    return label, png, why


def _card(
    item_id: str,
    value: float,
    base_value: float,
    *,
    metric: str,
    system: str,
    baseline: str | None,
    images: ItemImages | None,
    decimals: int,
    with_baseline: bool,
    cache: dict,
    tied: int = 1,
) -> Card:
    lines = [f"{system}: {metric} = {fmt(value, decimals)}"]
    if tied > 1:
        lines.append(f"tied: {tied} items at {fmt(value, decimals)}, ordered by item id")
    if baseline and math.isfinite(base_value):
        lines.append(f"{baseline}: {fmt(base_value, decimals)} (delta {value - base_value:+.{decimals}f})")
    thumbs: list[tuple[str, bytes | None, str]] = []
    if images is not None:
        thumbs.append(_thumb(images, "source", "source", item_id, cache))
        thumbs.append(_thumb(images, "output", f"output ({system})", item_id, cache, system))
        if with_baseline and baseline:
            thumbs.append(_thumb(images, "output", f"output ({baseline})", item_id, cache, baseline))
        thumbs.append(_thumb(images, "reference", "reference", item_id, cache))
    return Card(item_id, tuple(lines), tuple(thumbs))


def gallery_blocks(
    result: ProtocolResult,
    metric: str,
    system: str,
    *,
    baseline: str | None = None,
    images: ItemImages | None = None,
    k: int = 3,
    higher_is_better: bool = True,
    decimals: int = 2,
    cache: dict | None = None,
) -> list[GalleryBlock]:
    """The best, worst and (with a baseline) most disagreeing items of ``system`` as gallery blocks.

    ``cache``: a dict shared between calls, so that a picture shown in several galleries (the
    same source poster for every system) is decoded and shrunk once.
    """
    cache = {} if cache is None else cache
    picked = select_items(result, metric, system, baseline=baseline, k=k, higher_is_better=higher_is_better)
    titles = {
        "best": f"Best items: {system}, {metric}",
        "worst": f"Worst items: {system}, {metric}",
        "disagreeing": f"Most disagreeing with {baseline}: {system}, {metric}",
    }
    counts: dict[float, int] = {}  # how many of the system's items share each value (ties)
    for r in result.select(system=system, metric=metric):
        if r.ok:
            counts[r.value] = counts.get(r.value, 0) + 1
    out = []
    for kind, items in picked.items():
        if not items:
            continue
        opts: dict[str, Any] = {
            "metric": metric,
            "system": system,
            "baseline": baseline,
            "images": images,
            "cache": cache,
        }
        cards = tuple(
            _card(i, v, bv, decimals=decimals, with_baseline=kind == "disagreeing", tied=counts.get(v, 1), **opts)
            for i, v, bv in items
        )
        key = f"gallery-{result.protocol}-{system}-{metric}-{kind}"
        out.append(GalleryBlock(key, titles[kind], cards))
    return out
