"""PolyBench-style linear algebra: the kernels of PolyBench/C 4.2's descriptions,
written the way NumPy users write them (matmul where the loop nest is a product,
row loops where the algorithm is sequential); and a sparse matrix-vector product in
ELLPACK form (a gather)."""

import numpy as np

from benchmarks.corpus import pick, program


def _mats(rng, *shapes):
    return tuple(rng.random(s) for s in shapes)


def init_gemm(size, rng):
    ni, nj, nk = pick(size, (6, 7, 8), (400, 450, 500))
    c, a, b = _mats(rng, (ni, nj), (ni, nk), (nk, nj))
    return 1.5, 1.2, c, a, b


@program("linalg", init_gemm)
def gemm(alpha, beta, C, A, B):
    C *= beta
    C += alpha * A @ B


def init_gemver(size, rng):
    n = pick(size, 8, 2000)
    A = rng.random((n, n))
    u1, v1, u2, v2, w, x, y, z = (rng.random(n) for _ in range(8))
    return 1.5, 1.2, A, u1, v1, u2, v2, w, x, y, z


@program("linalg", init_gemver)
def gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * y @ A + z
    w += alpha * A @ x


def init_gesummv(size, rng):
    n = pick(size, 8, 2000)
    A, B = _mats(rng, (n, n), (n, n))
    return 1.5, 1.2, A, B, rng.random(n)


@program("linalg", init_gesummv)
def gesummv(alpha, beta, A, B, x):
    return alpha * A @ x + beta * B @ x


def init_atax(size, rng):
    m, n = pick(size, (7, 9), (1900, 2100))
    return rng.random((m, n)) / n, rng.random(n)


@program("linalg", init_atax)
def atax(A, x):
    return (A @ x) @ A


def init_bicg(size, rng):
    m, n = pick(size, (9, 7), (2100, 1900))
    return rng.random((n, m)), rng.random(m), rng.random(n)


@program("linalg", init_bicg)
def bicg(A, p, r):
    return r @ A, A @ p


def init_mvt(size, rng):
    n = pick(size, 8, 2000)
    return _mats(rng, (n, n), n, n, n, n)


@program("linalg", init_mvt)
def mvt(A, x1, x2, y1, y2):
    x1 += A @ y1
    x2 += y2 @ A


def init_syrk(size, rng):
    n, m = pick(size, (6, 5), (240, 200))
    C, A = _mats(rng, (n, n), (n, m))
    return 1.5, 1.2, C, A


@program("linalg", init_syrk)
def syrk(alpha, beta, C, A):
    # lower triangle only, one row at a time, as PolyBench's loop nest does
    for i in range(A.shape[0]):
        C[i, : i + 1] *= beta
        C[i, : i + 1] += alpha * A[: i + 1] @ A[i]


def init_syr2k(size, rng):
    n, m = pick(size, (6, 5), (500, 400))
    C, A, B = _mats(rng, (n, n), (n, m), (n, m))
    return 1.5, 1.2, C, A, B


@program("linalg", init_syr2k)
def syr2k(alpha, beta, C, A, B):
    n = C.shape[0]
    lower = np.arange(n)[:, None] >= np.arange(n)[None, :]
    update = beta * C + alpha * (A @ B.T + B @ A.T)
    C[...] = np.where(lower, update, C)


def init_symm(size, rng):
    m, n = pick(size, (6, 7), (500, 600))
    C, A, B = _mats(rng, (m, n), (m, m), (m, n))
    return 1.5, 1.2, C, A, B


@program("linalg", init_symm)
def symm(alpha, beta, C, A, B):
    # A is symmetric, only its lower triangle is meaningful
    m = A.shape[0]
    lower = np.arange(m)[:, None] >= np.arange(m)[None, :]
    full = np.where(lower, A, A.T)
    C[...] = beta * C + alpha * (full @ B)


def init_trmm(size, rng):
    m, n = pick(size, (6, 7), (250, 300))
    A, B = _mats(rng, (m, m), (m, n))
    return 1.5, A, B


@program("linalg", init_trmm)
def trmm(alpha, A, B):
    # B := alpha * A^T B with A unit lower triangular; rows below i are still old
    for i in range(B.shape[0]):
        B[i] += A[i + 1 :, i] @ B[i + 1 :]
    B *= alpha


