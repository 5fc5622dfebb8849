"""Running a registered extractor on images in any form, shared within a collection update.

:func:`image_groups` converts an input (paths, PIL images, arrays, tensors; images of different
sizes allowed) once per :func:`~transcreval.features.feature_scope` into float RGB batches of
equal size; :func:`extract` runs an extractor on those batches and returns one feature row per
image, in input order. Two metrics of a collection that extract with the same extractor from
the same argument get the same batch tensors, so the extractor's scope memo runs the network
once for both (FID_GT and FID_SRC share the system outputs' Inception features this way).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from transcreval.errors import InputError
from transcreval.features.extractor import FeatureExtractor, shared_input

if TYPE_CHECKING:
    import torch

    from transcreval.features.cache import FeatureCache

__all__ = [
    "CLIP_CPU_ROWS",
    "FIXED_BATCH",
    "SMALL_NETWORK",
    "ImageGroups",
    "chunk_rows",
    "extract",
    "fixed_batches",
    "image_groups",
    "in_input_order",
]

#: networks run on chunks of exactly this many images per device type (the last chunk padded by
#: repeating its final image): CPU and GPU kernels pick code paths by batch size, so without it
#: an image's features would change in the last bits with the batch it came in. With it they do
#: not (tested): results are invariant to batching and to the number of processes.
FIXED_BATCH = {"cpu": 4, "cuda": 16}

#: the CPU chunk of the open_clip towers (``chunk_rows(net, "cpu", CLIP_CPU_ROWS)``): a chunk of 4
#: re-read ViT-B-32's weights from memory often enough to cost ~4% of its time. Their metrics
#: hold small calls until a pass fills (:mod:`transcreval.core.held_calls`), so the larger padded
#: chunk seldom costs a lone call; DINOv2's metric does not, and keeps FIXED_BATCH's 4.
CLIP_CPU_ROWS = 8

#: (parameters, rows): on the CPU a network with fewer parameters than this runs on chunks of
#: this many rows instead: its per-op fixed cost, not arithmetic, dominates a small chunk (a
#: 2M-parameter CLIP took 5.7 ms in chunks of 4 against 1.6 ms for one batch of 32). Still one
#: fixed size per network and device, so results stay invariant to batching.
SMALL_NETWORK = (4_000_000, 32)


def chunk_rows(net: Any, device_type: str, cpu_rows: int | None = None) -> int:
    """The fixed chunk size of network ``net`` (an ``nn.Module``) on ``device_type``:
    ``SMALL_NETWORK``'s rows for a small network on the CPU, else ``cpu_rows`` on the CPU when
    given, else ``FIXED_BATCH``'s."""
    if device_type == "cpu" and sum(p.numel() for p in net.parameters()) < SMALL_NETWORK[0]:
        return SMALL_NETWORK[1]
    if device_type == "cpu" and cpu_rows:
        return cpu_rows
    return FIXED_BATCH.get(device_type, 8)


def fixed_batches(fn: Any, x: torch.Tensor, size: int | None = None, *, spread: bool = False) -> torch.Tensor:
    """``fn(x)`` computed on chunks of exactly ``size`` rows (padded; default
    ``FIXED_BATCH[device type]``), so each row's result does not depend on the other rows or on
    the batch size.

    ``spread=True`` (CPU): every chunk runs torch on one intra-op thread, and the chunks are
    spread over the thread budget's workers (:mod:`transcreval.utils.threads`; in the calling thread
    when a gradient is recorded or under autocast, modes a worker cannot reproduce):
    small chunks on several OpenMP threads each meet at a barrier per op, which under competing
    load costs more than the network (a thread waiting for a descheduled peer spins). One
    thread per chunk always, so a chunk's result does not depend on how many chunks there are;
    but it may differ in the last bits from the same chunk on several threads (oneDNN's
    convolutions split work by thread count). Inception runs this way on chunks of one image
    (``transcreval.features.inception.CPU_ROWS``), CLIP on ``chunk_rows`` rows.
    """
    import torch

    size = size or FIXED_BATCH.get(x.device.type, 8)
    n = int(x.shape[0])
    chunks = []
    for i in range(0, n, size):
        chunk = x[i : i + size]
        k = int(chunk.shape[0])
        if k < size:
            chunk = torch.cat([chunk, chunk[-1:].expand(size - k, *chunk.shape[1:])])
        chunks.append((chunk, k))
    if not spread or x.device.type != "cpu":
        outs = [fn(chunk)[:k] for chunk, k in chunks]
    elif not _parallel_safe():  # in the calling thread, but on one torch thread like the workers
        from transcreval.utils.threads import torch_threads

        with torch_threads(1):
            outs = [fn(chunk)[:k] for chunk, k in chunks]
    else:
        outs = _run_chunks(fn, chunks)
    return outs[0] if len(outs) == 1 else torch.cat(outs)


