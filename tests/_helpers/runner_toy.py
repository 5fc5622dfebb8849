"""A small protocol for the runner's tests: text outputs scored by chrF, a length unit, and a
set-level statistic from stored per-item features, with a file that counts every scoring call.

* unit ``chrf``: sentence chrF (sacrebleu's) of the output text against ``reference_text``, with
  the item's chrF n-gram statistics in ``meta["chrf_stats"]`` (so ``compare`` can resample corpus
  chrF, as sacrebleu's paired tests do); option ``delay`` sleeps per batch (kill tests);
* unit ``pixels`` (not a default): the mean pixel value of the output image (decoding tests);
* unit ``length``: ``length_scale`` x the number of characters (a config change touches only it);
  its signature is a :class:`~transcreval.core.result.Signature` (work keys hash its canonical JSON);
* unit ``feat``: an 8-d pseudo feature vector per item (seeded by its text) in the payload; the
  table's ``spread`` is the Frechet distance of each system's vectors to the references' ones,
  computed at aggregate time (a set-level statistic);
* every scored item appends ``<unit> <system> <item>`` to the file named by option ``counter``;
* option ``gate``: a path; each chrF batch waits until that file exists (tests that must catch a
  run in the middle, with no timing assumption).
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from transcreval.core.result import Signature
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table
from transcreval.runs.features import frechet_from_rows, pack, unpack
from transcreval.runs.spec import Outcome, Prepared, ProtocolAdapter, RunData, Unit, UnitContext, Work

DIM = 8


def features_of(text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    return np.random.default_rng(seed).normal(size=DIM).astype(np.float32) + len(text) / 10.0


def _count(ctx: UnitContext, unit: str, works: Sequence[Work]) -> None:
    path = ctx.options.get("counter")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.write("".join(f"{unit} {w.system} {w.item.id}\n" for w in works))
        f.flush()
        os.fsync(f.fileno())


def _wait_for(gate: str | None, limit: float = 600.0) -> None:
    if not gate:
        return
    end = time.monotonic() + limit
    while not os.path.exists(gate):
        if time.monotonic() > end:
            raise TimeoutError(f"the gate {gate} never opened")
        time.sleep(0.05)


def corpus_chrf(rows: np.ndarray) -> float:
    from transcreval.functional.text.chrf import chrf_from_statistics

    return chrf_from_statistics(np.asarray(rows).sum(0).tolist())


def _length_sig(ctx: UnitContext) -> Signature:
    return Signature.make("length", {"scale": float(ctx.options["length_scale"])})


class ToyAdapter(ProtocolAdapter):
    name = "toy"
    version = "1"
    item_fields = ("reference_text",)
    output_fields = ("text",)
    meta_fields: ClassVar[dict[str, str]] = {"item:topic": "a grouping key for reports"}
    option_defaults: ClassVar[dict[str, Any]] = {"counter": "", "delay": 0.0, "length_scale": 1.0, "gate": ""}

    def units(self, options: Any) -> list[Unit]:
        def chrf(ctx: UnitContext) -> Prepared:
            from transcreval.functional.text.chrf import chrf_statistics, sentence_chrf

            def score(works: Sequence[Work]) -> list[Outcome]:
                _count(ctx, "chrf", works)
                _wait_for(ctx.options.get("gate"))
                if ctx.options.get("delay"):
                    time.sleep(float(ctx.options["delay"]))
                hyps = [w.output.text or "" for w in works]
                refs = [w.item.reference_text or "" for w in works]
                vals = sentence_chrf(hyps, refs)
                stats = chrf_statistics(hyps, refs)[0].tolist()
                return [
                    Outcome(
                        (
                            ItemRecord(
                                w.item.id,
                                w.system,
                                "chrf",
                                float(v),
                                "ok",
                                w.item.group,
                                {**w.item.meta, "chrf_stats": st},
                            ),
                        )
                    )
                    for w, v, st in zip(works, vals, stats)
                ]

            return Prepared("chrf|sacrebleu-sentence", score)

        def length(ctx: UnitContext) -> Prepared:
            scale = float(ctx.options["length_scale"])

            def score(works: Sequence[Work]) -> list[Outcome]:
                _count(ctx, "length", works)
                return [
                    Outcome(
                        (
                            ItemRecord(
                                w.item.id,
                                w.system,
                                "length",
                                scale * len(w.output.text or ""),
                                "ok",
                                w.item.group,
                                dict(w.item.meta),
                            ),
                        )
                    )
                    for w in works
                ]

            return Prepared(_length_sig(ctx), score)

        def feat(ctx: UnitContext) -> Prepared:
            def score(works: Sequence[Work]) -> list[Outcome]:
                _count(ctx, "feat", works)
                return [Outcome((), {"features": pack(features_of(w.output.text or ""))}) for w in works]

            return Prepared("feat|sha256-normal-8", score)

        def pixels(ctx: UnitContext) -> Prepared:
            from transcreval.io import to_rgb_float

            def score(works: Sequence[Work]) -> list[Outcome]:
                _count(ctx, "pixels", works)
                vals = [float(to_rgb_float(w.output.image).mean()) for w in works]
                return [
                    Outcome((ItemRecord(w.item.id, w.system, "brightness", v, "ok", w.item.group, {}),))
                    for w, v in zip(works, vals)
                ]

            return Prepared("pixels|mean", score)

        return [
            Unit("pixels", ("brightness",), pixels, default=False, summary="mean pixel value of the output image"),
            Unit("chrf", ("chrf",), chrf, needs=("text",), summary="sentence chrF vs reference_text"),
            Unit("length", ("length",), length, needs=("text",), signature=_length_sig),
            Unit("feat", (), feat, needs=("text",), reference_system="REF", summary="8-d features (set-level)"),
        ]

    def tables(self, data: RunData) -> ProtocolResult:
        recs = [r for r in data.records if r.system != "REF"]
        cells = {}
        for s in data.systems:
            for m in ("chrf", "length"):
                vals = [r.value for r in recs if r.system == s and r.metric == m]
                ok = [v for v in vals if not math.isnan(v)]
                if vals:
                    cells[(s, m)] = Cell(sum(ok) / len(ok) if ok else math.nan, len(ok), len(vals) - len(ok))
            if "feat" in data.signatures:
                pairs = [(data.payload(s, "feat", it.id), data.payload("REF", "feat", it.id)) for it in data.items]
                both = [(p, q) for p, q in pairs if p and q and "features" in p and "features" in q]
                fake = [unpack(p["features"]) for p, _ in both]
                ref = [unpack(q["features"]) for _, q in both]
                cells[(s, "spread")] = Cell(frechet_from_rows(fake, ref), len(fake), len(data.items) - len(fake))
        table = Table("Toy table", ("chrf", "length", "spread"), tuple(data.systems), cells, 3)
        return ProtocolResult("toy", tuple(recs), {"toy": table}, dict(data.signatures), dict(data.options))

    def compare_options(self, result: ProtocolResult) -> dict[str, Any]:
        return {"statistics": {"chrf": corpus_chrf}, "rows_from": {"chrf": "chrf_stats"}}


ADAPTER = ToyAdapter()


def write_set(
    root: Any, n: int = 12, systems: Sequence[str] = ("base", "better"), grouped: bool = True
) -> dict[str, Any]:
    """A manifest and one outputs JSONL per system under ``root``; returns their paths. ``grouped``:
    items two by two share a source group (else each item is its own group)."""
    import json
    import random

    words = "the cat sat on a mat with big red hat and ran far away from home at night".split()  # noqa: SIM905
    rnd = random.Random(7)
    root.mkdir(parents=True, exist_ok=True)
    refs = [" ".join(rnd.choice(words) for _ in range(rnd.randint(3, 8))) for _ in range(n)]
    lines = [
        {
            "id": f"it{i:02d}",
            "group": f"g{i // 2}" if grouped else f"it{i:02d}",
            "reference_text": r,
            "meta": {"topic": "ab"[i % 2]},
        }
        for i, r in enumerate(refs)
    ]
    (root / "manifest.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = {"manifest": root / "manifest.jsonl", "systems": {}, "texts": {}}
    for k, s in enumerate(systems):
        texts = {}
        for i, r in enumerate(refs):
            texts[f"it{i:02d}"] = r if rnd.random() < 0.3 + 0.3 * k else " ".join(rnd.choice(words) for _ in range(5))
        path = root / f"{s}.jsonl"
        path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in texts.items()))
        out["systems"][s] = path
        out["texts"][s] = texts
    out["refs"] = {f"it{i:02d}": r for i, r in enumerate(refs)}
    return out


def evaluate_args(d: dict[str, Any], *extra: str) -> list[str]:
    """``transcreval evaluate`` arguments for a set from :func:`write_set` with ``d["out"]`` set
    (and ``--option counter=`` when ``d`` has a ``"counter"`` file)."""
    out = ["evaluate", "-p", "tests._helpers.runner_toy:ADAPTER", "-m", str(d["manifest"]), "-o", str(d["out"])]
    out += ["--progress", "none"]
    for name, path in d["systems"].items():
        out += ["-s", f"{name}={path}"]
    counter = ["--option", f"counter={d['counter']}"] if d.get("counter") else []
    return [*out, *counter, *extra]
