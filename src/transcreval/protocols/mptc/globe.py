"""Markets to GLOBE cultural clusters, and MPTc-Bench's transfer directions (§3.2, §7.4, Fig. 7-9).

The mapping ships as package data (``transcreval/data/globe_clusters.json``): each market
with its cluster among GLOBE's ten (House et al., 2004), whether GLOBE sampled that society
or transcreval assigned it by its nearest sampled neighbours (``basis``), and its aliases (ISO
3166 codes, common spellings such as "China (Mainland)"). Names match case-insensitively,
ignoring punctuation and spacing. Pass ``clusters={market: cluster}`` to add or override.

Directions (§7.4): Western = {Anglo, Latin Europe, Germanic Europe, Nordic Europe, Eastern
Europe}, Asian = {Confucian Asia, Southern Asia}; a pair is ``"Intra-Western"`` (both
Western), ``"Western→Asian"``, ``"Asian→Western"``, or ``"Other"`` (not in Fig. 7).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from transcreval.errors import InputError

__all__ = [
    "ASIAN",
    "DIRECTIONS",
    "GLOBE_CLUSTERS",
    "WESTERN",
    "globe_cluster",
    "globe_markets",
    "transfer_direction",
]

#: GLOBE's ten clusters
GLOBE_CLUSTERS = (
    "Anglo",
    "Latin Europe",
    "Nordic Europe",
    "Germanic Europe",
    "Eastern Europe",
    "Latin America",
    "Sub-Saharan Africa",
    "Middle East",
    "Southern Asia",
    "Confucian Asia",
)
#: §7.4's Western and Asian groups of clusters
WESTERN = ("Anglo", "Latin Europe", "Germanic Europe", "Nordic Europe", "Eastern Europe")
ASIAN = ("Confucian Asia", "Southern Asia")
#: Fig. 7's directions, in its order
DIRECTIONS = ("Intra-Western", "Western→Asian", "Asian→Western")


def _key(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).casefold()
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


@lru_cache(maxsize=1)
def globe_markets() -> tuple[dict[str, Any], ...]:
    """The shipped mapping: one ``{"market", "cluster", "basis", "aliases"}`` entry per market."""
    from importlib.resources import files

    doc = json.loads(files("transcreval.data").joinpath("globe_clusters.json").read_text(encoding="utf-8"))
    return tuple(doc["markets"])


@lru_cache(maxsize=1)
def _lookup() -> dict[str, str]:
    out: dict[str, str] = {}
    for m in globe_markets():
        for name in (m["market"], *m["aliases"]):
            out[_key(name)] = m["cluster"]
    return out


def _user_map(clusters: Mapping[str, str] | None) -> dict[str, str]:
    if clusters is None:
        return {}
    if not isinstance(clusters, Mapping):
        raise InputError(f"clusters must map market names to GLOBE clusters, got {type(clusters).__name__}")
    bad = {m: c for m, c in clusters.items() if c not in GLOBE_CLUSTERS}
    if bad:
        raise InputError(f"clusters: {bad} name no GLOBE cluster; the clusters are {list(GLOBE_CLUSTERS)}")
    return {_key(str(m)): c for m, c in clusters.items()}


def globe_cluster(market: str, clusters: Mapping[str, str] | None = None) -> str:
    """The GLOBE cluster of ``market`` (``clusters`` first, then the shipped mapping)."""
    k = _key(str(market))
    user = _user_map(clusters)
    if k in user:
        return user[k]
    found = _lookup().get(k)
    if found is None:
        raise InputError(
            f"market {market!r} is not in the shipped GLOBE mapping (transcreval/data/globe_clusters.json); "
            f"pass clusters={{{market!r}: <one of {list(GLOBE_CLUSTERS)}>}}"
        )
    return found


def transfer_direction(source_cluster: str, target_cluster: str) -> str:
    """``"Intra-Western"``, ``"Western→Asian"``, ``"Asian→Western"`` or ``"Other"``."""
    for c in (source_cluster, target_cluster):
        if c not in GLOBE_CLUSTERS:
            raise InputError(f"{c!r} is not a GLOBE cluster; the clusters are {list(GLOBE_CLUSTERS)}")
    if source_cluster in WESTERN and target_cluster in WESTERN:
        return "Intra-Western"
    if source_cluster in WESTERN and target_cluster in ASIAN:
        return "Western→Asian"
    if source_cluster in ASIAN and target_cluster in WESTERN:
        return "Asian→Western"
    return "Other"
