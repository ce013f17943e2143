"""``X.T @ X`` on Ember's packed kernel, one triangle then mirrored (``ember-gram-loops``),
against NumPy (its ``?syrk``).

The shapes reach every path of the helper: the last row panel past X's columns (its
packing pads with zeros), the shared dimension in one block of 256 or several, under
the four-step unrolling and past it, several 256-column blocks of B, two 768-row chunks
of A (one thread) or a part each (two threads), a tile reaching the diagonal from the
left, the edge tiles through the scratch tile, the mirror's last short block."""

import numpy as np
import pytest
from blas_oracle import assert_reordered_close
from graph_building import loops_of

import compiler
from compiler.passes import gemm

pytestmark = [
    pytest.mark.filterwarnings("error:ember:RuntimeWarning"),
    pytest.mark.skipif(gemm.host_vector_bits() != 512, reason="the helper runs with 512-bit vectors only"),
]

RNG = np.random.default_rng(23)
CALL = "call @ember_gram_loops_{}("
SHAPES = [  # (k, n), each with n * n * k / 2 > gemm.MIN_MACS
    (1000, 800),  # two chunks of row panels on one thread; the benchmark's shape
    (257, 100),  # k one past a block; the last panel of A padded (100 = 16 * 6 + 4)
    (3, 600),  # k under one unrolled iteration; three column blocks (f64)
    (1, 1000),  # k = 1: only the steps past the unrolled ones
    (600, 47),  # under one panel of columns: every tile an edge tile
    (12000, 7),  # one panel of rows, one of columns
    (530, 769),  # a chunk and one more panel row
]


def gram(x):
    return x.T @ x


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_matches_numpy(shape, dtype, thread_count):
    x = RNG.standard_normal(shape).astype(dtype)
    assert CALL.format(np.dtype(dtype).char == "d" and "f64" or "f32") in loops_of(gram, x)
    got = compiler.compile(gram)(x)
    assert_reordered_close(got, gram(x), shape[0])
    np.testing.assert_array_equal(got, got.T)  # exactly symmetric, as NumPy's


@pytest.mark.parametrize("axis", [0, 1])
def test_symbolic_sizes(axis):
    """A symbolic k or n: the size is checked at run time (the small one goes to BLAS)."""
    f = compiler.compile(gram, dynamic=True)
    for k, n in [(400, 300), (9, 300), (400, 31), (1, 2)]:
        x = RNG.standard_normal((k, n))
        compiler.mark_dynamic(x, axis)
        got = f(x)
        assert_reordered_close(got, gram(x), k)
        np.testing.assert_array_equal(got, got.T)


def test_views():
    """Rows of X contiguous but apart (a window of a wider array): the helper, with X's
    row stride. Strided rows (every other column): the run-time check sends it to BLAS."""
    wide = RNG.standard_normal((700, 900))
    window = wide[50:650, 100:700]
    assert CALL.format("f64") in loops_of(gram, window, contiguous=False)
    assert_reordered_close(compiler.compile(gram)(window), gram(window), 600)
    every_other = wide[:, ::2]
    got = compiler.compile(gram)(every_other)
    assert_reordered_close(got, gram(every_other), 700)
    np.testing.assert_array_equal(got, got.T)


def test_nan_and_inf_spread_along_their_row_and_column():
    """A NaN in column 7 of X makes row and column 7 of ``X.T @ X`` NaN, also the part
    of it the mirror copies; an infinity in column 300 makes its diagonal element inf."""
    x = RNG.standard_normal((500, 400))
    x[5, 7] = np.nan
    x[9, 300] = np.inf
    with np.errstate(invalid="ignore"):
        got, want = compiler.compile(gram)(x), gram(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(got[7]).all() and np.isnan(got[:, 7]).all()
    assert got[300, 300] == np.inf
    keep = np.isfinite(want)
    np.testing.assert_allclose(got[keep], want[keep], rtol=1e-12, atol=1e-9)


def covariance(data):
    centered = data - data.mean(axis=0)
    return centered.T @ centered / (data.shape[0] - 1.0)


def test_after_elementwise_work_in_one_kernel(thread_count):
    """Centring, then the Gram matrix, then scaling (a covariance): the product is the
    helper's, the rest Ember's loops; no BLAS call in the kernel."""
    data = RNG.standard_normal((2000, 300))
    loops = loops_of(covariance, data)
    assert CALL.format("f64") in loops and "ember_blas" not in loops
    assert_reordered_close(compiler.compile(covariance)(data), covariance(data), 2000)
