"""Fixtures for the judge tests: a loopback fake OpenAI-compatible server, small images."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from transcreval.engines.judge.fake_server import FakeOpenAIServer
from transcreval.engines.judge.templates import PromptTemplate

SECRET = "sk-test-SECRET-0123456789abcdef"

SCORE_TEMPLATE = PromptTemplate(
    id="test.score",
    version="1",
    images=("image",),
    user='{image:image}\nRate item {item} from 1 to 5.\nReply: {{"score": <integer 1-5>}}',
)
TEXT_TEMPLATE = PromptTemplate(id="test.text", version="1", user='Rate item {item}.\nReply: {{"score": <integer 1-5>}}')


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as s:
        yield s


@pytest.fixture
def cache_path(tmp_path: Path) -> Path:
    return tmp_path / "judge.sqlite"


def image(seed: int, size: tuple[int, int] = (8, 6)) -> np.ndarray:
    """A small deterministic RGB uint8 image (H x W x 3)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(size[1], size[0], 3), dtype=np.uint8)
