"""MPTc-Bench's runner units: the judge answers, CLIP, FID features and OCR IoUs per item.

Each unit scores a batch of one system's items with the protocol's own per-item code and
returns one :class:`~transcreval.protocols.adapter.Outcome` per item; nothing here builds a table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.protocols.adapter import Outcome, Prepared, Unit, UnitContext, Work
from transcreval.protocols.mptc.inputs import MPTcSet, read_outputs, system_name
from transcreval.protocols.mptc.runner.inputs import (
    mptc_set,
    nan_records,
    output_record,
    planner_editor,
    signature_json,
)
from transcreval.protocols.mptc.scoring.judged import (
    DECADES,
    JUDGE_METRICS,
    check_judge_settings,
    judge_records,
    judge_templates,
)
from transcreval.protocols.records import ItemRecord

__all__ = ["GT", "UNIT_BUILDERS", "clip_unit", "fid_unit", "judge_unit", "ocr_unit"]

#: the reference row's system name (the item's GT poster scored like an output)
GT = "GT"
OCR_METRICS = ("ocr_iou_src_mtc", "ocr_iou_src_gt")


def _judge_settings(ctx: UnitContext, memo: dict[int, Any]) -> tuple[MPTcSet, dict[str, Any]]:
    """The whole set's split and the judge settings (genre labels come from every scored item)."""
    key = id(ctx.items)
    if key not in memo:
        o = ctx.options
        data, _ = mptc_set(ctx.items, {}, o)
        scored = [i for i in data.items if data.splits[i.item_id] in ("surface", "deep")]
        genres = list(o["genre_labels"]) if o["genre_labels"] else sorted({str(i.genre) for i in scored if i.genre})
        tpl = judge_templates(o["templates"])
        call = o["judge_call"]
        used = ("title", "quiz", "pairwise", *(("scores",) if call == "joint" else ("aesthetic", "adaptation")))
        settings = {
            "judge": dict(ctx.judge.describe()) if ctx.judge is not None and hasattr(ctx.judge, "describe") else {},
            "judge_call": call,
            "templates": {k: tpl[k].ref for k in used},
            "seed": o["seed"],
            "both_orders": o["both_orders"],
            "n_options": o["n_options"],
            "genre_labels": genres,
            "decade_labels": list(o["decade_labels"] or DECADES),
            "split": {k: o[k] for k in ("split_by", "surface_max", "deep_min")},
        }
        memo[key] = (data, settings)
    return memo[key]


def _check_set(ctx: UnitContext) -> None:
    """The whole set splits as the options say (what every table needs)."""
    mptc_set(ctx.items, {}, ctx.options)


def judge_unit(options: Mapping[str, Any]) -> Unit:
    memo: dict[int, Any] = {}

    def signature(ctx: UnitContext) -> str:
        return "mptc.judge|" + signature_json(_judge_settings(ctx, memo)[1])

    def check(ctx: UnitContext) -> None:
        whole, s = _judge_settings(ctx, {})  # not memoised: the context checked may lack the real judge
        check_judge_settings(
            whole,
            judge_call=s["judge_call"],
            templates=ctx.options["templates"],
            seed=s["seed"],
            n_options=s["n_options"],
            genre_labels=s["genre_labels"],
            decade_labels=s["decade_labels"],
        )

    def prepare(ctx: UnitContext) -> Prepared:
        whole, s = _judge_settings(ctx, memo)
        o = ctx.options
        kw = {k: s[k] for k in ("judge_call", "seed", "both_orders", "n_options", "genre_labels", "decade_labels")}

        def score(works: Sequence[Work]) -> list[Outcome]:
            system = works[0].system
            ids = {w.item.id for w in works}
            items = tuple(i for i in whole.items if i.item_id in ids)
            planners: tuple[str, ...] = ()
            editors: tuple[str, ...] = ()
            if system == GT:
                outs: tuple[Any, ...] = ()
                target = GT
            else:
                p, e = planner_editor(system, o)
                outs = tuple(read_outputs([output_record(w.output, p, e) for w in works]))
                planners, editors, target = (p,), (e,), system_name(p, e)
            splits = {i.item_id: whole.splits[i.item_id] for i in items}
            data = MPTcSet(items, outs, splits, {k: whole.phash[k] for k in splits}, planners, editors, whole.options)
            got: dict[str, list[ItemRecord]] = {}
            for r in judge_records(data, judge=ctx.judge, templates=o["templates"], batch_size=len(works), **kw):
                if r.system == target:
                    got.setdefault(r.item_id, []).append(r)
            out = []
            for w in works:
                recs = got.get(w.item.id)
                if recs is None:  # the intermediate pHash band: MPTc scores neither split
                    out.append(Outcome(nan_records(w.item, system, JUDGE_METRICS, "intermediate_split")))
                    continue
                fixed = tuple(
                    ItemRecord(r.item_id, system, r.metric, r.value, r.status, w.item.group, r.meta) for r in recs
                )
                out.append(Outcome(fixed))
            return out

        return Prepared(signature(ctx), score)

    return Unit(
        "judge",
        JUDGE_METRICS,
        prepare,
        signature,
        needs=("image", "source_image", "reference_image"),
        uses_judge=True,
        reference_system=GT,
        summary="Tables 3-4, Fig. 6-7: titles, quizzes, scores, win vs GT (judge; GT row too)",
        check=check,
    )


