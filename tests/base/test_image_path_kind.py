"""``image_path_kind`` decides as the plain definition (stat every string) does, on every kind of
string and file a text input can meet; the faster existence probe changes nothing."""

from __future__ import annotations

import os

import pytest

from transcreval.core import common
from transcreval.core.common import IMAGE_SUFFIXES, image_path_kind

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def _plain(text: str) -> str | None:
    """The definition written out: isfile on every candidate string."""
    s = text.strip()
    if not s or len(s) > 4096 or "\n" in s:
        return None
    named = s.lower().endswith(IMAGE_SUFFIXES)
    try:
        exists = os.path.isfile(s)
    except (OSError, ValueError):
        exists = False
    if exists:
        with open(s, "rb") as f:
            head = f.read(12)
        if named or head.startswith(PNG[:8]):
            return "file"
    return "name" if named else None


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "poster.png").write_bytes(PNG)
    (tmp_path / "poster").write_bytes(PNG)  # image bytes, no extension
    (tmp_path / "notes").write_text("Le Voyage de Chihiro")  # a file, not an image
    (tmp_path / "dir.png").mkdir()  # a directory named like an image
    os.symlink(tmp_path / "poster.png", tmp_path / "link.jpg")
    os.symlink(tmp_path / "gone.png", tmp_path / "broken.png")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "inside.png").write_bytes(PNG)
    return tmp_path


TEXTS = [
    "poster.png", " poster.png ", "poster", "notes", "dir.png", "link.jpg", "broken.png", "missing.png",
    "Le Voyage de Chihiro", "", "   ", "a\nb.png", "nul\x00.png", "x" * 300 + ".png", "x" * 5000,
    "locked/inside.png", "POSTER.PNG", "千と千尋.jpg", "lone \udcff surrogate", "lone \ud800 surrogate",
]  # fmt: skip


@pytest.mark.parametrize("text", TEXTS)
def test_decides_as_the_plain_definition(files, text):
    assert image_path_kind(text) == _plain(text)


def test_absolute_paths_and_the_stat_fallback(files, monkeypatch):
    for text in (str(files / "poster"), str(files / "notes"), str(files / "dir.png"), str(files / "locked")):
        assert image_path_kind(text) == _plain(text)
    assert image_path_kind(str(files / "poster")) == "file"
    # where access() cannot check with the effective ids (as stat does), stat alone decides
    monkeypatch.setattr(common, "_ACCESS_AS_STAT", False)
    monkeypatch.setattr(os, "access", lambda *a, **k: pytest.fail("access() used without effective ids"))
    assert image_path_kind("poster") == "file"
    assert image_path_kind("missing.png") == "name"
