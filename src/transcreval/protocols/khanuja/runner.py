"""Khanuja et al. in ``transcreval evaluate``: the runner adapter (:data:`ADAPTER`).

Manifest (one line per source image and target country, a Table 3 segment): ``source_image``,
``target_locale`` = the target country as the rating folders name it (``"india"``), and in
``meta``: ``image_key`` (the human ratings' image key ``source_category_object``; default: the id
after its last ``/``) and ``category`` (default: the key's category part). Outputs: each
system's ``image``; a system's name is the one the ratings use (``labels.csv``: ``cap-edit``). The
human ratings come from the authors' tree: ``--option ratings=DIR`` (``<DIR>/<country>/human_eval.csv``
with ``labels.csv``, their ``human_evaluation/part-1``).

Units: ``embedding`` (SigLIP's Delta S_c-r, S_s-e, S_v-s), ``vlm`` (the judge's App. A 1-5
scores, row label ``vlm_label``: name the judge, e.g. ``--option vlm_label=GPT-4o``) and ``csi`` (CSI-Overlap's three
judge steps, row label ``object_label``), each scored per item by the scorers of
:mod:`~transcreval.protocols.khanuja.scoring`; Table 3 and Table 1 are built from the stored
values by :func:`~transcreval.protocols.khanuja.tables.table3_result`, with the human ratings
looked up by :func:`~transcreval.protocols.khanuja.ratings.item_ratings` and the rows named by the
row builders of :mod:`~transcreval.protocols.khanuja.tables`: the steps of
:func:`~transcreval.protocols.khanuja.pipeline.evaluate`, the Python entry.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from transcreval.errors import InputError
from transcreval.protocols.adapter import Item, Outcome, Prepared, ProtocolAdapter, RunData, Unit, UnitContext, Work
from transcreval.protocols.khanuja.inputs import KhanujaItem, check_items, country_prompt_names, parse_image_key
from transcreval.protocols.khanuja.options import check_options
from transcreval.protocols.khanuja.ratings import item_ratings, read_human_ratings
from transcreval.protocols.khanuja.scoring import Scores, csi_scorer, embedding_scorer, vlm_metrics, vlm_scorer
from transcreval.protocols.khanuja.tables import (
    EMBEDDING_COLUMNS,
    TableRow,
    embedding_row,
    object_row,
    table3_result,
    vlm_row,
)
from transcreval.protocols.records import ItemRecord, ProtocolResult

__all__ = ["ADAPTER", "KhanujaAdapter", "image_key"]

_VLM_METRIC = re.compile(r"^vlm_cultural\[(.+)\]$")


def image_key(item: Item) -> str:
    """The item's rating row key: ``meta.image_key``, else the id after its last ``/``."""
    return str(item.meta.get("image_key") or item.id.rsplit("/", 1)[-1])


def _khanuja_items(works: Sequence[Work]) -> tuple[list[KhanujaItem], list[str]]:
    items = [
        KhanujaItem(
            str(w.item.target_locale),
            image_key(w.item),
            w.system,
            w.output.image,
            w.item.source_image,
            w.item.meta.get("category"),
        )
        for w in works
    ]
    return items, check_items(items)


def _names(items: Sequence[KhanujaItem], options: Mapping[str, Any]) -> dict[str, str]:
    return country_prompt_names({it.country for it in items}, options.get("country_names"))


def _outcomes(works: Sequence[Work], got: Scores) -> list[Outcome]:
    out = []
    for i, w in enumerate(works):
        recs = []
        for metric, (vals, status) in got.items():
            v = float(vals[i]) if status[i] == "ok" else math.nan
            recs.append(ItemRecord(w.item.id, w.system, metric, v, status[i], w.item.group, dict(w.item.meta)))
        out.append(Outcome(tuple(recs)))
    return out


