"""Others: Mandelbrot with a fixed iteration count (real arithmetic and complex),
Conway's game of life (np.roll and padded slicing), smoothing, Horner's rule, the
Rosenbrock gradient, a CSR sparse matrix-vector product; ranks and order statistics:
column ranks (argsort and a scatter), the top k of each row (argsort, take_along_axis),
a trimmed mean (a sort) and interquartile ranges (percentiles)."""

import numpy as np

from benchmarks.corpus import pick, program


def init_mandel(size, rng):
    h, w, iters = pick(size, (6, 8, 5), (400, 600, 30))
    return np.linspace(-2.0, 0.6, w), np.linspace(-1.2, 1.2, h), iters


@program("other", init_mandel)
def mandelbrot(xs, ys, maxiter):
    cr = xs[None, :] + np.zeros_like(ys)[:, None]
    ci = ys[:, None] + np.zeros_like(xs)[None, :]
    zr = np.zeros_like(cr)
    zi = np.zeros_like(cr)
    counts = np.zeros(cr.shape, dtype=np.int64)
    for _ in range(maxiter):
        inside = zr * zr + zi * zi <= 4.0
        counts += inside
        zr, zi = np.where(inside, zr * zr - zi * zi + cr, zr), np.where(inside, 2.0 * zr * zi + ci, zi)
    return counts


@program("other", init_mandel)
def mandelbrot_complex(xs, ys, maxiter):
    c = xs[None, :] + 1j * ys[:, None]
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int32)
    for _ in range(maxiter):
        inside = np.abs(z) <= 2.0
        z = np.where(inside, z * z + c, z)
        counts += inside
    return counts


def init_life(size, rng):
    n, steps = pick(size, (8, 2), (500, 10))
    return (rng.random((n, n)) < 0.3).astype(np.int64), steps


@program("other", init_life)
def life_roll(grid, steps):
    # periodic board
    for _ in range(steps):
        neighbors = (
            np.roll(grid, 1, axis=0)
            + np.roll(grid, -1, axis=0)
            + np.roll(grid, 1, axis=1)
            + np.roll(grid, -1, axis=1)
            + np.roll(np.roll(grid, 1, axis=0), 1, axis=1)
            + np.roll(np.roll(grid, 1, axis=0), -1, axis=1)
            + np.roll(np.roll(grid, -1, axis=0), 1, axis=1)
            + np.roll(np.roll(grid, -1, axis=0), -1, axis=1)
        )
        grid = ((neighbors == 3) | ((grid == 1) & (neighbors == 2))).astype(np.int64)
    return grid


def init_life_bool(size, rng):
    n, steps = pick(size, (8, 2), (1000, 10))
    return rng.random((n, n)) < 0.3, steps


@program("other", init_life_bool)
def life_slices(board, steps):
    # dead border: count neighbours of the interior by slicing, update in place
    for _ in range(steps):
        b = board.astype(np.int32)
        n = b[:-2, :-2] + b[:-2, 1:-1] + b[:-2, 2:] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, :-2] + b[2:, 1:-1] + b[2:, 2:]
        alive = board[1:-1, 1:-1]
        board[1:-1, 1:-1] = (n == 3) | (alive & (n == 2))


def init_smooth(size, rng):
    n, passes = pick(size, (20, 2), (500_000, 10))
    return np.cumsum(rng.standard_normal(n)), passes


@program("other", init_smooth)
def smooth(y, passes):
    # repeated [1 4 6 4 1]/16 binomial smoothing, ends held fixed
    out = y.copy()
    tmp = np.empty_like(y)
    for _ in range(passes):
        tmp[2:-2] = (out[:-4] + 4.0 * out[1:-3] + 6.0 * out[2:-2] + 4.0 * out[3:-1] + out[4:]) / 16.0
        out[2:-2] = tmp[2:-2]
    return out


def init_horner(size, rng):
    n = pick(size, 20, 1_000_000)
    return rng.uniform(-1.0, 1.0, n).astype(np.float32), rng.standard_normal(pick(size, 5, 12))


@program("other", init_horner)
def horner(x, coeffs):
    # coeffs[0] is the highest power
    y = np.zeros_like(x)
    for c in coeffs:
        y = y * x + c
    return y


def init_rosen(size, rng):
    n = pick(size, 12, 1_000_000)
    return (rng.uniform(-2.0, 2.0, n),)


@program("other", init_rosen)
def rosenbrock_grad(x):
    f = np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    g = np.zeros_like(x)
    g[1:-1] = 200.0 * (x[1:-1] - x[:-2] ** 2) - 400.0 * x[1:-1] * (x[2:] - x[1:-1] ** 2) - 2.0 * (1.0 - x[1:-1])
    g[0] = -400.0 * x[0] * (x[1] - x[0] ** 2) - 2.0 * (1.0 - x[0])
    g[-1] = 200.0 * (x[-1] - x[-2] ** 2)
    return f, g


