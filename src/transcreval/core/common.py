"""Building blocks shared by the functional twins and the metric classes.

Input checks (lists, equal lengths, numeric vectors, option values) and the per-item mean
with a count of unreadable items that most PosterIQ metrics report. Everything here is public:
modules import these names, never another module's private helpers.

Unreadable answers (PosterIQ family): ``on_unreadable="zero"`` scores an answer that cannot be
read as 0 for its item, as PosterIQ's code does and as the paper's formulas read literally (a
perfect answer and an unreadable one average 0.5); ``"drop"`` leaves the item out of the mean.
Either way the item is counted (``n_unparsable``) and its status is ``"unparsable"``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from transcreval.errors import EmptyInputError, InputError

if TYPE_CHECKING:
    from transcreval.core.result import MetricResult, Signature

Mode = Literal["paper", "posteriq-code"]
MODES: tuple[str, ...] = ("paper", "posteriq-code")
OnUnreadable = Literal["zero", "drop"]
#: which of PosterIQ's two definitions: Supp. B's formulas (default) or the main text's wording
Definition = Literal["supp-b", "main-text"]
DEFINITIONS: tuple[str, ...] = ("supp-b", "main-text")
ON_UNREADABLE: tuple[str, ...] = ("zero", "drop")
#: per-item statuses of the PosterIQ means, in the order of their int64 codes in metric states
ITEM_STATUSES: tuple[str, ...] = ("ok", "unparsable", "undefined", "refused")

__all__ = [
    "DEFINITIONS",
    "IMAGE_SUFFIXES",
    "ITEM_STATUSES",
    "MODES",
    "ON_UNREADABLE",
    "Definition",
    "MeanStats",
    "Mode",
    "OnUnreadable",
    "as_list",
    "check_bool",
    "check_choice",
    "check_definition",
    "check_mode",
    "check_on_unreadable",
    "check_positive_int",
    "check_range",
    "check_text",
    "definition_signature",
    "float_vector",
    "image_path_kind",
    "mean_from_stats",
    "mean_result",
    "paired_vectors",
    "same_length",
    "status_names",
]


def check_choice(name: str, value: Any, choices: Sequence[Any]) -> None:
    """Raise InputError unless ``value`` is one of ``choices`` (an option checked when a metric is built)."""
    if value not in choices:
        raise InputError(f"{name} must be one of {', '.join(repr(c) for c in choices)}; got {value!r}")


def definition_signature(o: Any) -> dict[str, Any]:
    """A PosterIQ ``definition`` option in a signature: printed only when not the default."""
    return {} if o.definition == "supp-b" else {"def": o.definition}


def check_definition(definition: Any, mode: Any) -> None:
    """``definition`` is "supp-b" (PosterIQ's Supp. B, default) or "main-text" (its main text's
    wording), and "main-text" is a reading of the paper, so it goes with ``mode="paper"``."""
    check_choice("definition", definition, DEFINITIONS)
    if definition == "main-text" and mode != "paper":
        raise InputError("definition='main-text' reads the paper's main text: use it with mode='paper'")


def check_mode(mode: Any) -> None:
    """``mode`` is "paper" (the paper's text) or "posteriq-code" (PosterIQ's public code)."""
    check_choice("mode", mode, MODES)


def check_on_unreadable(on_unreadable: Any) -> None:
    """``on_unreadable`` is "zero" (an unreadable answer scores 0: PosterIQ's code and the
    formulas read literally) or "drop" (it is left out of the mean); counted either way."""
    check_choice("on_unreadable", on_unreadable, ON_UNREADABLE)


def check_bool(name: str, value: Any) -> bool:
    """``value`` if it is True or False (not 0/1, not "no"), else InputError naming the option."""
    if not isinstance(value, bool):
        raise InputError(f"{name} must be True or False, got {value!r}")
    return value


def check_positive_int(name: str, value: Any, *, optional: bool = False, minimum: int = 1) -> Any:
    """``value`` if it is an int (not a bool) of at least ``minimum`` (1: a positive integer; 0:
    a non-negative one), or None with ``optional``; else InputError naming the option."""
    if optional and value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        kind = {1: "a positive integer", 0: "a non-negative integer"}.get(minimum, f"an integer >= {minimum}")
        raise InputError(f"{name} must be {kind}{' or None' if optional else ''}, got {value!r}")
    return value


def check_range(
    name: str, value: Any, low: float, high: float, *, open_low: bool = False, open_high: bool = False
) -> float:
    """``value`` as a float if it is a real number (not a bool) in the interval from ``low`` to
    ``high`` (closed unless ``open_low`` / ``open_high``), else InputError naming the option."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        ok = (low < value if open_low else low <= value) and (value < high if open_high else value <= high)
    if not ok:
        interval = f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
        raise InputError(f"{name} must be a number in {interval}, got {value!r}")
    return float(value)


