"""IMTBench in ``transcreval evaluate``: the runner adapter (:data:`ADAPTER`).

Manifest (one line per benchmark item): ``source_image``, ``reference_image`` (I_tgt),
``target_locale`` = the target language (an ISO 639-1 code of IMTBench's nine, or its English
name), ``reference_text`` = the reference translation T_tgt, and in ``meta``: ``scenario``
(required: document, web, scene, ppt and their aliases), ``source_text`` (required: a string, or
a list of text regions joined with the option ``text_join``), ``source_language`` (optional),
``mask`` (a background mask image, non-zero = background, for ``--option bg_mask=given``; a
relative path resolves against ``--option mask_root=DIR``). Outputs: each system's ``image``
and ``text`` (its translation; either may be absent: the components that need it are missing
for that item, and counted).

Units (``--metrics``): ``text`` (S_text: COMET, Eq. 2; needs unbabel-comet, the ``comet``
extra), ``background`` (S_bg: 1 - masked LPIPS over the background, Eq. 3) and ``judge``
(S_vis and S_align, Eq. 4-5: one joint call per item by default). Each scores items with the
same per-item functions as :func:`transcreval.protocols.imtbench.evaluate`; S (Eq. 6) and
Table 2 (:func:`~transcreval.protocols.imtbench.table2`) are built from the stored values, so
the tables equal what ``imtbench.evaluate`` gives on the same inputs and options.

Without unbabel-comet, ``evaluate`` fails before scoring anything, naming the ``comet`` extra;
``--metrics background,judge`` scores the other components (S_text and S then show as missing).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from transcreval.errors import InputError, MissingDependencyError
from transcreval.functional.judge.imtbench_components import COMPONENTS, overall_score
from transcreval.protocols.imtbench import table2
from transcreval.protocols.imtbench_manifest import SCENARIOS, language_code, scenario_name
from transcreval.protocols.records import ItemRecord, ProtocolResult
from transcreval.runs.spec import Item, Outcome, Prepared, ProtocolAdapter, RunData, Unit, UnitContext, Work

__all__ = ["ADAPTER", "IMTBenchAdapter", "item_meta", "source_text"]

_JUDGE_METRICS = ("S_align", "S_vis")


def item_meta(item: Item) -> dict[str, Any]:
    """The record meta of an item: its scenario, target language and source language (normalised)."""
    src = item.meta.get("source_language")
    return {
        "scenario": scenario_name(item.meta.get("scenario"), item.where),
        "language": language_code(item.target_locale, item.where),
        "source_language": None if src is None else language_code(src, item.where, key="source_language"),
    }


def source_text(item: Item, join: str) -> str:
    """The item's source text (``meta.source_text``; a list of regions joined with ``join``)."""
    value = item.meta.get("source_text")
    if isinstance(value, str) and value:
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return join.join(value)
    raise InputError(f"{item.where}: meta.source_text must be a non-empty string or list of strings, got {value!r}")


def _records(works: Sequence[Work], got: Mapping[str, Sequence[Any]]) -> list[Outcome]:
    """One outcome per work: a record per metric from its ItemScore; failure details in the payload."""
    out = []
    for i, w in enumerate(works):
        meta = item_meta(w.item)
        recs, details = [], {}
        for metric, scores in got.items():
            s = scores[i]
            value = float(s.value) if s.ok else math.nan
            recs.append(ItemRecord(w.item.id, w.system, metric, value, s.status, w.item.group, meta))
            if not s.ok and s.detail:
                details[metric] = s.detail
        out.append(Outcome(tuple(recs), {"detail": details} if details else {}))
    return out


def _sig(name: str, parts: Mapping[str, Any]) -> str:
    return f"imtbench.{name}|" + json.dumps(parts, sort_keys=True, default=str)


