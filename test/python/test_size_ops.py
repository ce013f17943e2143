"""The size ops: ``size_constant``, ``size_arith``, ``to_index`` and ``from_index``.

They compute ``index`` values inside an Ember graph, as the frontend traces a
symbolic size (``s0 - 2``, ``s0 // 4``, ``max(s0, s1)``) or a Python int argument
``n`` (passed as a 0-d int64 array). Each graph runs through the reference
interpreter and the CPU backend (object code) and both are compared with NumPy and
Python: at sizes 0, 1, 2 and large, on non-contiguous and negative-stride inputs, and
with negative operands for Python's floor division and remainder. The runtime's shape
memo is keyed by the int inputs' values as well as the shapes.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from graph_building import T, build, lowered

from compiler.backends.llvm_cpu import compile_graph_module, compile_module, signature_of
from compiler.dialects import interpreter, ops
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.shapes import ShapeProgram, value_inputs
from compiler.dialects.types import TensorType
from compiler.mlir import function_named, ir
from runtime.kernel import KernelPair

N = None  # a dynamic size
INT = TensorType((), "i64")  # a Python int argument


class Both:
    """A graph run by the interpreter and by its compiled kernel (compiled once)."""

    def __init__(self, module: ir.Module, graph=compile_module):
        lowered(module)
        self.module = module
        self.kernel = graph(module)

    def __call__(self, *inputs) -> list:
        want = interpreter.run(self.module, *inputs)
        got = self.kernel(*inputs)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w, strict=True)
        return list(got)


def n(value: int, dtype=np.int64) -> np.ndarray:
    return np.array(value, dtype)


def noncontiguous(a: np.ndarray) -> list[np.ndarray]:
    """``a``'s values as a strided view and as a negative-stride view."""
    wide = np.zeros((a.shape[0] * 2,) + a.shape[1:], a.dtype)
    wide[::2] = a
    rev = np.array(a[::-1], copy=True)
    return [wide[::2], rev[::-1]]


# ----------------------------------------------------------------------------- size arithmetic, Python's semantics


@pytest.mark.parametrize("op", sorted(ops.SIZE_ARITH))
def test_size_arith_with_negative_operands_is_pythons(op):
    """``a <op> b`` on the ints of two 0-d arrays (one int64, one int32), returned as an array."""
    module = build(
        [INT, T((), "i32")],
        lambda b, x, y: b.from_index(b.size_arith(op, b.to_index(x), b.to_index(y))),
    )
    graph = Both(module)
    assert graph.kernel.signature.value_inputs == (0, 1)
    for a, d in itertools.product([-9, -8, -7, -3, -1, 0, 1, 2, 3, 7, 8, 9, 2**40], [-7, -4, -3, -1, 1, 2, 3, 4, 7]):
        (got,) = graph(n(a), n(d, np.int32))
        assert int(got) == ops.SIZE_ARITH[op](a, d), (a, op, d)


@pytest.mark.parametrize("op", ["floordiv", "mod"])
def test_a_zero_divisor_raises_before_any_kernel(op):
    module = build([INT, INT], lambda b, x, y: b.from_index(b.size_arith(op, b.to_index(x), b.to_index(y))))
    kernel = compile_module(module)
    with pytest.raises(ZeroDivisionError):
        interpreter.run(module, n(5), n(0))
    with pytest.raises(ZeroDivisionError):  # from the shape program, which replays every size op
        kernel(n(5), n(0))
    assert int(kernel(n(-5), n(2))[0]) == ops.SIZE_ARITH[op](-5, 2)


