"""Render a report's blocks (:mod:`transcreval.report.blocks`) as one self-contained HTML page.

No server and no network: styles are inline, figures and thumbnails are PNG data URIs, and a
Content-Security-Policy (:data:`CSP`) forbids loading anything else and runs only the page's own
style and script, named by their SHA-256 (no ``'unsafe-inline'``: a script that got into the page
some other way does not run). The script checks, once the page has loaded, that every picture
decoded: it outlines a broken one in red, marks each figure ``data-rendered="yes"`` or ``"no"``,
and writes the counts to ``<body data-images-ok=N data-images-failed=M data-report-ready="yes">``
(what the headless browser test reads). All text is escaped after
:func:`~transcreval.report.text.visible` has marked invisible and reordering characters.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from html import escape as _escape

from transcreval.report.blocks import Block, Card, FigureBlock, GalleryBlock, Heading, Paragraph, TableBlock
from transcreval.report.text import visible

__all__ = ["CSP", "render"]

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1200px;
       padding: 0 1rem; color: #1d1d1f; background: #ffffff; }
h1 { border-bottom: 2px solid #1f4e9c; padding-bottom: .3rem; }
table { border-collapse: collapse; margin: .5rem 0 1.5rem; font-size: .9rem; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
th, td { border: 1px solid #d0d0d7; padding: .25rem .6rem; text-align: right; }
th { background: #eef1f8; } td:first-child, td:nth-child(2) { text-align: left; }
td.better { color: #106b21; font-weight: 600; } td.worse { color: #a8071a; font-weight: 600; }
td.missing { background: #fff5e6; }
figure { margin: 1rem 0 2rem; } figure img { max-width: 100%; border: 1px solid #e3e3e8; }
figcaption { font-size: .9rem; color: #555; }
.gallery { display: flex; flex-wrap: wrap; gap: .8rem; margin-bottom: 2rem; }
.card { border: 1px solid #d0d0d7; border-radius: 6px; padding: .5rem; background: #fafafc; }
.card .id { font-family: monospace; font-weight: 600; } .card p { margin: .2rem 0; font-size: .85rem; }
.thumbs { display: flex; gap: .4rem; } .thumb { text-align: center; font-size: .75rem; color: #555; }
.thumb img { display: block; max-height: 160px; border: 1px solid #ccc; }
.placeholder { width: 120px; height: 90px; display: flex; align-items: center; justify-content: center;
               background: #f0f0f0; border: 1px dashed #aaa; font-size: .7rem; padding: .2rem; overflow: hidden; }
.broken { outline: 3px solid #a8071a; }
details.fold { margin: .5rem 0 1.5rem; } details.fold summary { cursor: pointer; font-weight: 600; }
"""

_SCRIPT = """
window.addEventListener('load', function () {
  var ok = 0, failed = 0;
  Array.prototype.forEach.call(document.images, function (img) {
    if (img.complete && img.naturalWidth > 0) { ok += 1; } else { failed += 1; img.classList.add('broken'); }
  });
  Array.prototype.forEach.call(document.querySelectorAll('figure[data-figure]'), function (fig) {
    var img = fig.querySelector('img');
    fig.setAttribute('data-rendered', img && img.complete && img.naturalWidth > 0 ? 'yes' : 'no');
  });
  document.body.setAttribute('data-images-ok', String(ok));
  document.body.setAttribute('data-images-failed', String(failed));
  document.body.setAttribute('data-report-ready', 'yes');
});
"""


def _sha256(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"


#: the page's Content-Security-Policy: nothing loads but data: images, and only the page's own
#: style and script (by hash) apply
CSP = f"default-src 'none'; img-src data:; style-src {_sha256(_STYLE)}; script-src {_sha256(_SCRIPT)}"


def escape(text: str) -> str:
    """HTML text (and attribute values) of ``text``, invisible characters marked."""
    return _escape(visible(text))


def _uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _table(block: TableBlock) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in block.header)
    body = []
    for row in block.rows:
        cells = []
        for c in row:
            cls = f' class="{escape(c.tone)}"' if c.tone else ""
            tip = f' title="{escape(c.title)}"' if c.title else ""
            cells.append(f"<td{cls}{tip}>{escape(c.text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    notes = "".join(f"<li>{escape(n)}</li>" for n in block.notes)
    notes_html = f"<ul class='notes'>{notes}</ul>" if notes else ""
    table = (
        f"<table><caption>{escape(block.caption)}</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>{notes_html}"
    )
    if not block.folded:
        return table
    summary = f"{escape(block.caption)} ({len(block.rows)} rows)"
    return f'<details class="fold"><summary>{summary}</summary>{table}</details>'


def _figure(block: FigureBlock) -> str:
    alt = escape(block.alt or block.title)
    return (
        f'<figure class="figure" data-figure="{escape(block.key)}"><img src="{_uri(block.png)}" alt="{alt}">'
        f"<figcaption>{escape(block.title)}</figcaption></figure>"
    )


def _card(card: Card) -> str:
    thumbs = []
    for label, png, why in card.thumbs:
        pic = (
            f'<img src="{_uri(png)}" alt="{escape(label)}">'
            if png is not None
            else f'<div class="placeholder">{escape(why)}</div>'
        )
        thumbs.append(f'<div class="thumb">{pic}{escape(label)}</div>')
    lines = "".join(f"<p>{escape(x)}</p>" for x in card.lines)
    strip = f'<div class="thumbs">{"".join(thumbs)}</div>' if thumbs else ""
    return f'<div class="card"><div class="id">{escape(card.item_id)}</div>{lines}{strip}</div>'


def _gallery(block: GalleryBlock) -> str:
    cards = "".join(_card(c) for c in block.cards)
    return (
        f'<h3>{escape(block.title)}</h3><section class="gallery" data-gallery="{escape(block.key)}">{cards}</section>'
    )


def render(title: str, blocks: Sequence[Block]) -> str:
    """The page's HTML text."""
    parts = []
    for block in blocks:
        if isinstance(block, Heading):
            level = min(max(block.level, 1), 6)
            parts.append(f"<h{level}>{escape(block.text)}</h{level}>")
        elif isinstance(block, Paragraph):
            parts.append(f"<p>{escape(block.text)}</p>")
        elif isinstance(block, TableBlock):
            parts.append(_table(block))
        elif isinstance(block, FigureBlock):
            parts.append(_figure(block))
        elif isinstance(block, GalleryBlock):
            parts.append(_gallery(block))
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{escape(title)}</title>"
        f"<style>{_STYLE}</style></head><body>\n" + "\n".join(parts) + f"\n<script>{_SCRIPT}</script>\n</body></html>\n"
    )
