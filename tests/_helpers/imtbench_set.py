"""A small rendered IMTBench set for the runner's tests, written in both input layouts.

8 items (2 scenarios x 2 languages x 2), two systems. ``sysA`` has every edge case: item 3 has
no output line, item 5 an image but no text, item 6 a text but no image, item 2 an image 1.5
times the reference's size (resized before LPIPS), item 1's text makes the judge refuse.
``sysB`` has every output. The same data is written as the runner's manifest
(``manifest.jsonl`` + ``<system>.jsonl``: ``target_locale``, ``reference_text``, ``meta``) and
as :mod:`transcreval.protocols.imtbench.inputs`'s (``imt_manifest.jsonl`` +
``imt_<system>.jsonl``), with random-init squeeze LPIPS weights beside them.

:class:`FakeComet` stands in for comet's model where unbabel-comet cannot be imported (a
deterministic score in [0, 1] from the segment's texts): :func:`use_fake_comet` patches it in.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import torch

from tests._helpers import random_weights as rw
from tests._helpers.text_images import render

H, W = 96, 192
SRC = ["OPEN DAILY", "SALE 50%", "NEW MENU", "CAFE", "HOTEL", "EXIT", "BAKERY", "PARK"]
REF = ["OUVERT", "SOLDES", "NOUVEAU", "CAFE", "HOTEL", "SORTIE", "BACKEREI", "PARK"]
SYS = {
    "sysA": ["OUVERT", "REFUSE", "MENU", None, "HOTEL", "SORTIE", "BACKER", "PARC"],
    "sysB": ["OUVRE", "SOLDES", "NOUVEAU", "KAFFEE", "HOTELS", "AUSGANG", "BACKEREI", "PARK"],
}
SCEN = ["document", "scene"]
LANG = ["fr", "de"]
NO_OUTPUT, NO_TEXT, NO_IMAGE, BIGGER = 3, 5, 6, 2
REFUSE_WORD = "Refuse"


def meta_of(k: int) -> tuple[str, str]:
    return SCEN[k % 2], LANG[(k // 2) % 2]


def _img(text: str, bg: tuple[int, int, int] = (236, 230, 218), size: tuple[int, int] = (W, H), font_px: int = 22):
    return render(text, "latin", size=size, font_px=font_px, origin=(14, 34), bg=bg).image


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def source_lang(k: int) -> dict[str, str]:
    """Item ``k``'s source language (Fig. 6's right panel); item 3 has none (counted, not placed)."""
    return {} if k == 3 else {"source_language": "en" if k % 2 == 0 else "zh"}


def write_set(root: Path) -> dict[str, Any]:
    """Write the set under ``root``; returns its paths."""
    root.mkdir(parents=True, exist_ok=True)
    feats = rw.features_only(rw.trunk_state("squeeze", seed=5))
    lpips = root / "lpips_squeeze.pth"
    torch.save(rw.lpips_layout_state("squeeze", feats, rw.lin_state("squeeze", seed=15)), lpips)
    runner_rows, imt_rows = [], []
    for k in range(len(SRC)):
        scen, lang = meta_of(k)
        _img(SRC[k]).save(root / f"src{k}.png")
        _img(REF[k]).save(root / f"ref{k}.png")
        src_text = [SRC[k].title(), "Welcome"] if k == 0 else SRC[k].title()  # a list of text regions
        runner_rows.append(
            {
                "id": f"it{k}",
                "source_image": f"src{k}.png",
                "reference_image": f"ref{k}.png",
                "target_locale": lang if k != 4 else "German" if lang == "de" else "French",
                "reference_text": REF[k].title(),
                "meta": {"scenario": scen if k != 0 else "Doc.", "source_text": src_text, **source_lang(k)},
            }
        )
        imt_rows.append(
            {
                "id": f"it{k}",
                "scenario": scen,
                "language": lang,
                "source_image": f"src{k}.png",
                "reference_image": f"ref{k}.png",
                "source_text": src_text,
                "reference_text": REF[k].title(),
                **source_lang(k),
            }
        )
    systems, imt_systems = {}, {}
    for s, (name, words) in enumerate(SYS.items()):
        rows = []
        for k, word in enumerate(words):
            if name == "sysA" and k == NO_OUTPUT:
                continue
            bg = (236 - 3 * k - 5 * s, 230, 218 + k)  # backgrounds drift: S_bg varies by item
            big = name == "sysA" and k == BIGGER
            size, font_px = ((W * 3 // 2, H * 3 // 2), 33) if big else ((W, H), 22)
            _img(word or REF[k], bg=bg, size=size, font_px=font_px).save(root / f"{name}_{k}.png")
            row: dict[str, Any] = {"id": f"it{k}", "image": f"{name}_{k}.png", "text": word.title() if word else None}
            if name == "sysA" and k == NO_TEXT:
                row["text"] = None
            if name == "sysA" and k == NO_IMAGE:
                row["image"] = None
            rows.append(row)
        systems[name] = _jsonl(root / f"{name}.jsonl", [{k: v for k, v in r.items() if v is not None} for r in rows])
        imt_systems[name] = _jsonl(root / f"imt_{name}.jsonl", rows)
    return {
        "root": root,
        "manifest": _jsonl(root / "manifest.jsonl", runner_rows),
        "systems": systems,
        "imt_manifest": _jsonl(root / "imt_manifest.jsonl", imt_rows),
        "imt_systems": imt_systems,
        "lpips": lpips,
    }


def responder(body: dict[str, Any]) -> str:
    """The fake server's answers: a refusal for the item whose translation is REFUSE_WORD, else
    the synthetic JSON the prompt asks for (the same request always gets the same answer)."""
    from transcreval.engines.judge.fake_server import prompt_text, synthetic_answer

    if f'"{REFUSE_WORD}"' in prompt_text(body):
        return "I'm sorry, but I can't evaluate this image."
    return synthetic_answer(body)


class FakeComet:
    """comet's model stand-in: ``samples -> scores`` in [0, 1] from a hash of each segment."""

    unit_range = True
    calls: ClassVar[list[int]] = []

    def __init__(self, model: str, checkpoint: Any = None, *, batch_size: int = 16, device: Any = None) -> None:
        self.files = SimpleNamespace(sha256="0" * 64, model=model)

    def __call__(self, samples: list[dict[str, str]]) -> list[float]:
        FakeComet.calls.append(len(samples))
        out = []
        for s in samples:
            h = hashlib.sha256(json.dumps([s["src"], s["mt"], s["ref"]]).encode()).digest()
            out.append(int.from_bytes(h[:4], "big") / 2**32)
        return out


def use_fake_comet(monkeypatch: Any) -> None:
    """COMETScore builds :class:`FakeComet` instead of comet's model (and comet 'imports'); a
    signature names the fake's files, as it names a checkpoint without loading it."""
    from transcreval.engines.comet import engine as comet_engine

    FakeComet.calls = []
    monkeypatch.setattr(comet_engine, "CometScorer", FakeComet)
    monkeypatch.setattr(comet_engine, "import_comet", lambda: SimpleNamespace(__version__="fake"))
    monkeypatch.setattr(comet_engine, "find_comet_files", lambda model, checkpoint=None: FakeComet(model).files)
    monkeypatch.setattr(comet_engine, "declared_unit_range", lambda files: FakeComet.unit_range)
