"""MPTc-Bench Table 8 (App. B.3) from human ratings: mptc.human_table, by hand, against
scikit-learn / scipy on the same numbers, and every bad ratings file."""

from __future__ import annotations

import csv
import itertools
import json
import math

import pytest
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score

from transcreval.errors import InputError
from transcreval.protocols import mptc
from transcreval.protocols.records import ItemRecord, ProtocolResult

SYS = "Gemini 3 + GPT-4.1"
FIELDS = ("item_id", "split", "system", "annotator", "aesthetic", "adaptation", "choice")


def _rows(spec):
    return [dict(zip(FIELDS, r)) for r in spec]


# item, split, annotator, aesthetic, adaptation, choice ("" = not given)
RATINGS = _rows(
    (i, s, SYS, a, aes, adp, ch)
    for i, s, a, aes, adp, ch in [
        ("s1", "surface", "A", 5, 4, "mtc"),
        ("s1", "surface", "B", 4, 4, "gt"),
        ("s1", "surface", "C", 5, 5, "MTc"),
        ("s2", "surface", "A", 3, 3, "gt"),
        ("s2", "surface", "B", 3, 2, "gt"),
        ("s2", "surface", "C", 4, 3, "tie"),
        ("s3", "surface", "A", 4, 5, "mtc"),
        ("s3", "surface", "B", 5, 5, "mtc"),
        ("s3", "surface", "C", 4, "", ""),
        ("d1", "Deep", "A", 3, 2, "gt"),
        ("d1", "Deep", "B", 3, 3, "gt"),
        ("d2", "Deep", "A", 3, 3, "mtc"),
        ("d2", "Deep", "B", 3, 3, "gt"),
    ]
)


def _judge():
    def rec(item, metric, value, split, status="ok"):
        v = value if status == "ok" else math.nan
        return ItemRecord(item, SYS, metric, v, status, item, {"split": split})

    records = [
        rec("s1", "aesthetic", 4, "surface"),
        rec("s2", "aesthetic", 3, "surface"),
        rec("s3", "aesthetic", 5, "surface"),
        rec("s1", "adaptation", 5, "surface"),
        rec("s2", "adaptation", 4, "surface"),
        rec("s3", "adaptation", math.nan, "surface", "unparsable"),
        rec("d1", "aesthetic", 4, "deep"),
        rec("d2", "aesthetic", 2, "deep"),
        rec("d1", "adaptation", 2, "deep"),
        rec("d2", "adaptation", 4, "deep"),
        rec("s1", "win", 1, "surface"),
    ]
    return ProtocolResult("mptc", tuple(records), {})


def test_table8_by_hand():
    t = mptc.human_table(RATINGS).tables["table8"]
    assert t.columns == ("Pairs", "Anno.", "Aesthetic", "Adaptation", "Win rate")
    surface, deep = (SYS, "Surface"), (SYS, "Deep")
    assert t.rows == (surface, deep)
    assert t.cell(surface, "Pairs").value == 3 and t.cell(surface, "Anno.").value == 9
    assert t.cell(surface, "Aesthetic").value == pytest.approx(37 / 9)
    # C gave s3 no adaptation score and no choice: 8 annotations each
    assert t.cell(surface, "Adaptation").value == pytest.approx(31 / 8)
    assert t.cell(surface, "Adaptation").n == 8 and t.cell(surface, "Adaptation").n_missing == 1
    assert t.cell(surface, "Win rate").value == pytest.approx(100 * 4.5 / 8)  # 4 mtc, 1 tie of 8
    assert t.cell(deep, "Pairs").value == 2 and t.cell(deep, "Anno.").value == 4
    assert t.cell(deep, "Aesthetic").value == 3.0
    assert t.cell(deep, "Adaptation").value == pytest.approx(11 / 4)
    assert t.cell(deep, "Win rate").value == pytest.approx(25.0)
    notes = "\n".join(t.notes)
    assert "1 annotation(s) without an adaptation score" in notes and "ratings[8]" in notes
    assert "without a choice" in notes


