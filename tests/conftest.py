from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("TRANSCREVAL_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def ddp_pool() -> Iterator[object]:
    """4 gloo processes on the CPU, shared by every world-size-invariance test."""
    from tests._helpers.ddp import DDPPool

    pool = DDPPool()
    try:
        yield pool
    finally:
        pool.close()
