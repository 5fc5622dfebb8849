"""Per-item records as a DataFrame and as CSV / Parquet files joinable by item id."""

from __future__ import annotations

import json
import math

import pytest

from tests._helpers.synthetic_results import demo_result
from transcreval.errors import InputError
from transcreval.integrations.tables import BASE_COLUMNS, export_items, items_frame, items_wide, read_items
from transcreval.protocols.records import ItemRecord, ProtocolResult

pd = pytest.importorskip("pandas", reason="the per-item tables need the 'export' extra (pandas)")


@pytest.fixture(scope="module")
def res():
    return demo_result()


def test_one_row_per_item_system_metric(res):
    frame = items_frame(res)
    assert list(frame.columns[: len(BASE_COLUMNS)]) == list(BASE_COLUMNS)
    assert {"meta.split", "meta.scenario", "meta.language"} <= set(frame.columns)
    assert len(frame) == len(res.records)
    for r, row in zip(res.records, frame.to_dict("records")):
        assert [row[k] for k in ("item_id", "system", "metric", "status")] == [r.item_id, r.system, r.metric, r.status]
        assert (math.isnan(row["value"]) and math.isnan(r.value)) or row["value"] == r.value
        assert row["group"] == r.group and row["meta.split"] == r.meta["split"]
    assert frame["value"].dtype == "float64"


def test_wide_view_joins_by_item_id(res):
    wide = items_wide(res)
    assert wide.index.name == "item_id" and len(wide) == 24
    assert list(wide.columns) == [f"{s}/{m}" for s in ("base", "sysA", "sysB") for m in ("score", "judge")]
    r = next(r for r in res.records if (r.item_id, r.system, r.metric) == ("item05", "sysA", "judge"))
    assert wide.loc["item05", "sysA/judge"] == r.value
    assert math.isnan(wide.loc["item03", "sysB/judge"])  # a failed item: NaN, row kept
    other = demo_result(protocol="other")
    both = items_wide([res, other])
    assert both.index.names == ["protocol", "item_id"] and len(both) == 48


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_round_trip_and_join(res, tmp_path, suffix):
    if suffix == "parquet":
        pytest.importorskip("pyarrow")
    extra = ItemRecord("NA", "base", "score", 1.5, group="007", meta={"split": "deep", "year": 1999})
    odd = ProtocolResult("demo", (*res.records, extra), {})
    path = export_items(odd, tmp_path / f"items.{suffix}")
    back = read_items(path)
    assert len(back) == len(odd.records)
    for a, b in zip(odd.records, back):
        assert (a.item_id, a.system, a.metric, a.status, a.group) == (b.item_id, b.system, b.metric, b.status, b.group)
        assert (math.isnan(a.value) and math.isnan(b.value)) or a.value == pytest.approx(b.value, rel=1e-15)
        assert dict(a.meta) == dict(b.meta)
    assert back[-1].item_id == "NA" and back[-1].group == "007" and back[-1].meta["year"] == 1999
    # joinable by item id with a table from elsewhere (a manifest, human ratings)
    ratings = pd.DataFrame({"item_id": ["item01", "item02"], "human": [4, 2]})
    read = pd.read_csv(path, dtype={"item_id": str}) if suffix == "csv" else pd.read_parquet(path)
    joined = read[read["system"] == "sysA"].merge(ratings, on="item_id")
    assert sorted(joined["item_id"].unique()) == ["item01", "item02"] and len(joined) == 4


def test_wide_export(res, tmp_path):
    path = export_items(res, tmp_path / "wide.csv", wide=True)
    frame = pd.read_csv(path, dtype={"item_id": str})
    assert frame.columns[0] == "item_id" and len(frame) == 24 and "sysB/judge" in frame.columns


def test_list_meta_is_json_text(tmp_path):
    recs = (ItemRecord("a", "s", "m", 1.0, meta={"chrf_stats": [1, 2, 3]}),)
    frame = items_frame(ProtocolResult("p", recs, {}))
    assert json.loads(frame.loc[0, "meta.chrf_stats"]) == [1, 2, 3]


def test_bad_input(res, tmp_path):
    with pytest.raises(InputError, match=r"\.csv or \.parquet"):
        export_items(res, tmp_path / "items.xlsx")
    with pytest.raises(InputError, match="ProtocolResult"):
        items_frame([])
    wide = export_items(res, tmp_path / "w.csv", wide=True)
    with pytest.raises(InputError, match="not a long-form per-item table"):
        read_items(wide)
    dup = ProtocolResult("p", (res.records[0], res.records[0]), {})
    with pytest.raises(InputError, match="two records"):
        items_wide(dup)
