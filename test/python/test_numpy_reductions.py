"""NumPy's statistics, arg-reductions, truth reductions, NaN-ignoring reductions and scans
(compiler/frontend/numpy_reductions.py), compiled and compared with NumPy.

Every case compiles one whole graph (``fullgraph=True``: no break, no fallback to CPython;
an internal backend failure warns, and warnings are errors here) whose results must have
NumPy's type (NumPy scalar or array), dtype and shape, and NumPy's values: exactly for
integer, bool and index results and for the NaN/extreme reductions; within rtol 1e-12
(float64) / 1e-5 (float32) for std/var/means (another summation order); bit for bit for
cumsum/cumprod, which run NumPy's sequential loop.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import compiler
from compiler.frontend import numpy_reductions
from compiler.frontend.numpy_semantics import ARRAY_METHODS, TABLE

DTYPES = [np.float64, np.float32, np.int64, np.int32, np.bool_]
FLOATS = [np.float64, np.float32]
RTOL = {np.dtype(np.float64): 1e-12, np.dtype(np.float32): 1e-5}
SHAPES = [(0,), (1,), (7,), (3, 4), (0, 3), (2, 3, 4)]


def data(dtype, shape, seed=0, special=False):
    """Random values of ``dtype``; ints from a small range (ties for argmax); with
    ``special``, floats get NaN, inf, -inf and -0.0 at a few places."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "i":
        return rng.integers(-3, 4, shape).astype(dtype)
    x = rng.normal(0, 2, shape).astype(dtype)
    if special and x.size:
        flat = x.reshape(-1)
        for i, v in zip(rng.permutation(x.size)[:4], (np.nan, np.inf, -np.inf, -0.0)):
            flat[i] = v
    return x


def axes_of(ndim: int) -> list:
    """None, every axis (one negative) and the tuples of two and all axes."""
    axes = [None, *range(ndim)]
    if ndim:
        axes.append(-1)
    if ndim >= 2:
        axes += [(0, ndim - 1), (ndim - 1, 0)]
    if ndim >= 3:
        axes.append(tuple(range(ndim)))
    return axes


def quiet():
    """NumPy's own RuntimeWarnings (empty slices, degrees of freedom) are not the test's."""
    w = warnings.catch_warnings()
    w.__enter__()
    warnings.simplefilter("error")  # an ember internal error (fallback to eager) fails the test
    for message in ("Degrees of freedom", "Mean of empty slice", "All-NaN", "invalid value", "divide by zero"):
        warnings.filterwarnings("ignore", message=message, category=RuntimeWarning)
    return w


def compiled(fn, *args, dynamic=False):
    """``fn(*args)`` compiled into one graph, and NumPy's ``fn(*args)``."""
    w = quiet()
    try:
        with np.errstate(all="ignore"):
            c = compiler.compile(fn, fullgraph=True, dynamic=dynamic)
            got = c(*args)
            want = fn(*args)
    finally:
        w.__exit__(None, None, None)
    assert c.entries[0].graph_module is not None and c.entries[0].fallback_reason is None
    return got, want, c


def same(got, want, rtol=0.0, atol=0.0, where=""):
    """Same type, dtype and shape; values equal (NaN equals NaN), or close within rtol/atol."""
    assert type(got) is type(want), (where, type(got), type(want))
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, rtol, atol, f"{where}[{i}]")
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (where, g.dtype, w.dtype, g.shape, w.shape)
    if (rtol or atol) and w.dtype.kind == "f":
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


def bits(got, want):
    """Bit for bit (-0.0 differs from 0.0)."""
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes(), (got, want)


# ----------------------------------------------------------------------------- std, var


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_std_var(dtype, shape):
    axes = axes_of(len(shape))

    def f(x):
        out = []
        for axis in axes:
            out.append(np.std(x, axis=axis))
            out.append(x.var(axis=axis, ddof=1))
            out.append(np.var(x, axis=axis, keepdims=True))
            out.append(x.std(axis=axis, ddof=2, keepdims=True))
        out.append(np.var(x, correction=1))
        out.append(np.std(x, ddof=0.5))
        return tuple(out)

    x = data(dtype, shape)
    got, want, _ = compiled(f, x)
    rtol = RTOL.get(np.dtype(dtype), 1e-12)
    same(got, want, rtol=rtol, atol=rtol * 1e-3)


