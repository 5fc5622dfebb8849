"""Built extractors: one process-wide instance per (extractor, weights, device, dtype).

:func:`get_extractor` resolves the spec's weights (explicit files or the resolver's search),
builds the network once, and returns the shared :class:`FeatureExtractor`. Calling it runs the
named preprocessing and the network as torch ops on the extractor's device, in batches, under
``torch.inference_mode`` (or with autograd when the input requires grad).

Pinned weights: a metric keeps the extractor it built and moves it with
:meth:`FeatureExtractor.on`, which never resolves the files again: another device gets the same
files, and a file whose content changed since (a checkpoint re-saved at the same path) is a
:class:`~transcreval.errors.WeightsChangedError`, never a second model under the first one's
signature.

Sharing inside one batch: :mod:`transcreval.features.scope`. Across runs: pass
``cache=FeatureCache(...)`` to reuse features of images already seen; the key holds everything
that determines the features (:attr:`FeatureExtractor.identity`: weights digests,
preprocessing, dtype and the versions of the packages that compute them).

Degenerate weights (e.g. a random initialisation) are warned about once per extractor
(:mod:`transcreval.features.sanity`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from transcreval.errors import FeatureCacheError, InputError, WeightsChangedError
from transcreval.features.devices import as_device, as_dtype
from transcreval.features.extractor_stats import ExtractorStats, image_digests
from transcreval.features.preprocess import get_preprocess
from transcreval.features.registry import (
    ExtractorSpec,
    built_instance,
    built_instances,
    clear_extractors,
    get_extractor_spec,
)
from transcreval.features.sanity import warn_if_constant
from transcreval.features.scope import current_scope, feature_scope, shared_input
from transcreval.utils.packages import package_version
from transcreval.utils.threads import torch_threads
from transcreval.utils.warn import warn_user
from transcreval.weights.pin import check_unchanged
from transcreval.weights.resolve import ResolvedWeights, resolve, resolve_file

if TYPE_CHECKING:
    import os

    import torch

    from transcreval.features.cache import FeatureCache

__all__ = [
    "ExtractorStats",
    "FeatureExtractor",
    "built_extractors",
    "clear_extractors",
    "feature_scope",
    "get_extractor",
    "get_extractor_from_file",
    "image_digests",
    "resolve_weights",
    "shared_input",
]


class FeatureExtractor:
    """A built extractor. Get one with :func:`get_extractor`; call it on float NCHW RGB in [0, 1].

    ``extractor(images, batch_size=None, cache=None) -> {output name: N x ... tensor}``
    """

    def __init__(
        self,
        spec: ExtractorSpec,
        module: torch.nn.Module,
        weights: tuple[ResolvedWeights, ...],
        device: torch.device,
        dtype: torch.dtype,
        explicit: Mapping[str, str] | None = None,
    ) -> None:
        self.spec = spec
        self.module = module
        self.weights = weights
        self.device = device
        self.dtype = dtype
        self.preprocess = get_preprocess(spec.preprocess)
        self.stats = ExtractorStats()
        self._explicit = dict(explicit or {})
        self._sanity_settled = False  # the constant-features check has decided (features.sanity)

    # ------------------------------------------------------------------ identity
    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def key(self) -> tuple[str, tuple[str, ...], str, str]:
        """The process-cache key: (name, weights sha256s, device, dtype)."""
        return (self.spec.name, tuple(w.sha256 for w in self.weights), str(self.device), str(self.dtype))

    @property
    def identity(self) -> dict[str, Any]:
        """Everything that determines the features (not the device): the feature-cache identity."""
        return {
            "extractor": self.spec.name,
            "backend": self.spec.backend,
            "weights": {w.name: w.sha256 for w in self.weights},
            "preprocess": self.spec.preprocess,
            "dtype": str(self.dtype).replace("torch.", ""),
            "outputs": list(self.spec.outputs),
            "versions": {p: package_version(p) for p in self.spec.version_packages},
        }

    @property
    def identity_digest(self) -> str:
        return hashlib.sha256(json.dumps(self.identity, sort_keys=True).encode()).hexdigest()

    @property
    def signature(self) -> str:
        """Short provenance string, e.g. ``lpips-alex|w:7be5be79|pp:lpips-v0.1|float32``."""
        shas = "+".join(w.sha256[:8] for w in self.weights) or "none"
        return f"{self.spec.name}|w:{shas}|pp:{self.spec.preprocess}|{self.identity['dtype']}"

    def __repr__(self) -> str:
        return f"FeatureExtractor({self.signature}, device={self.device})"

    def on(self, device: Any) -> FeatureExtractor:
        """This extractor on ``device``: the same spec, dtype and weight files, never resolved
        again. Raises :class:`~transcreval.errors.WeightsChangedError` when a file's content
        changed since it was loaded (a checkpoint re-saved at the same path)."""
        dev = as_device(device)
        if dev == self.device:
            return self
        inst: FeatureExtractor | None = built_instance(
            (self.spec.name, self.key[1], str(dev), str(self.dtype)), self.spec
        )
        if inst is not None:
            return inst
        check_unchanged(self.weights, f"extractor {self.name!r}")
        return _instance(self.spec, self.weights, dev, self.dtype)

    # instances are shared: copies and pickles refer to the process-wide instance
    def __deepcopy__(self, memo: dict[int, Any]) -> FeatureExtractor:
        return self

    def __copy__(self) -> FeatureExtractor:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        dtype = str(self.dtype).replace("torch.", "")
        return (rebuild_extractor, (self.spec.name, self._explicit or None, str(self.device), dtype, self.key[1]))

    # ------------------------------------------------------------------ running
    def _check(self, images: Any) -> torch.Tensor:
        import torch

        if not isinstance(images, torch.Tensor) or images.ndim != 4 or images.shape[1] != 3:
            shape = tuple(images.shape) if isinstance(images, torch.Tensor) else type(images).__name__
            raise InputError(
                f"extractor {self.name!r} takes a float N x 3 x H x W tensor in [0, 1], got {shape}; "
                "convert images with transcreval.io.to_rgb_float first"
            )
        if not images.is_floating_point():
            raise InputError(f"extractor {self.name!r} takes float images in [0, 1], got dtype {images.dtype}")
        if images.shape[0] == 0:
            raise InputError(f"extractor {self.name!r}: empty batch")
        return images

    def _forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        import torch

        x = self.preprocess.fn(x.to(self.device)).to(self.dtype)
        n = int(x.shape[0])
        # oneDNN takes another code path for a single image, whose results differ from the same
        # image inside a batch in the last bits: run one image as a batch of two, so features
        # (and metric values) do not depend on how the data was batched. A module that runs
        # fixed-size chunks itself (``runs_fixed_batches = True``: Inception, the CLIP towers)
        # is batch-invariant already.
        single = n == 1 and self.device.type == "cpu" and not getattr(self.module, "runs_fixed_batches", False)
        if single:
            x = x.expand(2, *x.shape[1:])
        if self.spec.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        out = self.module(x)
        self.stats.forward_passes += 1
        self.stats.images_computed += n
        if isinstance(out, torch.Tensor):
            out = (out,)
        if isinstance(out, Mapping):
            named = {k: out[k] for k in self.spec.outputs}
        else:
            out = tuple(out)
            if len(out) != len(self.spec.outputs):
                raise RuntimeError(
                    f"extractor {self.name!r} returned {len(out)} outputs, its spec names {self.spec.outputs}"
                )
            named = dict(zip(self.spec.outputs, out))
        return {k: v[:1] for k, v in named.items()} if single else named

    def _batched(self, x: torch.Tensor, batch_size: int | None) -> dict[str, torch.Tensor]:
        import torch

        n = int(x.shape[0])
        if not batch_size or batch_size >= n:
            return self._forward(x)
        parts = [self._forward(x[i : i + batch_size]) for i in range(0, n, batch_size)]
        return {k: torch.cat([p[k] for p in parts]) for k in self.spec.outputs}

    def _cached(self, x: torch.Tensor, batch_size: int | None, cache: FeatureCache) -> dict[str, torch.Tensor]:
        import torch

        ident = self.identity_digest
        keys = [cache.key(d, ident) for d in image_digests(x)]
        try:
            found = cache.get_many(keys, device=self.device)
        except FeatureCacheError as exc:  # the cache only saves time: compute without it
            warn_user(f"{exc}; computing the features without the cache")
            return self._batched(x, batch_size)
        missing = [i for i, k in enumerate(keys) if k not in found]
        self.stats.cache_hits += len(keys) - len(missing)
        per_item: dict[int, dict[str, torch.Tensor]] = {i: found[k] for i, k in enumerate(keys) if k in found}
        if missing:
            index = torch.tensor(missing, device=x.device)
            computed = self._batched(x.index_select(0, index), batch_size)
            new = {}
            for j, i in enumerate(missing):
                item = {k: v[j] for k, v in computed.items()}
                per_item[i] = item
                new[keys[i]] = item
            try:
                cache.put_many(new, extractor=self.name)
            except FeatureCacheError as exc:  # the features are computed: keep them, say so
                warn_user(f"{exc}; the features were computed but not stored")
        out = {
            k: torch.stack([per_item[i][k].to(self.device, self.dtype) for i in range(len(keys))])
            for k in self.spec.outputs
        }
        if self.spec.channels_last:  # the layout fresh features have, so later reductions round alike
            out = {k: v.contiguous(memory_format=torch.channels_last) if v.ndim == 4 else v for k, v in out.items()}
        return out

    def __call__(
        self, images: torch.Tensor, *, batch_size: int | None = None, cache: FeatureCache | None = None
    ) -> dict[str, torch.Tensor]:
        """Features of ``images`` (float N x 3 x H x W RGB in [0, 1]), one tensor per output.

        Args:
            batch_size: run the network on at most this many images at a time.
            cache: a :class:`~transcreval.features.cache.FeatureCache`; images already in it skip
                the network (not used when the input requires grad).
        """
        import torch

        images = self._check(images)
        self.stats.calls += 1
        scope = current_scope()
        version = 0 if images.is_inference() else images._version  # inference tensors have no version counter
        memo_key = ("features", self.key, id(images), version, batch_size)
        if scope is not None:
            hit = scope.get(memo_key)
            if hit is not None and hit[0] is images:
                self.stats.scope_hits += 1
                return dict(hit[1])
        grad = torch.is_grad_enabled() and images.requires_grad
        # preprocessing and the network on the thread budget (transcreval.utils.threads), restored after
        with torch_threads(), contextlib.nullcontext() if grad else torch.inference_mode():
            if cache is not None and not grad:
                result = self._cached(images, batch_size, cache)
            else:
                result = self._batched(images, batch_size)
        if scope is not None:
            scope[memo_key] = (images, result)
        if not self._sanity_settled:
            self._sanity_settled = warn_if_constant(self.name, self.signature, images, result)
        return result


def resolve_weights(
    spec: ExtractorSpec, weights: Mapping[str, str | os.PathLike[str]] | None = None
) -> tuple[ResolvedWeights, ...]:
    """Resolve every file ``spec`` needs; ``weights`` maps manifest names to explicit files."""
    explicit = _explicit(spec, weights)
    return tuple(resolve(name, explicit[name]) if name in explicit else resolve(name) for name in spec.weights)


def _explicit(spec: ExtractorSpec, weights: Mapping[str, str | os.PathLike[str]] | None) -> dict[str, Any]:
    explicit = dict(weights or {})
    unknown = sorted(set(explicit) - set(spec.weights))
    if unknown:
        raise InputError(
            f"extractor {spec.name!r} loads {list(spec.weights)}; cannot override {unknown} "
            "(pass {manifest name: file})"
        )
    return explicit


def weights_digests(name: str, weights: Mapping[str, str | os.PathLike[str]] | None = None) -> tuple[str, ...]:
    """The sha256 of each file extractor ``name`` would load, found without building it (what a
    signature names): an explicit file's own digest (read once per process, never loaded), else
    the manifest's (the resolver uses only files that have it; an entry without one is resolved)."""
    from transcreval.weights import get_entry

    spec = get_extractor_spec(name)
    explicit = _explicit(spec, weights)
    out = []
    for entry in spec.weights:
        digest = None if entry in explicit else get_entry(entry).sha256
        out.append(digest or resolve(entry, explicit.get(entry)).sha256)
    return tuple(out)


