"""``khanuja.meta_evaluate``: Table 3 for any metric's scores, on small files written here.

The expected tables are computed by the test's own code (scipy's kendalltau per image, the
paper's skips, the mean per country, then over countries); ``khanuja_table3`` must give the same
tables from the same per-item values (one path); bad input is one clear InputError.
"""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
import scipy.stats

from tests.protocols.test_khanuja_ratings import HUMAN_HEAD, write
from transcreval.errors import InputError
from transcreval.protocols.khanuja import COLUMNS, meta_evaluate, read_human_ratings

SYSTEMS = ("a", "b", "c")
IMAGES = {
    "india": ["japan_food_miso-soup", "japan_bird_crane", "brazil_food_feijoada", "nigeria_music_talking-drum"],
    "japan": ["india_food_samosa", "india_bird_peacock", "brazil_music_samba"],
}
PREFIX = {"cult-rel": "culture", "sem-eq": "sem_eq", "vis-sim": "visual_change"}


def dataset(tmp_path):
    """A ratings folder (systems shuffled per row) and {(country, image, column): {system: rating}}."""
    rng = np.random.default_rng(11)
    human = {}
    for country, keys in IMAGES.items():
        hum, lab = [], []
        for n, key in enumerate(keys):
            order = SYSTEMS[n % 3 :] + SYSTEMS[: n % 3]
            src, rest = key.split("_", 1)
            lab.append(f"https://host/part1/{src}/{rest}.jpg,{','.join(order)}")
            r = {col: {s: int(rng.integers(1, 6)) for s in SYSTEMS} for col in COLUMNS}
            if (country, n) == ("india", 1):
                r["sem-eq"] = dict.fromkeys(SYSTEMS, 4)  # the humans tie: tau undefined
            if (country, n) == ("japan", 0):
                r["cult-rel"]["b"] = math.nan  # a blank rating: b leaves that image
            cells = {f"{PREFIX[col]}{k + 2}": r[col][s] for col in COLUMNS for k, s in enumerate(order)}
            vals = [cells.get(h, 1) for h in HUMAN_HEAD.split(",")]  # culture1 (the source): 1
            hum.append(",".join("" if v != v else str(v) for v in vals))
            for col in COLUMNS:
                human[(country, key, col)] = r[col]
        write(tmp_path / "ratings" / country, human=hum, labels=lab)
    return tmp_path / "ratings", human


def scores_for(human, seed=5):
    """Two metrics' rows; one missing value, one metric tie."""
    rng = np.random.default_rng(seed)
    rows = []
    for country, image, col in human:
        for label in ("m1", "m2"):
            for s in SYSTEMS:
                rows.append({"country": country, "image": image, "system": s, "row": label, "column": col,
                             "value": float(rng.normal())})  # fmt: skip
    rows[0]["value"] = None  # india / miso-soup, cult-rel, m1: no value -> skipped
    for r in rows:
        if (r["country"], r["image"], r["row"], r["column"]) == ("japan", "brazil_music_samba", "m2", "vis-sim"):
            r["value"] = 0.5  # a metric tie
    return rows


def reference(rows, human, label, column, *, country=None, category=None, average="countries"):
    per = {}
    for r in rows:
        chosen = country in (None, r["country"]) and category in (None, r["image"].split("_")[1])
        if (r["row"], r["column"]) == (label, column) and chosen:
            per.setdefault((r["country"], r["image"]), {})[r["system"]] = r["value"]
    taus, skipped = {}, 0
    for (c, image), vals in per.items():
        h = human[(c, image, column)]
        keep = [s for s in vals if not math.isnan(h[s])]
        m = [math.nan if vals[s] is None else vals[s] for s in keep]
        if len(keep) < 2 or any(math.isnan(x) for x in m) or len(set(m)) == 1:
            skipped += 1
            continue
        tau = scipy.stats.kendalltau(m, [h[s] for s in keep]).statistic
        if math.isnan(tau):
            skipped += 1
        else:
            taus.setdefault(c, []).append(tau)
    flat = [t for ts in taus.values() for t in ts]
    if not flat:
        return math.nan, 0, skipped
    value = np.mean([np.mean(t) for t in taus.values()]) if average == "countries" else np.mean(flat)
    return value, len(flat), skipped


