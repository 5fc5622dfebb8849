"""open_clip image/text dual encoders (CLIP, SigLIP) as extractors, with cached text embeddings.

:func:`get_clip` returns a process-wide :class:`CLIPEncoder` for ``(model, pretrained,
tokenizer, preprocess, device)``:

* ``model`` is any open_clip model name (``"ViT-B-32"``, ``"ViT-B-16-SigLIP"``, a name added with
  ``open_clip.add_model_config``, or ``"local-dir:/path"`` / ``"hf-hub:org/repo"``);
* ``pretrained`` is an open_clip tag (``"openai"``, ``"webli"``: open_clip downloads or finds it in
  its Hugging Face cache) or a local checkpoint file (hashed: the sha256 goes into signatures and
  feature-cache keys), exactly as ``open_clip.create_model_and_transforms`` accepts it;
* ``tokenizer`` (optional) is a local Hugging Face tokenizer directory for models whose
  tokenizer open_clip would fetch from the Hub (SigLIP); CLIP's BPE tokenizer ships with open_clip.

Image embeddings (L2-normalised ``encode_image``) go through the feature registry (one
extractor per encoder: per-batch sharing in a collection, optional on-disk feature cache).
Preprocessing:

* ``"open_clip"`` (default): the model's own open_clip transform (torchvision on PIL images:
  resize, centre crop, uint8 RGB, normalise), applied when images are converted, so the
  embeddings equal ``model.encode_image(preprocess(pil_image))``. Tensors and arrays are turned
  into PIL images by rounding ``x * 255`` to uint8.
* ``"tensor"``: the same steps as torch ops on the device (bicubic resize with antialiasing on
  float pixels, no uint8 rounding): faster, and slightly different (see docs/metrics/CLIPSimilarity.md).

Text embeddings (L2-normalised ``encode_text``) are computed once per (encoder, prompt).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from transcreval.errors import InputError, MissingDependencyError, WeightsNotFoundError
from transcreval.features.extractor import FeatureExtractor, get_extractor, shared_input
from transcreval.features.preprocess import Preprocess, register_preprocess
from transcreval.features.registry import ExtractorSpec, get_extractor_spec, register_extractor
from transcreval.threads import torch_threads

if TYPE_CHECKING:
    import torch

__all__ = ["CLIPEncoder", "clear_clip_encoders", "get_clip", "pil_images"]

PREPROCESS = ("open_clip", "tensor")
_LOCK = threading.RLock()
_ENCODERS: dict[tuple[Any, ...], CLIPEncoder] = {}
_MODELS: dict[tuple[Any, ...], tuple[Any, Any, Any]] = {}


def _require_open_clip() -> Any:
    try:
        import open_clip
    except ImportError:
        raise MissingDependencyError(
            "open_clip models (CLIP/SigLIP metrics)", "open_clip_torch", "multimodal"
        ) from None
    return open_clip


_DIR_CHECKPOINTS = ("open_clip_model.safetensors", "open_clip_pytorch_model.bin", "open_clip_model.bin")


def _pretrained_id(model: str, pretrained: str | os.PathLike[str] | None) -> str:
    """A tag as it is; a file as ``file-<sha256[:12]>`` and a ``local-dir:`` model by its
    checkpoint's digest (so two different files never share cached features)."""
    from transcreval.weights import sha256_file

    if model.startswith("local-dir:"):
        d = model.removeprefix("local-dir:")
        for name in _DIR_CHECKPOINTS:
            if os.path.isfile(os.path.join(d, name)):
                return f"file-{sha256_file(os.path.join(d, name))[:12]}"
        return "local-dir"
    if model.startswith("hf-hub:"):
        return "hf-hub"
    if pretrained is not None and os.path.isfile(pretrained):
        return f"file-{sha256_file(pretrained)[:12]}"
    return str(pretrained)


def _weights_key(model: str, pretrained: Any) -> tuple[str | None, str]:
    """The path and the content id (file sha256) of the weights: a checkpoint re-saved at the
    same path gives a new key, so the new file is loaded (as ``get_extractor`` does)."""
    return (os.fspath(pretrained) if pretrained is not None else None, _pretrained_id(model, pretrained))


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


