"""CSIOverlap (transcreval.judge.csi_overlap): Khanuja et al.'s culture-specific item overlap
with judge or exact matching, through the harness.

How the harness and the scripted oracle are set up: tests/judge/oracle.py.
"""

from __future__ import annotations

import functools
import json
from statistics import mean

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists
from tests.judge.oracle import (
    UNPARSABLE,
    WRAPS,
    N,
    Oracle,
    batches_of,
    extras_total,
    img,
    index,
    sha,
    wrap,
)
from transcreval.errors import EmptyInputError
from transcreval.functional.judge.csi_overlap import csi_overlap, csi_overlap_stats
from transcreval.judge.csi_overlap import CSIOverlap

CSI_ITEMS = [
    # (source objects, output objects, replacements, matches [(replacement, output object)])
    (
        ["hamburger", "dollar bill", "spoon"],
        ["sushi", "Spoon", "euro bill"],
        {"hamburger": ["sushi", "ramen"], "dollar bill": ["yen note"], "spoon": ["chopsticks"]},
        [("sushi", "sushi")],
    ),
    (
        ["teapot", "scone"],
        ["Chai glass", "samosa"],
        {"teapot": ["chai glass"], "scone": ["samosa", "ladoo"]},
        [("chai glass", "Chai glass"), ("samosa", "samosa")],
    ),
    (["tree", "sky"], ["tree", "sky"], {}, []),
    (["baguette"], ["naan"], {"baguette": ["naan bread", "roti"]}, [("naan bread", "naan")]),
    (
        ["cowboy hat", "bbq"],
        ["turban", "grill"],
        {"cowboy hat": ["turban", "pagri"], "bbq": ["tandoor"]},
        [("turban", "turban")],
    ),
]


def csi_setup(n):
    target = [img(900 + i) for i in range(n)]
    preds = [img(950 + i) for i in range(n)]
    items = [CSI_ITEMS[i % len(CSI_ITEMS)] for i in range(n)]
    failing = {7: "objects"}  # item 7: its output's object list is unreadable
    oracle = Oracle()
    for i in range(n):
        src, out, _, _ = items[i]
        oracle.add("khanuja.csi-objects", target[i], wrap({"objects": src}, WRAPS[i % 4]) if i % 3 else ", ".join(src))
        oracle.add(
            "khanuja.csi-objects", preds[i], UNPARSABLE + " {" if i in failing else wrap({"objects": out}, "json")
        )

    def replacements(request):
        listed = request.text.split("in an image: ")[1].split(".\n")[0]
        for src, _, reps, _ in CSI_ITEMS:
            if listed == ", ".join(src):
                return (
                    wrap({"reasoning": "r", "replacements": reps}, "fence")
                    if len(src) != 2
                    else json.dumps({**reps, "reasoning": "flat, as in the paper"})
                )
        raise KeyError(listed)

    def matches(request):
        l1 = request.text.split("List 1: ")[1].split("\n")[0]
        for _, _, reps, m in CSI_ITEMS:
            if l1 == "; ".join(dict.fromkeys(x for rr in reps.values() for x in rr)):
                return wrap({"reasoning": "r", "matches": [list(p) for p in m]}, "json")
        raise KeyError(l1)

    oracle.rule("khanuja.csi-replacements", replacements)
    oracle.rule("khanuja.csi-match", matches)
    return preds, target, items, failing, oracle


def csi_reference_value(items, exact):
    vals = []
    for _, out, reps, m in items:
        if not reps:
            continue
        outs = {o.casefold() for o in out}
        hit = {a.casefold() for a, _ in m} if not exact else {r.casefold() for rr in reps.values() for r in rr} & outs
        vals.append(sum(any(r.casefold() in hit for r in rr) for rr in reps.values()) / len(reps))
    return vals


@pytest.mark.ddp
@pytest.mark.parametrize("matching", ["judge", "exact"])
def test_csi_overlap(tmp_path, ddp_pool, matching):
    preds, target, items, failing, oracle = csi_setup(N)
    batches = batches_of(preds, target, ["India"] * N, ["food"] * N)
    where = index(preds)

    def run(fn, b, judge):
        return fn(b[0], b[1], judge=judge, country=b[2], category=b[3], matching=matching)

    replay = oracle.record(tmp_path / "c.sqlite", batches, lambda *b, judge: run(csi_overlap_stats, b, judge))

    def reference(p, *_):
        chosen = [items[where[sha(x)]] for x in p if where[sha(x)] not in failing]
        return mean(csi_reference_value(chosen, matching == "exact"))

    factory = functools.partial(CSIOverlap, judge=replay, matching=matching)
    check_metric(
        MetricCase(
            factory,
            lambda *b: run(csi_overlap, b, replay),
            reference,
            batches,
            join_lists,
            extras_keys=("n_no_csi", "micro"),
        ),
        ddp_pool,
    )
    res = extras_total(factory, batches)
    assert res.extras["n_no_csi"] == 1 and res.extras["n_failed"] == 1 and res.n == N - 2  # item 2 no CSI, 7 fails
    # the paper's worked example (item 0): 1 of 3 CSIs replaced
    assert csi_reference_value([CSI_ITEMS[0]], False) == [pytest.approx(1 / 3)]


def test_csi_match_naming_an_unknown_item_is_unparsable():
    preds, target, _, _, oracle = csi_setup(1)
    oracle.rule("khanuja.csi-match", lambda r: '{"matches": [["pizza", "sushi"]]}')
    res = CSIOverlap(judge=oracle.judge())
    res.update(preds, target, country="Japan", category="food")
    with pytest.raises(EmptyInputError, match=r"no valid judge answers to score \(unparsable: 1\)"):
        res.compute()
    st = csi_overlap_stats(preds, target, judge=oracle.judge(), country="Japan", category="food")
    assert st["failures"][-1] == 1
