"""Embedding similarities of image/text dual encoders (open_clip CLIP and SigLIP).

* CLIP similarity (MPTc-Bench §5.3, Table 5): ``100 * cos(V_MTc, V_GT)`` per pair, averaged.
* Khanuja et al. §5.2 (default encoder SigLIP):

  - cultural-relevance delta ``cos(V_tgt, T_cul) - cos(V_src, T_cul)``, ``T_cul`` the text
    embedding of a culture prompt naming the target country;
  - semantic equivalence ``cos(V_tgt, T_int)``, ``T_int`` the embedding of a category prompt;
  - visual similarity ``cos(V_src, V_tgt)``.

``V_tgt`` is the system's output (``preds``), ``V_src`` the source image (``source``), ``V_GT``
the human target-market image (``target``). Embeddings are L2-normalised, so a cosine is a dot
product. Prompt templates are parameters (``{country}`` / ``{category}`` placeholders). The
defaults are the paper's §4.3 prompts, the ones behind its Table 3 ("This image belongs to
country X", "This image belongs to category X"); named presets select the §5.2 wording
("This image is from region X.") or transcreval 0.1's own wording ("photo"). Every value is a
per-item mean: the statistics are the float64 sum, the count and the per-item values.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from transcreval.common import MeanStats, mean_result
from transcreval.errors import InputError
from transcreval.result import MetricResult, Signature

if TYPE_CHECKING:
    import torch

    from transcreval.features.clip_models import CLIPEncoder

__all__ = [
    "CATEGORY_TEMPLATE",
    "CATEGORY_TEMPLATES",
    "CULTURE_TEMPLATE",
    "CULTURE_TEMPLATES",
    "clip_similarity",
    "cultural_relevance_delta",
    "embedding_result",
    "fill_template",
    "load_template",
    "semantic_equivalence",
    "similarity_stats",
    "visual_similarity",
]

#: the default culture prompt: Khanuja et al. §4.3, verbatim (what Table 3's SigLIP row used)
CULTURE_TEMPLATE = "This image belongs to country {country}"
#: the default category prompt: Khanuja et al. §4.3, verbatim
CATEGORY_TEMPLATE = "This image belongs to category {category}"
#: named culture prompts (``template="paper-region"``): the default, §5.2's wording, and
#: transcreval 0.1's own wording ("photo", the default before issue 18)
CULTURE_TEMPLATES = {
    "paper": CULTURE_TEMPLATE,
    "paper-region": "This image is from region {country}.",
    "photo": "A photo of something typical of {country}.",
}
#: named category prompts (``template="photo"``)
CATEGORY_TEMPLATES = {"paper": CATEGORY_TEMPLATE, "photo": "A photo showing a kind of {category}."}
_PRESETS = {"country": CULTURE_TEMPLATES, "category": CATEGORY_TEMPLATES}
CLIP_DEFAULT = ("ViT-B-32", "openai")
SIGLIP_DEFAULT = ("ViT-B-16-SigLIP", "webli")


def load_template(template: str | None, template_file: str | os.PathLike[str] | None, field: str, default: str) -> str:
    """The prompt template: ``template`` (a template text, or the name of a preset of
    :data:`CULTURE_TEMPLATES` / :data:`CATEGORY_TEMPLATES`), or the text of ``template_file``, or
    ``default``; it must contain ``{field}`` exactly once as its only placeholder."""
    if template is not None and template_file is not None:
        raise InputError("pass template or template_file, not both")
    presets = _PRESETS.get(field, {})
    if isinstance(template, str) and template in presets:
        template = presets[template]
    if template_file is not None:
        try:
            with open(template_file, encoding="utf-8") as f:
                template = f.read().strip()
        except OSError as e:
            raise InputError(f"cannot read template_file {template_file}: {e}") from None
    text = default if template is None else template
    if not isinstance(text, str) or text.count("{" + field + "}") != 1:
        names = f" or a preset name ({', '.join(sorted(presets))})" if presets else ""
        raise InputError(f"a prompt template needs exactly one {{{field}}} placeholder{names}, got {text!r}")
    try:
        text.format(**{field: "x"})
    except (KeyError, IndexError, ValueError) as e:
        raise InputError(f"template {text!r} has placeholders other than {{{field}}} ({e})") from None
    return text


def fill_template(template: str, field: str, values: Any, n: int) -> list[str]:
    """One prompt per item: ``values`` is one string for every item or a list of ``n`` strings."""
    if isinstance(values, str):
        vals = [values] * n
    elif isinstance(values, Sequence) and all(isinstance(v, str) for v in values):
        vals = list(values)
    else:
        raise InputError(f"{field} must be a string or a list of strings, got {type(values).__name__}")
    if len(vals) != n:
        raise InputError(f"{len(vals)} values of {field} for {n} images: give one per image, or one string for all")
    if any(not v.strip() for v in vals):
        raise InputError(f"an empty {field} name")
    return [template.format(**{field: v}) for v in vals]


def _pairs(a: torch.Tensor, b: torch.Tensor, names: tuple[str, str]) -> None:
    if a.shape[0] != b.shape[0]:
        raise InputError(f"{a.shape[0]} {names[0]} but {b.shape[0]} {names[1]}: pass one per item")


def similarity_stats(values: torch.Tensor) -> dict[str, Any]:
    """Per-item values -> ``{"total", "count", "values"}`` (float64; see
    :meth:`~transcreval.common.MeanStats.of_values`)."""
    return MeanStats.of_values(values)


def embedding_result(values: torch.Tensor, signature: Signature, what: str) -> MetricResult:
    """The mean of per-item similarities as the twins' result (``per_item`` holds each item)."""
    return mean_result(similarity_stats(values), signature, what, hint=EMPTY_HINT)


