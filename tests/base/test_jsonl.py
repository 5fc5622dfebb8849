"""transcreval.utils.jsonl: the one JSON Lines reader of manifests and outputs."""

from __future__ import annotations

import pytest

from transcreval.errors import InputError
from transcreval.utils.jsonl import read_jsonl_lines


def test_rows_keep_their_line_numbers_blank_lines_and_a_bom_skipped(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_bytes(b'\xef\xbb\xbf{"id": "a"}\n\n  \n[1, 2]\n"x"\n')
    assert read_jsonl_lines(p, "manifest") == [(1, {"id": "a"}), (4, [1, 2]), (5, "x")]
    p.write_text("")
    assert read_jsonl_lines(p, "manifest") == []


def test_errors_name_the_file_and_line(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"id": "a"}\n{oops\n')
    with pytest.raises(InputError, match=r"^m\.jsonl:2: not a JSON object \(Expecting"):
        read_jsonl_lines(p, "manifest")
    with pytest.raises(InputError, match=r"^row 2 of m: not a JSON object"):
        read_jsonl_lines(p, "manifest", where=lambda n: f"row {n} of m")
    with pytest.raises(InputError, match=r"cannot read the outputs of sys .*nowhere\.jsonl"):
        read_jsonl_lines(tmp_path / "nowhere.jsonl", "outputs of sys")
