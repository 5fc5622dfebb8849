"""open_clip image embeddings without the work their pooling throws away.

An open_clip ``VisionTransformer`` that pools its class token (``pool_type="tok"``, no
attentional pooler: ViT-B-32, ViT-B-16, ViT-L-14 and the rest of the OpenAI-style CLIPs) uses
only the class token's row of its last block's output: the other rows' query projection,
attention output, output projection and MLP in that block are computed and dropped. On ViT-B-32
at 224^2 that is ~6.6% of the network's multiply-adds (49 of 50 rows of the last block's
10 d^2 per-row products, d = 768).

:func:`encode_image` runs the model's own ``forward`` on a view of its vision tower whose last
block is :class:`ClassTokenBlock`: the same modules and weights (nothing is copied or changed
on the model), with the attention's keys and values over all the rows and its query, the MLP
and the residuals on the class token only. The result equals ``model.encode_image`` to float
rounding (the separate query projection sums in another order than the packed one; ~1e-7
relative in the tests). Towers this does not apply to (other pooling, custom blocks, timm
towers, gradient checkpointing) and models whose ``encode_image`` is overridden (by a subclass or
on the instance) run ``model.encode_image`` unchanged. Forward hooks on the tower and its
transformer fire (on the view, with the class token's row from the last block); a hook on the last
block itself does not, and a tower compiled in place runs eagerly here.
"""

from __future__ import annotations

import copy
from typing import Any

import torch


class ClassTokenBlock(torch.nn.Module):
    """An open_clip ``ResidualAttentionBlock`` (batch first) computed for the first row only:
    ``(N, L, d) -> (N, 1, d)``, equal to ``block(x)[:, :1]``."""

    def __init__(self, block: Any) -> None:
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor, attn_mask: torch.Tensor | None = None) -> torch.Tensor:
        if attn_mask is not None:  # the vision tower passes none; a mask would need its first row
            raise ValueError("ClassTokenBlock: an attention mask is not supported")
        b = self.block
        y = b.ln_1(x)
        attended = b.attn(y[:, :1], y, y, need_weights=False)[0]
        first = x[:, :1] + b.ls_1(attended)
        return first + b.ls_2(b.mlp(b.ln_2(first)))


def class_token_view(visual: Any) -> Any | None:
    """A view of open_clip vision tower ``visual`` whose last block is a
    :class:`ClassTokenBlock` (the tower's modules shared, the tower itself untouched), or None
    when the tower does not pool its class token through open_clip's standard blocks."""
    try:
        from open_clip.transformer import ResidualAttentionBlock, Transformer, VisionTransformer
    except ImportError:  # pragma: no cover - open_clip is the multimodal extra's requirement
        return None
    if type(visual) is not VisionTransformer:
        return None
    if getattr(visual, "attn_pool", None) is not None or getattr(visual, "pool_type", None) != "tok":
        return None
    if getattr(visual, "output_tokens", True):
        return None
    tower: Any = getattr(visual, "transformer", None)
    if type(tower) is not Transformer or not getattr(tower, "batch_first", False) or tower.grad_checkpointing:
        return None
    blocks = getattr(tower, "resblocks", None)
    if not isinstance(blocks, torch.nn.ModuleList) or len(blocks) == 0:
        return None
    last: Any = blocks[-1]
    if type(last) is not ResidualAttentionBlock or hasattr(last, "ln_1_kv") or not last.attn.batch_first:
        return None
    view_tower = copy.copy(tower)  # shares parameters, buffers and child modules
    view_tower._modules = dict(tower._modules)
    view_tower._modules["resblocks"] = torch.nn.ModuleList([*blocks[:-1], ClassTokenBlock(last)])
    view = copy.copy(visual)
    view._modules = dict(visual._modules)
    view._modules["transformer"] = view_tower
    return view


def encode_image(net: Any, x: torch.Tensor, normalize: bool = True) -> torch.Tensor:
    """``net.encode_image(x, normalize=normalize)`` of an open_clip model, with the class-token
    tower view where it applies (see the module docstring)."""
    overridden = "encode_image" in vars(net) or type(net).encode_image is not _open_clip_encode_image(net)
    view = None if overridden else class_token_view(getattr(net, "visual", None))
    if view is None:
        return net.encode_image(x, normalize=normalize)
    features = view(x)
    return torch.nn.functional.normalize(features, dim=-1) if normalize else features


def _open_clip_encode_image(net: Any) -> Any:
    """open_clip's own ``encode_image`` for ``type(net)`` (CLIP or CustomTextCLIP): a model
    class that overrides it runs unchanged."""
    from open_clip.model import CLIP, CustomTextCLIP

    for cls in (CLIP, CustomTextCLIP):
        if isinstance(net, cls):
            return cls.encode_image
    return None
