"""LPIPS: its options, the pure pieces and the functional twins.

LPIPS (Zhang et al., CVPR 2018; lpips v0.1): for each trunk layer l, unit-normalise the
activations of both images along channels, square their difference, weight the channels with
the learned non-negative linear layer w_l, and average over space; sum over layers::

    d(x, y) = sum_l mean_{h,w} sum_c w_{l,c} (x̂_{l,c,h,w} - ŷ_{l,c,h,w})^2

Range [0, inf) (about 0..1 in practice), lower is more similar.

Masked LPIPS averages the same per-layer maps under a mask
(:mod:`transcreval.functional.image.masked_lpips`).

Numerics: unit-normalisation puts its eps *inside* the square root (``x / sqrt(sum x^2 + eps)``,
eps = 1e-20), so gradients are finite where lpips' ``x / (sqrt(sum x^2) + 1e-10)`` gives NaN, and
values agree with lpips to float rounding (features with norm below 1e-9 are the only difference).
The head runs in float32 (float64 when the trunk does).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from transcreval.core.common import MeanStats, check_bool, check_choice, mean_result
from transcreval.core.options import option, takes_options
from transcreval.core.result import MetricResult
from transcreval.errors import InputError
from transcreval.features import shared_input
from transcreval.features.devices import as_dtype
from transcreval.features.lpips_network import NETS, LPIPSNetwork, load_lpips_network, lpips_weights_signature
from transcreval.features.options import FeatureMetricOptions
from transcreval.functional.image.lpips_memory import check_max_pixels, check_pair_memory
from transcreval.functional.image.pairs import as_image_batch, pair_maps, per_pair, stack_group
from transcreval.utils.threads import torch_threads

if TYPE_CHECKING:
    import torch


NORM_EPS = 1e-20
# smallest height/width each trunk accepts (below it a pooling window no longer fits)
MIN_SIZE = {"alex": 31, "vgg": 16, "squeeze": 17}
#: distributions whose versions change the numbers
PACKAGES = ("torch",)


@dataclass(frozen=True)
class LPIPSOptions(FeatureMetricOptions):
    """Options of :class:`~transcreval.LPIPS` and :func:`lpips`, the one list of the LPIPS
    family's keywords (the classes' ``__init__`` and the twins show them from here; see
    :func:`lpips` for each one). ``input_range``/``batch_size``/``feature_cache`` follow every
    feature metric's convention (:mod:`transcreval.features.options`; the cache is opened here).
    Checked when made, before a weights file or an image is read; the network loads on first
    use of :attr:`network`. The signature names the weights by digest and the trunk's dtype,
    without loading the network (:func:`~transcreval.features.lpips_network.lpips_weights_signature`)."""

    net: str = option("alex", signature=None)
    weights: Any = option(None, signature=lambda o: o.weights_signature())
    device: Any = option(None, signature=None)
    dtype: Any = option(None, signature=lambda o: {"dtype": str(as_dtype(o.dtype)).replace("torch.", "")})
    cache_preds: bool = option(False, signature=None)
    max_pixels: int | str | None = option("auto", signature=None)
    version: str | None = option(None, signature=None)

    def check(self) -> None:
        check_max_pixels(self.max_pixels)
        check_choice("net", self.net, NETS)
        check_bool("cache_preds", self.cache_preds)
        super().check()

    @functools.cached_property
    def network(self) -> LPIPSNetwork:
        """The network (loaded on first use, shared by every user of the same weights)."""
        return load_lpips_network(self.net, self.weights, self.device, self.dtype, self.version)

    def weights_signature(self) -> dict[str, str]:
        """The weights in the signature: those of the network once loaded (a metric keeps the
        files it was built with, even if one is re-saved later), else those it would load,
        found without loading it."""
        if "network" in self.__dict__:
            return self.network.signature_options()
        return lpips_weights_signature(self.net, self.weights, self.version)


def normalize_channels(x: torch.Tensor, eps: float = NORM_EPS) -> torch.Tensor:
    """Unit-normalise along channels with eps inside the square root (finite gradients)."""
    import torch

    return x * torch.rsqrt((x * x).sum(dim=1, keepdim=True) + eps)


def layer_distances(
    feats_a: Sequence[torch.Tensor], feats_b: Sequence[torch.Tensor], lins: Sequence[torch.Tensor]
) -> list[torch.Tensor]:
    """Per-layer distance maps ``s_l`` (N x 1 x h_l x w_l) from two images' trunk activations and
    the linear layers' weights (each 1 x C_l x 1 x 1)."""
    import torch

    if not (len(feats_a) == len(feats_b) == len(lins)):
        raise InputError(f"{len(feats_a)} and {len(feats_b)} feature layers for {len(lins)} linear layers")
    out = []
    for a, b, w in zip(feats_a, feats_b, lins):
        head = torch.float64 if a.dtype == torch.float64 else torch.float32
        wl = w.to(device=a.device, dtype=head).view(1, -1, 1, 1)
        na, nb = normalize_channels(a.to(head)), normalize_channels(b.to(head))
        # sum_c w_c d_c, as lpips' 1x1 convolution computes it, but as a per-pixel reduction: the
        # convolution's result depends on the batch size in the last bits, this does not.
        if torch.is_grad_enabled() and (na.requires_grad or nb.requires_grad):
            out.append(((na - nb) ** 2 * wl).sum(dim=1, keepdim=True))
        else:  # in place: the maps are large (layer 1 of a 512x512 batch of 16 is ~70 MB)
            out.append(na.sub_(nb).square_().mul_(wl).sum(dim=1, keepdim=True))
    return out


