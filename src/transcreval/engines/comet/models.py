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

import threading
from dataclasses import dataclass

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


_LOCK = threading.Lock()
_MODELS: dict[str, CometModelSpec] = {}


def register_comet_model(spec: CometModelSpec, *, overwrite: bool = False) -> CometModelSpec:
    """Make a COMET model known by name (its files must be manifest entries)."""
    with _LOCK:
        old = _MODELS.get(spec.name)
        if old is not None and old != spec and not overwrite:
            raise ValueError(f"COMET model {spec.name!r} is already registered; pass overwrite=True to replace it")
        _MODELS[spec.name] = spec
    return spec


def unregister_comet_model(name: str) -> None:
    """Forget a COMET model (mainly for tests)."""
    with _LOCK:
        _MODELS.pop(name, None)


def comet_model_spec(name: str) -> CometModelSpec | None:
    """The spec of a known model, or None."""
    with _LOCK:
        return _MODELS.get(name)


def known_comet_models() -> list[str]:
    with _LOCK:
        return sorted(_MODELS)


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

register_weights(
    WeightsEntry(
        name="comet-wmt22-da",
        filename="wmt22-comet-da.ckpt",
        sha256=None,
        size=None,
        urls=(f"{_WMT22}/checkpoints/model.ckpt",),
        licence="Apache-2.0 (Unbabel COMET)",
        used_by=_USED_BY,
        layout="comet-checkpoint",
        sha256_note=_NO_DIGEST,
        description="COMET-22 DA estimator (Unbabel/wmt22-comet-da) checkpoint, about 2.3 GB",
    )
)
register_weights(
    WeightsEntry(
        name="comet-wmt22-da-hparams",
        filename="wmt22-comet-da.hparams.yaml",
        sha256=None,
        size=None,
        urls=(f"{_WMT22}/hparams.yaml",),
        licence="Apache-2.0 (Unbabel COMET)",
        used_by=_USED_BY,
        layout="comet-hparams",
        sha256_note=_NO_DIGEST,
        description="hparams.yaml of Unbabel/wmt22-comet-da",
    )
)
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
for _file, _name, _filename, _what in _XLMR_FILES:
    register_weights(
        WeightsEntry(
            name=_name,
            filename=_filename,
            sha256=None,
            size=None,
            urls=(f"{_XLMR}/{_file}",),
            licence="MIT (FacebookAI/xlm-roberta-large)",
            used_by=_USED_BY,
            layout="hf-encoder-file",
            sha256_note=_NO_DIGEST,
            description=f"xlm-roberta-large {_what} ({_file}), the encoder of the COMET-22 models",
        )
    )

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
del _file, _name, _filename, _what
