"""open_clip image/text dual encoders (CLIP, SigLIP) as extractors, with cached text embeddings.

:func:`get_clip` returns a process-wide :class:`CLIPEncoder` for ``(model, pretrained,
tokenizer, preprocess, crop, device)``:

* ``model`` is any open_clip model name (``"ViT-B-32"``, ``"ViT-B-16-SigLIP"``, a name added with
  ``open_clip.add_model_config``, or ``"local-dir:/path"`` / ``"hf-hub:org/repo"``);
* ``pretrained`` is an open_clip tag (``"openai"``, ``"webli"``) or a local checkpoint file;
  either way the file is found by the weights resolver (:mod:`transcreval.features.clip_weights`:
  ``TRANSCREVAL_WEIGHTS_DIR``, the user cache, the Hugging Face cache; offline mode honoured)
  and its sha256 goes into signatures and feature-cache keys;
* ``tokenizer`` (optional) is a local Hugging Face tokenizer directory for models whose
  tokenizer open_clip would fetch from the Hub (SigLIP); CLIP's BPE tokenizer ships with open_clip;
* ``crop`` chooses how a non-square image becomes the model's square input
  (:mod:`transcreval.features.clip_preprocess`; None: the model's own transform).

Image embeddings (L2-normalised ``encode_image``, via :mod:`transcreval.features.vit_pool`) go through
the feature registry (one extractor per encoder: per-batch sharing in a collection, optional feature cache).
Preprocessing:

* ``"open_clip"`` (default): the model's own open_clip transform (torchvision on PIL images:
  resize, centre crop, uint8 RGB, normalise), applied when images are converted, so the
  embeddings equal ``model.encode_image(preprocess(pil_image))``. Tensors and arrays are turned
  into PIL images by rounding ``x * 255`` to uint8.
* ``"tensor"``: the same steps as torch ops on the device (bicubic resize with antialiasing on
  float pixels, no uint8 rounding): faster, and slightly different (see docs/metrics/CLIPSimilarity.md).

Text embeddings (L2-normalised ``encode_text``) are computed once per (encoder, prompt). A metric
keeps the encoder it was built with (:meth:`CLIPEncoder.on` moves it to another device without
loading other weights: a checkpoint re-saved at the same path in between is a WeightsChangedError).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from transcreval.errors import (
    InputError,
    MissingDependencyError,
    TranscrevalError,
    WeightsChangedError,
    WeightsFormatError,
    WeightsNotFoundError,
)
from transcreval.features.clip_preprocess import batch_transform, check_crop, pil_transform, tensor_pipeline
from transcreval.features.clip_weights import CLIPWeights, check_model_options, model_config, resolve_clip, weights_key
from transcreval.features.extractor import FeatureExtractor, get_extractor, shared_input
from transcreval.features.preprocess import Preprocess, register_preprocess
from transcreval.features.registry import ExtractorSpec, get_extractor_spec, register_extractor

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


def _create(open_clip: Any, w: CLIPWeights, device: Any) -> tuple[Any, Any]:
    """``create_model_and_transforms`` on the resolved files, its errors made readable."""
    where = f"open_clip model {w.model!r} from {w.checkpoint or w.model}"
    try:
        net, _, transform = open_clip.create_model_and_transforms(w.model, device=device, **w.create_kwargs())
    except TranscrevalError:
        raise
    except Exception as e:  # open_clip's loader fails in many ways on a foreign file (RuntimeError, AttributeError...)
        text = str(e)
        if "Failed to download" in text or "HF Hub" in text or "not a known tag" in text:
            raise WeightsNotFoundError(
                f"{where}: the weights could not be found or downloaded ({e}). On a machine with internet access "
                f"run `transcreval weights fetch NAME --to DIR` (`transcreval weights list` shows the names) or "
                "open_clip once, and copy the files here; or pass pretrained=/path/to/checkpoint.",
                name=w.model,
                searched=(where,),
            ) from None
        first = text.strip().splitlines()[0] if text.strip() else type(e).__name__
        detail = " ".join(text.split())[:600]
        raise WeightsFormatError(
            f"{where}: the checkpoint does not fit this architecture ({first}; {detail}). Check that model= names "
            "the architecture the checkpoint was trained with (open_clip.list_models())"
        ) from None
    return net, transform


def _load(w: CLIPWeights, device: Any) -> tuple[Any, Any, Any]:
    """(open_clip model, its own eval transform, tokenizer), built once per process and device."""
    open_clip = _require_open_clip()
    key = (w.model, str(w.checkpoint), w.sha256, w.tokenizer, str(device))
    with _LOCK:
        hit = _MODELS.get(key)
        if hit is not None:
            return hit
        net, transform = _create(open_clip, w, device)
        try:
            tok = _tokenizer(open_clip, w.model, w.tokenizer)
        except (OSError, ValueError) as e:
            raise WeightsNotFoundError(
                f"the tokenizer of open_clip model {w.model!r} is not available here ({type(e).__name__}: {e}). "
                "Pass tokenizer=/path/to/a/Hugging Face tokenizer directory (save it on a connected machine "
                "with transformers.AutoTokenizer.from_pretrained(NAME).save_pretrained(DIR)).",
                name=f"{w.model}/tokenizer",
                searched=(str(w.tokenizer or w.model),),
            ) from None
        net.eval().requires_grad_(False)
        _MODELS[key] = (net, transform, tok)
        return _MODELS[key]


def _tokenizer(open_clip: Any, model: str, tokenizer: Any) -> Any:
    if tokenizer is None:
        return open_clip.get_tokenizer(model)
    from open_clip.tokenizer import HFTokenizer

    text_cfg = (model_config(model) or {}).get("text_cfg", {})
    kwargs = dict(text_cfg.get("tokenizer_kwargs", {}))
    return HFTokenizer(os.fspath(tokenizer), context_length=text_cfg.get("context_length", 77), **kwargs)


def state_digest(net: Any) -> str:
    """sha256 of a model's parameters and buffers (names, shapes, float32 bytes)."""
    import torch

    h = hashlib.sha256()
    for name, t in sorted(net.state_dict().items()):
        t = t.detach().to("cpu", torch.float32).contiguous()
        h.update(f"{name}|{tuple(t.shape)}|".encode())
        h.update(t.numpy().tobytes())
    return h.hexdigest()


