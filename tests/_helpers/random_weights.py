"""Random-init LPIPS weights with fixed seeds, for tests that must not download anything.

* :func:`trunk_state`: a torchvision network's full state dict (``features.*`` +
  ``classifier.*``), seeded, as torchvision's own file would hold it;
* :func:`lin_state`: lpips-layout linear layers (``lin<k>.model.1.weight``), non-negative as
  lpips' trained ones are, declared as v0.1 layers (``register_lpips_layers``);
* :func:`lpips_layout_state`: trunk + linear layers + scaling layer under lpips' key names
  (what ``torch.save(lpips.LPIPS(net=...).state_dict())`` writes, without the ``lins.*`` aliases);
* :func:`reference_lpips`: ``lpips.LPIPS(pnet_rand=True, pretrained=False)`` with its state dict
  replaced, strictly, by the same tensors;
* :func:`install`: writes files into a directory and registers manifest entries whose sha256
  and size are those files', so the real resolver finds and verifies them.
"""

from __future__ import annotations

import dataclasses
import os
import re
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import torch

from transcreval.features.lpips_trunk import CHANNELS, TRUNKS
from transcreval.weights import get_entry, register_weights, sha256_file

TV_ENTRY = {net: TRUNKS[net][1] for net in TRUNKS}
LIN_ENTRY = {net: f"lpips-{net}-lin-v0.1" for net in TRUNKS}


def trunk_state(net: str, seed: int = 0) -> dict[str, torch.Tensor]:
    import torchvision

    torch.manual_seed(seed)
    model = getattr(torchvision.models, TRUNKS[net][0])(weights=None)
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def features_only(state: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``features.<i>.*`` keys of a torchvision state dict, without the prefix."""
    return {k[len("features.") :]: v for k, v in state.items() if k.startswith("features.")}


def lin_state(net: str, seed: int = 1, version: str | None = "0.1") -> dict[str, torch.Tensor]:
    """Seeded linear layers, declared as lpips ``version``'s (``register_lpips_layers``, as a user
    declares their own calibration once), so files holding them load without ``version=``;
    ``version=None`` leaves them undeclared (unknown layers: LPIPS then requires ``version=``)."""
    from transcreval.features.lpips_network import register_lpips_layers

    g = torch.Generator().manual_seed(seed)
    out = {f"lin{k}.model.1.weight": torch.rand(1, c, 1, 1, generator=g) * 0.2 for k, c in enumerate(CHANNELS[net])}
    if version is not None:
        register_lpips_layers(out, net, version)
    return out


def lpips_layout_state(net: str, features: Mapping[str, torch.Tensor], lins: Mapping[str, torch.Tensor]) -> dict:
    """lpips' key names: ``net.slice<k>.<i>.*`` + ``lin<k>.model.1.weight`` + ``scaling_layer.*``."""
    out: dict[str, torch.Tensor] = {
        "scaling_layer.shift": torch.tensor([-0.030, -0.088, -0.188]).view(1, 3, 1, 1),
        "scaling_layer.scale": torch.tensor([0.458, 0.448, 0.450]).view(1, 3, 1, 1),
    }
    for key, value in features.items():
        i = int(key.split(".", 1)[0])
        k = next(n for n, (a, b) in enumerate(TRUNKS[net][2], 1) if a <= i < b)
        out[f"net.slice{k}.{key}"] = value
    out.update(lins)
    return out


def reference_lpips(net: str, features: Mapping[str, torch.Tensor], lins: Mapping[str, torch.Tensor], **kw):
    """lpips.LPIPS with a random trunk, its trunk and linear layers replaced (strict) by ours."""
    import lpips

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = lpips.LPIPS(net=net, pnet_rand=True, pretrained=False, verbose=False, **kw)
    state = {}
    for key in ref.state_dict():
        m = re.match(r"^net\.slice\d+\.(\d+\..+)$", key)
        if m:
            state[key] = features[m.group(1)]
        elif key.startswith("lins."):
            layer = int(key.split(".")[1])
            state[key] = lins[f"lin{layer}.model.1.weight"]
        elif key.startswith("lin"):
            state[key] = lins[key]
        else:
            state[key] = ref.state_dict()[key]
    ref.load_state_dict(state, strict=True)
    return ref.eval()


@contextmanager
def install(directory: Path, files: Mapping[str, Mapping[str, torch.Tensor] | bytes]) -> Iterator[dict[str, Path]]:
    """Save ``{manifest name: state dict or raw bytes}`` under each entry's file name in
    ``directory`` and register entries with those files' sha256 and size (restored on exit)."""
    directory.mkdir(parents=True, exist_ok=True)
    saved, originals = {}, {}
    for name, content in files.items():
        entry = get_entry(name)
        path = directory / entry.filename
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            torch.save(dict(content), path)
        originals[name] = entry
        register_weights(
            dataclasses.replace(entry, sha256=sha256_file(path), size=os.path.getsize(path)), overwrite=True
        )
        saved[name] = path
    try:
        yield saved
    finally:
        for entry in originals.values():
            register_weights(entry, overwrite=True)
