"""The LPIPS trunks (alex, vgg, squeeze) as registered extractors.

Each is torchvision's ``features`` network cut into lpips' slices, returning the activations
lpips compares (5 layers for alex/vgg, 7 for squeeze). Weights load from either layout:

* torchvision's state dict (``features.*`` + ``classifier.*``; the manifest entries
  ``torchvision-alexnet``, ``torchvision-vgg16``, ``torchvision-squeezenet1_1``), strictly
  against torchvision's own architecture;
* lpips' own state dict (``lpips.LPIPS(net=...).state_dict()``: ``net.slice<k>.<i>.*`` trunk
  keys, ``lin<k>.model.1.weight`` linear layers, ``scaling_layer.*``), remapped explicitly to
  torchvision's indices; every trunk key must be there and no unknown key may be.

The network is built on the meta device and the weights assigned, so building allocates
nothing twice and never downloads (torchvision's ``weights=None``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from transcreval.errors import WeightsFormatError
from transcreval.features.preprocess import LPIPS_SCALE, LPIPS_SHIFT
from transcreval.features.registry import ExtractorSpec, register_extractor
from transcreval.weights.load import check_finite, load_state_dict, load_strict

if TYPE_CHECKING:
    import torch

# net -> (torchvision constructor, manifest entry, lpips slices as [start, stop) feature indices, output names)
TRUNKS: dict[str, tuple[str, str, tuple[tuple[int, int], ...], tuple[str, ...]]] = {
    "alex": (
        "alexnet",
        "torchvision-alexnet",
        ((0, 2), (2, 5), (5, 8), (8, 10), (10, 12)),
        ("relu1", "relu2", "relu3", "relu4", "relu5"),
    ),
    "vgg": (
        "vgg16",
        "torchvision-vgg16",
        ((0, 4), (4, 9), (9, 16), (16, 23), (23, 30)),
        ("relu1_2", "relu2_2", "relu3_3", "relu4_3", "relu5_3"),
    ),
    "squeeze": (
        "squeezenet1_1",
        "torchvision-squeezenet1_1",
        ((0, 2), (2, 5), (5, 8), (8, 10), (10, 11), (11, 12), (12, 13)),
        ("relu1", "relu2", "relu3", "relu4", "relu5", "relu6", "relu7"),
    ),
}
# lpips' linear layers have this many input channels per layer
CHANNELS = {
    "alex": (64, 192, 384, 256, 256),
    "vgg": (64, 128, 256, 512, 512),
    "squeeze": (64, 128, 256, 384, 384, 512, 512),
}

_TRUNK_KEY = re.compile(r"^net\.slice(\d+)\.(\d+)\.(.+)$")
_LIN_KEY = re.compile(r"^(?:lin(\d+)|lins\.(\d+))\.model\.1\.weight$")


def is_lpips_layout(state: Mapping[str, Any]) -> bool:
    """The state dict uses lpips' key names (``net.slice*``, ``lin*``, ``scaling_layer.*``)."""
    return any(_TRUNK_KEY.match(k) or _LIN_KEY.match(k) or k.startswith("scaling_layer.") for k in state)