#: what the error of a mean over no item suggests
EMPTY_HINT = "pass at least one image"


def _embed(encoder: CLIPEncoder, images: Any, what: str, run: dict[str, Any]) -> torch.Tensor:
    return encoder.image_embeddings(images, what=what, **run)


def clip_similarity_values(
    preds: Any, target: Any, encoder: CLIPEncoder, *, input_range: Any = None, batch_size: Any = None, cache: Any = None
) -> torch.Tensor:
    """Per-pair ``100 * cos(V_preds, V_target)``."""
    run = {"input_range": input_range, "batch_size": batch_size, "cache": cache}
    a, b = _embed(encoder, preds, "preds", run), _embed(encoder, target, "target", run)
    _pairs(a, b, ("outputs (preds)", "reference images (target)"))
    return 100.0 * (a * b).sum(dim=1)


def visual_similarity_values(
    preds: Any, source: Any, encoder: CLIPEncoder, *, input_range: Any = None, batch_size: Any = None, cache: Any = None
) -> torch.Tensor:
    """Per-pair ``cos(V_source, V_preds)``."""
    run = {"input_range": input_range, "batch_size": batch_size, "cache": cache}
    a, b = _embed(encoder, preds, "preds", run), _embed(encoder, source, "source", run)
    _pairs(a, b, ("outputs (preds)", "source images"))
    return (a * b).sum(dim=1)


def cultural_relevance_values(
    preds: Any,
    source: Any,
    country: Any,
    encoder: CLIPEncoder,
    template: str,
    *,
    input_range: Any = None,
    batch_size: Any = None,
    cache: Any = None,
) -> torch.Tensor:
    """Per-item ``cos(V_preds, T_cul) - cos(V_source, T_cul)``."""
    run = {"input_range": input_range, "batch_size": batch_size, "cache": cache}
    tgt, src = _embed(encoder, preds, "preds", run), _embed(encoder, source, "source", run)
    _pairs(tgt, src, ("outputs (preds)", "source images"))
    text = encoder.text_embeddings(fill_template(template, "country", country, tgt.shape[0])).to(tgt)
    return (tgt * text).sum(dim=1) - (src * text).sum(dim=1)


def semantic_equivalence_values(
    preds: Any,
    category: Any,
    encoder: CLIPEncoder,
    template: str,
    *,
    input_range: Any = None,
    batch_size: Any = None,
    cache: Any = None,
) -> torch.Tensor:
    """Per-item ``cos(V_preds, T_int)``."""
    run = {"input_range": input_range, "batch_size": batch_size, "cache": cache}
    tgt = _embed(encoder, preds, "preds", run)
    text = encoder.text_embeddings(fill_template(template, "category", category, tgt.shape[0])).to(tgt)
    return (tgt * text).sum(dim=1)


def model_defaults(model: Any, pretrained: Any, default: tuple[str, str]) -> tuple[str, Any]:
    """``(model, pretrained)`` with the metric's default encoder when no model is named."""
    if model is None:
        return default[0], default[1] if pretrained is None else pretrained
    return model, pretrained


def _encoder(
    model: Any,
    pretrained: Any,
    tokenizer: Any,
    preprocess: str,
    crop: Any,
    device: Any,
    default: tuple[str, str] = SIGLIP_DEFAULT,
) -> CLIPEncoder:
    from transcreval.features.clip_models import get_clip

    model, pretrained = model_defaults(model, pretrained, default)
    return get_clip(model, pretrained, tokenizer=tokenizer, preprocess=preprocess, crop=crop, device=device)


def _run(input_range: Any, batch_size: Any, feature_cache: Any) -> dict[str, Any]:
    from transcreval.features.options import feature_options

    return feature_options(input_range, batch_size, feature_cache).run_options()


