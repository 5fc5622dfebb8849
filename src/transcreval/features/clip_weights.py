"""Where the weights of open_clip models (CLIP, SigLIP) come from: the one weights resolver.

:func:`resolve_clip` turns the ``model`` / ``pretrained`` pair that open_clip takes into a local
checkpoint file and its sha256, without letting open_clip reach the network on its own:

* ``pretrained`` = a **file**: that file (hashed);
* ``pretrained`` = an open_clip **tag** (``"openai"``, ``"webli"``...): the manifest entry
  ``open_clip-<model>-<tag>`` (the defaults of the metrics are built in and listed by
  ``transcreval weights list``; any other tag gets an entry the first time it is used), found
  by the weights resolver like every model file: ``TRANSCREVAL_WEIGHTS_DIR``, the user cache,
  the Hugging Face hub cache open_clip downloads into, then a download from the Hugging Face
  hub, unless offline mode is on (``TRANSCREVAL_OFFLINE=1`` / ``HF_HUB_OFFLINE=1``): then a miss
  is a :class:`~transcreval.errors.WeightsNotFoundError` at once, listing every place searched;
* ``model="local-dir:DIR"``: the checkpoint in DIR (open_clip's file names);
* ``model="hf-hub:org/name"``: the repository's files in the Hugging Face hub cache, loaded as
  a local directory; offline and not cached is the same immediate error.

A tag's file is loaded with the tag's preprocessing (mean, std, interpolation, resize mode from
open_clip's pretrained config), exactly as ``open_clip.create_model_and_transforms(model,
pretrained=tag)`` builds it. The tokenizer of models that use a Hugging Face tokenizer (SigLIP)
is read from the hub cache too when it is there (``tokenizer=DIR`` overrides); offline and not
cached is an immediate error naming ``tokenizer=``.

open_clip and the Hugging Face hub publish no sha256 for these files: the entries have none
(``sha256_note`` says so), a file found is used with one
:class:`~transcreval.errors.UnverifiedWeightsWarning` per file and process, and its digest goes
into result signatures and feature-cache keys.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transcreval.errors import InputError, WeightsNotFoundError
from transcreval.weights.builtin import CLIP_WEIGHTS, OPEN_CLIP_NOTE, clip_entry_name
from transcreval.weights.hf_cache import repo_dir, snapshot_with
from transcreval.weights.manifest import WeightsEntry, get_entry, register_weights
from transcreval.weights.resolve import is_offline, resolve, resolve_file, sha256_file

__all__ = [
    "CLIP_WEIGHTS",
    "CLIPWeights",
    "check_model_options",
    "clip_entry_name",
    "model_config",
    "resolve_clip",
    "weights_key",
]

#: open_clip's checkpoint names in a model directory, in its order of preference
DIR_CHECKPOINTS = (
    "open_clip_model.safetensors",
    "open_clip_pytorch_model.safetensors",
    "open_clip_pytorch_model.bin",
    "open_clip_pytorch_model.pth",
    "open_clip_model.bin",
)
#: the files a Hugging Face tokenizer directory holds (any one of them)
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "spiece.model")


def _hub_source(cfg: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """(repository, file names in open_clip's order) of a tag's ``hf_hub`` (``"org/name/"`` or
    ``"org/name/file"``): open_clip tries the safetensors twin of a ``.bin``/``.pth`` first."""
    repo, _, name = str(cfg.get("hf_hub", "")).rstrip().rpartition("/")
    if not repo:
        return "", ()
    name = name or "open_clip_pytorch_model.bin"
    if name == "open_clip_pytorch_model.bin":
        return repo, ("open_clip_model.safetensors", name)
    if name.endswith((".bin", ".pth")):
        return repo, (name[:-4] + ".safetensors", name)
    return repo, (name,)


def tag_entry(model: str, tag: str, cfg: dict[str, Any]) -> WeightsEntry:
    """The manifest entry of a tag's checkpoint (registered on first use)."""
    name = clip_entry_name(model, tag)
    try:
        return get_entry(name)
    except KeyError:
        pass
    repo, files = _hub_source(cfg)
    url = str(cfg.get("url", ""))
    urls: tuple[str, ...] = (f"https://huggingface.co/{repo}/resolve/main/{files[-1]}",) if repo else ()
    if url and "openaipublic" not in url:  # OpenAI's own files are TorchScript archives: not loadable here
        urls += (url,)
    suffix = Path(files[-1] if files else url).suffix or ".bin"
    return register_weights(
        WeightsEntry(
            name=name,
            filename=f"{name}{suffix}",
            sha256=None,
            size=None,
            urls=urls,
            licence="see the model card of the Hugging Face repository" if repo else "see open_clip's pretrained list",
            used_by=(f"open_clip {model} ({tag})",),
            hf_repo=repo,
            hf_files=files,
            layout="open_clip",
            sha256_note=OPEN_CLIP_NOTE,
            description=f"open_clip {model} weights, pretrained tag {tag!r}",
        )
    )


@dataclass(frozen=True)
class CLIPWeights:
    """What :func:`resolve_clip` found.

    Attributes:
        model: the model name to give open_clip (``hf-hub:`` models become ``local-dir:``).
        checkpoint: the checkpoint file (None for ``local-dir:`` models: open_clip finds it).
        sha256: the checkpoint's digest.
        source: where it was found.
        tag: the pretrained tag, or "" (a file, a model directory).
        tag_cfg: the tag's open_clip config (its preprocessing), or {}.
        tokenizer: a local tokenizer directory, when one was found (or given).
    """

    model: str
    checkpoint: Path | None
    sha256: str
    source: str
    tag: str = ""
    tag_cfg: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    tokenizer: str | None = None

    @property
    def id(self) -> str:
        """The weights in a signature: ``<tag>@<sha256[:12]>`` or ``file-<sha256[:12]>``."""
        return f"{self.tag}@{self.sha256[:12]}" if self.tag else f"file-{self.sha256[:12]}"

    def create_kwargs(self) -> dict[str, Any]:
        """``open_clip.create_model_and_transforms`` arguments besides the model name and device."""
        kw: dict[str, Any] = {}
        if self.checkpoint is not None and not self.model.startswith("local-dir:"):
            kw["pretrained"] = str(self.checkpoint)
        cfg = self.tag_cfg
        for key, arg in (("mean", "image_mean"), ("std", "image_std")):
            if cfg.get(key) is not None:
                kw[arg] = tuple(cfg[key])
        for key, arg in (("interpolation", "image_interpolation"), ("resize_mode", "image_resize_mode")):
            if cfg.get(key) is not None:
                kw[arg] = cfg[key]
        return kw


def weights_key(model: str, pretrained: Any) -> tuple[str | None, str]:
    """The path and content id of explicit weights (a file's or a model directory's sha256: a
    checkpoint re-saved at the same path gives a new key); a tag stands for itself."""
    if model.startswith("local-dir:"):
        d = model.removeprefix("local-dir:")
        found = next((os.path.join(d, n) for n in DIR_CHECKPOINTS if os.path.isfile(os.path.join(d, n))), None)
        return (d, f"file-{sha256_file(found)[:12]}" if found else "local-dir")
    if pretrained is not None and os.path.isfile(pretrained):
        return (os.fspath(pretrained), f"file-{sha256_file(pretrained)[:12]}")
    return (None, str(pretrained))


def check_model_options(model: Any, pretrained: Any) -> None:
    """A model name needs its weights: a tag or a file (``local-dir:``/``hf-hub:`` models carry
    their own); random weights are never used silently."""
    if not isinstance(model, str) or not model:
        raise InputError(f"model must be an open_clip model name, got {model!r}")
    schema = model.startswith(("local-dir:", "hf-hub:"))
    if schema and pretrained is not None:
        raise InputError(f"model {model!r} carries its own weights: leave pretrained unset (got {pretrained!r})")
    if not schema and pretrained is None:
        raise InputError(
            f"pass pretrained= (an open_clip tag such as 'openai' / 'webli', or a checkpoint file) "
            f"with model={model!r}; open_clip would otherwise give random weights"
        )


def _offline_miss(what: str, searched: list[str], fix: str) -> WeightsNotFoundError:
    places = "\n".join(f"  {i}. {s}" for i, s in enumerate(searched, 1))
    return WeightsNotFoundError(
        f"{what} not found locally, and offline mode is on (TRANSCREVAL_OFFLINE / HF_HUB_OFFLINE).\n"
        f"Searched:\n{places}\nFix: {fix}",
        name=what,
        searched=tuple(searched),
    )


def _dir_checkpoint(d: Path) -> Path | None:
    return next((d / n for n in DIR_CHECKPOINTS if (d / n).is_file()), None)


def model_config(model: str) -> dict[str, Any] | None:
    """open_clip's model config of ``model`` (a built-in name, or a ``local-dir:``'s JSON)."""
    if model.startswith("local-dir:"):
        path = Path(model.removeprefix("local-dir:")) / "open_clip_config.json"
        try:
            cfg = json.loads(path.read_text(encoding="utf-8")).get("model_cfg")
        except (OSError, ValueError):
            return None
        return cfg if isinstance(cfg, dict) else None
    if model.startswith("hf-hub:"):
        return None
    import open_clip

    cfg = open_clip.get_model_config(model)
    return cfg if isinstance(cfg, dict) else None


def _local_model(model: str) -> CLIPWeights:
    d = Path(model.removeprefix("local-dir:")).expanduser()
    ck = _dir_checkpoint(d) if d.is_dir() else None
    if ck is None:
        raise WeightsNotFoundError(
            f"open_clip model {model!r}: {d} {'holds no checkpoint' if d.is_dir() else 'is not a directory'} "
            f"(looked for {', '.join(DIR_CHECKPOINTS)}); open_clip would build the model with random weights",
            name=model,
            searched=(str(d),),
        )
    return CLIPWeights(f"local-dir:{d}", None, sha256_file(ck), "argument")


def _hub_model(model: str) -> CLIPWeights | None:
    repo = model.removeprefix("hf-hub:")
    snap = snapshot_with(repo, "open_clip_config.json")
    if snap is not None and _dir_checkpoint(snap) is not None:
        found = _local_model(f"local-dir:{snap}")
        return CLIPWeights(found.model, None, found.sha256, "huggingface cache")
    if is_offline():
        raise _offline_miss(
            f"open_clip model {model!r}",
            [f"huggingface cache: {repo_dir(repo)} (open_clip_config.json and a checkpoint: not there)"],
            f'on a connected machine run `python -c "import open_clip; open_clip.create_model_and_transforms('
            f"'{model}')\"` and copy its Hugging Face cache (HF_HUB_CACHE) here, or download the repository "
            "into a directory and pass model='local-dir:DIR'",
        )
    return None  # open_clip downloads it (online)


def find_tokenizer(model: str, tokenizer: Any) -> str | None:
    """A local directory for the Hugging Face tokenizer of ``model`` (``tokenizer`` when given;
    else the hub cache's copy); None when the model's tokenizer ships with open_clip, or, online,
    when open_clip will fetch it. Offline and not cached: WeightsNotFoundError."""
    if tokenizer is not None:
        return os.fspath(tokenizer)
    cfg = model_config(model) or {}
    name = cfg.get("text_cfg", {}).get("hf_tokenizer_name", "")
    if not name:
        return None
    local = Path(model.removeprefix("local-dir:"))
    if model.startswith("local-dir:") and any((local / f).is_file() for f in TOKENIZER_FILES):
        return str(local)
    snap = snapshot_with(name, *TOKENIZER_FILES)
    if snap is not None:
        return str(snap)
    if is_offline():
        raise _offline_miss(
            f"the tokenizer of open_clip model {model!r} (Hugging Face {name!r})",
            [f"huggingface cache: {repo_dir(name)} (not there)"],
            "pass tokenizer=/path/to/a/Hugging Face tokenizer directory (save it on a connected machine with "
            f"transformers.AutoTokenizer.from_pretrained({name!r}).save_pretrained(DIR)), or copy the Hugging "
            "Face cache of a machine where the model ran",
        )
    return None


def resolve_clip(model: str, pretrained: Any = None, tokenizer: Any = None) -> CLIPWeights:
    """The checkpoint (and tokenizer directory) of an open_clip model; see the module docstring.

    Raises InputError for a ``pretrained`` that is neither a file nor a tag of ``model``, and
    WeightsNotFoundError (at once when offline) for weights that are not found."""
    if model.startswith("local-dir:"):
        found = _local_model(model)
    elif model.startswith("hf-hub:"):
        hub = _hub_model(model)
        if hub is None:
            return CLIPWeights(
                model, None, "", "hf-hub (open_clip downloads it)", tokenizer=find_tokenizer(model, tokenizer)
            )
        found = hub
    elif pretrained is not None and os.path.isfile(pretrained):
        w = resolve_file(pretrained)
        found = CLIPWeights(model, w.path, w.sha256, "argument")
    else:
        import open_clip

        tag = str(pretrained)
        cfg = dict(open_clip.get_pretrained_cfg(model, tag) or {})
        if not cfg:
            known = ", ".join(open_clip.list_pretrained_tags_by_model(model)) or "none"
            raise InputError(
                f"pretrained={pretrained!r} is neither an existing checkpoint file nor an open_clip tag of {model!r} "
                f"(its tags: {known})"
            )
        if cfg.get("file"):
            w = resolve_file(cfg["file"])
            found = CLIPWeights(model, w.path, w.sha256, "open_clip config", tag, cfg)
        else:
            entry = tag_entry(model, tag, cfg)
            try:
                r = resolve(entry.name)
            except WeightsNotFoundError as e:
                raise WeightsNotFoundError(
                    f"{e} Or pass pretrained=/path/to/checkpoint (open_clip_pytorch_model.bin / .safetensors) "
                    f"with model={model!r}.",
                    name=e.name,
                    searched=e.searched,
                    command=e.command,
                ) from None
            found = CLIPWeights(model, r.path, r.sha256, r.source, tag, cfg)
    local_tok = find_tokenizer(found.model, tokenizer)
    return CLIPWeights(found.model, found.checkpoint, found.sha256, found.source, found.tag, found.tag_cfg, local_tok)
