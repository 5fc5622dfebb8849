"""``transcreval evaluate --protocol imtbench`` end to end with the real COMET path: the tiny
offline COMET model (tests/_helpers/comet_model.py), random-init squeeze LPIPS, rapidocr masks
and the loopback fake judge -> run directory -> Table 2, equal to
:func:`transcreval.protocols.imtbench.evaluate` on the same inputs. Needs the comet
environment (`make test-comet`).
"""

from __future__ import annotations

import json
import math

import pytest

from tests._helpers.comet_env import WHY
from tests._helpers.imtbench_set import NO_OUTPUT, NO_TEXT, REF, SRC, SYS, responder, write_set
from tests.text.test_comet import comet_reference
from transcreval.cli import main
from transcreval.engines.judge.fake_server import FakeOpenAIServer

pytestmark = [
    pytest.mark.comet,
    pytest.mark.skipif(WHY is not None, reason=f"unbabel-comet cannot be imported here ({WHY}): run `make test-comet`"),
]


def _same(a: float, b: float) -> bool:
    """Equal up to COMET's batching: the run scores 3 items per batch, the protocol its chunks, and
    comet's padded batches move a segment score by up to 1e-6 (1e-4 in the table's percent)."""
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-4


def test_evaluate_writes_a_run_whose_table2_equals_the_python_protocol(tmp_path, capsys):
    pytest.importorskip("openai")
    pytest.importorskip("rapidocr")
    from tests._helpers.comet_model import build_tiny_comet
    from transcreval.judge import OpenAICompatibleJudge
    from transcreval.protocols import imtbench
    from transcreval.runs import Run

    bench = write_set(tmp_path / "set")
    ckpt = build_tiny_comet(tmp_path / "comet")
    comet = {"model": "test/tiny-comet", "checkpoint": str(ckpt)}
    out = tmp_path / "run"
    with FakeOpenAIServer(responder, model="fake-judge") as server:
        judge = json.dumps({"model": "fake-judge", "base_url": server.base_url, "max_retries": 0})
        args = ["evaluate", "-p", "imtbench", "-m", str(bench["manifest"]), "-o", str(out), "--judge", judge]
        for name, path in bench["systems"].items():
            args += ["-s", f"{name}={path}"]
        args += ["--option", "lpips_net=squeeze", "--option", f"lpips_weights={bench['lpips']}"]
        args += ["--option", f"comet={json.dumps(comet)}", "--progress", "none", "--batch-size", "3"]
        assert main(args) == 0, capsys.readouterr().err
        printed = capsys.readouterr().out
        want = imtbench.evaluate(
            bench["imt_manifest"],
            dict(bench["imt_systems"]),
            judge=OpenAICompatibleJudge("fake-judge", base_url=server.base_url, max_retries=0),
            comet=comet,
            lpips_net="squeeze",
            lpips_weights=str(bench["lpips"]),
        )
        n_calls = server.request_count
        assert main(args) == 0  # resumed: every item is done, the judge is not asked again
        assert server.request_count == n_calls
    assert "IMTBench Table 2 (sysA)" in printed and (out / "results.json").is_file()
    got = Run(out).results
    for key, t in want.tables.items():
        g = got.tables[key]
        assert g.rows == t.rows and g.notes == t.notes
        for cell, c in t.cells.items():
            assert _same(g.cells[cell].value, c.value), (key, cell)
            assert (g.cells[cell].n, g.cells[cell].n_missing) == (c.n, c.n_missing), (key, cell)
    # S_text is comet's own predict on the tiny model, segment by segment
    ks = [k for k in range(8) if SYS["sysB"][k] is not None]
    srcs = [f"{SRC[0].title()}\nWelcome" if k == 0 else SRC[k].title() for k in ks]  # item 0: two regions
    scores, _ = comet_reference(ckpt, [SYS["sysB"][k].title() for k in ks], [REF[k].title() for k in ks], srcs)
    mine = {r.item_id: r.value for r in got.records if r.system == "sysB" and r.metric == "S_text"}
    for k, s in zip(ks, scores):
        assert abs(mine[f"it{k}"] - s) <= 1e-6
    status = {(r.item_id, r.metric): r.status for r in got.records if r.system == "sysA"}
    assert status[(f"it{NO_OUTPUT}", "S")] == "missing_component"
    assert status[(f"it{NO_TEXT}", "S_text")] == "missing_output"
