"""`import transcreval` stays light: no model packages, no scipy, no PIL, no torch."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = [
    "torchvision",
    "open_clip",
    "lpips",
    "torch_fidelity",
    "scipy",
    "onnxruntime",
    "openai",
    "PIL",
    "torch",
    "comet",
    "rapidocr",
]


def _loaded_after(code: str) -> set[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_import_is_light():
    loaded = _loaded_after("import transcreval")
    assert not loaded & set(HEAVY), f"`import transcreval` imported {sorted(loaded & set(HEAVY))}"


def test_metric_import_pulls_only_what_it_needs():
    loaded = _loaded_after("from transcreval import TitleChrF, KOptionScore, PHashDistance")
    banned = {"torchvision", "open_clip", "lpips", "torch_fidelity", "onnxruntime", "openai", "scipy"}
    assert not loaded & banned, sorted(loaded & banned)


def test_public_names_resolve():
    import transcreval

    for name in transcreval.__all__:
        assert getattr(transcreval, name) is not None
    assert transcreval.__version__
    assert "TitleChrF" in dir(transcreval)
