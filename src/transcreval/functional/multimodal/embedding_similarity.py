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

import inspect
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from transcreval.core.common import MeanStats, mean_result
from transcreval.core.options import MetricOptions, option
from transcreval.core.result import MetricResult, Signature
from transcreval.errors import InputError

if TYPE_CHECKING:
    import torch

    from transcreval.features.clip_models import CLIPEncoder

__all__ = [
    "CATEGORY_TEMPLATE",
    "CATEGORY_TEMPLATES",
    "CULTURE_TEMPLATE",
    "CULTURE_TEMPLATES",
    "PACKAGES",
    "ConvertedCall",
    "EmbeddingOptions",
    "bind_encoder",
    "call_values",
    "clip_similarity",
    "convert_call",
    "cultural_relevance_delta",
    "embedding_from_stats",
    "embedding_options",
    "embedding_result",
    "fill_template",
    "load_template",
    "semantic_equivalence",
    "similarity_stats",
    "twin_stats",
    "visual_similarity",
]

#: the default culture prompt: Khanuja et al. §4.3, verbatim (what Table 3's SigLIP row used)
CULTURE_TEMPLATE = "This image belongs to country {country}"
#: the default category prompt: Khanuja et al. §4.3, verbatim
CATEGORY_TEMPLATE = "This image belongs to category {category}"
#: named culture prompts (``template="paper-region"``): the default, §5.2's wording, and
#: transcreval 0.1's own wording ("photo", the default of earlier versions)
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


#: distributions whose versions change the numbers (the classes' ``version_packages``)
PACKAGES = ("open_clip_torch", "torch", "pillow")
#: what the error of a mean over no item suggests
EMPTY_HINT = "pass at least one image"


@dataclass(frozen=True)
class EmbeddingOptions(MetricOptions):
    """The options of the four open_clip metrics and their twins, checked once.

    ``input_range`` / ``batch_size`` / ``feature_cache`` follow the feature metrics' one rule
    (:func:`transcreval.features.options.feature_options`, reused here); ``model`` /
    ``pretrained`` are the resolved encoder (the metric's default filled in); ``template`` the
    loaded prompt text of the prompt metrics (None for the image-image ones). The signature
    prints what the encoder reports (model, weights' digest, preprocessing) once the options are
    bound to it (:func:`bind_encoder`), and the prompt as ``tpl``.
    """

    #: printed as what the bound encoder reports (``encoder_options``), empty until bound
    model: str | None = option(None, signature=lambda o: dict(o.encoder_options))
    pretrained: Any = option(None, signature=None)
    tokenizer: Any = option(None, signature=None)
    preprocess: str = option("open_clip", signature=None)
    crop: str | None = option(None, signature=None)
    device: Any = option(None, signature=None)
    input_range: Any = option(None, signature=None)
    batch_size: int | None = option(None, signature=None)
    feature_cache: Any = option(None, signature=None)
    template: str | None = option(None, signature=lambda o: {} if o.template is None else {"tpl": o.template})
    encoder_options: tuple[tuple[str, Any], ...] = option((), signature=None, compare=False)

    def check(self) -> None:
        from transcreval.features.options import feature_options

        checked = feature_options(self.input_range, self.batch_size, self.feature_cache)
        for name in ("input_range", "batch_size", "feature_cache"):
            self.set_checked(name, getattr(checked, name))

    def run(self) -> dict[str, Any]:
        """What the encoders' ``image_embeddings`` take (``input_range``, ``batch_size``, ``cache``)."""
        return {"input_range": self.input_range, "batch_size": self.batch_size, "cache": self.feature_cache}

    def encoder(self) -> CLIPEncoder:
        """The encoder (built, or found in the process-wide cache)."""
        from transcreval.features.clip_models import get_clip

        kw = {"tokenizer": self.tokenizer, "preprocess": self.preprocess, "crop": self.crop, "device": self.device}
        return get_clip(str(self.model), self.pretrained, **kw)


def embedding_options(
    default: tuple[str, str], field: str | None = None, template: Any = None, template_file: Any = None, **kw: Any
) -> EmbeddingOptions:
    """The options of a metric whose default encoder is ``default``; with ``field`` ("country" or
    "category") the prompt template is loaded (``template`` / ``template_file``)."""
    defaults = {"country": CULTURE_TEMPLATE, "category": CATEGORY_TEMPLATE}
    tpl = load_template(template, template_file, field, defaults[field]) if field else None
    kw["model"], kw["pretrained"] = model_defaults(kw.get("model"), kw.get("pretrained"), default)
    return EmbeddingOptions(template=tpl, **kw)


def bind_encoder(options: EmbeddingOptions, encoder: CLIPEncoder) -> EmbeddingOptions:
    """The options with the encoder's signature options (what the result's signature prints)."""
    return options.replace(encoder_options=tuple(encoder.signature_options.items()))


