"""``wrap(metric)``: a transcreval metric as a torchmetrics.Metric, alone and inside a Lightning
``LightningModule`` logging loop on 2 DDP processes (gloo, CPU)."""

from __future__ import annotations

import csv
import json
import math
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from transcreval import SpearmanRho, TitleChrF
from transcreval.errors import InputError
from transcreval.functional.text.chrf import title_chrf

pytest.importorskip("torchmetrics", reason="the torchmetrics adapter needs the 'lightning' extra")
from transcreval.integrations.torchmetrics import TorchmetricsMetric, wrap

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "_helpers" / "lightning_ddp.py"
HYPS = ["a cat sat on the mat", "the dog ran", "red hat", "far from home"]
REFS = ["a cat sat on a mat", "a dog ran away", "the red hat", "far away from home"]


def test_update_compute_reset_forward_match_the_metric():
    import torchmetrics

    m = wrap(TitleChrF())
    assert isinstance(m, torchmetrics.Metric) and m.higher_is_better is True
    first = m(HYPS[:2], REFS[:2])
    assert first.dtype == torch.float64 and float(first) == pytest.approx(
        title_chrf(HYPS[:2], REFS[:2]).value, abs=1e-12
    )
    m.update(HYPS[2:], REFS[2:])
    assert float(m.compute()) == pytest.approx(title_chrf(HYPS, REFS).value, abs=1e-12)
    assert m.result is not None and m.result.n == 4 and len(m.result.per_item) == 4
    again = pickle.loads(pickle.dumps(m))
    assert float(again.compute()) == float(m.compute())
    m.reset()
    assert m.metric.update_count == 0 and m.result is None
    m.update(HYPS[:1], REFS[:1])
    assert float(m.compute()) == pytest.approx(title_chrf(HYPS[:1], REFS[:1]).value, abs=1e-12)


def test_undefined_batch_value_is_nan_and_still_accumulated():
    m = wrap(SpearmanRho())
    with pytest.warns(UserWarning):
        step = m(torch.tensor([1.0]), torch.tensor([2.0]))  # one pair: no correlation on that batch
    assert math.isnan(float(step))
    m.update(torch.tensor([2.0, 3.0]), torch.tensor([1.0, 3.0]))
    assert m.metric.compute().n == 3


def test_moving_the_module_moves_the_metric_states():
    m = wrap(TitleChrF())
    m.to("meta")  # a device every machine has
    assert m.metric.device == torch.device("meta") == m.device


def test_wrap_refuses_what_is_not_a_transcreval_metric():
    with pytest.raises(InputError, match="transcreval Metric instance"):
        wrap(TitleChrF)
    assert isinstance(wrap(TitleChrF(), sync_on_compute=False), TorchmetricsMetric)


def _logged(out: Path) -> list[dict[str, str]]:
    (path,) = list((out / "log").rglob("metrics.csv"))
    with path.open() as f:
        return list(csv.DictReader(f))


@pytest.mark.ddp
def test_lightning_logging_loop_on_two_processes(tmp_path):
    pytest.importorskip("lightning", reason="the Lightning test needs the 'lightning' extra")
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from lightning_ddp import N_ITEMS, texts
    finally:
        sys.path.remove(str(SCRIPT.parent))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH", "")])
    env.setdefault("GLOO_SOCKET_IFNAME", "lo")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-4000:]
    seen = {r: json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)}
    rows = _logged(tmp_path)
    epoch_rows = [r for r in rows if r["chrf"]]
    assert [int(r["epoch"]) for r in epoch_rows] == [0, 1]
    from scipy.stats import spearmanr

    for e, row in enumerate(epoch_rows):
        per_rank = {r: sorted(i for s in seen[r] if s["epoch"] == e for i in s["idx"]) for r in (0, 1)}
        assert sorted(per_rank[0] + per_rank[1]) == list(range(N_ITEMS)) and not set(per_rank[0]) & set(per_rank[1])
        hyps, refs, scores, human = texts(e)
        everything = title_chrf(hyps, refs).value
        assert float(row["chrf"]) == pytest.approx(everything, abs=1e-9)  # synced over both ranks
        rank0_only = title_chrf([hyps[i] for i in per_rank[0]], [refs[i] for i in per_rank[0]]).value
        assert abs(rank0_only - everything) > 1e-3  # so the check above could fail
        assert float(row["chrf_fwd_epoch"]) == pytest.approx(everything, abs=1e-9)
        assert float(row["rho"]) == pytest.approx(spearmanr(scores, human).statistic, abs=1e-9)
    step_rows = [r for r in rows if r["chrf_fwd_step"]]
    assert len(step_rows) == len(seen[0])  # the logger is rank 0's: one step value per rank-0 batch
    for r, s in zip(step_rows, seen[0]):
        hyps, refs, _, _ = texts(s["epoch"])
        batch = title_chrf([hyps[i] for i in s["idx"]], [refs[i] for i in s["idx"]]).value
        assert float(r["chrf_fwd_step"]) == pytest.approx(batch, abs=1e-9) == s["step_value"]