def _load(model: str, pretrained: Any, tokenizer: Any, device: Any) -> tuple[Any, Any, Any]:
    """(open_clip model, its eval transform, tokenizer), built once per process and device."""
    open_clip = _require_open_clip()
    key = (model, *_weights_key(model, pretrained), tokenizer, str(device))
    with _LOCK:
        hit = _MODELS.get(key)
        if hit is not None:
            return hit
        where = f"open_clip model {model!r} with pretrained={pretrained!r}"
        try:
            net, _, transform = open_clip.create_model_and_transforms(
                model, pretrained=os.fspath(pretrained) if pretrained is not None else None, device=device
            )
        except RuntimeError as e:
            if "Failed to download" in str(e) or "not a known tag" in str(e) or "HF Hub" in str(e):
                raise WeightsNotFoundError(
                    f"{where}: the weights could not be found or downloaded ({e}). On a machine with internet "
                    f'access run `python -c "import open_clip; open_clip.create_model_and_transforms({model!r}, '
                    f'pretrained={pretrained!r})"` and copy its Hugging Face cache (HF_HOME) here, or pass '
                    "pretrained=/path/to/checkpoint (open_clip_pytorch_model.bin / .safetensors).",
                    name=f"{model}/{pretrained}",
                    searched=(where,),
                ) from None
            raise
        try:
            tok = _tokenizer(open_clip, model, tokenizer)
        except (OSError, ValueError) as e:
            raise WeightsNotFoundError(
                f"the tokenizer of open_clip model {model!r} is not available here ({type(e).__name__}: {e}). "
                "Pass tokenizer=/path/to/a/Hugging Face tokenizer directory (save it on a connected machine "
                "with transformers.AutoTokenizer.from_pretrained(NAME).save_pretrained(DIR)).",
                name=f"{model}/tokenizer",
                searched=(str(tokenizer or model),),
            ) from None
        net.eval().requires_grad_(False)
        _MODELS[key] = (net, transform, tok)
        return _MODELS[key]


def _tokenizer(open_clip: Any, model: str, tokenizer: Any) -> Any:
    if tokenizer is None:
        return open_clip.get_tokenizer(model)
    from open_clip.tokenizer import HFTokenizer

    cfg = open_clip.get_model_config(model) or {}
    text_cfg = cfg.get("text_cfg", {})
    kwargs = dict(text_cfg.get("tokenizer_kwargs", {}))
    return HFTokenizer(os.fspath(tokenizer), context_length=text_cfg.get("context_length", 77), **kwargs)


class _ImageTower:
    """``encode_image(x, normalize=True)`` as an nn.Module-like callable for the extractor."""

    def __init__(self, net: Any) -> None:
        self.net = net

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        from transcreval.features.images import fixed_batches

        return fixed_batches(lambda c: self.net.encode_image(c, normalize=True), x)

    def to(self, **_: Any) -> _ImageTower:
        return self

    def eval(self) -> _ImageTower:
        return self

    def requires_grad_(self, _: bool) -> _ImageTower:
        return self


def _tensor_pipeline(cfg: dict[str, Any]) -> Any:
    """open_clip's eval transform as torch ops on float [0, 1] images."""
    size = cfg["size"]
    size = (size, size) if isinstance(size, int) else tuple(size)
    mode, interp = cfg.get("resize_mode", "shortest"), cfg.get("interpolation", "bicubic")
    if mode not in ("shortest", "squash") or size[0] != size[1] or interp not in ("bicubic", "bilinear"):
        raise InputError(
            f"preprocess='tensor' supports square 'shortest'/'squash' transforms, not {cfg}; use 'open_clip'"
        )

    def fn(x: torch.Tensor) -> torch.Tensor:
        import torch
        import torch.nn.functional as F

        h, w = x.shape[-2:]
        s = size[0]
        if mode == "squash":
            oh, ow = s, s
        else:
            oh, ow = (s, int(s * w / h)) if h <= w else (int(s * h / w), s)
        y = F.interpolate(x.float(), size=(oh, ow), mode=interp, antialias=True, align_corners=False).clamp(0, 1)
        top, left = round((oh - s) / 2.0), round((ow - s) / 2.0)
        y = y[..., top : top + s, left : left + s]
        mean = torch.tensor(cfg["mean"], device=y.device, dtype=y.dtype).view(1, -1, 1, 1)
        std = torch.tensor(cfg["std"], device=y.device, dtype=y.dtype).view(1, -1, 1, 1)
        return (y - mean) / std

    return fn


def pil_images(raw: Any, input_range: Any = None, what: str = "images") -> list[Any]:
    """Every image of ``raw`` as an 8-bit RGB PIL image, by :func:`transcreval.io.to_rgb_pil`'s
    rule (16-bit and float images scaled, then ``round(x * 255)``; never PIL's clipping)."""
    from transcreval.io import to_rgb_pil

    try:
        return to_rgb_pil(raw, input_range=input_range)
    except InputError as e:  # same class, the argument named
        raise type(e)(f"{what}{', ' if str(e).startswith('image ') else ': '}{e}") from None


