"""One return type for the functional twins, classes that delegate, one options object per
metric, checked over the whole registry so a new metric inherits it.

* the twin returns what ``compute()`` returns: a :class:`~transcreval.core.result.MetricResult`
  (per-item outputs have their own functions, e.g. ``lpips_per_pair``); each metric's tester
  case (``tests/_helpers/tester.py``) then checks that the twin's result equals the class's:
  value, n, per-item values, extras keys and signature;
* the class's ``_stats`` calls a function of its functional module (the pure pieces live there,
  the class only holds states);
* an instance keeps its options in one checked, frozen :class:`~transcreval.core.options.MetricOptions`
  object (``metric.options``), the object its twin builds from the same keywords.

Every registered metric follows all three (the per-domain pending sets of the conversion are
gone).
"""

from __future__ import annotations

import importlib
import inspect
import types
import typing

import pytest

from tests._helpers.comet_env import NEEDS_COMET, needs_comet
from transcreval.core.options import MetricOptions
from transcreval.core.registry import get_metric, list_metrics
from transcreval.core.result import MetricResult

NAMES = [m.name for m in list_metrics()]


def _params(comet: bool = False) -> list[typing.Any]:
    return [pytest.param(n, marks=needs_comet if comet and n in NEEDS_COMET else (), id=n) for n in NAMES]


@pytest.mark.parametrize("name", _params())
def test_twin_returns_what_compute_returns(name):
    twin = get_metric(name).load_functional()
    hints = typing.get_type_hints(twin)
    assert hints.get("return") is MetricResult, f"{twin.__name__} returns {hints.get('return')}, not MetricResult"


def _called_names(fn: typing.Any) -> set[str]:
    """Global names the function's code (nested functions included) refers to."""
    out: set[str] = set()
    todo = [fn.__code__]
    while todo:
        code = todo.pop()
        out.update(code.co_names)
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return out


@pytest.mark.parametrize("name", _params())
def test_class_delegates_to_its_functional_module(name):
    info = get_metric(name)
    cls = info.load()
    module = importlib.import_module(info.functional_module)
    stats = inspect.getattr_static(cls, "_stats")  # the function the class runs, from its MRO, unbound
    used = _called_names(stats)
    pure = {
        n
        for n in used
        if n.endswith("_stats")
        and inspect.isfunction(getattr(module, n, None))
        and getattr(module, n).__module__.startswith("transcreval.functional.")
    }
    assert pure, f"{cls.__name__}._stats calls no <name>_stats function of {info.functional_module}"


@pytest.mark.parametrize("name", _params(comet=True))
def test_metric_keeps_one_checked_options_object(name):
    from tests._helpers.every_metric import build

    metric = build(name)
    opts = getattr(metric, "options", None)
    assert isinstance(opts, MetricOptions), f"{name}.options is {type(opts).__name__}, not a MetricOptions"
    assert metric._signature_options() == opts.signature_options()


def test_every_name_is_covered_once():
    assert len(NAMES) == len(set(NAMES))
    assert set(NAMES) >= NEEDS_COMET