@pytest.mark.parametrize("average", ["countries", "segments"])
def test_tables_equal_scipy_per_country_on_average_and_by_category(tmp_path, average):
    root, human = dataset(tmp_path)
    rows = scores_for(human)
    res = meta_evaluate(rows, root, average=average)
    assert set(res.tables) == {"table3", "table3_india", "table3_japan", "table3_by_category"}
    cats = sorted({k.split("_")[1] for keys in IMAGES.values() for k in keys})
    assert res.tables["table3"].rows == ("m1", "m2")
    assert res.tables["table3_by_category"].rows == tuple((m, c) for m in ("m1", "m2") for c in cats)
    for label in ("m1", "m2"):
        for col in COLUMNS:
            checks = [("table3", (label,), {}), *((f"table3_{c}", (label,), {"country": c}) for c in IMAGES)]
            checks += [("table3_by_category", (label, cat), {"category": cat}) for cat in cats]
            for table, row, kw in checks:
                want, n, skipped = reference(rows, human, label, col, average=average, **kw)
                cell = res.tables[table].cell(row[0] if len(row) == 1 else row, col)
                assert (cell.n, cell.n_missing) == (n, skipped), (table, row, col)
                assert cell.value == pytest.approx(want, abs=1e-12) if n else math.isnan(cell.value)
    # the scripted skips happened
    assert res.tables["table3_india"].cell("m1", "cult-rel").n_missing == 1  # the missing value
    assert res.tables["table3_india"].cell("m1", "sem-eq").n_missing == 1  # the human tie
    assert res.tables["table3_japan"].cell("m2", "vis-sim").n_missing == 1  # the metric tie
    # records: every score and the human ratings, joinable by item
    assert len(res.select(metric="m1[cult-rel]")) == 21 and len(res.select(metric="human_culture")) == 21
    assert res.select(metric="m1[cult-rel]", status="missing")[0].item_id == "india/japan_food_miso-soup"
    blank = [r for r in res.select(metric="human_culture", system="b") if r.item_id == "japan/india_food_samosa"]
    assert blank[0].status == "missing" and blank[0].meta["category"] == "food"
    json.dumps(res.to_dict())


def test_the_same_tables_from_a_mapping_csv_jsonl_and_a_dataframe(tmp_path):
    root, human = dataset(tmp_path)
    rows = scores_for(human)
    base = meta_evaluate(rows, read_human_ratings(root), bootstrap=50, seed=2)
    p_csv, p_jsonl = tmp_path / "s.csv", tmp_path / "s.jsonl"
    with open(p_csv, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["country", "image", "system", "row", "column", "value"])
        w.writeheader()
        w.writerows({**r, "value": "" if r["value"] is None else repr(r["value"])} for r in rows)
    p_jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    pd = pytest.importorskip("pandas")
    for given in (p_csv, str(p_jsonl), pd.DataFrame(rows)):
        got = meta_evaluate(given, root, bootstrap=50, seed=2)
        assert {k: t.to_dict() for k, t in got.tables.items()} == {k: t.to_dict() for k, t in base.tables.items()}
    cell = base.tables["table3"].cell("m1", "vis-sim")
    assert cell.ci is not None and cell.ci[0] <= cell.value <= cell.ci[1]


def write_csv(tmp_path, header, *lines):
    p = tmp_path / "bad.csv"
    p.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    return p


HEAD = "country,image,system,row,column,value"
OK = "india,japan_food_miso-soup,a,m1,cult-rel,0.5"


@pytest.mark.parametrize(
    "lines, message",
    [
        (
            ["country,image,system,metric,column,value", OK],
            r"bad\.csv, line 1 \(the header\): no row; unknown field\(s\) 'metric'",
        ),
        ([HEAD + ",extra", OK + ",1"], r"unknown field\(s\) 'extra'"),
        (
            [HEAD, "india,japan_food_miso-soup,a,m1,cultural,0.5"],
            r"line 2: column 'cultural' is not one of cult-rel, sem-eq, vis-sim",
        ),
        (
            [HEAD, OK, "india,japan_food_crane,a,m1,cult-rel,0.5", OK.replace("0.5", "0.7")],
            r"line 4: a second score for system 'a' on india/japan_food_miso-soup, row 'm1', column 'cult-rel' "
            r"\(first at .*line 2\)",
        ),
        (
            [HEAD, "india,japan_food_miso-soup,zz,m1,cult-rel,0.5"],
            r"line 2: system 'zz' is not rated on india/japan_food_miso-soup \(rated: a, b, c\)",
        ),
        (
            [HEAD, "india,japan_food_ramen,a,m1,cult-rel,0.5"],
            r"line 2: .*human_eval\.csv has no rating for image 'japan_food_ramen'.*unrated='skip'",
        ),
        (
            [HEAD, "india,japan_food_miso-soup,a,m1,cult-rel,high"],
            r"line 2: 'value' must be a number \(empty for no value\), got 'high'",
        ),
        ([HEAD, "india,japan_food_miso-soup,a,m1,cult-rel,inf"], r"line 2: 'value' is infinite"),
        ([HEAD, "india,japan_food_miso-soup,a,,cult-rel,1"], r"line 2: 'row' must be a non-empty string"),
        ([HEAD, "india,japan_food_miso-soup,a,m1,cult-rel"], r"line 2: 5 cells, but the header has 6"),
        ([HEAD], "scores: no score rows"),
        ([HEAD, "brazil,japan_food_miso-soup,a,m1,cult-rel,1"], r"human ratings for 'brazil': .*does not exist"),
    ],
)
def test_bad_scores_files_are_one_clear_error(tmp_path, lines, message):
    root, _ = dataset(tmp_path)
    with pytest.raises(InputError, match=message):
        meta_evaluate(write_csv(tmp_path, *lines), root)


