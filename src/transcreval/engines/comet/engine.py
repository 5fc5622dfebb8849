"""COMET models for :class:`~transcreval.COMETScore`: find the files, load once per process,
score through comet's own ``predict``.

* :func:`find_comet_files` turns ``(model, checkpoint)`` into a checkpoint in the directory
  layout ``comet.load_from_checkpoint`` reads (``<root>/checkpoints/model.ckpt`` with
  ``<root>/hparams.yaml``): a ``checkpoint=`` file or directory as given; a model known by name
  (:mod:`transcreval.engines.comet.models`) from the weights resolver, its files linked into
  ``<cache>/comet/<model>-<digest>/`` with the encoder files in ``encoder/``; any other name
  from comet's own download cache. Nothing found is a
  :class:`~transcreval.errors.WeightsNotFoundError` naming the command that fetches the files,
  never comet's ``KeyError``.
* An ``encoder/`` directory beside the checkpoint's ``hparams.yaml`` (the encoder's
  ``config.json`` and tokenizer files) replaces the encoder name the checkpoint records
  (``xlm-roberta-large``), so the model loads without the Hugging Face hub; without one, the
  checkpoint loads with ``comet.load_from_checkpoint`` itself (``local_files_only`` when
  offline).
* :class:`CometScorer` loads each (checkpoint, device) once per process and scores samples with
  ``model.predict`` (segments sorted by length, batches of ``batch_size``, GPU when the device
  is one). Importing comet configures the root logger and Lightning prints banners: both are
  kept quiet.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import threading
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transcreval.core.common import check_positive_int
from transcreval.engines.comet.models import CometModelSpec, comet_model_spec, known_comet_models
from transcreval.errors import InputError, MissingDependencyError, WeightsFormatError, WeightsNotFoundError
from transcreval.weights.resolve import cache_root, is_offline, resolve, sha256_file

__all__ = [
    "CometModelFiles",
    "CometScorer",
    "check_device",
    "clear_comet_models",
    "declared_unit_range",
    "find_comet_files",
    "import_comet",
]

_LOGGERS = ("pytorch_lightning", "lightning.pytorch", "lightning_fabric", "lightning", "comet")
_NOISE = (
    r".*pkg_resources is deprecated.*",
    r".*LeafSpec.*",
    r".*does not have many workers.*",
    r".*num_workers.*",
    r".*`isinstance\(treespec.*",
)
_COMET: Any = None
_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str, str, str], Any] = {}


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Lightning's and comet's INFO banners and their known deprecation warnings, silenced."""
    loggers = [logging.getLogger(n) for n in _LOGGERS]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.WARNING)
    try:
        with warnings.catch_warnings():
            for pattern in _NOISE:
                warnings.filterwarnings("ignore", message=pattern)
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def import_comet() -> Any:
    """The ``comet`` package (unbabel-comet), or a MissingDependencyError saying how to get it."""
    global _COMET
    if _COMET is not None:
        return _COMET
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        with quiet():
            import comet
    except ImportError as e:
        err = MissingDependencyError("COMETScore", "unbabel-comet", "comet")
        if getattr(e, "name", None) != "comet":  # installed, but one of its pins is not met here
            err.args = (
                f"unbabel-comet is installed but cannot be imported ({type(e).__name__}: {e}). It needs numpy<2, "
                "transformers<5 and setuptools<81 (pkg_resources): give the 'comet' extra its own environment "
                "(the project's `make test-comet` builds one, .venv-comet)",
            )
            err.msg = err.args[0]  # what str(ImportError) prints
        raise err from e
    finally:  # comet's __init__ calls logging.basicConfig(level=INFO); a library must not configure the root logger
        root.handlers[:] = handlers
        root.setLevel(level)
    _COMET = comet
    return comet


@dataclass(frozen=True)
class CometModelFiles:
    """A COMET checkpoint ready to load.

    Attributes:
        model: the model's name (recorded in signatures).
        checkpoint: the ``.ckpt`` file, inside ``<root>/checkpoints/`` with ``<root>/hparams.yaml``.
        encoder: the encoder directory that replaces the checkpoint's encoder name, or None.
        sha256: the checkpoint's digest.
        source: ``"argument"``, ``"manifest"`` or ``"comet cache"``.
        spec: the registry entry when the model is known by name.
    """

    model: str
    checkpoint: Path
    encoder: Path | None
    sha256: str
    source: str
    spec: CometModelSpec | None = None


def _encoder_beside(root: Path) -> Path | None:
    enc = root / "encoder"
    return enc if (enc / "config.json").is_file() else None


