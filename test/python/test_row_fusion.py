"""Row loops fused (``ember-fuse-row-loops``): each row's reductions and the pass that
reads them run in one loop over the rows. The programs are the row-wise ones this
rewrites (layer norm, softmax, centring, in place too) and the column-wise ones it must
leave alone, against NumPy, on shapes with empty, single and odd dims, views, and
rows of NaN and infinities."""

import re

import numpy as np
import pytest
from graph_building import loops_of

import compiler

# A kernel that fails to compile runs eagerly with a warning: here that is a failure.
pytestmark = pytest.mark.filterwarnings("error:ember:RuntimeWarning")

RNG = np.random.default_rng(41)


def layer_norm(x, w, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * w + b


def softmax(x, w, b):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def centred_columns(x, w, b):
    return x - x.mean(0) * w  # a column reduction: its rows depend on every row


def standardize_in_place(x, w, b):
    x -= x.mean(-1, keepdims=True)
    x /= np.abs(x).max(-1, keepdims=True) + 1.0
    return x


PROGRAMS = [layer_norm, softmax, centred_columns]
SHAPES = [(0, 8), (1, 1), (3, 5), (37, 129), (300, 1024)]


def _close(got, want, dtype):
    tol = 3e-5 if dtype == np.float32 else 1e-12
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_numpy(fn, shape, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    w, b = RNG.standard_normal(shape[-1]).astype(dtype), RNG.standard_normal(shape[-1]).astype(dtype)
    _close(compiler.compile(fn)(x, w, b), fn(x, w, b), dtype)


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "view",
    [lambda a: a[::2], lambda a: a[::-1], lambda a: a[:, 1:-1], lambda a: a.T.copy().T],
    ids=["every-other-row", "reversed", "inner-columns", "fortran"],
)
def test_views(fn, view):
    x = view(RNG.standard_normal((160, 90)))
    w, b = RNG.standard_normal(x.shape[1]), RNG.standard_normal(x.shape[1])
    _close(compiler.compile(fn)(x, w, b), fn(x, w, b), np.float64)


@pytest.mark.parametrize("fn", [layer_norm, softmax], ids=lambda f: f.__name__)
def test_rows_of_nan_and_infinities(fn):
    x = RNG.standard_normal((64, 33))
    x[3, 7], x[10], x[20, :2], x[30, 5] = np.nan, np.inf, -np.inf, -0.0
    w, b = np.ones(33), np.zeros(33)
    with np.errstate(invalid="ignore"):
        want = fn(x, w, b)
        got = compiler.compile(fn)(x, w, b)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", [(1, 4), (41, 257), (2000, 300)])
def test_in_place(shape):
    x = RNG.standard_normal(shape)
    mine, theirs = x.copy(), x.copy()
    w = b = np.ones(shape[1])
    got = compiler.compile(standardize_in_place)(mine, w, b)
    standardize_in_place(theirs, w, b)
    np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-15)
    assert np.shares_memory(got, mine)


def test_layer_norm_tile_is_one_row_loop():
    x = RNG.standard_normal((4096, 1024)).astype(np.float32)
    w = np.ones(1024, np.float32)
    loops = loops_of(layer_norm, x, w, w)
    tile = loops[loops.index("scf.forall") :]
    row_loops = [m.start() for m in re.finditer(r"scf\.for %\S+ = %c0 to %\d+ step %c1 \{", tile)]
    assert len(row_loops) == 1, tile  # the sums, the deviations and the output: one loop over the rows
    assert tile.count("iter_args") == 2  # both row sums carried in registers