def init_csr(size, rng):
    n, per_row = pick(size, (6, 3), (2000, 16))
    indptr = np.arange(0, n * per_row + 1, per_row)
    indices = np.sort(rng.integers(0, n, (n, per_row)), axis=1).ravel()
    return rng.standard_normal(n * per_row), indices, indptr, rng.standard_normal(n)


@program("other", init_csr)
def spmv_csr(data, indices, indptr, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        start = indptr[i]
        end = indptr[i + 1]
        y[i] = data[start:end] @ x[indices[start:end]]
    return y


def init_cumulative(size, rng):
    n = pick(size, 30, 1_000_000)
    return (rng.standard_normal(n),)


@program("other", init_cumulative)
def running_stats(x):
    # running mean and the normalised deviation from it
    n = np.arange(1, x.shape[0] + 1)
    mean = np.cumsum(x) / n
    dev = (x - mean) / (np.abs(mean) + 1.0)
    return mean, dev, np.max(np.abs(dev))


# --- sorting-based statistics (issue 12: np.median, np.percentile, np.argsort)


def init_robust(size, rng):
    rows, cols = pick(size, (6, 9), (256, 2048))
    x = rng.standard_normal((rows, cols))
    x[:, ::97] += 40.0  # outliers
    return (x,)


@program("other", init_robust)
def robust_zscore(x):
    # median absolute deviation per row, and the data winsorized at its 1st/99th percentiles
    med = np.median(x, axis=1, keepdims=True)
    mad = np.median(np.abs(x - med), axis=1, keepdims=True)
    z = 0.6745 * (x - med) / (mad + 1e-12)
    lo, hi = np.percentile(x, [1.0, 99.0], axis=1, keepdims=True)
    return z, np.clip(x, lo, hi)


def init_topk(size, rng):
    users, items = pick(size, (5, 12), (512, 4096))
    return rng.standard_normal((users, items)).astype(np.float32), 3 if size == "small" else 20


@program("other", init_topk)
def topk_rank(scores, k):
    # the k best items of each user (stable ranks), their scores, and each item's rank
    order = np.argsort(-scores, axis=1, kind="stable")
    top = order[:, :k]
    ranks = np.argsort(order, axis=1, kind="stable")
    best = -np.sort(-scores, axis=1)[:, :k]
    return top, best, ranks


def init_ranks(size, rng):
    n, m = pick(size, (9, 3), (20_000, 16))
    return (np.round(rng.standard_normal((n, m)), 2),)  # ties


@program("other", init_ranks)
def rank_columns(x):
    order = np.argsort(x, axis=0, kind="stable")
    ranks = np.empty_like(order)
    ranks[order, np.arange(x.shape[1])] = np.arange(x.shape[0])[:, None]
    return ranks


def init_scores(size, rng):
    n, m = pick(size, (5, 12), (4000, 200))
    return rng.standard_normal((n, m)).astype(np.float32), 5


@program("other", init_scores)
def topk_rows(scores, k):
    idx = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return idx, np.take_along_axis(scores, idx, axis=1)


def init_samples(size, rng):
    n = pick(size, 41, 1_000_000)
    x = rng.standard_normal(n)
    x[:: max(n // 50, 1)] *= 30.0  # outliers to trim
    return x, 0.05


@program("other", init_samples)
def trimmed_mean(x, frac):
    s = np.sort(x)
    k = int(frac * s.shape[0])
    return s[k : s.shape[0] - k].mean()


def init_columns(size, rng):
    n, m = pick(size, (11, 4), (100_000, 8))
    return (rng.standard_normal((n, m)),)


@program("other", init_columns)
def iqr_columns(x):
    q1, q3 = np.percentile(x, [25, 75], axis=0)
    return q3 - q1


def init_samples(size, rng):
    n = pick(size, 60, 1_000_000)
    return (np.concatenate([rng.normal(0.0, 1.0, n // 2), rng.normal(4.0, 0.5, n - n // 2)]),)


@program("other", init_samples)
def density_summary(x):
    # a bimodal sample's empirical density on 60 bins, the bin centers, the mode's bin and
    # the probability mass above the midpoint of the range
    density, edges = np.histogram(x, bins=60, density=True)
    centers = 0.5 * (edges[1:] + edges[:-1])
    widths = np.diff(edges)
    upper = centers > 0.5 * (edges[0] + edges[-1])
    return centers, density, centers[np.argmax(density)], np.sum(density[upper] * widths[upper])