@pytest.mark.parametrize("dtype", FLOATS + [np.int32], ids=lambda d: np.dtype(d).name)
def test_std_var_dtype_argument(dtype):
    def f(x):
        return (
            np.var(x, dtype=np.float64),
            x.std(axis=0, dtype=np.float32),
            np.var(x, axis=1, dtype=np.float32, ddof=1),
        )

    got, want, _ = compiled(f, data(dtype, (5, 6)))
    same(got, want, rtol=1e-5)


def test_std_var_of_special_values_and_0d():
    x = data(np.float64, (4, 5), special=True)
    got, want, _ = compiled(lambda x: (np.std(x, axis=0), x.var(axis=1), np.var(x)), x)
    same(got, want, rtol=1e-12)
    got, want, _ = compiled(lambda x: (np.std(x), x.var(ddof=1), np.var(x, keepdims=True)), np.array(2.5))
    same(got, want)


# ----------------------------------------------------------------------------- argmax, argmin


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_argmax_argmin(dtype, shape):
    valid = [a for a in [None, *range(len(shape))] if (np.prod(shape) if a is None else shape[a]) != 0]
    if not valid:
        pytest.skip("every argmax of this shape raises (test_empty_argmax_raises)")

    def f(x):
        out = []
        for axis in valid:
            out.append(np.argmax(x, axis=axis))
            out.append(x.argmin(axis=axis))
            out.append(x.argmax(axis=axis, keepdims=True))
            out.append(np.argmin(x, axis=axis, keepdims=True))
        return tuple(out)

    for special in (False, True):
        got, want, _ = compiled(f, data(dtype, shape, special=special))
        same(got, want)


def test_argmax_nan_is_the_first_nan_and_ties_are_the_first():
    x = np.array([[1.0, np.nan, 5.0, np.nan], [2.0, 2.0, -np.inf, -np.inf], [-0.0, 0.0, 0.0, -0.0]])
    got, want, _ = compiled(lambda x: (x.argmax(axis=1), x.argmin(axis=1), np.argmax(x), x.argmin(axis=0)), x)
    same(got, want)
    assert list(got[0]) == [1, 0, 0] and list(got[1]) == [1, 2, 0]


# ----------------------------------------------------------------------------- long 1-d argmax


