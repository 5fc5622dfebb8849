"""Khanuja et al. (NAACL 2025) Table 3: segment-level Kendall tau of each metric against humans.

Inputs: one :class:`KhanujaItem` per (target country, image, system), holding the system's
output, the source image and the image's key ``source_category_object`` (the key of the
authors' human ratings), and the human ratings as the authors released them, read by
:func:`read_human_ratings`: ``<root>/<country>/human_eval.csv`` (ratings 1-5 per rating slot)
with ``labels.csv`` (which system is in which slot). :func:`meta_evaluate` builds the same
Table 3 from any metric's per-item scores.

:func:`khanuja_table3` scores every item with each configured metric row of Table 3:

* Object-based: CSI-Overlap (§5.1) with ``object_judge``; its one value per item is correlated
  with each of the three human dimensions;
* Embedding-based: SigLIP's Delta S_c-r, S_s-e and S_v-s (§5.2) with the §4.3 prompts;
* VLM-based: one row per judge of ``vlm_judges``: the App. A 1-5 scores (cultural relevance of
  the output, intent, visual change).

Then, per (row, column, country), the segment-level Kendall tau-b (scipy's default variant;
:func:`~transcreval.functional.segment_kendall_tau`): per image, tau between the metric's values
and the human ratings of its systems; an image is skipped when a metric value is missing
(unreadable answer, no culture-specific item), when the metric gives every system the same value,
or when the humans do (tau undefined); the mean over images per country, then over countries.

Human "visual change" ratings grow with change (5 = high change), so each row's metric enters the
vis-sim column oriented as change: S_v-s (a similarity) negated, CSI-Overlap and the VLM's
visual-change score as they are (``visual_signs``). docs/protocols/khanuja.md lists every choice.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.khanuja.inputs import (
    COLUMNS,
    RATING_COLUMNS,
    ImageKey,
    KhanujaItem,
    RatingSheet,
    check_items,
    parse_image_key,
)
from transcreval.protocols.khanuja.meta import meta_evaluate
from transcreval.protocols.khanuja.ratings import read_human_ratings
from transcreval.protocols.khanuja.tables import ASPECT_COLUMNS, EMBEDDING_COLUMNS, KINDS, VISUAL_SIGNS, table3_result
from transcreval.protocols.records import ProtocolResult

__all__ = [
    "COLUMNS",
    "RATING_COLUMNS",
    "VISUAL_SIGNS",
    "ImageKey",
    "KhanujaItem",
    "RatingSheet",
    "check_options",
    "csi_scorer",
    "embedding_scorer",
    "khanuja_table3",
    "meta_evaluate",
    "parse_image_key",
    "read_human_ratings",
    "vlm_scorer",
]


def check_options(o: dict[str, Any]) -> dict[str, int]:
    """Check Table 3's options (those of :func:`khanuja_table3`); the visual-change signs."""
    if o["vlm_cultural"] not in ("output", "delta"):
        raise InputError(f"vlm_cultural must be 'output' or 'delta', got {o['vlm_cultural']!r}")
    if o["average"] not in ("countries", "segments"):
        raise InputError(f"average must be 'countries' or 'segments', got {o['average']!r}")
    if o["csi_matching"] not in ("judge", "exact"):
        raise InputError(f"csi_matching must be 'judge' or 'exact', got {o['csi_matching']!r}")
    chunk = o["chunk_size"]
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise InputError(f"chunk_size must be a positive integer, got {chunk!r}")
    if not isinstance(o["embedding"], (bool, Mapping)):
        raise InputError(
            f"embedding is True, False or a mapping of encoder options, got {type(o['embedding']).__name__}"
        )
    if not isinstance(o["vlm_judges"] or {}, Mapping):
        raise InputError("vlm_judges is a mapping {row label: judge}, e.g. {'GPT-4o': judge}")
    signs = {**VISUAL_SIGNS, **dict(o["visual_signs"] or {})}
    if set(signs) != set(VISUAL_SIGNS) or any(v not in (1, -1) for v in signs.values()):
        raise InputError(f"visual_signs maps {sorted(VISUAL_SIGNS)} to 1 or -1, got {o['visual_signs']!r}")
    return signs