def _hf_cached(repo: str, names: Sequence[str]) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    return any(isinstance(try_to_load_from_cache(repo, n), str) for n in names)


def clip_unit(options: Mapping[str, Any]) -> Unit:
    def available(ctx: UnitContext) -> str | None:
        o = ctx.options
        if o["clip_model"] is not None or o["clip_pretrained"] is not None:
            return None
        if _hf_cached(
            "timm/vit_base_patch32_clip_224.openai", ("open_clip_model.safetensors", "open_clip_pytorch_model.bin")
        ):
            return None
        return "the default CLIP weights (ViT-B-32 'openai') are not on this machine: --option clip_pretrained=FILE"

    def prepare(ctx: UnitContext) -> Prepared:
        from transcreval.multimodal.embedding_similarity import CLIPSimilarity

        o = ctx.options
        metric: Any = CLIPSimilarity(o["clip_model"], o["clip_pretrained"])
        if ctx.device:
            metric = metric.to(ctx.device)

        def score(works: Sequence[Work]) -> list[Outcome]:
            res = metric.forward([w.output.image for w in works], [w.item.reference_image for w in works])
            assert res.per_item is not None
            vals = [float(v) for v in res.per_item.tolist()]
            return [
                Outcome((ItemRecord(w.item.id, w.system, "clip", v, "ok", w.item.group, dict(w.item.meta)),))
                for w, v in zip(works, vals)
            ]

        return Prepared("mptc.clip|" + str(metric.signature), score)

    return Unit(
        "clip",
        ("clip",),
        prepare,
        needs=("image", "reference_image"),
        available=available,
        summary="Table 5 CLIP: 100 x cosine of GT and MTc",
        check=_check_set,
    )


def fid_unit(options: Mapping[str, Any]) -> Unit:
    def available(ctx: UnitContext) -> str | None:
        if ctx.options["fid_weights"] is not None:
            return None
        from transcreval.weights import fetch_command, locate

        if locate("inception-v3-fid")[0] is None:
            return f"the Inception weights are not on this machine (`{fetch_command('inception-v3-fid')}`)"
        return None

    def prepare(ctx: UnitContext) -> Prepared:
        from transcreval.core.result import Signature
        from transcreval.features.images import extract
        from transcreval.functional.image.fid import fid_extractor, fid_signature_options, fid_version_packages
        from transcreval.protocols.stored_features import pack

        o = ctx.options
        ext = fid_extractor(o["fid_weights"], o["fid_preprocess"], ctx.device)
        cache = ctx.feature_cache()
        sig = Signature.make(
            "FID-features", fid_signature_options(ext, o["fid_preprocess"]), fid_version_packages(o["fid_preprocess"])
        )

        def feats(paths: Sequence[Any], what: str) -> list[str]:
            got = extract(ext, list(paths), "pool3", cache=cache, what=what)
            return [pack(row) for row in got]

        def score(works: Sequence[Work]) -> list[Outcome]:
            fake = feats([w.output.image for w in works], "outputs")
            gt = feats([w.item.reference_image for w in works], "GT posters")
            src = feats([w.item.source_image for w in works], "source posters")
            return [Outcome((), {"fake": a, "gt": b, "src": c}) for a, b, c in zip(fake, gt, src)]

        return Prepared("mptc.fid|" + str(sig), score)

    return Unit(
        "fid",
        (),
        prepare,
        needs=("image", "source_image", "reference_image"),
        available=available,
        summary="Table 5 FID_GT / FID_SRC: Inception features per item (set-level at aggregate time)",
        check=_check_set,
    )


def ocr_unit(options: Mapping[str, Any]) -> Unit:
    def prepare(ctx: UnitContext) -> Prepared:
        import math

        from transcreval.engines.ocr.base import get_detector
        from transcreval.protocols.mptc.scoring.ocr_iou import triplet_ious

        o = ctx.options
        det = get_detector(o["ocr_backend"])
        run = {"detector": det, "resample": o["ocr_resample"], "dilate_px": o["ocr_dilate_px"]}
        info = det.info_for(True).as_dict()
        sig = signature_json({"ocr": info, "resample": o["ocr_resample"], "dilate_px": o["ocr_dilate_px"]})

        def score(works: Sequence[Work]) -> list[Outcome]:
            mtc, gt = triplet_ious(
                [w.item.source_image for w in works],
                [w.item.reference_image for w in works],
                [w.output.image for w in works],
                **run,
            )
            out = []
            for w, a, b in zip(works, mtc.tolist(), gt.tolist()):
                recs = tuple(
                    ItemRecord(
                        w.item.id,
                        w.system,
                        m,
                        v if not math.isnan(v) else math.nan,
                        "ok" if not math.isnan(v) else "empty_union",
                        w.item.group,
                        dict(w.item.meta),
                    )
                    for m, v in zip(OCR_METRICS, (a, b))
                )
                out.append(Outcome(recs))
            return out

        return Prepared("mptc.ocr|" + sig, score)

    return Unit(
        "ocr",
        OCR_METRICS,
        prepare,
        needs=("image", "source_image", "reference_image"),
        default=False,
        summary="Table 10: OCR text-mask IoU(SRC, MTc) and IoU(SRC, GT) (offline rapidocr by default)",
        check=_check_set,
    )


UNIT_BUILDERS = (judge_unit, clip_unit, fid_unit, ocr_unit)
