"""Random-init weights with fixed seeds for the FID / CLIP / SigLIP / DINOv2 tests (no downloads).

* :func:`inception_file`: the FID Inception in torch-fidelity's ``inception-v3-compat`` layout
  (what ``feature_extractor_weights_path`` loads), with randomised batch-norm statistics so the
  features vary between images;
* :func:`reference_fid`: ``torch_fidelity.calculate_metrics`` on uint8 tensors with that file;
* image sets: seeded uint8 images with structure (gradients, blocks), not pure noise.
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

import numpy as np
import torch

# one directory per test session, shared with the gloo worker processes the session spawns (they
# inherit the variable): a model named by its local path must be the same model on every rank
if "TRANSCREVAL_TEST_WEIGHTS_DIR" not in os.environ:
    os.environ["TRANSCREVAL_TEST_WEIGHTS_DIR"] = tempfile.mkdtemp(prefix="transcreval-test-weights-")
_DIR = Path(os.environ["TRANSCREVAL_TEST_WEIGHTS_DIR"])


def save_same_bytes(obj: object, path: Path) -> None:
    """``torch.save`` then an atomic rename, through a temporary file of the same name: torch names
    the records inside the zip after the file, so a per-process temporary name would give every
    process a file of other bytes (another sha256, so another signature on every rank)."""
    tmp_dir = path.parent / f".part-{os.getpid()}"
    tmp_dir.mkdir(exist_ok=True)
    torch.save(obj, tmp_dir / path.name)
    os.replace(tmp_dir / path.name, path)
    tmp_dir.rmdir()


def weights_dir() -> Path:
    """A per-process directory for the generated files (deterministic content, fixed seeds)."""
    return _DIR


@functools.cache
def inception_file(seed: int = 0) -> str:
    from transcreval.features.inception import network_class

    path = _DIR / f"inception-seed{seed}.pth"
    if not path.exists():
        torch.manual_seed(seed)
        net = network_class()()
        g = torch.Generator().manual_seed(seed + 1)
        for m in net.modules():
            if isinstance(m, torch.nn.Conv2d):  # variance-preserving, so deep features still differ between images
                torch.nn.init.kaiming_normal_(m.weight, generator=g)
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.copy_(torch.rand(m.running_mean.shape, generator=g) * 0.2 - 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
                m.num_batches_tracked.fill_(7)
        save_same_bytes(net.state_dict(), path)
    return str(path)


def poster_like(n: int, h: int, w: int, seed: int, shift: float = 0.0) -> torch.Tensor:
    """``n`` seeded uint8 RGB images (N x 3 x H x W): colour gradients, blocks and some noise."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w] / max(h, w)
    out = np.empty((n, 3, h, w), dtype=np.float64)
    for i in range(n):
        for c in range(3):
            a, b, ph = rng.uniform(-1, 1, 3)
            out[i, c] = 0.5 + 0.3 * np.sin(6 * (a * xx + b * yy) + ph) + shift
        for _ in range(3):
            y0, x0 = rng.integers(0, h // 2), rng.integers(0, w // 2)
            out[i, :, y0 : y0 + h // 3, x0 : x0 + w // 3] = rng.uniform(0, 1, (3, 1, 1))
        out[i] += rng.normal(0, 0.05, (3, h, w))
    return torch.from_numpy(np.clip(out * 255, 0, 255).round().astype(np.uint8))


class _Images(torch.utils.data.Dataset):
    def __init__(self, images: torch.Tensor | list[torch.Tensor]) -> None:
        self.images = list(images)

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, i: int) -> torch.Tensor:
        return self.images[i]


def reference_fid(fake: torch.Tensor, real: torch.Tensor, weights: str) -> float:
    """torch-fidelity's FID of two uint8 image sets with the given Inception file (CPU, no cache)."""
    import torch_fidelity

    out = torch_fidelity.calculate_metrics(
        input1=_Images(fake),
        input2=_Images(real),
        fid=True,
        feature_extractor_weights_path=weights,
        cuda=False,
        cache=False,
        verbose=False,
        batch_size=1 if isinstance(real, list) or isinstance(fake, list) else 64,
        save_cpu_ram=True,
    )
    return float(out["frechet_inception_distance"])


# --------------------------------------------------------------------------- open_clip (CLIP / SigLIP)
TINY_CLIP = "transcreval-test-clip"
_TINY_CLIP_CFG = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 48, "layers": 2, "width": 64, "patch_size": 16, "head_width": 32},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 2},
}
_WORDS = [
    "a",
    "photo",
    "of",
    "something",
    "typical",
    "showing",
    "kind",
    "india",
    "japan",
    "brazil",
    "food",
    "mammal",
    "this",
    "image",
    "is",
    "from",
    "belongs",
    "to",
    "category",
    "country",
    "the",
    "culture",
    "beverage",
    ".",
]


