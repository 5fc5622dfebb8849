"""Prompt templates: versioned text with named fields and image slots, replaceable by a file.

A template's text uses Python format fields (``{target_market}``; write ``{{`` and ``}}`` for
literal braces) and image markers ``{image:NAME}`` that place an image between text parts.
Images whose marker is absent are appended after the text, in the template's slot order.
The template's id and version enter every cache key, so changing the wording never replays
answers to the old one.

Load any wording (the published prompt of a paper, say) from a file::

    JudgeScore(judge=j, aspect="aesthetic", template="prompts/mptc_direct.txt")

A template file is plain text: the user message. Optionally it starts with a front-matter
block of ``key: value`` lines between two ``---`` lines (``id``, ``version``), and the text
may be split into ``[system]`` and ``[user]`` sections. Without a version the file's SHA-256
is the version. The built-in templates are files of this format too (:mod:`transcreval.engines.judge.catalog`).
The metric keeps its own answer parser, which accepts the key names of the built-in template
and the paper's published ones (see each metric's docs).
"""

from __future__ import annotations

import hashlib
import os
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from transcreval.engines.judge.images import to_image_part
from transcreval.engines.judge.types import ImagePart, JudgeRequest, Message, TextPart
from transcreval.errors import InputError

__all__ = ["IMAGE_MARKER", "PromptTemplate", "is_missing", "split_template_text"]

IMAGE_MARKER = _MARKER = re.compile(r"(?<!\{)\{image:([A-Za-z_]\w*)\}(?!\})")
_FIELD = re.compile(r"[A-Za-z_]\w*")


def _fields_of(text: str, where: str) -> list[str]:
    names = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as e:
        raise InputError(f"{where}: malformed format text ({e}); write literal braces as {{{{ and }}}}") from e
    for _, name, spec, conv in parsed:
        if name is None:
            continue
        if not _FIELD.fullmatch(name) or spec or conv:
            raise InputError(
                f"{where}: field {{{name}{'!' + conv if conv else ''}{':' + spec if spec else ''}}} is not allowed; "
                "use plain {name} fields (literal braces are written {{ and }})"
            )
        names.append(name)
    return names


