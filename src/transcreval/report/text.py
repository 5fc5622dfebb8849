"""Text from a report's inputs (system names, group values, item ids) made safe to show.

Names come from users and from files, so both formats treat every piece of text as data:

* :func:`visible`: characters that render as nothing or reorder what follows (right-to-left
  overrides and other direction controls, zero-width spaces and joiners, byte-order marks,
  control characters, line and paragraph separators) become a visible ``⟨U+202E⟩`` mark, so
  ``"good\\u202egnp.exe"`` cannot pass for ``"goodexe.png"`` nor ``"ba\\u200bse"`` for ``"base"``;
* :func:`md_inline` / :func:`md_block`: Markdown text that a CommonMark (or GitHub) viewer shows
  as it is: backslash escapes wherever a character could start markup (raw HTML and autolinks,
  emphasis, code spans, links and images, strikethrough, table cells; at the start of a block
  also headings, quotes and list markers), and nowhere else, so numbers and words stay readable;
* :func:`md_code`: an inline code span that holds any text, backticks included.

The HTML page escapes with :func:`html.escape` after :func:`visible`.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["md_block", "md_code", "md_inline", "visible"]

_INVISIBLE_CATEGORIES = ("Cc", "Cf", "Zl", "Zp")


def _mark(ch: str) -> str:
    return f"⟨U+{ord(ch):04X}⟩"


def visible(text: str) -> str:
    """``text`` with every invisible or reordering character replaced by a ``⟨U+XXXX⟩`` mark."""
    s = str(text)
    if s.isprintable():  # the common case: nothing to mark
        return s
    return "".join(_mark(c) if unicodedata.category(c) in _INVISIBLE_CATEGORIES else c for c in s)


# a character that can open markup inline: always escaped
_ALWAYS = set("\\`*|~")
_WORD = re.compile(r"\w")


def md_inline(text: str) -> str:
    """Text inside a paragraph, heading or table cell, with markup characters escaped."""
    s = visible(text)
    out = []
    for i, c in enumerate(s):
        nxt = s[i + 1] if i + 1 < len(s) else ""
        prev = s[i - 1] if i else ""
        if c in _ALWAYS:
            out.append("\\" + c)
        elif c == "<" and nxt and (nxt.isalpha() or nxt in "/!?"):  # a tag, a comment or an autolink
            out.append("\\<")
        elif c == "&" and (nxt.isalnum() or nxt == "#"):  # an entity or character reference
            out.append("\\&")
        elif c == "]" and nxt and nxt in "([":  # a link or image needs "](" or "][" (no reference is ever defined)
            out.append("\\" + c)
        elif c == "_" and not (_WORD.match(prev) and _WORD.match(nxt)):  # snake_case stays as it is
            out.append("\\_")
        else:
            out.append(c)
    return "".join(out)


_BLOCK_START = re.compile(r"^(\s*)([#>+\-=\[]|\d{1,9}[.)])")  # a "[" there could define a link reference


def md_block(text: str) -> str:
    """:func:`md_inline`, and a character that would start a heading, quote or list escaped at the start."""
    s = md_inline(text)
    m = _BLOCK_START.match(s)
    if m is None:
        return s
    lead, marker = m.group(1), m.group(2)
    return lead + (marker[:-1] + "\\" + marker[-1] if marker[0].isdigit() else "\\" + marker) + s[m.end() :]


def md_code(text: str) -> str:
    """An inline code span holding ``text`` literally: fenced by one backtick more than its longest
    run of backticks, padded with spaces where it starts or ends with one."""
    s = visible(text)
    longest = max((len(r) for r in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ") and s.strip()) else ""
    return f"{fence}{pad}{s}{pad}{fence}"
