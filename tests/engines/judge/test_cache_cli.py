"""``transcreval judge-cache stats|export|prune PATH``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.judge.conftest import TEXT_TEMPLATE
from transcreval.cli import main
from transcreval.engines.judge.templates import PromptTemplate
from transcreval.judge import FunctionJudge, JudgeCache

OTHER = PromptTemplate("test.other", "3", "Other {item}")


def fill(path):
    j = FunctionJudge(lambda r: '{"score": 2}', model="rule", cache=path)
    j.complete([TEXT_TEMPLATE.render(item=str(i)) for i in range(3)] + [OTHER.render(item="x")])
    j.close()


def test_stats(cache_path, capsys):
    fill(cache_path)
    assert main(["judge-cache", "stats", str(cache_path)]) == 0
    out = capsys.readouterr().out
    assert "4 answers" in out and "model function:rule: 4 answers" in out
    assert "template test.text@1: 3 answers" in out and "template test.other@3: 1 answers" in out
    assert main(["judge-cache", "stats", str(cache_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["answers"] == 4 and data["templates"] == {"test.other@3": 1, "test.text@1": 3}


def test_export(cache_path, tmp_path, capsys):
    fill(cache_path)
    out = tmp_path / "rows.jsonl"
    assert main(["judge-cache", "export", str(cache_path), "-o", str(out)]) == 0
    assert "exported 4 answers" in capsys.readouterr().out
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 4 and {r["text"] for r in rows} == {'{"score": 2}'}
    assert rows[0]["request"]["model"] == "rule" and rows[0]["key"] in JudgeCache(cache_path)
    assert main(["judge-cache", "export", str(cache_path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 4


def test_prune(cache_path, capsys):
    fill(cache_path)
    assert main(["judge-cache", "prune", str(cache_path), "--template", "test.text", "--dry-run"]) == 0
    assert "3 answers match" in capsys.readouterr().out and len(JudgeCache(cache_path)) == 4
    assert main(["judge-cache", "prune", str(cache_path), "--template", "test.text"]) == 0
    assert "deleted 3 answers; 1 left" in capsys.readouterr().out


def test_errors_are_one_line(tmp_path, capsys):
    assert main(["judge-cache", "stats", str(tmp_path / "missing.sqlite")]) == 1
    assert "no judge cache at" in capsys.readouterr().err
    fill(tmp_path / "c.sqlite")
    assert main(["judge-cache", "prune", str(tmp_path / "c.sqlite")]) == 1
    assert "at least one filter" in capsys.readouterr().err


def test_the_installed_command(cache_path):
    fill(cache_path)
    r = subprocess.run(
        [sys.executable, "-m", "transcreval.cli", "judge-cache", "stats", str(cache_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and "4 answers" in r.stdout


# ---------------------------------------------------------------------- review 11: files that are not caches
def other_database(path):
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.commit()
    conn.close()
    return path.read_bytes()


@pytest.mark.parametrize("command", [["stats"], ["export"], ["prune", "--older-than", "0"]])
def test_every_command_refuses_a_missing_foreign_or_corrupt_file_in_one_line(tmp_path, capsys, command):
    missing = tmp_path / "missing.sqlite"
    assert main(["judge-cache", command[0], str(missing), *command[1:]]) == 1
    assert "no judge cache at" in capsys.readouterr().err and not missing.exists()
    foreign = tmp_path / "app.sqlite"
    before = other_database(foreign)
    assert main(["judge-cache", command[0], str(foreign), *command[1:]]) == 1
    err = capsys.readouterr().err
    assert "not a transcreval judge cache" in err and len(err.strip().splitlines()) == 1
    assert foreign.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["app.sqlite"]
    corrupt = tmp_path / "corrupt.sqlite"
    j = FunctionJudge(lambda r: '{"score": 2}' + "x" * 3000, cache=corrupt)
    j.complete([TEXT_TEMPLATE.render(item=str(i)) for i in range(100)])
    j.close()
    data = bytearray(corrupt.read_bytes())
    data[8192:65536] = bytes(range(256)) * 224
    corrupt.write_bytes(bytes(data))
    assert main(["judge-cache", command[0], str(corrupt), *command[1:]]) == 1
    err = capsys.readouterr().err
    assert "not a usable judge cache" in err and len(err.strip().splitlines()) == 1


def test_stats_lists_the_recorded_setups(cache_path, capsys):
    fill(cache_path)
    assert main(["judge-cache", "stats", str(cache_path)]) == 0
    assert "recorded setup: backend='function', model='rule'" in capsys.readouterr().out
