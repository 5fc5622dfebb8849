"""Demo section: MPTc-Bench Table 5 (CLIP similarity, FID_GT, FID_SRC) per system.

Runs each metric whose weights are on this machine (never downloads). For a missing file it
prints one line naming it and how to get it, and runs the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

from transcreval.utils.text_table import format_table

if TYPE_CHECKING:
    from transcreval.demo.context import DemoContext

TITLE = "similarity to GT and SRC (MPTc-Bench Table 5: CLIP, FID_GT, FID_SRC)"
CLIP_REPO = "timm/vit_base_patch32_clip_224.openai"
CLIP_FILES = ("open_clip_model.safetensors", "open_clip_pytorch_model.bin")


def cached_clip_file() -> str | None:
    """OpenAI's ViT-B-32 weights in the local Hugging Face cache (where open_clip puts them), or None."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    for name in CLIP_FILES:
        hit = try_to_load_from_cache(CLIP_REPO, name)
        if isinstance(hit, str):
            return hit
    return None


def run(ctx: DemoContext, out: TextIO) -> None:
    from transcreval.weights import fetch_command, locate

    metrics: dict[str, Any] = {}
    if locate("inception-v3-fid")[0] is None:
        cmd = fetch_command("inception-v3-fid")
        print(f"skipped FID: weights inception-v3-fid missing; get them with `{cmd}`", file=out)
    else:
        from transcreval.image.fid import FID

        metrics["FID_GT"] = lambda: FID()
        metrics["FID_SRC"] = lambda: FID(real_from="source")
    clip = cached_clip_file()
    if clip is None:
        print(
            f"skipped CLIP: open_clip ViT-B-32 'openai' weights missing ({CLIP_REPO} is not in the Hugging Face "
            'cache); on a connected machine run `python -c "import open_clip; '
            "open_clip.create_model_and_transforms('ViT-B-32', pretrained='openai')\"`",
            file=out,
        )
    else:
        from transcreval.multimodal.embedding_similarity import CLIPSimilarity

        metrics["CLIP"] = lambda: CLIPSimilarity("ViT-B-32-quickgelu", clip)
    if not metrics:
        return
    from transcreval.core.collection import MetricCollection

    targets = [p.target for p in ctx.posters]
    sources = [p.source for p in ctx.posters]
    rows = []
    for name in ctx.systems:
        col = MetricCollection({k: make() for k, make in metrics.items()})
        col.update([p.outputs[name] for p in ctx.posters], targets, source=sources)
        res = col.compute()
        rows.append([name, *(f"{res[k].value:.2f}" for k in metrics)])
    print(format_table(rows, ["system", *metrics]), file=out)
    print("(FID on a handful of posters is noisy: MPTc computes it over whole splits.)", file=out)