def _unit(name: str, metrics: tuple[str, ...], build: Any, judge: bool, summary: str, available: Any = None) -> Unit:
    def signature(ctx: UnitContext) -> str:
        _, sigs = build(ctx, [], [], {})
        return f"khanuja.{name}|" + json.dumps(sigs, sort_keys=True)

    def prepare(ctx: UnitContext) -> Prepared:
        _, sigs = build(ctx, [], [], {})

        def score(works: Sequence[Work]) -> list[Outcome]:
            items, cats = _khanuja_items(works)
            run, _ = build(ctx, items, cats, _names(items, ctx.options))
            return _outcomes(works, run())

        return Prepared(f"khanuja.{name}|" + json.dumps(sigs, sort_keys=True), score)

    return Unit(
        name,
        metrics,
        prepare,
        None if name == "embedding" else signature,  # the encoders' weights are known once built
        needs=("image", "source_image"),
        uses_judge=judge,
        available=available,
        summary=summary,
    )


def _siglip_available(ctx: UnitContext) -> str | None:
    emb = ctx.options["embedding"]
    if isinstance(emb, Mapping) and emb.get("model"):
        return None
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return "huggingface_hub is not installed to find the default SigLIP weights"
    if any(
        isinstance(try_to_load_from_cache("timm/ViT-B-16-SigLIP", n), str)
        for n in ("open_clip_model.safetensors", "open_clip_pytorch_model.bin")
    ):
        return None
    return "the default SigLIP weights are not on this machine; --option embedding='{\"model\": ...}'"


