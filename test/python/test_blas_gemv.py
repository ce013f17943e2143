"""Matrix-vector products and transposed operands through BLAS, against NumPy.

``A @ y`` / ``y @ A`` call ``?gemv``; ``A.T @ y``, ``A.T @ B``, ``A @ B.T`` hand BLAS
the untransposed array with its transpose flag instead of copying the transpose
first. Every NumPy view must still give NumPy's answer: BLAS where the strides allow,
loops where they do not (negative, zero or non-unit strides in both dims, size 0).
"""

import re

import numpy as np
import pytest
from blas_oracle import assert_product_equal

import compiler
from compiler.backends.llvm_cpu import lower_to_object
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType
from runtime import blas_symbols

RTOL = {np.float64: 1e-12, np.float32: 1e-5}

PROGRAMS = {
    "A@y": (lambda A, y: A @ y, ("m", "k"), ("k",)),
    "A.T@y": (lambda A, y: A.T @ y, ("k", "m"), ("k",)),
    "y@A": (lambda y, A: y @ A, ("k",), ("k", "m")),
    "y@A.T": (lambda y, A: y @ A.T, ("k",), ("m", "k")),
    "A@B": (lambda A, B: A @ B, ("m", "k"), ("k", "n")),
    "A.T@B": (lambda A, B: A.T @ B, ("k", "m"), ("k", "n")),
    "A@B.T": (lambda A, B: A @ B.T, ("m", "k"), ("n", "k")),
    "A.T@B.T": (lambda A, B: A.T @ B.T, ("k", "m"), ("n", "k")),
}
# (m, k, n): size-1 and size-0 dims on each side; f32 on one shape (same code paths).
CASES = [(s, np.float64) for s in [(5, 7, 3), (1, 7, 3), (5, 1, 3), (5, 7, 1), (0, 4, 3), (4, 0, 3)]]
CASES += [((5, 7, 3), np.float32)]


def views(shape, dtype, rng) -> dict:
    """The same-shaped NumPy views of one array: contiguous, transposed, strided, reversed..."""
    big = 2 * max(shape) + 2
    base = rng.standard_normal((big,) * len(shape)).astype(dtype)
    out = {
        "contiguous": base[tuple(slice(0, s) for s in shape)].copy(),
        "step2": base[tuple(slice(0, 2 * s, 2) for s in shape)],
        "reversed": base[tuple(slice(None, None, -1) for _ in shape)][tuple(slice(0, s) for s in shape)],
    }
    if len(shape) == 2:
        out["transposed"] = np.ascontiguousarray(base[: shape[1], : shape[0]]).T
        out["transposed_reversed"] = base[: shape[1], : shape[0]].T[::-1]
        out["block"] = base[1 : 1 + shape[0], 2 : 2 + shape[1]]
        out["broadcast_row"] = np.broadcast_to(base[0, : shape[1]], shape)
    else:
        out["broadcast"] = np.broadcast_to(base[:1], shape)
    return out


def close(got, want, dtype, k):
    assert got.shape == want.shape and got.dtype == want.dtype
    rtol = RTOL[dtype]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * max(1, k))


@pytest.mark.parametrize("program", list(PROGRAMS))
@pytest.mark.parametrize(
    "shape, dtype", CASES, ids=lambda c: "x".join(map(str, c)) if isinstance(c, tuple) else c.__name__
)
def test_every_view_matches_numpy(program, shape, dtype):
    fn, left, right = PROGRAMS[program]
    sizes = dict(zip("mkn", shape))
    rng = np.random.default_rng(0)
    lefts = views(tuple(sizes[d] for d in left), dtype, rng)
    rights = views(tuple(sizes[d] for d in right), dtype, rng)
    compiled = compiler.compile(fn)
    for ln, a in lefts.items():
        for rn, b in rights.items():
            try:
                close(compiled(a, b), fn(a, b), dtype, sizes["k"])
            except AssertionError as e:
                raise AssertionError(f"{program} with {ln} x {rn}: {e}") from None