# --------------------------------------------------------------------------- S_text (COMET)
def _comet_available(ctx: UnitContext) -> str | None:
    """None when comet imports; otherwise the run stops here, before anything is scored (a missing
    S_text is never dropped silently from S)."""
    from transcreval.text import comet_engine

    try:
        comet_engine.import_comet()
    except MissingDependencyError as e:
        err = MissingDependencyError("IMTBench's S_text (COMET)", "unbabel-comet", "comet")
        err.msg = (  # ImportError prints msg
            f"IMTBench's S_text needs COMET: {e} (it pins numpy<2: give the 'comet' extra its own environment, "
            "as `make test-comet` does with .venv-comet). To score the other components without it, leave S_text "
            "out: --metrics background,judge (S_text and S are then reported missing)."
        )
        err.args = (err.msg,)
        raise err from None
    return None


def _comet_options(ctx: UnitContext) -> dict[str, Any]:
    given = ctx.options.get("comet") or {}
    if not isinstance(given, Mapping):
        raise InputError(f"--option comet must be a JSON object of COMETScore options, got {given!r}")
    return {"device": ctx.device, **dict(given)}


def text_unit() -> Unit:
    def prepare(ctx: UnitContext) -> Prepared:
        from transcreval.functional.judge.imtbench_components import text_items
        from transcreval.text.comet import COMETScore

        metric = COMETScore(**_comet_options(ctx))
        join = str(ctx.options["text_join"])

        def score(works: Sequence[Work]) -> list[Outcome]:
            got = text_items(
                [w.output.text for w in works],
                [str(w.item.reference_text) for w in works],
                [source_text(w.item, join) for w in works],
                scorer=metric.scorer,
                bounds=metric.bounds,
            )
            return _records(works, {"S_text": got})

        return Prepared(_sig("text", {"comet": str(metric.signature), "text_join": join}), score)

    return Unit(
        "text",
        ("S_text",),
        prepare,
        needs=(),
        available=_comet_available,
        summary="S_text: COMET of (source, reference, the system's text), Eq. 2 (the comet extra)",
    )


# --------------------------------------------------------------------------- S_bg
def _mask_path(item: Item, options: Mapping[str, Any]) -> Path:
    value = item.meta.get("mask")
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{item.where}: --option bg_mask=given needs meta.mask (a background mask image path)")
    p = Path(value).expanduser()
    if not p.is_absolute():
        root = options.get("mask_root")
        if not root:
            raise InputError(
                f"{item.where}: meta.mask {value!r} is a relative path: give --option mask_root=DIR (the folder "
                "it is relative to, usually the manifest's)"
            )
        p = Path(root).expanduser() / p
    if not p.is_file():
        raise InputError(f"{item.where}: meta.mask {value!r} does not exist (looked for {p})")
    return p.resolve()


def _masks_available(ctx: UnitContext) -> str | None:
    """With ``bg_mask=given`` every item's mask must exist: checked before anything is scored."""
    if ctx.options["bg_mask"] == "given":
        for it in ctx.items:
            _mask_path(it, ctx.options)
    return None


def _read_mask(path: Path) -> Any:
    import numpy as np

    from transcreval.io import open_image

    return np.asarray(open_image(path).convert("L")) > 0


def background_unit() -> Unit:
    def prepare(ctx: UnitContext) -> Prepared:
        from transcreval.features.lpips_network import load_lpips_network
        from transcreval.functional.judge.imtbench_components import background_items
        from transcreval.ocr.masks import check_dilate_px

        o = ctx.options
        dilate = check_dilate_px(o["ocr_dilate_px"], "ocr_dilate_px")
        network = load_lpips_network(o["lpips_net"], o["lpips_weights"], ctx.device)
        parts: dict[str, Any] = {
            "lpips": dict(network.signature_options()),
            "lpips_mode": o["lpips_mode"],
            "resize": o["resize"],
        }
        detector: Any = o["ocr_backend"]
        if o["bg_mask"] == "ocr":
            from transcreval.ocr.base import get_detector

            detector = get_detector(o["ocr_backend"])
            info = detector.info_for(False)
            parts["bg"] = f"ocr:{info.backend}:{info.det_model}@{info.det_sha256[:12]}:dil{dilate:g}"
        else:  # the masks' content is part of the signature: a changed mask file reruns S_bg
            digest = hashlib.sha256()
            for it in ctx.items:
                digest.update(f"{it.id}\0{Path(_mask_path(it, o)).read_bytes().hex()}\0".encode())
            parts["bg"] = f"given:{digest.hexdigest()[:16]}"
        options = {
            "resize": o["resize"],
            "ocr_backend": detector,
            "ocr_dilate_px": dilate,
            "lpips_net": o["lpips_net"],
            "lpips_weights": o["lpips_weights"],
            "lpips_mode": o["lpips_mode"],
            "device": ctx.device,
        }

        def score(works: Sequence[Work]) -> list[Outcome]:
            masks: Any = "ocr"
            if o["bg_mask"] == "given":
                masks = [_read_mask(_mask_path(w.item, o)) for w in works]
            got = background_items(
                [Path(str(w.output.image)) for w in works],
                [Path(str(w.item.reference_image)) for w in works],
                mask=masks,
                **options,
            )
            return _records(works, {"S_bg": got})

        return Prepared(_sig("background", parts), score)

    return Unit(
        "background",
        ("S_bg",),
        prepare,
        needs=("image", "reference_image"),
        available=_masks_available,
        summary="S_bg: 1 - masked LPIPS between output and reference over the background, Eq. 3",
    )


