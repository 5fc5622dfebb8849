"""``validate`` runs every check ``evaluate`` will.

Each case was passed by ``validate`` and then failed by ``evaluate`` (some with a traceback):
now ``validate`` reports it, with the options ``evaluate`` takes (``--option``, ``--limit``,
``--metrics``, ``--judge``, ``--device``), and ``evaluate`` refuses it before it writes
anything, with the same message.
"""

from __future__ import annotations

import json

import pytest

from transcreval.cli import main
from transcreval.demo.run_set import write_demo_set


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return write_demo_set(tmp_path_factory.mktemp("demo-set"))


JUDGE = json.dumps({"model": "m", "base_url": "http://127.0.0.1:9/v1", "max_retries": 0})


def _both(demo, tmp_path, capsys, manifest=None, extra=()):
    """(validate's errors, evaluate's exit code and stderr) for the same inputs and options."""
    m, systems = demo
    base = ["-p", "mptc", "-m", str(manifest or m), "-s", f"redesign={systems['redesign']}", *extra]
    rc = main(["validate", *base, "--format", "json"])
    rep = json.loads(capsys.readouterr().out)
    assert rc == 2 and not rep["ok"]
    rc = main(["evaluate", *base, "-o", str(tmp_path / "run"), "--progress", "none"])
    err = capsys.readouterr().err
    assert not (tmp_path / "run").exists()  # refused before anything was written
    return rep["errors"], rc, err


def test_too_few_genres_for_the_quiz_after_limit(demo, tmp_path, capsys):
    errors, rc, err = _both(demo, tmp_path, capsys, extra=["--limit", "2", "--judge", JUDGE, "--metrics", "judge"])
    assert any("n_options=4 needs more" in e for e in errors), errors
    assert rc == 2 and "n_options=4 needs more" in err


def test_a_missing_genre(demo, tmp_path, capsys):
    m, _ = demo
    rows = [json.loads(x) for x in m.read_text().splitlines()]
    del rows[0]["meta"]["genre"]
    bad = tmp_path / "m.jsonl"
    for r in rows:  # paths relative to the demo folder
        for k in ("source_image", "reference_image"):
            r[k] = str(m.parent / r[k])
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    errors, rc, err = _both(demo, tmp_path, capsys, manifest=bad, extra=["--judge", JUDGE])
    assert any("'genre'" in e for e in errors), errors
    assert rc == 2 and "'genre'" in err
    # without a judge the judge metric does not run: the same finding is a warning
    rc = main(["validate", "-p", "mptc", "-m", str(bad), "--format", "json"])
    rep = json.loads(capsys.readouterr().out)
    assert any("'genre'" in w and "judge" in w for w in rep["warnings"]), rep


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--device", "banana"], "banana"),
        (["--option", "n_options=banana"], "n_options"),
        (["--option", "n_options=1"], "n_options"),
        (["--option", "split_by=[1]"], "split_by"),
    ],
)
def test_bad_devices_and_option_values_are_errors_at_the_start(demo, tmp_path, capsys, option, message):
    errors, rc, err = _both(demo, tmp_path, capsys, extra=["--judge", JUDGE, *option])
    assert any(message in e for e in errors), errors
    assert rc == 2 and message in err and len(err.strip().splitlines()) == 1


def test_cuda_without_a_gpu_is_an_error_at_the_start(demo, tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    errors, rc, err = _both(demo, tmp_path, capsys, extra=["--judge", JUDGE, "--device", "cuda"])
    assert any("CUDA" in e for e in errors) and rc == 2 and "CUDA" in err
