"""The OCR demo posters: typeset titles that the bundled fonts cover, drawn deterministically."""

from __future__ import annotations

import numpy as np

from transcreval.data.demo_ocr import build_ocr_demo_set, missing_glyphs, script_of
from transcreval.data.demo_set import build_demo_set


def test_every_demo_title_has_glyphs_in_the_bundled_fonts():
    titles = [t for p in build_demo_set() for t in (p.source_title, p.target_title, *p.output_titles.values())]
    assert missing_glyphs(titles) == {}
    assert missing_glyphs(["漢字"]) == {"漢字": ["漢", "字"]}  # the check does see a missing glyph


def test_scripts_are_told_apart():
    assert [script_of(t) for t in ("Amélie", "パラサイト", "أميلي", "आरआरआर", "半地下")] == [
        "latin", "cjk", "arabic", "devanagari", "cjk"
    ]  # fmt: skip


def test_ocr_demo_set_mirrors_the_demo_set_and_is_deterministic():
    a, b, base = build_ocr_demo_set(), build_ocr_demo_set(), build_demo_set()
    assert [p.poster_id for p in a] == [p.poster_id for p in base]
    for p, q, r in zip(a, b, base):
        assert (p.source_title, p.target_title, p.output_titles) == (r.source_title, r.target_title, r.output_titles)
        assert set(p.outputs) == set(r.outputs)
        for x, y in zip([p.source, p.target, *p.outputs.values()], [q.source, q.target, *q.outputs.values()]):
            assert x.size == (320, 480) and np.array_equal(np.asarray(x), np.asarray(y))