class CLIPEncoder:
    """One open_clip model: normalised image embeddings (through the extractor registry) and
    cached normalised text embeddings."""

    def __init__(self, model: str, pretrained: Any, tokenizer: Any, preprocess: str, device: Any) -> None:
        import torch

        if preprocess not in PREPROCESS:
            raise InputError(f"preprocess must be one of {PREPROCESS}, got {preprocess!r}")
        self.model_name = model
        self.pretrained = pretrained
        check_model_options(model, pretrained)
        self.pretrained_id = _pretrained_id(model, pretrained)
        self.preprocess = preprocess
        self.device = torch.device(device if device is not None else "cpu")
        net, transform, tok = _load(model, pretrained, tokenizer, self.device)
        self.net, self.transform, self.tokenizer = net, transform, tok
        ident = f"open_clip/{model}/{self.pretrained_id}"
        pp_name = f"{ident}/{'pil' if preprocess == 'open_clip' else 'tensor-v1'}"
        fn = (lambda x: x) if preprocess == "open_clip" else _tensor_pipeline(dict(net.visual.preprocess_cfg))
        desc = (
            "open_clip's PIL transform (applied when images are converted)"
            if preprocess == "open_clip"
            else "torch ops"
        )
        with contextlib.suppress(ValueError):
            register_preprocess(Preprocess(pp_name, fn, desc))
        spec_name = f"{ident}/{preprocess}"
        try:
            get_extractor_spec(spec_name)
        except KeyError:

            def build(spec: Any, weights: Any, device: Any, dtype: Any) -> _ImageTower:
                return _ImageTower(_load(model, pretrained, tokenizer, device)[0])

            register_extractor(
                ExtractorSpec(
                    name=spec_name,
                    backend="open_clip",
                    weights=(),
                    preprocess=pp_name,
                    outputs=("image_embeds",),
                    build=build,
                    description=f"open_clip {model} ({self.pretrained_id}) image tower, L2-normalised",
                )
            )
        self.extractor: FeatureExtractor = get_extractor(spec_name, device=self.device)
        self._texts: dict[str, torch.Tensor] = {}

    @property
    def signature_options(self) -> dict[str, Any]:
        return {"model": self.model_name, "pretrained": self.pretrained_id, "pp": self.preprocess}

    def _converted(self, raw: Any, input_range: Any, what: str) -> list[tuple[Any, torch.Tensor]]:
        import torch

        from transcreval.features.images import image_groups

        if self.preprocess == "tensor":
            groups = image_groups(raw, input_range=input_range, what=what)
            return [(idx, imgs) for idx, imgs in groups.groups]

        def convert(r: Any) -> list[tuple[Any, torch.Tensor]]:
            pils = pil_images(r, input_range, what)
            with torch_threads(1):  # a per-image loop: one intra-op thread (transcreval.threads)
                x = torch.stack([self.transform(p) for p in pils])
            return [(torch.arange(len(pils)), x)]

        return shared_input(raw, ("open_clip-pil", id(self.transform), input_range), convert)

    def image_embeddings(
        self,
        raw: Any,
        *,
        input_range: Any = None,
        batch_size: int | None = None,
        cache: Any = None,
        what: str = "images",
    ) -> torch.Tensor:
        """N x D L2-normalised image embeddings, in input order."""
        import torch

        parts = [
            (idx, self.extractor(x, batch_size=batch_size, cache=cache)["image_embeds"])
            for idx, x in self._converted(raw, input_range, what)
        ]
        if len(parts) == 1:
            return parts[0][1]
        n = sum(len(i) for i, _ in parts)
        out = torch.empty((n, parts[0][1].shape[1]), dtype=parts[0][1].dtype, device=parts[0][1].device)
        for idx, e in parts:
            out[idx.to(out.device)] = e
        return out

    def text_embeddings(self, prompts: Sequence[str]) -> torch.Tensor:
        """len(prompts) x D L2-normalised text embeddings, each prompt encoded once per process."""
        import torch

        missing = sorted({p for p in prompts if p not in self._texts})
        if missing:
            from transcreval.features.images import fixed_batches

            with torch.inference_mode():
                tokens = self.tokenizer(missing).to(self.device)
                emb = fixed_batches(lambda t: self.net.encode_text(t, normalize=True), tokens)
            with _LOCK:
                for p, e in zip(missing, emb):
                    self._texts[p] = e.clone()
        return torch.stack([self._texts[p] for p in prompts])


def get_clip(
    model: str, pretrained: Any = None, *, tokenizer: Any = None, preprocess: str = "open_clip", device: Any = None
) -> CLIPEncoder:
    """The process-wide encoder for these options (built on first use)."""
    import torch

    dev = torch.device(device if device is not None else "cpu")
    key = (model, *_weights_key(model, pretrained), tokenizer, preprocess, str(dev))
    with _LOCK:
        enc = _ENCODERS.get(key)
        if enc is None:
            enc = CLIPEncoder(model, pretrained, tokenizer, preprocess, dev)
            _ENCODERS[key] = enc
    return enc


def clear_clip_encoders() -> None:
    """Drop every built encoder and model (frees their memory)."""
    with _LOCK:
        _ENCODERS.clear()
        _MODELS.clear()


def prompt_digest(prompts: Sequence[str]) -> str:
    """A short digest of a list of prompts (for signatures)."""
    return hashlib.sha256("\n".join(prompts).encode()).hexdigest()[:8]