def init_doitgen(size, rng):
    nr, nq, npp = pick(size, (3, 4, 5), (50, 40, 160))
    return _mats(rng, (nr, nq, npp), (npp, npp))


@program("linalg", init_doitgen)
def doitgen(A, C4):
    for r in range(A.shape[0]):
        A[r] = A[r] @ C4


def init_data(size, rng):
    n, m = pick(size, (10, 6), (3000, 500))
    return (rng.random((n, m)) * 10.0,)


@program("linalg", init_data)
def covariance(data):
    n = data.shape[0]
    mean = data.mean(axis=0)
    data -= mean
    return data.T @ data / (n - 1.0)


@program("linalg", init_data)
def correlation(data):
    n = data.shape[0]
    eps = 0.1
    mean = np.mean(data, axis=0)
    stddev = np.sqrt(np.mean((data - mean) ** 2, axis=0))
    stddev[stddev <= eps] = 1.0
    data -= mean
    data /= np.sqrt(n) * stddev
    corr = data.T @ data
    np.fill_diagonal(corr, 1.0)
    return corr


def init_2mm(size, rng):
    ni, nj, nk, nl = pick(size, (5, 6, 7, 8), (400, 450, 500, 550))
    A, B, C, D = _mats(rng, (ni, nk), (nk, nj), (nj, nl), (ni, nl))
    return 1.5, 1.2, A, B, C, D


@program("linalg", init_2mm, name="2mm")
def k2mm(alpha, beta, A, B, C, D):
    tmp = alpha * A @ B
    D *= beta
    D += tmp @ C


def init_3mm(size, rng):
    ni, nj, nk, nl, nm = pick(size, (5, 6, 7, 8, 9), (400, 450, 500, 550, 600))
    return _mats(rng, (ni, nk), (nk, nj), (nj, nm), (nm, nl))


@program("linalg", init_3mm, name="3mm")
def k3mm(A, B, C, D):
    E = A @ B
    F = C @ D
    return E @ F


def _spd(rng, n):
    a = rng.random((n, n))
    return a @ a.T / n + np.eye(n)


def init_lu(size, rng):
    n = pick(size, 8, 120)
    return (_spd(rng, n),)


@program("linalg", init_lu)
def lu(A):
    # Doolittle, no pivoting, in place: L below the diagonal (unit), U on and above
    n = A.shape[0]
    for k in range(n - 1):
        A[k + 1 :, k] /= A[k, k]
        A[k + 1 :, k + 1 :] -= np.outer(A[k + 1 :, k], A[k, k + 1 :])


@program("linalg", init_lu)
def cholesky(A):
    # lower-triangular factor, column by column (the upper part is left alone)
    n = A.shape[0]
    for j in range(n):
        A[j, j] = np.sqrt(A[j, j] - A[j, :j] @ A[j, :j])
        A[j + 1 :, j] = (A[j + 1 :, j] - A[j + 1 :, :j] @ A[j, :j]) / A[j, j]


def init_gramschmidt(size, rng):
    m, n = pick(size, (8, 6), (240, 100))
    return (rng.random((m, n)) + np.eye(m, n),)


@program("linalg", init_gramschmidt)
def gramschmidt(A):
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    for k in range(n):
        nrm = np.sqrt(A[:, k] @ A[:, k])
        R[k, k] = nrm
        Q[:, k] = A[:, k] / nrm
        R[k, k + 1 :] = Q[:, k] @ A[:, k + 1 :]
        A[:, k + 1 :] -= np.outer(Q[:, k], R[k, k + 1 :])
    return Q, R


def init_trisolv(size, rng):
    n = pick(size, 8, 300)
    L = np.tril(rng.random((n, n))) + n * np.eye(n)
    return L, rng.random(n), np.zeros(n)


@program("linalg", init_trisolv)
def trisolv(L, b, x):
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


def init_power(size, rng):
    n, iters = pick(size, (8, 3), (1500, 20))
    a = rng.random((n, n))
    return a + a.T, rng.random(n), iters


@program("linalg", init_power)
def power_iteration(A, v, iters):
    lam = 0.0
    for _ in range(iters):
        w = A @ v
        lam = v @ w
        v = w / np.sqrt(np.sum(w * w))
    return lam, v


