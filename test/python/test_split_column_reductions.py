"""Reductions over the rows of an array in blocks of rows (``ember-split-column-reductions``).

``x.sum(axis=0)`` and its kind run as 16 blocks of whole rows reduced in parallel into
partial rows, then the partial rows reduced in order. Against NumPy: sums, means,
products, extremes, ``any``/``all``, integer sums, reductions with the elementwise ops
before them fused in (per-row weights, the row index itself), 3-D arrays, row counts
known only at run time, NaN, infinities and signed zeros; the result must not depend on
the thread count. The structure checks say which reductions split and which do not."""

import re
import warnings
import zlib

import numpy as np
import pytest
from graph_building import loops_of

import compiler
from compiler.passes import split_column_reductions as split
from runtime import threads

pytestmark = pytest.mark.filterwarnings("error:ember:RuntimeWarning")

RNG = np.random.default_rng(53)

PROGRAMS = {
    "sum": lambda x: x.sum(axis=0),
    "mean": lambda x: x.mean(axis=0),
    "max": lambda x: x.max(axis=0),
    "min": lambda x: np.min(x, axis=0),
    "prod": lambda x: np.prod(1.0 + 0.001 * x, axis=0),
    "squares": lambda x: ((x - 0.5) ** 2).sum(axis=0),
    "row-weights": lambda x: (x * np.linspace(0.0, 1.0, x.shape[0])[:, None]).sum(axis=0),
    "row-index": lambda x: (x * np.arange(x.shape[0])[:, None]).sum(axis=0),
    "standardize": lambda x: (x - x.mean(axis=0)) / (x.std(axis=0) + 1.0),
    "mean-keepdims": lambda x: x.mean(axis=0, keepdims=True),
    "max-keepdims-centred": lambda x: x - x.max(axis=0, keepdims=True),
    "outer-and-last-keepdims": lambda x: x.sum(axis=(0, -1), keepdims=True),
}
SHAPES = [(512, 1024), (33, 7), (100000, 3), (40099, 5), (17, 100), (1, 8), (0, 5), (4096, 16, 6)]


def _close(got, want, terms: int = 1):
    """Ember adds the rows in blocks, NumPy pairwise: a float32 sum of ``terms`` values
    rounds differently, by up to about ``terms`` ulps where it nears zero (a sum of 24,576
    standard normal values: 3.5e-4 apart). A wrong block or a lost row is off by whole units."""
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = 3e-4 if got.dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got, want, rtol=tol, atol=max(tol, terms * np.finfo(got.dtype).eps))


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_numpy(name, shape, dtype):
    fn = PROGRAMS[name]
    seed = zlib.crc32(f"{name} {shape} {np.dtype(dtype)}".encode())  # the same data in any test order
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's mean of an empty slice
        try:
            want = fn(x)
        except ValueError:  # the max of no rows
            with pytest.raises(ValueError):
                compiler.compile(fn)(x)
            return
        got = compiler.compile(fn)(x)
    _close(got, want, terms=x.size // max(want.size, 1))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.bool_])
def test_integer_and_bool(dtype):
    x = RNG.integers(0, 3, (40000, 33)).astype(dtype)
    for fn in (
        lambda x: x.sum(axis=0),
        lambda x: x.max(axis=0),
        lambda x: np.any(x, axis=0),
        lambda x: np.all(x, axis=0),
    ):
        got, want = compiler.compile(fn)(x), fn(x)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_nan_infinities_and_signed_zeros():
    x = RNG.standard_normal((30000, 8))
    x[100, 0], x[29999, 1], x[0, 2], x[300:, 3] = np.nan, np.inf, -np.inf, -0.0
    x[:300, 3] = 0.0
    x[:, 4] = -0.0
    for fn, negative in ((lambda x: x.max(axis=0), False), (lambda x: x.min(axis=0), True)):
        got, want = compiler.compile(fn)(x), fn(x)
        np.testing.assert_array_equal(got, want)  # exact
        np.testing.assert_array_equal(np.signbit(got[4]), np.signbit(want[4]))
        assert np.signbit(got[3]) == negative  # 0.0 and -0.0: IEEE maximum/minimum (docs/numpy-semantics.md)
    got, want = compiler.compile(lambda x: x.sum(axis=0))(x), x.sum(axis=0)
    np.testing.assert_array_equal(got[:5], want[:5])  # NaN, inf, -inf, zeros: exact
    np.testing.assert_array_equal(np.signbit(got[:5]), np.signbit(want[:5]))
    _close(got[5:], want[5:])  # the other columns: a reordered sum


def test_a_small_reduction_keeps_numpys_order_exactly():
    x = RNG.standard_normal((40, 3))
    np.testing.assert_array_equal(compiler.compile(lambda x: x.sum(axis=0))(x), x.sum(axis=0))


def test_row_count_changing_between_calls():
    compiled = compiler.compile(lambda x: x.sum(axis=0))
    for rows in (4000, 5000, 31, 1, 0, 70000):
        x = RNG.standard_normal((rows, 12))
        _close(compiled(x), x.sum(axis=0))


def test_the_result_does_not_depend_on_the_thread_count():
    x = RNG.standard_normal((5000, 300)).astype(np.float32)
    results = []
    for n in (1, 2):
        threads.set_num_threads(n)
        try:
            results.append(compiler.compile(lambda x: x.sum(axis=0))(x))
        finally:
            threads.set_num_threads(None)
    np.testing.assert_array_equal(results[0], results[1])


def test_a_keepdims_column_mean_walks_the_rows_in_memory_order():
    """Lowered with its reduction loop first (not a unit loop with the reduction last,
    which walked each column down the rows), it splits as a plain column sum does."""
    loops = loops_of(lambda x: x.mean(axis=0, keepdims=True), np.ones((4096, 1024), np.float32))
    assert f"memref<{split.BLOCKS}x1x1024xf32>" in loops


def test_a_column_sum_is_blocks_of_rows_then_their_combination():
    loops = loops_of(lambda x: x.sum(axis=0), np.ones((4096, 1024), np.float32))
    assert re.search(rf"scf\.forall \(%\w+\) in \({split.BLOCKS}\)", loops)
    assert f"memref<{split.BLOCKS}x1024xf32>" in loops  # the partial rows


@pytest.mark.parametrize(
    "case",
    [
        ("too few rows", lambda x: x.sum(axis=0), (31, 64)),
        ("under a MiB", lambda x: x.sum(axis=0), (1000, 64)),
        ("a row reduction", lambda x: x.sum(axis=1), (4096, 64)),
        ("argmax", lambda x: np.argmax(x, axis=0), (4096, 64)),
    ],
    ids=lambda c: c[0],
)
def test_left_alone(case):
    _, fn, shape = case
    loops = loops_of(fn, np.ones(shape, np.float32))
    assert not re.search(rf"memref<{split.BLOCKS}x{shape[1]}x", loops)
