"""State synchronisation over ``torch.distributed``.

One call, :func:`sync_states`, syncs any list of states (one metric's or a whole collection's):

* Sum/Max/Min states are grouped by (operation, dtype), flattened into one buffer each and
  reduced with a single ``all_reduce``: traffic is O(state size), not O(world x state size).
* Cat states are grouped by dtype: the per-state sizes of every rank are gathered in one
  ``all_gather``, then each dtype's rows travel in one padded ``all_gather`` and are unpacked
  rank-major. Uneven and empty ranks are fine.
* Objects are gathered with ``all_gather_object`` only when ``sync_objects=True``.

A custom ``dist_sync_fn(tensor, group) -> list[Tensor]`` (torchmetrics' gather signature)
replaces the collectives: buffers are gathered with it and reduced locally.
With the NCCL backend, CPU states are staged through the current CUDA device.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from transcreval.states import Cat, Objects, State, _Reduced

DistSyncFn = Callable[[torch.Tensor, Any], list[torch.Tensor]]


def distributed_available() -> bool:
    """True when a default ``torch.distributed`` process group is initialised."""
    return bool(torch.distributed.is_available() and torch.distributed.is_initialized())


def world_size(group: Any = None) -> int:
    return int(torch.distributed.get_world_size(group)) if distributed_available() else 1


def _comm_device(group: Any, fallback: torch.device) -> torch.device:
    backend = torch.distributed.get_backend(group)
    if "nccl" in str(backend).lower() and fallback.type != "cuda":
        return torch.device("cuda", torch.cuda.current_device())
    return fallback


def _gather(buf: torch.Tensor, group: Any, fn: DistSyncFn | None) -> list[torch.Tensor]:
    if fn is not None:
        return [t.to(buf.device) for t in fn(buf, group)]
    out = [torch.empty_like(buf) for _ in range(world_size(group))]
    torch.distributed.all_gather(out, buf.contiguous(), group=group)
    return out


_REDUCE_OPS = {"sum": "SUM", "max": "MAX", "min": "MIN"}


def _reduce(buf: torch.Tensor, kind: str, group: Any, fn: DistSyncFn | None) -> torch.Tensor:
    if fn is not None:
        parts = _gather(buf, group, fn)
        stacked = torch.stack(parts)
        if kind == "sum":
            return stacked.sum(0)
        return stacked.amax(0) if kind == "max" else stacked.amin(0)
    op = getattr(torch.distributed.ReduceOp, _REDUCE_OPS[kind])
    buf = buf.clone()
    torch.distributed.all_reduce(buf, op=op, group=group)
    return buf


def sync_states(
    specs: Sequence[State],
    values: Sequence[Any],
    *,
    group: Any = None,
    dist_sync_fn: DistSyncFn | None = None,
    sync_objects: bool = False,
) -> list[Any]:
    """Return the states of all ranks combined; the inputs are left untouched.

    ``values`` holds each state's local value: a tensor for Sum/Max/Min, a list of row tensors
    for Cat, a list for Objects. The result holds a tensor for Sum/Max/Min, one concatenated
    tensor (rank-major) for Cat, and a list for Objects. Every rank must call this with the
    same specs in the same order: it is a collective.
    """
    out: list[Any] = list(values)
    home = torch.device("cpu")
    for v in values:
        if isinstance(v, torch.Tensor):
            home = v.device
            break
    dev = home if dist_sync_fn is not None else _comm_device(group, home)

    # Sum / Max / Min: one packed all_reduce per (kind, dtype).
    packs: dict[tuple[str, torch.dtype], list[int]] = {}
    for i, spec in enumerate(specs):
        if isinstance(spec, _Reduced):
            packs.setdefault((spec.kind, spec.dtype), []).append(i)
    for (kind, dtype), idx in sorted(packs.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        flat = torch.cat([values[i].reshape(-1).to(dev, dtype) for i in idx])
        red = _reduce(flat, kind, group, dist_sync_fn)
        offset = 0
        for i in idx:
            n = values[i].numel()
            out[i] = red[offset : offset + n].reshape(values[i].shape).to(values[i].device)
            offset += n

    # Cat: sizes of every state on every rank in one gather, then one padded gather per dtype.
    cat_idx = [i for i, s in enumerate(specs) if isinstance(s, Cat)]
    if cat_idx:
        local = {i: specs[i].join(values[i], dev).to(dev) for i in cat_idx}  # type: ignore[attr-defined]
        sizes = torch.tensor([local[i].numel() for i in cat_idx], dtype=torch.int64, device=dev)
        all_sizes = torch.stack(_gather(sizes, group, dist_sync_fn)).cpu()  # (world, n_cat)
        by_dtype: dict[torch.dtype, list[int]] = {}
        for j, i in enumerate(cat_idx):
            by_dtype.setdefault(specs[i].dtype, []).append(j)
        for dtype, cols in sorted(by_dtype.items(), key=lambda kv: str(kv[0])):
            totals = all_sizes[:, cols].sum(1)
            width = int(totals.max())
            buf = torch.zeros(width, dtype=dtype, device=dev)
            mine = [local[cat_idx[j]].reshape(-1) for j in cols]
            if mine:
                joined = torch.cat(mine)
                buf[: joined.numel()] = joined
            gathered = _gather(buf, group, dist_sync_fn)
            rows: dict[int, list[torch.Tensor]] = {j: [] for j in cols}
            for r, g in enumerate(gathered):
                offset = 0
                for j in cols:
                    n = int(all_sizes[r, j])
                    rows[j].append(g[offset : offset + n])
                    offset += n
            for j in cols:
                i = cat_idx[j]
                spec = specs[i]
                out[i] = torch.cat(rows[j]).reshape(-1, *spec.shape).to(home)

    # Objects: only on request.
    if sync_objects:
        for i, spec in enumerate(specs):
            if isinstance(spec, Objects):
                gathered_obj: list[Any] = [None] * world_size(group)
                torch.distributed.all_gather_object(gathered_obj, list(values[i]), group=group)
                out[i] = [x for part in gathered_obj for x in part]
    for i, spec in enumerate(specs):
        if isinstance(spec, Cat) and isinstance(out[i], list):  # not synced above (no Cat idx)
            out[i] = spec.join(out[i], home)
    return out
