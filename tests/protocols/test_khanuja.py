"""Khanuja et al. protocol: Table 3 from per-item values known in advance, Kendall tau by scipy.

The synthetic set: two target countries, a few images each, three systems. Every per-item value
is fixed by the test before the protocol runs: the VLM judges and the CSI judge answer from
scripted tables (so the intended 1-5 scores and CSI shares are known), and the SigLIP values are
computed here with open_clip's own encoders on the same random-init checkpoint. The reference
Table 3 is then computed independently: ``scipy.stats.kendalltau`` per image, the paper's skips,
the mean per country, the mean over countries.
"""

from __future__ import annotations

import functools
import json
import math

import numpy as np
import pytest
import scipy.stats
import torch
from PIL import Image

from tests._helpers.model_weights import poster_like, tiny_siglip_dir, tiny_tokenizer_dir
from transcreval.engines.judge.images import to_image_part
from transcreval.errors import InputError
from transcreval.judge import FunctionJudge
from transcreval.protocols.khanuja import COLUMNS, KhanujaItem, khanuja_table3

SYSTEMS = ("cap-edit", "cap-retrieve", "e2e-instruct")
IMAGES = {
    "india": ["japan_food_sushi", "brazil_mammal_jaguar", "united-states_beverages_coffee", "portugal_music_fado"],
    "japan": ["india_food_samosa", "nigeria_bird_eagle", "brazil_food_pão-de-queijo"],
}
UNPARSABLE = "It looks fine to me, maybe a three."
VLM = ("GPT-4o", "Molmo 7B")


def _img(seed):
    return poster_like(1, 24, 20, seed=seed)[0]


def _sha(image):
    return to_image_part(image).sha256


@functools.cache
def synthetic():
    """Items, every per-item value the test intends, and the human ratings."""
    rng = np.random.default_rng(7)
    items, plan = [], []
    for c, keys in IMAGES.items():
        for k, key in enumerate(keys):
            src = _img(100 + 10 * len(items) + k)
            for s, system in enumerate(SYSTEMS):
                items.append(KhanujaItem(c, key, system, _img(1000 + len(items)), src))
                plan.append({"sha": _sha(items[-1].output), "src_sha": _sha(src), "key": key, "s": s, "c": c, "k": k})
    for p in plan:
        for label in VLM:
            p[label] = {a: int(rng.integers(1, 6)) for a in ("cultural", "source", "intent", "creativity")}
    # scripted failures and ties: one unreadable intent answer; a visual-change tie over one image
    plan[1]["GPT-4o"]["intent"] = None
    for p in plan[3:6]:
        p["Molmo 7B"]["creativity"] = 4
    # CSI: per image, the culture-specific items and their replacements; per output, its objects
    for p in plan:
        reps = {} if p["key"] == "india_food_samosa" else {f"csi1-{p['key']}": ["r1", "r2"], f"csi2-{p['key']}": ["r3"]}
        hits = [[], ["r2"], ["r1", "r3"]][(p["s"] + p["k"]) % 3]
        p["reps"], p["out_objects"] = reps, [*hits, "table"]
        p["csi"] = sum(any(r in hits for r in rs) for rs in reps.values()) / len(reps) if reps else math.nan
    plan[4]["out_objects"] = None  # unreadable object list: no CSI value
    plan[4]["csi"] = math.nan
    human = {col: [int(rng.integers(1, 6)) for _ in plan] for col in COLUMNS}
    for i in (6, 7, 8):  # one image the humans rated alike for every system
        human["sem-eq"][i] = 3
    return items, plan, human


