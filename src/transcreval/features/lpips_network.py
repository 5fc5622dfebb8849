"""An LPIPS network: a shared trunk extractor plus lpips' linear layers, loaded once.

:func:`load_lpips_network` resolves both files (or takes lpips' own state-dict layout) and
returns an :class:`LPIPSNetwork` that every LPIPS metric and functional twin shares.

lpips version: the linear layers were calibrated with one input scaling (v0.1: lpips'
per-channel ``ScalingLayer``; v0.0, the first release: none), and have the same shapes in both
versions, so a file cannot tell its version by its keys. It is told by its content: the layers
lpips ships (the manifest's ``lpips-<net>-lin-v0.1`` / ``-v0.0`` files, or the same tensors
inside a whole lpips state dict) are recognised, and their version is used (``version=`` must
agree); any other layers (your own calibration) need ``version=`` said explicitly.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from transcreval.errors import InputError, WeightsFormatError, WeightsNotFoundError
from transcreval.features.extractor import FeatureExtractor, get_extractor
from transcreval.features.lpips_trunk import CHANNELS, TRUNKS, VERSION_SUFFIX, is_lpips_layout, split_lpips_state
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
    version: str = "0.1"

    @property
    def trunk_sha256(self) -> str:
        return self.extractor.weights[0].sha256

    def signature_options(self) -> dict[str, str]:
        """What identifies the weights in a result signature: net, trunk and linear-layer digests
        (and the lpips version when it is not v0.1)."""
        return self.ids(self.net, self.trunk_sha256, self.lin_sha256, self.version)

    @staticmethod
    def ids(net: str, trunk_sha256: str, lin_sha256: str, version: str) -> dict[str, str]:
        """The signature options of a network from its files' digests and its lpips version."""
        opts = {"net": net, "trunk": trunk_sha256[:8], "lin": lin_sha256[:8]}
        return opts if version == "0.1" else {**opts, "v": version}

    def on(self, device: Any) -> LPIPSNetwork:
        """The same network with its trunk on ``device`` (built once per device)."""
        import torch

        dev = torch.device(device)
        if dev.type == self.extractor.device.type and dev.index in (None, self.extractor.device.index):
            return self
        return LPIPSNetwork(self.net, self.extractor.on(dev), self.lins, self.lin_sha256, self.version)


NETS = tuple(TRUNKS)
VERSIONS = tuple(VERSION_SUFFIX)
#: sha256 of lpips' shipped linear layers as tensors (:func:`lin_digest`): recognised inside any file
KNOWN_LINS = {
    "645165cce49887fed27c3cc8b5dabfa8ecdd436db0aee99d7b178d224d7e8d0f": ("alex", "0.0"),
    "d433892fe661554b213bd6a1bdb16b8149b119beb50592d52c5cdb74bd8fb5e1": ("vgg", "0.0"),
    "d56e5a814964c8bc88e6f5fb48e6b3c5490886c7ec5e8cc35d75df5eb80d82e4": ("squeeze", "0.0"),
    "cc9350fb61098b3d5627ec46f7b428587f5c6d60aea4dd05809853c9b7ffdf7b": ("alex", "0.1"),
    "5d7308f7a2a05d4ec46293ea7b560fa8988e806e70c22e657e2376feede2e6a0": ("vgg", "0.1"),
    "a59a27cf4d5b84d08a39be84625e3962a960905b869f0f4fd91987c538916a3d": ("squeeze", "0.1"),
}


def lin_digest(lins: tuple[torch.Tensor, ...]) -> str:
    """sha256 of linear layers as float32 tensors (layer index, shape, bytes), whatever file holds them."""
    import hashlib

    import torch

    h = hashlib.sha256()
    for k, t in enumerate(lins):
        t = t.detach().to("cpu", torch.float32).contiguous()
        h.update(f"{k}|{tuple(t.shape)}|".encode())
        h.update(t.numpy().tobytes())
    return h.hexdigest()


def register_lpips_layers(state: Mapping[str, torch.Tensor] | str | os.PathLike[str], net: str, version: str) -> str:
    """Declare the lpips ``version`` of your own linear layers once (their tensors, wherever they
    are stored later, are then recognised like lpips' own, and ``version=`` may be left out).

    ``state``: an lpips-layout state dict holding ``lin<k>.model.1.weight`` (a whole
    ``lpips.LPIPS().state_dict()`` or the layers alone) or a file holding one. Returns the
    layers' digest (:func:`lin_digest`)."""
    from transcreval.weights import load_state_dict

    if net not in TRUNKS:
        raise InputError(f"net must be one of {', '.join(map(repr, NETS))}, got {net!r}")
    if version not in VERSIONS:
        raise InputError(f"version must be '0.1' or '0.0' (lpips' releases), got {version!r}")
    if not isinstance(state, Mapping):
        state = load_state_dict(state)
    digest = lin_digest(_lins_from(state, net, f"LPIPS-{net} linear layers"))
    old = KNOWN_LINS.get(digest)
    if old is not None and old != (net, version):
        raise InputError(f"these linear layers are already known as lpips-{old[0]} v{old[1]}")
    KNOWN_LINS[digest] = (net, version)
    return digest


