"""Processes of a run under ``torchrun`` (or any initialised ``torch.distributed`` group).

``evaluate`` needs no change to run on N processes: when ``torch.distributed`` is initialised, or
the environment says ``WORLD_SIZE`` > 1 (torchrun sets it, with ``RANK`` and the rendezvous),
each rank scores the items ``items[rank::world]`` of every unit and appends its lines to its own
files; after a barrier, rank 0 merges the files and computes the results from the stored
per-item data in manifest order, so set-level statistics (FID from the stored features) equal a
one-process run exactly. Other ranks wait at a second barrier and then read the same results.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["Ranks", "current"]


@dataclass(frozen=True)
class Ranks:
    rank: int = 0
    world: int = 1
    initialised_here: bool = False

    @property
    def main(self) -> bool:
        return self.rank == 0

    def shard(self, works: list[Any]) -> list[Any]:
        return works[self.rank :: self.world] if self.world > 1 else works

    def barrier(self) -> None:
        if self.world > 1:
            import torch.distributed as dist

            dist.barrier()

    def agree(self, failure: str | None) -> str | None:
        """Rank 0's ``failure`` (None: none) on every rank, so that all stop together when only
        rank 0 could check something (the run directory's lock)."""
        if self.world <= 1:
            return failure
        import torch.distributed as dist

        box = [failure if self.main else None]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def gather(self, obj: Any) -> list[Any]:
        """Every rank's ``obj``, in rank order, on every rank (picklable objects)."""
        if self.world <= 1:
            return [obj]
        import torch.distributed as dist

        out: list[Any] = [None] * self.world
        dist.all_gather_object(out, obj)
        return out

    def finish(self) -> None:
        if self.initialised_here:
            import torch.distributed as dist

            dist.destroy_process_group()


def current(device: str | None = None) -> Ranks:
    """This process's rank and the world size; initialises the default group from torchrun's
    environment (gloo, or nccl for a CUDA device) when it is not yet initialised."""
    env_world = int(os.environ.get("WORLD_SIZE", "1") or 1)
    if "torch.distributed" not in sys.modules and env_world <= 1:
        return Ranks()
    import torch.distributed as dist

    if not dist.is_available():
        return Ranks()
    here = False
    if not dist.is_initialized():
        if env_world <= 1:
            return Ranks()
        backend = "nccl" if device is not None and str(device).startswith("cuda") else "gloo"
        dist.init_process_group(backend)
        here = True
    world = dist.get_world_size()
    return Ranks(dist.get_rank(), world, here) if world > 1 else Ranks(0, 1, here)
