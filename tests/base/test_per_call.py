"""Per-call updates: small statistics given as Python numbers are added up in
Python between updates; the states, values and per-item lists are bit for bit those of the
tensor path, whichever way the metric is called."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
import torch
from PIL import Image
from sacrebleu.metrics import CHRF

from transcreval import PHashDistance, TitleChrF
from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.core.states import Cat, Max, ReducedState, Sum
from transcreval.errors import InputError

HYPS = ["Le Voyage de Chihiro", "千と千尋の神隠し", "", "hello  world!", "x", "🎬 Film noir", "tab\there"] * 3
REFS = ["Le voyage de Chihiro", "千と千尋", "abc", "", "x", "🎬film Noir", "tab here"] * 3


@pytest.fixture
def tensor_path(monkeypatch):
    """Switch the Python forms off: every statistic becomes a tensor at once (the old path)."""

    def off(monkeypatch: pytest.MonkeyPatch = monkeypatch) -> None:
        monkeypatch.setattr(ReducedState, "python_form", lambda self, value: None)
        monkeypatch.setattr(Cat, "python_form", lambda self, value: None)

    return off


def _states(m: Metric) -> dict[str, Any]:
    return m.state_dict()


def _same_states(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].dtype == b[k].dtype, k
        assert torch.equal(a[k], b[k]), k


def _per_sentence(m: TitleChrF) -> TitleChrF:
    for h, r in zip(HYPS, REFS):
        m.update([h], [r])
    return m


def test_title_chrf_per_sentence_equals_sacrebleu_and_the_tensor_path(tensor_path):
    m = _per_sentence(TitleChrF())
    got = m.compute()
    sacre = CHRF()
    expected = [sacre.sentence_score(h, [r]).score for h, r in zip(HYPS, REFS)]
    assert got.per_item.tolist() == expected  # exactly
    python_states = _states(m)
    tensor_path()
    old = _per_sentence(TitleChrF())
    _same_states(python_states, _states(old))
    assert old.compute().value == got.value


def test_title_chrf_per_sentence_and_batch_agree():
    one = _per_sentence(TitleChrF()).compute()
    batch = TitleChrF()
    batch.update(HYPS, REFS)
    assert one.per_item.tolist() == batch.compute().per_item.tolist()
    assert one.value == pytest.approx(batch.compute().value, rel=1e-15)


def _pairs(n: int) -> list[Image.Image]:
    rng = np.random.default_rng(3)
    return [Image.fromarray(rng.integers(0, 256, (60 + i, 90, 3), dtype=np.uint8)) for i in range(n)]


def test_phash_distance_per_pair_equals_batch_and_the_tensor_path(tensor_path):
    a, b = _pairs(6), _pairs(6)[::-1]
    per_pair = PHashDistance()
    for x, y in zip(a, b):
        per_pair.update([x], [y])
    batch = PHashDistance()
    batch.update(a, b)
    r1, r2 = per_pair.compute(), batch.compute()
    assert r1.value == r2.value and torch.equal(r1.per_item, r2.per_item)
    python_states = _states(per_pair)
    tensor_path()
    old = PHashDistance()
    for x, y in zip(a, b):
        old.update([x], [y])
    _same_states(python_states, _states(old))


class _Toy(Metric):
    """Python-number statistics of every kind that has a Python form."""

    higher_is_better = None

    def __init__(self) -> None:
        super().__init__()
        self.add_state("total", Sum(torch.float64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("hist", Sum(torch.int64, (3,)))
        self.add_state("top", Max(torch.int64))
        self.add_state("values", Cat(torch.float64))

    def _stats(self, preds: list[float], target: list[int]) -> dict[str, Any]:
        return {
            "total": sum(preds),
            "count": len(preds),
            "hist": [target.count(k) for k in range(3)],
            "top": max(target),
            "values": preds,
        }

    def _from_stats(self, s: dict[str, Any]) -> MetricResult:
        n = int(s["count"])
        return MetricResult(float(s["total"]) / n, n, self.signature, per_item=s["values"])


def _feed(m: _Toy, n: int, seed: int = 0) -> _Toy:
    rng = np.random.default_rng(seed)
    for _ in range(n):
        k = int(rng.integers(1, 4))
        m.update([float(v) for v in rng.normal(size=k)], [int(v) for v in rng.integers(0, 3, size=k)])
    return m


def test_every_python_form_gives_the_tensor_paths_states(tensor_path):
    new = _feed(_Toy(), 50)
    python_states = _states(new)
    tensor_path()
    _same_states(python_states, _states(_feed(_Toy(), 50)))


def test_running_totals_survive_every_way_a_state_is_read():
    m = _feed(_Toy(), 20)
    copy = pickle.loads(pickle.dumps(m))  # pickled mid-way
    clone = m.clone()
    _same_states(_states(copy), _states(m))
    for other in (copy, clone):
        _feed(other, 5, seed=1)
    _feed(m, 5, seed=1)
    _same_states(_states(copy), _states(m))
    _same_states(_states(clone), _states(m))
    merged = _feed(_Toy(), 20)
    merged.merge_state(_feed(_Toy(), 5, seed=1))
    assert _states(merged)["count"] == _states(m)["count"]
    batch = m.forward([1.0, 2.0], [0, 2])  # a batch value from Python statistics
    assert batch.value == 1.5 and batch.per_item.tolist() == [1.0, 2.0]
    m.reset()
    assert int(_states(m)["count"]) == 0 and _states(m)["values"].numel() == 0


def test_many_single_updates_keep_every_row_in_order():
    m = _Toy()
    for i in range(5000):  # past the 4,096 rows a Cat state collects in Python
        m.update([float(i)], [i % 3])
        if i == 4500:
            m.state_dict()  # a read in between
    assert m.compute().per_item.tolist() == [float(i) for i in range(5000)]


def test_out_of_range_integers_take_the_tensor_path_and_are_refused():
    m = _Toy()
    with pytest.raises((InputError, RuntimeError, OverflowError)):
        m.update([1.0], [1 << 64])
    m = _Toy()
    m.update([1.0], [2])
    assert int(m.state_dict()["top"]) == 2


def test_python_totals_are_kept_only_on_the_cpu():
    m = _Toy().to("meta")
    m.update([1.0], [2])
    assert m._state["count"].device.type == "meta" and not m._pending
    cpu0 = _Toy().to(torch.device("cpu", 0))  # another spelling of the CPU still keeps Python totals
    cpu0.update([1.0], [2])
    assert cpu0._pending and cpu0.compute().value == _Toy().forward([1.0], [2]).value


def test_is_cpu_recognises_every_spelling_of_the_cpu():
    from transcreval.core.states import is_cpu

    assert is_cpu(torch.device("cpu")) and is_cpu(torch.device("cpu:0")) and is_cpu(torch.device("cpu", 1))
    assert not is_cpu(torch.device("meta")) and not is_cpu(torch.device("cuda", 0))
