"""Render a report's blocks (:mod:`transcreval.report.blocks`) as GitHub Markdown.

Every piece of text is data, never markup (:mod:`transcreval.report.text`): names, group values
and ids are escaped as the HTML page escapes them, item ids sit in code spans that any backtick
fits in, and invisible or reordering characters are shown as ``⟨U+XXXX⟩`` marks.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from transcreval.report.blocks import Block, FigureBlock, GalleryBlock, Heading, Paragraph, TableBlock
from transcreval.report.text import md_block, md_code, md_inline, visible

__all__ = ["render"]


def _table(block: TableBlock) -> list[str]:
    lines = [f"**{md_inline(block.caption)}**", ""]
    lines.append("| " + " | ".join(md_inline(h) for h in block.header) + " |")
    lines.append("|" + "---|" * len(block.header))
    for row in block.rows:
        lines.append("| " + " | ".join(md_inline(c.text) for c in row) + " |")
    lines += [f"- {md_block(n)}" for n in block.notes]
    if block.folded:  # an HTML block: its summary is HTML text, the table inside stays Markdown
        summary = f"{html.escape(visible(block.caption))} ({len(block.rows)} rows)"
        lines = [f"<details><summary>{summary}</summary>", "", *lines, "", "</details>"]
    return [*lines, ""]


def _gallery(block: GalleryBlock) -> list[str]:
    lines = [f"**{md_inline(block.title)}**", ""]
    for card in block.cards:
        lines.append(f"- {md_code(card.item_id)}: " + "; ".join(md_inline(x) for x in card.lines))
    return [*lines, ""]


def render(blocks: Sequence[Block], figure_dir: str | None = None) -> str:
    """Markdown text; figures link to ``<figure_dir>/<key>.png`` or are left out without a directory."""
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            lines += ["#" * block.level + " " + md_inline(block.text), ""]
        elif isinstance(block, Paragraph):
            lines += [md_block(block.text), ""]
        elif isinstance(block, TableBlock):
            lines += _table(block)
        elif isinstance(block, FigureBlock):
            if figure_dir is not None:
                alt = md_inline(block.alt or block.title)
                lines += [f"![{alt}]({figure_dir.rstrip('/')}/{block.key}.png)", ""]
        elif isinstance(block, GalleryBlock):
            lines += _gallery(block)
    return "\n".join(lines).rstrip() + "\n"
