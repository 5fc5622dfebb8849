"""``compat="sacrebleu"`` reproduces sacrebleu's paired bootstrap and paired approximate
randomisation on chrF: same seed, same number of resamples, same p-values and intervals.

sacrebleu resamples corpus chrF from per-sentence n-gram statistics (float32 sums in its
bootstrap, hence the 1e-4 tolerance on means and intervals; p-values are equal exactly).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from sacrebleu.metrics import CHRF
from sacrebleu.significance import PairedTest

from transcreval.functional.text.chrf import chrf_from_statistics, chrf_statistics
from transcreval.significance import compare_systems, paired_bootstrap, paired_randomization
from transcreval.stats import bootstrap_interval

WORDS = "the cat sat on a mat with big red hat and ran far away from home at night".split()  # noqa: SIM905


def corpus_chrf(rows: np.ndarray) -> float:
    """Corpus chrF of the selected sentences: the formula on their summed n-gram statistics."""
    return chrf_from_statistics(rows.sum(0).tolist())


def _corpus(seed: int, n: int = 60) -> tuple[list[str], list[str], list[str]]:
    rnd = random.Random(seed)

    def sentence() -> str:
        return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 9)))

    refs = [sentence() for _ in range(n)]
    base = [r if rnd.random() < 0.3 else sentence() for r in refs]
    system = [r if rnd.random() < 0.45 else sentence() for r in refs]
    return refs, base, system


def _sacrebleu(monkeypatch, seed, refs, base, system, test_type, n, n_conf=-1):
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    test = PairedTest([("base", base), ("sys", system)], {"chrF": CHRF()}, [refs], test_type, n, n_conf)
    _, scores = test()
    (key,) = [k for k in scores if k != "System"]
    return scores[key]


def _halfwidth(ci):
    return 0.5 * (ci[1] - ci[0])


@pytest.mark.parametrize(("seed", "n"), [(12345, 1000), (7, 500)])
def test_paired_bootstrap_equals_sacrebleu_on_chrf(monkeypatch, seed, n):
    refs, base, system = _corpus(seed)
    bl, sy = _sacrebleu(monkeypatch, seed, refs, base, system, "bs", n)
    a, b = chrf_statistics(base, refs)[0].numpy(), chrf_statistics(system, refs)[0].numpy()
    got = paired_bootstrap(a, b, statistic=corpus_chrf, n_resamples=n, seed=seed, compat="sacrebleu")
    assert got.value_a == pytest.approx(bl.score, abs=1e-9)
    assert got.value_b == pytest.approx(sy.score, abs=1e-9)
    assert got.p_value == sy.p_value
    assert got.mean_b == pytest.approx(sy.mean, abs=1e-4)
    assert _halfwidth(got.ci_b) == pytest.approx(sy.ci, abs=1e-4)
    assert got.mean_a == pytest.approx(bl.mean, abs=1e-4)
    assert _halfwidth(got.ci_a) == pytest.approx(bl.ci, abs=1e-4)
    assert got.n == len(refs) and got.n_missing == 0 and got.n_groups == len(refs)


@pytest.mark.parametrize(("seed", "n"), [(12345, 2000), (3, 1000)])
def test_paired_randomization_equals_sacrebleu_on_chrf(monkeypatch, seed, n):
    refs, base, system = _corpus(seed + 1)
    bl, sy = _sacrebleu(monkeypatch, seed, refs, base, system, "ar", n, n_conf=1000)
    a, b = chrf_statistics(base, refs)[0].numpy(), chrf_statistics(system, refs)[0].numpy()
    got = paired_randomization(
        a, b, statistic=corpus_chrf, n_resamples=n, ci_resamples=1000, seed=seed, compat="sacrebleu"
    )
    assert got.p_value == sy.p_value
    assert got.value_b == pytest.approx(sy.score, abs=1e-9)
    assert got.mean_b == pytest.approx(sy.mean, abs=1e-4)
    assert _halfwidth(got.ci_b) == pytest.approx(sy.ci, abs=1e-4)
    # sacrebleu's baseline interval is a plain bootstrap from a fresh generator
    base_iv = bootstrap_interval(a, statistic=corpus_chrf, n_resamples=1000, seed=seed, compat="sacrebleu")
    assert base_iv.mean == pytest.approx(bl.mean, abs=1e-4)
    assert _halfwidth(base_iv.ci) == pytest.approx(bl.ci, abs=1e-4)


def test_sentence_level_mean_also_follows_sacrebleus_draws(monkeypatch):
    """The mean fast path uses the same draws: the p-value matches a callable mean exactly."""
    refs, base, system = _corpus(11)
    a = chrf_statistics(base, refs)[1].numpy()
    b = chrf_statistics(system, refs)[1].numpy()
    fast = paired_bootstrap(a, b, compat="sacrebleu")
    slow = paired_bootstrap(a, b, statistic=np.mean, compat="sacrebleu")
    assert fast.p_value == slow.p_value
    assert fast.ci == pytest.approx(slow.ci, abs=1e-9)


def test_compare_systems_agrees_with_sacrebleu_on_corpus_chrf(monkeypatch):
    """The runner's path: per-item records carrying chrF's n-gram counts in ``meta``, joined by
    item id (records in another order), compared with a corpus statistic: sacrebleu's numbers."""
    from transcreval.protocols.records import ItemRecord, ProtocolResult

    refs, base, system = _corpus(5)
    bl, sy = _sacrebleu(monkeypatch, 12345, refs, base, system, "bs", 1000)
    recs = []
    for name, hyps in (("base", base), ("sys", system)):
        stats, scores = chrf_statistics(hyps, refs)
        recs += [
            ItemRecord(f"i{k}", name, "title_chrf", float(scores[k]), meta={"chrf_stats": stats[k].tolist()})
            for k in range(len(refs))
        ]
    recs = recs[: len(refs)] + recs[len(refs) :][::-1]
    res = ProtocolResult("demo", tuple(recs), {})
    cmp = compare_systems(
        res,
        "base",
        compat="sacrebleu",
        statistics={"title_chrf": corpus_chrf},
        rows_from={"title_chrf": "chrf_stats"},
    ).get("sys", "title_chrf")
    assert cmp.p_value == sy.p_value
    assert cmp.value == pytest.approx(sy.score, abs=1e-9) and cmp.baseline_value == pytest.approx(bl.score, abs=1e-9)
    assert _halfwidth(cmp.value_ci) == pytest.approx(sy.ci, abs=1e-4)
    assert cmp.n == len(refs) and cmp.n_missing == 0
