"""IMTBenchScore (transcreval.judge.imtbench_score): S = (S_text + S_bg + S_align + S_vis) / 4 on
the protocol's 12 rendered items (tests/protocols/test_imtbench.py builds them, with the tiny
COMET model, random-init LPIPS weights and a scripted judge): the metric equals the protocol, and
the harness (class == function == the per-item values computed there; batching; 1, 2 and 4
processes). Needs the comet environment (`make test-comet`).
"""

from __future__ import annotations

import functools
import math

import pytest
import torch

from tests._helpers.comet_env import WHY
from tests.protocols.test_imtbench import (  # the protocol's rendered set and its run, as fixtures
    NO_OUTPUT,
    REF_WORDS,
    SRC_WORDS,
    SYS_WORDS,
    ScriptedJudge,
    bench,
    judge_fn,
    run,
)
from transcreval.judge import FunctionJudge

pytestmark = [
    pytest.mark.comet,
    pytest.mark.skipif(WHY is not None, reason=f"unbabel-comet cannot be imported here ({WHY}): run `make test-comet`"),
]
__all__ = ["bench", "run"]  # fixtures used by the tests below


def test_imtbench_score_metric_equals_the_protocol(bench, run):
    from transcreval import IMTBenchScore
    from transcreval.protocols.imtbench.inputs import read_manifest, read_outputs

    root, ckpt, lpips_path = bench
    result, _ = run
    items = read_manifest(root / "manifest.jsonl")
    outs = read_outputs(root / "sys.jsonl", items)
    m = IMTBenchScore(
        judge=FunctionJudge(judge_fn(root)),
        comet={"model": "test/tiny-comet", "checkpoint": ckpt},
        lpips_net="squeeze",
        lpips_weights=str(lpips_path),
    )
    for a, b in ((0, 7), (7, 12)):
        chunk = items[a:b]
        m.update(
            [outs[it.id].image if it.id in outs else None for it in chunk],
            [it.reference_image for it in chunk],
            [outs[it.id].text if it.id in outs else None for it in chunk],
            [it.reference_text for it in chunk],
            [it.source_text for it in chunk],
        )
    res = m.compute()
    s = [v for v in result.values("sys", "S", [it.id for it in items]) if not math.isnan(v)]
    assert res.value == pytest.approx(sum(s) / len(s), abs=1e-6) and res.n == len(s)  # COMET batches differ
    assert res.extras["n_items"] == 12 and res.extras["item_status"][NO_OUTPUT] == "missing_output"
    assert res.extras["missing"]["S_align"] == {"missing_output": 2, "refused": 1, "unparsable": 1}
    assert torch.equal(torch.isnan(res.per_item), torch.tensor([math.isnan(v) for v in result.values("sys", "S")]))


@pytest.mark.ddp
def test_imtbench_score_through_the_metric_harness(bench, run, ddp_pool):
    """class == function == the per-item values computed here; batching; 1, 2 and 4 processes."""
    from tests._helpers.tester import MetricCase, check_metric, join_lists
    from transcreval import IMTBenchScore
    from transcreval.functional import imtbench_score

    root, ckpt, lpips_path = bench
    _, exp = run
    opts = {
        "judge": FunctionJudge(ScriptedJudge(root)),
        "comet": {"model": "test/tiny-comet", "checkpoint": ckpt},
        "lpips_net": "squeeze",
        "lpips_weights": str(lpips_path),
        # random linear layers: the version is named (the gloo workers do not know the layers)
        "lpips_version": "0.1",
    }
    cols = [
        [None if k == NO_OUTPUT else root / f"out{k}.png" for k in range(12)],
        [root / f"ref{k}.png" for k in range(12)],
        [None if k == NO_OUTPUT or SYS_WORDS[k] is None else SYS_WORDS[k].title() for k in range(12)],
        [w.title() for w in REF_WORDS],
        [w.title() for w in SRC_WORDS],
    ]
    batches = [tuple(c[a:b] for c in cols) for a, b in ((0, 5), (5, 9), (9, 12))]
    index = {str(p): k for k, p in enumerate(cols[1])}

    def reference(outs, refs, *_):
        s = [sum(p) / 4 for r in refs if None not in (p := [exp[c][index[str(r)]] for c in exp])]
        return sum(s) / len(s)

    case = MetricCase(
        factory=functools.partial(IMTBenchScore, **opts),
        functional=lambda *b: imtbench_score(*b, **opts),
        reference=reference,
        batches=batches,
        join=join_lists,
        atol=1e-6,
        same_atol=1e-6,
        extras_keys=("components", "n_components", "missing", "item_status", "n_items", "n_failed", "failures"),
    )
    check_metric(case, ddp_pool)