def test_inter_annotator_qwk_is_the_mean_over_annotator_pairs():
    t = mptc.human_table(RATINGS).tables["table8_agreement"]
    surface, deep = (SYS, "Surface"), (SYS, "Deep")
    # aesthetic: A (5,3,4), B (4,3,5), C (5,4,4); A-B by hand: sum W*O = 2/16, sum W*E = 1/4 -> 0.5
    a, b, c = [5, 3, 4], [4, 3, 5], [5, 4, 4]
    assert cohen_kappa_score(a, b, weights="quadratic", labels=[1, 2, 3, 4, 5]) == pytest.approx(0.5)
    ref = [cohen_kappa_score(x, y, weights="quadratic", labels=[1, 2, 3, 4, 5]) for x, y in ((a, b), (a, c), (b, c))]
    got = t.cell(surface, "QWK Aesthetic")
    assert got.value == pytest.approx(sum(ref) / 3) and got.n == 3
    # adaptation: C scored only s1, s2, so A-C and B-C are over those two items
    A, B, C = {"s1": 4, "s2": 3, "s3": 5}, {"s1": 4, "s2": 2, "s3": 5}, {"s1": 5, "s2": 3}
    pairs = [(A, B, ["s1", "s2", "s3"]), (A, C, ["s1", "s2"]), (B, C, ["s1", "s2"])]
    ref = [
        cohen_kappa_score([x[i] for i in ids], [y[i] for i in ids], weights="quadratic", labels=[1, 2, 3, 4, 5])
        for x, y, ids in pairs
    ]
    assert t.cell(surface, "QWK Adaptation").value == pytest.approx(sum(ref) / 3)
    # deep aesthetic: everyone says 3: undefined, named, never a number
    assert math.isnan(t.cell(deep, "QWK Aesthetic").value) and t.cell(deep, "QWK Aesthetic").n == 0
    assert any("aesthetic QWK of annotators 'A' and 'B' left out" in n for n in t.notes)
    assert t.cell(deep, "QWK Adaptation").value == pytest.approx(
        cohen_kappa_score([2, 3], [3, 3], weights="quadratic", labels=[1, 2, 3, 4, 5])
    )
    # no judge: no rho, and the notes say how to get it
    assert (surface, "ρ Aesthetic") not in t.cells
    assert any("pass judge=" in n for n in t.notes)


def test_rho_against_the_judge_by_hand_and_scipy():
    t = mptc.human_table(RATINGS, judge=_judge()).tables["table8_agreement"]
    surface, deep = (SYS, "Surface"), (SYS, "Deep")
    # human means (14/3, 10/3, 13/3) rank (3, 1, 2); judge (4, 3, 5) ranks (2, 1, 3): 1 - 6*2/24 = 0.5
    human, judge = [14 / 3, 10 / 3, 13 / 3], [4, 3, 5]
    assert spearmanr(human, judge).statistic == pytest.approx(0.5)
    assert t.cell(surface, "ρ Aesthetic").value == pytest.approx(0.5) and t.cell(surface, "ρ Aesthetic").n == 3
    # s3's judge adaptation is unparsable: left out and named
    rho = t.cell(surface, "ρ Adaptation")
    assert rho.value == pytest.approx(1.0) and rho.n == 2 and rho.n_missing == 1
    assert any("ρ adaptation leaves out 1 item(s)" in n and "s3 (unparsable)" in n for n in t.notes)
    # deep aesthetic: the humans give 3 throughout: undefined, with the reason
    assert math.isnan(t.cell(deep, "ρ Aesthetic").value)
    assert any("Deep: ρ aesthetic undefined" in n for n in t.notes)
    assert t.cell(deep, "ρ Adaptation").value == pytest.approx(spearmanr([2.5, 3.0], [2, 4]).statistic)
    # records work as the judge argument too
    again = mptc.human_table(RATINGS, judge=list(_judge().records)).tables["table8_agreement"]
    assert again.cell(surface, "ρ Aesthetic").value == pytest.approx(0.5)


def test_records_per_item():
    res = mptc.human_table(RATINGS)
    got = {(r.item_id, r.metric): r for r in res.records}
    assert got[("s1", "human_aesthetic")].value == pytest.approx(14 / 3)
    assert got[("s3", "human_adaptation")].value == 5.0 and got[("s3", "human_adaptation")].meta["annotations"] == 3
    assert got[("s2", "human_win")].value == pytest.approx(0.5 / 3)
    assert got[("d1", "human_win")].meta["split"] == "deep"
    assert len(res.records) == 5 * 3


def _write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)


def test_csv_and_jsonl_files_read_as_the_rows(tmp_path):
    _write_csv(tmp_path / "r.csv", RATINGS)
    jl = tmp_path / "r.jsonl"
    jl.write_text(
        "\n".join(json.dumps({k: (v if v != "" else None) for k, v in r.items()}) for r in RATINGS), encoding="utf-8"
    )
    want = mptc.human_table(RATINGS).tables["table8"].to_markdown()
    assert mptc.human_table(tmp_path / "r.csv").tables["table8"].to_markdown() == want.replace(
        "ratings[8]", f"{tmp_path / 'r.csv'}, line 10"
    )
    assert mptc.human_table(str(jl)).tables["table8"].cell((SYS, "Surface"), "Adaptation").value == pytest.approx(
        31 / 8
    )


