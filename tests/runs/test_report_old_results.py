"""`transcreval report` on a run whose results.json was written before result.figures existed.

Such a report draws none of the paper figures (Fig. 3, 8, 9 for MPTc), and before this test it
said nothing about it: a reader could not tell the figures were missing, nor that `rescore`
recomputes them from the stored lines without any model or judge call.
"""

from __future__ import annotations

import json

import pytest

from transcreval.cli import main
from transcreval.demo.run_set import write_demo_set
from transcreval.engines.judge.fake_server import FakeOpenAIServer


def test_a_report_on_results_written_before_figures_says_rescore_adds_them(tmp_path, capsys):
    pytest.importorskip("openai")
    manifest, systems = write_demo_set(tmp_path / "set")
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        cfg = json.dumps({"model": "fake-judge", "base_url": server.base_url, "max_retries": 0})
        args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(out), "--judge", cfg, "--metrics", "judge"]
        for name, path in systems.items():
            args += ["-s", f"{name}={path}"]
        assert main([*args, "--progress", "none"]) == 0
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert "fig3_phash_hist" in data["result"]["figures"]  # a current run stores them
    assert main(["report", str(out)]) == 0
    assert "rescore" not in (out / "report.md").read_text(encoding="utf-8")  # nothing to say then
    data["result"].pop("figures")  # as an older transcreval wrote it
    (out / "results.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["report", str(out)]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "written before" in text and f"transcreval rescore {out}" in text
    capsys.readouterr()
