"""``ember.update_slice`` and ``ember.iota``: type rules, reference interpreter, shape
program and the compiled CPU kernel, each against NumPy.

``update_slice(dest, src)`` is ``dest[start::step, ...] = src`` as a value (``dest``
is not changed); ``iota`` is ``np.arange`` along one axis of a declared result type.
Random cases cover sizes 0 and 1, negative starts and steps, steps above 1, static
and ``?`` argument types and every dtype; the fused cases (a Jacobi stencil, chained
updates, an update of a computed array) go through the whole default pipeline.
"""

from __future__ import annotations

import numpy as np
import pytest
from graph_building import T, build, lowered

from compiler.backends.llvm_cpu import compile_module
from compiler.dialects import ember, interpreter, ops
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.shapes import ShapeProgram
from compiler.dialects.types import NUMPY_DTYPES
from compiler.mlir import function_named, ir
from compiler.passes.pass_manager import run_pipeline

N = None  # a dynamic size
ALL_DTYPES = ("f32", "f64", "i32", "i64", "i1")
STEPS = (-3, -2, -1, 1, 2, 3)


def index_const(b, value: int):
    """An ``index`` value the compiler cannot see: dim of a constant of that length."""
    return b.dim(b.constant(np.zeros(value, np.int32)), 0)


def both(module: ir.Module, *inputs) -> list:
    """The reference interpreter's and the compiled kernel's results (checked equal)."""
    lowered(module)
    want = interpreter.run(module, *inputs)
    got = compile_module(module)(*inputs)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w, strict=True)
    return list(want)


def values(dtype: str, shape, rng, offset=0) -> np.ndarray:
    if dtype == "i1":
        return np.asarray(rng.random(shape) < 0.5)
    return np.asarray(rng.integers(-50, 50, size=shape) + offset, NUMPY_DTYPES[dtype])


def region(size: int, start: int, step: int, length: int) -> slice:
    """NumPy's slice of ``length`` elements from ``start`` (from the end if negative) by ``step``."""
    if length == 0:
        return slice(0, 0)
    first = start + size if start < 0 else start
    stop = first + length * step
    return slice(first, None if stop < 0 else stop, step)


def numpy_update(dest, src, starts, steps):
    want = dest.copy()
    want[tuple(region(*a) for a in zip(dest.shape, starts, steps, src.shape))] = src
    return want


# ----------------------------------------------------------------------------- type rules


@pytest.mark.parametrize(
    "dest,src,starts,steps,message",
    [
        (T((4,)), T((2,), "f64"), (0,), (1,), "element types differ: dest f32 vs src f64"),
        (T((4, 3)), T((2,)), (0, 0), (1, 1), "differ in rank"),
        (T((4,)), T((2,)), (0, 0), (1,), "starts and steps need 1 entries, got 2 and 1"),
        (T((4,)), T((2,)), (0,), (0,), "step of dimension 0 is zero"),
        (T((4,)), T((3,)), (2,), (1,), "dimension 0: 3 elements from 2 by 1 leave the size 4"),
        (T((4,)), T((3,)), (-1,), (-2,), "dimension 0: 3 elements from -1 by -2 leave the size 4"),
        (T((4, 5)), T((2, 6)), (0, 0), (1, 1), "dimension 1: 6 elements from 0 by 1 leave the size 5"),
        (T((4,)), T((1,)), (-5,), (1,), "dimension 0: 1 elements from -5 by 1 leave the size 4"),
    ],
)
def test_update_slice_rule_errors(dest, src, starts, steps, message):
    b = FunctionBuilder("f", [dest, src])
    with pytest.raises(ops.TypeRuleError, match=message):
        b.op("update_slice", *b.args, starts=starts, steps=steps)


@pytest.mark.parametrize(
    "dest,src,starts,steps",
    [
        (T((4,)), T((0,)), (17,), (1,)),  # an empty region may start anywhere
        (T((N,)), T((9,)), (3,), (1,)),  # a ? size is checked at run time
        (T((4,)), T((N,)), (3,), (-1,)),
        (T((4, 3)), T((2, 3)), (-1, 0), (-3, 1)),
        (T(()), T(()), (), ()),
    ],
)
def test_update_slice_result_is_dest_type(dest, src, starts, steps):
    b = FunctionBuilder("f", [dest, src])
    value = b.op("update_slice", *b.args, starts=starts, steps=steps)
    assert FunctionBuilder.type_of(value) == dest


