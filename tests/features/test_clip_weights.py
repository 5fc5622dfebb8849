"""open_clip checkpoints through the one weights resolver.

* a pretrained tag is found in TRANSCREVAL_WEIGHTS_DIR or the Hugging Face cache, without
  open_clip going online, and gives open_clip's own model and transform for that tag;
* offline, a missing checkpoint or tokenizer fails at once (not after a minute of retries);
* the default CLIP and SigLIP checkpoints are in ``transcreval weights``;
* a checkpoint of another architecture is a WeightsFormatError;
* ``crop=`` ("center", "pad", "squash") equals open_clip's transform with that resize mode.
"""

from __future__ import annotations

import shutil
import time

import pytest
import torch
from PIL import Image

from tests._helpers.model_weights import (
    TINY_CLIP,
    poster_like,
    tiny_clip_checkpoint,
    tiny_siglip_dir,
    tiny_tokenizer_dir,
)
from transcreval.errors import InputError, UnverifiedWeightsWarning, WeightsFormatError, WeightsNotFoundError

TAG = "transcreval_test"
REPO = "transcreval-test/tiny-clip"
TAG_CFG = {
    "url": "",
    "hf_hub": f"{REPO}/",
    "mean": (0.5, 0.4, 0.3),
    "std": (0.2, 0.25, 0.3),
    "interpolation": "bilinear",
    "resize_mode": "squash",
}


@pytest.fixture
def env(monkeypatch, tmp_path):
    import open_clip

    for var in ("TRANSCREVAL_WEIGHTS_DIR", "HF_HOME", "HUGGINGFACE_HUB_CACHE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    tiny_clip_checkpoint()  # registers the tiny architecture with open_clip
    registry = open_clip.pretrained._PRETRAINED  # the tag table open_clip reads its tags from
    monkeypatch.setitem(registry, TINY_CLIP, {TAG: dict(TAG_CFG)})
    from transcreval.features.clip_models import clear_clip_encoders

    clear_clip_encoders()
    yield tmp_path
    clear_clip_encoders()


def _hf_cache(root, repo, files):
    d = root / ("models--" + repo.replace("/", "--"))
    snap = d / "snapshots" / "0123abcd"
    snap.mkdir(parents=True)
    (d / "refs").mkdir()
    (d / "refs" / "main").write_text("0123abcd")
    for name, src in files.items():
        shutil.copyfile(src, snap / name)
    return snap


def _imgs(n=3, seed=0, h=70, w=52):
    return list(poster_like(n, h, w, seed=seed))


def _pil(x):
    return Image.fromarray(x.permute(1, 2, 0).numpy())


def test_a_tag_found_in_the_hugging_face_cache_equals_open_clips_tag(env):
    """Offline, with the checkpoint in the Hugging Face cache: open_clip itself (reading its own
    cache) and the metric give the same model and transform for the tag."""
    import open_clip

    snap = _hf_cache(env / "hf", REPO, {"open_clip_pytorch_model.bin": tiny_clip_checkpoint()})
    ref, _, ref_tf = open_clip.create_model_and_transforms(TINY_CLIP, pretrained=TAG, cache_dir=str(env / "hf"))
    from transcreval import CLIPSimilarity
    from transcreval.features.clip_models import get_clip

    with pytest.warns(UnverifiedWeightsWarning, match="no sha256"):  # Hugging Face publishes none
        enc = get_clip(TINY_CLIP, TAG)
    assert enc.weights.source == "huggingface cache" and enc.weights.checkpoint == snap / "open_clip_pytorch_model.bin"
    imgs = _imgs()
    with torch.no_grad():
        want = ref.eval().encode_image(torch.stack([ref_tf(_pil(x)) for x in imgs]), normalize=True)
    assert torch.allclose(enc.image_embeddings(imgs), want, atol=1e-6)
    sig = str(CLIPSimilarity(TINY_CLIP, TAG).signature)
    assert f"pretrained:{TAG}@{enc.weights.sha256[:12]}" in sig  # the tag and the file's digest


def test_a_tag_found_in_the_weights_dir(env, monkeypatch):
    from transcreval.features.clip_models import get_clip
    from transcreval.features.clip_weights import clip_entry_name

    d = env / "weights"
    d.mkdir()
    shutil.copyfile(tiny_clip_checkpoint(), d / f"{clip_entry_name(TINY_CLIP, TAG)}.bin")
    monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(d))
    with pytest.warns(UnverifiedWeightsWarning):
        enc = get_clip(TINY_CLIP, TAG)
    assert enc.weights.source == "TRANSCREVAL_WEIGHTS_DIR"
    ref = get_clip(TINY_CLIP, tiny_clip_checkpoint())
    imgs = _imgs(seed=1)
    assert not torch.allclose(enc.image_embeddings(imgs), ref.image_embeddings(imgs), atol=1e-3), (
        "the tag's preprocessing (squash, its mean/std) is applied"
    )


@pytest.mark.parametrize("cls", ["CLIPSimilarity", "VisualSimilarity"])
def test_offline_a_missing_default_checkpoint_fails_at_once(env, monkeypatch, cls):
    import transcreval

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)  # TRANSCREVAL_OFFLINE alone is enough
    import open_clip  # noqa: F401  (imported beforehand: only the lookup is timed)

    start = time.perf_counter()
    with pytest.raises(WeightsNotFoundError) as err:
        getattr(transcreval, cls)()
    took = time.perf_counter() - start
    assert took < 1.0, f"offline miss took {took:.2f} s"
    text = str(err.value)
    assert "huggingface cache" in text and "transcreval weights fetch open_clip-" in text
    assert "pretrained=/path/to/checkpoint" in text


