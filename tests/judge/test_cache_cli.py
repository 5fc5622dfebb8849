"""``transcreval judge-cache stats|export|prune PATH``."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.judge.conftest import TEXT_TEMPLATE
from transcreval.cli import main
from transcreval.judge import FunctionJudge, JudgeCache
from transcreval.judge.templates import PromptTemplate

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