class _ImageTower:
    """``encode_image(x, normalize=True)`` as an nn.Module-like callable for the extractor."""

    runs_fixed_batches = True  # fixed_batches below: the extractor need not pad a single image

    def __init__(self, net: Any) -> None:
        self.net = net

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        from transcreval.features.images import CLIP_CPU_ROWS, chunk_rows, fixed_batches
        from transcreval.features.vit_pool import encode_image

        rows = chunk_rows(self.net, x.device.type, CLIP_CPU_ROWS)
        return fixed_batches(lambda c: encode_image(self.net, c), x, rows, spread=True)

    def to(self, **_: Any) -> _ImageTower:
        return self

    def eval(self) -> _ImageTower:
        return self

    def requires_grad_(self, _: bool) -> _ImageTower:
        return self


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

    def __init__(
        self, model: str, pretrained: Any, tokenizer: Any, preprocess: str, device: Any, crop: str | None = None
    ) -> None:
        import torch

        if preprocess not in PREPROCESS:
            raise InputError(f"preprocess must be one of {PREPROCESS}, got {preprocess!r}")
        self.model_name = model
        self.pretrained = pretrained
        self.tokenizer_arg = tokenizer
        self.crop = check_crop(crop)
        check_model_options(model, pretrained)
        self.preprocess = preprocess
        self.device = torch.device(device if device is not None else "cpu")
        w = resolve_clip(model, pretrained, tokenizer)
        net, own, tok = _load(w, self.device)
        if not w.sha256:  # an hf-hub model open_clip just downloaded: now in the Hugging Face cache
            w = resolve_clip(model, pretrained, tokenizer)
        if not w.sha256:  # not found there either (another cache_dir): the loaded weights' digest
            w = dataclasses.replace(w, sha256=state_digest(net), source=f"{w.source}, digest of the loaded weights")
        self.weights: CLIPWeights = w
        self.pretrained_id = w.id
        self.net, self.tokenizer = net, tok
        self.transform = pil_transform(net, own, self.crop)
        self.batch_transform = batch_transform(self.transform)
        ident = f"open_clip/{model}/{self.pretrained_id}"
        view = "" if self.crop is None else f"/crop-{self.crop}"
        pp_name = f"{ident}/{'pil' if preprocess == 'open_clip' else 'tensor-v1'}{view}"
        fn = (lambda x: x) if preprocess == "open_clip" else tensor_pipeline(dict(net.visual.preprocess_cfg), crop)
        desc = (
            "open_clip's PIL transform (applied when images are converted)"
            if preprocess == "open_clip"
            else "torch ops"
        )
        with contextlib.suppress(ValueError):
            register_preprocess(Preprocess(pp_name, fn, desc))
        spec_name = f"{ident}/{preprocess}{view}"
        try:
            get_extractor_spec(spec_name)
        except KeyError:

            def build(spec: Any, weights: Any, device: Any, dtype: Any) -> _ImageTower:
                return _ImageTower(_load(w, device)[0])

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
        opts = {"model": self.model_name, "pretrained": self.pretrained_id, "pp": self.preprocess}
        return opts if self.crop is None else {**opts, "crop": self.crop}

    def pass_rows(self) -> int:
        """Held items that start a tower pass: a fixed chunk per worker of the thread budget on CPU, one elsewhere."""
        from transcreval.features.images import CLIP_CPU_ROWS, chunk_rows
        from transcreval.utils.threads import default_threads

        dev = self.device.type
        return chunk_rows(self.net, dev, CLIP_CPU_ROWS) * (default_threads() if dev == "cpu" else 1)

    def on(self, device: Any) -> CLIPEncoder:
        """This encoder on ``device``, with the same weights: a checkpoint whose content changed
        since this encoder loaded it is a WeightsChangedError (never a second model)."""
        import torch

        dev = torch.device(device if device is not None else "cpu")
        if dev == self.device:
            return self
        enc = get_clip(
            self.model_name,
            self.pretrained,
            tokenizer=self.tokenizer_arg,
            preprocess=self.preprocess,
            crop=self.crop,
            device=dev,
        )
        if enc.pretrained_id != self.pretrained_id:
            raise WeightsChangedError(
                f"open_clip model {self.model_name!r}: its weights changed since the metric loaded them "
                f"({self.pretrained_id} is now {enc.pretrained_id}, e.g. a checkpoint re-saved at the same path); "
                "the metric would mix two models under one signature. Build a new metric to use the new weights"
            )
        return enc

    def __reduce__(self) -> tuple[Any, ...]:
        args = (self.model_name, self.pretrained, self.tokenizer_arg, self.preprocess, self.crop, str(self.device))
        return (rebuild_clip, (*args, self.pretrained_id))

    def converted(self, raw: Any, input_range: Any = None, what: str = "images") -> list[tuple[Any, torch.Tensor]]:
        """``raw``'s images as the tower takes them: ``(positions, batch)`` per image size (one
        batch with ``"open_clip"`` preprocessing), shared within a feature scope."""
        import torch

        from transcreval.features.images import image_groups

        if self.preprocess == "tensor":
            groups = image_groups(raw, input_range=input_range, what=what)
            return [(idx, imgs) for idx, imgs in groups.groups]

        def convert(r: Any) -> list[tuple[Any, torch.Tensor]]:
            pils = pil_images(r, input_range, what)
            x = self.batch_transform(pils)
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
        return self.embeddings_of([self.converted(raw, input_range, what)], batch_size=batch_size, cache=cache)[0]

    def embeddings_of(
        self, calls: Sequence[list[tuple[Any, torch.Tensor]]], *, batch_size: int | None = None, cache: Any = None
    ) -> list[torch.Tensor]:
        """The embeddings of several calls' :meth:`converted` images (one N_i x D tensor per
        call, in input order), from one tower pass per image size over all of them: each row as
        in a pass of its own (fixed chunks), at a fraction of the padded chunks."""
        import torch

        from transcreval.features.images import in_input_order

        by_size: dict[tuple[int, ...], list[tuple[int, Any, torch.Tensor]]] = {}
        for c, groups in enumerate(calls):
            for idx, x in groups:
                by_size.setdefault(tuple(x.shape[1:]), []).append((c, idx, x))
        outs: list[list[tuple[Any, torch.Tensor]]] = [[] for _ in calls]
        for parts in by_size.values():  # one part: the very tensor (a scope's memo knows it)
            x = parts[0][2] if len(parts) == 1 else torch.cat([p[2] for p in parts])
            emb = self.extractor(x, batch_size=batch_size, cache=cache)["image_embeds"]
            for (c, idx, _), e in zip(parts, emb.split([len(p[1]) for p in parts])):
                outs[c].append((idx, e))
        return [in_input_order(parts) for parts in outs]

    def text_embeddings(self, prompts: Sequence[str]) -> torch.Tensor:
        """len(prompts) x D L2-normalised text embeddings, each prompt encoded once per process."""
        import torch

        missing = sorted({p for p in prompts if p not in self._texts})
        if missing:
            from transcreval.features.images import CLIP_CPU_ROWS, chunk_rows, fixed_batches

            with torch.inference_mode():
                tokens = self.tokenizer(missing).to(self.device)
                rows = chunk_rows(self.net, self.device.type, CLIP_CPU_ROWS)
                emb = fixed_batches(lambda t: self.net.encode_text(t, normalize=True), tokens, rows, spread=True)
            with _LOCK:
                for p, e in zip(missing, emb):
                    self._texts[p] = e.clone()
        return torch.stack([self._texts[p] for p in prompts])


