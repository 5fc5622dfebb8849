"""The demo's background-preservation section: one line without weights, numbers with them."""

from __future__ import annotations

import io

import torch

from tests._helpers import random_weights as rw
from transcreval.data.demo_set import build_demo_set
from transcreval.demo import run_demo
from transcreval.demo.background import background_mask
from transcreval.features import clear_extractors
from transcreval.functional import background_preservation_per_pair, lpips_per_pair


def _env(monkeypatch, tmp_path):
    monkeypatch.delenv("TRANSCREVAL_WEIGHTS_DIR", raising=False)
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "0")  # the demo must not download even when allowed to


def test_without_weights_one_line_says_what_is_missing_and_how_to_get_it(monkeypatch, tmp_path):
    _env(monkeypatch, tmp_path)
    buf = io.StringIO()
    assert run_demo(buf, sections=("background",), tour=True, evaluate=False) == 0
    lines = [line for line in buf.getvalue().splitlines() if line.startswith("skipped")]
    assert lines == [
        "skipped: LPIPS weights missing (torchvision-alexnet); get them with "
        "`transcreval weights fetch torchvision-alexnet` (or `--to DIR` on a connected machine, then "
        "TRANSCREVAL_WEIGHTS_DIR=DIR)"
    ]
    assert not (tmp_path / "cache" / "weights" / "alexnet-owt-7be5be79.pth").exists()


def test_with_weights_the_table_holds_the_metrics_values(monkeypatch, tmp_path):
    _env(monkeypatch, tmp_path)
    trunk = rw.trunk_state("alex", seed=41)
    try:
        with rw.install(tmp_path / "w", {"torchvision-alexnet": trunk}):
            monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(tmp_path / "w"))
            buf = io.StringIO()
            run_demo(buf, sections=("background",), tour=True, evaluate=False)
            text = buf.getvalue()
            posters = build_demo_set()
            mask = background_mask()
            for system in posters[0].outputs:
                outs, refs = [p.outputs[system] for p in posters], [p.target for p in posters]
                sbg = float(background_preservation_per_pair(outs, refs, mask).double().mean())
                whole = float(lpips_per_pair(outs, refs).double().mean())
                row = next(line for line in text.splitlines() if line.startswith(system + " "))
                assert f"{sbg:.4f}" in row and f"{whole:.4f}" in row
            assert "signature: BackgroundPreservation|net:alex|trunk:" in text
    finally:
        clear_extractors()


def test_background_mask_covers_the_title_band():
    m = background_mask()
    assert m.shape == (360, 240) and not bool(m[360 - 44, 120]) and bool(m[10, 10])
    assert torch.equal(m, background_mask(4))