def test_the_published_table8_is_reproduced_from_ratings_that_give_it():
    """Ratings built to hold the paper's totals print Table 8's published row (App. B.3)."""
    rows = []
    for split, pairs, aes_sum, adp_sum, wins in (("surface", 10, 130, 134, 18), ("deep", 16, 171, 175, 15)):
        n = 3 * pairs
        aes = [5] * (aes_sum - 4 * n) + [4] * (n - (aes_sum - 4 * n)) if aes_sum >= 4 * n else None
        aes = aes or [4] * (aes_sum - 3 * n) + [3] * (n - (aes_sum - 3 * n))
        adp = [5] * (adp_sum - 4 * n) + [4] * (n - (adp_sum - 4 * n)) if adp_sum >= 4 * n else None
        adp = adp or [4] * (adp_sum - 3 * n) + [3] * (n - (adp_sum - 3 * n))
        assert sum(aes) == aes_sum and sum(adp) == adp_sum
        for k, (p, ann) in enumerate(itertools.product(range(pairs), "ABC")):
            rows.append(
                dict(zip(FIELDS, (f"{split}{p}", split, SYS, ann, aes[k], adp[k], "mtc" if k < wins else "gt")))
            )
    md = mptc.human_table(rows).tables["table8"].to_markdown()
    assert f"| {SYS} / Surface | 10 | 30 | 4.33 | 4.47 | 60.0 |" in md
    assert f"| {SYS} / Deep | 16 | 48 | 3.56 | 3.65 | 31.2 |" in md


def _with(i, **change):
    rows = [dict(r) for r in RATINGS]
    rows[i].update(change)
    return rows


@pytest.mark.parametrize(
    ("ratings", "match"),
    [
        ([], "no rating rows"),
        ({"item_id": "x"}, "list of mappings"),
        (["x"], r"ratings\[0\]: a rating row is a mapping"),
        ([{k: v for k, v in RATINGS[0].items() if k != "annotator"}], r"ratings\[0\]: no annotator"),
        (_with(2, rater="C"), r"unknown field\(s\) 'rater'"),
        (_with(2, aesthetic=6), r"ratings\[2\]: 'aesthetic' must be a score of the scale \[1, 2, 3, 4, 5\]"),
        (_with(2, adaptation="good"), "'adaptation' must be a score"),
        (_with(2, aesthetic=4.5), "'aesthetic' must be a score"),
        (_with(2, choice="yes"), "'choice' must be 'mtc', 'gt' or 'tie'"),
        (_with(2, split="medium"), "'split' must be 'surface' or 'deep'"),
        (_with(2, item_id=""), "'item_id' must be a non-empty string"),
        (_with(2, annotator="A"), r"ratings\[2\]: annotator 'A' rated item 's1' .* again \(first at ratings\[0\]\)"),
        (_with(2, split="deep"), r"item 's1' of .* is 'deep' here but 'surface' at ratings\[0\]"),
        ("nowhere.csv", "no such ratings file"),
    ],
)
def test_bad_ratings_are_clear_errors(ratings, match):
    with pytest.raises(InputError, match=match):
        mptc.human_table(ratings)


def test_a_score_equal_to_a_scale_value_and_any_case_of_choice_are_accepted():
    """4.0 (a spreadsheet's export of 4) is the scale's 4; "MTC", " Gt " and "TIE" are choices."""
    rows = _with(0, aesthetic=5.0, adaptation="4.0", choice="MTC")
    rows[1].update(choice=" Gt ")
    rows[5].update(choice="TIE")
    t = mptc.human_table(rows).tables["table8"]
    assert t == mptc.human_table(RATINGS).tables["table8"]  # RATINGS[0] is 5, 4, "mtc"; [1] "gt"; [5] "tie"
    with pytest.raises(InputError, match=r"the scale \[1, 1.5, 2\]"):
        mptc.human_table(_with(0, aesthetic=3), scale=(1, 1.5, 2))


def test_bad_files_and_judges(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("item_id,split,system,annotator,aesthetic\ns1,surface,x,A,3\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 1 \(the header\): no adaptation, choice; the columns are item_id"):
        mptc.human_table(p)
    (tmp_path / "r.txt").write_text("", encoding="utf-8")
    with pytest.raises(InputError, match=r"\.csv or \.jsonl"):
        mptc.human_table(tmp_path / "r.txt")
    with pytest.raises(InputError, match="no 'aesthetic' or 'adaptation' records"):
        mptc.human_table(RATINGS, judge=[ItemRecord("s1", SYS, "win", 1.0)])
    other = [ItemRecord("s1", "Qwen Edit + Qwen3", "aesthetic", 3.0)]
    with pytest.raises(InputError, match=r"system 'Gemini 3 \+ GPT-4.1' has no judge records; .*Qwen Edit"):
        mptc.human_table(RATINGS, judge=other)
    wrong_split = [ItemRecord("s1", SYS, "aesthetic", 3.0, meta={"split": "deep"})]
    with pytest.raises(InputError, match="'surface' in the ratings but 'deep' in the judge records"):
        mptc.human_table(RATINGS, judge=wrong_split)
    with pytest.raises(InputError, match="ProtocolResult or a list of ItemRecords"):
        mptc.human_table(RATINGS, judge=3)


def test_the_catalog_lists_table8():
    from transcreval.protocols.catalog import get_protocol

    assert "Table 8" in get_protocol("mptc").tables