_PACKAGES = ("open_clip_torch", "torch", "pillow")


def clip_similarity(
    preds: Any,
    target: Any,
    *,
    model: str | None = None,
    pretrained: Any = None,
    tokenizer: Any = None,
    preprocess: str = "open_clip",
    crop: str | None = None,
    device: Any = None,
    input_range: Any = None,
    batch_size: int | None = None,
    feature_cache: Any = None,
) -> MetricResult:
    """CLIP similarity (MPTc-Bench §5.3): ``100 * mean cos(V_preds, V_target)`` over pairs, in
    [-100, 100], higher is more similar; ``per_item`` holds each pair's value. Default encoder:
    open_clip ViT-B-32 with OpenAI's weights; ``model``/``pretrained`` as open_clip takes them
    (``pretrained``: a tag or a checkpoint file; required when ``model`` is named). The other
    options are :class:`~transcreval.CLIPSimilarity`'s, under the same names."""
    run = _run(input_range, batch_size, feature_cache)
    enc = _encoder(model, pretrained, tokenizer, preprocess, crop, device, CLIP_DEFAULT)
    sig = Signature.make("CLIPSimilarity", enc.signature_options, _PACKAGES)
    return embedding_result(clip_similarity_values(preds, target, enc, **run), sig, "CLIPSimilarity")


def visual_similarity(
    preds: Any,
    source: Any,
    *,
    model: str | None = None,
    pretrained: Any = None,
    tokenizer: Any = None,
    preprocess: str = "open_clip",
    crop: str | None = None,
    device: Any = None,
    input_range: Any = None,
    batch_size: int | None = None,
    feature_cache: Any = None,
) -> MetricResult:
    """Visual similarity S_v-s (Khanuja et al. §5.2): mean ``cos(V_source, V_preds)``, in [-1, 1].
    Options as :class:`~transcreval.VisualSimilarity`."""
    run = _run(input_range, batch_size, feature_cache)
    enc = _encoder(model, pretrained, tokenizer, preprocess, crop, device)
    sig = Signature.make("VisualSimilarity", enc.signature_options, _PACKAGES)
    return embedding_result(visual_similarity_values(preds, source, enc, **run), sig, "VisualSimilarity")


def cultural_relevance_delta(
    preds: Any,
    source: Any,
    country: Any,
    *,
    model: str | None = None,
    pretrained: Any = None,
    tokenizer: Any = None,
    template: str | None = None,
    template_file: Any = None,
    preprocess: str = "open_clip",
    crop: str | None = None,
    device: Any = None,
    input_range: Any = None,
    batch_size: int | None = None,
    feature_cache: Any = None,
) -> MetricResult:
    """Cultural-relevance delta (Khanuja et al. §5.2): mean of ``cos(V_preds, T_cul) -
    cos(V_source, T_cul)``, in [-2, 2]; ``country`` names the target culture (one string for
    all items or one per item). Options as :class:`~transcreval.CulturalRelevanceDelta`."""
    tpl = load_template(template, template_file, "country", CULTURE_TEMPLATE)
    run = _run(input_range, batch_size, feature_cache)
    enc = _encoder(model, pretrained, tokenizer, preprocess, crop, device)
    sig = Signature.make("CulturalRelevanceDelta", {**enc.signature_options, "tpl": tpl}, _PACKAGES)
    vals = cultural_relevance_values(preds, source, country, enc, tpl, **run)
    return embedding_result(vals, sig, "CulturalRelevanceDelta")


def semantic_equivalence(
    preds: Any,
    category: Any,
    *,
    model: str | None = None,
    pretrained: Any = None,
    tokenizer: Any = None,
    template: str | None = None,
    template_file: Any = None,
    preprocess: str = "open_clip",
    crop: str | None = None,
    device: Any = None,
    input_range: Any = None,
    batch_size: int | None = None,
    feature_cache: Any = None,
) -> MetricResult:
    """Semantic equivalence S_s-e (Khanuja et al. §5.2): mean ``cos(V_preds, T_int)``, in [-1, 1];
    ``category`` is the intended semantic category (one string or one per item). Options as
    :class:`~transcreval.SemanticEquivalence`."""
    tpl = load_template(template, template_file, "category", CATEGORY_TEMPLATE)
    run = _run(input_range, batch_size, feature_cache)
    enc = _encoder(model, pretrained, tokenizer, preprocess, crop, device)
    sig = Signature.make("SemanticEquivalence", {**enc.signature_options, "tpl": tpl}, _PACKAGES)
    vals = semantic_equivalence_values(preds, category, enc, tpl, **run)
    return embedding_result(vals, sig, "SemanticEquivalence")
