"""`transcreval weights list | where | fetch | verify`."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from tests._helpers.http_files import serve
from transcreval.cli import main
from transcreval.weights import WeightsEntry, get_entry, register_weights, shipped_path, unregister_weights

BLOB = b"transcreval test weights " * 1000


@pytest.fixture
def env(monkeypatch, tmp_path):
    for var in ("TRANSCREVAL_WEIGHTS_DIR", "HF_HUB_OFFLINE", "http_proxy", "HTTP_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    return tmp_path


def test_list_shows_every_entry_and_where_it_is(env, capsys):
    assert main(["weights", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("torchvision-alexnet", "torchvision-vgg16", "torchvision-squeezenet1_1", "lpips-alex-lin-v0.1"):
        assert name in out
    row = next(line for line in out.splitlines() if line.startswith("lpips-vgg-lin-v0.1"))
    assert "package lpips" in row
    row = next(line for line in out.splitlines() if line.startswith("torchvision-alexnet "))
    assert row.rstrip().endswith("missing") and "244.4 MB" in row


def test_where_found_and_missing(env, capsys):
    assert main(["weights", "where", "lpips-squeeze-lin-v0.1"]) == 0
    out = capsys.readouterr().out
    assert str(shipped_path(get_entry("lpips-squeeze-lin-v0.1"))) in out and "(verified)" in out
    assert main(["weights", "where", "torchvision-squeezenet1_1"]) == 1
    out = capsys.readouterr().out
    assert "not found locally" in out and str(env / "cache" / "weights") in out
    assert "transcreval weights fetch torchvision-squeezenet1_1 --to DIR" in out
    assert main(["weights", "where", "no-such"]) == 1
    assert "no weights called 'no-such'" in capsys.readouterr().err


def test_fetch_copies_a_local_copy_then_verify_checks_it(env, capsys):
    dest = env / "offline-bundle"
    assert main(["weights", "fetch", "lpips-alex-lin-v0.1", "lpips-vgg-lin-v0.1", "--to", str(dest)]) == 0
    out = capsys.readouterr().out
    assert f"export TRANSCREVAL_WEIGHTS_DIR={dest}" in out
    for net in ("alex", "vgg"):
        entry = get_entry(f"lpips-{net}-lin-v0.1")
        assert hashlib.sha256((dest / entry.filename).read_bytes()).hexdigest() == entry.sha256
    assert main(["weights", "verify", str(dest)]) == 0
    out = capsys.readouterr().out
    assert "lpips-alex-lin-v0.1" in out and " ok " in out and "absent" in out  # the trunks are not there
    bad = dest / get_entry("lpips-vgg-lin-v0.1").filename
    data = bytearray(bad.read_bytes())
    data[-1] ^= 1
    bad.write_bytes(bytes(data))
    assert main(["weights", "verify", str(dest)]) == 1
    out = capsys.readouterr().out
    assert "BAD" in out and "sha256" in out and "1 bad file(s)" in out


def test_fetch_downloads_and_reports_failures(env, capsys):
    digest = hashlib.sha256(BLOB).hexdigest()
    try:
        with serve({"/w.bin": BLOB}) as srv:
            register_weights(
                WeightsEntry(
                    name="cli-blob",
                    filename="cli-blob.bin",
                    sha256=digest,
                    size=len(BLOB),
                    urls=(srv.url("/w.bin"),),
                    licence="test",
                )
            )
            # offline mode (the env fixture sets TRANSCREVAL_OFFLINE=1) forbids the download...
            assert main(["weights", "fetch", "cli-blob"]) == 1
            err = capsys.readouterr().err
            assert "TRANSCREVAL_OFFLINE=1" in err and "--ignore-offline" in err and srv.hits["/w.bin"] == 0
            # ... unless the command says otherwise
            assert main(["weights", "fetch", "cli-blob", "--ignore-offline"]) == 0
            assert (env / "cache" / "weights" / "cli-blob.bin").read_bytes() == BLOB
            assert main(["weights", "fetch", "cli-blob", "--to", str(env / "x")]) == 0  # copied, not downloaded
            assert srv.hits["/w.bin"] == 1
            register_weights(
                WeightsEntry(
                    name="cli-blob",
                    filename="cli-blob2.bin",
                    sha256=digest,
                    size=len(BLOB),
                    urls=(srv.url("/gone.bin"),),
                    licence="test",
                ),
                overwrite=True,
            )
            assert main(["weights", "fetch", "cli-blob", "--to", str(env / "y"), "--ignore-offline"]) == 1
            assert "HTTP Error 404" in capsys.readouterr().err
    finally:
        unregister_weights("cli-blob")


def test_verify_without_a_directory_checks_every_search_place(env, monkeypatch, capsys):
    wdir = env / "w"
    wdir.mkdir()
    entry = get_entry("lpips-squeeze-lin-v0.1")
    (wdir / entry.filename).write_bytes(b"not the file")
    monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(wdir))
    assert main(["weights", "verify"]) == 1
    out = capsys.readouterr().out
    assert "package lpips" not in out  # paths are printed, not source labels
    assert str(shipped_path(entry)) in out and "size 12 bytes" in out


def test_the_command_runs_as_a_program(env):
    out = subprocess.run(
        [sys.executable, "-m", "transcreval.cli", "weights", "where", "lpips-alex-lin-v0.1"],
        capture_output=True,
        text=True,
        env={**os.environ},
        check=True,
    ).stdout
    assert "lpips" in out and "verified" in out


def test_every_command_in_the_offline_page_parses(capsys):
    import re
    import shlex
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "offline.md").read_text(encoding="utf-8")
    commands = [m.split("#")[0].strip() for m in re.findall(r"^(transcreval weights .+)$", page, flags=re.M)]
    assert len(commands) >= 6
    for cmd in commands:
        with pytest.raises(SystemExit) as info:
            main([*shlex.split(cmd)[1:], "--help"])
        assert info.value.code == 0, cmd
    capsys.readouterr()


def test_fetch_into_a_place_that_cannot_be_written_is_one_line(env, monkeypatch, capsys):
    a_file = env / "a-file"
    a_file.write_text("x")
    for to in (a_file, a_file / "sub"):  # an existing file; a directory below a file
        assert main(["weights", "fetch", "lpips-alex-lin-v0.1", "--to", str(to)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error: cannot write lpips-alex-lin-v0.1 into")
        assert str(a_file) in err and "--to" in err

    import shutil

    def read_only(src, dst, *a, **k):
        raise PermissionError(13, "Permission denied", str(dst))

    monkeypatch.setattr(shutil, "copyfile", read_only)  # as on a read-only mount (root ignores chmod)
    assert main(["weights", "fetch", "lpips-alex-lin-v0.1", "--to", str(env / "ro")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Permission denied" in err and str(env / "ro") in err


def test_verify_fails_on_a_missing_or_empty_directory_and_splits_on_pathsep(env, capsys):
    assert main(["weights", "verify", str(env / "nowhere")]) == 1
    assert f"{env / 'nowhere'} does not exist" in capsys.readouterr().err
    (env / "empty").mkdir()
    assert main(["weights", "verify", str(env / "empty")]) == 1
    assert "no manifest file in" in capsys.readouterr().out
    assert main(["weights", "fetch", "lpips-alex-lin-v0.1", "--to", str(env / "b")]) == 0
    capsys.readouterr()
    both = os.pathsep.join([str(env / "empty"), str(env / "b")])  # TRANSCREVAL_WEIGHTS_DIR's form
    assert main(["weights", "verify", both]) == 0
    out = capsys.readouterr().out
    assert f"{env / 'b' / get_entry('lpips-alex-lin-v0.1').filename} (" in out and " ok " in out
    assert main(["weights", "verify", os.pathsep.join([str(env / "b"), str(env / "nowhere")])]) == 1
    assert "does not exist" in capsys.readouterr().err
