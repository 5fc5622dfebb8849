"""FID: the Inception extractor, the Frechet distance, the class and the function, against
torch-fidelity (same random-init weights file), scipy's sqrtm form and clean-fid's resize."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.linalg
import torch

from tests._helpers.model_weights import inception_file, poster_like, reference_fid
from tests._helpers.tester import MetricCase, check_metric, partial
from transcreval.errors import EmptyInputError, InputError, SignatureMismatchError, UndefinedValueError
from transcreval.functional.image.fid import fid, fid_extractor
from transcreval.functional.image.frechet import frechet_distance, gaussian_from_moments, moments
from transcreval.image.fid import FID


@pytest.fixture(scope="module")
def weights() -> str:
    return inception_file(3)


def scipy_frechet(mu1, s1, mu2, s2) -> float:
    """The sqrtm form (pytorch-fid / clean-fid)."""
    covmean = scipy.linalg.sqrtm(s1 @ s2).real
    d = mu1 - mu2
    return float(d @ d + np.trace(s1) + np.trace(s2) - 2 * np.trace(covmean))


def _gaussians(d: int, n1: int, n2: int, seed: int):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n1, d)) @ rng.standard_normal((d, d)) * 0.1
    b = rng.standard_normal((n2, d)) @ rng.standard_normal((d, d)) * 0.1 + 0.05
    return a.mean(0), np.cov(a, rowvar=False), b.mean(0), np.cov(b, rowvar=False), a, b


# ----------------------------------------------------------------------------- Frechet distance
@pytest.mark.parametrize(
    ("d", "n1", "n2"), [(64, 400, 500), (128, 300, 1000), (64, 20, 30), (256, 40, 60), (96, 30, 500)]
)
def test_frechet_distance_equals_the_sqrtm_form(d, n1, n2):
    """Well-conditioned (n > d) and rank-deficient (n < d: fewer images than features) covariances."""
    mu1, s1, mu2, s2, _, _ = _gaussians(d, n1, n2, seed=d + n1)
    ref = scipy_frechet(mu1, s1, mu2, s2)
    assert frechet_distance(mu1, s1, mu2, s2) == pytest.approx(ref, rel=1e-6)
    # symmetric in the two Gaussians, and tensors work too
    assert frechet_distance(torch.tensor(mu2), torch.tensor(s2), mu1, s1) == pytest.approx(ref, rel=1e-6)


def test_frechet_distance_rank_deficient_is_exact():
    """With both sets smaller than the dimension the trace term is the nuclear norm of A B^T
    (A, B the centred scaled samples): an exact reference the sqrtm form only approximates."""
    mu1, s1, mu2, s2, a, b = _gaussians(300, 25, 40, seed=1)
    a_c = (a - mu1) / np.sqrt(len(a) - 1)
    b_c = (b - mu2) / np.sqrt(len(b) - 1)
    nuclear = np.linalg.svd(a_c @ b_c.T, compute_uv=False).sum()
    diff = mu1 - mu2
    exact = diff @ diff + np.trace(s1) + np.trace(s2) - 2 * nuclear
    assert frechet_distance(mu1, s1, mu2, s2) == pytest.approx(exact, rel=1e-10)


def test_frechet_distance_identical_and_bad_input():
    mu, s, _, _, _, _ = _gaussians(32, 10, 10, seed=3)
    assert frechet_distance(mu, s, mu, s) == pytest.approx(0.0, abs=1e-9)
    assert frechet_distance(mu, np.zeros((32, 32)), mu, np.zeros((32, 32))) == 0.0  # constant features
    with pytest.raises(InputError, match="symmetric"):
        frechet_distance(mu, s + np.triu(np.ones_like(s)), mu, s)
    with pytest.raises(InputError, match="32 x 32"):
        frechet_distance(mu, s[:5, :5], mu, s)
    with pytest.raises(InputError, match="NaN"):
        frechet_distance(mu * np.nan, s, mu, s)


def test_moments_give_numpy_cov():
    x = torch.randn(50, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    m = moments(x)
    mu, sigma = gaussian_from_moments(m["n"], m["sum"], m["outer"])
    assert torch.allclose(mu, x.mean(0)) and np.allclose(sigma.numpy(), np.cov(x.numpy(), rowvar=False))
    with pytest.raises(UndefinedValueError, match="at least 2"):
        gaussian_from_moments(1, m["sum"], m["outer"])


# ----------------------------------------------------------------------------- the extractor
def test_inception_features_equal_torch_fidelity(weights):
    from torch_fidelity.feature_extractor_inceptionv3 import FeatureExtractorInceptionV3

    ref = FeatureExtractorInceptionV3("inception-v3-compat", ["2048"], feature_extractor_weights_path=weights)
    x = poster_like(3, 75, 61, seed=5)
    ours = fid_extractor(weights)(x.float() / 255)["pool3"]
    with torch.no_grad():
        want = ref(x)[0]
    # each of our images runs alone on one thread; torch-fidelity's batched run orders some
    # sums differently (measured 2.4e-6 at most; the spec asks 1e-3 relative)
    torch.testing.assert_close(ours, want, rtol=1e-5, atol=1e-5)
    assert float(ours.abs().max()) > 0.01  # features, not zeros: the tolerance is meaningful


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_inception_features_of_an_image_do_not_depend_on_its_batch_or_the_threads(weights, threads):
    """On the CPU every image runs alone on one torch thread: in any batch, with any thread
    budget and any torch thread count, an image gets exactly the features it gets alone."""
    from transcreval.utils.threads import torch_threads

    x = poster_like(5, 75, 61, seed=6).float() / 255
    ex = fid_extractor(weights)
    alone = [ex(x[i : i + 1])["pool3"][0] for i in range(5)]
    with torch_threads(threads):
        whole = ex(x)["pool3"]
        pairs = ex(x, batch_size=2)["pool3"]
    for i in range(5):
        assert torch.equal(whole[i], alone[i]) and torch.equal(pairs[i], alone[i]), i


def test_inception_features_are_the_same_when_a_gradient_is_recorded(weights):
    """With a gradient the chunks cannot go to the workers: they run in the calling thread, on
    one torch thread too, so the features are exactly those of the no-gradient path."""
    x = poster_like(3, 75, 61, seed=6).float() / 255
    ex = fid_extractor(weights)
    plain = ex(x)["pool3"]
    with torch.enable_grad():
        graded = ex(x.clone().requires_grad_())["pool3"]
    assert graded.requires_grad and torch.equal(graded.detach(), plain)


def test_inception_runs_a_single_image_once(weights, monkeypatch):
    """The extractor runs a lone CPU image as a batch of two for networks that batch freely;
    Inception runs fixed chunks itself, so one image is one chunk of one row, computed once."""
    ex = fid_extractor(weights)
    rows: list[int] = []
    real = ex.module.pool3
    monkeypatch.setattr(ex.module, "pool3", lambda c: rows.append(int(c.shape[0])) or real(c))
    ex(poster_like(1, 75, 61, seed=7).float() / 255)
    assert rows == [1]


def test_clean_resize_equals_clean_fid():
    from cleanfid.resize import make_resizer

    from transcreval.features.inception import clean_resize

    resize = make_resizer("PIL", False, "bicubic", (299, 299))
    for h, w, seed in ((512, 384, 0), (120, 90, 1), (299, 299, 2), (310, 1000, 3)):
        img = poster_like(1, h, w, seed=seed)[0]
        ref = resize(img.permute(1, 2, 0).numpy())
        ours = clean_resize(img[None].float())[0].permute(1, 2, 0).numpy()
        assert np.abs(ours - ref).max() < 1e-3, (h, w)


def test_missing_weights_fail_when_built(monkeypatch, tmp_path):
    from transcreval.errors import WeightsNotFoundError

    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    monkeypatch.delenv("TRANSCREVAL_WEIGHTS_DIR", raising=False)
    with pytest.raises(WeightsNotFoundError, match="transcreval weights fetch inception-v3-fid"):
        FID()
    with pytest.raises(InputError, match="neither an existing file"):
        FID(weights="no-such-weights")


# ----------------------------------------------------------------------------- the metric
@functools.cache
def _sets():
    fake = poster_like(8, 72, 56, seed=11)
    real = poster_like(9, 72, 56, seed=12, shift=0.15)
    return fake, real


def _batches():
    fake, real = _sets()
    return [(fake[:3], real[:3]), (fake[3:6], real[3:7]), (fake[6:], real[7:])]


@functools.cache
def _ref_cached(key: tuple, weights: str) -> float:
    fake, real = _sets()
    return reference_fid(fake[list(key[0])], real[list(key[1])], weights)


def _positions(part: torch.Tensor, whole: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(i) for i in range(len(whole)) for p in part if torch.equal(whole[i], p))


@pytest.mark.slow
@pytest.mark.ddp
def test_fid_harness_against_torch_fidelity(weights, ddp_pool):
    """class == function == torch-fidelity (1e-3 relative) per batch and overall; 1/2/4 processes."""
    fake, real = _sets()

    def reference(f, r):
        return _ref_cached((_positions(f, fake), _positions(r, real)), weights)

    case = MetricCase(
        factory=partial(FID, weights=weights),
        functional=partial(fid, weights=weights),
        reference=reference,
        batches=_batches(),
        join=lambda bs: (torch.cat([b[0] for b in bs]), torch.cat([b[1] for b in bs])),
        atol=0.05,  # values near 100: 5e-4 relative
        extras_keys=("n_fake", "n_real"),
    )
    check_metric(case, ddp_pool)


def test_fid_matches_torch_fidelity_and_is_order_invariant(weights):
    fake, real = _sets()
    ref = reference_fid(fake, real, weights)
    assert fid(fake, real, weights=weights).value == pytest.approx(ref, rel=1e-3)
    m = FID(weights=weights)
    # one side at a time (torchmetrics' real=True/False form), in another order and batching
    m.update(real[5:], real=True)
    m.update(fake[4:], real=False)
    m.update(fake[:4], real=False)
    m.update(real[:5], real=True)
    res = m.compute()
    assert res.value == pytest.approx(ref, rel=1e-3)
    assert (res.n, res.extras["n_real"]) == (len(fake), len(real))
    # the float64 states of two halves merged equal one metric over everything (the sync algebra)
    a, b = FID(weights=weights), FID(weights=weights)
    a.update(fake[:4], real[:4])
    b.update(fake[4:], real[4:])
    a.merge_state(b)
    assert a.compute().value == pytest.approx(res.value, rel=1e-9)
    assert m.state_dict()["real_outer"].dtype == torch.float64


def test_fid_identical_sets_fewer_images_than_features(weights):
    fake, _ = _sets()
    assert fid(fake, fake.clone(), weights=weights).value == pytest.approx(0.0, abs=1e-6)
    # 5 images vs 2048 features: rank-deficient covariances, still finite and agreeing
    small = fake[:5]
    other = poster_like(4, 72, 56, seed=99)
    assert fid(small, other, weights=weights).value == pytest.approx(reference_fid(small, other, weights), rel=1e-3)


def test_fid_mixed_sizes_and_paths(weights, tmp_path):
    from PIL import Image

    fake, real = _sets()
    files = []
    for i, img in enumerate(real[:4]):
        p = tmp_path / f"r{i}.png"
        Image.fromarray(img.permute(1, 2, 0).numpy()).resize((40 + 7 * i, 50)).save(p)
        files.append(p)
    mixed = [Image.open(p).convert("RGB") for p in files]
    expect = reference_fid(fake[:4], [torch.from_numpy(np.array(im)).permute(2, 0, 1) for im in mixed], weights)
    assert fid(fake[:4], files, weights=weights).value == pytest.approx(expect, rel=1e-3)


def test_fid_edge_cases_and_bad_input(weights):
    fake, real = _sets()
    m = FID(weights=weights)
    with pytest.raises(EmptyInputError):
        m.compute()
    m.update(fake[:1], real[:3])
    with pytest.raises(UndefinedValueError, match="at least 2"):
        m.compute()
    with pytest.warns(UserWarning, match="undefined"):
        assert not m.forward(fake[1:2], real=False).defined
    with pytest.raises(InputError, match="not both"):
        m.update(fake, real, real=True)
    with pytest.raises(InputError, match="outside"):
        m.update(torch.full((2, 3, 8, 8), 2.0), real[:2])
    with pytest.raises(InputError, match="preprocess"):
        FID(weights=weights, preprocess="bilinear")
    with pytest.raises(InputError, match="needs both sets"):
        fid(fake, None, weights=weights)


def test_reference_saved_reloaded_and_mismatch_refused(weights, tmp_path):
    fake, real = _sets()
    m = FID(weights=weights)
    m.update(real, real=True)
    path = m.save_reference(tmp_path / "real.safetensors")
    ref_metric = FID(weights=weights, reference=path)
    ref_metric.update(fake)
    assert ref_metric.compute().value == pytest.approx(fid(fake, real, weights=weights).value, rel=1e-9)
    with pytest.raises(InputError, match="saved reference"):
        ref_metric.update(fake, real)
    # other preprocessing, or other weights: refused, naming what differs
    with pytest.raises(SignatureMismatchError, match="preprocess"):
        FID(weights=weights, preprocess="clean", reference=path)
    with pytest.raises(SignatureMismatchError, match="weights"):
        FID(weights=inception_file(4), reference=path)
    (tmp_path / "junk.safetensors").write_bytes(b"not a file")
    with pytest.raises(InputError, match="not a readable"):
        FID(weights=weights, reference=tmp_path / "junk.safetensors")


def test_clean_preprocessing_differs_and_is_recorded(weights):
    fake, real = _sets()
    fake, real = fake[:4], real[:4]
    tf = fid(fake, real, weights=weights)
    clean = fid(fake, real, weights=weights, preprocess="clean")
    assert "pp:clean" in str(clean.signature) and "pp:torch-fidelity" in str(tf.signature)
    assert clean.value != tf.value and clean.value == pytest.approx(tf.value, rel=0.2)


def test_fid_gt_and_fid_src_share_the_outputs_features(weights):
    from transcreval.core.collection import MetricCollection
    from transcreval.features.extractor import feature_scope

    fake, real = _sets()
    fake, real = fake[:4], real[:4]
    src = poster_like(4, 72, 56, seed=13, shift=-0.1)
    coll = MetricCollection({"FID_GT": FID(weights=weights), "FID_SRC": FID(weights=weights, real_from="source")})
    ext = fid_extractor(weights)
    ext.stats.reset()
    with feature_scope():  # a collection opens one per update
        coll.update(fake, real, source=src)
    assert ext.stats.images_computed == len(fake) + len(real) + len(src)
    out = coll.compute()
    assert out["FID_GT"].value == pytest.approx(fid(fake, real, weights=weights).value, rel=1e-9)
    assert out["FID_SRC"].value == pytest.approx(fid(fake, src, weights=weights).value, rel=1e-9)
