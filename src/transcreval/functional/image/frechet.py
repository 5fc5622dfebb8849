"""The Frechet distance between two Gaussians, from float64 moment sums (FID's core).

``d^2 = |mu1 - mu2|^2 + tr(S1) + tr(S2) - 2 tr((S1 S2)^(1/2))``.

The trace of the matrix square root is computed from symmetric eigendecompositions only:
with ``S1 = V diag(l) V^T`` (negative rounding-level eigenvalues clamped to 0) and
``W = V diag(sqrt(l))``, the eigenvalues of ``S1 S2`` are those of the symmetric PSD matrix
``W^T S2 W``, so ``tr((S1 S2)^(1/2)) = sum sqrt(eigvalsh(W^T S2 W))``. Only the columns of
``W`` with ``l > 0`` matter, so when ``S1`` has rank r < d (fewer images than features) the
second decomposition is r x r. No complex arithmetic, no ``sqrtm`` (the form scipy/clean-fid
use, and the non-symmetric ``eigvals(S1 S2)`` torch-fidelity and torchmetrics use, are the
test references). Everything runs in float64 on the device of the inputs (a GPU when the
states live there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from transcreval.errors import InputError

if TYPE_CHECKING:
    import torch

__all__ = ["PSD_RTOL", "check_psd", "frechet_distance", "gaussian_from_moments", "moments", "trace_sqrt_product"]


def _f64(x: Any, what: str, device: Any = None) -> torch.Tensor:
    import torch

    t = torch.as_tensor(x) if not isinstance(x, torch.Tensor) else x
    if t.is_complex() or not (t.is_floating_point() or t.dtype in (torch.int32, torch.int64)):
        raise InputError(f"{what} must be a real array, got dtype {t.dtype}")
    t = t.to(device=device if device is not None else t.device, dtype=torch.float64)
    if not bool(torch.isfinite(t).all()):
        raise InputError(f"{what} contains NaN or infinite values")
    return t


def moments(features: torch.Tensor) -> dict[str, torch.Tensor]:
    """float64 sufficient statistics of feature rows: ``n`` (int64), ``sum`` (d), ``outer`` (d x d)."""
    import torch

    if features.ndim != 2:
        raise InputError(f"features must be N x d, got shape {tuple(features.shape)}")
    f = features.to(torch.float64)
    return {
        "n": torch.tensor(int(f.shape[0]), dtype=torch.int64),
        "sum": f.sum(dim=0),
        "outer": f.T @ f,
    }


def gaussian_from_moments(n: Any, s: torch.Tensor, ss: torch.Tensor, what: str = "a set") -> tuple[Any, Any]:
    """Mean and unbiased covariance (``np.cov``'s ``ddof=1``) from ``n``, ``sum x``, ``sum x x^T``."""
    from transcreval.errors import UndefinedValueError

    n = int(n)
    if n < 2:
        raise UndefinedValueError(f"FID needs at least 2 images in {what} for a covariance, got {n}")
    mu = s / n
    sigma = (ss - n * mu[:, None] * mu[None, :]) / (n - 1)
    return mu, (sigma + sigma.T) / 2


def _eigvalsh(a: torch.Tensor) -> torch.Tensor:
    import torch

    if a.device.type == "cpu":  # LAPACK through scipy is several times faster than torch's here
        import scipy.linalg

        # LAPACK's dsyevr reads one triangle only; ``a`` is a temporary, so it may be overwritten
        w = scipy.linalg.eigh(a.numpy(), eigvals_only=True, driver="evr", overwrite_a=True, check_finite=False)
        return torch.from_numpy(w)
    return torch.linalg.eigvalsh(a)


def _low_rank_factor(a: torch.Tensor) -> torch.Tensor:
    """``F`` (d x r) with ``a = F F^T`` for a PSD ``a`` of rank r: LAPACK's pivoted Cholesky
    (``?pstrf``, O(d r^2)) on the CPU, the eigendecomposition over positive eigenvalues elsewhere."""
    import torch

    if a.device.type == "cpu":
        import numpy as np
        from scipy.linalg import lapack

        c, piv, rank, info = lapack.dpstrf(a.numpy(), lower=1)
        if info < 0:  # pragma: no cover - LAPACK argument error
            raise RuntimeError(f"LAPACK dpstrf failed (info={info})")
        low = np.tril(c)[:, :rank]
        f = np.empty_like(low)
        f[piv - 1] = low  # undo the pivoting: a = P L L^T P^T
        return torch.from_numpy(f)
    l1, v1 = torch.linalg.eigh(a)
    keep = l1 > l1.abs().max() * a.shape[0] * torch.finfo(a.dtype).eps
    return v1[:, keep] * l1[keep].sqrt()


def _congruence(low: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``L^T B L`` for a lower-triangular ``L`` and a symmetric ``B``: on the CPU two BLAS
    triangular products (``dtrmm``, half the flops of the two general products)."""
    import torch

    if low.device.type != "cpu":
        return low.T @ b @ low
    from scipy.linalg import blas

    # Transposed numpy views are Fortran-ordered, as BLAS wants: U = L^T (upper), and B^T = B.
    u = low.contiguous().numpy().T
    g = blas.dtrmm(1.0, u, b.contiguous().numpy().T, side=1, lower=0, trans_a=1)  # B L = B U^T
    return torch.from_numpy(blas.dtrmm(1.0, u, g, lower=0, overwrite_b=1))  # U (B L) = L^T B L


def trace_sqrt_product(sigma1: torch.Tensor, sigma2: torch.Tensor) -> torch.Tensor:
    """``tr((S1 S2)^(1/2))`` for symmetric PSD S1, S2 (float64 tensors on one device).

    With a factor ``S1 = F F^T`` the eigenvalues of ``S1 S2`` are those of the symmetric PSD
    ``F^T S2 F``, so the trace is ``sum sqrt(eigvalsh(F^T S2 F))``. ``F`` is the Cholesky factor
    when ``S1`` (or, swapping the two, ``S2``) is positive definite; when both are
    rank-deficient (fewer images than features in both sets) it is a d x r factor over the
    positive part of ``S1`` (pivoted Cholesky on the CPU, eigendecomposition on GPUs), and the
    second solve is only r x r.
    """
    import torch

    chol: torch.Tensor | None = None
    for a, b in ((sigma1, sigma2), (sigma2, sigma1)):
        chol, info = torch.linalg.cholesky_ex(a)
        if int(info) == 0:
            f, other = chol, b
            break
    else:
        f, other = _low_rank_factor(sigma1).to(sigma1.device), sigma2
        chol = None
    m = _congruence(f, other) if chol is not None else f.T @ other @ f
    return _eigvalsh(m).clamp_min(0).sqrt().sum().to(sigma1.device)  # reads one triangle of m


def frechet_distance(mu1: Any, sigma1: Any, mu2: Any, sigma2: Any) -> float:
    """Squared Frechet distance between N(mu1, sigma1) and N(mu2, sigma2) (FID's formula).

    Inputs are numpy arrays or tensors (any float dtype; computed in float64 on the device of
    ``sigma1`` when it is a tensor). Covariances must be symmetric positive semi-definite (a
    sample covariance of fewer points than dimensions is fine). Rounding can leave a value a
    hair below 0 for identical Gaussians: it is clamped to 0. A covariance with an eigenvalue
    clearly below 0 (beyond rounding, :data:`PSD_RTOL` relative) raises InputError.
    """
    import torch

    dev = sigma1.device if isinstance(sigma1, torch.Tensor) else None
    m1, m2 = _f64(mu1, "mu1", dev), _f64(mu2, "mu2", dev)
    s1, s2 = _f64(sigma1, "sigma1", dev), _f64(sigma2, "sigma2", dev)
    if m1.ndim != 1 or m1.shape != m2.shape:
        raise InputError(f"mu1 and mu2 must be vectors of one length, got {tuple(m1.shape)} and {tuple(m2.shape)}")
    d = m1.shape[0]
    for name, s in (("sigma1", s1), ("sigma2", s2)):
        if tuple(s.shape) != (d, d):
            raise InputError(f"{name} must be {d} x {d} to match the means, got {tuple(s.shape)}")
        asym = float((s - s.T).abs().max())
        if asym > 1e-6 * max(1.0, float(s.abs().max())):
            raise InputError(f"{name} is not symmetric (max |S - S^T| = {asym:g}): pass a covariance matrix")
    s1, s2 = (s1 + s1.T) / 2, (s2 + s2.T) / 2
    check_psd(s1, m1, "sigma1")
    check_psd(s2, m2, "sigma2")
    diff = m1 - m2
    value = float(diff @ diff + torch.trace(s1) + torch.trace(s2) - 2 * trace_sqrt_product(s1, s2))
    scale = float(diff @ diff + torch.trace(s1) + torch.trace(s2))
    if value < -PSD_RTOL * max(scale, 1.0):  # pragma: no cover - PSD inputs cannot get here
        raise InputError(f"the Frechet distance came out clearly negative ({value:g}): the covariances are not PSD")
    return max(value, 0.0)


#: relative tolerance for a covariance's negative eigenvalues (rounding), relative to the
#: largest second moment ``max_i (S_ii, mu_i^2)`` (moment sums lose precision to the mean)
PSD_RTOL = 1e-6


def check_psd(sigma: torch.Tensor, mu: torch.Tensor, what: str) -> None:
    """InputError unless ``sigma`` is positive semi-definite up to rounding: one Cholesky of
    ``sigma + PSD_RTOL * scale * I`` succeeds exactly when no eigenvalue is below
    ``-PSD_RTOL * scale`` (``scale`` the largest of ``|S_ii|`` and ``mu_i^2``). Sample
    covariances of few points (rank-deficient, eigenvalues 0 up to rounding) pass."""
    import torch

    if sigma.shape[0] == 0:
        return
    scale = max(float(sigma.diagonal().abs().max()), float((mu * mu).max()))
    shift = PSD_RTOL * scale + torch.finfo(torch.float64).tiny ** 0.5
    eye = torch.eye(sigma.shape[0], dtype=sigma.dtype, device=sigma.device)
    _, info = torch.linalg.cholesky_ex(sigma + shift * eye)
    if int(info) != 0:
        low = float(sigma.diagonal().min())
        raise InputError(
            f"{what} is not positive semi-definite (an eigenvalue below -{PSD_RTOL:g} x its scale {scale:g}; "
            f"smallest diagonal entry {low:g}): pass a covariance matrix (e.g. np.cov of the features), "
            "or check a saved reference for corruption"
        )
