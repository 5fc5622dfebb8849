"""What a report carries from its inputs (system names, group values, item ids) cannot become
markup in either format, and invisible characters in them are shown."""

from __future__ import annotations

import base64
import hashlib
import math
import re

import pytest

from transcreval.protocols.records import ItemRecord, ProtocolResult
from transcreval.report import render_html, render_markdown
from transcreval.report.html import CSP

EVIL_SYSTEM = "<script>alert('system')</script>"
EVIL_GROUP = '<img src=x onerror="alert(1)">'
EVIL_ID = "id`<b>bold</b>`**x**[link](javascript:alert(1))"
RLO = "good\u202egnp.exe"  # a right-to-left override: renders as "goodexe.png"
ZWSP = "ba\u200bse"  # a zero-width space: renders as "base"


def _hostile() -> ProtocolResult:
    recs = []
    for k in range(8):
        item = EVIL_ID if k == 0 else f"item{k}"
        meta = {"split": EVIL_GROUP if k % 2 else "deep"}
        for system, shift in (("base", 0.0), (EVIL_SYSTEM, 0.3), (RLO, 0.1), (ZWSP, 0.2)):
            recs.append(ItemRecord(item, system, "score", 0.1 * k + shift, "ok", f"src{k}", meta))
    recs.append(ItemRecord("item1", "base", "judge", math.nan, "api_error", "src1", {"split": EVIL_GROUP}))
    return ProtocolResult("demo", tuple(recs), {})


def _commonmark_html(md: str) -> str:
    markdown_it = pytest.importorskip("markdown_it", reason="a CommonMark renderer (markdown-it-py) checks the text")
    return markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(md)


def test_markdown_carries_no_raw_html_from_names_groups_or_ids():
    """Rendered by a CommonMark viewer, a <script> in a system name ran: every name, group value
    and id is escaped as report.html escapes it, and a backtick in an id no longer ends its code span."""
    md = render_markdown(_hostile(), by="split", gallery_metrics=["score"], n_resamples=50)
    page = _commonmark_html(md)
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert 'href="javascript' not in page and "<strong>x</strong>" not in page
    # the names are still there, as text
    assert "&lt;script&gt;alert('system')&lt;/script&gt;" in page or "&lt;script&gt;alert(&#x27;system" in page
    assert "onerror=" in page  # shown, inert
    code = re.findall(r"<code>(.*?)</code>", page)
    assert any("&lt;b&gt;bold&lt;/b&gt;" in c and "`" in c for c in code), code


@pytest.mark.parametrize("render", [render_markdown, render_html])
def test_invisible_and_direction_characters_are_shown(render):
    """A right-to-left override or a zero-width space in a name renders raw (spoofing "goodexe.png"
    and "base"): both formats show each such character as a visible ⟨U+XXXX⟩ mark."""
    text = render(_hostile(), gallery_metrics=[], n_resamples=50, **({"plots": False} if render is render_html else {}))
    assert "\u202e" not in text and "\u200b" not in text
    assert "good⟨U+202E⟩gnp.exe" in text and "ba⟨U+200B⟩se" in text


def test_html_policy_runs_only_the_pages_own_script():
    """The CSP allowed script-src 'unsafe-inline'; it now names the hash of the page's own script
    (and style), so no other inline script or style can run, while docs/report.md's promise
    (default-src 'none'; img-src data:) holds."""
    page = render_html(_hostile(), gallery_metrics=[], plots=False, n_resamples=50)
    assert "unsafe-inline" not in CSP and "unsafe-inline" not in page
    assert CSP.startswith("default-src 'none'; img-src data:")
    for tag, directive in (("script", "script-src"), ("style", "style-src")):
        (body,) = re.findall(rf"<{tag}>(.*?)</{tag}>", page, flags=re.S)
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii")
        assert f"{directive} 'sha256-{digest}'" in CSP


def test_markdown_escapes_only_where_markup_could_start():
    from transcreval.report.text import md_block, md_code, md_inline

    assert md_inline("delta vs baseline [CI]") == "delta vs baseline [CI]"
    assert md_inline("+0.50 [0.48, 0.52] ↑") == "+0.50 [0.48, 0.52] ↑" and md_inline("p < 0.05") == "p < 0.05"
    assert md_inline("title_chrf") == "title_chrf" and md_inline("a<") == "a<"
    assert md_inline("[x](javascript:y)") == "[x\\](javascript:y)" and md_inline("<b>") == "\\<b>"
    assert md_block("# not a heading") == "\\# not a heading" and md_block("1. not a list") == "1\\. not a list"
    assert md_code("a`b") == "``a`b``" and md_code("`x") == "`` `x ``"
