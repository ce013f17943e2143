"""Elementwise ops over short rows (``ember-collapse-rows``): the same values as NumPy
for contiguous arrays (one flat loop) and for every view (two loops, untouched), and the
flat loop is what the contiguous variant compiles."""

import numpy as np
import pytest

import compiler
from compiler.backends import compile_graph
from compiler.dialects import ember
from compiler.mlir import function_named, ir
from compiler.passes.bufferize import set_contiguous
from compiler.passes.pass_manager import run_pipeline

RNG = np.random.default_rng(7)

FUNCTIONS = {
    "exp": lambda x, y: np.exp(x),
    "affine": lambda x, y: x * 1.5 + y,
    "tanh_mix": lambda x, y: np.tanh(x) - y * y,
    "row_broadcast": lambda x, y: x - x.max(axis=-1, keepdims=True),  # stays two loops
}


def views(shape, dtype):
    """Contiguous arrays and views of the same shape: reversed, strided, transposed."""
    big = RNG.standard_normal((shape[0], 2 * shape[1])).astype(dtype)
    yield "contiguous", RNG.standard_normal(shape).astype(dtype)
    yield "reversed rows", RNG.standard_normal(shape).astype(dtype)[::-1]
    yield "strided columns", big[:, ::2]
    yield "transposed", np.ascontiguousarray(RNG.standard_normal(shape[::-1]).astype(dtype)).T


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("rows", [0, 1, 7, 300])
@pytest.mark.parametrize("row", [2, 3, 10, 32, 33])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_numpy(name, rows, row, dtype):
    fn = FUNCTIONS[name]
    compiled = compiler.compile(fn)
    for _, x in views((rows, row), dtype):
        y = RNG.standard_normal((rows, row)).astype(dtype)
        y[:, 0] = -0.0
        if x.size:
            x[0, ...] = [np.nan, np.inf, -np.inf, -0.0][:row] + [1.0] * max(0, row - 4)
        want, got = fn(x, y), compiled(x, y)
        assert got.dtype == want.dtype and got.shape == want.shape
        tol = 2e-6 if dtype == np.float32 else 1e-14  # tanh within 2 ulp; x - y*y cancels
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_a_stack_of_points_matches_numpy():
    pts = RNG.standard_normal((4, 500, 3))
    fn = lambda p: np.sqrt(np.exp(p) + 1.0)  # noqa: E731
    np.testing.assert_allclose(compiler.compile(fn)(pts), fn(pts), rtol=1e-14)


def _loops(fn, x, contiguous: bool) -> str:
    """``lower-to-loops`` of ``fn``'s graph, for the all-contiguous or the strided variant."""
    modules = []

    def recording(module, example_inputs):
        modules.append(str(module))
        return compile_graph(module, "cpu")

    compiler.compile(fn, backend=recording)(x)
    with ember.new_context():
        module = ir.Module.parse(modules[0])
        set_contiguous(function_named(module), (contiguous,))
        run_pipeline(module, "builtin.module(lower-to-loops)")
        return str(module)


def test_the_contiguous_variant_runs_one_flat_loop():
    """Contiguous (N, 10): one loop over the collapsed buffers; a strided variant keeps
    its loop of 10 per row."""
    x = RNG.standard_normal((64, 10))
    fn = lambda a: np.exp(a)  # noqa: E731
    flat, strided = _loops(fn, x, True), _loops(fn, x, False)
    assert flat.count("memref.collapse_shape") == 2 and "scf.for" in flat
    assert "memref.collapse_shape" not in strided and "to %c10 step" in strided