def tiny_clip_checkpoint(seed: int = 0) -> str:
    """Registers a tiny CLIP architecture with open_clip (``open_clip.add_model_config``) and
    returns a random-init checkpoint file for it (what ``pretrained=PATH`` loads)."""
    import json

    import open_clip

    cfg_path = _DIR / f"{TINY_CLIP}.json"
    if not cfg_path.exists():
        cfg_path.write_text(json.dumps(_TINY_CLIP_CFG))
    if open_clip.get_model_config(TINY_CLIP) is None:
        open_clip.add_model_config(cfg_path)
    path = _DIR / f"tiny-clip-seed{seed}.pt"
    if not path.exists():
        torch.manual_seed(seed)
        model = open_clip.create_model(TINY_CLIP, pretrained=None)
        save_same_bytes(model.state_dict(), path)
    return str(path)


def tiny_tokenizer_dir() -> str:
    """A small word-level Hugging Face tokenizer saved locally (SigLIP's tokenizer comes from the Hub)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    d = _DIR / "tiny-tokenizer"
    if not (d / "tokenizer.json").exists():
        vocab = {"<pad>": 0, "</s>": 1, "<unk>": 2, **{w: i + 3 for i, w in enumerate(_WORDS)}}
        tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace()])
        fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>")
        tmp = _DIR / f"tiny-tokenizer.{os.getpid()}.part"
        fast.save_pretrained(tmp)
        os.replace(tmp, d)
    return str(d)


def tiny_siglip_dir(seed: int = 0) -> str:
    """A random-init SigLIP-style model (sigmoid-loss bias, bidirectional text tower pooled at the
    last token, 0.5 mean/std, 'squash' resize) in open_clip's ``local-dir:`` layout."""
    import json

    import open_clip

    d = _DIR / f"tiny-siglip-seed{seed}"
    if not (d / "open_clip_model.safetensors").exists():
        from safetensors.torch import save_file

        model_cfg = {
            "embed_dim": 32,
            "init_logit_bias": -10,
            "custom_text": True,
            "vision_cfg": {"image_size": 40, "layers": 2, "width": 64, "patch_size": 8, "head_width": 32},
            "text_cfg": {
                "context_length": 16,
                "vocab_size": len(_WORDS) + 3,
                "hf_tokenizer_name": "transcreval-test/no-hub-tokenizer",
                "tokenizer_kwargs": {"clean": "canonicalize"},
                "width": 32,
                "heads": 2,
                "layers": 2,
                "no_causal_mask": True,
                "proj_bias": True,
                "pool_type": "last",
                "norm_kwargs": {"eps": 1e-6},
            },
        }
        pp = {"mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5], "interpolation": "bicubic", "resize_mode": "squash"}
        tmp = _DIR / f"tiny-siglip.{os.getpid()}.part"
        tmp.mkdir()
        (tmp / "open_clip_config.json").write_text(json.dumps({"model_cfg": model_cfg, "preprocess_cfg": pp}))
        name = f"{TINY_CLIP}-siglip"
        cfg_file = _DIR / f"{name}.json"
        cfg_file.write_text(json.dumps(model_cfg))
        open_clip.add_model_config(cfg_file)
        torch.manual_seed(seed)
        model = open_clip.create_model(name, pretrained=None)
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(tmp / "open_clip_model.safetensors"))
        os.replace(tmp, d)
    return f"local-dir:{d}"


def clip_metric(cls_path: str, **kwargs):
    """Build ``cls`` with the tiny CLIP (in any process: registers the config first); picklable via partial."""
    import importlib

    mod, _, name = cls_path.rpartition(".")
    cls = getattr(importlib.import_module(mod), name)
    kind = kwargs.pop("tiny")
    if kind == "clip":
        return cls(TINY_CLIP, tiny_clip_checkpoint(), **kwargs)
    return cls(tiny_siglip_dir(), tokenizer=tiny_tokenizer_dir(), **kwargs)


# --------------------------------------------------------------------------- DINOv2
@functools.cache
def dinov2_file(layout: str = "hub", seed: int = 0) -> str:
    """A random-init DINOv2 ViT-S/14 checkpoint: ``"hub"`` = torch hub's layout (518-pixel
    position embeddings, ``mask_token``), ``"timm"`` = timm's 224-pixel model state dict."""
    import timm

    path = _DIR / f"dinov2-{layout}-seed{seed}.pth"
    if not path.exists():
        torch.manual_seed(seed)
        if layout == "hub":
            model = timm.create_model("vit_small_patch14_dinov2", pretrained=False, num_classes=0)  # 518 px
            state = dict(model.state_dict())
            state["mask_token"] = torch.randn(1, 384) * 0.02
        else:
            model = timm.create_model("vit_small_patch14_dinov2", pretrained=False, num_classes=0, img_size=224)
            state = dict(model.state_dict())
        g = torch.Generator().manual_seed(seed + 1)
        for k, v in state.items():  # break LayerScale's near-zero init so blocks matter
            if k.endswith("gamma"):
                state[k] = torch.rand(v.shape, generator=g) * 0.5 + 0.5
        save_same_bytes(state, path)
    return str(path)


def reference_dinov2(path: str):
    """timm's own model loading the same file (its pretrained-file path, filter included)."""
    import timm

    return timm.create_model(
        "vit_small_patch14_dinov2", pretrained=True, pretrained_cfg_overlay={"file": path}, img_size=224, num_classes=0
    ).eval()
