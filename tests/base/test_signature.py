"""Signatures as keys: two different option sets never print the same
signature, work keys hash the signature's canonical JSON, and ``merge_state`` counts
``update_count`` the same way whether it is given a metric or its ``state_dict``."""

from __future__ import annotations

import hashlib
import json

import pytest

from transcreval.core.result import Signature


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ({"w": 0.1234567}, {"w": 0.1234568}),  # %g printed both as 0.123457
        ({"w": 1e-7}, {"w": 1.00000001e-7}),
        ({"w": 2.0}, {"w": 2}),  # a float and an int
        ({"a": "x|b:y"}, {"a": "x", "b": "y"}),  # a separator inside a value
        ({"a:b": "c"}, {"a": "b:c"}),  # a separator inside a key
        ({"a": "x\\|y"}, {"a": "x|y"}),  # the escape character itself
    ],
)
def test_different_options_print_different_signatures(a, b):
    sa, sb = Signature.make("M", a), Signature.make("M", b)
    assert str(sa) != str(sb)
    assert sa.canonical_json() != sb.canonical_json()


def test_floats_print_exactly_and_separators_are_escaped():
    sig = Signature.make("M", {"w": 0.1234567, "url": "http://h:8000/v1", "alt": "a|b", "k:x": 1})
    assert str(sig).startswith("M|w:0.1234567|url:http://h:8000/v1|alt:a\\|b|k\\:x:1|v:")


def test_the_canonical_json_is_json_of_every_part_and_equal_signatures_agree():
    sig = Signature.make("M", {"w": 0.1, "ok": True, "labels": ("a", "b")}, ["numpy"])
    data = json.loads(sig.canonical_json())
    assert data["name"] == "M" and data["options"] == [["w", 0.1], ["ok", True], ["labels", ["a", "b"]]]
    assert dict(data["versions"]).keys() == {"numpy"} and data["version"] == sig.version
    again = Signature.make("M", {"w": 0.1, "ok": True, "labels": ("a", "b")}, ["numpy"])
    assert again.canonical_json() == sig.canonical_json()


def test_work_keys_hash_the_canonical_json():
    from transcreval.runs.engine import signature_digest

    sig = Signature.make("M", {"w": 0.5})
    assert signature_digest(sig) == hashlib.sha256(sig.canonical_json().encode()).hexdigest()
    assert signature_digest("a printed|signature") == hashlib.sha256(b'"a printed|signature"').hexdigest()


def test_merge_state_counts_updates_alike_from_a_metric_and_from_its_state_dict():
    from transcreval import TitleChrF

    src = TitleChrF()
    src.update(["Le voyage"], ["Le Voyage"])
    src.update(["Parasite"], ["Parasite"])
    by_metric, by_dict = TitleChrF(), TitleChrF()
    by_metric.merge_state(src)
    by_dict.merge_state(src.state_dict())
    assert by_metric.update_count == by_dict.update_count
    assert by_metric.compute().value == by_dict.compute().value
