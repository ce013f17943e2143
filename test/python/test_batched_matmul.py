"""Batched matmuls (``a @ b`` on 3-D and higher): one BLAS ``?gemm`` per batch entry for
float32/float64 (several batch dims collapsed into one), checked against NumPy on
views, dynamic sizes and empty dims (tiling a loop of 0 iterations once crashed)."""

import numpy as np
import pytest

import compiler
from compiler.backends import EagerGraph
from compiler.passes.pass_manager import run_pipeline

SHAPES = [
    ((2, 4, 8), (2, 8, 3)),
    ((3, 1, 5), (3, 5, 1)),
    ((0, 2, 2), (0, 2, 2)),
    ((2, 3, 16, 8), (2, 3, 8, 5)),
    ((2, 3, 4, 6, 8), (2, 3, 4, 8, 5)),
]


def _close(got, want, dtype):
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * max(1.0, float(np.abs(want).max(initial=0))))


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_batched_products_match_numpy(shapes, dtype):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype(dtype) if dtype != np.int64 else rng.integers(-5, 5, s) for s in shapes)
    got = compiler.compile(lambda a, b: a @ b, options={"strict": True})(a, b)
    assert got.dtype == (a @ b).dtype
    _close(got, a @ b, dtype if dtype != np.int64 else np.float64)


def test_views_and_transposes():
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 3, 16, 8))
    for fn in (
        lambda q: q @ q.transpose(0, 1, 3, 2),
        lambda q: q[:, ::-1] @ q[:, :, ::2].transpose(0, 1, 3, 2)[..., :8],
        lambda q: q[0] @ q[1].transpose(0, 2, 1),
    ):
        _close(compiler.compile(fn, options={"strict": True})(q), fn(q), np.float64)


def test_dynamic_sizes_and_empty_dims():
    f = compiler.compile(lambda q: q @ q.transpose(0, 1, 3, 2), dynamic=True)
    rng = np.random.default_rng(2)
    for shape in [(2, 3, 16, 8), (2, 0, 3, 4), (0, 2, 3, 4), (2, 3, 0, 4), (2, 3, 4, 0), (1, 1, 1, 1)]:
        q = rng.standard_normal(shape)
        _close(f(q), q @ q.transpose(0, 1, 3, 2), np.float64)


@pytest.mark.parametrize("rank", [3, 4])
def test_float_batches_call_gemm_per_entry(rank):
    shape = (2, 3, 4, 5)[4 - rank :]
    modules = []
    compiler.compile(lambda a: a @ a.swapaxes(-1, -2), backend=lambda m, ex: modules.append(m) or EagerGraph(m))(
        np.ones(shape)
    )
    run_pipeline(modules[0], "builtin.module(lower-to-loops)")
    text = str(modules[0])
    assert "call @ember_matmul_f64" in text and "scf.for" in text


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(10, 8), (1, 5), (5, 1), (0, 3), (3, 0), (70, 65)])
def test_gram_matrices(dtype, shape):
    """``A.T @ A`` and ``A @ A.T`` (BLAS syrk and a mirrored triangle), also of views."""
    A = np.random.default_rng(3).standard_normal(shape).astype(dtype)
    for fn in (lambda A: A.T @ A, lambda A: A @ A.T, lambda A: A[::-1].T @ A[::-1], lambda A: A.T[:, ::2] @ A[::2]):
        got = compiler.compile(fn, options={"strict": True})(A)
        np.testing.assert_allclose(got, fn(A), rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-4)
        np.testing.assert_array_equal(got, got.T)  # exactly symmetric, as NumPy's
