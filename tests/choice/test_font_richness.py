"""FontRichness (transcreval.choice.font_richness): PosterIQ's font-attribute coverage in both modes
(hand-worked), the per-attribute coverage, the harness.
"""

from __future__ import annotations

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import (
    FontRichness,
)
from transcreval.errors import InputError
from transcreval.functional import (
    font_richness,
)

CODE = "posteriq-code"


def test_font_richness():
    vocab = ["serif", "sans-serif", "italic", "bold"]
    desc = ["A bold sans-serif title", "serif italic"]
    # paper: whole words -> {sans-serif, bold}, {serif, italic}: 4 / (2 * 4)
    assert font_richness(desc, vocabulary=vocab).value == 0.5
    # code: substrings -> "serif" also inside "sans-serif": 5 / 8
    assert font_richness(desc, vocabulary=vocab, mode=CODE).value == 0.625
    assert font_richness([["bold"], ["bold", "italic", "unknown"]], vocabulary=vocab).value == pytest.approx(3 / 8)
    m = FontRichness(vocab)
    m.update(desc)
    assert m.compute().extras["coverage"] == {"serif": 0.5, "sans-serif": 0.5, "italic": 0.5, "bold": 0.5}
    with pytest.raises(InputError):
        font_richness(desc, vocabulary=["bold", "bold"])


def test_code_mode_matches_attributes_in_any_case_as_substrings():
    """PosterIQ's gen_metric.py lowers both the attribute and the reply before its substring test:
    "Thin" and "SERIF" count, and so does "thin" inside "nothing" (hand-worked)."""
    vocab = ["thin", "serif", "bold"]
    # reply 1: "Thin" -> thin; "SERIF" -> serif; reply 2: "nothing" holds "thin": 3 hits / (2 * 3)
    assert font_richness(['["Thin", "SERIF"]', "nothing"], vocabulary=vocab, mode=CODE).value == pytest.approx(0.5)
    # paper mode: whole words, any case: "Thin" and "SERIF" only
    assert font_richness(['["Thin", "SERIF"]', "nothing"], vocabulary=vocab).value == pytest.approx(2 / 6)


@pytest.mark.ddp
def test_font_richness_class_harness(ddp_pool):
    vocab = ["serif", "bold", "italic"]
    fb = [([["serif"], ["bold", "serif"]],), ([["italic"], []],), ([["bold"]],)]

    def ref_rich(sets):
        return sum(sum(a in s for s in sets) / len(sets) for a in vocab) / len(vocab)

    check_metric(
        MetricCase(
            partial(FontRichness, vocabulary=vocab),
            lambda s: font_richness(s, vocabulary=vocab),
            ref_rich,
            fb,
            join_lists,
            atol=1e-12,
            exact_value=True,
        ),
        ddp_pool,
    )