def _from_path(model: str, checkpoint: str | os.PathLike[str]) -> CometModelFiles:
    p = Path(checkpoint).expanduser().absolute()
    layout = "COMET checkpoints live as <dir>/checkpoints/model.ckpt beside <dir>/hparams.yaml"
    if p.is_dir():
        if (p / "checkpoints" / "model.ckpt").is_file():
            p = p / "checkpoints" / "model.ckpt"
        else:
            raise WeightsNotFoundError(f"no checkpoints/model.ckpt in the directory {p} ({layout})", name=model)
    elif not p.is_file():
        raise WeightsNotFoundError(f"the COMET checkpoint {p} does not exist ({layout})", name=model)
    root = p.parent.parent
    if not (root / "hparams.yaml").is_file():
        raise WeightsNotFoundError(
            f"{root / 'hparams.yaml'} is missing: comet reads a checkpoint's hparams.yaml from the folder above "
            f"its 'checkpoints' folder ({layout})",
            name=model,
        )
    return CometModelFiles(model, p, _encoder_beside(root), sha256_file(p), "argument", comet_model_spec(model))


def _link(src: Path, dst: Path) -> None:
    """``dst`` points to ``src`` (a symlink; a copy where links are not allowed), replaced atomically."""
    if dst.is_symlink() and os.path.realpath(dst) == os.path.realpath(src):
        return
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    try:
        os.symlink(src, tmp)
    except OSError:
        shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def _from_manifest(spec: CometModelSpec) -> CometModelFiles:
    found: dict[str, Path] = {}
    problems: list[str] = []
    for name in spec.manifest_names:
        try:
            found[name] = resolve(name).path
        except WeightsNotFoundError as e:
            problems.append(f"- {name}: " + "\n  ".join(str(e).splitlines()[:1] + list(e.searched)))
    names = " ".join(spec.manifest_names)
    cmd = f"transcreval weights fetch {names} --to DIR"
    if problems:
        raise WeightsNotFoundError(
            f"COMET model {spec.name!r} is not on this machine; missing files:\n" + "\n".join(problems) + "\n"
            f"Fix: on a machine with internet access run `{cmd}`, copy DIR here and set TRANSCREVAL_WEIGHTS_DIR=DIR; "
            "or pass checkpoint=<dir>/checkpoints/model.ckpt (with <dir>/hparams.yaml, and the encoder's "
            "config.json and tokenizer files in <dir>/encoder/).",
            name=spec.checkpoint,
            searched=tuple(problems),
            command=cmd,
        )
    digest = sha256_file(found[spec.checkpoint])
    slug = spec.name.replace("/", "--")
    root = cache_root() / "comet" / f"{slug}-{digest[:16]}"
    (root / "checkpoints").mkdir(parents=True, exist_ok=True)
    (root / "encoder").mkdir(exist_ok=True)
    _link(found[spec.checkpoint], root / "checkpoints" / "model.ckpt")
    _link(found[spec.hparams], root / "hparams.yaml")
    for filename, name in spec.encoder:
        _link(found[name], root / "encoder" / filename)
    return CometModelFiles(spec.name, root / "checkpoints" / "model.ckpt", root / "encoder", digest, "manifest", spec)


def _from_comet_cache(model: str) -> CometModelFiles:
    comet = import_comet()
    try:
        with quiet():
            path = Path(comet.download_model(model, local_files_only=is_offline()))
    except Exception as e:  # comet turns every failure into KeyError("Model ... not supported")
        how = "offline" if is_offline() else "online"
        raise WeightsNotFoundError(
            f"COMET model {model!r} is not one transcreval knows by name ({', '.join(known_comet_models())}) and "
            f"comet could not find it ({how}: {type(e).__name__}: {e}). Fix: pass checkpoint=<dir>/checkpoints/"
            "model.ckpt (with <dir>/hparams.yaml, and the encoder's config.json and tokenizer files in "
            f"<dir>/encoder/ to work offline); or on a connected machine run "
            f"`python -c \"import comet; comet.download_model('{model}')\"` and copy the Hugging Face cache here.",
            name=model,
            command=f"python -c \"import comet; comet.download_model('{model}')\"",
        ) from None
    return CometModelFiles(model, path, _encoder_beside(path.parent.parent), sha256_file(path), "comet cache")


def find_comet_files(model: str, checkpoint: str | os.PathLike[str] | None = None) -> CometModelFiles:
    """The checkpoint for ``model`` (see the module docstring for where it is looked for)."""
    if not isinstance(model, str) or not model:
        raise InputError(f"model must be a COMET model name such as 'Unbabel/wmt22-comet-da', got {model!r}")
    if checkpoint is not None:
        return _from_path(model, checkpoint)
    spec = comet_model_spec(model)
    return _from_manifest(spec) if spec is not None else _from_comet_cache(model)


def declared_unit_range(files: CometModelFiles) -> bool:
    """Whether the model's scores lie in [0, 1], found without loading it: a model registered
    with a unit range, or a checkpoint whose ``hparams.yaml`` (the file the loaded model's
    hyper-parameters are read from) names a sigmoid ``final_activation``; what
    :attr:`CometScorer.unit_range` says of the loaded model."""
    import yaml

    if files.spec is not None:
        return files.spec.unit_range
    path = files.checkpoint.parent.parent / "hparams.yaml"
    hparams = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.is_file() else {}
    return str(hparams.get("final_activation") or "").lower() == "sigmoid"


