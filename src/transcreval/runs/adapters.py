"""The runner's building blocks: load a protocol's adapter, name it in run.json, pick its units,
read ``NAME=PATH`` systems, remove a run directory (used by :func:`~transcreval.runs.api.evaluate`,
:mod:`~transcreval.runs.orchestrate`, :class:`~transcreval.runs.run.Run` and the CLI)."""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.adapter import ProtocolAdapter, Unit, UnitContext

__all__ = [
    "adapter_ref",
    "check_device",
    "check_units",
    "load_adapter",
    "parse_systems",
    "remove_run",
    "select_units",
]


def load_adapter(protocol: str | ProtocolAdapter) -> ProtocolAdapter:
    """A protocol's runner adapter: a catalog name (``"mptc"``), ``"package.module:ATTR"`` (a
    protocol of your own), or an adapter instance."""
    if isinstance(protocol, ProtocolAdapter):
        return protocol
    if not isinstance(protocol, str) or not protocol.strip():
        raise InputError(f"protocol must be a catalog name or 'module:attribute', got {protocol!r}")
    target = protocol
    if ":" not in protocol:
        from transcreval.protocols.catalog import get_protocol

        try:
            info = get_protocol(protocol)
        except KeyError as e:
            raise InputError(str(e.args[0])) from None
        if not info.runner:
            raise InputError(f"protocol {protocol!r} has no runner adapter yet (it is used from Python only)")
        target = info.runner
    module, _, attr = target.partition(":")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise InputError(f"cannot load the protocol adapter {target!r}: {e}") from None
    adapter = obj() if isinstance(obj, type) else obj
    if not isinstance(adapter, ProtocolAdapter):
        raise InputError(f"{target} is a {type(adapter).__name__}, not a transcreval.runs.ProtocolAdapter")
    return adapter


def adapter_ref(adapter: ProtocolAdapter) -> str:
    """How run.json names an adapter so that ``Run`` can load it again: the catalog name when the
    catalog's runner is this adapter (also where the catalog names a package that re-exports it),
    else ``module:ATTR`` (or ``module:Class``)."""
    from transcreval.protocols.catalog import PROTOCOLS

    for p in PROTOCOLS:  # a loaded adapter's modules are loaded: nothing is imported here
        module, _, attr = p.runner.partition(":")
        if module in sys.modules and getattr(sys.modules[module], attr, None) is adapter:
            return p.name
    mod = importlib.import_module(type(adapter).__module__)
    attr = next((k for k, v in vars(mod).items() if v is adapter), type(adapter).__name__)
    ref = f"{type(adapter).__module__}:{attr}"
    return next((p.name for p in PROTOCOLS if p.runner == ref), ref)


def select_units(units: Sequence[Unit], metrics: Sequence[str] | None, ctx: UnitContext) -> tuple[list[Unit], dict]:
    """The units to run and ``{unit: why skipped}``: the named ones (each must be able to run),
    or by default every default unit that can run here."""
    names = [u.name for u in units]
    if metrics:
        wanted = [m.strip() for m in metrics if m.strip()]
        unknown = [m for m in wanted if m not in names]
        if unknown:
            raise InputError(
                f"unknown metric(s) {unknown}; this protocol's are {names} (transcreval ls metrics -p ...)"
            )
        chosen = [u for u in units if u.name in wanted]
        for u in chosen:
            why = u.unavailable(ctx)
            if why:
                raise InputError(f"metric {u.name!r} cannot run: {why}")
        return chosen, {}
    chosen, skipped = [], {}
    for u in units:
        why = u.unavailable(ctx) if u.default else "not a default metric (ask for it with --metrics)"
        if why:
            skipped[u.name] = why
        else:
            chosen.append(u)
    if not chosen:
        detail = "; ".join(f"{k}: {v}" for k, v in skipped.items())
        raise InputError(f"no metric of this protocol can run here ({detail})")
    return chosen, skipped


def check_device(device: Any) -> None:
    """InputError unless torch knows ``device`` and this machine has it (``--device banana``, or
    ``cuda`` without a GPU, fail here at the start rather than inside a model or never)."""
    if device is None:
        return
    import torch

    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise InputError(f"--device {device!r}: not a device torch knows (cpu, cuda, cuda:1, mps)") from None
    if dev.type == "cuda":
        n = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if n == 0:
            raise InputError(f"--device {device!r}: no CUDA device here (torch.cuda.is_available() is False)")
        if dev.index is not None and dev.index >= n:
            raise InputError(f"--device {device!r}: this machine has {n} CUDA device(s), cuda:0 to cuda:{n - 1}")
    elif dev.type == "mps":
        if not (hasattr(torch.backends, "mps") and torch.backends.mps.is_available()):
            raise InputError(f"--device {device!r}: no MPS device here")
    elif dev.type != "cpu":
        raise InputError(f"--device {device!r}: the runner uses cpu, cuda[:N] or mps")


def check_units(units: Sequence[Unit], ctx: UnitContext) -> None:
    """Every unit's own check of the items and options (:attr:`Unit.check`): an InputError naming
    the unit before anything is scored."""
    for u in units:
        if u.check is not None:
            try:
                u.check(ctx)
            except InputError as e:
                raise InputError(f"metric {u.name!r}: {e}") from None


def parse_systems(systems: Mapping[str, Any] | Sequence[str], *, allow_empty: bool = False) -> dict[str, str]:
    """``{name: outputs}`` from a mapping or ``["NAME=PATH", ...]`` (names unique)."""
    from transcreval.runs.manifest import parse_system_arg

    if isinstance(systems, Mapping):
        out = {str(k): os.fspath(v) for k, v in systems.items()}
    elif isinstance(systems, (str, bytes)):
        raise InputError("systems is a mapping {name: outputs} or a list of 'NAME=PATH' strings, not one string")
    else:
        out = {}
        for s in systems:
            name, path = parse_system_arg(s)
            if name in out:
                raise InputError(f"system {name!r} given twice")
            out[name] = path
    if not out and not allow_empty:
        raise InputError("no system to evaluate: give at least one --system NAME=PATH")
    return out


def remove_run(path: Path, *, dry_run: bool = False) -> None:
    """Empty a run directory (only one holding a run.json: never an arbitrary folder), keeping
    the lock of the process that does it (``run.lock``); ``dry_run``: only check that it may."""
    from transcreval.runs.lock import LOCK_NAME

    if not path.exists():
        return
    if not (path / "run.json").is_file():
        raise InputError(f"--fresh: {path} holds no run.json; it is not a run directory, so it is left alone")
    if dry_run:
        return
    for entry in path.iterdir():
        if entry.name == LOCK_NAME:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
