"""benchmarks/table.py: each row is checked against its own goal, memory growth and scale series
are rendered, and a partial run (``-``) prints the table without touching the README."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

TABLE = Path(__file__).resolve().parents[2] / "benchmarks" / "table.py"


@pytest.fixture(scope="module")
def table() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_table", TABLE)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _row(workload: str, ratio: float, **extra: object) -> dict[str, object]:
    row: dict[str, object] = {
        "workload": workload,
        "load": "quiet",
        "peer_s": 0.2,
        "ours_s": 0.1,
        "ratio": ratio,
        "ratio_q1": ratio,
        "ratio_q3": ratio,
        "peak_rss_bytes": 300 * 2**20,
    }
    row.update(extra)
    return row


def test_each_row_is_checked_against_its_own_goal(table):
    items = [
        _row("old row, no goal", 0.97),  # rows written before goals: 1x
        _row("decode-only bound", 0.80, goal=1 / 1.3),  # within 1.3x of decode-only: passes
        _row("decode-only bound, missed", 0.70, goal=1 / 1.3),
        _row("peer", 1.0, goal=1.0),  # exactly at the goal passes
    ]
    assert table.regressions(items) == [
        "old row, no goal [quiet]: 0.97x, goal >= 1.00x",
        "decode-only bound, missed [quiet]: 0.70x, goal >= 0.77x",
    ]


def test_render_shows_goal_flag_and_memory_growth(table):
    text = table.render(
        [_row("a", 0.8, goal=0.75, rss_start_bytes=250 * 2**20), _row("b", 0.9)], {"datetime": "2026-11-24T00:00"}
    )
    lines = text.splitlines()
    assert "| a | quiet | 100.0 ms | 200.0 ms | 0.80x (0.80x-0.80x) | >= 0.75x | 300 MiB (+50) |" in lines
    assert "| b | quiet | 100.0 ms | 200.0 ms | 0.90x (0.90x-0.90x) **below goal** | >= 1.00x | 300 MiB |" in lines
    assert "Scale" not in text  # no series, no summary


def test_scale_summary_cost_per_item_and_growth(table):
    items = [
        _row("s 4k", 1.5, ours_s=0.48, series="pHash scale", items=4000, rss_start_bytes=290 * 2**20),
        _row("s 1k", 1.5, ours_s=0.10, series="pHash scale", items=1000, rss_start_bytes=300 * 2**20),
        _row("other", 1.5),
    ]
    assert table.scale_summary(items) == [
        "- pHash scale [quiet], ours per 1,000 items (growth, memory growth): "
        "1,000: 100.0 ms (1.00x, +0 MiB); 4,000: 120.0 ms (1.20x, +10 MiB)"
    ]
    assert "Scale (the same workload at growing item counts):" in table.render(items, {})


def _report(path: Path, *items: dict[str, object]) -> Path:
    path.write_text(json.dumps({"benchmarks": [{"extra_info": r} for r in items]}))
    return path


def test_main_writes_the_readme_and_fails_below_goal(table, tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(f"# B\n\n{table.START}\nold\n{table.END}\n\nprose stays\n")
    ok = _report(tmp_path / "ok.json", _row("bound", 0.8, goal=0.75))
    assert table.main([str(ok), str(readme)]) == 0
    text = readme.read_text()
    assert "old" not in text and "| bound |" in text and text.endswith("prose stays\n")
    bad = _report(tmp_path / "bad.json", _row("bound", 0.7, goal=0.75))
    assert table.main([str(bad), str(readme)]) == 1
    assert "bound [quiet]: 0.70x, goal >= 0.75x" in capsys.readouterr().err


def test_main_dash_prints_and_leaves_the_readme(table, tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(f"# B\n\n{table.START}\nold\n{table.END}\n")
    before = readme.read_text()
    report = _report(tmp_path / "part.json", _row("partial", 1.2))
    assert table.main([str(report), "-"]) == 0
    assert "| partial |" in capsys.readouterr().out
    assert readme.read_text() == before


def test_a_subset_of_timed_only_rows_prints_a_note_but_a_full_report_without_rows_fails(table, tmp_path, capsys):
    # `make bench BENCH_K=feature_cache` selects a timed-only row: not an error; a full report
    # with no paired workload means the suite did not run them, and fails
    empty = tmp_path / "timed.json"
    empty.write_text(json.dumps({"benchmarks": [{"extra_info": {"no cache": {"seconds": 1.0}}}]}))
    assert table.main([str(empty), "-"]) == 0
    assert table.main([str(empty), str(tmp_path / "README.md")]) == 2
    assert "no paired workloads" in capsys.readouterr().err
