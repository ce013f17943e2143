"""``ember-fuse-loop-nests``: a stored array and the loop reading it back fused into one
pass, the running sum carried in a register. Compiled functions of that shape (row and
column softmax, logsumexp, normalizing by a sum, both arrays returned) give NumPy's
values on odd sizes, views, special values and in-place updates; the softmax kernel
really is one fused, carried loop."""

import re

import numpy as np
import pytest
from graph_building import loops_of

import compiler
from benchmarks.workloads import softmax_numpy as softmax_rows

RNG = np.random.default_rng(5)


def softmax_columns(x):
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def logsumexp_rows(x):
    m = x.max(axis=1, keepdims=True)
    return m + np.log(np.exp(x - m).sum(axis=1, keepdims=True))


def normalize_squares(x):
    s = x * x
    return s / s.sum(axis=-1, keepdims=True)


def exp_and_its_sums(x):
    e = np.exp(x)
    return e, e.sum(axis=1)


def min_max_scaled(x):
    """Two sibling reductions over the same input: one pass, two running values."""
    lo, hi = x.min(), x.max()
    return (x - lo) / (hi - lo), lo, hi


def sum_and_sum_of_squares(x):
    a = np.abs(x)  # positive terms: sums with no cancellation, so a relative tolerance holds
    return a.sum(axis=1), (x * x).sum(axis=1), a.sum()


FUNCTIONS = [
    softmax_rows,
    softmax_columns,
    logsumexp_rows,
    normalize_squares,
    exp_and_its_sums,
    min_max_scaled,
    sum_and_sum_of_squares,
]
TOLERANCE = {np.float32: 3e-5, np.float64: 1e-13}  # the sums add in another order than NumPy's


def _inputs(shape, dtype, view):
    base = RNG.standard_normal((shape[0] * 2 + 1, shape[1] * 2 + 1)).astype(dtype) * 4
    if view == "contiguous":
        return np.ascontiguousarray(base[: shape[0], : shape[1]])
    if view == "strided":  # every other row and column
        return base[: 2 * shape[0] : 2, : 2 * shape[1] : 2]
    if view == "transposed":
        return np.ascontiguousarray(base[: shape[1], : shape[0]]).T
    return base[shape[0] - 1 :: -1, : shape[1]] if shape[0] else base[:0, : shape[1]]  # reversed rows


def _check(got, want, dtype):
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=TOLERANCE[dtype], atol=0, equal_nan=True)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (1, 1), (3, 7), (2, 33), (17, 1000), (130, 257)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("view", ["contiguous", "strided", "transposed", "reversed"])
def test_matches_numpy(fn, shape, dtype, view):
    x = _inputs(shape, dtype, view)
    with np.errstate(all="ignore"):
        try:
            want = fn(x)
        except ValueError as e:  # max or min over an empty axis: NumPy's error, from Ember too
            with pytest.raises(ValueError, match=str(e)):
                compiler.compile(fn)(x)
            return
        got = compiler.compile(fn)(x)
    _check(got, want, dtype)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(fn, dtype):
    """A NaN row, an inf row, a -inf row (0/0 in softmax), huge spreads (exp underflows
    to subnormals and 0), -0.0 and a row of equal values."""
    x = RNG.standard_normal((8, 19)).astype(dtype)
    x[0, 3] = np.nan
    x[1, 5] = np.inf
    x[2, :] = -np.inf
    x[3, ::2] = -700.0 if dtype == np.float64 else -90.0
    x[4, :] = -0.0
    x[5, :] = 2.5
    x[6, 1] = np.finfo(dtype).max
    with np.errstate(all="ignore"):
        want = fn(x)
        got = compiler.compile(fn)(x)
    _check(got, want, dtype)


def test_in_place_update_of_the_stored_array():
    """The exponentials written into the caller's array, then normalized in place."""

    def normalize_in_place(x):
        np.exp(x, out=x)
        x /= x.sum(axis=1, keepdims=True)
        return x

    x = RNG.standard_normal((33, 65))
    want = normalize_in_place(x.copy())
    got = compiler.compile(normalize_in_place)(x)
    assert got is x
    np.testing.assert_allclose(x, want, rtol=1e-14)


def test_softmax_is_one_carried_pass_over_the_tile():
    """The exponentials are stored and summed in one innermost loop carrying the sum;
    no loop reads them back before the division."""
    loops = loops_of(softmax_rows, np.ones((64, 256), np.float32))
    carried = re.findall(r"scf\.for [^\n]*iter_args\(([^)]*)\) -> \(f32\) \{(.*?)scf\.yield", loops, re.S)
    fused = [body for _, body in carried if "math.exp" in body and "memref.store" in body]
    assert len(fused) == 1, loops
    assert len(re.findall(r"math\.exp", loops)) == 1
    # the max, the fused exp-and-sum, the division: three innermost passes per tile
    assert len(re.findall(r"scf\.for %\w+ = %\w+ to %c256", loops)) == 3, loops


def test_min_and_max_are_one_pass():
    """x.min() and x.max(): one innermost loop carrying both running values (each as
    the two integer keys of ``ember-integer-extrema``)."""
    loops = loops_of(min_max_scaled, np.ones((64, 256), np.float32))
    assert re.search(r"scf\.for [^\n]*iter_args\([^)]*\) -> \(i32, i32, i32, i32\)", loops), loops
    assert len(re.findall(r"arith\.(maxsi|minsi) .*: i32", loops)) == 4