def lpips_from_layers(layers: Sequence[torch.Tensor]) -> torch.Tensor:
    """LPIPS per pair (N): the sum over layers of each map's spatial mean."""
    total = layers[0].mean(dim=(2, 3))
    for s in layers[1:]:
        total = total + s.mean(dim=(2, 3))
    return total.flatten()


def spatial_map(layers: Sequence[torch.Tensor], size: tuple[int, int]) -> torch.Tensor:
    """lpips' ``spatial=True`` map (N x 1 x H x W): each layer map bilinearly upsampled to
    ``size`` (align_corners=False) and summed. Its mean approximates LPIPS."""
    import torch.nn.functional as F

    total = F.interpolate(layers[0], size=size, mode="bilinear", align_corners=False)
    for s in layers[1:]:
        total = total + F.interpolate(s, size=size, mode="bilinear", align_corners=False)
    return total


# --------------------------------------------------------------------------- pairs of images
def check_pair_sizes(a: torch.Tensor, b: torch.Tensor, net: str, index: int | None = None) -> None:
    pair = "" if index is None else f"pair {index}: "
    if a.shape != b.shape:
        raise InputError(
            f"{pair}preds and target must have the same shape, got {tuple(a.shape)} and {tuple(b.shape)}; "
            "resize one to the other first"
        )
    h, w = int(a.shape[-2]), int(a.shape[-1])
    low = MIN_SIZE[net]
    if h < low or w < low:
        raise InputError(
            f"{pair}LPIPS-{net} needs images of at least {low}x{low} pixels, got {h}x{w}; upscale them first"
        )


def iter_pair_layers(
    preds: Any, target: Any, options: LPIPSOptions
) -> Iterator[tuple[list[int], list[torch.Tensor], tuple[int, int], int]]:
    """Per group of equally sized pairs: (pair indices, per-layer distance maps, image size,
    number of pairs in the whole batch). Sizes beyond ``max_pixels`` are refused before any
    pair runs (:mod:`transcreval.functional.image.lpips_memory`).

    The trunk runs on the options' ``device`` (default: where the images are), in one call for
    ``preds`` and one for ``target`` per group (a collection's other members reuse them). The
    ``feature_cache`` serves and stores the features of ``target`` (and of ``preds`` with
    ``cache_preds``).
    """
    import torch

    network, input_range, batch_size = options.network, options.input_range, options.batch_size
    a = as_image_batch(preds, input_range, "preds")
    b = as_image_batch(target, input_range, "target")
    if len(a) != len(b):
        raise InputError(f"{len(a)} preds for {len(b)} targets: pass one system output per reference")
    groups: dict[tuple[int, ...], list[int]] = {}
    itemsize = network.extractor.dtype.itemsize
    for i, (x, y) in enumerate(zip(a, b)):
        check_pair_sizes(x, y, network.net, i)
        if tuple(x.shape) not in groups:
            check_pair_memory(network.net, int(x.shape[-2]), int(x.shape[-1]), options.max_pixels, itemsize, i)
        groups.setdefault(tuple(x.shape), []).append(i)
    for shape, idx in groups.items():
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            xa, xb = a, b  # one group: the (shared) batch tensors themselves
        else:  # sizes differ within the batch: one stacked tensor per size, shared like the inputs
            key = ("rgb-float-group", tuple(idx), None if input_range is None else tuple(map(float, input_range)))
            xa = shared_input(preds, key, functools.partial(stack_group, a, idx))
            xb = shared_input(target, key, functools.partial(stack_group, b, idx))
        net = network.on(options.device if options.device is not None else xa.device)
        fa = net.extractor(xa, batch_size=batch_size, cache=options.feature_cache if options.cache_preds else None)
        fb = net.extractor(xb, batch_size=batch_size, cache=options.feature_cache)
        yield idx, layer_distances(list(fa.values()), list(fb.values()), net.lins), (shape[1], shape[2]), len(a)


