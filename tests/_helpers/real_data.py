"""The papers' authors' own files (../shared/data beside the checkout, or TRANSCREVAL_DATA_DIR).

Tests marked ``realdata`` read them through :func:`data_dir`. Where the folder is missing they
skip with the reason; ``TRANSCREVAL_REQUIRE_DATA=1`` (set by ``.ci/run``) makes a missing folder
a failure instead, so CI never passes by skipping them. The files are never copied into the
project: neither source carries a licence that allows redistributing them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def data_dir(*parts: str) -> Path:
    """The data folder (or a path inside it); skips the test, or fails it under
    ``TRANSCREVAL_REQUIRE_DATA=1``, when that path is missing."""
    base = Path(os.environ.get("TRANSCREVAL_DATA_DIR") or ROOT.parent / "shared" / "data")
    path = base.joinpath(*parts)
    if not path.exists():
        why = (
            f"the papers' data is not at {path} (set TRANSCREVAL_DATA_DIR to the folder holding "
            "posteriq/ and khanuja/, or place shared/data beside the checkout)"
        )
        if os.environ.get("TRANSCREVAL_REQUIRE_DATA") == "1":
            pytest.fail(f"TRANSCREVAL_REQUIRE_DATA=1 but {why}", pytrace=False)
        pytest.skip(why)
    return path