def write_ratings(root, human, plan, *, blank=None):
    """The authors' released layout: per country, human_eval.csv (slot 1 the source, slots 2-4 the
    systems in a shuffled order) row-aligned with labels.csv (model_k: the system in slot k+1).
    Each row puts the systems in another order, so a positional reading would mix them up."""
    orders = [SYSTEMS, SYSTEMS[::-1], SYSTEMS[1:] + SYSTEMS[:1], SYSTEMS[2:] + SYSTEMS[:2]]
    head = [f"{q}{k}" for q in ("visual_change", "sem_eq", "spatial", "natural") for k in (2, 3, 4)]
    head += [f"{q}{k}" for q in ("culture", "offensive") for k in (1, 2, 3, 4)] + ["split_number"]
    for c in IMAGES:
        rows = {}
        for i, p in enumerate(plan):
            if p["c"] == c:
                for col in COLUMNS:
                    v = "" if blank == (i, col) else str(human[col][i])
                    rows.setdefault(p["key"], {}).setdefault(col, {})[SYSTEMS[p["s"]]] = v
        rows["turkey_food_simit"] = {col: dict.fromkeys(SYSTEMS, "2") for col in COLUMNS}  # rated, no outputs
        hum, lab = [",".join(head)], ["src_image_path,model_path_1,model_path_2,model_path_3,model_1,model_2,model_3"]
        for n, (key, r) in enumerate(rows.items()):
            order = orders[n % len(orders)]
            source, name = key.split("_", 1)
            cells = {f"{q}{k + 2}": r[col][s] for col, q in (("vis-sim", "visual_change"), ("sem-eq", "sem_eq"),
                     ("cult-rel", "culture")) for k, s in enumerate(order)}  # fmt: skip
            cells |= {"culture1": "1", "split_number": "1"}
            hum.append(",".join(cells.get(h, "3") for h in head))
            paths = [f"https://host/outputs/{s}/{c}/{key}.png" for s in order]
            lab.append(",".join([f"https://host/part1/{source}/{name}.jpg", *paths, *order]))
        d = root / c
        d.mkdir(parents=True, exist_ok=True)
        (d / "human_eval.csv").write_text("\n".join(hum) + "\n", encoding="utf-8")
        (d / "labels.csv").write_text("\n".join(lab) + "\n", encoding="utf-8")
    return root


def vlm_judge(label, plan):
    by_out = {p["sha"]: p for p in plan}

    def answer(request):
        p = by_out[request.images[1].sha256][label]
        aspect = request.template_id.split(".")[1]
        if aspect == "cultural" and by_out[request.images[1].sha256]["c"].capitalize() not in request.text:
            raise KeyError("the prompt does not name the target country as the authors' scripts did")
        if aspect == "cultural":
            return json.dumps({"first_reasoning": "r", "first_score": p["source"], "second_reasoning": "r",
                               "second_score": p["cultural"]})  # fmt: skip
        return (
            UNPARSABLE if p[aspect] is None else f"```json\n{json.dumps({'reasoning': 'r', 'score': p[aspect]})}\n```"
        )

    return FunctionJudge(answer, model=label)


def csi_judge(plan):
    src = {p["src_sha"]: p for p in plan}
    out = {p["sha"]: p for p in plan}

    def answer(request):
        if request.template_id == "khanuja.csi-objects":
            sha = request.images[0].sha256
            if sha in src:
                return json.dumps({"objects": [f"thing-{src[sha]['key']}", *src[sha]["reps"]]})
            objs = out[sha]["out_objects"]
            return UNPARSABLE + " {" if objs is None else json.dumps({"objects": objs})
        if request.template_id == "khanuja.csi-replacements":
            p = next(p for p in plan if f"thing-{p['key']}" in request.text)
            return json.dumps({"reasoning": "r", "replacements": p["reps"]})
        l1 = request.text.split("List 1: ")[1].split("\n")[0].split("; ")
        l2 = request.text.split("List 2: ")[1].split("\n")[0].split("; ")
        return json.dumps({"matches": [[a, b] for a in l1 for b in l2 if a == b]})

    return FunctionJudge(answer, model="csi-oracle")


@functools.cache
def reference_model():
    import open_clip
    from open_clip.tokenizer import HFTokenizer

    model, _, transform = open_clip.create_model_and_transforms(tiny_siglip_dir())
    return model.eval(), transform, HFTokenizer(tiny_tokenizer_dir(), context_length=16, clean="canonicalize")


def siglip_values(items, culture="This image belongs to country {}", category="This image belongs to category {}"):
    model, transform, tok = reference_model()

    def img(xs):
        pils = [Image.fromarray(x.permute(1, 2, 0).numpy()) for x in xs]
        with torch.no_grad():
            return model.encode_image(torch.stack([transform(p) for p in pils]), normalize=True).double()

    def txt(xs):
        with torch.no_grad():
            return model.encode_text(tok(list(xs)), normalize=True).double()

    o, s = img([it.output for it in items]), img([it.source for it in items])
    tc = txt([culture.format(it.country.capitalize()) for it in items])
    tk = txt([category.format(it.image.split("_")[1]) for it in items])
    return {
        "cultural_relevance_delta": ((o * tc).sum(1) - (s * tc).sum(1)).tolist(),
        "semantic_equivalence": (o * tk).sum(1).tolist(),
        "visual_similarity": (o * s).sum(1).tolist(),
    }


