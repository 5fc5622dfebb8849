"""CLIPSimilarity (MPTc-Bench §5.3) and Khanuja et al.'s SigLIP embedding metrics (§5.2)."""

from __future__ import annotations

import os
from typing import Any, ClassVar

from transcreval.core.aggregate_metric import MeanMetric
from transcreval.core.held_calls import HeldCalls, stats_inputs
from transcreval.core.options import option_property
from transcreval.core.result import MetricResult
from transcreval.functional.multimodal.embedding_similarity import (
    CATEGORY_TEMPLATE,
    CLIP_DEFAULT,
    CULTURE_TEMPLATE,
    EMPTY_HINT,
    PACKAGES,
    SIGLIP_DEFAULT,
    ConvertedCall,
    EmbeddingOptions,
    bind_encoder,
    call_values,
    convert_call,
    embedding_from_stats,
    embedding_options,
    similarity_stats,
    twin_stats,
)

__all__ = ["CLIPSimilarity", "CulturalRelevanceDelta", "EmbeddingMetric", "SemanticEquivalence", "VisualSimilarity"]


class EmbeddingMetric(HeldCalls, MeanMetric):
    """Base of the open_clip similarity metrics: a per-item mean (``per_item`` holds each item).

    Args:
        model: an open_clip model name (or ``local-dir:`` / ``hf-hub:`` identifier).
        pretrained: an open_clip pretrained tag, or a local checkpoint file (required with a
            named model; the default model comes with its default tag).
        tokenizer: a local Hugging Face tokenizer directory (for SigLIP without Hub access).
        preprocess: ``"open_clip"`` (the model's exact PIL transform) or ``"tensor"`` (torch ops).
        crop: how a non-square image becomes the model's square input: None (default: the
            model's own transform, as the papers used it: CLIP cuts the centre square, SigLIP
            squashes), ``"center"``, ``"pad"`` (the whole image, padded) or ``"squash"``
            (see docs/metrics/CLIPSimilarity.md for a picture of each).
        input_range: value range of float array/tensor inputs (default [0, 1]).
        batch_size: network batch size (default: each update's images at once).
        feature_cache: a :class:`~transcreval.features.FeatureCache` or its path (reuse image
            embeddings); see :mod:`transcreval.features.options`.

    Deferred passes (:class:`~transcreval.core.held_calls.HeldCalls`): ``update`` outside a collection converts
    and checks its inputs at once (a bad input raises there) and holds them; the network runs
    on the held calls together once they reach ``encoder.pass_rows()`` items (a chunk per
    worker: 16 with 8-image chunks and a 2-thread budget), when any state is read (``compute``,
    ``state_dict``, pickling, ...) and before ``forward``. Every value is the one the calls give
    one by one, bit for bit, so a loop calling ``update`` on one pair pays for no padded chunks.

    The encoder is built (or found in the process-wide cache) when the metric is built, and kept:
    it runs on the metric's device, and its weights never change under the metric (a checkpoint
    re-saved at the same path later raises :class:`~transcreval.errors.WeightsChangedError` when
    the metric would have to load it again, on another device).
    """

    higher_is_better: bool | None = True
    version_packages: tuple[str, ...] = PACKAGES
    default_model: ClassVar[tuple[str, str]] = SIGLIP_DEFAULT
    #: the prompt's placeholder ("country" / "category"), for the prompt metrics
    field: ClassVar[str | None] = None
    empty_hint: ClassVar[str] = EMPTY_HINT

    def __init__(
        self,
        model: str | None = None,
        pretrained: str | os.PathLike[str] | None = None,
        *,
        tokenizer: str | os.PathLike[str] | None = None,
        preprocess: str = "open_clip",
        crop: str | None = None,
        input_range: tuple[float, float] | None = None,
        batch_size: int | None = None,
        feature_cache: Any = None,
        **kwargs: Any,
    ) -> None:
        prompt = {k: kwargs.pop(k) for k in ("template", "template_file") if k in kwargs}
        super().__init__(**kwargs)
        opts = embedding_options(
            self.default_model,
            self.field,
            model=model,
            pretrained=pretrained,
            tokenizer=tokenizer,
            preprocess=preprocess,
            crop=crop,
            input_range=input_range,
            batch_size=batch_size,
            feature_cache=feature_cache,
            **prompt,
        )
        # built now (a missing file fails here) and kept: the weights are pinned
        self._enc = opts.encoder()
        self.options: EmbeddingOptions = bind_encoder(opts, self._enc)

    def _encoder(self) -> Any:
        return self._enc.on(self.device)

    def _hold(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> ConvertedCall:
        # conversion makes new tensors (never the caller's buffer, which may be refilled after update)
        return convert_call(self.name, stats_inputs(self, args, kwargs), self._encoder(), self.options)

    def _held_rows(self, call: ConvertedCall) -> int:
        return call.n

    def _hold_limit(self) -> int:
        return int(self._encoder().pass_rows())

    def _held_batches(self, calls: list[ConvertedCall]) -> list[dict[str, Any]]:
        values = call_values(self.name, calls, self._encoder(), self.options)
        return [self._signed(similarity_stats(v)) for v in values]

    # the options by their old attribute names (read-only: the options object is frozen)
    model_name = option_property("model", "The open_clip model name.")
    pretrained = option_property("pretrained", "The weights (tag or checkpoint).")
    tokenizer = option_property("tokenizer", "The local tokenizer directory, if any.")
    preprocess = option_property("preprocess", '"open_clip" or "tensor".')
    crop = option_property("crop", "How a non-square image becomes square.")

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return embedding_from_stats(stats, self.options, self.name)


class CLIPSimilarity(EmbeddingMetric):
    """CLIP similarity (MPTc-Bench §5.3, Table 5): ``100 x`` the mean cosine between the image
    embeddings of each system output and its human target-market image, in [-100, 100], higher
    is more similar. Default encoder: open_clip ``ViT-B-32`` with OpenAI's weights."""

    default_model: ClassVar[tuple[str, str]] = CLIP_DEFAULT

    def _stats(self, preds: Any, target: Any) -> dict[str, Any]:
        """``preds``: the system outputs; ``target``: the human target-market images (one per output)."""
        return twin_stats(self.name, (preds, target), self._encoder(), self.options)


class VisualSimilarity(EmbeddingMetric):
    """Visual similarity S_v-s (Khanuja et al. §5.2): mean ``cos(V_src, V_tgt)`` of the source
    image and the transcreated output, in [-1, 1]. Descriptive: high means the output stayed
    close to the source, low a stronger adaptation. Default encoder: SigLIP ``ViT-B-16-SigLIP``."""

    def _stats(self, preds: Any, source: Any) -> dict[str, Any]:
        """``preds``: the transcreated outputs; ``source``: the source images (one per output)."""
        return twin_stats(self.name, (preds, source), self._encoder(), self.options)


class _PromptMetric(EmbeddingMetric):
    default_template: ClassVar[str] = ""

    def __init__(self, *args: Any, template: str | None = None, template_file: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, template=template, template_file=template_file, **kwargs)

    @property
    def template(self) -> str:
        """The prompt template in use."""
        return str(self.options.template)


class CulturalRelevanceDelta(_PromptMetric):
    """Cultural-relevance delta (Khanuja et al. §5.2): mean of ``cos(V_tgt, T_cul) -
    cos(V_src, T_cul)``, ``T_cul`` the text embedding of the culture prompt for the target
    country, in [-2, 2], higher means the output moved towards the target culture. Default
    encoder SigLIP. Default prompt: the paper's §4.3 "This image belongs to country {country}";
    ``template`` (a text with ``{country}``, or a preset: "paper-region" for §5.2's "This image
    is from region {country}.", "photo" for transcreval 0.1's wording) or ``template_file``
    sets another."""

    field: ClassVar[str | None] = "country"
    default_template: ClassVar[str] = CULTURE_TEMPLATE

    def _stats(self, preds: Any, source: Any, country: Any) -> dict[str, Any]:
        """``preds``: the transcreated outputs; ``source``: the source images; ``country``: the
        target country (one string for all, or one per output)."""
        return twin_stats(self.name, (preds, source, country), self._encoder(), self.options)


class SemanticEquivalence(_PromptMetric):
    """Semantic equivalence S_s-e (Khanuja et al. §5.2): mean ``cos(V_tgt, T_int)``, ``T_int``
    the text embedding of the category prompt, in [-1, 1], higher is better. Default encoder
    SigLIP. Default prompt: the paper's §4.3 "This image belongs to category {category}";
    ``template`` (a text with ``{category}``, or the preset "photo" for transcreval 0.1's
    wording) or ``template_file`` sets another."""

    field: ClassVar[str | None] = "category"
    default_template: ClassVar[str] = CATEGORY_TEMPLATE

    def _stats(self, preds: Any, category: Any) -> dict[str, Any]:
        """``preds``: the transcreated outputs; ``category``: the intended semantic category
        (one string for all, or one per output)."""
        return twin_stats(self.name, (preds, category), self._encoder(), self.options)