def similarity_stats(values: torch.Tensor) -> dict[str, Any]:
    """Per-item values -> ``{"total", "count", "values"}`` (float64; see
    :meth:`~transcreval.core.common.MeanStats.of_values`)."""
    return MeanStats.of_values(values)


def embedding_result(values: torch.Tensor, signature: Signature, what: str) -> MetricResult:
    """The mean of per-item similarities as a result (``per_item`` holds each item)."""
    return mean_result(similarity_stats(values), signature, what, hint=EMPTY_HINT)


def embedding_from_stats(stats: dict[str, Any], options: EmbeddingOptions, name: str) -> MetricResult:
    """The mean of :func:`similarity_stats` statistics, signed ``name`` under ``options``."""
    return mean_result(stats, options.signature(name, PACKAGES), name, hint=EMPTY_HINT)


def _clip(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Per-pair ``100 * cos(V_preds, V_target)``."""
    return 100.0 * (a * b).sum(dim=1)


def _visual(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Per-pair ``cos(V_source, V_preds)``."""
    return (a * b).sum(dim=1)


def _cultural(tgt: torch.Tensor, src: torch.Tensor, text: torch.Tensor) -> torch.Tensor:
    """Per-item ``cos(V_preds, T_cul) - cos(V_source, T_cul)``."""
    return (tgt * text).sum(dim=1) - (src * text).sum(dim=1)


def _semantic(tgt: torch.Tensor, text: torch.Tensor) -> torch.Tensor:
    """Per-item ``cos(V_preds, T_int)``."""
    return (tgt * text).sum(dim=1)


def model_defaults(model: Any, pretrained: Any, default: tuple[str, str]) -> tuple[str, Any]:
    """``(model, pretrained)`` with the metric's default encoder when no model is named."""
    if model is None:
        return default[0], default[1] if pretrained is None else pretrained
    return model, pretrained


#: per metric: (per-item values from the embeddings, input names, default encoder, prompt field)
_SPECS: dict[str, tuple[Callable[..., torch.Tensor], tuple[str, ...], tuple[str, str], str | None]] = {
    "CLIPSimilarity": (_clip, ("preds", "target"), CLIP_DEFAULT, None),
    "VisualSimilarity": (_visual, ("preds", "source"), SIGLIP_DEFAULT, None),
    "CulturalRelevanceDelta": (_cultural, ("preds", "source", "country"), SIGLIP_DEFAULT, "country"),
    "SemanticEquivalence": (_semantic, ("preds", "category"), SIGLIP_DEFAULT, "category"),
}
#: the image inputs as a count mismatch names them
_ROLES = {"preds": "outputs (preds)", "target": "reference images (target)", "source": "source images"}


@dataclass(frozen=True)
class ConvertedCall:
    """One call's inputs, converted and checked, ready for the encoder: per image input its
    converted images (:meth:`~transcreval.features.clip_models.CLIPEncoder.converted`), the
    item count ``n`` and the filled prompts (None for the image-image metrics)."""

    images: tuple[list[tuple[Any, torch.Tensor]], ...]
    n: int
    prompts: list[str] | None


def convert_call(name: str, inputs: Sequence[Any], encoder: CLIPEncoder, options: EmbeddingOptions) -> ConvertedCall:
    """Convert and check one call of metric ``name`` (bad input raises here, before any network)."""
    _, names, _, field = _SPECS[name]
    roles = [r for r in names if r != field]
    images = tuple(encoder.converted(x, options.input_range, r) for r, x in zip(roles, inputs))
    counts = [sum(len(idx) for idx, _ in groups) for groups in images]
    for role, k in zip(roles[1:], counts[1:]):
        if k != counts[0]:
            raise InputError(f"{counts[0]} {_ROLES[roles[0]]} but {k} {_ROLES[role]}: pass one per item")
    prompts = fill_template(str(options.template), field, inputs[-1], counts[0]) if field else None
    return ConvertedCall(images, counts[0], prompts)


def call_values(
    name: str, calls: Sequence[ConvertedCall], encoder: CLIPEncoder, options: EmbeddingOptions
) -> list[torch.Tensor]:
    """Each call's per-item values of metric ``name``, from one tower pass over all the calls'
    images of every input (:meth:`~transcreval.features.clip_models.CLIPEncoder.embeddings_of`:
    fewer padded chunks, spread over the workers together). One pass per input instead inside a
    feature scope (the collection's other metrics share each input's embeddings) and with
    ``preprocess="tensor"`` (images held at full size: joining the inputs would double the
    peak memory). Each value is the one the call alone gives, bit for bit (fixed chunks, the same
    ops per call)."""
    from transcreval.features.scope import current_scope

    formula, _, _, field = _SPECS[name]
    run = options.run()
    roles, n = len(calls[0].images), len(calls)
    joined = current_scope() is None and encoder.preprocess != "tensor"
    passes = [range(roles)] if joined else [[k] for k in range(roles)]
    embeds: list[list[torch.Tensor]] = []
    for ks in passes:
        out = encoder.embeddings_of(
            [c.images[k] for k in ks for c in calls], batch_size=run["batch_size"], cache=run["cache"]
        )
        embeds.extend(out[j * n : (j + 1) * n] for j in range(len(ks)))
    if field:  # every new prompt in one text pass; then each call's own rows, as alone
        encoder.text_embeddings([p for c in calls for p in c.prompts or ()])
    out = []
    for i, c in enumerate(calls):
        own = [e[i] for e in embeds]
        text = [encoder.text_embeddings(c.prompts).to(own[0])] if c.prompts is not None else []
        out.append(formula(*own, *text))
    return out


def twin_stats(name: str, inputs: Sequence[Any], encoder: CLIPEncoder, options: EmbeddingOptions) -> dict[str, Any]:
    """A batch's statistics of metric ``name`` (:func:`similarity_stats` of its per-item values)."""
    return similarity_stats(call_values(name, [convert_call(name, inputs, encoder, options)], encoder, options)[0])


_P = inspect.Parameter
_OPTIONS = [
    _P("model", _P.KEYWORD_ONLY, default=None, annotation="str | None"),
    _P("pretrained", _P.KEYWORD_ONLY, default=None, annotation="Any"),
    _P("tokenizer", _P.KEYWORD_ONLY, default=None, annotation="Any"),
    _P("preprocess", _P.KEYWORD_ONLY, default="open_clip", annotation="str"),
    _P("crop", _P.KEYWORD_ONLY, default=None, annotation="str | None"),
    _P("device", _P.KEYWORD_ONLY, default=None, annotation="Any"),
    _P("input_range", _P.KEYWORD_ONLY, default=None, annotation="Any"),
    _P("batch_size", _P.KEYWORD_ONLY, default=None, annotation="int | None"),
    _P("feature_cache", _P.KEYWORD_ONLY, default=None, annotation="Any"),
]
_PROMPT = [
    _P("template", _P.KEYWORD_ONLY, default=None, annotation="str | None"),
    _P("template_file", _P.KEYWORD_ONLY, default=None, annotation="Any"),
]


def _twin(name: str, fname: str, doc: str) -> Callable[..., MetricResult]:
    """The functional twin of metric ``name``: its inputs positionally, then its options by
    keyword (an unknown keyword is a TypeError); returns what the class's ``compute()`` returns."""
    _, inputs, default, field = _SPECS[name]
    params = [_P(i, _P.POSITIONAL_OR_KEYWORD, annotation="Any") for i in inputs] + _OPTIONS + (_PROMPT if field else [])
    sig = inspect.Signature(params, return_annotation="MetricResult")

    def twin(*args: Any, **kwargs: Any) -> MetricResult:
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        kw = dict(bound.arguments)
        data = [kw.pop(i) for i in inputs]
        opts = embedding_options(default, field, **kw)
        enc = opts.encoder()
        return embedding_from_stats(twin_stats(name, data, enc, opts), bind_encoder(opts, enc), name)

    twin.__name__ = twin.__qualname__ = fname
    twin.__doc__ = doc
    twin.__signature__ = sig  # type: ignore[attr-defined]
    twin.__annotations__ = {**{p.name: Any for p in params}, "return": MetricResult}
    return twin


clip_similarity = _twin(
    "CLIPSimilarity",
    "clip_similarity",
    """CLIP similarity (MPTc-Bench §5.3): ``100 * mean cos(V_preds, V_target)`` over pairs, in
    [-100, 100], higher is more similar; the result :class:`~transcreval.CLIPSimilarity` computes
    (``per_item`` each pair's value). Default encoder: open_clip ViT-B-32 with OpenAI's weights;
    ``model``/``pretrained`` as open_clip takes them (``pretrained``: a tag or a checkpoint file;
    required when ``model`` is named); ``device`` where the encoder runs. The other options are
    the class's, under the same names (:class:`EmbeddingOptions`).""",
)
visual_similarity = _twin(
    "VisualSimilarity",
    "visual_similarity",
    """Visual similarity S_v-s (Khanuja et al. §5.2): mean ``cos(V_source, V_preds)``, in [-1, 1].
    Options as :class:`~transcreval.VisualSimilarity` (and ``device``).""",
)
cultural_relevance_delta = _twin(
    "CulturalRelevanceDelta",
    "cultural_relevance_delta",
    """Cultural-relevance delta (Khanuja et al. §5.2): mean of ``cos(V_preds, T_cul) -
    cos(V_source, T_cul)``, in [-2, 2]; ``country`` names the target culture (one string for
    all items or one per item). Options as :class:`~transcreval.CulturalRelevanceDelta`.""",
)
semantic_equivalence = _twin(
    "SemanticEquivalence",
    "semantic_equivalence",
    """Semantic equivalence S_s-e (Khanuja et al. §5.2): mean ``cos(V_preds, T_int)``, in [-1, 1];
    ``category`` is the intended semantic category (one string or one per item). Options as
    :class:`~transcreval.SemanticEquivalence`.""",
)