def init_ell(size, rng):
    n, k = pick(size, (10, 3), (200_000, 8))
    cols = rng.integers(0, n, (n, k))
    vals = rng.standard_normal((n, k))
    vals[rng.random((n, k)) < 0.25] = 0.0  # padding of rows with fewer entries
    return vals, cols, rng.standard_normal(n)


@program("linalg", init_ell)
def ell_spmv(vals, cols, x):
    # sparse matrix-vector product in ELLPACK form: a gather of x by column index;
    # then the density of the matrix from a mask
    y = (vals * x[cols]).sum(axis=1)
    nnz = np.count_nonzero(vals)
    return y, nnz / vals.size


# ----------------------------------------------------------------------------- np.linalg (LAPACK)


def init_polyfit(size, rng):
    m, deg = pick(size, (30, 3), (20_000, 8))
    x = np.linspace(-1.0, 1.0, m)
    y = np.cos(3 * x) + 0.01 * rng.standard_normal(m)
    return x, y, deg


@program("linalg", init_polyfit)
def polyfit_lstsq(x, y, deg):
    # least-squares polynomial fit on a Vandermonde matrix, and the fitted curve
    V = x[:, None] ** np.arange(deg + 1)
    coef, residuals, rank, sv = np.linalg.lstsq(V, y, rcond=None)
    return coef, V @ coef, sv[0] / sv[-1]


def init_power(size, rng):
    n = pick(size, 12, 1500)
    a = rng.standard_normal((n, n))
    return a + a.T, np.ones(n)


@program("linalg", init_power)
def power_iter_norm(A, v):
    # dominant eigenpair of a symmetric matrix, normalized with np.linalg.norm
    for _ in range(20):
        w = A @ v
        v = w / np.linalg.norm(w)
    return v @ A @ v, v


def init_ridge(size, rng):
    m, n = pick(size, (40, 5), (20_000, 300))
    X = rng.standard_normal((m, n))
    return X, X @ rng.standard_normal(n) + 0.1 * rng.standard_normal(m), 0.5


@program("linalg", init_ridge)
def ridge_cholesky(X, y, lam):
    # ridge regression through the normal equations, solved with a Cholesky factor
    G = X.T @ X + lam * np.eye(X.shape[1])
    L = np.linalg.cholesky(G)
    z = np.linalg.solve(L, X.T @ y)
    return np.linalg.solve(L.T, z)


def init_gram_schmidt(size, rng):
    m, n = pick(size, (10, 4), (4000, 24))
    return (rng.standard_normal((m, n)),)


@program("linalg", init_gram_schmidt)
def gram_schmidt(A):
    # modified Gram-Schmidt orthonormalization: A = Q R
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    for j in range(n):
        v = A[:, j]
        for i in range(j):
            R[i, j] = Q[:, i] @ v
            v = v - R[i, j] * Q[:, i]
        R[j, j] = np.linalg.norm(v)
        Q[:, j] = v / R[j, j]
    return Q, R


def init_gaussian(size, rng):
    n, d = pick(size, (50, 3), (100_000, 16))
    x = rng.standard_normal((n, d))
    mix = rng.standard_normal((d, d))
    return x @ mix, np.zeros(d)


@program("linalg", init_gaussian)
def gaussian_loglik(X, mu):
    # log-likelihood of samples under a Gaussian fitted to them: covariance,
    # log-determinant and Mahalanobis distances through solve
    d = X.shape[1]
    centered = X - X.mean(axis=0)
    cov = centered.T @ centered / (X.shape[0] - 1)
    sign, logdet = np.linalg.slogdet(cov)
    diff = X - mu
    maha = np.sum(diff * np.linalg.solve(cov, diff.T).T, axis=1)
    return -0.5 * (d * np.log(2 * np.pi) + logdet + maha), np.linalg.inv(cov)


def init_kalman(size, rng):
    n, s = pick(size, (5, 4), (20_000, 6))
    F = np.eye(s) + 0.1 * rng.standard_normal((s, s))
    A = rng.standard_normal((n, s, s))
    return rng.standard_normal((n, s)), A @ A.transpose(0, 2, 1), F, 0.01 * np.eye(s)


@program("linalg", init_kalman)
def kalman_predict(x, P, F, Q):
    # the predict step of a Kalman filter for many independent tracks: states (n, s),
    # covariances (n, s, s), one motion model F for all
    return x @ F.T, F @ P @ F.T + Q