def per_item(plan, items, *, delta=False):
    """{(row label, column): per-item values as Table 3 correlates them}, from the plan alone."""
    emb = siglip_values(items)
    out = {}
    for col in COLUMNS:
        out[("Gemini-1.5-Pro", col)] = [p["csi"] for p in plan]
    out[("SigLIP", "cult-rel")] = emb["cultural_relevance_delta"]
    out[("SigLIP", "sem-eq")] = emb["semantic_equivalence"]
    out[("SigLIP", "vis-sim")] = [-v for v in emb["visual_similarity"]]  # similarity vs human *change*
    for label in VLM:
        cult = [p[label]["cultural"] - (p[label]["source"] if delta else 0) for p in plan]
        out[(label, "cult-rel")] = cult
        out[(label, "sem-eq")] = [math.nan if p[label]["intent"] is None else p[label]["intent"] for p in plan]
        out[(label, "vis-sim")] = [p[label]["creativity"] for p in plan]
    return out


def reference_table(values, human, plan, average="countries", category=None):
    """{(label, col): (tau, used, skipped)} overall and per country, with scipy's kendalltau
    (over one category's images only, with ``category``)."""
    per_country, pooled = {}, {}
    for key, vals in values.items():
        taus = {c: [] for c in IMAGES}
        skipped = dict.fromkeys(IMAGES, 0)
        for c, keys in IMAGES.items():
            for img in keys:
                if category is not None and img.split("_")[1] != category:
                    continue
                idx = [
                    i
                    for i, p in enumerate(plan)
                    if p["c"] == c and p["key"] == img and human[key[1]][i] == human[key[1]][i]
                ]
                m, h = [vals[i] for i in idx], [human[key[1]][i] for i in idx]
                if any(math.isnan(x) for x in m) or len(set(m)) == 1:
                    skipped[c] += 1
                    continue
                tau = scipy.stats.kendalltau(m, h).statistic
                if math.isnan(tau):
                    skipped[c] += 1
                else:
                    taus[c].append(tau)
        for c in IMAGES:
            per_country[(c, *key)] = (np.mean(taus[c]) if taus[c] else math.nan, len(taus[c]), skipped[c])
        means = [np.mean(t) for t in taus.values() if t]
        flat = [x for t in taus.values() for x in t]
        value = (np.mean(means) if average == "countries" else np.mean(flat)) if flat else math.nan
        pooled[key] = (value, len(flat), sum(skipped.values()))
    return pooled, per_country


def run(tmp_path, **kw):
    items, plan, human = synthetic()
    root = write_ratings(tmp_path / "ratings", human, plan)
    opts = {
        "embedding": {"model": tiny_siglip_dir(), "tokenizer": tiny_tokenizer_dir()},
        "object_judge": csi_judge(plan),
        "vlm_judges": {label: vlm_judge(label, plan) for label in VLM},
        "chunk_size": 5,
        **kw,
    }
    return khanuja_table3(items, root, **opts), items, plan, human


ROWS = (
    ("Object-based", "Gemini-1.5-Pro"),
    ("Embedding-based", "SigLIP"),
    ("VLM-based", "GPT-4o"),
    ("VLM-based", "Molmo 7B"),
)


