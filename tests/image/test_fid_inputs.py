"""FID hardening: corrupt or inconsistent reference files, non-PSD
covariances, states from an FID with other weights, empty tensor batches, and float inputs
quantised as ``round(x * 255)`` (checked against torch-fidelity on those uint8 images)."""

from __future__ import annotations

import io

import numpy as np
import pytest
import scipy.linalg
import torch
from safetensors import safe_open
from safetensors.torch import save_file

from tests._helpers.model_weights import inception_file, poster_like, reference_fid
from transcreval.errors import EmptyInputError, InputError, SignatureMismatchError
from transcreval.functional.image.fid import fid, fid_extractor
from transcreval.functional.image.frechet import frechet_distance, gaussian_from_moments, moments
from transcreval.image.fid import FID


@pytest.fixture(scope="module")
def weights() -> str:
    return inception_file(3)


@pytest.fixture(scope="module")
def sets():
    return poster_like(5, 72, 56, seed=11), poster_like(5, 72, 56, seed=12, shift=0.15)


@pytest.fixture(scope="module")
def saved(weights, sets, tmp_path_factory):
    """A good reference file: (path, its tensors, its metadata)."""
    m = FID(weights=weights)
    m.update(sets[1], real=True)
    path = m.save_reference(tmp_path_factory.mktemp("ref") / "real.safetensors")
    with safe_open(str(path), framework="pt") as f:
        return path, {k: f.get_tensor(k) for k in f.keys()}, dict(f.metadata())  # noqa: SIM118


def _variant(saved, tmp_path, tensors=None, **meta):
    _, tens, md = saved
    md = dict(md)
    for k, v in meta.items():
        if v is None:
            md.pop(k)
        else:
            md[k] = v
    path = tmp_path / "variant.safetensors"
    save_file(tensors or tens, str(path), metadata=md)
    return path


@pytest.mark.parametrize("identity", ["{not json", None, "[]", '"text"'])
def test_corrupt_identity_metadata_is_an_input_error(weights, saved, tmp_path, identity):
    with pytest.raises(InputError, match="bad identity metadata"):
        FID(weights=weights, reference=_variant(saved, tmp_path, identity=identity))


def test_inconsistent_image_count_is_refused(weights, saved, tmp_path):
    with pytest.raises(InputError, match="inconsistent"):
        FID(weights=weights, reference=_variant(saved, tmp_path, n="999"))
    tens = dict(saved[1])
    tens["n"] = torch.tensor([2.5], dtype=torch.float64)
    with pytest.raises(InputError, match="inconsistent"):
        FID(weights=weights, reference=_variant(saved, tmp_path, tensors=tens, n="2"))
    tens["n"] = torch.tensor([5, 5], dtype=torch.int64)
    with pytest.raises(InputError, match="inconsistent"):
        FID(weights=weights, reference=_variant(saved, tmp_path, tensors=tens))
    # the untouched file loads
    assert FID(weights=weights, reference=_variant(saved, tmp_path)).reference_path


def test_negated_reference_covariance_raises_instead_of_zero(weights, sets, saved, tmp_path):
    tens = dict(saved[1])
    tens["outer"] = -tens["outer"]
    m = FID(weights=weights, reference=_variant(saved, tmp_path, tensors=tens))
    m.update(sets[0])
    with pytest.raises(InputError, match="not positive semi-definite"):
        m.compute()


def test_non_psd_covariances_raise():
    eye, zero = np.eye(6), np.zeros(6)
    for s1, s2 in ((-eye, -eye), (-eye, eye), (eye, -eye)):
        with pytest.raises(InputError, match="not positive semi-definite"):
            frechet_distance(zero, s1, zero, s2)
    # one clearly negative eigenvalue in an otherwise PSD matrix
    q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((6, 6)))
    bad = q @ np.diag([1.0, 1, 1, 1, 1, -1e-3]) @ q.T
    with pytest.raises(InputError, match="sigma2"):
        frechet_distance(zero, eye, zero, bad)


def _sqrtm_form(mu1, s1, mu2, s2) -> float:
    covmean = scipy.linalg.sqrtm(s1 @ s2).real
    d = mu1 - mu2
    return float(d @ d + np.trace(s1) + np.trace(s2) - 2 * np.trace(covmean))