def test_size_constant_and_arith_in_a_static_graph():
    """6 * 7 - 2 from constants alone, as an array, scaling a static input."""

    def body(b, x):
        size = b.size_arith("sub", b.size_arith("mul", b.size_constant(6), b.size_constant(7)), b.size_constant(2))
        scale = b.op("cast", b.from_index(size), result=T((), "f32"))
        return b.op("mul", x, b.op("broadcast_to", scale, result=T((4,))))

    graph = Both(build([T((4,))], body))
    assert graph.kernel.signature.value_inputs == ()
    (got,) = graph(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(got, np.arange(4, dtype=np.float32) * 40)


# ----------------------------------------------------------------------------- sizes from dims


def _inner(b, x):
    """``x[1 : len(x) - 1]``: a slice whose ``?`` length is ``dim(x, 0) - 2``."""
    length = b.size_arith("sub", b.dim(x, 0), b.size_constant(2))
    return b.op("slice", x, result=T((N,)), sizes=[length], starts=(1,), steps=(1,))


@pytest.fixture(scope="module")
def inner():
    return Both(build([T((N,))], _inner))


@pytest.mark.parametrize("size", [2, 3, 4, 1000, 100_003])
def test_slice_sized_by_arithmetic_on_a_dim(inner, size):
    x = np.random.default_rng(size).standard_normal(size).astype(np.float32)
    for a in [x, *noncontiguous(x)]:
        (got,) = inner(a)
        np.testing.assert_array_equal(got, x[1 : size - 1], strict=True)


@pytest.mark.parametrize("size", [0, 1])
def test_a_negative_size_is_an_error_not_a_kernel_call(inner, size):
    with pytest.raises(ValueError, match="negative size -"):
        interpreter.run(inner.module, np.zeros(size, np.float32))
    with pytest.raises(ValueError, match="negative size -"):
        inner.kernel(np.zeros(size, np.float32))


def test_strided_and_remainder_lengths():
    """``x[::2]`` (length ``(n + 1) // 2``) and ``x[: n - n % 4]`` in one 2-d graph."""

    def body(b, x):
        rows = b.dim(x, 0)
        half = b.size_arith("floordiv", b.size_arith("add", rows, b.size_constant(1)), b.size_constant(2))
        whole = b.size_arith("sub", rows, b.size_arith("mod", rows, b.size_constant(4)))
        cols = b.dim(x, 1)
        evens = b.op("slice", x, result=T((N, N)), sizes=[half, cols], starts=(0, 0), steps=(2, 1))
        blocks = b.op("slice", x, result=T((N, N)), sizes=[whole, cols], starts=(0, 0), steps=(1, 1))
        return evens, blocks

    graph = Both(build([T((N, N))], body))
    for rows, cols in [(0, 3), (1, 1), (2, 5), (7, 4), (1001, 33)]:
        x = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
        for a in [x, *noncontiguous(x)]:
            evens, blocks = graph(a)
            np.testing.assert_array_equal(evens, x[::2], strict=True)
            np.testing.assert_array_equal(blocks, x[: rows - rows % 4], strict=True)


def test_size_as_an_array_operand():
    """``x * x.shape[0]`` for int and float ``x``: ``from_index`` of a dim, broadcast."""

    def body(b, i, f):
        results = []
        for x, dtype in ((i, "i64"), (f, "f32")):
            size = b.from_index(b.dim(x, 0))
            if dtype != "i64":
                size = b.op("cast", size, result=T((), dtype))
            scale = b.op("broadcast_to", size, result=T((N,), dtype), sizes=[b.dim(x, 0)])
            results.append(b.op("mul", x, scale))
        return results

    graph = Both(build([T((N,), "i64"), T((N,), "f32")], body))
    for size in [0, 1, 2, 5, 4099]:
        i = np.arange(size, dtype=np.int64) - 3
        f = np.linspace(-1, 1, size, dtype=np.float32)
        for a, c in zip([i, *noncontiguous(i)], [f, *noncontiguous(f)]):
            got_i, got_f = graph(a, c)
            np.testing.assert_array_equal(got_i, i * size, strict=True)
            np.testing.assert_array_equal(got_f, f * np.float32(size), strict=True)


# ----------------------------------------------------------------------------- sizes from int arguments


def _zeros_and_arange(b, count):
    """``np.zeros(n, float32)`` and ``np.arange(n)``, ``n`` a 0-d int64 argument."""
    size = b.to_index(count)
    zero = b.constant(np.float32(0))
    zeros = b.op("broadcast_to", zero, result=T((N,)), sizes=[size])
    arange = b.op("iota", result=T((N,), "i64"), sizes=[size], axis=0)
    return zeros, arange


@pytest.fixture(scope="module")
def zeros_and_arange():
    return Both(build([INT], _zeros_and_arange))


@pytest.mark.parametrize("count", [0, 1, 2, 3, 100_000])
def test_zeros_sized_by_an_int_argument(zeros_and_arange, count):
    zeros, arange = zeros_and_arange(n(count))
    np.testing.assert_array_equal(zeros, np.zeros(count, np.float32), strict=True)
    np.testing.assert_array_equal(arange, np.arange(count, dtype=np.int64), strict=True)


def test_the_shape_memo_is_keyed_by_the_int_value(zeros_and_arange):
    kernel = zeros_and_arange.kernel
    assert kernel.signature.value_inputs == (0,)
    assert "int(a0)" in kernel._checked_call().__ember_source__
    first = kernel(n(3))
    second = kernel(n(5))  # same input shapes (0-d), another value
    assert [a.shape for a in first] == [(3,), (3,)]
    assert [a.shape for a in second] == [(5,), (5,)]
    assert kernel(n(3))[1].tolist() == [0, 1, 2]
    assert {((), 3), ((), 5)} <= set(kernel._shape_cache)
    # the guarded entry's call path (no argument checks) still looks the value up
    assert kernel.call_from_guarded_entry(n(7))[0].shape == (7,)


def test_a_negative_int_size_is_an_error(zeros_and_arange):
    with pytest.raises(ValueError, match="negative size -2"):
        zeros_and_arange.kernel(n(-2))
    with pytest.raises(ValueError, match="negative size -2"):
        interpreter.run(zeros_and_arange.module, n(-2))


@pytest.mark.parametrize("dtype", ["i32", "i64"])
def test_prefix_of_length_max_min_of_an_int(dtype):
    """``x[: min(max(k, 0), len(x))]`` with ``k`` any int, for a static and a dynamic ``x``."""

    def body(b, x, k):
        length = b.size_arith("min", b.size_arith("max", b.to_index(k), b.size_constant(0)), b.dim(x, 0))
        return b.op("slice", x, result=T((N,)), sizes=[length], starts=(0,), steps=(1,))

    for xshape in [(N,), (9,)]:
        graph = Both(build([T(xshape), T((), dtype)], body))
        assert graph.kernel.signature.value_inputs == (1,)
        sizes = [9] if xshape == (9,) else [0, 1, 2, 9, 5000]
        for size, k in itertools.product(sizes, [-3, 0, 1, 2, 8, 9, 10, 10_000]):
            x = np.arange(size, dtype=np.float32)
            for a in [x, *noncontiguous(x)]:
                (got,) = graph(a, n(k, T((), dtype).numpy_dtype))
                np.testing.assert_array_equal(got, x[: max(k, 0)], strict=True)
                (trusted,) = graph.kernel.call_from_guarded_entry(a, n(k, T((), dtype).numpy_dtype))
                np.testing.assert_array_equal(trusted, x[: max(k, 0)], strict=True)


def test_reshape_by_a_symbolic_size():
    """``x.reshape(n // 4, 4)`` with the ``?`` from floor division of a dim."""

    def body(b, x):
        rows = b.size_arith("floordiv", b.dim(x, 0), b.size_constant(4))
        return b.op("reshape", x, result=T((N, 4)), sizes=[rows])

    graph = Both(build([T((N,))], body))
    for size in [0, 4, 8, 4096]:
        x = np.arange(size, dtype=np.float32)
        for a in [x, *noncontiguous(x)]:
            (got,) = graph(a)
            np.testing.assert_array_equal(got, x.reshape(size // 4, 4), strict=True)


# ----------------------------------------------------------------------------- the pipeline around them


def test_two_kernels_when_the_graph_returns_an_array_and_its_reduction():
    """``y = x[1:n-1] * n; return y, y.sum() + n`` splits (partition.py) into a
    KernelPair; both kernels read the size (the second one recomputes it)."""

    def body(b, x, count):
        y = _inner(b, x)
        k = b.op("cast", b.from_index(b.to_index(count)), result=T((), "f32"))
        y = b.op("mul", y, b.op("broadcast_to", k, result=T((N,)), sizes=[b.dim(y, 0)]))
        return y, b.op("add", b.op("sum", y, axes=(0,), keepdims=False), k)

    module = build([T((N,)), INT], body)
    graph = Both(module, compile_graph_module)
    assert isinstance(graph.kernel, KernelPair)
    for size, count in [(2, 3), (3, -1), (64, 5), (100_000, 2)]:
        x = np.ones(size, np.float32)
        y, total = graph(x, n(count))
        np.testing.assert_array_equal(y, x[1:-1] * np.float32(count), strict=True)
        np.testing.assert_allclose(total, np.float32(count) * (size - 2) + count, rtol=1e-6)


def test_an_int_computed_by_the_kernel_is_a_value_not_a_shape():
    """``to_index`` of a computed 0-d value: fine as an array operand; as a size the
    runtime cannot know the output shape beforehand, and says so."""

    def as_value(b, x):
        total = b.to_index(b.op("sum", x, axes=(0,), keepdims=False))
        return b.from_index(b.size_arith("mul", total, b.size_constant(2)))

    graph = Both(build([T((N,), "i32")], as_value))
    assert graph.kernel.signature.value_inputs == ()
    for size in [0, 1, 7, 1000]:
        x = np.arange(size, dtype=np.int32) - 3
        (got,) = graph(x)
        assert int(got) == 2 * int(x.sum())

    def as_size(b, x):
        total = b.to_index(b.op("sum", x, axes=(0,), keepdims=False))
        return b.op("iota", result=T((N,), "i32"), sizes=[total], axis=0)

    module = build([T((N,), "i32")], as_size)
    np.testing.assert_array_equal(interpreter.run(module, np.array([1, 2], np.int32))[0], np.arange(3, dtype=np.int32))
    with pytest.raises(ValueError, match="depends on a value the kernel computes"):
        compile_module(module)(np.array([1, 2], np.int32))


def test_shape_program_takes_the_int_values():
    module = build([T((N, 3)), INT, INT], lambda b, x, k, unused: _zeros_and_arange(b, k)[1])
    fn = function_named(module.operation, None)
    program = ShapeProgram(fn)
    assert program.value_inputs == value_inputs(fn) == (1,)
    assert signature_of(fn).value_inputs == (1,)
    assert program([(2, 3), (), ()], [11]) == [(11,)]
    assert program([(0, 3), (), ()], (0,)) == [(0,)]
    with pytest.raises(ValueError, match="takes 1 input values, got 0"):
        program([(2, 3), (), ()])


def test_builder_checks_index_operands():
    b = FunctionBuilder("f", [T((N,)), INT])
    x, count = b.args
    with pytest.raises(ops.TypeRuleError, match="expects index operands"):
        b.size_arith("add", x, b.dim(x, 0))
    with pytest.raises(ops.TypeRuleError, match="expects 2 index operands, got 1"):
        b.op("size_arith", b.dim(x, 0), op="add")
    with pytest.raises(ops.TypeRuleError, match="unknown size arithmetic 'pow'"):
        b.size_arith("pow", b.dim(x, 0), b.dim(x, 0))
    with pytest.raises(ops.TypeRuleError, match="to_index needs a 0-d tensor"):
        b.to_index(x)
    with pytest.raises(ops.TypeRuleError, match="expects index operands"):
        b.from_index(count)