def test_table3_equals_scipy_on_the_intended_values(tmp_path):
    res, items, plan, human = run(tmp_path)
    values = per_item(plan, items)
    pooled, per_country = reference_table(values, human, plan)
    t = res.tables["table3"]
    assert t.rows == ROWS and t.columns == ("cult-rel", "sem-eq", "vis-sim") and t.decimals == 2
    assert set(res.tables) == {"table3", "table3_india", "table3_japan", "table3_by_category", "table1"}
    for row in ROWS:
        for col in COLUMNS:
            tau, used, skipped = pooled[(row[1], col)]
            cell = t.cell(row, col)
            assert cell.value == pytest.approx(tau, abs=1e-12) and (cell.n, cell.n_missing) == (used, skipped), (
                row,
                col,
            )
            for c in IMAGES:
                tau, used, skipped = per_country[(c, row[1], col)]
                got = res.tables[f"table3_{c}"].cell(row, col)
                assert (got.n, got.n_missing) == (used, skipped), (c, row, col)
                assert got.value == pytest.approx(tau, abs=1e-12) if used else math.isnan(got.value)
    # footnote 5: the same procedure over each category's images
    by_cat = res.tables["table3_by_category"]
    cats = sorted({k.split("_")[1] for keys in IMAGES.values() for k in keys})
    assert by_cat.rows == tuple((*row, cat) for row in ROWS for cat in cats)
    for cat in cats:
        ref = reference_table(values, human, plan, category=cat)[0]
        for row in ROWS:
            for col in COLUMNS:
                tau, used, skipped = ref[(row[1], col)]
                got = by_cat.cell((*row, cat), col)
                assert (got.n, got.n_missing) == (used, skipped), (cat, row, col)
                assert got.value == pytest.approx(tau, abs=1e-12) if used else math.isnan(got.value)
    # the scripted skips happened: no-CSI image, unreadable answers, a metric tie, a human tie
    assert t.cell(ROWS[0], "cult-rel").n_missing >= 2
    assert t.cell(ROWS[3], "vis-sim").n_missing >= 1 and t.cell(ROWS[1], "sem-eq").n_missing >= 1
    md = t.to_markdown()
    assert "| Object-based / Gemini-1.5-Pro |" in md and f"{t.cell(ROWS[1], 'vis-sim').value:.2f}" in md
    assert res.tables["table1"].cell("Total", "Images").value == 7
    assert res.tables["table1"].cell("india", "Images").value == 4


def test_records_hold_every_intended_value_joinable_by_item(tmp_path):
    res, items, plan, human = run(tmp_path)
    values = per_item(plan, items)
    ids = [it.item_id for it in items]
    assert len({(r.item_id, r.system, r.metric) for r in res.records}) == len(res.records)
    for system in SYSTEMS:
        rows = [i for i, it in enumerate(items) if it.system == system]
        sub = [ids[i] for i in rows]
        got = res.values(system, "csi_overlap", sub)
        np.testing.assert_allclose(got, [values[("Gemini-1.5-Pro", "cult-rel")][i] for i in rows], atol=1e-12)
        got = res.values(system, "visual_similarity", sub)
        np.testing.assert_allclose(got, [-values[("SigLIP", "vis-sim")][i] for i in rows], atol=1e-6)
        for label in VLM:
            for col, m in (("sem-eq", "intent"), ("vis-sim", "creativity")):
                np.testing.assert_array_equal(
                    res.values(system, f"vlm_{m}[{label}]", sub), [values[(label, col)][i] for i in rows]
                )
            np.testing.assert_array_equal(
                res.values(system, f"vlm_cultural_source[{label}]", sub), [plan[i][label]["source"] for i in rows]
            )
        np.testing.assert_array_equal(
            res.values(system, "human_visual_change", sub), [human["vis-sim"][i] for i in rows]
        )
    status = {(r.item_id, r.system, r.metric): r.status for r in res.records}
    assert status[(ids[1], items[1].system, "vlm_intent[GPT-4o]")] == "unparsable"
    assert status[(ids[4], items[4].system, "csi_overlap")] == "unparsable"
    samosa = next(i for i, it in enumerate(items) if it.image == "india_food_samosa")
    assert status[(ids[samosa], items[samosa].system, "csi_overlap")] == "no_csi"
    rec = next(r for r in res.records if r.item_id == ids[0])
    assert rec.meta["category"] == "food" and rec.meta["source"] == "japan" and rec.group == ids[0]
    assert res.protocol == "khanuja" and "CulturalRelevanceDelta" in res.signatures["cultural_relevance_delta"]
    assert "This image belongs to country {country}" in res.signatures["cultural_relevance_delta"]
    assert res.options["visual_signs"] == {"object": 1, "embedding": -1, "vlm": 1}
    assert res.options["country_names"] == {"india": "India", "japan": "Japan"}
    json.dumps(res.to_dict())  # JSON-ready


