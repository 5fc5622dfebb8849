"""What the demo could not show on this install, and the pip extra that adds each part.

``pip install transcreval`` (the base install: numpy, scipy, torch, pillow, sacrebleu,
imagehash) runs the demo's MPTc evaluation with an in-process fake judge, its tables, the
comparison and the report without figures; each extra below adds a part of it.
"""

from __future__ import annotations

import importlib.util

__all__ = ["DEMO_EXTRAS", "missing_extras"]

#: (extra, import names it provides, what it adds to the demo)
DEMO_EXTRAS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("judge", ("openai",), "the judge asked over HTTP through the openai SDK (a real endpoint: TRANSCREVAL_JUDGE_URL)"),
    ("report", ("matplotlib",), "the report's figures (forest plots, distributions, the Win% matrix)"),
    ("multimodal", ("open_clip",), "CLIP similarity (Table 5), with the CLIP weights"),
    ("image", ("torchvision", "lpips", "torch_fidelity"), "FID (Table 5, with the Inception weights) and LPIPS"),
    ("ocr", ("rapidocr", "onnxruntime"), "the OCR text-mask IoU and the OCR title baseline (demo --tour)"),
)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a blocked or half-installed package
        return False


def missing_extras() -> list[str]:
    """One line per extra whose packages this install lacks: the command and what it adds."""
    return [
        f"pip install 'transcreval[{extra}]'   # {adds}"
        for extra, modules, adds in DEMO_EXTRAS
        if not all(_installed(m) for m in modules)
    ]
