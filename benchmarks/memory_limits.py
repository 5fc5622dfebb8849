"""The largest image each neural metric (and pHash) accepts in a memory budget (issue 20 item 5).

Each (metric, size) runs in a fresh process: build the metric (seeded random-init weights in the
real layouts, as the benchmarks use), ``update`` it with one pair of ``size x size`` uint8 RGB
tensors, twice (FID needs two images a side), then ``compute``; the process's peak resident
memory from the first update on (Linux's ``VmHWM``, reset after the metric is built) is the
number: the imports and the metric's weights are in it, building them is not. A
line ``peak = a + b * pixels`` through the two largest sizes gives the bytes per pixel ``b`` and
the largest square image whose estimated peak fits the budget::

    python benchmarks/memory_limits.py            # every metric, 24 GiB
    python benchmarks/memory_limits.py fid clip   # some of them

Not part of ``make bench`` (a few minutes of CPU, mostly LPIPS-vgg); the README quotes a run.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BUDGET = 24 * 2**30
#: metric -> image sides measured (the last two fit the line)
SIZES = {
    "phash": (1024, 4096, 8192),
    "lpips-alex": (1024, 2048, 3072),
    "lpips-vgg": (512, 768, 1024),
    "fid": (1024, 4096, 8192),
    "clip": (1024, 4096, 8192),
}


def _metric(name: str, tmp: Path) -> Any:
    import torch
    from tests._helpers import random_weights as rw
    from tests._helpers.model_weights import TINY_CLIP, inception_file, tiny_clip_checkpoint

    from transcreval import FID, LPIPS, CLIPSimilarity, PHashDistance

    if name == "phash":
        return PHashDistance()
    if name.startswith("lpips-"):
        net = name.split("-")[1]
        path = tmp / f"lpips_{net}.pth"
        torch.save(rw.lpips_layout_state(net, rw.features_only(rw.trunk_state(net)), rw.lin_state(net)), path)
        return LPIPS(net=net, weights=str(path), max_pixels=None)
    if name == "fid":
        return FID(weights=inception_file(0))
    if name == "clip":
        return CLIPSimilarity(TINY_CLIP, tiny_clip_checkpoint())
    raise SystemExit(f"unknown metric {name!r}: one of {', '.join(SIZES)}")


def one(name: str, side: int) -> dict[str, int]:
    """Peak resident bytes of this process after one pair of ``side x side`` images."""
    import tempfile

    import torch

    with tempfile.TemporaryDirectory() as tmp:
        metric = _metric(name, Path(tmp))
        Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM): building the weights is not counted
        g = torch.Generator().manual_seed(0)
        for _ in range(2):  # FID needs two images a side; the peak is one update's
            a = torch.randint(0, 256, (1, 3, side, side), dtype=torch.uint8, generator=g)
            b = torch.randint(0, 256, (1, 3, side, side), dtype=torch.uint8, generator=g)
            metric.update(a, b)
            del a, b
        metric.compute()
    status = Path("/proc/self/status").read_text().splitlines()
    return {"pixels": side * side, "peak": next(int(x.split()[1]) * 1024 for x in status if x.startswith("VmHWM:"))}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        print(json.dumps(one(argv[1], int(argv[2]))))
        return 0
    for name in argv or list(SIZES):
        points = []
        for side in SIZES[name]:
            out = subprocess.run(
                [sys.executable, __file__, "--one", name, str(side)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
                timeout=1800,
            )
            points.append(json.loads(out.stdout.strip().splitlines()[-1]))
        (p1, m1), (p2, m2) = ((p["pixels"], p["peak"]) for p in points[-2:])
        per_px = (m2 - m1) / (p2 - p1)
        fixed = m2 - per_px * p2
        side = math.isqrt(int((BUDGET - fixed) / per_px)) if per_px > 0 else 0
        peaks = ", ".join(f"{math.isqrt(p['pixels'])}^2: {p['peak'] / 2**20:.0f} MiB" for p in points)
        print(
            f"{name}: {peaks}; {per_px:.0f} bytes/pixel + {fixed / 2**20:.0f} MiB; "
            f"largest square image in {BUDGET / 2**30:.0f} GiB ~ {side}x{side} ({side * side / 1e6:.0f} Mpx)"
        )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
