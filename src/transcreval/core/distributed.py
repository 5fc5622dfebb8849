"""State synchronisation over ``torch.distributed``.

One call, :func:`sync_states`, syncs any list of states (one metric's or a whole collection's):

* Sum/Max/Min states are grouped by (operation, dtype), flattened into one buffer each and
  reduced with a single ``all_reduce``: traffic is O(state size), not O(world x state size).
* Cat states are grouped by dtype: the per-state sizes of every rank are gathered in one
  ``all_gather``, then each dtype's rows travel in one padded ``all_gather`` and are unpacked
  rank-major. Uneven and empty ranks are fine.
* Objects states that travel (``Objects(sync=True)``, or all of them with ``sync_objects``) are
  pickled into uint8 rows and gathered the same way as Cat rows, so they honour
  ``process_group`` and ``dist_sync_fn`` like every other state.

A custom ``dist_sync_fn(tensor, group) -> list[Tensor]`` (torchmetrics' gather signature)
replaces the collectives: buffers are gathered with it and reduced locally; no
``torch.distributed`` process group is needed then. With the NCCL backend, CPU states are
staged through the current CUDA device. Results are placed on ``device``.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from typing import Any

import torch

from transcreval.core.states import Cat, Objects, ReducedState, State
from transcreval.errors import SyncError

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
        stacked = torch.stack(_gather(buf, group, fn))
        if kind == "sum":
            return stacked.sum(0)
        return stacked.amax(0) if kind == "max" else stacked.amin(0)
    op = getattr(torch.distributed.ReduceOp, _REDUCE_OPS[kind])
    buf = buf.clone()
    torch.distributed.all_reduce(buf, op=op, group=group)
    return buf


def _wire_dtype(dtype: torch.dtype) -> torch.dtype:
    # collectives do not all support bool: send 0/1 bytes (max/min of bytes == any/all)
    return torch.uint8 if dtype == torch.bool else dtype


def _gather_rows(
    local: list[torch.Tensor], dtype: torch.dtype, group: Any, fn: DistSyncFn | None, dev: torch.device
) -> list[list[torch.Tensor]]:
    """Gather several flat tensors of one dtype from every rank in one size gather and one
    padded gather; returns, per local tensor position, the rank-major list of pieces."""
    sizes = torch.tensor([t.numel() for t in local], dtype=torch.int64, device=dev)
    all_sizes = torch.stack(_gather(sizes, group, fn)).cpu()  # (world, n)
    width = int(all_sizes.sum(1).max()) if all_sizes.numel() else 0
    buf = torch.zeros(width, dtype=dtype, device=dev)
    if local:
        joined = torch.cat([t.reshape(-1).to(dev, dtype) for t in local])
        buf[: joined.numel()] = joined
    gathered = _gather(buf, group, fn)
    pieces: list[list[torch.Tensor]] = [[] for _ in local]
    for r, g in enumerate(gathered):
        offset = 0
        for j in range(len(local)):
            n = int(all_sizes[r, j])
            pieces[j].append(g[offset : offset + n])
            offset += n
    return pieces


def sync_states(
    specs: Sequence[State],
    values: Sequence[Any],
    *,
    group: Any = None,
    dist_sync_fn: DistSyncFn | None = None,
    sync_objects: bool = False,
    device: torch.device | str | None = None,
) -> list[Any]:
    """Return the states of all ranks combined; the inputs are left untouched.

    ``values`` holds each state's local value: a tensor for Sum/Max/Min, a list of row tensors
    for Cat, a list for Objects. The result holds a new tensor for Sum/Max/Min, one
    concatenated tensor (rank-major) for Cat, and a list for Objects (rank-major; Objects that
    do not travel keep the local list). Tensors are placed on ``device`` (default: the device
    of the first tensor state, else the CPU). Every rank must call this with the same specs in
    the same order: it is a collective.
    """
    if dist_sync_fn is None and not distributed_available():
        raise SyncError(
            "cannot sync metric states: torch.distributed has no initialised process group "
            "(call torch.distributed.init_process_group, or pass dist_sync_fn=..., or compute(sync=False))"
        )
    home = torch.device(device) if device is not None else None
    if home is None:
        home = next((v.device for v in values if isinstance(v, torch.Tensor)), torch.device("cpu"))
    dev = home if dist_sync_fn is not None else _comm_device(group, home)
    out: list[Any] = list(values)

    # Sum / Max / Min: one packed all_reduce per (kind, dtype).
    packs: dict[tuple[str, torch.dtype], list[int]] = {}
    for i, spec in enumerate(specs):
        if isinstance(spec, ReducedState):
            packs.setdefault((spec.kind, spec.dtype), []).append(i)
    for (kind, dtype), idx in sorted(packs.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        wire = _wire_dtype(dtype)
        flat = torch.cat([values[i].reshape(-1).to(dev, wire) for i in idx])
        red = _reduce(flat, kind, group, dist_sync_fn)
        offset = 0
        for i in idx:
            n = values[i].numel()
            out[i] = red[offset : offset + n].reshape(values[i].shape).to(home, dtype)
            offset += n

    # Cat rows, and the Objects that travel (pickled to uint8 rows): per dtype, one size
    # gather and one padded gather.
    travelling: dict[torch.dtype, list[tuple[int, torch.Tensor]]] = {}
    for i, spec in enumerate(specs):
        if isinstance(spec, Cat):
            travelling.setdefault(_wire_dtype(spec.dtype), []).append((i, spec.join(list(values[i]), dev).to(dev)))
        elif isinstance(spec, Objects) and (spec.sync or sync_objects):
            blob = torch.frombuffer(bytearray(pickle.dumps(list(values[i]))), dtype=torch.uint8)
            travelling.setdefault(torch.uint8, []).append((i, blob))
    for dtype, items in sorted(travelling.items(), key=lambda kv: str(kv[0])):
        pieces = _gather_rows([t for _, t in items], dtype, group, dist_sync_fn, dev)
        for (i, _), parts in zip(items, pieces):
            spec = specs[i]
            if isinstance(spec, Objects):
                gathered = [x for p in parts for x in pickle.loads(p.cpu().numpy().tobytes())]
                out[i] = spec.merge([], gathered)
            else:
                out[i] = torch.cat(parts).to(spec.dtype).reshape(-1, *spec.shape).to(home)
    for i, spec in enumerate(specs):
        if isinstance(spec, Objects) and not (spec.sync or sync_objects):
            out[i] = list(values[i])
    return out
