"""Inception-v3 (FID) as registered extractors, in torch-fidelity's weights layout.

The network is torch-fidelity's FID Inception (TensorFlow's 2015-12-05 graph converted to
PyTorch): we assemble it from torch-fidelity's own building blocks under the same attribute
names, so its state dict has exactly the keys of the file torch-fidelity loads through
``feature_extractor_weights_path`` (the ``inception-v3-compat`` layout), and the forward pass
to the 2048-d pool features is the same sequence of modules. Weights load through the resolver
(manifest entry ``inception-v3-fid``), with ``torch.load(weights_only=True)`` and strict keys.

Two extractors share the network and differ in preprocessing (both take float RGB in [0, 1]):

* ``inception-v3-fid`` (pipeline ``fid-torch-fidelity``): each pixel quantised to 0..255 as
  torch-fidelity's uint8 input, resized to 299x299 with TensorFlow 1.x's bilinear resize
  (torch-fidelity's ``interpolate_bilinear_2d_like_tensorflow1x``), then ``(x - 128) / 128``.
  This is the MPTc-Bench protocol (it computes FID with torch-fidelity).
* ``inception-v3-fid-clean`` (pipeline ``fid-clean``): clean-fid's ``mode="clean"``: each
  channel of the 0..255 image resized in float by PIL's bicubic filter (antialiased) to
  299x299, clipped to 0..255, then ``(x - 128) / 128``. The resize is computed as two matrix
  products with PIL's bicubic weights in float64, rounded to float32 between the passes, as PIL
  stores its float images (tested against clean-fid's resizer).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from transcreval.features.preprocess import Preprocess, register_preprocess
from transcreval.features.registry import ExtractorSpec, register_extractor
from transcreval.weights.load import load_state_dict, load_strict

if TYPE_CHECKING:
    import numpy as np
    import torch

__all__ = [
    "CPU_ROWS",
    "INCEPTION_SIZE",
    "build_inception",
    "clean_resize",
    "pil_bicubic_matrix",
    "preprocess_clean",
    "preprocess_torch_fidelity",
]

INCEPTION_SIZE = 299
#: width of the pool3 features
FEATURE_DIM = 2048
#: the manifest entry of its weights (transcreval.weights.builtin)
WEIGHTS_NAME = "inception-v3-fid"


# --------------------------------------------------------------------------- preprocessing
def preprocess_torch_fidelity(x: torch.Tensor) -> torch.Tensor:
    """[0, 1] RGB -> torch-fidelity's network input: quantise to 0..255 (its uint8 input),
    TF1 bilinear resize to 299x299 in float32, ``(x - 128) / 128``."""
    import torch
    from torch_fidelity.interpolate_compat_tensorflow import interpolate_bilinear_2d_like_tensorflow1x

    q = torch.round(x.to(torch.float32) * 255.0)
    q = interpolate_bilinear_2d_like_tensorflow1x(q, size=(INCEPTION_SIZE, INCEPTION_SIZE), align_corners=False)
    return (q - 128) / 128


def _bicubic(x: float) -> float:
    # PIL's bicubic kernel, a = -0.5
    a = -0.5
    x = abs(x)
    if x < 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    if x < 2.0:
        return (((x - 5.0) * x + 8.0) * x - 4.0) * a
    return 0.0


@functools.lru_cache(maxsize=64)
def pil_bicubic_matrix(in_size: int, out_size: int) -> np.ndarray:
    """PIL's (antialiased) bicubic resampling weights as a dense ``out x in`` float64 matrix,
    computed as Pillow's ``precompute_coeffs`` does for float images (no integer rounding)."""
    import numpy as np

    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support = 2.0 * filterscale
    m = np.zeros((out_size, in_size), dtype=np.float64)
    for xx in range(out_size):
        center = (xx + 0.5) * scale
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), in_size)
        w = np.array([_bicubic((x - center + 0.5) / filterscale) for x in range(xmin, xmax)])
        total = w.sum()
        if total != 0.0:
            w = w / total
        m[xx, xmin:xmax] = w
    return m


def clean_resize(x: torch.Tensor, size: int = INCEPTION_SIZE) -> torch.Tensor:
    """clean-fid's resize of 0..255 float images (N x C x H x W): per channel, PIL bicubic in
    float (horizontal pass, then vertical), float32 between and after the passes, clipped to 0..255."""
    import torch

    h, w = x.shape[-2:]
    dev = x.device
    wh = torch.from_numpy(pil_bicubic_matrix(w, size)).to(dev)
    wv = torch.from_numpy(pil_bicubic_matrix(h, size)).to(dev)
    y = x.to(torch.float64)
    if w != size:
        y = (y @ wh.T).to(torch.float32).to(torch.float64)
    if h != size:
        y = (wv @ y).to(torch.float32).to(torch.float64)
    return y.to(torch.float32).clamp_(0.0, 255.0)


def preprocess_clean(x: torch.Tensor) -> torch.Tensor:
    """[0, 1] RGB -> clean-fid's ``mode="clean"`` network input: quantise to 0..255, PIL bicubic
    resize in float to 299x299, clip, ``(x - 128) / 128``."""
    import torch

    q = torch.round(x.to(torch.float32) * 255.0)
    return (clean_resize(q) - 128) / 128


register_preprocess(
    Preprocess(
        "fid-torch-fidelity",
        preprocess_torch_fidelity,
        "torch-fidelity: uint8 quantisation, TF1 bilinear resize to 299, (x-128)/128",
    )
)
register_preprocess(
    Preprocess(
        "fid-clean",
        preprocess_clean,
        "clean-fid mode='clean': uint8 quantisation, PIL bicubic float resize to 299, clip, (x-128)/128",
    )
)


