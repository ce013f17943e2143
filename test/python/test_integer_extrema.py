"""Max/min reductions carried as integer keys (``ember-integer-extrema``): NumPy's values
on every kind of float (NaNs of either sign, infinities, subnormals, signed zeros as
IEEE maximum/minimum order them), every length around the vector widths, strided and
reversed views, ``initial=``; and the compiled loop is the integer one."""

import re

import numpy as np
import pytest
from graph_building import optimized_llvm_ir

import compiler

RNG = np.random.default_rng(23)

SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e-45, -1e-45, 5e-324, 3e38, -3e38]


def row_max(x):
    return x.max(axis=-1)


def row_min(x):
    return np.min(x, axis=1, keepdims=True)


def all_max_min(x):
    return x.max(), x.min()


def peak_to_peak(x):
    return x.max(axis=1) - x.min(axis=1)


def strided_max(x):
    return x[:, ::-2].max(axis=1), x[::2].T.min(axis=0)


def with_initial(x):
    return np.max(x, axis=1, initial=-5.0), np.min(x, axis=1, initial=2.0)


FUNCTIONS = [row_max, row_min, all_max_min, peak_to_peak, strided_max, with_initial]


def _special_array(shape, dtype):
    x = RNG.standard_normal(shape)
    picked = RNG.random(shape) < 0.4
    x[picked] = RNG.choice(SPECIALS, size=int(picked.sum()))
    return x.astype(dtype)


def _assert_same(got, want):
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)  # NaN where NumPy has NaN


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values_match_numpy(fn, dtype):
    compiled = compiler.compile(fn)
    for cols in (1, 2, 7, 15, 16, 17, 33, 64, 65, 130):
        x = _special_array((5, cols), dtype)
        with np.errstate(all="ignore"):
            _assert_same(compiled(x), fn(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_of_either_sign_wins(dtype):
    """A NaN with its sign bit set sorts below -inf as a key: it must still be found,
    alone in its row, among infinities, first or last."""
    x = np.full((6, 40), 2.0, dtype)
    negative_nan = -np.abs(np.array(np.nan, dtype))
    assert np.signbit(negative_nan)
    x[0, 0] = negative_nan
    x[1, -1] = negative_nan
    x[2, 5] = np.nan
    x[3, :] = -np.inf
    x[3, 17] = negative_nan
    x[4, :] = np.inf
    x[4, 3] = negative_nan
    x[4, 9] = np.nan
    got_max, got_min = compiler.compile(lambda a: (a.max(axis=1), a.min(axis=1)))(x)
    assert np.isnan(got_max[:5]).all() and np.isnan(got_min[:5]).all()
    assert got_max[5] == 2.0 and got_min[5] == 2.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_signed_zeros_in_ieee_order(dtype):
    """+0 above -0 (docs/numpy-semantics.md): max of both is +0, min of both -0, in any
    position; a row of one zero keeps its sign."""
    x = np.full((4, 50), -0.0, dtype)
    x[0, 31] = 0.0
    x[1, :] = 0.0
    x[2, 0] = 0.0
    x[3, :] = 0.0
    x[3, 49] = -0.0
    got_max, got_min = compiler.compile(lambda a: (a.max(axis=1), a.min(axis=1)))(x)
    assert (got_max == 0).all() and (got_min == 0).all()
    assert np.signbit(got_max).tolist() == [False, False, False, False]
    assert np.signbit(got_min).tolist() == [True, False, True, True]
    only_negative = np.full((2, 9), -0.0, dtype)
    assert np.signbit(compiler.compile(row_max)(only_negative)).all()


def test_large_rows_on_the_worker_pool():
    """A whole-array max split across threads, and row extremes of many rows."""
    x = RNG.standard_normal((1500, 700)).astype(np.float32)
    x[1234, 567] = 99.0
    x[3, 3] = -99.0
    fn = compiler.compile(all_max_min)
    assert fn(x) == (np.float32(99.0), np.float32(-99.0))
    x[700, 1] = np.nan
    assert all(np.isnan(v) for v in fn(x))
    _assert_same(compiler.compile(peak_to_peak)(x), peak_to_peak(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_row_max_is_an_integer_vector_loop(dtype):
    """x.max(axis=-1): a vector integer max and min in the optimized kernel, no float
    maximum left."""
    ir = optimized_llvm_ir(row_max, RNG.standard_normal((8, 256)).astype(dtype))
    width = 32 if dtype == np.float32 else 64
    assert re.search(rf"@llvm\.smax\.v\d+i{width}", ir)
    assert re.search(rf"@llvm\.smin\.v\d+i{width}", ir)
    assert "llvm.maximum" not in ir