@pytest.mark.parametrize(
    "result,axis,message",
    [
        (T((3,), "i1"), 0, "iota of i1 is not supported"),
        (T((3, 4)), 2, r"axis \[2\] out of range for rank 2"),
        (T((3,)), -1, r"axis \[-1\] out of range for rank 1"),
        (T(()), 0, "iota needs a result of rank 1 or more"),
    ],
)
def test_iota_rule_errors(result, axis, message):
    b = FunctionBuilder("f", [])
    with pytest.raises(ops.TypeRuleError, match=message):
        b.op("iota", result=result, axis=axis)


def test_iota_needs_a_result_type_and_one_size_per_dynamic_dim():
    b = FunctionBuilder("f", [T((N,))])
    with pytest.raises(ops.TypeRuleError, match="needs an explicit result type"):
        b.op("iota", axis=0)
    value = b.op("iota", result=T((N, 2), "i64"), axis=1)  # the size operand is missing
    with pytest.raises(ops.TypeRuleError, match="expects 1 size operands"):
        ember.check_op(value.owner.operation)


# ----------------------------------------------------------------------------- update_slice


def random_update_case(rng):
    """(dest shape, src shape, starts, steps) of a NumPy slice assignment that fits:
    mostly non-empty regions of rank 1 to 3, some empty ones and some 0-d."""
    rank = int(rng.choice([0, 1, 2, 3], p=[0.05, 0.3, 0.4, 0.25]))
    dest, src, starts, steps = [], [], [], []
    for _ in range(rank):
        size = int(rng.choice([0, 1, 2, 3, 5, 8, 13], p=[0.05, 0.15, 0.1, 0.15, 0.2, 0.2, 0.15]))
        step = int(rng.choice(STEPS))
        start = int(rng.integers(-size, size)) if size else 0
        fits = len(range(size)[slice(start, None, step)])
        u = rng.random()
        length = fits if u < 0.5 or fits == 0 else int(rng.integers(1, fits + 1)) if u < 0.9 else 0
        if length == 0 and rng.random() < 0.5:
            start = int(rng.integers(-size - 2, size + 3))  # an empty region: any start
        dest.append(size)
        src.append(length)
        starts.append(start)
        steps.append(step)
    return tuple(dest), tuple(src), tuple(starts), tuple(steps)


def erase(shape, rng, how: str):
    if how == "static":
        return shape
    if how == "dynamic":
        return tuple(N for _ in shape)
    return tuple(N if rng.random() < 0.5 else d for d in shape)


@pytest.mark.parametrize("seed", range(60))
def test_update_slice_random(seed):
    rng = np.random.default_rng(seed)
    dtype = ALL_DTYPES[seed % len(ALL_DTYPES)]
    dshape, sshape, starts, steps = random_update_case(rng)
    how = ("static", "dynamic", "mixed")[seed % 3]
    arg_types = [T(erase(dshape, rng, how), dtype), T(erase(sshape, rng, how), dtype)]
    module = build(arg_types, lambda b, d, s: b.op("update_slice", d, s, starts=starts, steps=steps))
    dest, src = values(dtype, dshape, rng), values(dtype, sshape, rng, offset=1000)
    (got,) = both(module, dest, src)
    np.testing.assert_array_equal(got, numpy_update(dest, src, starts, steps), strict=True)
    assert ShapeProgram(function_named(module.operation, None))([dshape, sshape]) == [dshape]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("start,step", [(0, 1), (-1, -1), (1, 2), (-1, -2), (-2, -3), (2, 3)])
def test_update_slice_dynamic_kernel_at_many_sizes(dtype, start, step):
    """One ``?`` kernel, ``a[start::step] = s`` for every size (s fills the region)."""
    module = build(
        [T((N, 2), dtype)] * 2, lambda b, d, s: b.op("update_slice", d, s, starts=(start, 0), steps=(step, 1))
    )
    kernel = compile_module(module)
    rng = np.random.default_rng(0)
    for size in (0, 1, 2, 3, 4, 7, 10):
        # a start outside the dim leaves an empty region (the frontend folds NumPy's clamping)
        length = len(range(size)[slice(start, None, step)]) if -size <= start < size else 0
        dest, src = values(dtype, (size, 2), rng), values(dtype, (length, 2), rng, offset=1000)
        want = numpy_update(dest, src, (start, 0), (step, 1))
        np.testing.assert_array_equal(kernel(dest, src)[0], want, strict=True)
        np.testing.assert_array_equal(interpreter.run(module, dest, src)[0], want, strict=True)