@dataclass(frozen=True)
class PromptTemplate:
    """A versioned prompt.

    Attributes:
        id, version: identify the wording (both enter cache keys).
        user: the user message (format fields + ``{image:NAME}`` markers).
        system: an optional system message (format fields allowed, no images).
        images: the image slots, in the order unplaced images are appended.
        output: the answer keys the text asks for, with their type (documentation).
        max_tokens: a decoding override for this template (None: the judge's default).
        source: "builtin" or the file it was read from.
    """

    id: str
    version: str
    user: str
    system: str | None = None
    images: tuple[str, ...] = ()
    output: Mapping[str, str] = field(default_factory=dict)
    max_tokens: int | None = None
    source: str = "builtin"

    def __post_init__(self) -> None:
        if not self.id or not self.version:
            raise InputError("a prompt template needs an id and a version")
        _fields_of(_MARKER.sub("", self.user), f"template {self.id}")
        if self.system:
            if _MARKER.search(self.system):
                raise InputError(f"template {self.id}: images cannot go in the system message")
            _fields_of(self.system, f"template {self.id} (system)")

    @property
    def fields(self) -> tuple[str, ...]:
        """The text fields the template needs, in order of first use."""
        names = _fields_of(_MARKER.sub("", self.user), self.id) + (
            _fields_of(self.system, self.id) if self.system else []
        )
        return tuple(dict.fromkeys(names))

    @property
    def ref(self) -> str:
        return f"{self.id}@{self.version}"

    def render(self, images: Mapping[str, Any] | None = None, **fields: Any) -> JudgeRequest:
        """A :class:`JudgeRequest` with the fields filled in and the images placed."""
        images = dict(images or {})
        unknown = set(images) - set(self.images) - set(_MARKER.findall(self.user))
        if unknown:
            raise InputError(f"template {self.ref} has no image slot(s) {sorted(unknown)} (slots: {list(self.images)})")
        missing = [f for f in self.fields if is_missing(fields.get(f))]
        if missing:
            given = sorted(k for k, v in fields.items() if not is_missing(v))
            raise InputError(f"template {self.ref} needs the field(s) {missing}; got values for {given}")
        values = {k: str(v) for k, v in fields.items() if not is_missing(v)}
        parts: list[TextPart | ImagePart] = []
        placed: set[str] = set()
        pos = 0
        for m in _MARKER.finditer(self.user):
            chunk = self.user[pos : m.start()]
            if chunk.strip():
                parts.append(TextPart(chunk.format_map(values).strip()))
            name = m.group(1)
            if name not in images:
                raise InputError(f"template {self.ref} places image {name!r} but none was given")
            parts.append(to_image_part(images[name], what=f"image {name!r}"))
            placed.add(name)
            pos = m.end()
        tail = self.user[pos:]
        if tail.strip():
            parts.append(TextPart(tail.format_map(values).strip()))
        for name in self.images:
            if name in images and name not in placed:
                parts.append(to_image_part(images[name], what=f"image {name!r}"))
                placed.add(name)
        missing_img = [n for n in self.images if n not in images]
        if missing_img:
            raise InputError(f"template {self.ref} needs the image(s) {missing_img}")
        msgs = []
        if self.system:
            msgs.append(Message("system", (TextPart(self.system.format_map(values)),)))
        msgs.append(Message("user", tuple(parts)))
        params = {"max_tokens": self.max_tokens} if self.max_tokens else {}
        return JudgeRequest(tuple(msgs), self.id, self.version, params)

    # ------------------------------------------------------------------ replacing the wording
    def with_text(
        self, user: str, *, system: str | None = None, id: str | None = None, version: str | None = None
    ) -> PromptTemplate:
        """The same slots and answer keys with other wording (version: a hash of the text)."""
        digest = hashlib.sha256(f"{system or ''}\x00{user}".encode()).hexdigest()[:12]
        return replace(
            self,
            id=id or f"{self.id}+custom",
            version=version or f"sha-{digest}",
            user=user,
            system=system,
            source="custom",
        )

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], base: PromptTemplate | None = None) -> PromptTemplate:
        """Read a template file (see the module docstring); ``base`` gives the image slots and keys."""
        p = Path(path)
        try:
            # utf-8-sig: an editor's byte-order mark must not hide the front matter; Windows line
            # ends are read as "\n" (the front matter and sections are found line by line)
            raw = p.read_bytes().decode("utf-8-sig").replace("\r\n", "\n")
        except OSError as e:
            raise InputError(f"cannot read the prompt template file {p}: {e}") from e
        except UnicodeDecodeError as e:
            raise InputError(f"the prompt template file {p} is not UTF-8 text ({e.reason} at byte {e.start})") from e
        meta, system, text = split_template_text(raw, p)
        if not text.strip():
            raise InputError(f"{p}: the template file has no user message")
        base = base or cls(id="custom", version="0", user="x")
        t = base.with_text(text, system=system, id=meta.get("id") or f"{base.id}+file", version=meta.get("version"))
        return replace(t, source=str(p))


def split_template_text(raw: str, where: Any) -> tuple[dict[str, str], str | None, str]:
    """A template file's text as (front matter, system message or None, user message).

    The front matter is an optional block of ``key: value`` lines between two ``---`` lines
    (keys lower-cased); the text may be split into ``[system]`` and ``[user]`` sections.
    ``where`` names the file in errors.
    """
    meta: dict[str, str] = {}
    text = raw
    if raw.startswith("---\n"):
        end = raw.find("\n---\n", 4)
        if end == -1:
            raise InputError(f"{where}: the front matter opened by '---' is never closed")
        for line in raw[4:end].splitlines():
            if line.strip():
                k, sep, v = line.partition(":")
                if not sep:
                    raise InputError(f"{where}: front-matter line {line!r} is not 'key: value'")
                meta[k.strip().lower()] = v.strip()
        text = raw[end + 5 :]
    system = None
    sections = re.split(r"^\[(system|user)\]\s*$", text, flags=re.M)
    if len(sections) > 1:
        if sections[0].strip():
            raise InputError(f"{where}: text before the first [system]/[user] section")
        found = {sections[i]: sections[i + 1].strip("\n") for i in range(1, len(sections), 2)}
        system, text = found.get("system"), found.get("user", "")
    return meta, system, text


def is_missing(value: Any) -> bool:
    """None or a float NaN (a missing cell of a pandas column): no value for a field."""
    return value is None or (isinstance(value, float) and value != value)
