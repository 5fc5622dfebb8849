"""One-call entry points: the report as Markdown, as HTML, or written to a directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from transcreval.report.build import build_report
from transcreval.utils.files import replacing

__all__ = ["render_html", "render_markdown", "write_report"]


def render_markdown(results: Any, comparisons: Any = None, **options: Any) -> str:
    """The report as Markdown text without figures (no matplotlib needed); options as
    :func:`~transcreval.report.build_report`."""
    options.setdefault("plots", False)
    return build_report(results, comparisons, **options).to_markdown()


def render_html(results: Any, comparisons: Any = None, **options: Any) -> str:
    """The report as one self-contained HTML page; options as :func:`~transcreval.report.build_report`."""
    return build_report(results, comparisons, **options).to_html()


def write_report(
    out_dir: str | os.PathLike[str], results: Any, comparisons: Any = None, **options: Any
) -> dict[str, Path]:
    """Write ``report.md``, ``report.html`` and ``figures/<key>.png`` under ``out_dir``.

    Returns the paths written: ``{"markdown": ..., "html": ..., "figures": [...]}``-style keys
    (``"figure:<key>"`` for each figure). Files are written whole and renamed into place.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report = build_report(results, comparisons, **options)
    paths: dict[str, Path] = {}
    if report.figures:
        (out / "figures").mkdir(exist_ok=True)
    for fig in report.figures:
        paths[f"figure:{fig.key}"] = _write(out / "figures" / f"{fig.key}.png", fig.png)
    paths["markdown"] = _write(out / "report.md", report.to_markdown("figures").encode("utf-8"))
    paths["html"] = _write(out / "report.html", report.to_html().encode("utf-8"))
    return paths


def _write(path: Path, data: bytes) -> Path:
    with replacing(path) as tmp:  # whole or not at all (a full disk leaves no temporary file)
        tmp.write_bytes(data)
    return path
