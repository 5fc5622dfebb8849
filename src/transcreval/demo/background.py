"""Demo section: IMTBench's background preservation S_bg = 1 - masked LPIPS, and plain LPIPS.

Runs when the LPIPS AlexNet weights are on this machine (never downloads); otherwise prints one
line naming the missing file and the command that fetches it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from transcreval.utils.text_table import format_table

if TYPE_CHECKING:
    import torch

    from transcreval.demo.context import DemoContext

TITLE = "background preservation (IMTBench S_bg = 1 - masked LPIPS), LPIPS"
NEEDED = ("torchvision-alexnet", "lpips-alex-lin-v0.1")


def background_mask(margin: int = 4) -> torch.Tensor:
    """1 outside the source posters' title band (grown by ``margin`` pixels), 0 inside it."""
    import torch

    from transcreval.data.demo_set import H, W

    mask = torch.ones(H, W, dtype=torch.bool)
    x0, y0, x1, y1 = 60, H - 52, W - 60, H - 36  # the band of the demo set's layout-0 posters
    mask[max(0, y0 - margin) : y1 + margin + 1, max(0, x0 - margin) : x1 + margin + 1] = False
    return mask


def missing_weights() -> list[str]:
    """The manifest names of the LPIPS files this machine lacks (searching never downloads)."""
    from transcreval.weights import locate

    return [name for name in NEEDED if locate(name)[0] is None]


def run(ctx: DemoContext, out: TextIO) -> None:
    missing = missing_weights()
    if missing:
        print(
            f"skipped: LPIPS weights missing ({', '.join(missing)}); get them with "
            f"`transcreval weights fetch {' '.join(missing)}` (or `--to DIR` on a connected machine, then "
            "TRANSCREVAL_WEIGHTS_DIR=DIR)",
            file=out,
        )
        return
    from transcreval.core.collection import MetricCollection
    from transcreval.image.lpips import LPIPS
    from transcreval.image.masked_lpips import BackgroundPreservation, MaskedLPIPS

    mask = background_mask()
    targets = [p.target for p in ctx.posters]
    rows, signature = [], ""
    for name in ctx.systems:
        col = MetricCollection(
            {"S_bg": BackgroundPreservation(), "MaskedLPIPS": MaskedLPIPS(), "LPIPS": LPIPS()}
        )  # the AlexNet trunk runs once per image for all three
        col.update([p.outputs[name] for p in ctx.posters], targets, mask=mask)
        res = col.compute()
        rows.append(
            [
                name,
                f"{res['S_bg'].value:.4f}",
                f"{res['MaskedLPIPS'].value:.4f}",
                f"{res['LPIPS'].value:.4f}",
                f"{res['S_bg'].extras['mean_coverage']:.3f}",
            ]
        )
        signature = str(res["S_bg"].signature)
    header = ["system", "S_bg (higher better)", "MaskedLPIPS", "LPIPS (whole image)", "background share"]
    print(format_table(rows, header), end="\n\n", file=out)
    print("outputs vs the human target posters; background = outside the title band", file=out)
    print(f"signature: {signature}", file=out)