def _instance(
    spec: ExtractorSpec, resolved: tuple[ResolvedWeights, ...], dev: torch.device, dt: torch.dtype
) -> FeatureExtractor:
    import torch

    def build() -> FeatureExtractor:
        module = spec.builder()(spec, {w.name: w for w in resolved}, dev, dt)
        module = module.to(device=dev, dtype=dt).eval().requires_grad_(False)
        if spec.channels_last:
            module = module.to(memory_format=torch.channels_last)
        explicit = {w.name: str(w.path) for w in resolved if w.source == "argument"}
        return FeatureExtractor(spec, module, resolved, dev, dt, explicit)

    inst: FeatureExtractor = built_instance(
        (spec.name, tuple(w.sha256 for w in resolved), str(dev), str(dt)), spec, build
    )
    return inst


def get_extractor(
    name: str,
    weights: Mapping[str, str | os.PathLike[str]] | None = None,
    device: Any = None,
    dtype: Any = None,
) -> FeatureExtractor:
    """The process-wide extractor ``name`` on ``device`` in ``dtype`` (built on first use).

    Args:
        name: a registered extractor (``transcreval.features.extractor_names()``).
        weights: ``{manifest name: file}`` to load explicit files instead of the resolver's.
        device: torch device (default CPU).
        dtype: network dtype (default float32).

    Raises MissingDependencyError when a package the extractor needs is not installed (checked
    first), WeightsNotFoundError when a file is missing (before anything is built). Every call
    resolves the files again (a file re-saved at the same path gives a new instance): metrics
    keep the instance they built and move it with :meth:`FeatureExtractor.on`.
    """
    spec = get_extractor_spec(name)
    dev, dt = as_device(device), as_dtype(dtype)
    spec.check_requires()  # a missing package is reported before any file is looked for
    resolved = resolve_weights(spec, weights)
    return _instance(spec, resolved, dev, dt)


def rebuild_extractor(
    name: str, weights: Mapping[str, str] | None, device: str, dtype: str, digests: tuple[str, ...]
) -> FeatureExtractor:
    """An unpickled extractor (in another process): built again from the same files, which must
    still hold the weights it was pickled with (WeightsChangedError otherwise)."""
    ext = get_extractor(name, weights, device, dtype)
    if ext.key[1] != tuple(digests):
        raise WeightsChangedError(
            f"extractor {name!r}: the weights files now hold sha256 {[d[:12] for d in ext.key[1]]}, not the "
            f"{[d[:12] for d in digests]} the metric was built with (a file re-saved in between): build a new metric"
        )
    return ext


def get_extractor_from_file(name: str, path: str | os.PathLike[str], **kwargs: Any) -> FeatureExtractor:
    """Like :func:`get_extractor`, with one file (any layout the builder accepts) for every weights entry."""
    spec = get_extractor_spec(name)
    resolve_file(path)  # a clear error when the file does not exist
    return get_extractor(name, dict.fromkeys(spec.weights, path), **kwargs)


def built_extractors() -> list[FeatureExtractor]:
    """The instances built so far in this process."""
    return built_instances()