def matvec_update(A, x1, x2, y1, y2):
    x1 += A @ y1
    x2 += A.T @ y2


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["contiguous", "fortran", "reversed", "strided_vectors"])
@pytest.mark.parametrize("m, k", [(40, 30), (1, 5), (5, 1), (0, 3)])
def test_matvec_update_in_place(layout, m, k, dtype):
    """benchmarks/inplace.py's program: the updates land in the arrays passed in."""
    rng = np.random.default_rng(2)
    A = rng.standard_normal((m, k)).astype(dtype)
    A = {"fortran": np.asfortranarray(A), "reversed": A[::-1, ::-1]}.get(layout, A)
    step = 2 if layout == "strided_vectors" else 1
    bases = [rng.standard_normal(step * s).astype(dtype) for s in (m, k, k, m)]
    want = [base.copy()[::step] for base in bases]
    matvec_update(A, *want)
    got = [base.copy()[::step] for base in bases]  # views into bigger arrays when strided
    compiler.compile(matvec_update)(A, *got)
    for g, w in zip(got, want):
        close(g, w, dtype, k)


def kernel_llvm_ir(program: str) -> str:
    b = FunctionBuilder("f", [TensorType((6, 5), "f64"), TensorType((4, 5) if "B" in program else (5,), "f64")])
    a, other = b.args
    if program == "A@y":
        out = b.op("matmul", a, other)
    elif program == "y@A.T":
        out = b.op("matmul", other, b.op("transpose", a, perm=[1, 0]))
    else:  # A @ B.T
        out = b.op("matmul", a, b.op("transpose", other, perm=[1, 0]))
    return lower_to_object(b.finish([out]), "f", (True, True)).llvm_ir


@pytest.mark.skipif(not blas_symbols.available(), reason="this NumPy links no ILP64 OpenBLAS")
@pytest.mark.parametrize(
    "program, helper",
    [("A@y", "ember_matvec_loops_f64"), ("y@A.T", "ember_matvec_loops_f64"), ("A@B.T", "ember_matmul_f64")],
)
def test_transposed_operand_is_not_copied(program, helper):
    """The kernel calls the BLAS helper on the argument itself: no buffer is allocated
    (only the helper's packing path, for strides BLAS cannot take, would)."""
    from runtime import abi

    llvm_ir = kernel_llvm_ir(program)
    assert f"call void @{helper}(" in llvm_ir
    kernel = re.search(rf"define [^\n]*@{abi.kernel_symbol('f')}\(.*?\n}}\n", llvm_ir, re.S).group(0)
    assert "alloc" not in kernel


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_vector_dot_is_blas_dot(dtype, n):
    """``x @ y`` / ``np.dot`` of vectors call ``?dot``, the routine NumPy calls: the same
    value, bit for bit, on contiguous and positively strided views; negative strides and
    a loop fallback still give NumPy's answer up to rounding."""
    rng = np.random.default_rng(n)
    x, y = (rng.standard_normal(2 * n).astype(dtype) for _ in range(2))
    for fn in (
        lambda x, y: x[:n] @ y[:n],
        lambda x, y: np.dot(x[::2], y[1::2]),
        lambda x, y: x[n:] @ y[:n] + 1.0,
    ):
        got, want = compiler.compile(fn, options={"strict": True})(x, y), fn(x, y)
        assert type(got) is type(want)
        assert_product_equal(got, want)
    fn = lambda x, y: x[::-2] @ y[::2]  # noqa: E731
    got, want = compiler.compile(fn)(x, y), fn(x, y)
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=RTOL[dtype] * n)


def test_dots_in_an_unrolled_loop_match_numpy():
    from benchmarks.corpus.dsp import autocorrelation  # r[k] = x[: n - k] @ x[k:] for each lag

    x = np.random.default_rng(0).standard_normal(500)
    np.testing.assert_allclose(compiler.compile(autocorrelation)(x, 6), autocorrelation(x, 6), rtol=1e-12)
