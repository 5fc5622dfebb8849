"""The extractor registry: named feature networks declared by spec.

An :class:`ExtractorSpec` says everything that determines an extractor's features: its name, the
backend that builds it, the manifest weights it loads, its named preprocessing and its named
outputs. Metrics ask for extractors by name (``get_extractor("lpips-alex")``); a collection
shares an extractor between the metrics that name the same one (never by comparing values).

Register your own::

    def build(spec, weights, device, dtype):        # weights: {manifest name: ResolvedWeights}
        net = MyNet()
        load_strict(net, load_state_dict(weights["my-net-v1"].path), "my-net")
        return net                                   # forward(x) -> tensor, tuple or dict

    register_extractor(ExtractorSpec(
        name="my-net", backend="builtin", weights=("my-net-v1",),
        preprocess="identity", outputs=("embedding",), build=build,
    ))

``build`` may also be a ``"package.module:function"`` string, imported only when the extractor
is first built (so registering costs nothing at import time).
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from transcreval.errors import MissingDependencyError
from transcreval.utils.named_table import NamedTable

if TYPE_CHECKING:
    import torch


#: backend -> the distributions (besides torch) whose versions can change its features
BACKEND_PACKAGES: dict[str, tuple[str, ...]] = {
    "torchvision": ("torchvision",),
    "timm": ("timm",),
    "torch-fidelity": ("torch-fidelity",),
    "open_clip": ("open_clip_torch", "torchvision", "pillow"),
}


@dataclass(frozen=True)
class ExtractorSpec:
    """Declaration of a feature extractor.

    Attributes:
        name: public name, e.g. ``"lpips-alex"``.
        backend: what builds it (``"torchvision"``, ``"open_clip"``, ``"transformers"``, ``"builtin"``...).
        weights: manifest names of the files it loads, in the order ``build`` uses them.
        preprocess: name of a registered :class:`~transcreval.features.preprocess.Preprocess`.
        outputs: names of the network's outputs, in the order of a tuple output.
        build: ``build(spec, weights, device, dtype) -> nn.Module`` or ``"module:function"``.
        requires: ``(import name, pip extra)`` pairs checked before building (MissingDependencyError).
        description: one line for humans.
        channels_last: run the network in channels-last memory format (faster convolutions on
            CPUs and tensor cores; outputs are returned contiguous either way).
        packages: distributions whose installed versions can change the features (their versions
            go into the feature-cache key); default: torch plus the backend's packages
            (:data:`BACKEND_PACKAGES`).
    """

    name: str
    backend: str
    weights: tuple[str, ...]
    preprocess: str
    outputs: tuple[str, ...]
    build: Callable[..., Any] | str
    requires: tuple[tuple[str, str], ...] = ()
    description: str = ""
    channels_last: bool = False
    packages: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.outputs:
            raise ValueError(f"extractor {self.name!r} must name at least one output")
        if isinstance(self.weights, str) or isinstance(self.outputs, str):
            raise ValueError(f"extractor {self.name!r}: weights and outputs must be tuples of names")

    @property
    def version_packages(self) -> tuple[str, ...]:
        """torch, then ``packages`` (or the backend's packages), without repeats."""
        extra = self.packages or BACKEND_PACKAGES.get(self.backend, ())
        return tuple(dict.fromkeys(("torch", *extra)))

    def check_requires(self) -> None:
        """Raise MissingDependencyError (naming the pip extra) for the first package of
        ``requires`` that is not installed; nothing is imported."""
        for module, extra in self.requires:
            if importlib.util.find_spec(module) is None:
                raise MissingDependencyError(f"extractor {self.name!r}", module, extra)

    def builder(self) -> Callable[..., torch.nn.Module]:
        """The build function (imports a ``"module:function"`` string) after :meth:`check_requires`."""
        self.check_requires()
        if callable(self.build):
            return self.build
        mod, _, fn = self.build.partition(":")
        return getattr(importlib.import_module(mod), fn)  # type: ignore[no-any-return,unused-ignore]


_SPECS = NamedTable("feature extractor", ExtractorSpec)


def register_extractor(spec: ExtractorSpec, *, overwrite: bool = False) -> ExtractorSpec:
    """Add an extractor (``overwrite=True`` replaces one of the same name and drops its built instances)."""
    old = _SPECS.swap(spec, overwrite=overwrite, caller="register_extractor")
    if old is not None and old != spec:
        clear_extractors(spec.name)
    return spec


def unregister_extractor(name: str) -> None:
    """Remove an extractor and its built instances (mainly for tests)."""
    _SPECS.remove(name)
    clear_extractors(name)


def get_extractor_spec(name: str) -> ExtractorSpec:
    """The spec called ``name``; a ``KeyError`` lists the known ones."""
    return _SPECS.get(name)


def extractor_names() -> Iterator[str]:
    return iter(_SPECS.names())


# ---------------------------------------------------------------------- built instances
#: (extractor name, weights sha256s, device, dtype): what one built extractor is shared under
BuiltKey = tuple[str, tuple[str, ...], str, str]
_BUILD_LOCK = threading.RLock()
_BUILT: dict[BuiltKey, Any] = {}


def built_instance(key: BuiltKey, spec: ExtractorSpec, build: Callable[[], Any] | None = None) -> Any:
    """The process-wide instance built from ``spec`` under ``key``; when there is none (or one
    from another spec of that name), ``build()`` stored there, or None without ``build``. One lock:
    two threads asking for the same extractor build it once."""
    with _BUILD_LOCK:
        inst = _BUILT.get(key)
        if (inst is None or inst.spec != spec) and build is not None:
            inst = _BUILT[key] = build()
    return inst if inst is not None and inst.spec == spec else None


def built_instances() -> list[Any]:
    """The instances built so far in this process."""
    with _BUILD_LOCK:
        return list(_BUILT.values())


def clear_extractors(name: str | None = None) -> None:
    """Drop built instances (all, or those of extractor ``name``) so their memory can be freed."""
    with _BUILD_LOCK:
        for key in [k for k in _BUILT if name is None or k[0] == name]:
            del _BUILT[key]
