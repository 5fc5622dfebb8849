"""``update`` and ``forward`` name their inputs: ``preds`` first and, where ``_stats`` takes it
second, ``target`` (the generated methods of :func:`transcreval.core.guards.public_methods` and the
torchmetrics adapter), and a call by name binds exactly as the same call by position."""

from __future__ import annotations

import inspect

import pytest

from transcreval.core.guards import MISSING, join_inputs
from transcreval.core.registry import list_metrics
from transcreval.text.chrf import TitleChrF


def _code_names(fn):
    code = fn.__code__
    return code.co_varnames[1 : code.co_argcount]  # the real parameters after self


@pytest.mark.parametrize("info", list_metrics(), ids=lambda m: m.name)
def test_every_update_and_forward_name_preds_then_target(info):
    cls = info.load()
    stats = [p.name for p in inspect.signature(cls._stats).parameters.values()][1:3]
    want = ("preds", "target") if stats == ["preds", "target"] else ("preds",)
    assert stats[0] == "preds"
    for method in (cls.update, cls.forward):
        assert _code_names(method) == want, (info.name, method.__name__)


def test_join_inputs_puts_given_inputs_in_order():
    kw: dict = {}
    assert join_inputs(1, 2, (3,), kw) == (1, 2, 3) and kw == {}
    assert join_inputs(1, MISSING, (), kw) == (1,) and kw == {}
    assert join_inputs(MISSING, MISSING, (), kw) == () and kw == {}
    assert join_inputs(MISSING, 2, (), kw) == () and kw == {"target": 2}


def test_by_name_and_by_position_give_the_same_value():
    preds, target = ["a cat on a mat", "the dog"], ["a cat on the mat", "a dog"]
    values = []
    for args, kwargs in (
        ((preds, target), {}),
        ((), {"preds": preds, "target": target}),
        ((preds,), {"target": target}),
    ):
        m = TitleChrF()
        m.update(*args, **kwargs)
        values.append(m.compute().value)
        values.append(TitleChrF().forward(*args, **kwargs).value)
    assert len(set(values)) == 1


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, r"TitleChrF\.update\(preds, target\): missing a required argument: 'preds'"),
        ((), {"target": ["x"]}, r"TitleChrF\.update\(preds, target\): missing a required argument: 'preds'"),
        ((["x"],), {}, r"TitleChrF\.update\(preds, target\): missing a required argument: 'target'"),
        ((["x"], ["y"]), {"mask": 1}, r"TitleChrF\.update\(preds, target\): got an unexpected keyword argument 'mask'"),
    ],
)
def test_a_wrong_call_is_named_by_the_public_method(args, kwargs, message):
    with pytest.raises(TypeError, match=message):
        TitleChrF().update(*args, **kwargs)


def test_the_torchmetrics_adapter_names_preds_and_target():
    pytest.importorskip("torchmetrics")
    from transcreval.integrations.torchmetrics import TorchmetricsMetric, wrap

    assert _code_names(TorchmetricsMetric.update) == ("preds", "target")
    assert _code_names(TorchmetricsMetric.forward) == ("preds", "target")
    preds, target = ["a cat on a mat"], ["a cat on the mat"]
    by_name, by_position = wrap(TitleChrF()), wrap(TitleChrF())
    by_name.update(preds=preds, target=target)
    by_position.update(preds, target)
    assert float(by_name.compute()) == float(by_position.compute())
    assert float(wrap(TitleChrF())(target=target, preds=preds)) == float(wrap(TitleChrF())(preds, target))