def as_list(x: Any, what: str) -> list[Any]:
    """A per-item list: a sequence (not a string) or a 1-D array/tensor."""
    if isinstance(x, (str, bytes)):
        raise InputError(f"{what} must be a list with one entry per item, got a single string")
    if hasattr(x, "ndim") and hasattr(x, "tolist"):  # numpy arrays, torch tensors
        if x.ndim != 1:
            raise InputError(f"{what} must be one-dimensional (one entry per item), got shape {tuple(x.shape)}")
        return list(x.tolist())
    if not isinstance(x, Sequence):
        raise InputError(f"{what} must be a list with one entry per item, got {type(x).__name__}")
    return list(x)


#: file name endings read as images (a text ending like this is taken for an image file name)
IMAGE_SUFFIXES: tuple[str, ...] = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff")
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"II*\x00", b"MM\x00*")


#: os.access can check with the effective ids (as stat does): faccessat's AT_EACCESS
_ACCESS_AS_STAT = os.access in os.supports_effective_ids


def _is_image_file(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(12)
    except OSError:
        return False
    return head.startswith(_IMAGE_MAGIC) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")


def image_path_kind(text: str) -> str | None:
    """What a string looks like as an image reference: ``"file"`` (the path of an existing image
    file: an image extension, or image magic bytes), ``"name"`` (it ends in an image extension
    but no such file exists), or None (it does not name an image)."""
    s = text.strip()
    if not s or len(s) > 4096 or "\n" in s:
        return None
    named = s.lower().endswith(IMAGE_SUFFIXES)
    try:
        # os.access answers "no such path" without raising (a text is rarely a path, and the
        # exception isfile builds costs twice the system call), with the effective ids as
        # stat uses; where it finds something, isfile decides
        exists = (not _ACCESS_AS_STAT or os.access(s, os.F_OK, effective_ids=True)) and os.path.isfile(s)
    except (OSError, ValueError):  # a NUL byte, a name too long for the file system
        exists = False
    if exists and (named or _is_image_file(s)):
        return "file"
    return "name" if named else None


def check_text(value: Any, what: str, index: int | None = None) -> str:
    """``value`` as a text input of a text metric: a ``str`` (else InputError naming ``what``, or
    ``what[index]`` when an index is given: the name is built only on error) that is not an image
    path or file name (a text metric would otherwise score the path's characters), encodable as
    UTF-8 (a lone surrogate is refused)."""
    if not isinstance(value, str):
        what = what if index is None else f"{what}[{index}]"
        hint = ": decode bytes first (value.decode('utf-8'))" if isinstance(value, (bytes, bytearray)) else ""
        raise InputError(f"{what} must be a string, got {type(value).__name__} ({str(value)[:40]!r}){hint}")
    kind = image_path_kind(value)
    if kind is not None:
        what = what if index is None else f"{what}[{index}]"
        found = "the path of an image file" if kind == "file" else "a file name with an image extension"
        raise InputError(
            f"{what} is {value[:80]!r}, {found}, where a text is expected: read the text off the image first "
            "(TitleExtraction, OCR), or in a MetricCollection give this member its own inputs: "
            "MetricCollection({'name': (metric, {'preds': 'pred_titles', 'target': 'ref_titles'})})"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        what = what if index is None else f"{what}[{index}]"
        raise InputError(
            f"{what} holds a lone surrogate ({value[e.start : e.end]!r} at position {e.start}), which is not "
            "text: it usually comes from bytes decoded with errors='surrogateescape'; decode them properly"
        ) from None
    return value


def check_texts(texts: Any, what: str, *, missing_ok: bool = False) -> list[Any]:
    """A list with one text per item, each checked by :func:`check_text` (errors name
    ``what[i]``); with ``missing_ok`` None or NaN stays None (an item without a text)."""
    if isinstance(texts, str):
        raise InputError(f"{what} must be a list of strings (one per item), got a bare string: wrap it in a list")
    if isinstance(texts, (bytes, bytearray, memoryview)):
        raise InputError(f"{what} must be a list of strings (one per item), got bytes: decode and wrap them in a list")
    if not isinstance(texts, Sequence):
        raise InputError(f"{what} must be a list of strings (one per item), got {type(texts).__name__}")
    out: list[Any] = []
    for i, t in enumerate(texts):
        if missing_ok and (t is None or (isinstance(t, float) and t != t)):
            out.append(None)
        else:
            out.append(check_text(t, what, i))
    return out


def same_length(a: Sequence[Any], b: Sequence[Any], what: str) -> None:
    if len(a) != len(b):
        raise InputError(f"mismatched lengths in {what}: {len(a)} vs {len(b)}")


def float_vector(x: Any, what: str) -> np.ndarray:
    """``x`` as a new 1-D float64 numpy array (never a view of the caller's buffer)."""
    if isinstance(x, (str, bytes)):
        raise InputError(f"{what} must be a sequence of numbers, got a string")
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # torch tensors, on any device
        if getattr(getattr(x, "device", None), "type", None) == "meta":
            raise InputError(f"{what} is a meta tensor (no data): pass real values")
        x = x.detach().cpu().numpy()
    try:
        a = np.array(x, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InputError(f"{what} must hold numbers ({e})") from e
    if a.ndim > 1:
        raise InputError(f"{what} must be one-dimensional (one number per item), got shape {a.shape}")
    return a.reshape(-1)


def paired_vectors(x: Any, y: Any, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Two equally long finite float64 vectors."""
    a, b = float_vector(x, names[0]), float_vector(y, names[1])
    if a.shape != b.shape:
        raise InputError(f"mismatched lengths: {names[0]} has {a.size} values, {names[1]} {b.size}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise InputError(f"{names[0]}/{names[1]} contain NaN or infinite values: drop unparsable items first")
    return a, b


@dataclass
class MeanStats:
    """A mean of per-item values being built, one item at a time in input order: ``total /
    count``, per item its value (NaN when it adds nothing to the mean) and its status, and named
    side counters (``unparsable`` by default; ``MeanStats(side={"unparsable": 0, "failed": 0})``
    declares others, counted with :meth:`tally`; a side total may be a float, as a judge
    metric's covered fraction). ``statuses`` is the table of status names whose indices are the
    int64 codes in the states (:data:`ITEM_STATUSES` by default; the judge metrics use theirs).
    :meth:`as_stats` gives the statistics of :class:`~transcreval.core.aggregate_metric.MeanMetric`'s
    states; :meth:`of_values` is the same for a batch of values that are all valid (a tensor of
    per-pair distances, say)."""

    total: float = 0.0
    count: int = 0
    per_item: list[float] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    side: dict[str, Any] = field(default_factory=lambda: {"unparsable": 0})
    statuses: tuple[str, ...] = ITEM_STATUSES

    @property
    def unparsable(self) -> int:
        return int(self.side.get("unparsable", 0))

    def tally(self, counter: str, k: float = 1) -> None:
        """Add ``k`` to the side counter ``counter`` (one declared when the MeanStats was made)."""
        if counter not in self.side:
            raise ValueError(f"side counter {counter!r} was not declared (declared: {sorted(self.side)})")
        self.side[counter] += k

    def add(self, value: float) -> None:
        """One item with one value."""
        self.add_with_status(value, "ok")

    def add_with_status(self, value: float, status: str) -> None:
        """One item with one value that counts in the mean, with its ``status`` (other than
        "ok" for an item that still counts, as a poster whose unreadable verdict reads as
        "not covered")."""
        if not math.isfinite(value):
            raise ValueError(f"per-item value {value!r} is not finite")
        if status not in self.statuses:
            raise ValueError(f"unknown item status {status!r}")
        self.total += value
        self.count += 1
        self.per_item.append(value)
        self.status.append(status)

    def add_pooled(self, values: Sequence[float]) -> None:
        """One item whose values are pooled with every other item's (a mean over boxes, not
        over items); its per-item value is the mean of its own, NaN when it has none."""
        vals = [float(v) for v in values]
        if not all(math.isfinite(v) for v in vals):
            raise ValueError(f"per-item values {vals!r} are not all finite")
        self.total += math.fsum(vals)
        self.count += len(vals)
        self.per_item.append(math.fsum(vals) / len(vals) if vals else math.nan)
        self.status.append("ok" if vals else "undefined")

    def unreadable(self, on_unreadable: str = "zero", units: int = 1) -> None:
        """One item whose answer cannot be read: counted; ``"zero"`` adds ``units`` zeros to the
        mean (0 for the item; ``units=0`` where the item would add nothing, as an empty answer
        to a pooled mean), ``"drop"`` adds nothing."""
        self.tally("unparsable")
        self.status.append("unparsable")
        if on_unreadable == "zero" and units > 0:
            self.count += units
            self.per_item.append(0.0)
        else:
            self.per_item.append(math.nan)

    def skip(self, status: str) -> None:
        """One item left out of the mean for another reason (``status``, e.g. "refused")."""
        if status not in self.statuses or status == "ok":
            raise ValueError(f"unknown item status {status!r}")
        self.per_item.append(math.nan)
        self.status.append(status)

    def as_stats(self) -> dict[str, Any]:
        """``total``, ``count``, each side counter, ``values`` (float64 per item) and ``status``
        (int64 codes of :data:`ITEM_STATUSES`)."""
        return {
            "total": self.total,
            "count": self.count,
            **self.side,
            "values": np.asarray(self.per_item, dtype=np.float64),
            "status": np.asarray([self.statuses.index(s) for s in self.status], dtype=np.int64),
        }

    @staticmethod
    def of_values(values: Any, hint: str = "") -> dict[str, Any]:
        """The statistics of a batch of per-item values that are all valid (a float tensor):
        ``total`` (float64 sum), ``count`` and ``values`` (float64). A value that is not finite
        is an InputError (``hint`` says where it can come from), never a silent NaN mean."""
        import torch

        v = torch.as_tensor(values).detach().to(torch.float64).reshape(-1)
        bad = (~torch.isfinite(v)).nonzero().flatten().tolist()
        if bad:
            more = " ..." if len(bad) > 5 else ""
            raise InputError(f"{len(bad)} of {v.numel()} per-item values are not finite (items {bad[:5]}{more}){hint}")
        return {"total": v.sum(), "count": v.numel(), "values": v}


def status_names(codes: Any, statuses: Sequence[str] = ITEM_STATUSES) -> list[str]:
    """The status names of int64 status codes: indices into ``statuses`` (:data:`ITEM_STATUSES`
    by default)."""
    vals = codes.tolist() if hasattr(codes, "tolist") else list(codes)
    return [statuses[int(c)] for c in vals]


def mean_from_stats(stats: Mapping[str, Any], what: str, hint: str = "pass items with readable answers") -> float:
    """``total / count`` of :class:`MeanStats` statistics (python numbers or tensors); no item
    to average is an EmptyInputError naming ``what`` (and the unreadable items, if counted)."""
    count = int(stats["count"])
    if count == 0:
        bad = f" ({int(stats['unparsable'])} unparsable)" if "unparsable" in stats else ""
        raise EmptyInputError(f"{what}: no valid items{bad}; {hint}")
    return float(stats["total"]) / count


def mean_result(
    stats: Mapping[str, Any],
    signature: Signature,
    what: str,
    extras: Mapping[str, Any] | None = None,
    hint: str = "pass items with readable answers",
) -> MetricResult:
    """The mean of :class:`MeanStats` statistics as a result: ``per_item`` holds one value per
    input item (NaN where the item adds nothing to the mean); where the statistics have them,
    ``extras["n_unparsable"]`` counts the unreadable items and ``extras["item_status"]`` gives
    each item's status ("ok", "unparsable", ...); ``extras`` adds the metric's own."""
    import torch

    from transcreval.core.result import MetricResult

    values = stats["values"]
    per_item = values if isinstance(values, torch.Tensor) else torch.as_tensor(values, dtype=torch.float64)
    out: dict[str, Any] = {}
    if "unparsable" in stats:
        out["n_unparsable"] = int(stats["unparsable"])
    if "status" in stats:
        out["item_status"] = status_names(stats["status"])
    out.update(extras or {})
    value = mean_from_stats(stats, what, hint)
    return MetricResult(value=value, n=int(stats["count"]), signature=signature, per_item=per_item, extras=out)
