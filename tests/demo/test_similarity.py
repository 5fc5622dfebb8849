"""The demo's Table 5 section: one plain line per missing weights file, the FID table when present."""

from __future__ import annotations

import io
from pathlib import Path

from tests._helpers import random_weights as rw
from tests._helpers.model_weights import inception_file
from transcreval.demo import run_demo


def test_missing_weights_are_one_line_each(monkeypatch, tmp_path):
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("TRANSCREVAL_WEIGHTS_DIR", raising=False)
    out = io.StringIO()
    assert run_demo(out, sections=("similarity",), tour=True, evaluate=False) == 0
    lines = [ln for ln in out.getvalue().splitlines() if ln.startswith("skipped")]
    assert len(lines) == 2
    assert "inception-v3-fid" in lines[0] and "transcreval weights fetch inception-v3-fid" in lines[0]
    assert "ViT-B-32" in lines[1]


def test_fid_table_when_the_weights_are_there(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with rw.install(tmp_path / "w", {"inception-v3-fid": Path(inception_file(3)).read_bytes()}):
        monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(tmp_path / "w"))
        out = io.StringIO()
        run_demo(out, sections=("similarity",), tour=True, evaluate=False)
    text = out.getvalue()
    assert "FID_GT" in text and "FID_SRC" in text and "skipped FID" not in text
