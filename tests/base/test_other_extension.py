"""``utils.paths.other_extension``: the near miss a "missing image" note hints at."""

from __future__ import annotations

import os

from transcreval.utils.paths import other_extension


def test_the_first_file_by_name_with_the_stem_and_another_extension(tmp_path):
    (tmp_path / "12.webp").write_bytes(b"x")
    (tmp_path / "12.png").write_bytes(b"x")
    (tmp_path / "12.d").mkdir()  # a folder is no near miss
    (tmp_path / "120.jpg").write_bytes(b"x")
    assert other_extension(tmp_path / "12.jpg") == "12.png"
    assert other_extension(tmp_path / "13.jpg") is None
    assert other_extension(tmp_path / "12.png") is None  # it exists
    assert other_extension(tmp_path / "nowhere" / "12.jpg") is None


def test_a_file_added_later_is_seen(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"x")
    assert other_extension(tmp_path / "1.jpg") is None
    (tmp_path / "1.png").write_bytes(b"x")
    st = (tmp_path).stat()
    os.utime(tmp_path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a new folder time, however coarse the clock
    assert other_extension(tmp_path / "1.jpg") == "1.png"


def test_many_missing_files_list_their_folder_once(tmp_path, monkeypatch):
    for i in range(50):
        (tmp_path / f"{i}.png").write_bytes(b"x")
    calls = []
    real = os.listdir
    monkeypatch.setattr(os, "listdir", lambda p: calls.append(p) or real(p))
    assert [other_extension(tmp_path / f"{i}.jpg") for i in range(50)] == [f"{i}.png" for i in range(50)]
    assert len(calls) == 1