def test_update_slice_region_outside_dest_is_an_error_at_run_time():
    module = build([T((N,)), T((N,))], lambda b, d, s: b.op("update_slice", d, s, starts=(2,), steps=(1,)))
    dest, src = np.zeros(4, np.float32), np.ones(3, np.float32)
    with pytest.raises(ValueError, match="ember.update_slice"):
        interpreter.run(module, dest, src)
    with pytest.raises(ValueError, match="3 elements from 2 by 1 leave the size 4"):
        compile_module(module)(dest, src)


def test_update_slice_static_empty_region_is_dest():
    module = build(
        [T((4, 3), "i64"), T((0, 3), "i64")], lambda b, d, s: b.op("update_slice", d, s, starts=(9, 0), steps=(-2, 1))
    )
    assert "tensor.insert_slice" not in str(lowered(module))
    dest = np.arange(12, dtype=np.int64).reshape(4, 3)
    (got,) = both(module, dest, np.zeros((0, 3), np.int64))
    np.testing.assert_array_equal(got, dest, strict=True)


def test_update_slice_does_not_change_its_operand():
    """Value semantics: the old ``dest`` is still readable after the update."""

    def body(b, a, s):
        twice = b.op("add", a, a)
        updated = b.op("update_slice", twice, s, starts=(-1,), steps=(-2,))
        return updated, b.op("mul", twice, twice)

    a, s = np.arange(6, dtype=np.float64), np.array([-1.0, -2.0, -3.0])
    got = both(build([T((6,), "f64"), T((3,), "f64")], body), a, s)
    np.testing.assert_array_equal(got[0], numpy_update(2 * a, s, (-1,), (-2,)))
    np.testing.assert_array_equal(got[1], (2 * a) ** 2)


# ----------------------------------------------------------------------------- iota


@pytest.mark.parametrize("seed", range(16))
def test_iota_random(seed):
    rng = np.random.default_rng(100 + seed)
    dtype = ("f32", "f64", "i32", "i64")[seed % 4]
    shape = tuple(int(rng.choice([0, 1, 2, 5, 9])) for _ in range(int(rng.integers(1, 4))))
    axis = int(rng.integers(0, len(shape)))
    declared = erase(shape, rng, ("static", "dynamic", "mixed")[seed % 3])

    def body(b):
        sizes = [index_const(b, shape[a]) for a, d in enumerate(declared) if d is N]
        return b.op("iota", result=T(declared, dtype), sizes=sizes, axis=axis)

    module = build([], body)
    (got,) = both(module)
    line = np.arange(shape[axis]).reshape([-1 if a == axis else 1 for a in range(len(shape))])
    np.testing.assert_array_equal(got, np.broadcast_to(line, shape).astype(NUMPY_DTYPES[dtype]), strict=True)


def test_iota_dynamic_size_from_an_argument():
    module = build([T((N, 3))], lambda b, x: b.op("iota", result=T((N,), "i64"), sizes=[b.dim(x, 0)], axis=0))
    kernel = compile_module(module)
    for rows in (0, 1, 6):
        (got,) = kernel(np.zeros((rows, 3), np.float32))
        np.testing.assert_array_equal(got, np.arange(rows), strict=True)


def test_arange_and_eye_from_iota():
    """What the frontend builds: ``np.arange(start, stop, step)`` and ``np.eye(n, m, k)``."""

    def body(b, x):
        n = b.dim(x, 0)
        i = b.op("iota", result=T((N,), "f64"), sizes=[n], axis=0)
        start = b.op("broadcast_to", b.constant(np.float64(1.5)), result=T((N,), "f64"), sizes=[n])
        step = b.op("broadcast_to", b.constant(np.float64(-0.25)), result=T((N,), "f64"), sizes=[n])
        arange = b.op("add", start, b.op("mul", step, i))
        rows = b.op("iota", result=T((N, 4), "i64"), sizes=[n], axis=0)
        cols = b.op("iota", result=T((N, 4), "i64"), sizes=[n], axis=1)
        k = b.op("broadcast_to", b.constant(np.int64(1)), result=T((N, 4), "i64"), sizes=[n])
        eye = b.op("cast", b.op("cmp", b.op("add", rows, k), cols, predicate="eq"), result=T((N, 4), "f32"))
        return arange, eye

    module = build([T((N,))], body)
    for n in (0, 1, 5):
        arange, eye = both(module, np.zeros(n, np.float32))
        np.testing.assert_array_equal(arange, np.arange(1.5, 1.5 - 0.25 * n, -0.25)[:n], strict=True)
        np.testing.assert_array_equal(eye, np.eye(n, 4, 1, dtype=np.float32), strict=True)