def _chunks(n: int, size: int) -> list[range]:
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def embedding_scorer(items: list[KhanujaItem], cats: list[str], names: dict[str, str], o: dict[str, Any]) -> Any:
    from transcreval.features.extractor import feature_scope
    from transcreval.multimodal.embedding_similarity import (
        CulturalRelevanceDelta,
        SemanticEquivalence,
        VisualSimilarity,
    )

    opts = {} if o["embedding"] is True else dict(o["embedding"])
    if "template" in opts or "template_file" in opts:
        raise InputError("set the embedding prompts with culture_template= / category_template=, not in embedding=")
    model, pretrained = opts.pop("model", None), opts.pop("pretrained", None)
    metrics = {
        "cultural_relevance_delta": CulturalRelevanceDelta(model, pretrained, template=o["culture_template"], **opts),
        "semantic_equivalence": SemanticEquivalence(model, pretrained, template=o["category_template"], **opts),
        "visual_similarity": VisualSimilarity(model, pretrained, **opts),
    }
    if o.get("device"):  # the runner's --device
        for m in metrics.values():
            m.to(o["device"])

    def run() -> dict[str, tuple[list[float], list[str]]]:
        vals: dict[str, list[float]] = {k: [] for k in metrics}
        for idx in _chunks(len(items), o["chunk_size"]):
            outs, srcs = [items[i].output for i in idx], [items[i].source for i in idx]
            with feature_scope():
                cr = metrics["cultural_relevance_delta"].forward(outs, srcs, [names[items[i].country] for i in idx])
                se = metrics["semantic_equivalence"].forward(outs, [cats[i] for i in idx])
                vs = metrics["visual_similarity"].forward(outs, srcs)
            for k, r in zip(metrics, (cr, se, vs)):
                assert r.per_item is not None
                vals[k] += [float(v) for v in r.per_item.tolist()]
        return {k: (v, ["ok"] * len(v)) for k, v in vals.items()}

    return run, {k: str(m.signature) for k, m in metrics.items()}


def vlm_scorer(
    judge: Any, label: str, items: list[KhanujaItem], cats: list[str], names: dict[str, str], o: dict
) -> Any:
    from transcreval.engines.judge.images import to_image_parts
    from transcreval.engines.judge.templates import resolve_template
    from transcreval.engines.judge.verdicts import ask, render_each
    from transcreval.functional.judge.transcreation_score import ASPECTS, FIELDS, Aspect, read_transcreation_score
    from transcreval.judge.transcreation_score import VLMTranscreationScore

    aspects: tuple[Aspect, ...] = ("cultural", "intent", "creativity")
    given = dict(o["vlm_templates"] or {})
    if set(given) - set(ASPECTS):
        raise InputError(f"vlm_templates may set {sorted(ASPECTS)}, not {sorted(set(given) - set(ASPECTS))}")
    tpls = {a: resolve_template(given.get(a), ASPECTS[a], fields=FIELDS, what=f"VLM {a} ({label})") for a in aspects}
    sigs = {
        f"vlm_{a}[{label}]": str(VLMTranscreationScore(judge=judge, aspect=a, template=given.get(a)).signature)
        for a in aspects
    }

    def run() -> dict[str, tuple[list[float], list[str]]]:
        out: dict[str, tuple[list[float], list[str]]] = {}
        for a in aspects:
            names_a = [f"vlm_{a}[{label}]"] + ([f"vlm_cultural_source[{label}]"] if a == "cultural" else [])
            got: list[tuple[list[float], list[str]]] = [([], []) for _ in names_a]
            for idx in _chunks(len(items), o["chunk_size"]):
                outs = to_image_parts([items[i].output for i in idx], what="outputs")
                srcs = to_image_parts([items[i].source for i in idx], what="sources")
                rows = [
                    ({"source": s, "output": x}, {"category": cats[i], "country": names[items[i].country]})
                    for i, x, s in zip(idx, outs, srcs)
                ]
                reqs = render_each(tpls[a], rows, {"category": "category", "country": "country"}, f"VLM {a}")
                for v in ask(judge, reqs, read_transcreation_score(a)):
                    vals = (v.value[1], v.value[0]) if a == "cultural" and v.ok else (v.value,)
                    for (g_v, g_s), x in zip(got, vals if v.ok else (math.nan,) * len(names_a)):
                        g_v.append(float(x))
                        g_s.append(v.status)
            out.update(zip(names_a, got))
        return out

    return run, {**sigs, f"vlm_cultural_source[{label}]": sigs[f"vlm_cultural[{label}]"]}