# --------------------------------------------------------------------------- LPIPS


def lpips_values(
    preds: Any, target: Any, options: LPIPSOptions, *, return_map: bool = False
) -> tuple[torch.Tensor, torch.Tensor | list[torch.Tensor] | None]:
    """LPIPS per pair (N), and with ``return_map`` lpips' spatial maps (see :func:`pair_maps`;
    None without)."""
    values, maps = [], []
    n = 0
    with torch_threads():  # the thread budget (transcreval.utils.threads), restored afterwards
        for idx, layers, size, _ in iter_pair_layers(preds, target, options):
            values.append((idx, lpips_from_layers(layers)))
            n += len(idx)
            if return_map:
                maps.append((idx, spatial_map(layers, size)))
        return per_pair(values, n), (pair_maps(maps, n) if return_map else None)


#: where a non-finite LPIPS value comes from (the images were checked before the network ran)
NONFINITE_HINT = (
    ". The images were checked and are finite, so the network produced them: check the weights for "
    "NaN/inf values, and run in float32 if a lower dtype overflowed"
)
#: what the error of an LPIPS mean over no pair suggests
EMPTY_HINT = "call update(preds, target) with at least one pair first"


def lpips_stats(preds: Any, target: Any, options: LPIPSOptions) -> dict[str, Any]:
    """The sufficient statistics of a batch: sum, count and per-pair LPIPS."""
    values, _ = lpips_values(preds, target, options)
    return MeanStats.of_values(values, NONFINITE_HINT)


def lpips_from_stats(
    stats: dict[str, Any], options: LPIPSOptions, *, name: str = "LPIPS", extras: dict[str, Any] | None = None
) -> MetricResult:
    """The mean of accumulated statistics as metric ``name``'s result (a family member passes
    its name and its own ``extras``)."""
    return mean_result(stats, options.signature(name, PACKAGES), name, extras, EMPTY_HINT)


@takes_options(LPIPSOptions)
def lpips_per_pair(
    preds: Any, target: Any, *, return_map: bool = False, **options: Any
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor | list[torch.Tensor]]:
    """LPIPS distance per pair, float ``(N,)``, lower means more similar (Zhang et al. 2018).

    Equals ``lpips.LPIPS(net=net)(preds, target, normalize=True)`` on the same weights (to 1e-5;
    measured differences are float rounding). Differentiable when ``preds``/``target`` are
    tensors that require grad (finite gradients, also at identical images). ``options``: those
    of :func:`lpips`. ``return_map``: also return lpips' ``spatial=True`` map: N x 1 x H x W,
    or when sizes differ a list with one 1 x H x W map per pair, in pair order.
    """
    values, maps = lpips_values(preds, target, LPIPSOptions.take(options, "lpips_per_pair"), return_map=return_map)
    return (values, maps) if maps is not None else values


@takes_options(LPIPSOptions)
def lpips(preds: Any, target: Any, **options: Any) -> MetricResult:
    """Mean LPIPS distance of paired images, [0, inf) (about 0..1), lower means more similar
    (Zhang et al. 2018): what :class:`~transcreval.LPIPS` computes on the same pairs
    (``per_item``: each pair's distance, as :func:`lpips_per_pair`).

    ``preds``, ``target``: paired images of equal sizes (paths, PIL, arrays, tensors), [0, 1]
    floats by default. The options (:class:`LPIPSOptions`) are the class's: see its Args.
    """
    opts = LPIPSOptions.take(options, "lpips")
    return lpips_from_stats(lpips_stats(preds, target, opts), opts)
