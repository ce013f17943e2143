"""The Ember dialect end to end in Python: builder -> verifier -> reference interpreter.

Every op family is built with ``FunctionBuilder``, verified, and interpreted against
the NumPy expression a user would write, on odd inputs (size 0 and 1, NaN/inf, 0-d,
every dtype, ``?`` sizes run at several concrete sizes). The builder's type-rule
errors, the interpreter's input checks and guard metadata round-trips live here too;
the verifier's diagnostics are in ``test_dialect_verifier.py`` and the random-program
property test in ``test_dialect_property.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from graph_building import build
from op_oracles import BINARY_REF, CMP_REF, UNARY_REF

from compiler.dialects import ember, interpreter, ops
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.guard_metadata import Guard, GuardMetadata, Symbol
from compiler.dialects.types import NUMPY_DTYPES, TensorType
from compiler.mlir import ir

DYN = None
ALL_DTYPES = ("f32", "f64", "i32", "i64", "i1")


# ----------------------------------------------------------------------------- helpers


def run1(module, *arrays):
    (result,) = interpreter.run(module, *arrays)
    return result


def same(got, want):
    """Exact equality (NaN == NaN), same dtype, same shape, and a real ndarray."""
    assert isinstance(got, np.ndarray), type(got)
    want = np.asarray(want)
    np.testing.assert_array_equal(got, want, strict=True)


def samples(dtype: str, shape) -> np.ndarray:
    """Deterministic values of ``dtype`` full of edge cases (0, -0, NaN, inf, extremes)."""
    n = math.prod(shape)
    np_dtype = NUMPY_DTYPES[dtype]
    if dtype in ("f16", "f32", "f64"):
        pool = np.array([0.5, -1.5, 0.0, -0.0, 2.25, np.nan, np.inf, -np.inf, 3.0, -7.0, 1e-3, 10.0], np_dtype)
    elif dtype == "i1":
        pool = np.array([True, False, False, True, True], np_dtype)
    elif np_dtype.kind == "c":  # every pair of these parts (NaN, inf and -0.0 in either)
        parts = [0.5, -1.5, 0.0, -0.0, 2.25, np.nan, np.inf, -7.0]
        pool = np.array([complex(re, im) for re in parts for im in parts[::-1]], np_dtype)
    else:  # unsigned: -1 and -7 wrap to the top of the range
        info = np.iinfo(np_dtype)
        wrap = 1 << (8 * np_dtype.itemsize)
        values = [0, 1, -1, 7, -7, 3, int(info.max), int(info.min), 2, -3, 5]
        pool = np.array([v % wrap if np_dtype.kind == "u" else v for v in values], np_dtype)
    return np.resize(pool, n).reshape(shape) if n else np.zeros(shape, np_dtype)


SHAPES = [(), (0,), (1,), (7,), (2, 5), (3, 0, 2)]


# ----------------------------------------------------------------------------- the table


def test_every_op_has_an_implementation():
    assert set(interpreter.IMPLS) == set(ops.OPS)


# ----------------------------------------------------------------------------- unary


UNARY_CASES = [(n, d) for n, dtypes in ops.UNARY_DTYPES.items() for d in dtypes]


def test_unary_reference_covers_every_unary_op():
    assert set(UNARY_REF) == set(ops.UNARY_DTYPES)


@pytest.mark.parametrize("name,dtype", UNARY_CASES)
def test_unary_static_shapes(name, dtype):
    for shape in SHAPES:
        module = build([TensorType(shape, dtype)], lambda b, x: b.op(name, x))
        x = samples(dtype, shape)
        with np.errstate(all="ignore"):
            same(run1(module, x), UNARY_REF[name](x))


@pytest.mark.parametrize("name,dtype", UNARY_CASES)
def test_unary_dynamic_size_runs_at_many_sizes(name, dtype):
    module = build([TensorType((DYN, 2), dtype)], lambda b, x: b.op(name, x))
    for n in (0, 1, 6):
        x = samples(dtype, (n, 2))
        with np.errstate(all="ignore"):
            same(run1(module, x), UNARY_REF[name](x))


def test_unary_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 40.0, -40.0], np.float32)
    sig = build([TensorType((7,), "f32")], lambda b, x: b.op("sigmoid", x))
    with np.errstate(all="ignore"):
        same(run1(sig, x), np.array([np.nan, 1, 0, 0.5, 0.5, 1, 1 / (1 + np.exp(np.float32(40)))], np.float32))
    erf = build([TensorType((7,), "f64")], lambda b, x: b.op("erf", x))
    got = run1(erf, x.astype(np.float64))
    same(got[:3], [np.nan, 1.0, -1.0])
    assert got[3] == 0.0 and math.copysign(1.0, got[4]) == -1.0


def test_abs_and_neg_wrap_like_numpy():
    x = np.array([np.iinfo(np.int32).min, -1, 0], np.int32)
    module = build([TensorType((3,), "i32")], lambda b, x: [b.op("abs", x), b.op("neg", x)])
    got_abs, got_neg = interpreter.run(module, x)
    with np.errstate(all="ignore"):
        same(got_abs, np.abs(x))
        same(got_neg, -x)
    assert got_abs[0] == np.iinfo(np.int32).min


# ----------------------------------------------------------------------------- binary


BINARY_CASES = [(n, d) for n, dtypes in ops.BINARY_DTYPES.items() for d in dtypes]


def test_binary_reference_covers_every_binary_op():
    assert set(BINARY_REF) == set(ops.BINARY_DTYPES)


def binary_operands(name, dtype, shape):
    lhs = samples(dtype, shape)
    rhs = np.flip(samples(dtype, shape)) if shape else samples(dtype, shape)
    if name == "pow" and dtype in ("i8", "i16", "i32", "i64"):
        rhs = np.resize(np.array([0, 1, 2, 3], rhs.dtype), rhs.shape)  # int ** negative raises
    return lhs, np.array(rhs)  # a copy; ascontiguousarray would make 0-d arrays 1-d


@pytest.mark.parametrize("name,dtype", BINARY_CASES)
def test_binary_static_shapes(name, dtype):
    for shape in SHAPES:
        t = TensorType(shape, dtype)
        module = build([t, t], lambda b, x, y: b.op(name, x, y))
        lhs, rhs = binary_operands(name, dtype, shape)
        with np.errstate(all="ignore"):
            same(run1(module, lhs, rhs), BINARY_REF[name](lhs, rhs))


@pytest.mark.parametrize("name,dtype", BINARY_CASES)
def test_binary_dynamic_sizes(name, dtype):
    t = TensorType((DYN, DYN), dtype)
    module = build([t, t], lambda b, x, y: b.op(name, x, y))
    for shape in [(0, 3), (1, 1), (3, 4)]:
        lhs, rhs = binary_operands(name, dtype, shape)
        with np.errstate(all="ignore"):
            same(run1(module, lhs, rhs), BINARY_REF[name](lhs, rhs))


@pytest.mark.parametrize("dtype", ["i32", "i64"])
def test_integer_division_by_zero_gives_zero(dtype):
    t = TensorType((4,), dtype)
    module = build([t, t], lambda b, x, y: [b.op("floordiv", x, y), b.op("mod", x, y)])
    x = np.array([7, -7, 0, 5], NUMPY_DTYPES[dtype])
    y = np.zeros(4, NUMPY_DTYPES[dtype])
    q, r = interpreter.run(module, x, y)
    same(q, np.zeros(4, x.dtype))
    same(r, np.zeros(4, x.dtype))


def test_floordiv_and_mod_follow_python_signs():
    t = TensorType((4,), "i64")
    module = build([t, t], lambda b, x, y: [b.op("floordiv", x, y), b.op("mod", x, y)])
    x = np.array([7, -7, 7, -7])
    y = np.array([2, 2, -2, -2])
    q, r = interpreter.run(module, x, y)
    same(q, [3, -4, -4, 3])
    same(r, [1, 1, -1, -1])


def test_div_is_true_division_in_float32():
    t = TensorType((3,), "f32")
    module = build([t, t], lambda b, x, y: b.op("div", x, y))
    x = np.array([1, -1, 0], np.float32)
    y = np.array([3, 0, 0], np.float32)
    with np.errstate(all="ignore"):
        same(run1(module, x, y), x / y)
    assert np.isinf(run1(module, x, y)[1]) and np.isnan(run1(module, x, y)[2])


def test_maximum_minimum_propagate_nan():
    t = TensorType((3,), "f64")
    module = build([t, t], lambda b, x, y: [b.op("maximum", x, y), b.op("minimum", x, y)])
    x = np.array([np.nan, 1.0, 2.0])
    y = np.array([1.0, np.nan, 3.0])
    hi, lo = interpreter.run(module, x, y)
    same(hi, [np.nan, np.nan, 3.0])
    same(lo, [np.nan, np.nan, 2.0])


def test_integer_pow_by_negative_exponent_raises_like_numpy():
    t = TensorType((2,), "i32")
    module = build([t, t], lambda b, x, y: b.op("pow", x, y))
    with pytest.raises(ValueError, match="ember.pow"):
        interpreter.run(module, np.array([2, 3], np.int32), np.array([1, -1], np.int32))


# ----------------------------------------------------------------------------- cmp, select, cast


@pytest.mark.parametrize("predicate", ops.CMP_PREDICATES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_cmp(predicate, dtype):
    ref = CMP_REF[predicate]
    t = TensorType((DYN,), dtype)
    module = build([t, t], lambda b, x, y: b.op("cmp", x, y, predicate=predicate))
    for n in (0, 1, 9):
        x = samples(dtype, (n,))
        y = np.ascontiguousarray(np.roll(x, 1))
        got = run1(module, x, y)
        same(got, ref(x, y))
    scalar = build([TensorType((), dtype)] * 2, lambda b, x, y: b.op("cmp", x, y, predicate=predicate))
    one = samples(dtype, ())
    same(run1(scalar, one, one), ref(one, one))


def test_cmp_with_nan_is_false_except_ne():
    t = TensorType((1,), "f32")
    nan = np.array([np.nan], np.float32)
    for predicate in ops.CMP_PREDICATES:
        module = build([t, t], lambda b, x, y: b.op("cmp", x, y, predicate=predicate))
        assert bool(run1(module, nan, nan)[0]) == (predicate == "ne")


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_select(dtype):
    t = TensorType((DYN, 3), dtype)
    module = build([t.with_dtype("i1"), t, t], lambda b, c, x, y: b.op("select", c, x, y))
    for n in (0, 1, 4):
        c = samples("i1", (n, 3))
        x = samples(dtype, (n, 3))
        y = np.ascontiguousarray(x[::-1])
        same(run1(module, c, x, y), np.where(c, x, y))


@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ALL_DTYPES)
def test_cast(src, dst):
    module = build([TensorType((DYN,), src)], lambda b, x: b.op("cast", x, result=TensorType((DYN,), dst)))
    x = samples(src, (11,))
    with np.errstate(all="ignore"):
        same(run1(module, x), x.astype(NUMPY_DTYPES[dst]))
    same(run1(module, x[:0].copy()), np.zeros(0, NUMPY_DTYPES[dst]))


def test_cast_truncates_and_bool_is_nonzero():
    module = build(
        [TensorType((5,), "f64")],
        lambda b, x: [b.op("cast", x, result=TensorType((5,), "i32")), b.op("cast", x, result=TensorType((5,), "i1"))],
    )
    as_int, as_bool = interpreter.run(module, np.array([1.9, -1.9, 0.0, -0.0, np.nan]))
    same(as_int[:4], np.array([1, -1, 0, 0], np.int32))
    same(as_bool, [True, True, False, False, True])


# ----------------------------------------------------------------------------- reductions


REDUCE_CASES = [
    (name, dtype)
    for name in ("sum", "mean", "max", "min", "prod")
    for dtype in ALL_DTYPES
    if not (name in ("sum", "prod") and dtype == "i1") and not (name == "mean" and dtype not in ("f32", "f64"))
]

AXES = [(), (0,), (1,), (2,), (0, 2), (2, 0), (0, 1, 2)]


def reduce_ref(name, x, axes, keepdims):
    kw = {} if name in ("max", "min") else {"dtype": x.dtype}
    return getattr(x, name)(axis=axes, keepdims=keepdims, **kw)


@pytest.mark.parametrize("name,dtype", REDUCE_CASES)
def test_reductions(name, dtype):
    x = samples(dtype, (2, 3, 4))
    if dtype in ("f32", "f64"):
        finite = np.nan_to_num(x, nan=0.5, posinf=4.0, neginf=-4.0)
        inputs = [x, finite]
    else:
        inputs = [x]
    for axes in AXES:
        for keepdims in (False, True):
            module = build([TensorType((2, 3, 4), dtype)], lambda b, v: b.op(name, v, axes=axes, keepdims=keepdims))
            for value in inputs:
                with np.errstate(all="ignore"):
                    same(run1(module, value), reduce_ref(name, value, axes, keepdims))


@pytest.mark.parametrize("name,dtype", REDUCE_CASES)
def test_reductions_of_0d_and_dynamic(name, dtype):
    scalar = build([TensorType((), dtype)], lambda b, v: b.op(name, v, axes=(), keepdims=False))
    one = samples(dtype, ())
    got = run1(scalar, one)
    same(got, reduce_ref(name, one, (), False))
    assert got.shape == ()
    dyn = build(
        [TensorType((DYN, 3), dtype)],
        lambda b, v: [b.op(name, v, axes=(1,), keepdims=False), b.op(name, v, axes=(1,), keepdims=True)],
    )
    for n in (0, 1, 5):
        x = samples(dtype, (n, 3))
        flat, kept = interpreter.run(dyn, x)
        with np.errstate(all="ignore"):
            same(flat, reduce_ref(name, x, (1,), False))
            same(kept, reduce_ref(name, x, (1,), True))


def test_reductions_over_empty_axes():
    x = np.zeros((0, 3), np.float32)
    t = TensorType((0, 3), "f32")
    module = build([t], lambda b, v: [b.op(n, v, axes=(0,), keepdims=False) for n in ("sum", "prod", "mean")])
    s, p, m = interpreter.run(module, x)
    same(s, np.zeros(3, np.float32))
    same(p, np.ones(3, np.float32))
    same(m, np.full(3, np.nan, np.float32))
    empty_max = build([t], lambda b, v: b.op("max", v, axes=(0,), keepdims=False))
    with pytest.raises(ValueError, match="ember.max"):  # NumPy: no identity for maximum
        interpreter.run(empty_max, x)


def test_integer_sum_keeps_the_dtype_and_wraps():
    x = np.array([np.iinfo(np.int32).max, 1], np.int32)
    module = build([TensorType((2,), "i32")], lambda b, v: b.op("sum", v, axes=(0,), keepdims=False))
    got = run1(module, x)
    assert got.dtype == np.int32 and got == np.iinfo(np.int32).min


def test_max_propagates_nan():
    module = build([TensorType((3,), "f32")], lambda b, v: b.op("max", v, axes=(0,), keepdims=False))
    assert np.isnan(run1(module, np.array([1, np.nan, 2], np.float32)))


# ----------------------------------------------------------------------------- matmul


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3,)),
    ((2, 3), (3, 4)),
    ((1, 1), (1, 1)),
    ((2, 0), (0, 3)),
    ((0, 3), (3, 2)),
    ((5, 2, 3), (5, 3, 4)),
    ((2, 1, 2, 3), (2, 1, 3, 2)),
]


@pytest.mark.parametrize("dtype", ["f32", "f64", "i32", "i64"])
@pytest.mark.parametrize("lhs_shape,rhs_shape", MATMUL_SHAPES)
def test_matmul(lhs_shape, rhs_shape, dtype):
    module = build([TensorType(lhs_shape, dtype), TensorType(rhs_shape, dtype)], lambda b, x, y: b.op("matmul", x, y))
    rng = np.random.default_rng(0)
    x = rng.integers(-5, 5, lhs_shape).astype(NUMPY_DTYPES[dtype])
    y = rng.integers(-5, 5, rhs_shape).astype(NUMPY_DTYPES[dtype])
    same(run1(module, x, y), np.matmul(x, y))


def test_matmul_dynamic():
    module = build([TensorType((DYN, DYN), "f64"), TensorType((DYN, 2), "f64")], lambda b, x, y: b.op("matmul", x, y))
    rng = np.random.default_rng(1)
    for m, k in [(0, 3), (1, 1), (4, 0), (3, 5)]:
        x, y = rng.standard_normal((m, k)), rng.standard_normal((k, 2))
        same(run1(module, x, y), x @ y)
    with pytest.raises(ValueError, match="ember.matmul"):
        interpreter.run(module, np.ones((2, 3)), np.ones((4, 2)))


# ----------------------------------------------------------------------------- shape ops


def test_transpose():
    x = samples("f32", (2, 3, 4))
    for perm in [(0, 1, 2), (2, 0, 1), (1, 0, 2), (2, 1, 0)]:
        module = build([TensorType((2, 3, 4), "f32")], lambda b, v: b.op("transpose", v, perm=perm))
        same(run1(module, x), np.transpose(x, perm))
    scalar = build([TensorType((), "i64")], lambda b, v: b.op("transpose", v, perm=()))
    same(run1(scalar, np.array(5)), np.array(5))
    dyn = build([TensorType((DYN, 3), "i1")], lambda b, v: b.op("transpose", v, perm=(1, 0)))
    for n in (0, 1, 4):
        x = samples("i1", (n, 3))
        same(run1(dyn, x), x.T)


def test_reshape_static():
    cases = [((2, 6), (3, 4)), ((12,), (2, 2, 3)), ((1,), ()), ((), (1, 1)), ((0, 3), (3, 0)), ((2, 3), (6,))]
    for src, dst in cases:
        module = build([TensorType(src, "i32")], lambda b, v: b.op("reshape", v, result=TensorType(dst, "i32")))
        x = samples("i32", src)
        same(run1(module, x), x.reshape(dst))


def test_reshape_dynamic_size_from_dim():
    def body(b, v):
        return b.op("reshape", v, result=TensorType((3, DYN), "f64"), sizes=[b.dim(v, 0)])

    module = build([TensorType((DYN, 3), "f64")], body)
    for n in (0, 1, 5):
        x = samples("f64", (n, 3))
        same(run1(module, x), x.reshape(3, n))


def test_reshape_bad_runtime_size_is_a_located_value_error():
    def body(b, v, w):
        return b.op("reshape", v, result=TensorType((DYN,), "f32"), sizes=[b.dim(w, 0)])

    module = build([TensorType((DYN,), "f32"), TensorType((DYN,), "f32")], body)
    same(run1(module, np.ones(3, np.float32), np.ones(3, np.float32)), np.ones(3, np.float32))
    with pytest.raises(ValueError, match="ember.reshape"):
        interpreter.run(module, np.ones(3, np.float32), np.ones(4, np.float32))


def test_broadcast_to_static():
    cases = [((3,), (2, 3)), ((1, 3), (4, 3)), ((), (2, 2)), ((1,), (0,)), ((2, 1), (2, 1)), ((1, 1), (3, 1, 5))]
    for src, dst in cases:
        module = build([TensorType(src, "f32")], lambda b, v: b.op("broadcast_to", v, result=TensorType(dst, "f32")))
        x = samples("f32", src)
        got = run1(module, x)
        same(got, np.broadcast_to(x, dst))
        assert got.flags.writeable  # results are fresh arrays, not read-only views


def test_broadcast_to_dynamic():
    def body(b, v, like):
        return b.op("broadcast_to", v, result=TensorType((DYN, 3), "i64"), sizes=[b.dim(like, 0)])

    module = build([TensorType((1, 3), "i64"), TensorType((DYN,), "i64")], body)
    row = np.array([[1, 2, 3]])
    for n in (0, 1, 4):
        same(run1(module, row, np.zeros(n, np.int64)), np.broadcast_to(row, (n, 3)))


def test_expand_dims_and_squeeze():
    x = samples("f64", (2, 3))
    for axes in [(), (0,), (2,), (0, 3), (3, 0, 1)]:
        module = build([TensorType((2, 3), "f64")], lambda b, v: b.op("expand_dims", v, axes=axes))
        same(run1(module, x), np.expand_dims(x, axes))
    scalar = build([TensorType((), "i1")], lambda b, v: b.op("expand_dims", v, axes=(0,)))
    same(run1(scalar, np.array(True)), np.array([True]))
    y = samples("i32", (1, 3, 1))
    for axes in [(), (0,), (2,), (0, 2), (2, 0)]:
        module = build([TensorType((1, 3, 1), "i32")], lambda b, v: b.op("squeeze", v, axes=axes))
        same(run1(module, y), np.squeeze(y, axis=axes))
    dyn = build(
        [TensorType((DYN, 1), "f32")], lambda b, v: b.op("expand_dims", b.op("squeeze", v, axes=(1,)), axes=(0,))
    )
    for n in (0, 1, 3):
        z = samples("f32", (n, 1))
        same(run1(dyn, z), z.reshape(1, n))


SLICE_CASES = [
    # shape, starts, steps, result shape, NumPy index
    ((10,), (2,), (3,), (3,), np.s_[2::3]),
    ((10,), (0,), (1,), (10,), np.s_[:]),
    ((10,), (-1,), (-1,), (10,), np.s_[::-1]),
    ((10,), (-3,), (-2,), (4,), np.s_[-3::-2]),
    ((10,), (4,), (1,), (0,), np.s_[4:4]),
    ((10,), (9,), (5,), (1,), np.s_[9::5]),
    ((1,), (0,), (-1,), (1,), np.s_[::-1]),
    ((0,), (0,), (1,), (0,), np.s_[:]),
    ((4, 5), (1, -1), (2, -2), (2, 3), np.s_[1::2, ::-2]),
    ((4, 5), (-4, 0), (1, 4), (3, 2), np.s_[-4:-1, ::4]),
]


@pytest.mark.parametrize("shape,starts,steps,out,index", SLICE_CASES)
def test_slice_static(shape, starts, steps, out, index):
    module = build(
        [TensorType(shape, "f32")],
        lambda b, v: b.op("slice", v, starts=starts, steps=steps, result=TensorType(out, "f32")),
    )
    x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    same(run1(module, x), x[index])


def test_slice_dynamic_reverses_any_length():
    def body(b, v):
        return b.op("slice", v, starts=(-1, 1), steps=(-1, 1), result=TensorType((DYN, 2), "i64"), sizes=[b.dim(v, 0)])

    module = build([TensorType((DYN, 3), "i64")], body)
    for n in (0, 1, 5):
        x = np.arange(n * 3).reshape(n, 3)
        same(run1(module, x), x[::-1, 1:])


def test_slice_out_of_range_at_run_time_is_an_error():
    def body(b, v):
        return b.op("slice", v, starts=(2,), steps=(1,), result=TensorType((3,), "f32"))

    module = build([TensorType((DYN,), "f32")], body)
    same(run1(module, np.arange(5, dtype=np.float32)), np.arange(2, 5, dtype=np.float32))
    with pytest.raises(ValueError, match="ember.slice"):
        interpreter.run(module, np.arange(4, dtype=np.float32))
    with pytest.raises(ValueError, match="ember.slice"):  # clamping would hide this one
        interpreter.run(module, np.arange(2, dtype=np.float32))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_concatenate(dtype):
    a, b_ = samples(dtype, (2, 3)), samples(dtype, (4, 3))
    module = build(
        [TensorType((2, 3), dtype), TensorType((4, 3), dtype)], lambda b, x, y: b.op("concatenate", x, y, axis=0)
    )
    same(run1(module, a, b_), np.concatenate([a, b_], axis=0))
    cols = build(
        [TensorType((2, 3), dtype), TensorType((2, 0), dtype)], lambda b, x, y: b.op("concatenate", x, y, axis=1)
    )
    same(run1(cols, a, samples(dtype, (2, 0))), a)
    dyn = build([TensorType((DYN, 3), dtype)] * 2, lambda b, x, y: b.op("concatenate", x, y, axis=0))
    for n, m in [(0, 0), (1, 0), (2, 5)]:
        x, y = samples(dtype, (n, 3)), samples(dtype, (m, 3))
        same(run1(dyn, x, y), np.concatenate([x, y]))


CONSTANTS = [
    np.array(2.5, np.float32),
    np.array([np.nan, np.inf, -np.inf, -0.0]),
    np.array([[1, 2], [3, 4]], np.int32),
    np.full((3,), 7, np.int64),
    np.array([True, False, True]),
    np.array(False),
    np.zeros((2, 0), np.float64),
]


@pytest.mark.parametrize("value", CONSTANTS, ids=lambda v: f"{v.dtype}{v.shape}")
def test_constant(value):
    module = build([], lambda b: b.constant(value))
    same(run1(module), value)
    with ember.new_context():
        reparsed = ir.Module.parse(str(module))
    same(run1(reparsed), value)


def test_constant_feeds_arithmetic():
    module = build([TensorType((3,), "f32")], lambda b, x: b.op("mul", x, b.constant(np.float32([1, 2, 3]))))
    same(run1(module, np.float32([2, 2, 2])), np.float32([2, 4, 6]))


def test_dim_is_a_python_int():
    module = build([TensorType((DYN, 3), "f32")], lambda b, x: [b.dim(x, 0), b.dim(x, 1)])
    for n in (0, 1, 7):
        rows, cols = interpreter.run(module, np.zeros((n, 3), np.float32))
        assert (rows, cols) == (n, 3) and type(rows) is int


# ----------------------------------------------------------------------------- interpreter API


def _add_module():
    t = TensorType((DYN, 3), "f32")
    return build([t, t], lambda b, x, y: b.op("add", x, y))


@pytest.mark.parametrize(
    "args,message",
    [
        ((np.zeros((2, 3), np.float32),), "takes 2 arguments, got 1"),
        ((np.zeros((2, 3), np.float64), np.zeros((2, 3), np.float32)), "argument 0.*dtype float64 is not float32"),
        ((np.zeros((2, 3), np.float32), np.zeros((2, 3, 1), np.float32)), "argument 1.*rank 3 is not 2"),
        ((np.zeros((2, 4), np.float32), np.zeros((2, 4), np.float32)), "argument 0.*size 4 of dimension 1 is not 3"),
        ((np.zeros((2, 3), np.float32), [[1.0, 2.0, 3.0]] * 2), "argument 1.*float64"),
    ],
)
def test_inputs_are_validated(args, message):
    with pytest.raises(ValueError, match=message):
        interpreter.run(_add_module(), *args)


@pytest.mark.parametrize("rows", [(2, 4), (4, 1), (1, 4), (0, 1)])
def test_mismatched_dynamic_sizes_are_reported_at_the_op(rows):
    """Equal ``?`` types promise equal sizes; a 1 must not be broadcast silently."""
    lhs, rhs = (np.zeros((n, 3), np.float32) for n in rows)
    with pytest.raises(ValueError, match="'ember.add' .*operand shapes differ"):
        interpreter.run(_add_module(), lhs, rhs)


def test_mismatched_dynamic_sizes_in_select():
    t = TensorType((DYN,), "f64")
    module = build([t.with_dtype("i1"), t, t], lambda b, c, x, y: b.op("select", c, x, y))
    with pytest.raises(ValueError, match="'ember.select' .*operand shapes differ"):
        interpreter.run(module, np.ones(1, bool), np.ones(3), np.ones(3))


def test_results_do_not_alias_inputs():
    module = build([TensorType((2, 2), "i64")], lambda b, x: [b.op("transpose", x, perm=(0, 1)), x])
    x = np.arange(4).reshape(2, 2)
    t, same_x = interpreter.run(module, x)
    t[0, 0] = 100
    same_x[0, 1] = 100
    same(x, np.arange(4).reshape(2, 2))


def test_entry_selects_a_function_and_text_is_accepted():
    text = """
    func.func @first(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = "ember.neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }
    func.func @second(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = "ember.exp"(%a) : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }
    """
    x = np.float32([0, 1])
    same(interpreter.run(text, x)[0], -x)
    same(interpreter.run(text, x, entry="second")[0], np.exp(x))
    with pytest.raises(ValueError, match="no function @third"):
        interpreter.run(text, x, entry="third")


def test_non_ember_ops_are_refused_by_name():
    text = """
    func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = arith.addf %a, %a : tensor<2xf32>
      return %0 : tensor<2xf32>
    }
    """
    with pytest.raises(NotImplementedError, match="arith.addf"):
        interpreter.run(text, np.float32([0, 1]))


def test_interpreter_catches_its_own_dtype_disagreement(monkeypatch):
    module = build([TensorType((2,), "f32")] * 2, lambda b, x, y: b.op("add", x, y))
    monkeypatch.setitem(interpreter.IMPLS, "add", lambda x, y, attrs, out: (x + y).astype(np.float64))
    with pytest.raises(interpreter.InterpreterError, match="ember.add.*tensor<2xf32>"):
        interpreter.run(module, np.float32([1, 2]), np.float32([3, 4]))


def test_interpreter_catches_its_own_shape_disagreement(monkeypatch):
    module = build([TensorType((2, 3), "f32")], lambda b, x: b.op("sum", x, axes=(1,), keepdims=True))
    monkeypatch.setitem(interpreter.IMPLS, "sum", lambda x, attrs, out: x.sum(axis=1))
    with pytest.raises(interpreter.InterpreterError, match="ember.sum"):
        interpreter.run(module, np.zeros((2, 3), np.float32))


def test_results_are_0d_arrays_not_scalars():
    module = build(
        [TensorType((3,), "f64")] * 2, lambda b, x, y: [b.op("matmul", x, y), b.op("sum", x, axes=(0,), keepdims=False)]
    )
    dot, total = interpreter.run(module, np.ones(3), np.ones(3))
    assert isinstance(dot, np.ndarray) and dot.shape == () and dot == 3.0
    assert isinstance(total, np.ndarray) and total.shape == () and total == 3.0


# ----------------------------------------------------------------------------- builder type rules


def _f32(*shape):
    return TensorType(shape, "f32")


BAD_BUILDS = {
    "unary dtype": ([TensorType((2,), "i32")], lambda b, x: b.op("exp", x), "element type i32 not supported"),
    "logical_not of float": ([_f32(2)], lambda b, x: b.op("logical_not", x), "element type f32"),
    "binary shapes": ([_f32(2), _f32(3)], lambda b, x, y: b.op("add", x, y), "operand types differ"),
    "binary dtypes": ([_f32(2), TensorType((2,), "f64")], lambda b, x, y: b.op("mul", x, y), "operand types differ"),
    "div of ints": ([TensorType((2,), "i64")] * 2, lambda b, x, y: b.op("div", x, y), "element type i64"),
    "cmp predicate": ([_f32(2)] * 2, lambda b, x, y: b.op("cmp", x, y, predicate="lessish"), "unknown predicate"),
    "select cond": ([_f32(2)] * 3, lambda b, c, x, y: b.op("select", c, x, y), "condition must have element type i1"),
    "cast needs result": ([_f32(2)], lambda b, x: b.op("cast", x), "needs an explicit result type"),
    "cast shape": ([_f32(2)], lambda b, x: b.op("cast", x, result=TensorType((3,), "i32")), "cast changes shape"),
    "sum axes": ([_f32(2, 3)], lambda b, x: b.op("sum", x, axes=(2,), keepdims=False), "out of range"),
    "sum repeated axes": ([_f32(2, 3)], lambda b, x: b.op("sum", x, axes=(1, 1), keepdims=False), "repeat"),
    "mean of ints": (
        [TensorType((2,), "i32")],
        lambda b, x: b.op("mean", x, axes=(0,), keepdims=False),
        "'mean' needs a float",
    ),
    "sum of bools": ([TensorType((2,), "i1")], lambda b, x: b.op("sum", x, axes=(0,), keepdims=False), "i1"),
    "matmul k": ([_f32(2, 3), _f32(4, 2)], lambda b, x, y: b.op("matmul", x, y), "contracted dimensions differ"),
    "matmul 0-d": ([_f32(), _f32(3)], lambda b, x, y: b.op("matmul", x, y), "rank 1 or more"),
    "transpose perm": ([_f32(2, 3)], lambda b, x: b.op("transpose", x, perm=(0, 0)), "not a permutation"),
    "reshape count": ([_f32(2, 3)], lambda b, x: b.op("reshape", x, result=_f32(4)), "cannot reshape"),
    "broadcast dims": ([_f32(2)], lambda b, x: b.op("broadcast_to", x, result=_f32(3)), "neither 1 nor equal"),
    "broadcast rank": ([_f32(2, 2)], lambda b, x: b.op("broadcast_to", x, result=_f32(2)), "lower rank"),
    "expand_dims axes": ([_f32(2)], lambda b, x: b.op("expand_dims", x, axes=(3,)), "out of range"),
    "squeeze non-1": ([_f32(2, 1)], lambda b, x: b.op("squeeze", x, axes=(0,)), "its size is not 1"),
    "slice range": (
        [_f32(4)],
        lambda b, x: b.op("slice", x, starts=(2,), steps=(1,), result=_f32(3)),
        "leave the size",
    ),
    "slice zero step": ([_f32(4)], lambda b, x: b.op("slice", x, starts=(0,), steps=(0,), result=_f32(1)), "zero"),
    "slice arity": (
        [_f32(4)],
        lambda b, x: b.op("slice", x, starts=(0, 0), steps=(1,), result=_f32(1)),
        "need 1 entries",
    ),
    "concatenate dims": (
        [_f32(2, 3), _f32(2, 4)],
        lambda b, x, y: b.op("concatenate", x, y, axis=0),
        "dimension 1 differs",
    ),
    "concatenate 0-d": ([_f32(), _f32()], lambda b, x, y: b.op("concatenate", x, y, axis=0), "cannot concatenate"),
    "dim axis": ([_f32(2)], lambda b, x: b.dim(x, 1), "axis [1] out of range"),
    "operand count": ([_f32(2)], lambda b, x: b.op("add", x), "expects 2 tensor operands, got 1"),
}


@pytest.mark.parametrize("case", sorted(BAD_BUILDS))
def test_builder_raises_type_rule_error(case):
    arg_types, body, message = BAD_BUILDS[case]
    b = FunctionBuilder("f", arg_types)
    with pytest.raises(ops.TypeRuleError, match=message.replace("[", r"\[").replace("]", r"\]")):
        body(b, *b.args)


def test_type_rule_error_is_a_value_error():
    assert issubclass(ops.TypeRuleError, ValueError)


# ----------------------------------------------------------------------------- guard metadata


def _metadata_module(metadata):
    b = FunctionBuilder("graph", [TensorType((DYN, 3), "f32"), TensorType((DYN, DYN), "i64"), TensorType((), "f64")])
    x, y, z = b.args
    return b.finish([b.op("neg", x)], metadata=metadata)


def test_guard_metadata_round_trips_through_text():
    metadata = GuardMetadata(
        guards=[
            Guard("tensor_match", "L['x'].dtype == np.float32 and L['x'].ndim == 2", ("L['x']",)),
            Guard("type", "type(L['n']) is int", ("L['n']",)),
            Guard("symbolic", "2*s0 >= 16 and s1 == s2", ("L['x'].shape[0]", "L['y'].shape[0]")),
            Guard("global", "G['scale'] == 0.5", ()),
            Guard("constant", 'L[\'s\'] == "quote\\" and unicode \u00e9"', ("L['s']",)),
        ],
        symbols=[
            Symbol("s0", "L['x'].shape[0]", 128),
            Symbol("s1", "L['y'].shape[0]", 0),
            Symbol("s2", "L['y'].shape[1]", -1),
        ],
        arg_sources=["L['x']", "L['y']", None],
    )
    module = _metadata_module(metadata)
    assert module.operation.verify()
    text = str(module)
    assert "ember.guards" in text and "ember.symbols" in text and "ember.source" in text
    with ember.new_context():
        reparsed = ir.Module.parse(text)
        assert str(reparsed) == text
        func_op = reparsed.body.operations[0]
        read = GuardMetadata.read(func_op)
    assert read == metadata
    assert read.guards[2].sources == ("L['x'].shape[0]", "L['y'].shape[0]")
    same(
        run1(reparsed, np.ones((2, 3), np.float32), np.ones((1, 1), np.int64), np.array(1.0)),
        -np.ones((2, 3), np.float32),
    )


def test_guard_metadata_read_without_metadata_is_empty():
    module = _metadata_module(None)
    read = GuardMetadata.read(module.body.operations[0])
    assert read == GuardMetadata([], [], [])


def test_guard_metadata_without_arg_sources():
    metadata = GuardMetadata(guards=[Guard("length", "len(L['xs']) == 2", ("L['xs']",))], symbols=[])
    text = str(_metadata_module(metadata))
    with ember.new_context():
        read = GuardMetadata.read(ir.Module.parse(text).body.operations[0])
    assert read == metadata and read.arg_sources == []
