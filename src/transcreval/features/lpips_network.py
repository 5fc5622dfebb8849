"""An LPIPS network: a shared trunk extractor plus lpips' linear layers, loaded once.

:func:`load_lpips_network` resolves both files (or takes lpips' own state-dict layout) and
returns an :class:`LPIPSNetwork` that every LPIPS metric and functional twin shares.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from transcreval.errors import InputError, WeightsFormatError, WeightsNotFoundError
from transcreval.features.extractor import FeatureExtractor, get_extractor
from transcreval.features.lpips_trunk import CHANNELS, TRUNKS, split_lpips_state

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class LPIPSNetwork:
    """An LPIPS network: a shared trunk extractor plus the linear layers' weights.

    Build one with :func:`load_lpips_network`; metrics and functional twins share it. Pickles
    and copies refer to the process-wide trunk (see :class:`~transcreval.features.FeatureExtractor`).
    """

    net: str
    extractor: FeatureExtractor
    lins: tuple[torch.Tensor, ...]
    lin_sha256: str

    @property
    def trunk_sha256(self) -> str:
        return self.extractor.weights[0].sha256

    def signature_options(self) -> dict[str, str]:
        """What identifies the weights in a result signature: net, trunk and linear-layer digests."""
        return {"net": self.net, "trunk": self.trunk_sha256[:8], "lin": self.lin_sha256[:8]}

    def on(self, device: Any) -> LPIPSNetwork:
        """The same network with its trunk on ``device`` (built once per device)."""
        import torch

        dev = torch.device(device)
        if dev.type == self.extractor.device.type and dev.index in (None, self.extractor.device.index):
            return self
        explicit = {w.name: str(w.path) for w in self.extractor.weights if w.source == "argument"}
        ex = get_extractor(self.extractor.name, explicit or None, dev, self.extractor.dtype)
        return LPIPSNetwork(self.net, ex, self.lins, self.lin_sha256)


NETS = tuple(TRUNKS)
_NETWORKS: dict[tuple[Any, ...], LPIPSNetwork] = {}


def _lins_from(state: Mapping[str, torch.Tensor], net: str, what: str) -> tuple[torch.Tensor, ...]:
    _, lins = split_lpips_state(state, net)
    want = CHANNELS[net]
    if sorted(lins) != list(range(len(want))):
        raise WeightsFormatError(
            f"{what}: LPIPS-{net} needs linear layers lin0..lin{len(want) - 1}, found {sorted(lins)}"
        )
    for k, c in enumerate(want):
        if tuple(lins[k].shape) != (1, c, 1, 1):
            raise WeightsFormatError(f"{what}: lin{k} has shape {tuple(lins[k].shape)}, expected (1, {c}, 1, 1)")
    return tuple(lins[k].detach().to("cpu", dtype=lins[k].dtype).clone() for k in range(len(want)))


def load_lpips_network(
    net: str = "alex",
    weights: str | os.PathLike[str] | Mapping[str, str | os.PathLike[str]] | None = None,
    device: Any = None,
    dtype: Any = None,
) -> LPIPSNetwork:
    """The LPIPS network for ``net`` ("alex", "vgg" or "squeeze"), built once per process.

    ``weights``:

    * ``None``: the trunk from torchvision's file and the linear layers from the lpips wheel,
      found by the resolver (``transcreval weights where torchvision-alexnet``);
    * a path to a file in lpips' own state-dict layout (``lpips.LPIPS(net=...).state_dict()``:
      trunk and linear layers together; a file with only the linear layers takes the trunk
      from the resolver), or the name of a manifest entry holding such a file;
    * ``{manifest name: path}`` to replace single files (``"torchvision-alexnet"``,
      ``"lpips-alex-lin-v0.1"``).

    Raises WeightsNotFoundError (with the places searched and the fetch command) when a file
    is missing, WeightsFormatError when a file does not fit the network.
    """
    from transcreval.weights import load_state_dict, resolve

    if net not in TRUNKS:
        raise InputError(f"net must be one of {', '.join(map(repr, NETS))}, got {net!r}")
    trunk_entry, lin_entry = TRUNKS[net][1], f"lpips-{net}-lin-v0.1"
    overrides: dict[str, str | os.PathLike[str]] = {}
    if isinstance(weights, Mapping):
        unknown = sorted(set(weights) - {trunk_entry, lin_entry})
        if unknown:
            raise InputError(f"LPIPS-{net} loads {trunk_entry!r} and {lin_entry!r}; cannot override {unknown}")
        overrides = dict(weights)
    elif weights is not None:
        path = Path(weights).expanduser()
        if not path.is_file():
            from transcreval.weights import get_entry

            try:
                get_entry(str(weights))
            except KeyError:
                raise WeightsNotFoundError(
                    f"LPIPS weights {str(weights)!r} are neither an existing file nor a manifest name "
                    "(`transcreval weights list` shows the names)",
                    name=str(weights),
                    searched=(str(path),),
                ) from None
            path = resolve(str(weights)).path
        state = load_state_dict(path)
        trunk, _ = split_lpips_state(state, net)  # also rejects a layout that is not lpips'
        overrides[lin_entry] = path
        if trunk:
            overrides[trunk_entry] = path
    key = (net, tuple(sorted((k, str(v)) for k, v in overrides.items())), str(device), str(dtype))
    hit = _NETWORKS.get(key)
    trunk_weights = {trunk_entry: overrides[trunk_entry]} if trunk_entry in overrides else None
    extractor = get_extractor(f"lpips-{net}", trunk_weights, device, dtype)
    lin = resolve(lin_entry, overrides.get(lin_entry))
    if hit is not None and hit.extractor is extractor and hit.lin_sha256 == lin.sha256:
        return hit
    lins = _lins_from(load_state_dict(lin.path), net, f"LPIPS-{net} linear layers from {lin.path}")
    network = LPIPSNetwork(net, extractor, lins, lin.sha256)
    _NETWORKS[key] = network
    return network