# --------------------------------------------------------------------------- network
# torch-fidelity's attribute names and block types, in forward order up to the 2048-d pool
_BLOCKS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("Conv2d_1a_3x3", "BasicConv2d", {"in_channels": 3, "out_channels": 32, "kernel_size": 3, "stride": 2}),
    ("Conv2d_2a_3x3", "BasicConv2d", {"in_channels": 32, "out_channels": 32, "kernel_size": 3}),
    ("Conv2d_2b_3x3", "BasicConv2d", {"in_channels": 32, "out_channels": 64, "kernel_size": 3, "padding": 1}),
    ("MaxPool_1", "pool", {}),
    ("Conv2d_3b_1x1", "BasicConv2d", {"in_channels": 64, "out_channels": 80, "kernel_size": 1}),
    ("Conv2d_4a_3x3", "BasicConv2d", {"in_channels": 80, "out_channels": 192, "kernel_size": 3}),
    ("MaxPool_2", "pool", {}),
    ("Mixed_5b", "InceptionA", {"in_channels": 192, "pool_features": 32}),
    ("Mixed_5c", "InceptionA", {"in_channels": 256, "pool_features": 64}),
    ("Mixed_5d", "InceptionA", {"in_channels": 288, "pool_features": 64}),
    ("Mixed_6a", "InceptionB", {"in_channels": 288}),
    ("Mixed_6b", "InceptionC", {"in_channels": 768, "channels_7x7": 128}),
    ("Mixed_6c", "InceptionC", {"in_channels": 768, "channels_7x7": 160}),
    ("Mixed_6d", "InceptionC", {"in_channels": 768, "channels_7x7": 160}),
    ("Mixed_6e", "InceptionC", {"in_channels": 768, "channels_7x7": 192}),
    ("Mixed_7a", "InceptionD", {"in_channels": 768}),
    ("Mixed_7b", "InceptionE_1", {"in_channels": 1280}),
    ("Mixed_7c", "InceptionE_2", {"in_channels": 2048}),
)


#: on the CPU every image runs alone, on one torch thread, the images spread over the thread
#: budget's workers (:func:`~transcreval.features.images.fixed_batches` with ``spread=True``):
#: no padding, no OpenMP barrier between threads (under competing load a barrier waiting for a
#: descheduled thread cost more than the network: 32 images took 9.4 s in chunks of 4 on 2
#: threads, 4.6 s this way), and an image's features depend on nothing else: not the batch, not
#: the thread count. They differ from torch-fidelity's batched run in the last bits (measured
#: 2.4e-6 at most; oneDNN orders some sums by batch and thread count).
CPU_ROWS = 1


def _network_class() -> type:
    import torch
    from torch_fidelity import feature_extractor_inceptionv3 as tfi

    class InceptionFID(torch.nn.Module):
        """torch-fidelity's FID Inception-v3 up to the 2048-d average pool (``fc`` kept for the layout)."""

        runs_fixed_batches = True  # forward runs fixed_batches: the extractor need not pad a single image

        def __init__(self) -> None:
            super().__init__()
            self.order = []
            for name, kind, kw in _BLOCKS:
                mod = torch.nn.MaxPool2d(kernel_size=3, stride=2) if kind == "pool" else getattr(tfi, kind)(**kw)
                setattr(self, name, mod)
                self.order.append(name)
            self.AvgPool = torch.nn.AdaptiveAvgPool2d(output_size=(1, 1))
            self.fc = torch.nn.Linear(2048, 1008)

        def pool3(self, x: torch.Tensor) -> torch.Tensor:
            for name in self.order:
                x = getattr(self, name)(x)
            return torch.flatten(self.AvgPool(x), 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            from transcreval.features.images import fixed_batches

            return fixed_batches(self.pool3, x, CPU_ROWS if x.device.type == "cpu" else None, spread=True)

    return InceptionFID


@functools.lru_cache(maxsize=1)
def network_class() -> type:
    """The Inception module class (built on first use: importing torch-fidelity is not free)."""
    return _network_class()


def build_inception(
    spec: ExtractorSpec, weights: Mapping[str, Any], device: torch.device, dtype: torch.dtype
) -> torch.nn.Module:
    """Build the FID Inception from a file in torch-fidelity's layout (strict keys)."""
    import torch

    resolved = weights[WEIGHTS_NAME]
    state = load_state_dict(resolved.path)
    with torch.device("meta"):
        net = network_class()()
    what = f"extractor {spec.name} from {resolved.path} (torch-fidelity inception-v3-compat layout)"
    load_strict(net, state, what, assign=True)
    return net.to(device=device, dtype=dtype)


for _name, _pp, _desc in (
    ("inception-v3-fid", "fid-torch-fidelity", "FID Inception-v3 pool features, torch-fidelity preprocessing"),
    ("inception-v3-fid-clean", "fid-clean", "FID Inception-v3 pool features, clean-fid 'clean' preprocessing"),
):
    register_extractor(
        ExtractorSpec(
            name=_name,
            backend="torch-fidelity",
            weights=(WEIGHTS_NAME,),
            preprocess=_pp,
            outputs=("pool3",),
            build="transcreval.features.inception:build_inception",
            requires=(("torch_fidelity", "image"),),
            description=_desc,
        )
    )
del _name, _pp, _desc