def lins_version(net: str, lin: Any, lins: tuple[torch.Tensor, ...], version: str | None) -> str:
    """The lpips version of these linear layers: recognised by the file's digest (manifest) or
    the tensors' (:data:`KNOWN_LINS`); ``version`` must agree with it, and is required when the
    layers are not lpips' own. WeightsFormatError otherwise."""
    from transcreval.weights import get_entry

    known = {v for v in VERSIONS if get_entry(f"lpips-{net}-lin-v{v}").sha256 == lin.sha256}
    hit = KNOWN_LINS.get(lin_digest(lins))
    if hit is not None and hit[0] == net:
        known.add(hit[1])
    found = next(iter(known), None) if len(known) == 1 else None
    if found is not None and version not in (None, found):
        raise WeightsFormatError(
            f"LPIPS-{net}: {lin.path} holds lpips v{found}'s linear layers, but version={version!r} was asked for; "
            f"pass version={found!r} to use them (lpips v{found} numbers) or leave weights unset for v{version}'s"
        )
    if found is None and version is None:
        raise WeightsFormatError(
            f"LPIPS-{net}: the linear layers in {lin.path} (sha256 {lin.sha256[:12]}...) are not lpips' own v0.1 or "
            "v0.0 layers, and the two versions scale the input differently: say which one they were calibrated "
            "with, version='0.1' (lpips.LPIPS' default: per-channel input scaling) or version='0.0' (none)"
        )
    return found or str(version)


_NETWORKS: dict[tuple[Any, ...], LPIPSNetwork] = {}


def _entries(net: str, weights: Any, version: str | None) -> tuple[str, str]:
    """The manifest names of the trunk and linear layers ``load_lpips_network`` loads (an
    InputError for a bad ``net``/``version`` or a mapping naming other entries)."""
    if net not in TRUNKS:
        raise InputError(f"net must be one of {', '.join(map(repr, NETS))}, got {net!r}")
    if version is not None and version not in VERSIONS:
        raise InputError(f"version must be None, '0.1' or '0.0' (lpips' releases), got {version!r}")
    trunk_entry, lin_entry = TRUNKS[net][1], f"lpips-{net}-lin-v{version or '0.1'}"
    if version is None and isinstance(weights, Mapping) and f"lpips-{net}-lin-v0.0" in weights:
        lin_entry = f"lpips-{net}-lin-v0.0"  # the file's content still decides (lins_version)
    if isinstance(weights, Mapping):
        unknown = sorted(set(weights) - {trunk_entry, lin_entry})
        if unknown:
            raise InputError(f"LPIPS-{net} loads {trunk_entry!r} and {lin_entry!r}; cannot override {unknown}")
    return trunk_entry, lin_entry


def lpips_weights_signature(net: str = "alex", weights: Any = None, version: str | None = None) -> dict[str, str]:
    """:meth:`LPIPSNetwork.signature_options` of the network :func:`load_lpips_network` would
    load, found without loading it: a file the resolver would find is named by the manifest's
    digest (the resolver uses only files that have it), a file given in a ``{manifest name:
    path}`` mapping by its sha256 (read once per process, never loaded). Two forms still load
    the network, since only the file's content tells: ``weights`` given as one file, directory
    or manifest name (which parts of lpips' layout it holds), and linear layers given without
    ``version=`` that are not the manifest's files (their version is recognised by their tensors)."""
    from transcreval.weights import get_entry, resolve

    trunk_entry, lin_entry = _entries(net, weights, version)
    if weights is None or isinstance(weights, Mapping):
        given = dict(weights or {})
        digests = [resolve(e, given[e]).sha256 if e in given else get_entry(e).sha256 for e in (trunk_entry, lin_entry)]
        trunk, lin = (str(d) for d in digests)
        used = version
        if used is None and lin_entry not in given:
            used = lin_entry.rsplit("-v", 1)[1]
        elif used is None:
            used = next((v for v in VERSIONS if get_entry(f"lpips-{net}-lin-v{v}").sha256 == lin), None)
        if used is not None:
            return LPIPSNetwork.ids(net, trunk, lin, used)
    return load_lpips_network(net, weights, version=version).signature_options()


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
    version: str | None = None,
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

    ``version``: the lpips version, "0.1" or "0.0" (None: v0.1 by default, or the version of
    lpips' own linear layers when ``weights`` holds them; required for other linear layers).

    Raises WeightsNotFoundError (with the places searched and the fetch command) when a file
    is missing, WeightsFormatError when a file does not fit the network or its version is not
    the one asked for (or cannot be told).
    """
    from transcreval.weights import load_state_dict, resolve

    trunk_entry, lin_entry = _entries(net, weights, version)
    overrides: dict[str, str | os.PathLike[str]] = {}
    if isinstance(weights, Mapping):
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
    lin = resolve(lin_entry, overrides.get(lin_entry))
    key = (net, lin.sha256, tuple(sorted((k, str(v)) for k, v in overrides.items())), str(device), str(dtype), version)
    hit = _NETWORKS.get(key)
    if hit is None:
        lins = _lins_from(load_state_dict(lin.path), net, f"LPIPS-{net} linear layers from {lin.path}")
        used = lins_version(net, lin, lins, version)
    else:
        lins, used = hit.lins, hit.version
    trunk_weights = {trunk_entry: overrides[trunk_entry]} if trunk_entry in overrides else None
    extractor = get_extractor(f"lpips-{net}{VERSION_SUFFIX[used]}", trunk_weights, device, dtype)
    if hit is not None and hit.extractor is extractor:
        return hit
    network = LPIPSNetwork(net, extractor, lins, lin.sha256, used)
    _NETWORKS[key] = network
    return network