def test_bad_scores_and_options_from_python(tmp_path):
    root, human = dataset(tmp_path)
    ratings = read_human_ratings(root)
    row = {
        "country": "india",
        "image": "japan_food_miso-soup",
        "system": "a",
        "row": "m1",
        "column": "vis-sim",
        "value": 1.0,
    }
    for given, message in [
        ([{**row, "value": True}], r"scores\[0\]: 'value' must be a number, got True"),
        ([row, {k: v for k, v in row.items() if k != "column"}], r"scores\[1\]: no column; a score row has exactly"),
        ([row, ["india"]], r"scores\[1\]: a score row is a mapping"),
        ([{**row, "country": 3}], r"'country' must be a non-empty string, got 3"),
        ([{**row, "country": "japan"}], "no rating for image 'japan_food_miso-soup'"),
        ([{**row, "country": "turkey"}], r"no human ratings for country 'turkey' \(rated: india, japan\)"),
        (row, "give a list of mappings"),
        (tmp_path / "scores.txt", "no such scores file"),
        ([], "no score rows"),
    ]:
        with pytest.raises(InputError, match=message):
            meta_evaluate(given, ratings)
    (tmp_path / "s.tsv").write_text(HEAD)
    with pytest.raises(InputError, match=r"as a \.csv or \.jsonl file"):
        meta_evaluate(tmp_path / "s.tsv", ratings)
    for kw, message in [
        ({"average": "images"}, "average"),
        ({"unrated": "drop"}, "unrated"),
        ({"bootstrap": -1}, "bootstrap"),
    ]:
        with pytest.raises(InputError, match=message):
            meta_evaluate([row], ratings, **kw)
    # unrated images left out on request, and said so
    extra = {**row, "image": "japan_food_ramen"}
    rows = [*scores_for(human), extra]
    res = meta_evaluate(rows, ratings, unrated="skip")
    assert "1 score rows on 1 images the humans did not rate were left out" in res.tables["table3"].notes[-1]
    assert res.tables["table3"].to_dict() != {} and res.options["unrated_rows_left_out"] == 1
    with pytest.raises(InputError, match="none of the 1 score rows is on an image the humans rated"):
        meta_evaluate([extra], ratings, unrated="skip")


def test_khanuja_table3_takes_the_same_path(tmp_path):
    """khanuja_table3's per-item values, given to meta_evaluate as scores, give its very tables."""
    from tests.protocols.test_khanuja import synthetic, vlm_judge, write_ratings
    from transcreval.protocols.khanuja import khanuja_table3

    items, plan, human = synthetic()
    root = write_ratings(tmp_path / "r", human, plan)
    res = khanuja_table3(items, root, vlm_judges={"GPT-4o": vlm_judge("GPT-4o", plan)}, embedding=False,
                         bootstrap=40, seed=1)  # fmt: skip
    metric = {"cult-rel": "vlm_cultural[GPT-4o]", "sem-eq": "vlm_intent[GPT-4o]", "vis-sim": "vlm_creativity[GPT-4o]"}
    rows = [
        {
            **{k: r.meta[k] for k in ("country", "image")},
            "system": r.system,
            "row": "GPT-4o",
            "column": col,
            "value": r.value,
        }
        for col, m in metric.items()
        for r in res.select(metric=m)
    ]
    got = meta_evaluate(rows, root, bootstrap=40, seed=1)
    for key in ("table3", "table3_india", "table3_japan", "table3_by_category"):
        ours, theirs = got.tables[key], res.tables[key]
        assert len(ours.cells) == len(theirs.cells) > 0
        for (row, col), cell in theirs.cells.items():
            mine = ours.cells[(("GPT-4o", *row[2:]) if len(row) > 2 else "GPT-4o", col)]
            assert (mine.n, mine.n_missing, mine.ci) == (cell.n, cell.n_missing, cell.ci), (key, row, col)
            assert mine.value == cell.value or (math.isnan(mine.value) and math.isnan(cell.value))
