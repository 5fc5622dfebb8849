"""MPTc-Bench protocol steps: the edit-intensity study (App. B.2) and the Table 5 collection."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image

from tests._helpers import random_weights as rw
from tests._helpers.model_weights import dinov2_file, inception_file, poster_like
from transcreval.errors import InputError
from transcreval.functional import lpips_per_pair, phash_distances, separability_auc, threshold_sweep
from transcreval.functional.image.dinov2_distance import dinov2_distance
from transcreval.protocols.mptc import edit_intensity_study, format_edit_intensity


@pytest.fixture(scope="module")
def lpips_file(tmp_path_factory):
    feats = rw.features_only(rw.trunk_state("alex", seed=1))
    path = tmp_path_factory.mktemp("lpips") / "alex.pth"
    torch.save(rw.lpips_layout_state("alex", feats, rw.lin_state("alex", seed=11)), path)
    return str(path)


def _pairs(tmp_path):
    """SRC posters as files, GT posters as PIL images of other sizes: near copies (surface), and
    unrelated redesigns (deep)."""
    rng = np.random.default_rng(0)
    src = poster_like(10, 96, 64, seed=1)
    other = poster_like(10, 80, 60, seed=2, shift=0.05)
    src_files, gt = [], []
    for i in range(10):
        p = tmp_path / f"src{i}.png"
        Image.fromarray(src[i].permute(1, 2, 0).numpy()).save(p)
        src_files.append(p)
        if i % 2 == 0:  # surface: a small text-like edit on the same poster
            arr = src[i].permute(1, 2, 0).numpy().copy()
            arr[5 : 12 + i, 10:40] = rng.integers(0, 255, 3)
            gt.append(Image.fromarray(arr).resize((64 + i, 96)))
        else:
            gt.append(Image.fromarray(other[i].permute(1, 2, 0).numpy()))
    return src_files, gt


def test_edit_intensity_study_matches_its_parts(tmp_path, lpips_file):
    src, gt = _pairs(tmp_path)
    dino = dinov2_file("hub")
    study = edit_intensity_study(
        src,
        gt,
        lpips_weights=lpips_file,
        dinov2_weights=dino,
        bootstrap=50,
        seed=3,
        batch_size=4,
        surface_max=12,
        deep_min=20,
    )
    # every distance equals its own metric on the same pairs
    pils = [Image.open(p) for p in src]
    assert torch.equal(study.distances["phash"], phash_distances(pils, gt))
    rs = lambda ims: torch.cat(  # noqa: E731
        [
            torch.nn.functional.interpolate(
                torch.from_numpy(np.array(im.convert("RGB"))).permute(2, 0, 1)[None].float() / 255,
                size=(256, 256),
                mode="bicubic",
                antialias=True,
                align_corners=False,
            ).clamp(0, 1)
            for im in ims
        ]
    )
    assert torch.allclose(
        study.distances["lpips"], lpips_per_pair(rs(pils), rs(gt), weights=lpips_file).double(), atol=1e-6
    )
    d = dinov2_distance(pils, gt, weights=dino)
    assert torch.allclose(study.distances["dinov2"], d.per_item, atol=1e-9)
    # the AUCs are SeparabilityAUC on the kept pairs, with the same seeded bootstrap
    ph = study.distances["phash"].numpy()
    keep = (ph <= 12) | (ph >= 20)
    for k in ("phash", "lpips", "dinov2"):
        ref = separability_auc(
            study.distances[k].double().numpy()[keep], (ph[keep] >= 20).astype(int), bootstrap=50, seed=3
        )
        assert study.auc[k].value == ref.value and study.auc[k].extras["ci"] == ref.extras["ci"]
        assert study.sweep[k] == threshold_sweep(study.distances[k].double().numpy(), ph, bootstrap=50, seed=3)
    assert study.auc["phash"].value == 1.0  # the split is made from pHash itself
    assert sum(r["n"] for r in study.band_summary) == 10
    text = format_edit_intensity(study)
    assert "AUC lpips" in text and "surface" in text


def test_edit_intensity_study_bad_input(tmp_path, lpips_file):
    src, gt = _pairs(tmp_path)
    with pytest.raises(InputError, match="aligned"):
        edit_intensity_study(src, gt[:3], lpips_weights=lpips_file, dinov2_weights=dinov2_file("hub"))
    with pytest.raises(InputError, match="below"):
        edit_intensity_study(
            src, gt, surface_max=30, deep_min=12, lpips_weights=lpips_file, dinov2_weights=dinov2_file("hub")
        )


def test_similarity_collection_routes_source_to_fid_src():
    from tests._helpers.model_weights import TINY_CLIP, tiny_clip_checkpoint
    from transcreval.functional import fid
    from transcreval.protocols.mptc import similarity_metrics

    w = inception_file(3)
    coll = similarity_metrics(clip_model=TINY_CLIP, clip_pretrained=tiny_clip_checkpoint(), fid_weights=w)
    out_, gt, src = poster_like(4, 64, 48, 1), poster_like(4, 64, 48, 2), poster_like(4, 64, 48, 3)
    coll.update(out_, gt, source=src)
    res = coll.compute()
    assert res["FID_SRC"].value == pytest.approx(fid(out_, src, weights=w).value, rel=1e-9)
    assert res["FID_GT"].value == pytest.approx(fid(out_, gt, weights=w).value, rel=1e-9)
    assert set(res) == {"CLIP", "FID_GT", "FID_SRC"}


# --- plan-to-render loss (MPTc §5.1, Figure 6) ---------------------------------------------------


def test_plan_to_render_loss_from_sacrebleu_sentence_scores():
    from sacrebleu.metrics import CHRF

    from transcreval import PlanChrF, TitleChrF
    from transcreval.protocols.mptc import plan_to_render_loss

    refs = ["Der Pate", "Die fabelhafte Welt der Amélie", "Chihiros Reise ins Zauberland"]
    plans = ["Der Pate", "Die fabelhafte Welt von Amelie", "Chihiros Reise ins Zauberland"]
    rendered = ["Der Pat", "Die fabelhafte Welt", "Chihiros Riese ins Zauberlnd"]
    chrf = CHRF()
    visual = sum(chrf.sentence_score(h, [r]).score for h, r in zip(rendered, refs)) / 3
    plan = sum(chrf.sentence_score(h, [r]).score for h, r in zip(plans, refs)) / 3
    expected = (1 - visual / plan) * 100

    t, p = TitleChrF(), PlanChrF()
    t.update(preds=rendered, target=refs)
    p.update(preds=plans, target=refs)
    got = plan_to_render_loss(t.compute(), p.compute())
    assert got == pytest.approx(expected, rel=1e-9)
    assert 0 < got < 100
    assert plan_to_render_loss(t.compute().value, p.compute().value) == pytest.approx(expected, rel=1e-12)


def test_plan_to_render_loss_edges_and_bad_input():
    from transcreval import PlanChrF, TitleChrF
    from transcreval.protocols.mptc import plan_to_render_loss

    assert plan_to_render_loss(40.0, 40.0) == 0.0  # rendering lost nothing
    assert plan_to_render_loss(0.0, 40.0) == 100.0  # rendering lost everything
    assert plan_to_render_loss(50.0, 40.0) == pytest.approx(-25.0)  # rendered titles beat the plan
    with pytest.raises(InputError, match="undefined"):
        plan_to_render_loss(10.0, 0.0)
    for bad in (float("nan"), float("inf"), -1.0, 101.0, "40", True):
        with pytest.raises(InputError, match="plan_to_render_loss"):
            plan_to_render_loss(bad, 40.0)
    t, p = TitleChrF(), PlanChrF()
    t.update(preds=["a b", "c"], target=["a b", "c d"])
    p.update(preds=["a b"], target=["a b"])
    with pytest.raises(InputError, match="2 items but PlanChrF 1"):
        plan_to_render_loss(t.compute(), p.compute())


def test_study_keeps_its_work_when_an_auc_is_undefined(lpips_file):
    """A single pair, a Surface-only subset or thresholds that empty both sides: every distance,
    the bands and the band summary are kept; each AUC is undefined with its reason."""
    src = list(poster_like(3, 96, 64, seed=1))
    far = list(poster_like(3, 96, 64, seed=2, shift=0.05))
    kw = {"lpips_weights": lpips_file, "dinov2_weights": dinov2_file("hub"), "bootstrap": 10}
    cases = [
        (src[:1], far[:1], {}, None),
        (src, [x.clone() for x in src], {}, "0 deep and 3 surface"),
        (src, far, {"surface_max": -1, "deep_min": 65}, "no pairs"),
    ]
    for s, t, opts, reason in cases:
        study = edit_intensity_study(s, t, **kw, **opts)
        assert {k: v.shape for k, v in study.distances.items()} == {k: (len(s),) for k in ("phash", "lpips", "dinov2")}
        assert len(study.bands) == len(s) and sum(r["n"] for r in study.band_summary) == len(s)
        for k, res in study.auc.items():
            assert not res.defined and np.isnan(res.value) and "undefined" in res.extras, k
            if reason:
                assert reason in res.extras["undefined"]
            assert all("undefined" in row and np.isnan(row["auc"]) for row in study.sweep[k])
        assert "undefined" in format_edit_intensity(study)
    # the distances equal the ones a defined study computes
    one = edit_intensity_study(src[:1], far[:1], **kw)
    assert float(one.distances["dinov2"][0]) == pytest.approx(
        dinov2_distance(src[:1], far[:1], weights=kw["dinov2_weights"]).value
    )


def test_threshold_sweep_keeps_the_settings_it_can_compute():
    ph = np.array([0, 5, 11, 13, 29, 31, 40])
    d = np.array([0.1, 0.2, 0.3, 0.35, 0.6, 0.7, 0.9])
    rows = threshold_sweep(d, ph, surface_max=(-1, 12), deep_min=(30,))
    assert "undefined" in rows[0] and np.isnan(rows[0]["auc"]) and rows[0]["n_surface"] == 0
    assert rows[1]["auc"] == separability_auc(d[[0, 1, 2, 5, 6]], [0, 0, 0, 1, 1]).value
    assert rows[1]["n_surface"] == 3 and rows[1]["n_deep"] == 2


@pytest.mark.parametrize("batch_size", [0, -1, 1.5, True])
def test_study_batch_size_must_be_a_positive_integer(batch_size):
    src = list(poster_like(1, 64, 64, seed=1))
    with pytest.raises(InputError, match="batch_size must be a positive integer"):
        edit_intensity_study(src, src, batch_size=batch_size)
