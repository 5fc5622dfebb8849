"""The checks every metric module's own test file runs for the metrics the module registers.

``tests/<domain>/test_<module>.py`` mirrors ``transcreval/<domain>/<module>.py``
(``tests/base/test_registry.py`` checks that the file exists and names each class). Where a
module's agreement tests live in a file shared with other modules (the PosterIQ family in
``tests/protocols/test_posteriq_metrics.py``, the agreement statistics in
``tests/stats/test_agreement.py``, the judge harness in ``tests/judge/test_metrics.py``), its
own file runs these checks on the shared cases instead of copying them:

* :func:`check_built`: the shared builder (:mod:`tests._helpers.every_metric`) gives an instance
  of the registered class, whose states survive ``state_dict`` /
  ``load_state_dict`` into a second instance, ``clone`` and ``reset``;
* :func:`check_judge_case`: a judge metric on its family case (:mod:`tests.judge.cases`): three
  items scored by the scripted judge give the case's value, per item and overall, and the
  states loaded into a fresh instance give the same value.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

from tests._helpers.comet_env import registry_params
from transcreval.registry import get_metric, list_metrics


def module_metrics(module: str) -> list[str]:
    """Names of the metrics registered from ``module`` (e.g. ``transcreval.choice.k_option``)."""
    names = sorted(m.name for m in list_metrics() if m.module == module)
    assert names, f"no metric is registered from {module}"
    return names


def params(module: str) -> list[Any]:
    """The module's metric names as pytest parameters (comet-marked where comet is needed)."""
    return registry_params(module_metrics(module))


def _same_states(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a.keys() != b.keys():
        return False
    for k, v in a.items():
        w = b[k]
        if isinstance(v, torch.Tensor):
            if not (isinstance(w, torch.Tensor) and v.shape == w.shape and torch.equal(v, w)):
                return False
        elif isinstance(v, (list, tuple)) and v and isinstance(v[0], torch.Tensor):
            if len(v) != len(w) or not all(torch.equal(x, y) for x, y in zip(v, w)):
                return False
        elif v != w:
            return False
    return True


def check_built(name: str) -> None:
    from tests._helpers.every_metric import build

    info = get_metric(name)
    metric = build(name)
    assert type(metric) is info.load(), f"{name}: the builder made a {type(metric).__name__}"
    other = build(name)
    other.load_state_dict(metric.state_dict())
    assert _same_states(other.state_dict(), metric.state_dict())
    assert _same_states(metric.clone().state_dict(), metric.state_dict())
    metric.reset()
    assert _same_states(metric.state_dict(), build(name).state_dict())


def check_judge_case(name: str, n: int = 3) -> None:
    from tests.judge.cases import CASES, answer, call
    from transcreval.judge import FunctionJudge

    factory, args, value = CASES[name]
    metric = factory(FunctionJudge(answer))
    res = call(metric, args(n))
    other = factory(FunctionJudge(answer))  # the states carry the scores: no judge call needed
    other.load_state_dict(metric.state_dict())
    assert other.compute().value == pytest.approx(res.value, nan_ok=True)
    assert res.n == n and res.per_item.numel() == n
    assert res.extras["item_status"] == ["ok"] * n
    per_item = res.per_item.tolist()
    assert not any(math.isnan(v) for v in per_item) and len(set(per_item)) == 1
    if value is not None:  # rates in % keep per-item values on the 0-1 scale
        assert res.value == pytest.approx(value)
        assert value in (pytest.approx(per_item[0]), pytest.approx(100 * per_item[0]))