# --------------------------------------------------------------------------- S_vis and S_align
def _judge_parts(ctx: UnitContext) -> dict[str, Any]:
    from transcreval.functional.judge.imtbench import check_combine
    from transcreval.functional.judge.imtbench_calls import check_judge_templates

    o = ctx.options
    tpl = check_judge_templates(o["templates"], reference=bool(o["reference"]))
    d = dict(ctx.judge.describe()) if ctx.judge is not None and hasattr(ctx.judge, "describe") else {}
    used = ("joint", "harmonization") if o["judge_call"] == "joint" else ("harmonization", "alignment")
    return {
        "judge": f"{d.get('backend', type(ctx.judge).__name__)}:{d.get('model', '?')}",
        "call": o["judge_call"],
        "templates": {k: tpl[k].ref for k in used},
        "reference": bool(o["reference"]),
        "combine": check_combine(o["combine"]),
    }


def judge_unit() -> Unit:
    def signature(ctx: UnitContext) -> str:
        return _sig("judge", _judge_parts(ctx))

    def prepare(ctx: UnitContext) -> Prepared:
        from transcreval.functional.judge.imtbench_calls import judge_items

        o = ctx.options
        reference = bool(o["reference"])

        def score(works: Sequence[Work]) -> list[Outcome]:
            vis, align = judge_items(
                [Path(str(w.output.image)) for w in works],
                [Path(str(w.item.reference_image)) for w in works] if reference else None,
                [w.output.text for w in works],
                judge=ctx.judge,
                call=o["judge_call"],
                combine=o["combine"],
                reference=reference,
                templates=o["templates"],
            )
            return _records(works, {"S_align": align, "S_vis": vis})

        return Prepared(signature(ctx), score)

    return Unit(
        "judge",
        _JUDGE_METRICS,
        prepare,
        signature,
        needs=("image", "reference_image"),
        uses_judge=True,
        summary="S_vis and S_align: the judge's harmonization (with I_tgt) and alignment, Eq. 4-5 (1 call/item)",
    )


