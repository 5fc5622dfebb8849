"""One-line errors, never tracebacks: each case the issue found, through the
CLI, with exit code 2 (bad input or a local file problem) and one line on stderr that names what
is wrong; nothing half-written left behind."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._helpers.runner_toy import write_set
from transcreval.cli import main

TOY = "tests._helpers.runner_toy:ADAPTER"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def toy(tmp_path):
    d = write_set(tmp_path / "data", n=6)
    d["out"] = tmp_path / "run"
    return d


def _evaluate(d, *extra, out=None, systems=None):
    args = ["evaluate", "-p", TOY, "-m", str(d["manifest"]), "-o", str(out or d["out"]), "--progress", "none"]
    for name, path in (systems or d["systems"]).items():
        args += ["-s", f"{name}={path}"]
    return [*args, *extra]


def _one_line(capsys, *needles):
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for n in needles:
        assert n in err, err
    return err


def _no_temp_files(root: Path):
    assert not [p for p in root.rglob("*") if ".tmp" in p.name], list(root.rglob("*"))


def test_out_is_a_file(toy, tmp_path, capsys):
    f = tmp_path / "a-file"
    f.write_text("x")
    assert main(_evaluate(toy, out=f)) == 2
    _one_line(capsys, str(f))
    assert main(_evaluate(toy, out=f / "run")) == 2
    _one_line(capsys, "run")


def test_out_is_read_only(toy, tmp_path, capsys, monkeypatch):
    """A folder this process cannot write in (simulated: the tests may run as root)."""
    import transcreval.weights.lock as lock

    def denied(path, *a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(lock, "file_lock", denied)
    assert main(_evaluate(toy)) == 2
    _one_line(capsys, "writable")


def test_a_system_name_too_long_for_a_folder(toy, capsys):
    name = "s" * 300
    assert main(_evaluate(toy, systems={name: toy["systems"]["base"]})) == 2
    _one_line(capsys, "too long")
    assert not toy["out"].exists()


def test_disk_full_while_appending_lines(toy, capsys, monkeypatch):
    import builtins

    real_open = builtins.open

    class Full:
        def __init__(self, f):
            self.f = f

        def write(self, data):
            self.f.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, k):
            return getattr(self.f, k)

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

    def opener(file, mode="r", *a, **k):
        f = real_open(file, mode, *a, **k)
        return Full(f) if "a" in mode and str(file).endswith(".jsonl") else f

    monkeypatch.setattr(builtins, "open", opener)
    assert main(_evaluate(toy)) == 2
    _one_line(capsys, "No space left on device")
    monkeypatch.setattr(builtins, "open", real_open)
    assert main(_evaluate(toy)) == 0  # the torn tail is cut, the run goes on
    capsys.readouterr()


@pytest.mark.parametrize("command", ["rescore", "report"])
def test_disk_full_while_writing_results_or_the_report(toy, capsys, monkeypatch, command):
    assert main(_evaluate(toy)) == 0
    capsys.readouterr()

    for name in ("write_text", "write_bytes"):
        real = getattr(Path, name)

        def full(self, data, *a, _real=real, **k):
            _real(self, data[: len(data) // 2], *a, **k)
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(Path, name, full)
    assert main([command, str(toy["out"])]) == 2
    _one_line(capsys, "No space left on device")
    _no_temp_files(toy["out"])


@pytest.mark.parametrize(
    ("damage", "needle"),
    [
        (b"[1, 2]\n", "chrf.jsonl, line 1"),
        (b'{"item": 5, "records": "no"}\n', "chrf.jsonl, line 1"),
        (b'"just a string"\n', "chrf.jsonl, line 1"),
        (b"\xff\xfe not utf-8\n", "chrf.jsonl"),
    ],
    ids=["list", "wrong-fields", "string", "not-utf8"],
)
def test_item_lines_of_the_wrong_shape(toy, capsys, damage, needle):
    assert main(_evaluate(toy)) == 0
    capsys.readouterr()
    p = toy["out"] / "items" / "base" / "chrf.jsonl"
    p.write_bytes(damage + p.read_bytes())
    assert main(["rescore", str(toy["out"])]) == 2
    _one_line(capsys, needle)
    assert main(_evaluate(toy)) == 2
    _one_line(capsys, needle)


def test_a_truncated_manifest_lock(toy, capsys):
    assert main(_evaluate(toy)) == 0
    capsys.readouterr()
    p = toy["out"] / "manifest.lock.jsonl"
    text = p.read_text()
    p.write_text(text[: len(text) // 2])
    assert main(["rescore", str(toy["out"])]) == 2
    _one_line(capsys, "manifest.lock.jsonl")


@pytest.mark.parametrize("content", ["[]", "{}", '{"baseline": 3}', "not json"])
def test_a_damaged_comparisons_file(toy, capsys, content):
    assert main(_evaluate(toy)) == 0
    capsys.readouterr()
    (toy["out"] / "comparisons.json").write_text(content)
    assert main(["report", str(toy["out"])]) == 2
    _one_line(capsys, "comparisons.json")


def test_a_system_folder_replaced_by_a_file(toy, capsys):
    assert main(_evaluate(toy)) == 0
    capsys.readouterr()
    d = toy["out"] / "items" / "base"
    for p in d.iterdir():
        p.unlink()
    d.rmdir()
    d.write_text("not a folder")
    assert main(["rescore", str(toy["out"])]) == 2
    _one_line(capsys, "base")
    assert main(_evaluate(toy)) == 2
    _one_line(capsys, "base")


def test_fresh_on_a_symlinked_out(toy, tmp_path, capsys):
    assert main(_evaluate(toy)) == 0
    link = tmp_path / "link"
    link.symlink_to(toy["out"], target_is_directory=True)
    capsys.readouterr()
    assert main(_evaluate(toy, "--fresh", out=link)) == 0
    assert link.is_symlink() and (toy["out"] / "results.json").is_file()
    assert "Traceback" not in capsys.readouterr().err


def test_a_closed_pipe_is_quiet(tmp_path):
    """`transcreval ls metrics | head -2`: the reader leaves after two lines."""
    import shlex
    import shutil

    if shutil.which("head") is None or shutil.which("sh") is None:
        pytest.skip("needs sh and head")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = f"{shlex.quote(sys.executable)} -m transcreval ls metrics | head -2"
    done = subprocess.run(["sh", "-c", cmd], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert len(done.stdout.splitlines()) == 2
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr[-2000:]


def test_report_of_a_folder_that_is_no_run_says_so(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope")]) == 2
    err = _one_line(capsys, "not a run directory")
    assert "rescore" not in err


def test_an_undecodable_source_image_is_counted_not_fatal_under_phash_splits(tmp_path):
    """MPTc splits by the pHash of SRC and GT: an item whose SRC does not decode is counted as
    undecodable_input, the others are scored."""
    from PIL import Image

    from transcreval import evaluate

    rows = []
    for i in range(3):
        Image.new("RGB", (32, 32), (40 * i, 0, 0)).save(tmp_path / f"s{i}.png")
        Image.new("RGB", (32, 32), (0, 40 * i, 0)).save(tmp_path / f"g{i}.png")
        Image.new("RGB", (32, 32), (0, 0, 40 * i)).save(tmp_path / f"o{i}.png")
        rows.append(
            {
                "id": f"i{i}",
                "source_image": f"s{i}.png",
                "reference_image": f"g{i}.png",
                "target_locale": "Japan",
                "meta": {"source_market": "USA", "genre": "drama"},
            }
        )
    (tmp_path / "s1.png").write_bytes(b"\x89PNG but broken")
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "o.jsonl").write_text(
        "".join(json.dumps({"id": f"i{i}", "image": f"o{i}.png"}) + "\n" for i in range(3))
    )

    def reply(request):
        return '{"title": "x"}'

    from transcreval.judge import FunctionJudge

    run = evaluate(
        "mptc",
        tmp_path / "m.jsonl",
        {"a": tmp_path / "o.jsonl"},
        tmp_path / "run",
        judge=FunctionJudge(reply),
        metrics=["judge"],
        options={"genre_labels": ["drama", "comedy", "horror", "action"]},
    )
    statuses = {r.status for r in run.results.records if r.item_id == "i1"}
    assert statuses == {"undecodable_input"}
