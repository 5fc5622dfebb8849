"""Synthetic protocol results (and item pictures) for the report, export and integration tests.

Built on the shared record types only: per-item records of three systems on two metrics with
meta keys (split, scenario, language), a few failed items, and three tables shaped like the
papers' (an MPTc-style planner x editor Win% table, a Khanuja-style Kendall tau per country
table with intervals, an IMTBench-style summary).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table

SYSTEMS = ("base", "sysA", "sysB")
SHIFT = {"base": 0.0, "sysA": 6.0, "sysB": -0.5}
SCENARIOS = ("doc", "web", "scene", "ppt")
LANGUAGES = ("de", "ja", "ar")


def demo_result(n_items: int = 24, seed: int = 0, protocol: str = "demo") -> ProtocolResult:
    rng = np.random.default_rng(seed)
    base_quality = rng.normal(50, 8, n_items)
    records = []
    for system in SYSTEMS:
        for metric, scale in (("score", 1.0), ("judge", 0.05)):
            noise = rng.normal(0, 3, n_items)
            for k in range(n_items):
                value = float(scale * (base_quality[k] + SHIFT[system] + noise[k]))
                status = "ok"
                if system == "sysB" and metric == "judge" and k % 7 == 3:
                    value, status = math.nan, "unparsable"
                meta = {
                    "split": "surface" if k % 2 else "deep",
                    "scenario": SCENARIOS[k % len(SCENARIOS)],
                    "language": LANGUAGES[k % len(LANGUAGES)],
                }
                records.append(ItemRecord(f"item{k:02d}", system, metric, value, status, f"src{k // 2}", meta))
    win = Table(
        "Win% of MTc over GT",
        columns=("Aes.", "Win%"),
        rows=(("gpt", "gemini"), ("gpt", "qwen"), ("qwen", "gemini"), ("qwen", "qwen")),
        cells={
            (("gpt", "gemini"), "Win%"): Cell(63.0, 40),
            (("gpt", "qwen"), "Win%"): Cell(9.0, 40),
            (("qwen", "gemini"), "Win%"): Cell(41.5, 38, 2),
            (("qwen", "qwen"), "Win%"): Cell(12.0, 40),
            (("gpt", "gemini"), "Aes."): Cell(3.9, 40),
        },
        decimals={"Aes.": 2, "Win%": 1},
        units="%",
    )
    countries = ("brazil", "india", "japan", "nigeria")
    kendall = Table(
        "Segment-level Kendall tau per country",
        columns=countries,
        rows=("clip", "vlm-judge"),
        cells={
            (m, c): Cell(0.1 + 0.15 * i + 0.05 * j, 30, j % 2, (0.05 * i + 0.05 * j - 0.1, 0.3 + 0.15 * i + 0.05 * j))
            for i, m in enumerate(("clip", "vlm-judge"))
            for j, c in enumerate(countries)
        },
        decimals=3,
        units="tau",
    )
    return ProtocolResult(protocol, tuple(records), {"winrate": win, "kendall": kendall}, {"score": "Score|v:0"})


def write_pictures(root: Path, result: ProtocolResult, broken: str | None = None) -> dict:
    """Small PNG pictures per item (source, reference, each system's output) and OCR masks.

    ``broken``: an item id whose source picture is written as garbage bytes (a decode failure).
    Returns the keyword arguments of ``ItemImages``.
    """
    from PIL import Image, ImageDraw

    root.mkdir(parents=True, exist_ok=True)
    items = list(dict.fromkeys(r.item_id for r in result.records))
    systems = list(dict.fromkeys(r.system for r in result.records))
    rng = np.random.default_rng(1)

    def picture(path: Path, hue: int) -> Path:
        arr = np.zeros((90, 64, 3), dtype=np.uint8)
        arr[..., 0] = hue
        arr[..., 1] = np.linspace(30, 220, 64, dtype=np.uint8)[None, :]
        arr[..., 2] = rng.integers(0, 255, (90, 1), dtype=np.uint8)
        im = Image.fromarray(arr)
        ImageDraw.Draw(im).rectangle([8, 10, 56, 24], fill=(255, 255, 255))
        im.save(path)
        return path

    source, reference, outputs, masks = {}, {}, {s: {} for s in systems}, {"source": {}}
    for k, item in enumerate(items):
        source[item] = picture(root / f"{item}-src.png", 40 + k)
        reference[item] = picture(root / f"{item}-ref.png", 120)
        for j, s in enumerate(systems):
            outputs[s][item] = picture(root / f"{item}-{s}.png", 200 - 30 * j)
        mask = np.zeros((90, 64), dtype=bool)
        mask[10:25, 8:57] = True
        masks["source"][item] = mask
    if broken is not None:
        bad = root / f"{broken}-src.png"
        bad.write_bytes(b"not a png at all")
        source[broken] = bad
    return {"source": source, "reference": reference, "outputs": outputs, "masks": masks, "size": 96}
