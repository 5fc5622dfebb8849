"""`transcreval demo` evaluates the embedded set (MPTc protocol, two systems, a fake judge) and
writes a report; `demo --tour` prints the metric families; the numbers come from the metrics."""

from __future__ import annotations

import io
import subprocess
import sys
from statistics import mean

import imagehash
import pytest
from sacrebleu.metrics import CHRF

from transcreval.cli import main
from transcreval.data.demo_set import build_demo_set
from transcreval.demo import run_demo


def _tour(**kw) -> str:
    buf = io.StringIO()
    assert run_demo(buf, sections=("hash_and_titles",), tour=True, evaluate=False, **kw) == 0
    return buf.getvalue()


@pytest.fixture(scope="module")
def demo_text(tmp_path_factory, request):
    out = tmp_path_factory.mktemp("demo")
    mp = pytest.MonkeyPatch()
    mp.delenv("TRANSCREVAL_JUDGE_URL", raising=False)
    request.addfinalizer(mp.undo)
    buf = io.StringIO()
    assert run_demo(buf, out_dir=out, progress="none") == 0
    return buf.getvalue(), out


def test_demo_evaluates_the_embedded_set_and_writes_a_report(demo_text):
    text, out = demo_text
    assert "transcreval evaluate --protocol mptc" in text and "a FAKE judge on loopback" in text
    for needle in ("MPTc-Bench Table 3", "MPTc-Bench Table 4", "| text-edit |", "| redesign |", "| GT |"):
        assert needle in text
    run = out / "run"
    for name in ("run.json", "manifest.lock.jsonl", "results.json", "comparisons.json", "report.html", "report.md"):
        assert (run / name).is_file(), name
    assert (run / "items" / "text-edit" / "judge.jsonl").is_file() and (run / "items" / "GT" / "judge.jsonl").is_file()


def test_demo_title_column_is_sacrebleu_chrf_of_the_drawn_titles(demo_text):
    """The fake judge reads back the titles the demo drew; Table 4's Title is their chrF mean."""
    text, _ = demo_text
    posters = build_demo_set()
    chrf = CHRF()
    for system in ("text-edit", "redesign"):
        want = mean(chrf.sentence_score(p.output_titles[system], [p.target_title]).score for p in posters)
        row = next(line for line in text.splitlines() if line.startswith(f"| Surface / {system} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[3] == f"{want:.1f}", row


def test_demo_rerun_resumes_without_asking_the_judge_again(demo_text):
    _, out = demo_text
    before = (out / "run" / "items" / "redesign" / "judge.jsonl").read_text()
    buf = io.StringIO()
    assert run_demo(buf, out_dir=out, progress="none") == 0
    assert (out / "run" / "items" / "redesign" / "judge.jsonl").read_text() == before  # nothing appended


def test_demo_tour_prints_tables():
    text = _tour()
    for needle in ("pHash(src,out)", "TitleChrF", "surface", "deep", "PHashDistance|hs:8", "TitleChrF|nc:6"):
        assert needle in text


def test_demo_numbers_agree_with_references():
    posters = build_demo_set()
    lines = _tour().splitlines()
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
    text = _tour()
    for system in posters[0].outputs:
        wr = word_recall([p.output_titles[system] for p in posters], [p.target_title for p in posters]).value
        row = next(line for line in text.splitlines() if line.startswith(system + " "))
        assert row.rstrip().endswith(f"{wr:.2f}")


def test_demo_set_is_deterministic_and_banded():
    a, b = build_demo_set(), build_demo_set()
    assert [str(imagehash.phash(p.source)) for p in a] == [str(imagehash.phash(p.source)) for p in b]
    assert all(imagehash.phash(p.source) - imagehash.phash(p.outputs["text-edit"]) <= 12 for p in a)


def test_cli_entry_points(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRANSCREVAL_JUDGE_URL", raising=False)
    assert main(["demo"]) == 0
    assert (tmp_path / "transcreval-demo" / "run" / "report.html").is_file()  # the default demo folder
    assert main([]) == 2
    with pytest.raises(SystemExit):
        main(["--version"])
    out = subprocess.run(
        [sys.executable, "-m", "transcreval.cli", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("transcreval ")


def test_list_prints_the_registry_and_filters(capsys):
    from transcreval.core.registry import list_metrics

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
    """`transcreval list | head` printed a BrokenPipeError traceback."""
    p = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m transcreval list | true; echo status=${{PIPESTATUS[0]}} >&2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "Traceback" not in p.stderr and "BrokenPipeError" not in p.stderr
    assert "status=141" in p.stderr


def test_demo_without_a_usable_judge_says_so_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("TRANSCREVAL_JUDGE_URL", "http://127.0.0.1:9/v1")
    buf = io.StringIO()
    assert run_demo(buf, out_dir=tmp_path, progress="none") == 0
    text = buf.getvalue()
    assert "judge metrics skipped:" in text and "skipped: no metric of this protocol can run here" in text
