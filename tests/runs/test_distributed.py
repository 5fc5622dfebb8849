"""`evaluate` under several processes: items sharded by rank, per-item lines
written per rank and merged, results (the set-level statistic from stored features included)
equal to a one-process run exactly; 2 and 3 gloo processes (file rendezvous), and torchrun."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from tests._helpers.runner_toy import write_set
from transcreval import evaluate
from transcreval.cli import main

TOY = "tests._helpers.runner_toy:ADAPTER"
ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 300


def _slow_start(rank: int) -> None:
    """Widen the window between rank 0's first write into the run directory and another rank's
    first look at it (the race CI once hit under load: a rank found the lock file but no run.json
    and refused the folder as foreign)."""
    import time

    from transcreval.runs.store import RunDir

    if rank == 0:
        write_lock = RunDir.write_lock

        def slow_write_lock(self, lines):
            write_lock(self, lines)
            time.sleep(3.0)

        RunDir.write_lock = slow_write_lock
    else:
        check = RunDir.check_resumable

        def slow_check(self, protocol, version):
            time.sleep(1.5)
            return check(self, protocol, version)

        RunDir.check_resumable = slow_check


def _worker(rank: int, world: int, init_file: str, args: dict, errors) -> None:
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    try:
        if args.get("slow_start"):
            _slow_start(rank)
        import torch.distributed as dist

        dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
        evaluate(
            TOY, args["manifest"], args["systems"], args["out"], options={"counter": args["counter"]}, batch_size=3
        )
        dist.barrier()
        dist.destroy_process_group()
    except BaseException as e:  # report to the parent
        errors.put(f"rank {rank}: {type(e).__name__}: {e}")
        raise


def _spawn(world: int, args: dict, expect_errors: bool = False) -> list[str]:
    ctx = mp.get_context("spawn")
    errors = ctx.Queue()
    init = Path(tempfile.mkdtemp(prefix="transcreval-gloo-")) / "init"
    procs = [ctx.Process(target=_worker, args=(r, world, str(init), args, errors)) for r in range(world)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(TIMEOUT)
    for p in procs:
        if p.is_alive():
            p.kill()
    shutil.rmtree(init.parent, ignore_errors=True)
    problems = []
    while not errors.empty():
        problems.append(errors.get())
    if expect_errors:
        assert all(p.exitcode is not None for p in procs), "a rank hung"
        return problems
    assert not problems and all(p.exitcode == 0 for p in procs), (problems, [p.exitcode for p in procs])
    return problems


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    root = tmp_path_factory.mktemp("dist")
    d = write_set(root / "data", n=17)
    run = evaluate(TOY, d["manifest"], d["systems"], root / "one", options={"counter": str(root / "one.txt")})
    return d, root, json.loads(run.store.results.read_text())


@pytest.mark.parametrize(("world", "slow_start"), [(2, False), (3, False), (3, True)])
def test_sharded_run_equals_one_process_exactly(single, world, slow_start):
    d, root, one = single
    out, counter = root / f"w{world}{'-slow' * slow_start}", root / f"w{world}{'-slow' * slow_start}.txt"
    args = {
        "manifest": str(d["manifest"]),
        "systems": {k: str(v) for k, v in d["systems"].items()},
        "out": str(out),
        "counter": str(counter),
        "slow_start": slow_start,
    }
    _spawn(world, args)
    got = json.loads((out / "results.json").read_text())
    assert got["result"]["records"] == one["result"]["records"]
    assert got["result"]["tables"] == one["result"]["tables"]  # the set-level "spread" included, exactly
    assert got["counts"] == one["counts"]
    scored = Counter(counter.read_text().splitlines())
    assert set(scored.values()) == {1} and len(scored) == 17 * (2 * 2 + 3)  # every item once over all ranks
    assert not list(out.glob("items/*/*.rank*.jsonl"))  # merged into <unit>.jsonl
    lines = (out / "items" / "base" / "chrf.jsonl").read_text().splitlines()
    assert len(lines) == 17 and len({json.loads(x)["item"] for x in lines}) == 17


def test_every_rank_stops_when_rank_0_finds_the_directory_in_use(single):
    """Only rank 0 takes the run directory's lock; when another process holds it, every rank
    raises the same one-line error instead of waiting at a barrier forever."""
    from transcreval.runs.lock import run_lock

    d, root, _ = single
    out = root / "held"
    args = {
        "manifest": str(d["manifest"]),
        "systems": {k: str(v) for k, v in d["systems"].items()},
        "out": str(out),
        "counter": str(root / "held.txt"),
    }
    with run_lock(out, "test"):
        problems = _spawn(2, args, expect_errors=True)
    assert len(problems) == 2 and all("InputError" in p and f"pid {os.getpid()}" in p for p in problems), problems
    assert not (root / "held.txt").exists()  # nothing was scored


def test_torchrun_runs_the_cli_unchanged(single):
    d, root, one = single
    torchrun = shutil.which("torchrun") or str(Path(sys.executable).with_name("torchrun"))
    if not Path(torchrun).exists():
        pytest.skip("no torchrun next to this Python")
    out = root / "torchrun"
    cmd = [
        torchrun,
        "--standalone",
        "--nproc-per-node",
        "2",
        "-m",
        "transcreval",
        "evaluate",
        "-p",
        TOY,
        "-m",
        str(d["manifest"]),
        "-o",
        str(out),
        "--progress",
        "none",
        "--option",
        f"counter={root / 'tr.txt'}",
    ]
    for name, path in d["systems"].items():
        cmd += ["-s", f"{name}={path}"]
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-4000:]
    got = json.loads((out / "results.json").read_text())
    assert got["result"]["records"] == one["result"]["records"] and got["result"]["tables"] == one["result"]["tables"]
    assert done.stdout.count("**Toy table**") == 1  # rank 0 prints; the other rank is quiet
    assert main(["rescore", str(out), "--format", "json"]) == 0
