"""What a judge is asked and what it answers: requests, replies, statuses, the Judge protocol.

A :class:`JudgeRequest` is a list of chat messages whose parts are text or images, plus the
prompt template's id and version and any decoding overrides. A :class:`JudgeReply` carries
the raw answer text and one :data:`Status`. Parsing happens later, in the metric, so a parser
fix never needs a new call; an answer that the metric cannot read becomes ``"unparsable"``.
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from PIL import Image as PILImage

Status = Literal["ok", "api_error", "refused", "timeout", "truncated", "unparsable"]
#: Every status an answer can have, "ok" first; the others are failures and are never scored.
STATUSES: tuple[str, ...] = ("ok", "api_error", "refused", "timeout", "truncated", "unparsable")
FAILURE_STATUSES: tuple[str, ...] = STATUSES[1:]
#: Every status an item of a judge metric can have (``extras["item_status"]``): the answer
#: statuses, then "undefined" (the answers are fine but the item has no value, e.g. a source
#: image without any culture-specific item in CSIOverlap). Only "ok" items have a value.
ITEM_STATUSES: tuple[str, ...] = (*STATUSES, "undefined")

__all__ = [
    "FAILURE_STATUSES",
    "ITEM_STATUSES",
    "STATUSES",
    "ImagePart",
    "Judge",
    "JudgeReply",
    "JudgeRequest",
    "Message",
    "Status",
    "TextPart",
]


@dataclass(frozen=True)
class TextPart:
    """A piece of prompt text."""

    text: str

    def canonical(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, eq=False)
class ImagePart:
    """An image as the judge will see it: 8-bit RGB pixels, sent as a lossless PNG.

    ``sha256`` hashes the pixels (size, then raw RGB bytes), not the PNG file, so the cache
    key does not depend on the PNG encoder's version. The PNG is encoded only when a call is
    actually made (never on a cache hit).
    """

    image: PILImage.Image
    sha256: str

    @classmethod
    def from_pil(cls, image: PILImage.Image) -> ImagePart:
        if image.mode != "RGB":
            raise ValueError(f"ImagePart needs an RGB image, got mode {image.mode!r}")
        h = hashlib.sha256(f"RGB:{image.width}x{image.height}:".encode())
        h.update(image.tobytes())
        return cls(image, h.hexdigest())

    @property
    def size(self) -> tuple[int, int]:
        return (self.image.width, self.image.height)

    def png_bytes(self) -> bytes:
        buf = io.BytesIO()
        self.image.save(buf, format="PNG", compress_level=6)
        return buf.getvalue()

    def data_url(self) -> str:
        return "data:image/png;base64," + base64.b64encode(self.png_bytes()).decode("ascii")

    def canonical(self) -> dict[str, Any]:
        return {"type": "image", "sha256": self.sha256, "width": self.image.width, "height": self.image.height}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ImagePart) and other.sha256 == self.sha256

    def __hash__(self) -> int:
        return hash(self.sha256)

    def __repr__(self) -> str:
        return f"ImagePart({self.image.width}x{self.image.height}, sha256={self.sha256[:12]}...)"


Part = TextPart | ImagePart


@dataclass(frozen=True)
class Message:
    """One chat message: a role ("system" or "user") and its parts, in order."""

    role: str
    parts: tuple[Part, ...]

    def canonical(self) -> dict[str, Any]:
        return {"role": self.role, "content": [p.canonical() for p in self.parts]}


@dataclass(frozen=True)
class JudgeRequest:
    """A rendered prompt: messages, the template that produced them, decoding overrides.

    ``params`` override the judge's decoding defaults for this request (for example a
    template's ``max_tokens``); the effective parameters enter the cache key.
    """

    messages: tuple[Message, ...]
    template_id: str
    template_version: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def canonical(self) -> dict[str, Any]:
        """The request without pixels: images appear as their content hashes."""
        return {
            "template": {"id": self.template_id, "version": self.template_version},
            "messages": [m.canonical() for m in self.messages],
        }

    @property
    def images(self) -> list[ImagePart]:
        return [p for m in self.messages for p in m.parts if isinstance(p, ImagePart)]

    @property
    def text(self) -> str:
        """All text parts joined (for logs and error messages)."""
        return "\n".join(p.text for m in self.messages for p in m.parts if isinstance(p, TextPart))


@dataclass(frozen=True)
class JudgeReply:
    """One answer. ``text`` is the raw answer when the endpoint gave one (also for "truncated").

    ``status`` is "ok" or a transport failure ("api_error", "refused", "timeout",
    "truncated"); metrics turn an ok answer they cannot read into "unparsable". ``detail``
    says what went wrong, in words; it never holds an API key. ``attempts`` is how many HTTP
    requests the answer took, the client's retries included (1 where there is no HTTP).
    """

    status: Status
    text: str | None = None
    detail: str = ""
    key: str = ""
    cached: bool = False
    model: str | None = None
    finish_reason: str | None = None
    system_fingerprint: str | None = None
    usage: Mapping[str, Any] | None = None
    attempts: int = 1

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@runtime_checkable
class Judge(Protocol):
    """Anything that answers judge requests: ``complete(requests) -> replies`` (same order).

    ``describe()`` returns what identifies the judge in a result's signature (backend and
    model; never a key). Implementations: :class:`~transcreval.judge.OpenAICompatibleJudge`,
    :class:`~transcreval.judge.ReplayJudge`, :class:`~transcreval.judge.FunctionJudge`.
    """

    def complete(self, requests: Sequence[JudgeRequest]) -> list[JudgeReply]: ...

    def describe(self) -> Mapping[str, Any]: ...