def _parallel_safe() -> bool:
    """No gradient recorded and no autocast: the thread-local modes a worker must reproduce."""
    import torch

    return not torch.is_grad_enabled() and not torch.is_autocast_enabled("cpu")


def _run_chunks(fn: Any, chunks: list[tuple[torch.Tensor, int]]) -> list[torch.Tensor]:
    """``fn`` on each chunk, in order, spread by :func:`transcreval.utils.threads.map_threads` over up
    to the thread budget's workers (one torch thread each, in the caller's inference mode)."""
    from transcreval.utils.threads import default_threads, map_threads

    return map_threads(lambda c: fn(c[0])[: c[1]], chunks, cap=default_threads())


class ImageGroups:
    """Images converted to float RGB [0, 1], as same-size batches with their positions."""

    def __init__(self, n: int, groups: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
        self.n = n
        self.groups = groups  # (positions: int64 index tensor, images: k x 3 x H x W)


def _convert(raw: Any, input_range: Any, what: str) -> ImageGroups:
    import torch

    from transcreval.io import to_rgb_float

    try:
        x = to_rgb_float(raw, input_range=input_range)
    except InputError as e:
        raise type(e)(f"{what}: {e}") from None
    if isinstance(x, torch.Tensor):
        return ImageGroups(int(x.shape[0]), [(torch.arange(int(x.shape[0])), x)])
    by_size: dict[tuple[int, ...], list[int]] = {}
    for i, t in enumerate(x):
        by_size.setdefault(tuple(t.shape), []).append(i)
    groups = [(torch.tensor(idx), torch.stack([x[i] for i in idx])) for idx in by_size.values()]
    return ImageGroups(len(x), groups)


def image_groups(raw: Any, *, input_range: Any = None, what: str = "images") -> ImageGroups:
    """``raw`` as same-size float RGB batches, converted once per feature scope."""
    how: Hashable = ("rgb-groups", None if input_range is None else tuple(input_range))
    return shared_input(raw, how, lambda r: _convert(r, input_range, what))


def extract(
    extractor: FeatureExtractor,
    raw: Any,
    output: str,
    *,
    input_range: Any = None,
    batch_size: int | None = None,
    cache: FeatureCache | None = None,
    what: str = "images",
) -> torch.Tensor:
    """``extractor``'s ``output`` for every image of ``raw`` (N x ..., in input order, on the
    extractor's device)."""

    groups = image_groups(raw, input_range=input_range, what=what)
    return in_input_order(
        [(idx, extractor(imgs, batch_size=batch_size, cache=cache)[output]) for idx, imgs in groups.groups]
    )


def in_input_order(parts: list[tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
    """Rows computed per group of positions (``(positions, rows)`` parts, as
    :class:`ImageGroups` holds them) put back in input order (one part: the rows themselves)."""
    import torch

    if len(parts) == 1:
        return parts[0][1]
    first = parts[0][1]
    out = torch.empty((sum(len(i) for i, _ in parts), *first.shape[1:]), dtype=first.dtype, device=first.device)
    for idx, rows in parts:
        out[idx.to(out.device)] = rows
    return out