class IMTBenchAdapter(ProtocolAdapter):
    """IMTBench's runner adapter (see the module docstring)."""

    name: ClassVar[str] = "imtbench"
    version: ClassVar[str] = "1"
    item_fields: ClassVar[tuple[str, ...]] = ("source_image", "reference_image", "target_locale", "reference_text")
    output_fields: ClassVar[tuple[str, ...]] = ("image", "text")
    meta_fields: ClassVar[dict[str, str]] = {
        "item:scenario": f"the item's scenario (required): {', '.join(SCENARIOS)}",
        "item:source_text": "the source text T_src (required; a list of regions is joined with text_join)",
        "item:source_language": "the source language (optional)",
        "item:mask": "a background mask image, non-zero = background (bg_mask=given; relative to mask_root)",
    }
    option_defaults: ClassVar[dict[str, Any]] = {
        "comet": None,
        "judge_call": "joint",
        "reference": True,
        "combine": "naturalness",
        "templates": None,
        "bg_mask": "ocr",
        "mask_root": None,
        "ocr_backend": "rapidocr",
        "ocr_dilate_px": 0,
        "lpips_net": "alex",
        "lpips_weights": None,
        "lpips_mode": "area",
        "resize": "output-to-reference",
        "text_join": "\n",
    }

    def check_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        from transcreval.common import check_choice
        from transcreval.functional.judge.imtbench import check_combine
        from transcreval.functional.judge.imtbench_calls import JUDGE_CALLS, check_judge_templates
        from transcreval.functional.judge.imtbench_components import BG_MASKS, RESIZES
        from transcreval.ocr.masks import check_dilate_px

        o = super().check_options(options)
        check_choice("judge_call", o["judge_call"], JUDGE_CALLS)
        check_choice("bg_mask", o["bg_mask"], BG_MASKS)
        check_choice("resize", o["resize"], RESIZES)
        check_choice("lpips_mode", o["lpips_mode"], ("area", "upsample"))
        check_choice("lpips_net", o["lpips_net"], ("alex", "vgg", "squeeze"))
        if not isinstance(o["reference"], bool):
            raise InputError(f"--option reference must be true or false, got {o['reference']!r}")
        if not isinstance(o["text_join"], str):
            raise InputError(f"--option text_join must be a string, got {o['text_join']!r}")
        if o["comet"] is not None and not isinstance(o["comet"], Mapping):
            raise InputError(f"--option comet must be a JSON object of COMETScore options, got {o['comet']!r}")
        if o["mask_root"] is not None:
            o["mask_root"] = os.fspath(Path(o["mask_root"]).expanduser().resolve())
        check_combine(o["combine"])
        check_judge_templates(o["templates"], reference=o["reference"])
        check_dilate_px(o["ocr_dilate_px"], "ocr_dilate_px")
        return o

    def check_item(self, item: Item) -> None:
        item_meta(item)
        source_text(item, "\n")
        mask = item.meta.get("mask")
        if mask is not None and not isinstance(mask, str):
            raise InputError(f"{item.where}: meta.mask must be a file path (a string), got {mask!r}")

    def units(self, options: Mapping[str, Any]) -> list[Unit]:
        return [text_unit(), background_unit(), judge_unit()]

    def tables(self, data: RunData) -> ProtocolResult:
        """Per-item S_text, S_bg, S_align, S_vis and S, and Table 2 per system (as
        :func:`transcreval.protocols.imtbench.evaluate`); a component whose unit did not run for
        an item is ``not_computed``, never 0."""
        got = {(r.item_id, r.system, r.metric): r for r in data.records}
        records: list[ItemRecord] = []
        for system in data.systems:
            for it in data.items:
                meta = item_meta(it)
                values: dict[str, float] = {}
                for c in COMPONENTS:
                    r = got.get((it.id, system, c))
                    status = r.status if r is not None else "not_computed"
                    values[c] = float(r.value) if r is not None and status == "ok" else math.nan
                    records.append(ItemRecord(it.id, system, c, values[c], status, it.group, meta))
                s = overall_score(values)
                ok = math.isfinite(s)
                status = "ok" if ok else "missing_component"
                records.append(ItemRecord(it.id, system, "S", s if ok else math.nan, status, it.group, meta))
        names = {"text": "S_text", "background": "S_bg", "judge": "S_vis/S_align"}
        return ProtocolResult(
            protocol="imtbench",
            records=tuple(records),
            tables={f"table2/{s}": table2(records, s) for s in data.systems},
            signatures={names.get(k, k): v for k, v in data.signatures.items()},
            options={
                **dict(data.options),
                "all_row": "plain mean of the scenario rows (S_avg), item-weighted row beside it",
            },
        )

    def report_options(self, result: ProtocolResult) -> dict[str, Any]:
        from transcreval.report import plot_heatmap

        figures = []
        for system in dict.fromkeys(r.system for r in result.records):
            if any(r.system == system and r.metric == "S" and r.status == "ok" for r in result.records):
                figures.append((f"S by scenario x language: {system}", _heatmap(plot_heatmap, result, system)))
        return {"figures": figures, "by": "scenario", "gallery_metrics": ["S"]}


def _heatmap(fn: Any, result: ProtocolResult, system: str) -> Any:
    return lambda: fn(result, "S", system=system)


ADAPTER = IMTBenchAdapter()
