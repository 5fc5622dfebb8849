"""MPTc-Bench's figures as numbers: one small :class:`~transcreval.protocols.records.Table` per figure.

* :func:`fig3_phash_hist` (§3.2, Fig. 3): how many SRC-GT pairs lie at each pHash distance
  0-64, each distance in the column of its band (Surface, Intermediate, Deep), so the table
  carries the thresholds it was split with.
* :func:`fig4_market_preference` (§5.2, Fig. 4): the judge's target-market preference rate
  and its ``n`` per target market, and overall (the dashed line).
* :func:`fig8_globe_transitions` (App. B.1, Fig. 8): items per source x target GLOBE cluster.
* :func:`fig9_phash_by_direction` (App. B.1, Fig. 9): the pHash histogram per transfer direction.
* :func:`fig11_distributions` (App. B.2, Fig. 11): LPIPS and DINOv2 distances per pHash band
  as box-plot numbers (quantiles, mean, standard deviation).

:func:`set_figures` gives Fig. 3, 8 and 9, which need only the items: both
:func:`~transcreval.protocols.mptc.evaluate` and the runner adapter call it. An item a figure
cannot place (no pHash distance, a market outside the GLOBE mapping, a judgment without a
target market) is counted in that figure's notes, never dropped silently.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.mptc.globe import DIRECTIONS, GLOBE_CLUSTERS, globe_cluster, transfer_direction
from transcreval.protocols.mptc.inputs import MPTcSet, as_set
from transcreval.protocols.records import Cell, ItemRecord, Table, cell_mean

__all__ = [
    "BANDS",
    "FIG11_COLUMNS",
    "OVERALL",
    "PHASH_BITS",
    "fig3_phash_hist",
    "fig4_market_preference",
    "fig8_globe_transitions",
    "fig9_phash_by_direction",
    "fig11_distributions",
    "set_figures",
]

#: the largest pHash distance (64-bit hashes)
PHASH_BITS = 64
#: the pHash bands, as Fig. 3 and Table 7 name them
BANDS = {"surface": "Surface", "intermediate": "Intermediate", "deep": "Deep"}
#: Fig. 4's overall row (the dashed line)
OVERALL = "Overall"
#: Fig. 11's box-plot numbers
FIG11_COLUMNS = ("n", "min", "q1", "median", "q3", "max", "mean", "std")

THRESHOLD_NOTE = (
    "Bands as the library splits: Surface <= {s}, Deep >= {d} (inclusive, App. B.2's form); §3.2's text says "
    "< 12 and > 30. Each distance's count sits in its band's column."
)


def _count(n: int) -> Cell:
    return Cell(float(n), n)


def _distances(data: MPTcSet) -> tuple[dict[str, int], int]:
    """Item id -> pHash distance, and how many items have none (undecodable, or ``split_by="field"``)."""
    got = {k: int(v) for k, v in data.phash.items() if v is not None}
    return got, len(data.items) - len(got)


def _band(d: int, surface_max: float, deep_min: float) -> str:
    return "surface" if d <= surface_max else "deep" if d >= deep_min else "intermediate"


def fig3_phash_hist(data: MPTcSet) -> Table | None:
    """Fig. 3: rows = pHash distances 0-64; columns Surface, Intermediate, Deep; each row's count
    of items in its band's column (the other two empty). None when no item has a distance
    (``split_by="field"`` computes none)."""
    data = as_set(data, "fig3_phash_hist")
    dist, lacking = _distances(data)
    if not dist:
        return None
    s_max, d_min = data.options.get("surface_max", 12), data.options.get("deep_min", 30)
    counts = [0] * (PHASH_BITS + 1)
    for d in dist.values():
        counts[d] += 1
    cells = {(d, BANDS[_band(d, s_max, d_min)]): _count(counts[d]) for d in range(PHASH_BITS + 1)}
    notes = [THRESHOLD_NOTE.format(s=s_max, d=d_min), f"{len(dist)} pairs with a pHash distance."]
    if lacking:
        notes.append(f"{lacking} item(s) without a pHash distance (SRC or GT does not decode) are not drawn.")
    rows = tuple(range(PHASH_BITS + 1))
    return Table("MPTc-Bench Fig. 3 (pHash distance)", tuple(BANDS.values()), rows, cells, 0, "pairs", tuple(notes))


def _clusters(data: MPTcSet, clusters: Mapping[str, str] | None) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """Item id -> (source cluster, target cluster), and the markets outside the mapping."""
    got: dict[str, tuple[str, str]] = {}
    unknown: list[str] = []
    for it in data.items:
        pair = []
        for market in (it.source_market, it.target_market):
            try:
                pair.append(globe_cluster(market, clusters))
            except InputError:
                unknown.append(market)
        if len(pair) == 2:
            got[it.item_id] = (pair[0], pair[1])
    return got, unknown


def _unknown_note(data: MPTcSet, placed: int, unknown: Sequence[str]) -> list[str]:
    if placed == len(data.items):
        return []
    names = ", ".join(sorted(set(unknown))[:5])
    return [
        f"{len(data.items) - placed} item(s) with a market outside the GLOBE mapping ({names}) are not counted: "
        "pass clusters={market: cluster}."
    ]


def fig8_globe_transitions(data: MPTcSet, clusters: Mapping[str, str] | None = None) -> Table:
    """Fig. 8: rows = source GLOBE clusters, columns = target clusters (those present, in
    GLOBE's order), cells = item counts (every item of the set)."""
    data = as_set(data, "fig8_globe_transitions")
    pairs, unknown = _clusters(data, clusters)
    counts: dict[tuple[str, str], int] = {}
    for a, b in pairs.values():
        counts[(a, b)] = counts.get((a, b), 0) + 1
    rows = tuple(c for c in GLOBE_CLUSTERS if any(a == c for a, _ in counts))
    cols = tuple(c for c in GLOBE_CLUSTERS if any(b == c for _, b in counts))
    cells = {(a, b): _count(counts.get((a, b), 0)) for a in rows for b in cols}
    notes = [
        "Rows: the source market's GLOBE cluster; columns: the target market's.",
        *_unknown_note(data, len(pairs), unknown),
    ]
    return Table("MPTc-Bench Fig. 8 (GLOBE transitions)", cols, rows, cells, 0, "items", tuple(notes))


def fig9_phash_by_direction(data: MPTcSet, clusters: Mapping[str, str] | None = None) -> Table | None:
    """Fig. 9: rows = pHash distances 0-64, columns = transfer directions (§7.4's three, then
    ``"Other"``, those present), cells = item counts. None when no item has a distance."""
    data = as_set(data, "fig9_phash_by_direction")
    dist, lacking = _distances(data)
    if not dist:
        return None
    pairs, unknown = _clusters(data, clusters)
    counts: dict[tuple[int, str], int] = {}
    for k, d in dist.items():
        if k in pairs:
            key = (d, transfer_direction(*pairs[k]))
            counts[key] = counts.get(key, 0) + 1
    cols = tuple(x for x in (*DIRECTIONS, "Other") if any(c == x for _, c in counts))
    rows = tuple(range(PHASH_BITS + 1))
    cells = {(d, c): _count(counts.get((d, c), 0)) for d in rows for c in cols}
    notes = [
        "Western = Anglo, Latin/Germanic/Nordic/Eastern Europe; Asian = Confucian Asia, Southern Asia (§7.4); "
        "Other: every other cluster pair.",
        *_unknown_note(data, len(pairs), unknown),
    ]
    if lacking:
        notes.append(f"{lacking} item(s) without a pHash distance are not drawn.")
    return Table("MPTc-Bench Fig. 9 (pHash by direction)", cols, rows, cells, 0, "pairs", tuple(notes))


def set_figures(data: MPTcSet, clusters: Mapping[str, str] | None = None) -> dict[str, Table]:
    """Fig. 3, 8 and 9 from the items alone (what the set allows), by their result keys."""
    out: dict[str, Table | None] = {
        "fig3_phash_hist": fig3_phash_hist(data),
        "fig8_globe_transitions": fig8_globe_transitions(data, clusters),
        "fig9_phash_by_direction": fig9_phash_by_direction(data, clusters),
    }
    return {k: t for k, t in out.items() if t is not None}


def fig4_market_preference(records: Sequence[ItemRecord], metric: str = "market_preference") -> Table:
    """Fig. 4 from per-pair judgments: records of ``metric`` (value 1 when the judge chose the
    target market's poster, 0 when the other, 0.5 a tie; NaN with a status when the answer
    failed) whose ``meta["target_market"]`` names the role-played market.

    Rows: the target markets (most pairs first), then ``"Overall"``; columns ``Rate`` (%, over
    the valid judgments; failed ones in ``n_missing``) and ``n`` (the valid judgments, the
    paper's bar-end numbers)."""
    mine = [r for r in records if r.metric == metric]
    if not mine:
        raise InputError(f"fig4_market_preference: no {metric!r} records (one per judged pair)")
    by_market: dict[str, list[float]] = {}
    lacking = 0
    for r in mine:
        market = r.meta.get("target_market")
        if market is None or market == "":
            lacking += 1
            continue
        by_market.setdefault(str(market), []).append(r.value)
    placed = [v for vals in by_market.values() for v in vals]
    order = sorted(by_market, key=lambda m: (-sum(not math.isnan(v) for v in by_market[m]), m))
    cells: dict[tuple[Any, str], Cell] = {}
    for row, vals in [*((m, by_market[m]) for m in order), (OVERALL, placed)]:
        rate = cell_mean(vals, 100.0)
        cells[(row, "Rate")] = rate
        cells[(row, "n")] = Cell(float(rate.n), rate.n, rate.n_missing)
    notes = ["Rate: % of valid judgments choosing the target market's poster (ties half); n: valid judgments."]
    if lacking:
        notes.append(f"{lacking} judgment(s) without meta['target_market'] are not counted.")
    return Table(
        "MPTc-Bench Fig. 4 (market preference)",
        ("Rate", "n"),
        (*order, OVERALL),
        cells,
        {"Rate": 1, "n": 0},
        "%",
        tuple(notes),
    )


def _quantile(sorted_vals: Sequence[float], q: float) -> float:
    """The ``q`` quantile by linear interpolation between order statistics (numpy's default)."""
    pos = q * (len(sorted_vals) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


def fig11_distributions(
    distances: Mapping[str, Sequence[float]],
    bands: Sequence[str],
    thresholds: tuple[float, float] = (12, 30),
) -> Table:
    """Fig. 11: rows ``(distance, band)`` for LPIPS and DINOv2 (keys ``"lpips"``, ``"dinov2"`` of
    ``distances``) x the bands Surface, Intermediate, Deep; columns :data:`FIG11_COLUMNS`: the
    box-plot numbers (quartiles by linear interpolation, sample standard deviation). NaN
    distances are counted in ``n_missing``."""
    if any(b not in BANDS for b in bands):
        raise InputError(f"fig11_distributions: bands must be among {list(BANDS)}")
    names = {"lpips": "LPIPS", "dinov2": "DINOv2"}
    rows: list[Any] = []
    cells: dict[tuple[Any, str], Cell] = {}
    for key, label in names.items():
        if key not in distances:
            continue
        vals = [float(v) for v in distances[key]]
        if len(vals) != len(bands):
            raise InputError(f"fig11_distributions: {len(vals)} {key} distances but {len(bands)} bands")
        for band, band_label in BANDS.items():
            got = [v for v, b in zip(vals, bands) if b == band]
            ok = sorted(v for v in got if not math.isnan(v))
            row = (label, band_label)
            rows.append(row)
            missing = len(got) - len(ok)
            cells[(row, "n")] = Cell(float(len(ok)), len(ok), missing)
            if not ok:
                continue
            mean = math.fsum(ok) / len(ok)
            std = math.sqrt(math.fsum((v - mean) ** 2 for v in ok) / (len(ok) - 1)) if len(ok) > 1 else math.nan
            stats = {
                "min": ok[0],
                "q1": _quantile(ok, 0.25),
                "median": _quantile(ok, 0.5),
                "q3": _quantile(ok, 0.75),
                "max": ok[-1],
                "mean": mean,
                "std": std,
            }
            for col, v in stats.items():
                cells[(row, col)] = Cell(v, len(ok) if not math.isnan(v) else 0, missing)
    if not rows:
        raise InputError("fig11_distributions: pass 'lpips' and/or 'dinov2' distances")
    s, d = thresholds
    notes = (f"Bands by pHash: Surface <= {s:g}, Deep >= {d:g} (App. B.2); quartiles by linear interpolation.",)
    dec = {c: 0 if c == "n" else 3 for c in FIG11_COLUMNS}
    return Table("MPTc-Bench Fig. 11 (LPIPS / DINOv2 by band)", FIG11_COLUMNS, tuple(rows), cells, dec, "", notes)
