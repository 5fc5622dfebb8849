"""Shared option validators: a class and its functional twin never disagree.

For every registered metric, each boolean or integer option (found from the defaults in the
class's ``__init__`` signatures) is refused, with an InputError naming the option, by the
class and by its functional twin when the twin takes the option: ``"no"`` for a switch,
``"3"`` (a string) for a number. A new metric inherits the check through the registry.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from transcreval.core.common import check_bool, check_positive_int, check_range
from transcreval.core.metric import Metric
from transcreval.core.registry import list_metrics
from transcreval.errors import InputError

BASE_OPTIONS = set(inspect.signature(Metric.__init__).parameters)


def _defaults(fn: Any) -> dict[str, Any]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {p.name: p.default for p in params if isinstance(p.default, (bool, int)) and p.name not in BASE_OPTIONS}


def _class_options(cls: type) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if "__init__" in vars(klass):
            out.update(_defaults(vars(klass)["__init__"]))
    return out


def _bad(default: Any) -> Any:
    return "no" if isinstance(default, bool) else "3"


#: twins that read their inputs before their options (placeholder inputs would fail first);
#: strict xfails, so a twin that starts checking its options first must leave this list. Empty
#: since every family checks its options object up front: keep it that way
INPUTS_FIRST: dict[tuple[str, str], str] = {}


def _case(info: Any, option: str, default: Any, twin: bool) -> Any:
    xfail = twin and (info.name, option) in INPUTS_FIRST
    marks = [pytest.mark.xfail(strict=True, reason=INPUTS_FIRST[info.name, option])] if xfail else []
    return pytest.param(info.name, option, default, id=f"{info.name}-{option}", marks=marks)


OPTIONS = [(info, o, d) for info in list_metrics() for o, d in sorted(_class_options(info.load()).items())]
CASES = [_case(*c, twin=False) for c in OPTIONS]
TWIN_CASES = [_case(*c, twin=True) for c in OPTIONS]


def _judge() -> Any:
    from tests.judge.cases import answer
    from transcreval.judge import FunctionJudge

    return FunctionJudge(answer)


def _required(fn: Any) -> tuple[list[Any], dict[str, Any]]:
    """Placeholder inputs (the option is checked before any input is read) and a judge."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for p in inspect.signature(fn).parameters.values():
        if p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name == "judge":
            kwargs["judge"] = _judge()
        elif p.kind is p.KEYWORD_ONLY:
            kwargs[p.name] = None
        else:
            args.append(None)
    return args, kwargs


def _takes(fn: Any, option: str) -> bool:
    params = inspect.signature(fn).parameters
    return option in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def test_every_metric_has_an_option_case():
    assert len(CASES) >= 20  # the discovery above found the switches and counts


@pytest.mark.parametrize(("name", "option", "default"), CASES)
def test_bad_option_is_refused_by_the_class(name, option, default):
    from transcreval.core.registry import get_metric

    cls = get_metric(name).load()
    _, kwargs = _required(cls.__init__)
    with pytest.raises(InputError, match=option):
        cls(**kwargs, **{option: _bad(default)})


@pytest.mark.parametrize(("name", "option", "default"), TWIN_CASES)
def test_bad_option_is_refused_by_the_twin(name, option, default):
    from transcreval.core.registry import get_metric

    twin = get_metric(name).load_functional()
    if twin is None or not _takes(twin, option):
        pytest.skip(f"the twin does not take {option}")
    args, kwargs = _required(twin)
    with pytest.raises(InputError, match=option):
        twin(*args, **kwargs, **{option: _bad(default)})


def test_title_chrf_twin_refuses_what_the_class_refuses():
    """The reported case: ``title_chrf(..., lowercase="no")`` used to lowercase."""
    from transcreval import TitleChrF
    from transcreval.functional import title_chrf

    with pytest.raises(InputError, match="lowercase must be True or False"):
        TitleChrF(lowercase="no")
    with pytest.raises(InputError, match="lowercase must be True or False"):
        title_chrf(["a"], ["a"], lowercase="no")
    assert title_chrf(["Ab"], ["ab"], lowercase=True).value == 100.0


@pytest.mark.parametrize("bad", [0, 1, "no", None, 1.0])
def test_check_bool_refuses_what_is_not_a_bool(bad):
    with pytest.raises(InputError, match="flag must be True or False"):
        check_bool("flag", bad)
    assert check_bool("flag", True) is True and check_bool("flag", False) is False


def test_check_positive_int():
    assert check_positive_int("n", 3) == 3
    assert check_positive_int("n", None, optional=True) is None
    assert check_positive_int("n", 0, minimum=0) == 0
    for bad, kw, match in (
        (0, {}, "n must be a positive integer, got 0"),
        (True, {}, "positive integer"),
        (2.0, {}, "positive integer"),
        (None, {}, "positive integer, got None"),
        (0, {"optional": True}, "positive integer or None"),
        (-1, {"minimum": 0}, "non-negative integer"),
        (1, {"minimum": 2}, "an integer >= 2"),
    ):
        with pytest.raises(InputError, match=match):
            check_positive_int("n", bad, **kw)


def test_check_range():
    assert check_range("p", 0, 0.0, 1.0) == 0.0
    assert check_range("p", 1, 0.0, 1.0) == 1.0
    for bad, kw in ((0, {"open_low": True}), (1, {"open_high": True}), (True, {}), (float("nan"), {}), ("0.5", {})):
        with pytest.raises(InputError, match=r"p must be a number in [\[(]0, 1[\])]"):
            check_range("p", bad, 0.0, 1.0, **kw)