def csi_scorer(judge: Any, items: list[KhanujaItem], cats: list[str], names: dict[str, str], o: dict[str, Any]) -> Any:
    from transcreval.engines.judge.types import FAILURE_STATUSES
    from transcreval.functional.judge.csi_overlap import csi_overlap_stats
    from transcreval.judge.csi_overlap import CSIOverlap

    templates = dict(o["csi_templates"] or {})
    sig = str(CSIOverlap(judge=judge, matching=o["csi_matching"], templates=templates).signature)

    def score(idx: Sequence[int]) -> dict[str, Any]:
        return csi_overlap_stats(
            [items[i].output for i in idx],
            [items[i].source for i in idx],
            judge=judge,
            country=[names[items[i].country] for i in idx],
            category=[cats[i] for i in idx],
            matching=o["csi_matching"],
            templates=templates,
        )

    def run() -> dict[str, tuple[list[float], list[str]]]:
        vals: list[float] = []
        status: list[str] = []
        # the metric's batch statistics do not say which item failed, so items are scored one at a
        # time; a caching judge first gets the whole chunk in one (concurrent) batch, which the
        # item-by-item pass then reads back from its cache
        cached = getattr(judge, "cache", None) is not None
        for i in range(len(items)):
            if cached and i % o["chunk_size"] == 0 and len(items) - i > 1:
                score(range(i, min(i + o["chunk_size"], len(items))))
            st = score([i])
            ok = [float(v) for v in st["values"] if math.isfinite(float(v))]
            if int(st["count"]) == 1 and ok:
                vals.append(ok[0])
                status.append("ok")
            else:
                fails = [int(x) for x in st["failures"]]
                vals.append(math.nan)
                status.append("no_csi" if int(st["no_csi"]) else FAILURE_STATUSES[fails.index(max(fails))])
        return {"csi_overlap": (vals, status)}

    return run, {"csi_overlap": sig}