def test_offline_a_missing_tokenizer_fails_at_once_and_a_cached_one_is_used(env):
    from transcreval import VisualSimilarity

    start = time.perf_counter()
    with pytest.raises(WeightsNotFoundError, match="tokenizer="):
        VisualSimilarity(tiny_siglip_dir())  # its tokenizer is on the Hub only
    assert time.perf_counter() - start < 1.0
    _hf_cache(
        env / "hf",
        "transcreval-test/no-hub-tokenizer",
        {p.name: p for p in __import__("pathlib").Path(tiny_tokenizer_dir()).iterdir()},
    )
    a, b = _imgs(2, seed=2), _imgs(2, seed=3)
    cached = VisualSimilarity(tiny_siglip_dir()).forward(a, b)
    given = VisualSimilarity(tiny_siglip_dir(), tokenizer=tiny_tokenizer_dir()).forward(a, b)
    assert cached.value == pytest.approx(given.value, abs=1e-9)


def test_the_default_checkpoints_are_listed_by_transcreval_weights(env, capsys):
    from transcreval.cli import main
    from transcreval.weights import entries

    names = {e.name: e for e in entries()}
    for name, repo in (
        ("open_clip-vit-b-32-openai", "timm/vit_base_patch32_clip_224.openai"),
        ("open_clip-vit-b-16-siglip-webli", "timm/ViT-B-16-SigLIP"),
    ):
        assert names[name].hf_repo == repo and names[name].urls[0].startswith(f"https://huggingface.co/{repo}/")
    assert main(["weights", "list"]) == 0
    out = capsys.readouterr().out
    assert "open_clip-vit-b-32-openai" in out and "open_clip-vit-b-16-siglip-webli" in out
    assert main(["weights", "where", "open_clip-vit-b-32-openai"]) == 1
    assert "huggingface cache" in capsys.readouterr().out


def test_a_checkpoint_of_another_architecture_is_a_weights_format_error(env, tmp_path):
    from transcreval import CLIPSimilarity

    other = tiny_siglip_dir().removeprefix("local-dir:") + "/open_clip_model.safetensors"
    with pytest.raises(WeightsFormatError, match="does not fit this architecture"):
        CLIPSimilarity(TINY_CLIP, other)
    junk = tmp_path / "junk.pt"
    torch.save({"visual.conv1.weight": torch.zeros(3)}, junk)
    with pytest.raises(WeightsFormatError, match="does not fit"):
        CLIPSimilarity(TINY_CLIP, junk)
    with pytest.raises(InputError, match="neither an existing checkpoint file nor an open_clip tag"):
        CLIPSimilarity(TINY_CLIP, "no-such-tag")
    empty = tmp_path / "empty-dir"
    empty.mkdir()
    with pytest.raises(WeightsNotFoundError, match="holds no checkpoint"):
        CLIPSimilarity(f"local-dir:{empty}")


# ----------------------------------------------------------------------------- item 20: crop
@pytest.mark.parametrize("crop", ["center", "pad", "squash"])
def test_crop_equals_open_clips_transform_with_that_resize_mode(env, crop):
    import open_clip

    from transcreval.features.clip_models import get_clip

    enc = get_clip(TINY_CLIP, tiny_clip_checkpoint(), crop=crop)
    cfg = dict(enc.net.visual.preprocess_cfg)
    mode = {"center": "shortest", "pad": "longest", "squash": "squash"}[crop]
    tf = open_clip.image_transform(
        cfg["size"],
        is_train=False,
        mean=cfg["mean"],
        std=cfg["std"],
        resize_mode=mode,
        interpolation=cfg["interpolation"],
    )
    imgs = _imgs(3, seed=4, h=120, w=50)
    with torch.no_grad():
        want = enc.net.encode_image(torch.stack([tf(_pil(x)) for x in imgs]), normalize=True)
    assert torch.allclose(enc.image_embeddings(imgs), want, atol=1e-6)
    fast = get_clip(TINY_CLIP, tiny_clip_checkpoint(), crop=crop, preprocess="tensor")
    assert ((fast.image_embeddings(imgs) * want).sum(1) > 0.99).all()  # the torch-ops path is close


def test_the_default_crop_cuts_a_portrait_posters_title_and_pad_keeps_it(env):
    """CLIP's own transform (the papers') cuts the top and bottom of a portrait poster: blacking
    out its title band changes nothing. crop='pad' and 'squash' see the whole poster."""
    from transcreval import CLIPSimilarity

    poster = poster_like(1, 150, 60, seed=5)[0]
    no_title = poster.clone()
    no_title[:, :35] = 0  # the title band at the top
    values = {}
    for crop in (None, "center", "pad", "squash"):
        values[crop] = CLIPSimilarity(TINY_CLIP, tiny_clip_checkpoint(), crop=crop).forward([poster], [no_title])
    assert values[None].value == pytest.approx(100.0, abs=1e-4)
    assert values["center"].value == pytest.approx(values[None].value, abs=1e-9)
    assert values["pad"].value < 99.9 and values["squash"].value < 99.9
    assert "crop:pad" in str(values["pad"].signature) and "crop" not in str(values[None].signature)
    with pytest.raises(InputError, match="crop must be"):
        CLIPSimilarity(TINY_CLIP, tiny_clip_checkpoint(), crop="top")
