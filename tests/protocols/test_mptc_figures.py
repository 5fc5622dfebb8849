"""MPTc-Bench's figures as numbers (Fig. 3, 4, 8, 9, 11), checked against counts made by hand."""

from __future__ import annotations

import dataclasses
import math

import pytest

from tests._helpers.mptc_set import image
from transcreval.errors import InputError
from transcreval.protocols import mptc
from transcreval.protocols.records import ItemRecord

# item id -> (pHash distance SRC-GT, source market, target market); distances are set by hand
PAIRS = {
    "a": (3, "USA", "Japan"),  # Anglo -> Confucian Asia: Western→Asian
    "b": (3, "Japan", "USA"),  # Asian→Western
    "c": (12, "USA", "France"),  # Anglo -> Latin Europe: Intra-Western; 12 is Surface (inclusive)
    "d": (13, "USA", "Brazil"),  # Anglo -> Latin America: Other; 13 is Intermediate
    "e": (30, "USA", "Japan"),  # 30 is Deep (inclusive)
    "f": (45, "KR", "Germany"),  # Confucian Asia -> Germanic Europe: Asian→Western
    "g": (50, "USA", "Atlantis"),  # a market outside the GLOBE mapping
    "h": (None, "USA", "Japan"),  # no pHash distance (an image that does not decode)
}


def _set():
    items = [
        {
            "item_id": k,
            "source": image(i),
            "gt": image(i + 1),
            "source_market": s,
            "target_market": t,
            "split": "surface",
        }
        for i, (k, (_, s, t)) in enumerate(PAIRS.items())
    ]
    data = mptc.load(items, split_by="field")
    return dataclasses.replace(
        data, phash={k: d for k, (d, _, _) in PAIRS.items()}, options={"surface_max": 12, "deep_min": 30}
    )


def _values(table, column):
    return {r: table.cells[(r, column)].value for r in table.rows if (r, column) in table.cells}


def test_fig3_counts_each_distance_in_its_band_and_counts_items_without_a_distance():
    t = mptc.fig3_phash_hist(_set())
    assert t.columns == ("Surface", "Intermediate", "Deep") and t.rows == tuple(range(65))
    nonzero = {(r, c): cell.value for (r, c), cell in t.cells.items() if cell.value}
    assert nonzero == {(3, "Surface"): 2, (12, "Surface"): 1, (13, "Intermediate"): 1, (30, "Deep"): 1,
                       (45, "Deep"): 1, (50, "Deep"): 1}  # fmt: skip
    # the thresholds sit in the table: each distance has a cell in its own band's column only
    assert [c for c in t.columns if (12, c) in t.cells] == ["Surface"]
    assert [c for c in t.columns if (29, c) in t.cells] == ["Intermediate"]
    assert [c for c in t.columns if (30, c) in t.cells] == ["Deep"]
    assert len(t.cells) == 65
    assert any("1 item(s) without a pHash distance" in n for n in t.notes)
    assert any("Surface <= 12, Deep >= 30" in n and "< 12 and > 30" in n for n in t.notes)


def test_fig8_counts_source_by_target_cluster_and_names_unmapped_markets():
    t = mptc.fig8_globe_transitions(_set())
    assert t.rows == ("Anglo", "Confucian Asia")
    assert t.columns == ("Anglo", "Latin Europe", "Germanic Europe", "Latin America", "Confucian Asia")
    assert _values(t, "Confucian Asia") == {"Anglo": 3, "Confucian Asia": 0}  # a, e, h
    assert _values(t, "Anglo") == {"Anglo": 0, "Confucian Asia": 1}  # b
    assert t.cell("Anglo", "Latin Europe").value == 1 and t.cell("Anglo", "Latin America").value == 1
    assert t.cell("Confucian Asia", "Germanic Europe").value == 1
    assert sum(c.value for c in t.cells.values()) == 7  # every item but g
    assert any("1 item(s) with a market outside the GLOBE mapping (Atlantis)" in n for n in t.notes)
    # clusters= places it
    t2 = mptc.fig8_globe_transitions(_set(), clusters={"Atlantis": "Nordic Europe"})
    assert t2.cell("Anglo", "Nordic Europe").value == 1 and not any("outside" in n for n in t2.notes)