def _long(dtype, n, case, seed=0):
    """A 1-d array long enough for the blocked argmax (numpy_reductions.ARG_BLOCKED_MIN),
    its extremes or NaN placed where the blocks, their boundaries and the overlapping tail
    decide: in the last whole block and the tail both, in the tail only, first and last."""
    rng = np.random.default_rng(seed)
    x = data(dtype, (n,), seed=seed)
    block, last = numpy_reductions.ARG_BLOCK, (n // numpy_reductions.ARG_BLOCK) * numpy_reductions.ARG_BLOCK
    top = np.array(5 if np.dtype(dtype).kind != "b" else True, dtype)
    if case == "tie in the overlap":  # the tail overlaps the last block: the block's index
        x[[n - block + 3, n - 2]] = top
    elif case == "tail only":
        x[[n - 1, rng.integers(0, n - block)]] = [top, top - 1 if dtype != np.bool_ else top]
    elif case == "block boundary":
        x[[last - 1, min(last, n - 1), 2 * block]] = top
    elif case == "nan" and np.dtype(dtype).kind == "f":
        x[[n - 3, rng.integers(block, n - block), n // 2]] = np.nan
    elif case == "nan in the tail" and np.dtype(dtype).kind == "f":
        x[n - 1] = np.nan
        x[0] = np.inf
    elif case == "zeros" and np.dtype(dtype).kind == "f":
        x[:] = 0.0
        x[rng.integers(0, n, 50)] = -0.0
    return x


@pytest.mark.parametrize(
    "case", ["random", "tie in the overlap", "tail only", "block boundary", "nan", "nan in the tail", "zeros"]
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.bool_], ids=lambda d: np.dtype(d).name)
def test_long_argmax_argmin_are_numpys(dtype, case):
    """The blocked search (block extremes, the first block's element, the tail) gives
    NumPy's first index of the extreme or of the first NaN, at sizes around the blocks."""
    for n in (numpy_reductions.ARG_BLOCKED_MIN, numpy_reductions.ARG_BLOCKED_MIN + 1, 40_000 + 517):
        x = _long(dtype, n, case, seed=n)
        got, want, _ = compiled(lambda x: (np.argmax(x), x.argmin(), np.argmax(x, keepdims=True)), x)
        same(got, want, where=f"n={n}")
        got, want, _ = compiled(lambda x: (np.argmax(x), x.argmin()), -x if dtype != np.bool_ else ~x)
        same(got, want, where=f"-x, n={n}")


def test_long_argmax_of_a_2d_array_and_symbolic_sizes():
    x = _long(np.float64, 30_000, "nan", seed=4).reshape(100, 300)
    got, want, _ = compiled(lambda x: (np.argmax(x), np.argmin(x[::-1])), x)
    same(got, want)
    c = compiler.compile(lambda x: (np.argmax(x), np.argmin(x)), dynamic=True, fullgraph=True)
    for n in (20_000, 70_001, 16_384, 123_456):
        x = _long(np.float32, n, "block boundary", seed=n)
        same(c(x), (np.argmax(x), np.argmin(x)), where=f"n={n}")
    assert len(c.entries) == 1  # n >= ARG_BLOCKED_MIN guarded, one graph


# ----------------------------------------------------------------------------- any, all, count_nonzero


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_any_all_count_nonzero(dtype, shape):
    axes = axes_of(len(shape))

    def f(x):
        out = []
        for axis in axes:
            out.append(np.any(x, axis=axis))
            out.append(x.all(axis=axis))
            out.append(x.any(axis=axis, keepdims=True))
            out.append(np.all(x, axis=axis, keepdims=True))
            out.append(np.count_nonzero(x, axis=axis))
        out.append(np.count_nonzero(x, keepdims=True))
        return tuple(out)

    x = data(dtype, shape, special=True)
    if x.size > 2:
        x.reshape(-1)[:2] = 0  # some zeros (and -0.0 or False) in every dtype
    got, want, _ = compiled(f, x)
    same(got, want)


def test_truth_of_nan_and_negative_zero():
    x = np.array([[np.nan, 0.0], [-0.0, 0.0], [np.nan, 1.0]])
    got, want, _ = compiled(lambda x: (x.any(axis=1), x.all(axis=1), np.count_nonzero(x, axis=0)), x)
    same(got, want)
    assert list(got[0]) == [True, False, True]


# ----------------------------------------------------------------------------- nan-reductions


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_nan_reductions(dtype, shape):
    axes = axes_of(len(shape))
    nonempty = [a for a in axes if all(shape[i] for i in (range(len(shape)) if a is None else np.atleast_1d(a)))]

    def f(x):
        out = []
        for axis in axes:
            out.append(np.nansum(x, axis=axis))
            out.append(np.nanmean(x, axis=axis, keepdims=True))
        for axis in nonempty:
            out.append(np.nanmax(x, axis=axis))
            out.append(np.nanmin(x, axis=axis, keepdims=True))
        return tuple(out)

    x = data(dtype, shape)
    if np.dtype(dtype).kind == "f" and x.size:
        x.reshape(-1)[::3] = np.nan
        if x.ndim == 2:
            x[0] = np.nan  # a whole row of NaNs: nanmax is NaN, nanmean 0/0
    got, want, _ = compiled(f, x)
    same(got, want, rtol=RTOL.get(np.dtype(dtype), 0.0))


def test_nan_reductions_dtype_argument():
    x = data(np.float32, (4, 5))
    x[1, 2] = np.nan

    def f(x):
        return np.nansum(x, dtype=np.float64), np.nanmean(x, axis=0, dtype=np.float64), np.nansum(x, axis=1)

    got, want, _ = compiled(f, x)
    same(got, want, rtol=1e-6)


# ----------------------------------------------------------------------------- ptp, average


@pytest.mark.parametrize("shape", [(1,), (7,), (3, 4), (2, 3, 4)], ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32], ids=lambda d: np.dtype(d).name)
def test_ptp(dtype, shape):
    axes = axes_of(len(shape))

    def f(x):
        out = []
        for axis in axes:
            out.append(np.ptp(x, axis=axis))
            out.append(np.ptp(x, axis=axis, keepdims=True))
        return tuple(out)

    got, want, _ = compiled(f, data(dtype, shape, special=np.dtype(dtype).kind == "f"))
    same(got, want)


def test_ptp_wraps_like_numpy():
    x = np.array([np.iinfo(np.int32).max, np.iinfo(np.int32).min], np.int32)
    got, want, _ = compiled(lambda x: np.ptp(x), x)
    same(got, want)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_average(dtype):
    x = data(dtype, (3, 4, 5))
    w2 = np.arange(1.0, 6.0)  # along the last axis
    w_pair = np.arange(1, 13, dtype=np.int32).reshape(3, 4)  # along (0, 1)
    w_swapped = np.arange(1, 13, dtype=np.float32).reshape(4, 3)  # along (1, 0)

    def f(x, w_full, w2, w_pair, w_swapped):
        return (
            np.average(x),
            np.average(x, axis=1),
            np.average(x, axis=(0, 2), keepdims=True),
            np.average(x, weights=w_full),
            np.average(x, axis=-1, weights=w2),
            np.average(x, axis=(0, 1), weights=w_pair),
            np.average(x, axis=(1, 0), weights=w_swapped, keepdims=True),
        )

    w_full = data(np.float32, (3, 4, 5), seed=1) ** 2 + 0.5
    got, want, _ = compiled(f, x, w_full, w2, w_pair, w_swapped)
    same(got, want, rtol=RTOL.get(np.result_type(x.dtype, np.float32), 1e-12))


# ----------------------------------------------------------------------------- cumsum, cumprod


@pytest.mark.parametrize("shape", [(0,), (1,), (2,), (13,), (3, 4), (0, 3), (3, 5, 9)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_cumsum_cumprod(dtype, shape):
    axes = [None, *range(len(shape))] + ([-1] if shape else [])

    def f(x):
        out = []
        for axis in axes:
            out.append(np.cumsum(x, axis=axis))
            out.append(x.cumprod(axis=axis))
        return tuple(out)

    x = data(dtype, shape)
    if np.dtype(dtype).kind == "f":
        x = (np.abs(x) * 0.5 + 0.75).astype(dtype)  # products stay in range
    got, want, _ = compiled(f, x)
    for g, w in zip(got, want):
        bits(g, w)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_cumsum_cumprod_dtype_argument(dtype):
    def f(x):
        return (
            x.cumsum(dtype=np.float64),
            np.cumsum(x, axis=1, dtype=np.int32),
            np.cumprod(x, axis=0, dtype=np.float32),
            x.cumsum(axis=1, dtype=np.bool_),  # logical or
            np.cumprod(x, axis=1, dtype=np.bool_),  # logical and
        )

    x = data(dtype, (4, 6))
    if np.dtype(dtype).kind == "f":
        x = np.round(x)  # the casts to int32 are exact
    got, want, _ = compiled(f, x)
    for g, w in zip(got, want):
        bits(g, w)


def test_cumsum_wraps_like_numpy():
    big = np.array([2**62, 2**62, 2**62, -5], np.int64)
    got, want, _ = compiled(lambda x: (np.cumsum(x), np.cumprod(x), np.cumsum(x.astype(np.int32), dtype=np.int32)), big)
    same(got, want)
    third = np.array([2**30, 2**30, 2**30], np.int32)
    got, want, _ = compiled(lambda x: (np.cumsum(x, dtype=np.int32), np.cumsum(x)), third)
    same(got, want)
    assert got[0].dtype == np.int32 and got[1].dtype == np.int64


def test_cumsum_keeps_negative_zero_and_special_values():
    x = np.array([-0.0, -0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 2.0])
    got, want, _ = compiled(lambda x: np.cumsum(x), x[:3])
    bits(got, want)
    got, want, _ = compiled(lambda x: (np.cumsum(x), np.cumprod(x)), x)
    same(got, want)


def test_cumsum_of_0d_is_1d():
    got, want, _ = compiled(lambda x: (np.cumsum(x), x.cumprod()), np.array(3.5))
    same(got, want)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_cumsum_of_long_axes_is_numpys_sequential_sum(axis):
    x = np.random.default_rng(3).standard_normal((700, 301)).astype(np.float32)
    got, want, _ = compiled(lambda x: (np.cumsum(x, axis=axis), x[::-2, ::3].cumsum(axis=axis)), x)
    for g, w in zip(got, want):
        bits(g, w)


# ----------------------------------------------------------------------------- ufunc.accumulate

ACCUMULATED = (np.add, np.multiply, np.maximum, np.minimum, np.fmax, np.fmin)


@pytest.mark.parametrize("shape", [(0,), (1,), (13,), (3, 4), (0, 3), (3, 5, 9)], ids=str)
@pytest.mark.parametrize("dtype", [*DTYPES, np.uint8, np.int8, np.float16], ids=lambda d: np.dtype(d).name)
def test_ufunc_accumulate(dtype, shape):
    """Every axis (0 by default; None for 1-d), NaN and infinities among floats: NumPy's
    dtypes and values, bit for bit but for fmax/fmin's ties of 0.0 and -0.0 (NumPy's own
    loops disagree there)."""
    axes = [(), *((a,) for a in range(len(shape))), (-1,)] + ([(None,)] if len(shape) == 1 else [])

    def f(x):
        out = []
        for u in ACCUMULATED:
            for axis in axes:
                out.append(u.accumulate(x, *axis))
        return tuple(out)

    x = data(dtype, shape, special=np.dtype(dtype).kind == "f")
    if np.dtype(dtype).kind == "f":
        x = np.where(np.abs(x) < 4, np.abs(x) * 0.5 + 0.75, x).astype(dtype)  # products stay in range
    got, want, _ = compiled(f, x)
    same(got, want)
    for i, u in enumerate(np.repeat(ACCUMULATED, len(axes))):
        if u not in (np.fmax, np.fmin):
            bits(got[i], want[i])


def test_running_extremes_are_numpys_bit_for_bit():
    """Equal zeros: the element (float32, float64; float16's half loop: the running value);
    the first NaN with its sign and payload runs to the end."""
    x = np.array([0.0, -0.0, -0.0, 0.0, 1.0, -np.inf, 1.0, 0.0, -0.0])
    for dtype in (np.float64, np.float32, np.float16):
        uint = {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]
        with_nan = np.array([2.0, np.nan, -np.nan, 3.0, -1.0], dtype)
        with_nan.view(uint)[1] |= uint(5) | uint(1) << uint(8 * np.dtype(dtype).itemsize - 1)  # -NaN, payload 5
        for a in (x.astype(dtype), -x.astype(dtype), with_nan):
            got, want, _ = compiled(lambda a: (np.maximum.accumulate(a), np.minimum.accumulate(a)), a)
            bits(got[0], want[0])
            bits(got[1], want[1])


def test_running_extremes_skip_or_propagate_nan():
    x = np.array([np.nan, 2.0, np.nan, -1.0, 5.0, np.inf, 3.0, np.nan])

    def f(x):
        return np.maximum.accumulate(x[1:]), np.minimum.accumulate(x[1:]), np.fmax.accumulate(x), np.fmin.accumulate(x)

    got, want, _ = compiled(f, x)
    same(got, want)
    assert np.isnan(got[0][1:]).all() and got[2].tolist()[1:] == [2.0, 2.0, 2.0, 5.0, np.inf, np.inf, np.inf]


def test_running_maximum_drawdown_and_dtype_argument():
    """A maximum drawdown (the corpus's): a running peak along the rows of a float32 array
    of prices, and accumulate's ``dtype=`` (a cast first, as NumPy's loop)."""

    def drawdown(prices):
        peak = np.maximum.accumulate(prices, axis=1)
        return ((prices - peak) / peak).min(axis=1)

    prices = np.cumprod(1 + 0.02 * np.random.default_rng(5).standard_normal((4, 300)), axis=1).astype(np.float32)
    got, want, _ = compiled(drawdown, prices)
    bits(got, want)
    ints = np.array([[3, -2, 7], [1, 9, -4]], np.int8)
    got, want, _ = compiled(lambda x: (np.maximum.accumulate(x, dtype=np.float32), np.add.accumulate(x)), ints)
    same(got, want)
    assert got[1].dtype == np.int64  # add.accumulate of int8 sums in the platform int, as cumsum


@pytest.mark.parametrize("dtype", [*DTYPES, np.int8], ids=lambda d: np.dtype(d).name)
def test_ufunc_reduce_is_the_reduction(dtype):
    """``np.add.reduce`` is ``np.sum`` along axis 0 by default, and so on: NumPy's dtypes
    and values, NaN propagating (maximum) or skipped (fmax), a list of arrays stacked."""

    def f(x):
        return (
            np.add.reduce(x),
            np.multiply.reduce(x, axis=1),
            np.maximum.reduce(x, axis=None),
            np.minimum.reduce(x, 1, keepdims=True),
            np.fmax.reduce(x),
            np.fmin.reduce(x, axis=-1),
            np.logical_or.reduce(x),
            np.logical_and.reduce(x, axis=1),
            np.add.reduce(x, dtype=np.float32),
            np.maximum.reduce([x[0], x[1], x[0] * 2]),
        )

    x = data(dtype, (3, 5), special=np.dtype(dtype).kind == "f")
    got, want, _ = compiled(f, x)
    same(got, want, rtol=RTOL.get(np.dtype(dtype), 0.0))


def test_ufunc_reduce_of_nothing_is_numpys_error():
    for fn in (lambda x: np.maximum.reduce(x), lambda x: np.fmin.reduce(x)):
        with pytest.raises(ValueError) as raised:
            fn(np.ones((0, 3)))
        with pytest.raises(ValueError, match=str(raised.value)):
            compiler.compile(fn, fullgraph=True)(np.ones((0, 3)))
    got, want, _ = compiled(lambda x: (np.add.reduce(x), np.logical_and.reduce(x)), np.ones((0, 3)))
    same(got, want)


def test_ufunc_accumulate_errors_are_numpys():
    for fn, error in (
        (lambda x: np.maximum.accumulate(x[0, 0]), TypeError),  # a 0-d array
        (lambda x: np.maximum.accumulate(x, axis=None), ValueError),  # 2-d
        (lambda x: np.add.accumulate(x, axis=2), np.exceptions.AxisError),
    ):
        with pytest.raises(error) as raised:
            fn(np.ones((2, 3)))
        with pytest.raises(error, match=str(raised.value)):
            compiler.compile(fn, fullgraph=True)(np.ones((2, 3)))


def test_a_ufunc_method_without_a_rule_breaks_naming_it():
    def f(x):
        return np.add.reduceat(x, [0, 2]) + 1

    x = np.arange(5.0)
    np.testing.assert_array_equal(compiler.compile(f)(x), f(x))
    explained = compiler.explain(f)(x)
    assert explained.graph_break_count == 1 and "np.add.reduceat is not supported" in str(explained.break_reasons)


def test_accumulate_along_a_symbolic_size_compiles_once():
    c = compiler.compile(
        lambda x: (np.maximum.accumulate(x), np.fmin.accumulate(x[::-1])), dynamic=True, fullgraph=True
    )
    for n in (3, 9, 2, 1000):
        x = np.sin(np.arange(n) * 0.37)
        x[n // 2] = np.nan
        got, want = c(x), (np.maximum.accumulate(x), np.fmin.accumulate(x[::-1]))
        same(got, want)
    assert len(c.entries) == 1


# ----------------------------------------------------------------------------- odd views


@pytest.mark.parametrize("view", ["reversed", "strided", "transposed", "broadcast"])
def test_views(view):
    base = data(np.float64, (6, 8), special=False)
    base[2, 3] = np.nan
    x = {
        "reversed": base[::-1, ::-2],
        "strided": base[::2, 1::3],
        "transposed": base.T,
        "broadcast": np.broadcast_to(base[1], (5, 8)),
    }[view]

    def f(x):
        return (
            x.std(axis=0),
            np.var(x, axis=1, ddof=1),
            x.argmax(axis=1),
            np.argmin(x),
            x.any(axis=0),
            np.count_nonzero(x > 0, axis=1),
            np.nansum(x, axis=0),
            np.nanmax(x, axis=1),
            np.ptp(x, axis=0),
            np.average(x, axis=1),
            x.cumsum(axis=1),
            np.cumprod(x, axis=0),
        )

    got, want, _ = compiled(f, x)
    same(got, want, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- symbolic sizes


def test_symbolic_sizes_one_compile():
    def f(x, w):
        return (
            x.std(axis=0),
            np.var(x, ddof=1),
            np.std(x, axis=0, ddof=5),  # N = n: max(n - 5, 0) is 0 for n < 5, in the graph
            x.var(axis=(0, 1), keepdims=True),
            x.argmax(axis=0),
            np.argmin(x),
            x.argmax(axis=1, keepdims=True),
            x.any(axis=0),
            np.all(x > -1),
            np.count_nonzero(x > 0, axis=0),
            np.nansum(x, axis=0),
            np.nanmean(x),
            np.nanmax(x, axis=0),
            np.nanmin(x, axis=1),
            np.ptp(x, axis=0),
            np.average(x, axis=0, weights=w),
            x.cumsum(axis=1),
            np.cumprod(x, axis=1),
            np.cumsum(x, axis=0),  # along the symbolic size
        )

    c = compiler.compile(f, fullgraph=True, dynamic=True)
    for n in (3, 2, 5, 17):
        x = data(np.float64, (n, 4), seed=n)
        x[1, 2] = np.nan
        got, want = run_again(c, f, x, np.arange(1.0, n + 1))
        same(got, want, rtol=1e-12, atol=1e-12, where=f"n={n}")
    assert len(c.entries) == 1 and c.entries[0].graph_module is not None  # one compile for every n


def run_again(c, f, *args):
    w = quiet()
    try:
        with np.errstate(all="ignore"):
            return c(*args), f(*args)
    finally:
        w.__exit__(None, None, None)


def test_cumsum_along_a_symbolic_size_compiles_once():
    c = compiler.compile(lambda x: (np.cumsum(x), x.cumprod()), dynamic=True, fullgraph=True)
    for n in (3, 9, 2, 1000):
        x = np.linspace(0.5, 1.5, n)
        got, want = c(x), (np.cumsum(x), x.cumprod())
        for g, w in zip(got, want):
            bits(g, w)
    assert len(c.entries) == 1


# ----------------------------------------------------------------------------- NumPy's errors


@pytest.mark.parametrize(
    "fn, x, error, message",
    [
        (lambda x: np.argmax(x), np.zeros(0), ValueError, "attempt to get argmax of an empty sequence"),
        (lambda x: x.argmin(axis=0), np.zeros((0, 3)), ValueError, "attempt to get argmin of an empty sequence"),
        (lambda x: x.argmax(axis=1), np.zeros((3, 0)), ValueError, "empty sequence"),
        (lambda x: np.argmax(x, axis=(0,)), np.zeros(3), TypeError, "cannot be interpreted as an integer"),
        (lambda x: np.argmax(x, axis=2), np.zeros((2, 3)), np.exceptions.AxisError, "out of bounds"),
        (lambda x: np.std(x, axis=(0, 0)), np.zeros((2, 3)), ValueError, "duplicate value"),
        (lambda x: np.ptp(x), np.zeros(0), ValueError, "reduction operation maximum which has no identity"),
        (lambda x: np.ptp(x), np.ones(3, bool), TypeError, "boolean subtract"),
        (lambda x: np.nanmax(x, axis=0), np.zeros((0, 2)), ValueError, "operation fmax which has no identity"),
        (lambda x: np.nanmin(x), np.zeros(0, np.int32), ValueError, "operation fmin which has no identity"),
        (lambda x: np.var(x, ddof=1, correction=1), np.ones(3), ValueError, "ddof and correction"),
        (lambda x: np.nanmean(x, dtype=np.int64), np.ones(3), TypeError, "dtype must be inexact"),
        (lambda x: np.average(x, weights=np.ones(3)), np.ones((2, 3)), TypeError, "Axis must be specified"),
        (lambda x: np.average(x, axis=0, weights=np.ones(3)), np.ones((2, 3)), ValueError, "Shape of weights"),
        (lambda x: np.cumsum(x, axis=1), np.ones(3), np.exceptions.AxisError, "out of bounds"),
    ],
)
def test_numpy_errors(fn, x, error, message):
    with pytest.raises(error, match=message):
        fn(x)  # NumPy's own
    c = compiler.compile(fn)
    with pytest.raises(error, match=message):
        c(x)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: np.average(x, weights=x, returned=True),
        lambda x: np.std(x, where=x > 0),
        lambda x: np.var(x, dtype=np.int64),
        lambda x: np.any(x, where=x > 0),
    ],
)
def test_unsupported_arguments_run_in_cpython(fn):
    x = data(np.float64, (3, 4)) + 10
    out = compiler.explain(fn)(x)
    assert out.graph_break_count >= 1 and "is not supported" in str(out.break_reasons[0])
    same(out.result, fn(x))


def test_table_rows_and_methods():
    for f in (np.std, np.var, np.argmax, np.argmin, np.any, np.all, np.count_nonzero, np.nansum, np.nanmean):
        assert f in TABLE
    for f in (np.nanmax, np.nanmin, np.average, np.ptp, np.cumsum, np.cumprod):
        assert f in TABLE
    for name in ("std", "var", "argmax", "argmin", "any", "all", "cumsum", "cumprod"):
        assert name in TABLE and name in ARRAY_METHODS and hasattr(np.ndarray, name)
    assert "ptp" not in ARRAY_METHODS and not hasattr(np.ndarray, "ptp")  # NumPy 2 has no ndarray.ptp
    assert not numpy_reductions.ARRAY_RESULTS


@pytest.mark.parametrize(
    "source, shape",
    [
        ("x.sum()", (7,)),
        ("x.sum()", (2, 3)),
        ("x.sum(axis=1)", (5, 7)),
        ("x.mean(axis=0)", (6, 9)),
        ("x.trace()", (7, 7)),
        ("np.trace(x, 0, 2, 1)", (2, 3, 4)),
        ("x[::-1, ::2].sum(axis=0)", (3, 10)),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_of_fewer_than_eight_are_numpys_bit_for_bit(source, shape, dtype):
    """NumPy adds fewer than 8 elements one after the other; so does Ember (a longer sum
    may be added in vector lanes: equal up to rounding). Values of wildly different
    sizes, where another order rounds differently."""
    fn = compiler.compile(eval(f"lambda x: {source}", {"np": np}))  # noqa: S307 - test code
    rng = np.random.default_rng(7)
    for _ in range(20):
        x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 9, shape)).astype(dtype)
        want, got = eval(source, {"np": np, "x": x}), fn(x)  # noqa: S307 - test code
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def test_nan_scans_and_cumulative_sums():
    """np.nancumsum/np.nancumprod (NaN as 0 and 1, then NumPy's sequential scan: its bits),
    np.cumulative_sum/np.cumulative_prod (axis needed past 1-d, include_initial)."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal(40)
    x[[3, 17]] = np.nan
    A, ints = rng.standard_normal((5, 6)), rng.integers(-3, 4, 12)
    A[1, 2] = np.nan
    for fn, args in [
        (lambda x, A: (np.nancumsum(x), np.nancumprod(x.astype(np.float32)[:10]), np.nancumsum(A, axis=1)), (x, A)),
        (lambda i: (np.nancumsum(i), np.cumulative_prod(i, include_initial=True)), (ints,)),
        (lambda x, A: (np.cumulative_sum(x), np.cumulative_sum(A, axis=0, include_initial=True)), (x, A)),
    ]:
        got, want = compiler.compile(fn, options={"strict": True})(*args), fn(*args)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g, w, equal_nan=True)
    with pytest.raises(ValueError, match="axis"):
        compiler.compile(lambda A: np.cumulative_sum(A))(A)