@pytest.mark.parametrize("average", ["countries", "segments"])
def test_options_delta_pooled_average_and_signs(tmp_path, average):
    res, items, plan, human = run(tmp_path, vlm_cultural="delta", average=average, visual_signs={"embedding": 1},
                                  object_judge=None, embedding=False)  # fmt: skip
    assert res.tables["table3"].rows == ROWS[2:]
    pooled, _ = reference_table(per_item(plan, items, delta=True), human, plan, average)
    for row in ROWS[2:]:
        for col in COLUMNS:
            assert res.tables["table3"].cell(row, col).value == pytest.approx(pooled[(row[1], col)][0], abs=1e-12)
    if average == "segments":
        return
    emb = khanuja_table3(items, write_ratings(tmp_path / "r2", human, plan), visual_signs={"embedding": 1},
                         embedding={"model": tiny_siglip_dir(), "tokenizer": tiny_tokenizer_dir()})  # fmt: skip
    flipped = {("SigLIP", "vis-sim"): [-v for v in per_item(plan, items)[("SigLIP", "vis-sim")]]}
    assert emb.tables["table3"].cell(ROWS[1], "vis-sim").value == pytest.approx(
        reference_table(flipped, human, plan)[0][("SigLIP", "vis-sim")][0], abs=1e-12
    )


def test_blank_ratings_leave_that_system_out(tmp_path):
    items, plan, human = synthetic()
    root = write_ratings(tmp_path, human, plan, blank=(0, "cult-rel"))
    with pytest.raises(
        InputError,
        match=r"human_eval\.csv, line 2 \(image 'japan_food_sushi'\), column 'culture2' \(cap-edit\): a blank",
    ):
        khanuja_table3(
            items, root, vlm_judges={"GPT-4o": vlm_judge("GPT-4o", plan)}, embedding=False, allow_blank=False
        )
    res = khanuja_table3(items, root, vlm_judges={"GPT-4o": vlm_judge("GPT-4o", plan)}, embedding=False)
    h = dict(human)
    h["cult-rel"] = [math.nan if i == 0 else v for i, v in enumerate(human["cult-rel"])]
    pooled, _ = reference_table({("GPT-4o", "cult-rel"): per_item(plan, items)[("GPT-4o", "cult-rel")]}, h, plan)
    assert res.tables["table3"].cell(ROWS[2], "cult-rel").value == pytest.approx(pooled[("GPT-4o", "cult-rel")][0])
    assert next(r for r in res.records if r.metric == "human_culture" and r.item_id == items[0].item_id
                and r.system == items[0].system).status == "missing"  # fmt: skip


def test_bad_items_and_options_fail_before_any_call(tmp_path):
    items, plan, human = synthetic()
    root = write_ratings(tmp_path, human, plan)
    calls = []
    j = FunctionJudge(lambda r: calls.append(r) or "{}", model="never")
    ok = {"vlm_judges": {"j": j}, "embedding": False}
    for kw, msg in [
        ({"vlm_cultural": "source"}, "vlm_cultural"),
        ({"average": "images"}, "average"),
        ({"visual_signs": {"embedding": 2}}, "visual_signs"),
        ({"visual_signs": {"pixels": 1}}, "visual_signs"),
        ({"csi_matching": "fuzzy", "object_judge": j}, "csi_matching"),
        ({"chunk_size": 0}, "chunk_size"),
        ({"vlm_templates": {"beauty": "x"}}, "vlm_templates"),
        ({"vlm_judges": {}}, "no metric row"),
        ({"vlm_judges": [j]}, "vlm_judges is a mapping"),
        ({"embedding": "siglip"}, "embedding is True, False or a mapping"),
        ({"embedding": {"template": "x {country}"}, "vlm_judges": {}}, "culture_template"),
    ]:
        with pytest.raises(InputError, match=msg):
            khanuja_table3(items, root, **{**ok, **kw})
    with pytest.raises(InputError, match="no items"):
        khanuja_table3([], root, **ok)
    with pytest.raises(InputError, match="both 'cap-edit' on 'india/japan_food_sushi'"):
        khanuja_table3([items[0], items[0]], root, **ok)
    bad = KhanujaItem("india", "japan_food_sushi", "other-system", items[0].output, items[0].source)
    with pytest.raises(InputError, match="'japan_food_sushi' has no rating for system 'other-system'"):
        khanuja_table3([bad], root, **ok)
    bad = KhanujaItem("brazil", "japan_food_sushi", "cap-edit", items[0].output, items[0].source)
    with pytest.raises(InputError, match=r"brazil.*does not exist"):
        khanuja_table3([bad], root, **ok)
    assert calls == []


