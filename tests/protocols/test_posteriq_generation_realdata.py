"""PosterIQ generation on its authors' own prompts: all 822 (../shared/data/posteriq/gen_task).

The replies are our own: every key point answered "Yes", the target style, all 37 font
attributes; then ten dense images removed. Each value follows from the rules by hand.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests._helpers.real_data import data_dir
from transcreval.data.posteriq import font_attributes
from transcreval.protocols.posteriq import evaluate_generation
from transcreval.protocols.posteriq.generation import read_prompts

pytestmark = pytest.mark.realdata

#: prompts per task, as the paper's Sec. 4 gives them
COUNTS = {"dense": 114, "font": 135, "style": 256, "composition": 117, "intention": 200}


def _perfect(row):
    task = row["task"].split()[-1]
    judge = {"style": row.get("style"), "font": json.dumps(list(font_attributes()))}.get(task)
    if judge is None:
        judge = ["Yes"] * len(row["gt"])
    return {**row, "local_path": "x", "judge": judge}


def test_all_822_prompts_read_and_score(tmp_path):
    folder = data_dir("posteriq", "gen_task")
    prompts = read_prompts(folder)
    assert len(prompts) == 822 and Counter(p.task for p in prompts) == COUNTS
    assert len({p.item_id for p in prompts}) == 822 and not any("\\" in p.item_id for p in prompts)
    rows = [r for f in sorted(folder.glob("gen_*.json")) for r in json.loads(f.read_text(encoding="utf-8"))]
    full = tmp_path / "Perfect_score.json"
    full.write_text(json.dumps([_perfect(r) for r in rows]), encoding="utf-8")
    for mode in ("paper", "posteriq-code"):
        t = evaluate_generation(full, tasks=folder, mode=mode).tables["table6"]
        assert [t.cell("Perfect", c).value for c in t.columns] == [1.0] * 6, mode
        assert t.cell("Perfect", "Style").n == 256
    dense = [r for r in rows if r["task"] == "poster dense"]
    gone = {r["path"].replace("\\", "/") for r in dense[:10]}
    part = tmp_path / "Part_score.json"
    part.write_text(json.dumps([_perfect(r) for r in rows if r["path"].replace("\\", "/") not in gone]))
    paper = evaluate_generation(part, tasks=folder).tables["table6"]
    assert paper.cell("Part", "Dense").value == pytest.approx(104 / 114)
    assert any("10 of 114 prompt(s) have no image (first: 'dense/" in n for n in paper.notes)
    code = evaluate_generation(part, tasks=folder, mode="posteriq-code").tables["table6"]
    assert code.cell("Part", "Dense").value == 1.0 and code.cell("Part", "Dense").n_missing == 10
