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
from transcreval.features.lpips_trunk import CHANNELS, TRUNKS, is_lpips_layout, split_lpips_state
from transcreval.weights.load import check_finite

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
    check_finite({f"lin{k}": v for k, v in lins.items()}, what)
    return tuple(lins[k].detach().to("cpu", dtype=lins[k].dtype).clone() for k in range(len(want)))


def _from_directory(directory: Path, names: tuple[str, ...], net: str) -> dict[str, str | os.PathLike[str]]:
    """``{manifest name: directory}`` for each of ``names`` whose file the directory holds."""
    from transcreval.weights import get_entry

    files = {name: get_entry(name).filename for name in names}
    found: dict[str, str | os.PathLike[str]] = {n: directory for n, f in files.items() if (directory / f).is_file()}
    if not found:
        raise WeightsNotFoundError(
            f"LPIPS-{net}: the directory {directory} holds none of its files ({', '.join(files.values())}); "
            f"fetch them with `transcreval weights fetch {' '.join(names)} --to {directory}`",
            name=names[0],
            searched=tuple(str(directory / f) for f in files.values()),
        )
    return found


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
    * a directory: the manifest files it holds (by file name, e.g. what ``transcreval weights
      fetch ... --to DIR`` wrote) are used, verified against the manifest; a file it does not
      hold is resolved as usual (it must hold at least one);
    * ``{manifest name: path}`` to replace single files (``"torchvision-alexnet"``,
      ``"lpips-alex-lin-v0.1"``; a path may be a directory holding the file).

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
    elif weights is not None and Path(weights).expanduser().is_dir():
        overrides = _from_directory(Path(weights).expanduser(), (trunk_entry, lin_entry), net)
    elif weights is not None:
        path = Path(weights).expanduser()
        if not path.is_file():
            from transcreval.weights import get_entry

            try:
                get_entry(str(weights))
            except KeyError:
                raise WeightsNotFoundError(
                    f"LPIPS weights {str(weights)!r} are neither an existing file or directory nor a manifest "
                    "name (`transcreval weights list` shows the names)",
                    name=str(weights),
                    searched=(str(path),),
                ) from None
            if str(weights) == trunk_entry:
                raise WeightsFormatError(
                    f"{weights!r} is the {net} trunk alone, which LPIPS-{net} loads by default (weights=None); "
                    f"to use another copy pass weights={{{trunk_entry!r}: path}}"
                )
            path = resolve(str(weights)).path
        state = load_state_dict(path)
        if not is_lpips_layout(state) and any(k.startswith("features.") for k in state):
            raise WeightsFormatError(
                f"{path} holds a torchvision-layout trunk (features.* keys), not lpips' layout (trunk and "
                f"linear layers). Pass it as the trunk: weights={{{trunk_entry!r}: {str(path)!r}}} (the linear "
                "layers then come from the resolver)"
            )
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
