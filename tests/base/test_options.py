"""The options base (transcreval.core.options): checked once, frozen, printed in the signature."""

from __future__ import annotations

import dataclasses

import pytest

from transcreval.core.common import check_bool, check_positive_int, check_range
from transcreval.core.options import MetricOptions, option
from transcreval.errors import InputError


@dataclasses.dataclass(frozen=True)
class ToyOptions(MetricOptions):
    order: int = 6
    beta: float = option(2.0, signature="b")
    lowercase: bool = False
    batch_size: int = option(32, signature=None)

    def check(self) -> None:
        check_positive_int("order", self.order)
        self.set_checked("beta", check_range("beta", self.beta, 0, 10, open_low=True))
        check_bool("lowercase", self.lowercase)
        check_positive_int("batch_size", self.batch_size)


def test_bad_values_are_refused_naming_the_option():
    for kw, name in (({"order": "3"}, "order"), ({"beta": 0}, "beta"), ({"lowercase": "no"}, "lowercase")):
        with pytest.raises(InputError, match=name):
            ToyOptions(**kw)


def test_check_normalises_and_replace_checks_again():
    o = ToyOptions(beta=3)
    assert o.beta == 3.0 and isinstance(o.beta, float)
    with pytest.raises(InputError, match="order"):
        o.replace(order=0)
    assert o.replace(order=4).order == 4


def test_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        ToyOptions().order = 3  # type: ignore[misc]


def test_signature_renames_and_leaves_out():
    o = ToyOptions(lowercase=True)
    assert o.signature_options() == {"order": 6, "b": 2.0, "lowercase": True}
    sig = o.signature("Toy", packages=("pytest",))
    assert str(sig).startswith("Toy|order:6|b:2.0|lowercase:yes|pytest:")
    assert o.as_kwargs() == {"order": 6, "beta": 2.0, "lowercase": True, "batch_size": 32}


def test_take_names_unknown_keywords():
    assert ToyOptions.take({"order": 2}).order == 2
    with pytest.raises(TypeError, match=r"toy\(\) got unexpected keyword argument\(s\) \['nope'\]"):
        ToyOptions.take({"nope": 1}, "toy")
