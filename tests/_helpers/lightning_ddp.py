"""A Lightning training run on 2 CPU processes (DDP, gloo) logging wrapped transcreval metrics.

Run as a script: ``python lightning_ddp.py OUT_DIR``. Lightning's DDP launcher starts the
second process by running this script again. Per epoch the module logs
``self.log("chrf", wrapped, on_epoch=True)`` (update in the step, value at epoch end),
``"chrf_fwd"`` (forward in the step: batch values on_step, the epoch value on_epoch) and
``"kendall"`` (a set-level statistic with per-item Cat states). The CSV logger writes
``OUT_DIR/log/**/metrics.csv``; each rank writes the items it saw to ``OUT_DIR/rank<r>.json``.
The texts change with the epoch, so an epoch value carried over a missed reset would show.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

N_ITEMS = 16
WORDS = "a cat sat on the mat while the red dog ran far away from home".split()  # noqa: SIM905


def texts(epoch: int) -> tuple[list[str], list[str], list[float], list[float]]:
    """Per item: system text, reference, a metric score and a human rating (for Kendall)."""
    hyps = [" ".join(WORDS[(i + k) % len(WORDS)] for k in range(3 + i % 4)) + " x" * epoch for i in range(N_ITEMS)]
    refs = [" ".join(WORDS[(i + k + i % 3) % len(WORDS)] for k in range(4)) for i in range(N_ITEMS)]
    scores = [float((i * 7 + epoch * 3) % 11) for i in range(N_ITEMS)]
    human = [float((i * 5) % 9) for i in range(N_ITEMS)]
    return hyps, refs, scores, human


def main(out: Path) -> None:
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    import lightning as L
    import torch
    from lightning.pytorch.loggers import CSVLogger
    from torch.utils.data import DataLoader, Dataset

    from transcreval import SpearmanRho, TitleChrF
    from transcreval.integrations.torchmetrics import wrap

    class Items(Dataset):
        def __len__(self) -> int:
            return N_ITEMS

        def __getitem__(self, i: int) -> dict:
            return {"x": torch.full((2,), float(i)), "idx": i}

    class Module(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(2, 1)
            self.chrf = wrap(TitleChrF())
            self.chrf_fwd = wrap(TitleChrF())
            self.rho = wrap(SpearmanRho())
            self.seen: list[dict] = []

        def training_step(self, batch: dict, batch_idx: int) -> torch.Tensor:
            hyps, refs, scores, human = texts(self.current_epoch)
            idx = batch["idx"].tolist()
            self.chrf.update([hyps[i] for i in idx], [refs[i] for i in idx])
            self.log("chrf", self.chrf, on_step=False, on_epoch=True)
            step_value = self.chrf_fwd([hyps[i] for i in idx], [refs[i] for i in idx])
            self.log("chrf_fwd", self.chrf_fwd, on_step=True, on_epoch=True)
            self.rho.update(torch.tensor([scores[i] for i in idx]), torch.tensor([human[i] for i in idx]))
            self.log("rho", self.rho, on_step=False, on_epoch=True)
            self.seen.append({"epoch": self.current_epoch, "idx": idx, "step_value": float(step_value)})
            return self.layer(batch["x"]).pow(2).mean()

        def on_train_end(self) -> None:
            (out / f"rank{self.global_rank}.json").write_text(json.dumps(self.seen))

        def configure_optimizers(self) -> torch.optim.Optimizer:
            return torch.optim.SGD(self.parameters(), lr=0.001)

    trainer = L.Trainer(
        accelerator="cpu",
        devices=2,
        strategy="ddp",
        max_epochs=2,
        logger=CSVLogger(str(out), name="log"),
        log_every_n_steps=1,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(Module(), DataLoader(Items(), batch_size=2, shuffle=False))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