# ----------------------------------------------------------------------------- fused, full pipeline


def jacobi(dynamic: bool, shape):
    """``A[1:-1, 1:-1] = 0.25 * (A[:-2, 1:-1] + A[2:, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:])``."""
    n, m = shape
    inner = T((N, N) if dynamic else (n - 2, m - 2), "f64")

    def body(b, a):
        sizes = [index_const(b, n - 2), index_const(b, m - 2)] if dynamic else []

        def part(r, c):
            return b.op("slice", a, starts=(r, c), steps=(1, 1), result=inner, sizes=sizes)

        total = b.op("add", b.op("add", b.op("add", part(0, 1), part(2, 1)), part(1, 0)), part(1, 2))
        quarter = b.op("broadcast_to", b.constant(np.float64(0.25)), result=inner, sizes=sizes)
        return b.op("update_slice", a, b.op("mul", quarter, total), starts=(1, 1), steps=(1, 1))

    return build([T((N, N) if dynamic else shape, "f64")], body)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("shape", [(3, 3), (4, 7), (300, 257)])
def test_jacobi_stencil_fused(dynamic, shape):
    a = np.random.default_rng(1).standard_normal(shape)
    (got,) = both(jacobi(dynamic, shape), a)
    want = a.copy()
    want[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    np.testing.assert_array_equal(got, want, strict=True)


def test_jacobi_pipeline_fuses_the_stencil_into_one_tiled_loop():
    with (module := jacobi(False, (300, 257))).context:
        copy = ir.Module.parse(str(module))
    run_pipeline(copy, "builtin.module(ember-to-linalg,ember-fuse,ember-tile)")
    text = str(copy)
    assert text.count("linalg.generic") == 1 and text.count("scf.forall (") == 1, text
    assert "tensor.insert_slice" in text


@pytest.mark.parametrize("dynamic", [False, True])
def test_chained_updates_of_a_computed_array_with_iota(dynamic):
    """Boundary conditions on ``x * 2``: a reversed row, a strided column, then the
    interior set from an iota; every update reads the previous value."""
    n, m = 6, 5
    dt = T((N, N) if dynamic else (n, m), "i32")

    def body(b, x):
        def size(v):
            return [index_const(b, v)] if dynamic else []

        y = b.op("add", x, x)
        row = b.op("slice", y, starts=(1, 0), steps=(1, 1), result=T((1, N if dynamic else m), "i32"), sizes=size(m))
        y = b.op("update_slice", y, row, starts=(-1, -1), steps=(1, -1))  # y[-1, ::-1] = y[1, :]
        col = b.op("iota", result=T((N if dynamic else 3, 1), "i32"), sizes=size(3), axis=0)
        y = b.op("update_slice", y, col, starts=(0, 4), steps=(2, 1))  # y[::2, 4:5] = [[0], [1], [2]]
        inner = b.op("iota", result=T((2, N if dynamic else 3), "i32"), sizes=size(3), axis=1)
        return b.op("update_slice", y, inner, starts=(-2, 3), steps=(-3, -1))  # y[-2::-3, 3:0:-1] = ...

    x = np.arange(n * m, dtype=np.int32).reshape(n, m)
    (got,) = both(build([dt], body), x)
    want = 2 * x
    want[-1, ::-1] = want[1, :]
    want[::2, 4:5] = [[0], [1], [2]]
    want[-2::-3, 3:0:-1] = np.broadcast_to(np.arange(3, dtype=np.int32), (2, 3))
    np.testing.assert_array_equal(got, want, strict=True)


def test_empty_slice_with_a_start_before_the_dim_is_empty():
    """``x[-2:-2]`` on a dim of 1: an empty region, not ``x[-1:]`` (interpreter regression)."""
    module = build([T((1,))], lambda b, x: b.op("slice", x, starts=(-2,), steps=(1,), result=T((0,))))
    (got,) = both(module, np.ones(1, np.float32))
    assert got.shape == (0,)
