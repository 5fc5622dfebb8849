"""IMTBench's runner units (:mod:`transcreval.protocols.imtbench.runner`): S_text (COMET),
S_bg and the judge's S_vis and S_align, each scoring a batch of one system's items with the
per-item functions :func:`transcreval.protocols.imtbench.evaluate` uses
(:mod:`transcreval.functional.judge.imtbench_components`, ``imtbench_calls``). Nothing here
builds a table.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from transcreval.errors import InputError, MissingDependencyError
from transcreval.protocols.adapter import Item, Outcome, Prepared, Unit, UnitContext, Work
from transcreval.protocols.imtbench.inputs import language_code, scenario_name
from transcreval.protocols.records import ItemRecord

__all__ = ["background_unit", "item_meta", "judge_unit", "source_text", "text_unit"]

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
    from transcreval.engines.comet import engine as comet_engine

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


def background_unit() -> Unit:
    def prepare(ctx: UnitContext) -> Prepared:
        from transcreval.engines.ocr.masks import check_dilate_px
        from transcreval.features.lpips_network import load_lpips_network
        from transcreval.functional.judge.imtbench_components import background_items

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
            from transcreval.engines.ocr.base import get_detector

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
                from transcreval.io import read_mask  # the rule imtbench.evaluate reads masks by

                masks = [read_mask(_mask_path(w.item, o)) for w in works]
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
    from transcreval.engines.judge.pipeline import judge_label
    from transcreval.functional.judge.imtbench import check_combine
    from transcreval.functional.judge.imtbench_calls import check_judge_templates

    o = ctx.options
    tpl = check_judge_templates(o["templates"], reference=bool(o["reference"]))
    used = ("joint", "harmonization") if o["judge_call"] == "joint" else ("harmonization", "alignment")
    return {
        "judge": judge_label(ctx.judge),
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
