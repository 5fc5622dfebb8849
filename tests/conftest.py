from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import settings

os.environ.setdefault("TRANSCREVAL_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

# Every temporary file of a test session (random-init model files of ~100 MB, caches, images),
# in this process and in the processes it spawns (they inherit TMPDIR), goes under one folder
# that is removed when the session ends: a run used to leave ~0.6 GB in /tmp, and repeated runs
# filled the disk. pytest's own tmp_path folders stay where pytest keeps (and rotates) them.
os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
if "TRANSCREVAL_TEST_TMP_OWNER" not in os.environ:
    os.environ["TRANSCREVAL_TEST_TMP_OWNER"] = str(os.getpid())
    os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="transcreval-tests-")
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again


def pytest_unconfigure(config: pytest.Config) -> None:
    if os.environ.get("TRANSCREVAL_TEST_TMP_OWNER") != str(os.getpid()):
        return
    root = os.environ["TMPDIR"]
    for entry in os.scandir(root):
        if not entry.name.startswith("pymp-"):  # multiprocessing removes its own folders at exit
            if entry.is_dir():
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
    # the (then empty) folder itself stays: multiprocessing's exit handler still needs it


# Property tests draw their examples from a fixed seed by default, so a run is repeatable and
# `make test` cannot fail on one run and pass on the next. HYPOTHESIS_PROFILE=explore draws
# fresh random examples (use it when hunting for new counterexamples, then pin what it finds).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def ddp_pool() -> Iterator[object]:
    """4 gloo processes on the CPU, shared by every world-size-invariance test."""
    from tests._helpers.ddp import DDPPool

    pool = DDPPool()
    try:
        yield pool
    finally:
        pool.close()