def split_lpips_state(
    state: Mapping[str, torch.Tensor], net: str
) -> tuple[dict[str, torch.Tensor], dict[int, torch.Tensor]]:
    """Split an lpips-layout state dict into (trunk keys remapped to torchvision ``features``
    indices, ``{layer: linear weight}``). Unknown keys, slice indices outside lpips' slices, a
    ``lin<k>`` and ``lins.<k>`` that disagree, or a ``scaling_layer`` other than lpips v0.1's are
    WeightsFormatError."""
    import torch

    cuts = TRUNKS[net][2]
    trunk: dict[str, torch.Tensor] = {}
    lins: dict[int, torch.Tensor] = {}
    for key, value in state.items():
        m = _TRUNK_KEY.match(key)
        if m:
            k, i = int(m.group(1)), int(m.group(2))
            if not (1 <= k <= len(cuts)) or not (cuts[k - 1][0] <= i < cuts[k - 1][1]):
                raise WeightsFormatError(f"lpips-{net}: key {key!r} is outside lpips' slice {k} of the {net} trunk")
            trunk[f"{i}.{m.group(3)}"] = value
            continue
        m = _LIN_KEY.match(key)
        if m:
            layer = int(m.group(1) if m.group(1) is not None else m.group(2))
            if layer in lins and not torch.equal(lins[layer], value):
                raise WeightsFormatError(f"lpips-{net}: lin{layer} and lins.{layer} hold different weights")
            lins[layer] = value
            continue
        if key in ("scaling_layer.shift", "scaling_layer.scale"):
            want = LPIPS_SHIFT if key.endswith("shift") else LPIPS_SCALE
            got = value.detach().to("cpu", torch.float64).flatten().tolist()
            if len(got) != 3 or any(abs(a - b) > 1e-6 for a, b in zip(got, want)):
                raise WeightsFormatError(f"lpips-{net}: {key} is {got}, lpips v0.1 uses {list(want)}")
            continue
        raise WeightsFormatError(f"lpips-{net}: unexpected key {key!r} in an lpips-layout state dict")
    return trunk, lins


def _trunk_class() -> type:
    import torch

    class _LPIPSTrunk(torch.nn.Module):
        """torchvision ``features`` run slice by slice; returns the activation after each slice."""

        def __init__(self, features: torch.nn.Sequential, cuts: tuple[tuple[int, int], ...]) -> None:
            super().__init__()
            self.features = features
            self.cuts = cuts

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
            outs = []
            for start, stop in self.cuts:
                for i in range(start, stop):
                    x = self.features[i](x)
                outs.append(x)
            return tuple(outs)

    return _LPIPSTrunk


_TRUNK_CLS: type | None = None


def build_lpips_trunk(
    spec: ExtractorSpec, weights: Mapping[str, Any], device: torch.device, dtype: torch.dtype
) -> torch.nn.Module:
    """Build an LPIPS trunk extractor from a torchvision- or lpips-layout state dict."""
    global _TRUNK_CLS
    import torch
    import torchvision

    net = spec.name.removeprefix("lpips-").split("-")[0]  # lpips-alex, lpips-alex-v0.0
    arch, entry, cuts, _ = TRUNKS[net]
    resolved = weights[entry]
    state = load_state_dict(resolved.path)
    what = f"extractor {spec.name} from {resolved.path}"
    with torch.device("meta"):
        model = getattr(torchvision.models, arch)(weights=None)
    if is_lpips_layout(state):
        trunk, _ = split_lpips_state(state, net)
        check_finite(trunk, what)
        load_strict(model.features, trunk, what + " (lpips layout)", assign=True)
    else:
        check_finite(state, what)
        load_strict(model, state, what + " (torchvision layout)", assign=True)
    if _TRUNK_CLS is None:
        _TRUNK_CLS = _trunk_class()
    return _TRUNK_CLS(model.features, cuts).to(device=device, dtype=dtype)  # type: ignore[no-any-return,unused-ignore]


#: lpips version -> the suffix of its trunk extractors' names (the versions differ in input scaling)
VERSION_SUFFIX = {"0.1": "", "0.0": "-v0.0"}

for _net, (_arch, _entry, _cuts, _outputs) in TRUNKS.items():
    for _ver, _suffix in VERSION_SUFFIX.items():
        register_extractor(
            ExtractorSpec(
                name=f"lpips-{_net}{_suffix}",
                backend="torchvision",
                weights=(_entry,),
                preprocess=f"lpips-v{_ver}",
                outputs=_outputs,
                build="transcreval.features.lpips_trunk:build_lpips_trunk",
                requires=(("torchvision", "image"),),
                channels_last=True,
                description=f"LPIPS v{_ver} {_net} trunk: torchvision {_arch} features cut into lpips' slices",
            )
        )
del _net, _arch, _entry, _cuts, _outputs, _ver, _suffix
