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
from transcreval.weights.manifest import WeightsEntry, register_weights

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
# No digests: the build machines cannot reach the Hugging Face hub, so the files were never
# hashed here. The URLs follow the hub's `resolve/main` form; `transcreval weights fetch` checks
# each file's size on arrival and records its sha256 in every result signature.
_NO_DIGEST = (
    "not established in this project (the Hugging Face hub is unreachable from the build machines); "
    "the file's sha256 enters every COMETScore signature"
)
_WMT22 = "https://huggingface.co/Unbabel/wmt22-comet-da/resolve/main"
_XLMR = "https://huggingface.co/FacebookAI/xlm-roberta-large/resolve/main"
_USED_BY = ("COMETScore", "IMTBenchScore")

_XLMR_FILES = (
    ("config.json", "xlm-roberta-large-config", "xlm-roberta-large.config.json", "encoder configuration"),
    ("tokenizer.json", "xlm-roberta-large-tokenizer", "xlm-roberta-large.tokenizer.json", "fast tokenizer"),
    (
        "sentencepiece.bpe.model",
        "xlm-roberta-large-sentencepiece",
        "xlm-roberta-large.sentencepiece.bpe.model",
        "sentencepiece model",
    ),
)


def _hub_file(url: str, name: str, filename: str, licence: str, layout: str, description: str) -> WeightsEntry:
    """The manifest entry of one file of a Hugging Face repository (no digest: see above)."""
    return WeightsEntry(
        name=name,
        filename=filename,
        sha256=None,
        size=None,
        urls=(url,),
        licence=licence,
        used_by=_USED_BY,
        layout=layout,
        sha256_note=_NO_DIGEST,
        description=description,
    )


_COMET_LICENCE = "Apache-2.0 (Unbabel COMET)"
for _entry in (
    _hub_file(
        f"{_WMT22}/checkpoints/model.ckpt",
        "comet-wmt22-da",
        "wmt22-comet-da.ckpt",
        _COMET_LICENCE,
        "comet-checkpoint",
        "COMET-22 DA estimator (Unbabel/wmt22-comet-da) checkpoint, about 2.3 GB",
    ),
    _hub_file(
        f"{_WMT22}/hparams.yaml",
        "comet-wmt22-da-hparams",
        "wmt22-comet-da.hparams.yaml",
        _COMET_LICENCE,
        "comet-hparams",
        "hparams.yaml of Unbabel/wmt22-comet-da",
    ),
    *(
        _hub_file(
            f"{_XLMR}/{file}",
            name,
            filename,
            "MIT (FacebookAI/xlm-roberta-large)",
            "hf-encoder-file",
            f"xlm-roberta-large {what} ({file}), the encoder of the COMET-22 models",
        )
        for file, name, filename, what in _XLMR_FILES
    ),
):
    register_weights(_entry)

register_comet_model(
    CometModelSpec(
        name="Unbabel/wmt22-comet-da",
        checkpoint="comet-wmt22-da",
        hparams="comet-wmt22-da-hparams",
        encoder=tuple((f, n) for f, n, _, _ in _XLMR_FILES),
        unit_range=True,
        note="trained on DA scores scaled to [0, 1] (Rei et al. 2022); scores slightly outside are possible",
    )
)
del _entry