def get_clip(
    model: str,
    pretrained: Any = None,
    *,
    tokenizer: Any = None,
    preprocess: str = "open_clip",
    crop: str | None = None,
    device: Any = None,
) -> CLIPEncoder:
    """The process-wide encoder for these options (built on first use)."""
    import torch

    check_model_options(model, pretrained)
    dev = torch.device(device if device is not None else "cpu")
    key = (model, *weights_key(model, pretrained), tokenizer, preprocess, check_crop(crop), str(dev))
    with _LOCK:
        enc = _ENCODERS.get(key)
        if enc is None:
            enc = CLIPEncoder(model, pretrained, tokenizer, preprocess, dev, crop)
            _ENCODERS[key] = enc
    return enc


def rebuild_clip(
    model: str, pretrained: Any, tokenizer: Any, preprocess: str, crop: str | None, device: str, pretrained_id: str
) -> CLIPEncoder:
    """An unpickled encoder (another process): the same options, and the same weights or a
    WeightsChangedError."""
    enc = get_clip(model, pretrained, tokenizer=tokenizer, preprocess=preprocess, crop=crop, device=device)
    if enc.pretrained_id != pretrained_id:
        raise WeightsChangedError(
            f"open_clip model {model!r}: the weights are now {enc.pretrained_id}, not the {pretrained_id} the "
            "metric was built with (a checkpoint re-saved in between): build a new metric"
        )
    return enc


def clear_clip_encoders() -> None:
    """Drop every built encoder and model (frees their memory)."""
    with _LOCK:
        _ENCODERS.clear()
        _MODELS.clear()
