"""Render a report's blocks (:mod:`transcreval.report.blocks`) as GitHub Markdown."""

from __future__ import annotations

from collections.abc import Sequence

from transcreval.report.blocks import Block, FigureBlock, GalleryBlock, Heading, Paragraph, TableBlock

__all__ = ["render"]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(block: TableBlock) -> list[str]:
    lines = [f"**{_cell(block.caption)}**", ""]
    lines.append("| " + " | ".join(_cell(h) for h in block.header) + " |")
    lines.append("|" + "---|" * len(block.header))
    for row in block.rows:
        lines.append("| " + " | ".join(_cell(c.text) for c in row) + " |")
    lines += [f"- {n}" for n in block.notes]
    return [*lines, ""]


def _gallery(block: GalleryBlock) -> list[str]:
    lines = [f"**{block.title}**", ""]
    for card in block.cards:
        lines.append(f"- `{card.item_id}`: " + "; ".join(card.lines))
    return [*lines, ""]


def render(blocks: Sequence[Block], figure_dir: str | None = None) -> str:
    """Markdown text; figures link to ``<figure_dir>/<key>.png`` or are left out without a directory."""
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            lines += ["#" * block.level + " " + block.text, ""]
        elif isinstance(block, Paragraph):
            lines += [block.text, ""]
        elif isinstance(block, TableBlock):
            lines += _table(block)
        elif isinstance(block, FigureBlock):
            if figure_dir is not None:
                lines += [f"![{block.alt or block.title}]({figure_dir.rstrip('/')}/{block.key}.png)", ""]
        elif isinstance(block, GalleryBlock):
            lines += _gallery(block)
    return "\n".join(lines).rstrip() + "\n"
