"""Reductions over values masked with their identity (``ember-opaque-identities``, and
exp's zero below its range in ``ember-expand-math``): causal attention's softmax and
masked mins give NumPy's values, fully masked rows (NaN) included, and the masked max
vectorizes."""

import re

import numpy as np
import pytest
from graph_building import optimized_llvm_ir

import compiler

RNG = np.random.default_rng(17)


def causal_softmax(scores):
    t = scores.shape[-1]
    causal = np.arange(t)[:, None] >= np.arange(t)[None, :]
    s = np.where(causal, scores, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    return w / w.sum(axis=-1, keepdims=True)


def masked_softmax(scores, keep):
    s = np.where(keep, scores, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def masked_min(x, keep):
    return np.where(keep, x, np.inf).min(axis=-1), np.where(keep, x, -np.inf).max()


TOLERANCE = {np.float32: 3e-6, np.float64: 1e-14}
# exp's results below the normal range hold fewer bits: one unit of the last subnormal
# place apart is as close as they can be (float32 rows scaled by 30 reach them)
SUBNORMAL_ULP = {t: np.finfo(t).smallest_subnormal for t in (np.float32, np.float64)}


@pytest.mark.parametrize("t", [1, 2, 5, 33, 256])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_causal_softmax_matches_numpy(t, dtype):
    x = (RNG.standard_normal((2, 3, t, t)) * 4).astype(dtype)
    if t > 2:
        x[0, 0, 2, 1] = np.nan  # a NaN in a kept place: its row is NaN
    with np.errstate(all="ignore"):
        want = causal_softmax(x)
    got = compiler.compile(causal_softmax)(x)
    np.testing.assert_allclose(got, want, rtol=TOLERANCE[dtype], atol=SUBNORMAL_ULP[dtype], equal_nan=True)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_masked_rows_and_fully_masked_rows(dtype):
    """A fully masked row is -inf - -inf: NaN, as in NumPy; the masked places are 0."""
    x = (RNG.standard_normal((9, 40)) * 30).astype(dtype)
    keep = RNG.random((9, 40)) < 0.5
    keep[3] = False
    keep[4] = True
    x[5, ::3] = -np.inf
    with np.errstate(all="ignore"):
        want = masked_softmax(x, keep)
        got = compiler.compile(masked_softmax)(x, keep)
    np.testing.assert_allclose(got, want, rtol=TOLERANCE[dtype], atol=SUBNORMAL_ULP[dtype], equal_nan=True)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(got[3]).all() and (got[~keep & ~np.isnan(want)] == 0).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_masked_min_and_max(dtype):
    x = RNG.standard_normal((7, 300)).astype(dtype)
    keep = RNG.random((7, 300)) < 0.3
    keep[2] = False  # min over nothing kept: inf
    x[4, 7] = np.nan
    keep[4, 7] = True
    got, want = compiler.compile(masked_min)(x, keep), masked_min(x, keep)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_the_masked_max_vectorizes():
    """where(causal, x, -inf).max(-1): a vector max of keys (``ember-integer-extrema``) in
    the optimized kernel (LLVM's own folding of the -inf had left a scalar loop)."""
    x = RNG.standard_normal((4, 64, 64))

    def row_max(s):
        t = s.shape[-1]
        return np.where(np.arange(t)[:, None] >= np.arange(t)[None, :], s, -np.inf).max(axis=-1)

    assert "llvm.smax.v8i64" in optimized_llvm_ir(row_max, x)
    np.testing.assert_array_equal(compiler.compile(row_max)(x), row_max(x))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8])
def test_flat_argmax_and_argmin_match_numpy_and_vectorize(dtype):
    """``np.argmax(x)`` of a flat array: the max, then the first index holding it (or a
    NaN) as ``minsi(acc, select(hit, i, INT64_MAX))``. Its INT64_MAX opaque, the index
    loop vectorizes (LLVM had folded the select into a scalar loop: 0.09x NumPy's speed
    on 1M float64). Ties take the first; a NaN wins wherever it is; one element."""
    x = (RNG.standard_normal(5000) * 50).astype(dtype)
    x[[17, 3000, 4999]] = x.max()  # ties: the first is the answer
    x[[5, 2500]] = x.min()

    def arg_both(v):
        return np.argmax(v), np.argmin(v)

    fn = compiler.compile(arg_both)
    assert fn(x) == arg_both(x)
    assert fn(x[:1]) == (0, 0)
    assert fn(x[::-3]) == arg_both(x[::-3])
    if np.issubdtype(dtype, np.floating):
        y = x.copy()
        y[[1234, 4000]] = np.nan
        assert fn(y) == arg_both(y) == (1234, 1234)
    if dtype == np.float64:  # the index loop's NaN test on vectors: it vectorized
        assert re.search(r"fcmp uno <\d+ x double>", optimized_llvm_ir(lambda v: np.argmax(v), x))
