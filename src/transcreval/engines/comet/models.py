"""The COMET models transcreval knows by name, and their files in the weights manifest.

A COMET model is several files: the checkpoint (``checkpoints/model.ckpt``), its
``hparams.yaml``, and the files of the encoder it was trained on (for the XLM-R models: the
encoder's ``config.json`` and its tokenizer). Each file is one manifest entry, so the weights
resolver finds, verifies and fetches it like any other model file
(``transcreval weights fetch NAME... --to DIR``; ``TRANSCREVAL_WEIGHTS_DIR`` searched by file
name). :mod:`transcreval.engines.comet.engine` puts the resolved files into the directory layout
``comet.load_from_checkpoint`` reads, with the encoder files beside the checkpoint, so a known
model loads without the Hugging Face hub.

Importing this module imports nothing heavy.
"""

from __future__ import annotations

from dataclasses import dataclass

from transcreval.utils.named_table import NamedTable
from transcreval.weights.builtin import XLMR_LARGE_FILES

__all__ = ["CometModelSpec", "comet_model_spec", "known_comet_models", "register_comet_model"]


@dataclass(frozen=True)
class CometModelSpec:
    """The files of one COMET model.

    Attributes:
        name: the model's name as COMET publishes it (``"Unbabel/wmt22-comet-da"``).
        checkpoint: the manifest name of the checkpoint file.
        hparams: the manifest name of its ``hparams.yaml``.
        encoder: ``(file name in the encoder directory, manifest name)`` for every encoder file.
        unit_range: the model's segment scores lie in [0, 1] by construction or training, so
            ``normalize="auto"`` keeps them as they are.
        note: where the range claim comes from.
    """

    name: str
    checkpoint: str
    hparams: str
    encoder: tuple[tuple[str, str], ...]
    unit_range: bool
    note: str = ""

    @property
    def manifest_names(self) -> tuple[str, ...]:
        """Every manifest name the model needs, checkpoint first."""
        return (self.checkpoint, self.hparams, *(n for _, n in self.encoder))


_MODELS = NamedTable("COMET model", CometModelSpec)


def register_comet_model(spec: CometModelSpec, *, overwrite: bool = False) -> CometModelSpec:
    """Make a COMET model known by name (its files must be manifest entries)."""
    return _MODELS.add(spec, overwrite=overwrite, caller="register_comet_model")


def unregister_comet_model(name: str) -> None:
    """Forget a COMET model (mainly for tests)."""
    _MODELS.remove(name)


def comet_model_spec(name: str) -> CometModelSpec | None:
    """The spec of a known model, or None."""
    return _MODELS.find(name)


def known_comet_models() -> list[str]:
    return _MODELS.names()


# --------------------------------------------------------------------------- built-in models
# (their files are entries of transcreval.weights.builtin)
register_comet_model(
    CometModelSpec(
        name="Unbabel/wmt22-comet-da",
        checkpoint="comet-wmt22-da",
        hparams="comet-wmt22-da-hparams",
        encoder=tuple((f, n) for f, n, _, _ in XLMR_LARGE_FILES),
        unit_range=True,
        note="trained on DA scores scaled to [0, 1] (Rei et al. 2022); scores slightly outside are possible",
    )
)
