"""``alpha * A @ x``: the scalar moves onto the product (BLAS's alpha), so no scaled copy
of the matrix is written; results equal NumPy's within the rounding of a reordered
product."""

import numpy as np
import pytest

import compiler
from compiler.backends import EagerGraph


def _graph(fn, *args) -> str:
    modules = []
    compiler.compile(fn, backend=lambda m, ex: modules.append(m) or EagerGraph(m))(*args)
    return str(modules[0])


CASES = [
    lambda A, x: 1.5 * A @ x,
    lambda A, x: (A * -2.0) @ x,
    lambda A, x: (x * 0.5) @ A.T,
    lambda A, x: 1.5 * A @ x + 2.5 * (A * 4.0) @ x,
    lambda A, x: 0.5 * (2.0 * A) @ x,
    lambda A, x: (3.0 * A) @ (A.T * 0.25),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(7, 5), (1, 1), (0, 3), (40, 33)])
def test_scaled_products_match_numpy(case, dtype, shape):
    rng = np.random.default_rng(case)
    A = rng.standard_normal(shape).astype(dtype)
    x = rng.standard_normal(shape[1]).astype(dtype)
    fn = CASES[case]
    want = fn(A, x)
    got = compiler.compile(fn, options={"strict": True})(A, x)
    assert got.dtype == want.dtype and got.shape == want.shape
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * max(1.0, float(np.abs(want).max(initial=0))))


def test_the_matrix_is_contracted_unscaled():
    text = _graph(lambda A, x: 1.5 * A @ x, np.ones((4, 3)), np.ones(3))
    assert '"ember.matmul"(%arg0, %arg1)' in text  # the argument itself, not a scaled copy


def test_special_values_propagate_like_numpy():
    A = np.array([[np.inf, 1.0], [np.nan, -0.0]])
    x = np.array([1.0, 2.0])
    for scale in (0.0, -1.0, np.inf):
        fn = lambda A, x: scale * A @ x  # noqa: E731
        with np.errstate(invalid="ignore"):
            want = fn(A, x)
            got = compiler.compile(fn)(A, x)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(got[~np.isnan(want)], want[~np.isnan(want)])


def test_integer_matrices_are_left_alone():
    text = _graph(lambda A, x: 3 * A @ x, np.ones((4, 3), np.int64), np.ones(3, np.int64))
    assert '"ember.matmul"(%arg0, %arg1)' not in text
