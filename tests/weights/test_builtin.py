"""The model files transcreval uses are manifest data (transcreval.weights.builtin): the manifest
knows all of them without importing an extractor or an engine, and every name the extractors and
the COMET model specs use is one of them."""

from __future__ import annotations

import json
import subprocess
import sys

from transcreval.weights import get_entry

# one file of each group, and the groups that used to be registered by feature and engine modules
EXPECTED = {
    "torchvision-alexnet",
    "lpips-vgg-lin-v0.1",
    "lpips-squeeze-lin-v0.0",
    "ppocrv5-mobile-det",
    "inception-v3-fid",
    "dinov2-vits14",
    "dinov2-vitb14",
    "open_clip-vit-b-32-openai",
    "open_clip-vit-b-16-siglip-webli",
    "comet-wmt22-da",
    "comet-wmt22-da-hparams",
    "xlm-roberta-large-tokenizer",
}


def test_the_manifest_knows_every_builtin_file_without_importing_upward():
    code = (
        "import json, sys\n"
        "from transcreval.weights import entries, get_entry\n"
        "names = [e.name for e in entries()]\n"
        "get_entry('inception-v3-fid')\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('transcreval.features', 'transcreval.engines')))\n"
        "print(json.dumps({'names': names, 'loaded': loaded}))\n"
    )
    out = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert set(out["names"]) >= EXPECTED and len(out["names"]) == 21
    assert out["loaded"] == []


def test_every_file_the_extractors_and_engines_name_is_in_the_manifest():
    from transcreval.engines.comet.models import comet_model_spec, known_comet_models
    from transcreval.features import extractor_names, get_extractor_spec
    from transcreval.features.clip_weights import CLIP_WEIGHTS, clip_entry_name
    from transcreval.features.dinov2 import ARCHS
    from transcreval.features.inception import WEIGHTS_NAME

    names = [n for ext in extractor_names() for n in get_extractor_spec(ext).weights]
    assert WEIGHTS_NAME in names and "torchvision-vgg16" in names
    for model in known_comet_models():
        spec = comet_model_spec(model)
        assert spec is not None
        names += spec.manifest_names
    names += [clip_entry_name(model, tag) for model, tag in CLIP_WEIGHTS]
    for name in names:
        get_entry(name)  # a KeyError names the missing file
    for _, entry, file in ARCHS.values():
        assert get_entry(entry).filename == file
    for (model, tag), (repo, _, _) in CLIP_WEIGHTS.items():
        assert get_entry(clip_entry_name(model, tag)).hf_repo == repo