def test_fig9_splits_the_histogram_by_direction():
    t = mptc.fig9_phash_by_direction(_set())
    assert t.columns == ("Intra-Western", "Western→Asian", "Asian→Western", "Other")
    nonzero = {(r, c): cell.value for (r, c), cell in t.cells.items() if cell.value}
    assert nonzero == {(3, "Western→Asian"): 1, (3, "Asian→Western"): 1, (12, "Intra-Western"): 1,
                       (13, "Other"): 1, (30, "Western→Asian"): 1, (45, "Asian→Western"): 1}  # fmt: skip
    assert any("outside the GLOBE mapping" in n for n in t.notes)
    assert any("1 item(s) without a pHash distance" in n for n in t.notes)


def test_set_figures_leaves_out_the_pHash_figures_when_no_item_has_a_distance():
    data = dataclasses.replace(_set(), phash=dict.fromkeys(PAIRS))
    assert set(mptc.set_figures(data)) == {"fig8_globe_transitions"}


def test_fig4_rate_and_n_per_target_market():
    def rec(i, market, v, status="ok"):
        meta = {"target_market": market} if market else {}
        return ItemRecord(i, "judge", "market_preference", v, status, meta=meta)

    recs = [
        rec("1", "Japan", 1.0),
        rec("2", "Japan", 1.0),
        rec("3", "Japan", 0.0),
        rec("4", "Japan", math.nan, "api_error"),
        rec("5", "France", 1.0),
        rec("6", "France", 0.5),  # a tie counts half
        rec("7", None, 1.0),  # no target market: counted in the notes, not placed
        ItemRecord("8", "judge", "win", 1.0, meta={"target_market": "Japan"}),  # another metric
    ]
    t = mptc.fig4_market_preference(recs)
    assert t.rows == ("Japan", "France", "Overall")
    assert t.cell("Japan", "Rate").value == pytest.approx(200 / 3)
    assert (t.cell("Japan", "n").value, t.cell("Japan", "n").n_missing) == (3, 1)
    assert t.cell("France", "Rate").value == pytest.approx(75.0) and t.cell("France", "n").value == 2
    assert t.cell("Overall", "Rate").value == pytest.approx(70.0) and t.cell("Overall", "n").value == 5
    assert any("1 judgment(s) without meta['target_market']" in n for n in t.notes)
    with pytest.raises(InputError, match="no 'market_preference' records"):
        mptc.fig4_market_preference(recs[-1:])


def test_fig11_box_numbers_per_band():
    bands = ["surface", "surface", "deep", "surface", "surface", "deep"]
    lpips = [0.1, 0.4, 0.7, 0.2, 0.3, math.nan]
    t = mptc.fig11_distributions({"lpips": lpips}, bands)
    s = ("LPIPS", "Surface")
    assert t.rows == (s, ("LPIPS", "Intermediate"), ("LPIPS", "Deep"))
    got = {c: t.cell(s, c).value for c in mptc.figures.FIG11_COLUMNS}
    want = {"n": 4, "min": 0.1, "q1": 0.175, "median": 0.25, "q3": 0.325, "max": 0.4, "mean": 0.25,
            "std": math.sqrt(0.05 / 3)}  # fmt: skip
    assert got == pytest.approx(want)
    d = ("LPIPS", "Deep")
    assert (t.cell(d, "n").value, t.cell(d, "n").n_missing, t.cell(d, "median").value) == (1, 1, 0.7)
    assert t.cell(d, "std").n == 0  # one value: no standard deviation
    assert ((("LPIPS", "Intermediate"), "median") not in t.cells) and t.cell(("LPIPS", "Intermediate"), "n").n == 0
    with pytest.raises(InputError, match="2 lpips distances but 6 bands"):
        mptc.fig11_distributions({"lpips": [0.1, 0.2]}, bands)
