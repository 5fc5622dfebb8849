"""transcreval.utils.named_table: the one table behind the weights, extractor, preprocessing and COMET registries."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from transcreval.utils.named_table import NamedTable


@dataclass(frozen=True)
class _Entry:
    name: str
    value: int = 0


def test_add_find_get_remove_and_names():
    t = NamedTable("widget", _Entry)
    assert t.names() == [] and t.find("a") is None and "a" not in t
    b, a = t.add(_Entry("b", 1), overwrite=False, caller="add_widget"), _Entry("a")
    assert t.add(a, overwrite=False, caller="add_widget") is a
    assert t.names() == ["a", "b"] and t.values() == [a, b] and t.get("b") == b and "b" in t
    assert t.add(_Entry("b", 1), overwrite=False, caller="add_widget") == b  # the same entry again: no change
    t.remove("b")
    t.remove("b")  # no error for a missing name
    assert t.names() == ["a"]


def test_errors_name_the_kind_the_caller_and_the_known_names():
    t = NamedTable("widget", _Entry)
    t.add(_Entry("a"), overwrite=False, caller="add_widget")
    with pytest.raises(ValueError, match="widget 'a' is already registered; pass overwrite=True"):
        t.add(_Entry("a", 2), overwrite=False, caller="add_widget")
    assert t.add(_Entry("a", 2), overwrite=True, caller="add_widget") == t.get("a") == _Entry("a", 2)
    with pytest.raises(TypeError, match="add_widget needs a _Entry, got str"):
        t.add("a", overwrite=False, caller="add_widget")  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="no widget called 'z'; known: a"):
        t.get("z")
    with pytest.raises(KeyError, match=r"known: \(none\)"):
        NamedTable("widget", _Entry).get("z")


def test_swap_returns_the_entry_it_replaced():
    # register_extractor drops the built instances of a replaced extractor: it needs the old
    # entry read under the same lock as the write
    t = NamedTable("widget", _Entry)
    assert t.swap(_Entry("a", 1), overwrite=False, caller="add_widget") is None
    assert t.swap(_Entry("a", 1), overwrite=False, caller="add_widget") == _Entry("a", 1)  # same entry: no change
    assert t.swap(_Entry("a", 2), overwrite=True, caller="add_widget") == _Entry("a", 1)
    assert t.get("a") == _Entry("a", 2)