# --------------------------------------------------------------------------- loading
def _load_with_encoder(files: CometModelFiles) -> Any:
    """What ``comet.load_from_checkpoint`` does, with the encoder read from ``files.encoder``."""
    import torch
    import yaml
    from comet.models import str2model

    hparams = yaml.safe_load((files.checkpoint.parent.parent / "hparams.yaml").read_text(encoding="utf-8")) or {}
    cls = str2model.get(hparams.get("class_identifier"))
    if cls is None:
        raise WeightsFormatError(
            f"{files.checkpoint}: hparams.yaml names the model class {hparams.get('class_identifier')!r}, "
            f"which comet does not know ({', '.join(sorted(str2model))})"
        )
    kwargs: dict[str, Any] = {
        "checkpoint_path": files.checkpoint,
        "load_pretrained_weights": False,
        "hparams_file": None,
        "map_location": torch.device("cpu"),
        "strict": False,
        "local_files_only": True,
        "pretrained_model": str(files.encoder),
    }
    if hparams.get("layer_transformation") == "sparsemax_patch":  # comet >= 2.2.4 loads these with softmax
        kwargs["layer_transformation"] = "softmax"
    return cls.load_from_checkpoint(**kwargs)


def _load(files: CometModelFiles) -> Any:
    comet = import_comet()
    try:
        with quiet():
            if files.encoder is not None:
                model = _load_with_encoder(files)
            else:
                model = comet.load_from_checkpoint(str(files.checkpoint), local_files_only=is_offline())
    except OSError as e:  # transformers' "couldn't connect / not in the cached files" for the encoder
        raise WeightsNotFoundError(
            f"COMET checkpoint {files.checkpoint} loaded, but not its encoder files ({e}). Put the encoder's "
            f"config.json and tokenizer files into {files.checkpoint.parent.parent / 'encoder'}/, or fetch a known "
            "model by name on a connected machine (transcreval weights fetch ...).",
            name=files.model,
        ) from None
    model.eval()
    return model


def clear_comet_models() -> None:
    """Forget every loaded COMET model (frees their memory)."""
    with _LOCK:
        _LOADED.clear()


class CometScorer:
    """Scores COMET samples with one model, loaded once per process and device.

    Args:
        model, checkpoint: see :func:`find_comet_files`.
        batch_size: segments per forward pass (comet's ``predict`` batch size).
        device: "cpu" (default) or a CUDA device ("cuda", "cuda:1", a ``torch.device``).
    """

    def __init__(
        self,
        model: str,
        checkpoint: str | os.PathLike[str] | None = None,
        *,
        batch_size: int = 16,
        device: Any = None,
    ) -> None:
        check_positive_int("batch_size", batch_size)
        self.batch_size = batch_size
        self.device = check_device(device)
        import_comet()
        self.files = find_comet_files(model, checkpoint)
        self.model()  # load now: a bad checkpoint fails when the metric is built

    def model(self) -> Any:
        """The loaded comet model (shared by every scorer of this checkpoint in this process)."""
        key = (str(self.files.checkpoint), self.files.sha256, str(self.files.encoder), self.device)
        with _LOCK:
            hit = _LOADED.get(key)
            if hit is None:
                hit = _LOADED[key] = _load(self.files)
        return hit

    @property
    def unit_range(self) -> bool:
        """Whether the model's scores lie in [0, 1]: a known unit-range model, or a sigmoid output."""
        if self.files.spec is not None:
            return self.files.spec.unit_range
        return str(getattr(self.model().hparams, "final_activation", None) or "").lower() == "sigmoid"

    def __call__(self, samples: Sequence[dict[str, str]]) -> list[float]:
        """Segment scores of ``[{"src", "mt", "ref"}, ...]``, in order, from comet's ``predict``."""
        if not samples:
            return []
        kwargs: dict[str, Any] = {
            "batch_size": self.batch_size,
            "progress_bar": False,
            "num_workers": 0,
            "length_batching": True,
        }
        if self.device.startswith("cuda"):
            index = int(self.device.partition(":")[2] or 0)
            kwargs.update(gpus=1, devices=[index], accelerator="gpu")
        else:
            kwargs.update(gpus=0)
        with quiet():
            out = self.model().predict(list(samples), **kwargs)
        return [float(s) for s in out.scores]


def check_device(device: Any) -> str:
    """``device`` as comet's predict takes it: "cpu" (None) or "cuda:N" (InputError otherwise,
    or when CUDA is not available)."""
    import torch

    if device is None:
        return "cpu"
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as e:
        raise InputError(f"device must be 'cpu', 'cuda' or 'cuda:N', got {device!r}") from e
    if dev.type == "cpu":
        return "cpu"
    if dev.type != "cuda":
        raise InputError(f"COMETScore runs on 'cpu' or a CUDA device, got {device!r}")
    if not torch.cuda.is_available():
        raise InputError(f"device={device!r} but CUDA is not available here: use device='cpu'")
    return f"cuda:{dev.index if dev.index is not None else 0}"
