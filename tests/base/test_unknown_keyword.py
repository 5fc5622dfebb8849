"""A keyword no metric takes is a TypeError naming the metric's class and what it accepts.

Over the whole registry (``tests._helpers.every_metric``): each metric is built as usual with one
keyword added that nothing takes (the class's ``__init__`` is wrapped for the call). The message
must name the class (not ``Metric.__init__``, where the keyword ends up), list the accepted
keywords and suggest the near miss of a typo.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import pytest

from tests._helpers.comet_env import NEEDS_COMET, needs_comet
from transcreval.core.registry import get_metric, list_metrics

NAMES = sorted(info.name for info in list_metrics())


@pytest.mark.parametrize("name", [pytest.param(n, marks=needs_comet if n in NEEDS_COMET else (), id=n) for n in NAMES])
def test_an_unknown_keyword_names_the_class_and_the_accepted_keywords(name, monkeypatch):
    from tests._helpers.every_metric import build

    cls = get_metric(name).load()
    original = cls.__init__

    @functools.wraps(original)
    def with_unknown(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs, no_such_option=1)

    monkeypatch.setattr(cls, "__init__", with_unknown)
    with pytest.raises(TypeError) as err:
        build(name)
    text = str(err.value)
    assert text.startswith(f"{cls.__name__}() got unexpected keyword argument(s) ['no_such_option']"), text
    assert "Metric.__init__" not in text
    accepted = text.split("; accepted keywords: ")[1].split(", ")
    assert "sync_on_compute" in accepted
    own = [p for p, v in inspect.signature(cls).parameters.items() if v.kind is v.KEYWORD_ONLY]
    assert set(own) <= set(accepted), (own, accepted)  # the class's own keywords are listed


def test_a_typo_gets_the_near_miss():
    from transcreval import TitleChrF

    with pytest.raises(TypeError, match=r"did you mean 'word_order'\?"):
        TitleChrF(word_orderr=2)
