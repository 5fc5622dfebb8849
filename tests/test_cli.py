"""`transcreval demo` prints the demo tables; the numbers come from the metrics themselves."""

from __future__ import annotations

import io
import subprocess
import sys

import imagehash
import pytest
from sacrebleu.metrics import CHRF

from transcreval.cli import main
from transcreval.data.demo_set import build_demo_set
from transcreval.demo import run_demo


def test_demo_prints_tables():
    buf = io.StringIO()
    assert run_demo(buf) == 0
    text = buf.getvalue()
    for needle in ("pHash(src,out)", "TitleChrF", "surface", "deep", "PHashDistance|hs:8", "TitleChrF|nc:6"):
        assert needle in text


def test_demo_numbers_agree_with_references():
    posters = build_demo_set()
    buf = io.StringIO()
    run_demo(buf)
    lines = buf.getvalue().splitlines()
    chrf = CHRF()
    for p in posters:
        for system, img in p.outputs.items():
            d = imagehash.phash(p.source) - imagehash.phash(img)
            score = chrf.sentence_score(p.output_titles[system], [p.target_title]).score
            row = next(line for line in lines if line.startswith(p.poster_id) and f" {system} " in line)
            assert f" {d} " in row and row.rstrip().endswith(f"{score:.2f}")


def test_demo_word_recall_column_agrees_with_the_function():
    from transcreval.functional import word_recall

    posters = build_demo_set()
    buf = io.StringIO()
    run_demo(buf)
    for system in posters[0].outputs:
        wr = word_recall([p.output_titles[system] for p in posters], [p.target_title for p in posters])
        row = next(line for line in buf.getvalue().splitlines() if line.startswith(system + " "))
        assert row.rstrip().endswith(f"{wr:.2f}")


def test_demo_set_is_deterministic_and_banded():
    a, b = build_demo_set(), build_demo_set()
    assert [str(imagehash.phash(p.source)) for p in a] == [str(imagehash.phash(p.source)) for p in b]
    assert all(imagehash.phash(p.source) - imagehash.phash(p.outputs["text-edit"]) <= 12 for p in a)


def test_cli_entry_points():
    assert main(["demo"]) == 0
    assert main([]) == 2
    with pytest.raises(SystemExit):
        main(["--version"])
    out = subprocess.run(
        [sys.executable, "-m", "transcreval.cli", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("transcreval ")


def test_list_prints_the_registry_and_filters(capsys):
    from transcreval.registry import list_metrics

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for m in list_metrics():
        assert m.name in out and m.functional in out
    assert main(["list", "--paper", "khanuja"]) == 0
    out = capsys.readouterr().out
    assert "SegmentKendallTau" in out and "TitleChrF" not in out
    assert main(["list", "--name", "*ChrF", "--domain", "text"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines()[2:] if line.strip()]
    assert sorted(line.split()[0] for line in lines) == ["PlanChrF", "TitleChrF"]
    assert main(["list", "--domain", "nowhere"]) == 2
    assert main(["list", "--name", "NoSuchMetric"]) == 1
    out = subprocess.run([sys.executable, "-m", "transcreval", "list"], capture_output=True, text=True, check=True)
    assert "PHashDistance" in out.stdout


def test_a_reader_that_closes_the_pipe_early_gets_no_traceback():
    """Issue 15 item 24: `transcreval list | head` printed a BrokenPipeError traceback."""
    p = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m transcreval list | true; echo status=${{PIPESTATUS[0]}} >&2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "Traceback" not in p.stderr and "BrokenPipeError" not in p.stderr
    assert "status=141" in p.stderr