def khanuja_table3(
    items: Sequence[KhanujaItem],
    ratings: Mapping[str, Mapping[str, RatingSheet]] | str | os.PathLike[str],
    *,
    embedding: bool | Mapping[str, Any] = True,
    vlm_judges: Mapping[str, Any] | None = None,
    object_judge: Any = None,
    object_label: str = "Gemini-1.5-Pro",
    embedding_label: str = "SigLIP",
    culture_template: str = "paper",
    category_template: str = "paper",
    vlm_templates: Mapping[str, Any] | None = None,
    csi_templates: Mapping[str, Any] | None = None,
    csi_matching: str = "judge",
    vlm_cultural: str = "output",
    visual_signs: Mapping[str, int] | None = None,
    average: str = "countries",
    country_names: Mapping[str, str] | None = None,
    allow_blank: bool = True,
    bootstrap: int = 0,
    seed: int = 0,
    chunk_size: int = 64,
) -> ProtocolResult:
    """Khanuja et al. Table 3 per country and averaged over countries (see the module docstring).

    Args:
        items: one :class:`KhanujaItem` per (country, image, system).
        ratings: ``{country: {column: RatingSheet}}`` (:func:`read_human_ratings`) or the folder
            it reads (the authors' ``human_evaluation/part-1``).
        embedding: the embedding row: True (SigLIP ``ViT-B-16-SigLIP``), a mapping of encoder
            options (``model``, ``pretrained``, ``tokenizer``, ``preprocess``, ``batch_size``...),
            or False (no row).
        vlm_judges: ``{row label: judge}``, one VLM-based row each, in this order.
        object_judge: the judge of CSI-Overlap's three steps (None: no object-based row).
        culture_template / category_template: the embedding prompts (a preset or a text).
        vlm_templates / csi_templates: prompt overrides by aspect / CSI step.
        csi_matching: CSI-Overlap's third step, "judge" (the paper) or "exact".
        vlm_cultural: "output" (the output's cultural score) or "delta" (output minus source).
        visual_signs: ``{"object"|"embedding"|"vlm": 1 or -1}`` over :data:`VISUAL_SIGNS`.
        average: "countries" (per country, then over countries) or "segments" (pooled).
        country_names: the name the prompts use per country (default: ``country.capitalize()``,
            as the authors' scripts did).
        allow_blank: where ``ratings`` is a folder: a blank rating cell leaves that system out of
            the image's segment (default); False makes it an error.
        bootstrap, seed: a percentile interval per cell (``Cell.ci``) from resampled images.
        chunk_size: items per network / judge batch.

    Returns:
        A :class:`ProtocolResult`: records per item x system x metric (and the human ratings as
        ``human_<question>``), tables ``table3`` (the average, the paper's layout),
        ``table3_<country>``, ``table3_by_category`` (footnote 5) and ``table1`` (images per country).
    """
    o = dict(locals())
    signs = check_options(o)
    items = list(items)
    cats = check_items(items)
    countries = sorted({it.country for it in items})
    vlm = dict(vlm_judges or {})
    if not vlm and object_judge is None and embedding is False:
        raise InputError("no metric row: pass object_judge=, vlm_judges= or keep embedding")
    if isinstance(ratings, (str, os.PathLike)):
        ratings = read_human_ratings(ratings, countries, allow_blank=allow_blank)
    for c in countries:
        for col in COLUMNS:
            if not isinstance(ratings.get(c, {}).get(col), RatingSheet):
                raise InputError(f"ratings has no {col} RatingSheet for country {c!r} (read_human_ratings builds them)")
    human = {col: [ratings[it.country][col].rating(it.image, it.system) for it in items] for col in COLUMNS}
    names = {c: (country_names or {}).get(c, c.capitalize()) for c in countries}

    # every option is checked (and every model and template built) before the first call
    table_rows: list[tuple[tuple[str, str], str, dict[str, str]]] = []
    runs = []
    if object_judge is not None:
        runs.append(csi_scorer(object_judge, items, cats, names, o))
        table_rows.append(((KINDS["object"], object_label), "object", dict.fromkeys(COLUMNS, "csi_overlap")))
    if embedding is not False:
        runs.append(embedding_scorer(items, cats, names, o))
        table_rows.append(((KINDS["embedding"], embedding_label), "embedding", EMBEDDING_COLUMNS))
    for label, judge in vlm.items():
        runs.append(vlm_scorer(judge, label, items, cats, names, o))
        table_rows.append(((KINDS["vlm"], label), "vlm", {c: f"vlm_{a}[{label}]" for c, a in ASPECT_COLUMNS.items()}))
    scores: dict[str, tuple[list[float], list[str]]] = {}
    signatures: dict[str, str] = {}
    for run, sigs in runs:
        scores.update(run())
        signatures.update(sigs)

    return table3_result(items, cats, human, scores, signatures, table_rows, o, signs)
