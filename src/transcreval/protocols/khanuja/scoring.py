"""Scoring Khanuja et al.'s items with the metric rows of Table 3: one scorer per row.

A scorer is built from the items, their categories and the countries' prompt names, with every
model and template built (and so every option checked) at once; it returns ``(run, signatures)``:
``run()`` scores every item and returns, per record metric, the values and statuses in item order
(:data:`Scores`), and ``signatures`` names what produced each metric. The Python entry
(:func:`~transcreval.protocols.khanuja.pipeline.evaluate`) runs each row's scorer over all its
items; the runner (:mod:`~transcreval.protocols.khanuja.runner`) runs the same scorers over each
batch of a unit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.khanuja.inputs import KhanujaItem

__all__ = ["Scorer", "Scores", "chunks", "csi_scorer", "embedding_scorer", "vlm_metrics", "vlm_scorer"]

#: per record metric, each item's value and status (``"ok"`` or why there is no value)
Scores = dict[str, tuple[list[float], list[str]]]
#: a scorer's ``(run, {metric: signature})``
Scorer = tuple[Callable[[], Scores], dict[str, str]]


def vlm_metrics(label: str) -> tuple[str, ...]:
    """The record metrics of the VLM row labelled ``label``."""
    return (
        f"vlm_cultural[{label}]",
        f"vlm_cultural_source[{label}]",
        f"vlm_intent[{label}]",
        f"vlm_creativity[{label}]",
    )


def chunks(n: int, size: int) -> list[range]:
    """``range(n)`` cut into consecutive ranges of at most ``size``."""
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def embedding_scorer(
    items: Sequence[KhanujaItem], cats: Sequence[str], names: Mapping[str, str], o: Mapping[str, Any]
) -> Scorer:
    """The embedding row: SigLIP's Delta S_c-r, S_s-e and S_v-s (§5.2) of every item, by chunks
    of ``o["chunk_size"]``; ``o["embedding"]`` is True or the encoder options, ``o["device"]``
    (optional) where the encoders run."""
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

    def run() -> Scores:
        vals: dict[str, list[float]] = {k: [] for k in metrics}
        for idx in chunks(len(items), o["chunk_size"]):
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
    judge: Any,
    label: str,
    items: Sequence[KhanujaItem],
    cats: Sequence[str],
    names: Mapping[str, str],
    o: Mapping[str, Any],
) -> Scorer:
    """One VLM row (``label``): the judge's App. A 1-5 scores of every item, the metrics of
    :func:`vlm_metrics`; an unreadable answer is NaN with the judge's failure status."""
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

    def run() -> Scores:
        out: Scores = {}
        for a in aspects:
            names_a = [f"vlm_{a}[{label}]"] + ([f"vlm_cultural_source[{label}]"] if a == "cultural" else [])
            got: list[tuple[list[float], list[str]]] = [([], []) for _ in names_a]
            for idx in chunks(len(items), o["chunk_size"]):
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


def csi_scorer(
    judge: Any, items: Sequence[KhanujaItem], cats: Sequence[str], names: Mapping[str, str], o: Mapping[str, Any]
) -> Scorer:
    """The object-based row: CSI-Overlap (§5.1) of every item, one item at a time (see below);
    NaN with status ``no_csi`` or the judge's failure where there is no value."""
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

    def run() -> Scores:
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