class KhanujaAdapter(ProtocolAdapter):
    """Khanuja et al.'s runner adapter (see the module docstring)."""

    name: ClassVar[str] = "khanuja"
    version: ClassVar[str] = "1"
    item_fields: ClassVar[tuple[str, ...]] = ("source_image", "target_locale")
    output_fields: ClassVar[tuple[str, ...]] = ("image",)
    meta_fields: ClassVar[dict[str, str]] = {
        "item:image_key": "the human ratings' image key source_category_object (default: the id after its last '/')",
        "item:category": "the category the prompts name (default: the key's category part)",
    }
    option_defaults: ClassVar[dict[str, Any]] = {
        "ratings": None,
        "allow_blank": True,
        "embedding": True,
        "embedding_label": "SigLIP",
        "culture_template": "paper",
        "category_template": "paper",
        "vlm_label": "VLM",
        "vlm_templates": None,
        "object_label": "Gemini-1.5-Pro",
        "csi_templates": None,
        "csi_matching": "judge",
        "vlm_cultural": "output",
        "visual_signs": None,
        "average": "countries",
        "country_names": None,
        "bootstrap": 0,
        "seed": 0,
        "chunk_size": 64,
    }

    def check_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        o = super().check_options(options)
        check_options({**o, "vlm_judges": None})
        if not o["ratings"]:  # checked before anything is scored: Table 3 needs them
            raise InputError(
                "khanuja needs the human ratings: --option ratings=DIR (<DIR>/<country>/human_eval.csv and labels.csv)"
            )
        o["ratings"] = os.fspath(Path(o["ratings"]).expanduser().resolve())
        if not os.path.isdir(o["ratings"]):
            raise InputError(f"--option ratings={o['ratings']}: not a folder (the authors' <country>/*.csv tree)")
        read_human_ratings(o["ratings"], allow_blank=o["allow_blank"])  # a wrong layout stops the run before scoring
        return o

    def check_item(self, item: Item) -> None:
        try:
            parse_image_key(image_key(item))
        except InputError as e:
            raise InputError(f"{item.where}: {e} (set meta.image_key)") from None

    def units(self, options: Mapping[str, Any]) -> list[Unit]:
        def emb(ctx: UnitContext, items: list, cats: list, names: dict) -> Any:
            return embedding_scorer(items, cats, names, {**ctx.options, "device": ctx.device})

        label = str(options["vlm_label"])

        def vlm(ctx: UnitContext, items: list, cats: list, names: dict) -> Any:
            return vlm_scorer(ctx.judge, label, items, cats, names, dict(ctx.options))

        def csi(ctx: UnitContext, items: list, cats: list, names: dict) -> Any:
            return csi_scorer(ctx.judge, items, cats, names, dict(ctx.options))

        return [
            _unit(
                "embedding",
                tuple(EMBEDDING_COLUMNS.values()),
                emb,
                False,
                "SigLIP Delta S_c-r, S_s-e, S_v-s (§5.2)",
                _siglip_available,
            ),
            _unit(
                "vlm",
                vlm_metrics(label),
                vlm,
                True,
                "the judge's 1-5 cultural, intent and visual-change scores (App. A)",
            ),
            _unit("csi", ("csi_overlap",), csi, True, "CSI-Overlap: objects, replacements, matches (§5.1; 3 calls)"),
        ]

    def tables(self, data: RunData) -> ProtocolResult:
        o = dict(data.options)
        if not o["ratings"]:
            raise InputError("khanuja's Table 3 needs the human ratings: --option ratings=DIR (the authors' tree)")
        signs = check_options({**o, "vlm_judges": None})
        items, ids = [], []
        for it in data.items:
            for s in data.systems:
                items.append(KhanujaItem(str(it.target_locale), image_key(it), s, None, None, it.meta.get("category")))
                ids.append(it)
        cats = check_items(items)
        human = item_ratings(items, o["ratings"], allow_blank=o["allow_blank"])
        by_key = {(r.item_id, r.system, r.metric): r for r in data.records}
        metrics = list(dict.fromkeys(r.metric for r in data.records))
        scores: Scores = {}
        for m in metrics:
            got = [by_key.get((it.id, k.system, m)) for it, k in zip(ids, items)]
            scores[m] = ([r.value if r else math.nan for r in got], [r.status if r else "not_computed" for r in got])
        table_rows: list[TableRow] = []
        if "csi" in data.signatures:
            table_rows.append(object_row(o["object_label"]))
        if "embedding" in data.signatures:
            table_rows.append(embedding_row(o["embedding_label"]))
        for m in metrics:
            hit = _VLM_METRIC.match(m)
            if hit and "vlm" in data.signatures:
                table_rows.append(vlm_row(hit.group(1)))
        sigs = {k: v for k, v in data.signatures.items()}
        res = table3_result(items, cats, human, scores, sigs, table_rows, o, signs)
        back = {f"{k.country}/{k.image}": it for k, it in zip(items, ids)}
        recs = tuple(replace(r, item_id=back[r.item_id].id, group=back[r.item_id].group) for r in res.records)
        return ProtocolResult("khanuja", recs, res.tables, res.signatures, res.options)

    def report_options(self, result: ProtocolResult) -> dict[str, Any]:
        from transcreval.report import plot_kendall_by_country

        figures = []
        t = result.tables.get("table3")
        countries = sorted(k[len("table3_") :] for k in result.tables if k.startswith("table3_"))
        if t is not None and countries:
            for col in t.columns:
                cells = {
                    (row, c): result.tables[f"table3_{c}"].cells[(row, col)]
                    for c in countries
                    for row in t.rows
                    if (row, col) in result.tables[f"table3_{c}"].cells
                }
                from transcreval.protocols.records import Table

                by_country = Table(
                    f"Kendall tau per country ({col})", tuple(countries), t.rows, cells, 2, "Kendall tau-b"
                )
                sub = ProtocolResult("khanuja", (), {"by_country": by_country})
                figures.append((f"Kendall tau per country: {col}", _draw(plot_kendall_by_country, sub)))
        return {"figures": figures, "by": "country", "gallery_metrics": []}


def _draw(fn: Any, result: ProtocolResult) -> Any:
    return lambda: fn(result, "by_country", countries="columns")


ADAPTER = KhanujaAdapter()
