"""Items in the shape of PosterIQ's own files (``{model}_bench.json``), made by the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def bench_item(task: str, path: str, gt: Any, response: Any = "", **fields: Any) -> dict[str, Any]:
    """One item as PosterIQ's runner writes it; ``response=None`` leaves the field out (the
    runner's calls failed)."""
    out = {"task": task, "subtask": "", "name": path.rsplit("/", 1)[-1], "path": path, "prompt": "...", "gt": gt}
    out.update(fields)
    if response is not None:
        out["response"] = response
    return out


def write_bench(path: Path, items: list[dict[str, Any]]) -> Path:
    """``items`` as a result file at ``path``."""
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path