def test_few_sample_covariances_still_pass(weights, sets):
    """Real rank-deficient covariances: Inception pool features (2048-d) of 2, 3 and 5 images,
    their moments as FID accumulates them, and a float32-rounded np.cov; rounding leaves
    eigenvalues a hair below 0 and they must not be refused."""
    ext = fid_extractor(weights)
    feats = ext(torch.cat(sets).float() / 255)["pool3"].double()
    for n in (2, 3, 5):
        a, b = feats[:n], feats[5 : 5 + n]
        ga = gaussian_from_moments(**dict(zip(("n", "s", "ss"), moments(a).values())))
        gb = gaussian_from_moments(**dict(zip(("n", "s", "ss"), moments(b).values())))
        assert float(torch.linalg.eigvalsh(ga[1]).min()) < 0  # rounding really is there
        assert frechet_distance(*ga, *gb) >= 0
        assert frechet_distance(*ga, *ga) == pytest.approx(0.0, abs=1e-6)
    # float32 covariances of few samples (what a user may load from an .npz)
    x = feats[:5].numpy()
    s32 = np.cov(x, rowvar=False).astype(np.float32)
    mu = x.mean(0)
    assert frechet_distance(mu, s32, mu + 0.01, s32) == pytest.approx(2048 * 1e-4, rel=1e-3)
    # constant images: covariance zero up to rounding of the moment sums
    const = feats[:1].repeat(4, 1) + 0.0
    g = gaussian_from_moments(**dict(zip(("n", "s", "ss"), moments(const).values())))
    assert frechet_distance(*g, *g) == pytest.approx(0.0, abs=1e-9)
    # and a well-conditioned low-dimensional case still equals the sqrtm form
    rng = np.random.default_rng(3)
    p, q = rng.standard_normal((40, 16)), rng.standard_normal((30, 16)) + 0.1
    args = (p.mean(0), np.cov(p, rowvar=False), q.mean(0), np.cov(q, rowvar=False))
    assert frechet_distance(*args) == pytest.approx(_sqrtm_form(*args), rel=1e-6)


def test_states_from_an_fid_with_other_weights_are_refused(weights, sets):
    fake, real = sets
    m = FID(weights=weights)
    m.update(fake, real)
    value = m.compute().value
    # refused when loaded, since every metric's states carry its options
    other = FID(weights=inception_file(4))
    with pytest.raises(SignatureMismatchError, match="other options"):
        other.load_state_dict(m.state_dict())
    clean = FID(weights=weights, preprocess="clean")
    with pytest.raises(SignatureMismatchError):
        clean.load_state_dict(m.state_dict())
    # a mapping merged from other weights is caught too
    mixed = FID(weights=inception_file(4))
    mixed.update(fake, real)
    with pytest.raises(SignatureMismatchError):
        mixed.merge_state(m.state_dict())
    # the same settings: through torch.save as well
    buf = io.BytesIO()
    torch.save(m.state_dict(), buf)
    buf.seek(0)
    same = FID(weights=weights)
    same.load_state_dict(torch.load(buf, weights_only=True))
    assert same.compute().value == value


def test_empty_tensor_batch_is_an_empty_input_error(weights, sets):
    fake, real = sets
    with pytest.raises(EmptyInputError, match="generated images"):
        fid(fake[:0], real, weights=weights)
    with pytest.raises(EmptyInputError, match="empty batch"):
        FID(weights=weights).update(fake[:0], real=False)
    with pytest.raises(EmptyInputError):
        fid(fake.numpy()[:0], real, weights=weights)


def test_float_inputs_are_rounded_as_documented(weights, sets):
    """docs/metrics/FID.md: float images are quantised as round(x * 255) (torchmetrics'
    normalize=True truncates instead). Non-quantised floats equal torch-fidelity on those
    uint8 images."""
    g = torch.Generator().manual_seed(5)
    fake = (sets[0].float() + torch.rand(sets[0].shape, generator=g) - 0.5).clamp(0, 255) / 255
    real = (sets[1].float() + torch.rand(sets[1].shape, generator=g) - 0.5).clamp(0, 255) / 255
    assert bool(((fake * 255) != (fake * 255).round()).any())
    expect = reference_fid((fake * 255).round().byte(), (real * 255).round().byte(), weights)
    assert fid(fake, real, weights=weights).value == pytest.approx(expect, rel=1e-5)
    truncated = reference_fid((fake * 255).byte(), (real * 255).byte(), weights)
    assert truncated != pytest.approx(expect, rel=1e-5)
