"""transcreval.features.vit_pool: open_clip image embeddings computed without the last block's
dropped rows must equal open_clip's ``encode_image`` on every vision tower it applies to, leave
the model untouched, and fall back to ``encode_image`` wherever it does not apply."""

from __future__ import annotations

import pytest
import torch

from transcreval.features.vit_pool import ClassTokenBlock, class_token_view, encode_image

TEXT = {"context_length": 8, "vocab_size": 64, "width": 32, "heads": 2, "layers": 1}
BASE = {"image_size": 32, "layers": 3, "width": 64, "patch_size": 8, "head_width": 32}

# (vision options on top of BASE, whether the class-token view applies)
TOWERS = {
    "class token": ({}, True),
    "layer scale": ({"ls_init_value": 0.5}, True),
    "ln after pool": ({"final_ln_after_pool": True}, True),
    "one layer": ({"layers": 1}, True),
    "avg pool": ({"pool_type": "avg"}, False),
    "attentional pooler": ({"attentional_pool": True, "attn_pooler_queries": 4, "attn_pooler_heads": 2}, False),
    "custom blocks": ({"scale_attn": True}, False),
}


def _model(vision: dict, seed: int = 0, quick_gelu: bool = False):
    from open_clip.model import CLIP

    torch.manual_seed(seed)
    model = CLIP(embed_dim=16, vision_cfg={**BASE, **vision}, text_cfg=TEXT, quick_gelu=quick_gelu).eval()
    for p in model.parameters():  # random-init, then spread the weights so every term matters
        p.data.add_(torch.randn_like(p) * 0.05)
    return model


@pytest.mark.parametrize("name", list(TOWERS))
@pytest.mark.parametrize("normalize", [True, False])
def test_equals_open_clip_encode_image(name, normalize):
    vision, applies = TOWERS[name]
    model = _model(vision)
    x = torch.randn(5, 3, 32, 32, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        want = model.encode_image(x, normalize=normalize)
        got = encode_image(model, x, normalize=normalize)
    assert (class_token_view(model.visual) is not None) == applies
    assert got.shape == want.shape
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_quick_gelu_and_a_single_image():
    model = _model({}, seed=3, quick_gelu=True)
    x = torch.rand(1, 3, 32, 32, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        torch.testing.assert_close(encode_image(model, x), model.encode_image(x, normalize=True), rtol=1e-5, atol=1e-6)


def test_the_view_shares_the_weights_and_leaves_the_model_untouched():
    model = _model({})
    blocks = list(model.visual.transformer.resblocks)
    view = class_token_view(model.visual)
    assert list(model.visual.transformer.resblocks) == blocks  # the model still has its own last block
    assert isinstance(view.transformer.resblocks[-1], ClassTokenBlock)
    assert view.transformer.resblocks[-1].block is blocks[-1]
    assert view.conv1 is model.visual.conv1 and view.proj is model.visual.proj
    # weights changed on the model afterwards are what the next call uses
    x = torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        model.visual.proj.mul_(2.0)
        torch.testing.assert_close(encode_image(model, x, normalize=False), model.encode_image(x), rtol=1e-5, atol=1e-6)


def test_gradients_equal_open_clips():
    model = _model({"ls_init_value": 0.5})
    x = torch.randn(3, 3, 32, 32, generator=torch.Generator().manual_seed(5))
    a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
    encode_image(model, a).sum().backward()
    model.encode_image(b, normalize=True).sum().backward()
    torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-6)


def test_gradient_checkpointing_and_overridden_encode_image_fall_back():
    model = _model({})
    model.visual.transformer.grad_checkpointing = True
    assert class_token_view(model.visual) is None

    class Mine(type(model)):
        def encode_image(self, image, normalize=False):
            return torch.zeros(image.shape[0], 16)

    mine = _model({})
    mine.__class__ = Mine
    assert torch.equal(encode_image(mine, torch.zeros(2, 3, 32, 32)), torch.zeros(2, 16))
    patched = _model({})
    patched.encode_image = lambda image, normalize=False: torch.ones(image.shape[0], 16)
    assert torch.equal(encode_image(patched, torch.zeros(2, 3, 32, 32)), torch.ones(2, 16))


def test_non_open_clip_towers_fall_back():
    assert class_token_view(torch.nn.Linear(2, 2)) is None
    assert class_token_view(None) is None


def test_an_attention_mask_is_refused():
    block = _model({}).visual.transformer.resblocks[-1]
    with pytest.raises(ValueError, match="attention mask"):
        ClassTokenBlock(block)(torch.zeros(1, 5, 64), attn_mask=torch.zeros(5, 5))


def test_clip_similarity_runs_the_class_token_view(monkeypatch):
    """The metrics' image tower goes through the view (and still equals open_clip: the
    agreement tests in tests/multimodal run the same tiny towers)."""
    from tests._helpers.model_weights import clip_metric

    seen = []
    real = ClassTokenBlock.forward

    def spy(self, x, attn_mask=None):
        seen.append(tuple(x.shape))
        return real(self, x, attn_mask)

    monkeypatch.setattr(ClassTokenBlock, "forward", spy)
    metric = clip_metric("transcreval.multimodal.embedding_similarity.CLIPSimilarity", tiny="clip")
    img = torch.randint(0, 256, (2, 3, 48, 48), dtype=torch.uint8)
    metric.update(img, img)
    metric.compute()
    assert seen and all(s[1] > 1 for s in seen)