def test_a_country_with_every_segment_skipped_has_an_empty_cell(tmp_path):
    items, plan, human = synthetic()
    const = FunctionJudge(lambda r: '{"reasoning": "r", "score": 3, "first_score": 3, "second_score": 3}', model="c")
    res = khanuja_table3(items, write_ratings(tmp_path, human, plan), vlm_judges={"flat": const}, embedding=False)
    cell = res.tables["table3_india"].cell(("VLM-based", "flat"), "sem-eq")
    assert math.isnan(cell.value) and cell.n == 0 and cell.n_missing == 4
    assert res.tables["table3"].cell(("VLM-based", "flat"), "sem-eq").format(2) == "-"
    assert "segment_kendall_tau" not in res.signatures  # no tau was computed
    # a single item: one system on one image, no segment to correlate, its records still there
    one = khanuja_table3(items[:1], tmp_path, vlm_judges={"GPT-4o": vlm_judge("GPT-4o", plan)}, embedding=False)
    assert all(c.n == 0 and c.n_missing == 1 for c in one.tables["table3"].cells.values())
    assert one.values("cap-edit", "vlm_intent[GPT-4o]") == [plan[0]["GPT-4o"]["intent"]]


@pytest.mark.parametrize("cache", [False, True])
def test_csi_items_keep_their_values_and_a_caching_judge_gets_whole_chunks(tmp_path, cache):
    """CSI-Overlap is scored item by item (its batch statistics do not say which item failed);
    with a cache the chunk is asked in one batch first, and every answer is asked once."""
    items, plan, human = synthetic()
    judge = FunctionJudge(csi_judge(plan).fn, model="csi-oracle", cache=tmp_path / "c.sqlite" if cache else None)
    asked, sizes = [], []
    inner_fn, inner_complete = judge.fn, judge.complete
    judge.fn = lambda r: asked.append(r.template_id) or inner_fn(r)
    judge.complete = lambda reqs: sizes.append(len(reqs)) or inner_complete(reqs)
    root = write_ratings(tmp_path, human, plan)
    res = khanuja_table3(items[:6], root, object_judge=judge, embedding=False, csi_matching="exact", chunk_size=6)
    assert "match:exact" in res.signatures["csi_overlap"] and "khanuja.csi-match" not in asked
    np.testing.assert_allclose(res.values("cap-retrieve", "csi_overlap"), [plan[1]["csi"], plan[4]["csi"]])
    np.testing.assert_allclose(res.values("e2e-instruct", "csi_overlap"), [plan[2]["csi"], plan[5]["csi"]])
    assert max(sizes) == (12 if cache else 2)  # step 1: 6 sources + 6 outputs in one batch
    # distinct requests: 2 sources + 6 outputs, 2 replacement lists (item 4's objects are unreadable);
    # without a cache each item asks its source, output and replacements again: 6 * 2 + 5
    assert len(asked) == (10 if cache else 17)


def test_bootstrap_intervals_are_seeded_and_hold_the_value(tmp_path):
    items, plan, human = synthetic()
    root = write_ratings(tmp_path, human, plan)
    kw = {"vlm_judges": {"GPT-4o": vlm_judge("GPT-4o", plan)}, "embedding": False, "bootstrap": 200, "seed": 3}
    a, b = khanuja_table3(items, root, **kw), khanuja_table3(items, root, **kw)
    for key in ("table3", "table3_india"):
        cell = a.tables[key].cell(ROWS[2], "cult-rel")
        assert cell.ci is not None and cell.ci[0] < cell.value < cell.ci[1], (key, cell)
        assert cell == b.tables[key].cell(ROWS[2], "cult-rel")
    assert khanuja_table3(items, root, **{**kw, "bootstrap": 0}).tables["table3"].cell(ROWS[2], "cult-rel").ci is None
