"""ember-to-linalg: every op family lowered, verified, then run natively and compared with NumPy.

Each case builds an Ember function with ``FunctionBuilder``, runs the pass on a copy,
checks that no ``ember.`` op is left and the module verifies, then compiles the
function through the whole CPU pipeline (``compile_module``: this pass, fusion,
tiling, bufferization, LLVM) and compares with NumPy on ordinary and odd inputs:
sizes 0 and 1, NaN/inf, int and bool dtypes, 0-d, dynamic (``?``) sizes.
"""

from __future__ import annotations

import numpy as np
import pytest
from graph_building import T, build, lowered
from op_oracles import BINARY_REF, CMP_REF, UNARY_REF

from compiler.backends.llvm_cpu import compile_module, signature_of
from compiler.dialects.builder import FunctionBuilder
from compiler.mlir import function_named, ir
from compiler.passes.pass_manager import run_pipeline

N = None  # a dynamic size


def lower(body, arg_types):
    return lowered(build(arg_types, body))


def run(body, arg_types, *inputs):
    module = build(arg_types, body)
    lowered(module)
    types = signature_of(function_named(module)).inputs
    return compile_module(module)(*[np.asarray(a, dtype=t.dtype) for a, t in zip(inputs, types)])


def check(got, want, reduction=False):
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        rtol = 1e-5 if want.dtype == np.float32 else 1e-12
        atol = (1e-5 if want.dtype == np.float32 else 1e-12) if reduction else 0
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        assert np.array_equal(np.isnan(got), np.isnan(want))
    else:
        np.testing.assert_array_equal(got, want)


@pytest.fixture(autouse=True)
def _quiet_numpy():
    with np.errstate(all="ignore"):
        yield


SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -3.75, 0.1, 7.0, -7.0, 1e30, -1e-30, np.nan, np.inf, -np.inf, 0.5, 3.0]


def floats(dtype, shape=(4, 4), seed=0):
    rng = np.random.default_rng(seed)
    if shape == (4, 4):
        return rng.permutation(np.array(SPECIAL, dtype)).reshape(shape)
    return np.asarray(rng.standard_normal(shape) * 3, dtype)


def ints(dtype, shape=(4, 4), seed=0, low=-9, high=10):
    rng = np.random.default_rng(seed)
    a = rng.integers(low, high, size=shape).astype(dtype)
    if a.size >= 2:
        a.flat[0] = np.iinfo(dtype).min
        a.flat[1] = np.iinfo(dtype).max
    return a


def bools(shape=(4, 4), seed=0):
    return np.random.default_rng(seed).random(shape) < 0.5


def sample(dtype, shape=(4, 4), seed=0):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return floats(dtype, shape, seed)
    if dtype.kind == "b":
        return bools(shape, seed)
    return ints(dtype, shape, seed)


DTYPE = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "i1": np.bool_}

# ----------------------------------------------------------------------------- unary


UNARY_CASES = [(op, d) for op in UNARY_REF for d in ("f32", "f64") if op != "logical_not"] + [
    ("neg", "i32"),
    ("neg", "i64"),
    ("abs", "i32"),
    ("abs", "i64"),
    ("logical_not", "i1"),
]


@pytest.mark.parametrize("op,dtype", UNARY_CASES)
def test_unary(op, dtype):
    x = sample(DTYPE[dtype])
    if op in ("sin", "cos"):  # libm and NumPy may differ in the last bits far from 0
        x = np.where(np.abs(x) > 100, 1.5, x).astype(x.dtype)
    (got,) = run(lambda b, a: b.op(op, a), [T((N, 4), dtype)], x)
    check(got, UNARY_REF[op](x))


@pytest.mark.parametrize(
    "shape,actual",
    [
        ((3, 4), (3, 4)),
        ((N, 4), (5, 4)),
        ((N, N), (0, 3)),
        ((), ()),
        ((1,), (1,)),
        ((N,), (0,)),
        ((2, N, 3), (2, 1, 3)),
    ],
)
def test_elementwise_shapes(shape, actual):
    x = floats(np.float32, actual, seed=1)
    y = floats(np.float32, actual, seed=2)
    (got,) = run(lambda b, a, c: b.op("sub", b.op("exp", a), c), [T(shape)] * 2, x, y)
    check(got, np.exp(x) - y)


# ----------------------------------------------------------------------------- binary

BINARY_CASES = (
    [
        (op, d)
        for op in ("add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum", "minimum")
        for d in ("f32", "f64")
    ]
    + [
        (op, d)
        for op in ("add", "sub", "mul", "floordiv", "mod", "pow", "maximum", "minimum", "and", "or", "xor")
        for d in ("i32", "i64")
    ]
    + [(op, "i1") for op in ("maximum", "minimum", "and", "or", "xor")]
)


def binary_inputs(op, dtype):
    dt = DTYPE[dtype]
    if dtype.startswith("f"):
        x, y = floats(dt, seed=1), floats(dt, seed=2)
        # every special value against every other one, including x // 0 and x % 0
        x = np.repeat(np.array(SPECIAL, dt), len(SPECIAL))
        y = np.tile(np.array(SPECIAL, dt), len(SPECIAL))
        return x.reshape(16, 16), y.reshape(16, 16)
    if dtype == "i1":
        return bools(seed=1), bools(seed=2)
    if op == "pow":
        return ints(dt, seed=1, low=-5, high=6), np.random.default_rng(3).integers(0, 8, (4, 4)).astype(dt)
    x = ints(dt, (6, 6), seed=1)
    y = ints(dt, (6, 6), seed=2, low=-3, high=4)  # zeros and -1 included
    y[0, :] = [-1, 0, 1, -1, 0, 2]  # INT_MIN // -1, INT_MAX // 0, ...
    return x, y


@pytest.mark.parametrize("op,dtype", BINARY_CASES)
def test_binary(op, dtype):
    x, y = binary_inputs(op, dtype)
    if op == "pow" and dtype.startswith("i"):
        x.flat[:2] = [3, -2]  # NumPy's int power overflow is fine, but keep the table readable
    (got,) = run(lambda b, a, c: b.op(op, a, c), [T((N, x.shape[1]), dtype)] * 2, x, y)
    check(got, BINARY_REF[op](x, y))


def test_float_floordiv_is_numpy_not_floor_of_quotient():
    x = np.array([1.0, -1.0, 0.7, 5.0], np.float64)
    y = np.array([0.1, 0.1, 0.1, -0.3], np.float64)
    (q, r) = run(lambda b, a, c: [b.op("floordiv", a, c), b.op("mod", a, c)], [T((4,), "f64")] * 2, x, y)
    check(q, np.floor_divide(x, y))
    check(r, np.mod(x, y))


# ----------------------------------------------------------------------------- cmp / select / cast


@pytest.mark.parametrize("pred", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("dtype", ["f32", "i64", "i1"])
def test_cmp(pred, dtype):
    if dtype == "f32":
        x = np.repeat(np.array(SPECIAL, np.float32), 16).reshape(16, 16)
        y = x.T.copy()
    else:
        x, y = sample(DTYPE[dtype], seed=1), sample(DTYPE[dtype], seed=2)
    (got,) = run(lambda b, a, c: b.op("cmp", a, c, predicate=pred), [T((N, N), dtype)] * 2, x, y)
    check(got, CMP_REF[pred](x, y))


@pytest.mark.parametrize("dtype", ["f64", "i32", "i1"])
def test_select(dtype):
    c, x, y = bools(seed=5), sample(DTYPE[dtype], seed=1), sample(DTYPE[dtype], seed=2)
    (got,) = run(
        lambda b, p, a, d: b.op("select", p, a, d), [T((4, N), "i1"), T((4, N), dtype), T((4, N), dtype)], c, x, y
    )
    check(got, np.where(c, x, y))


@pytest.mark.parametrize("src", list(DTYPE))
@pytest.mark.parametrize("dst", list(DTYPE))
def test_cast(src, dst):
    x = sample(DTYPE[src], seed=3)
    if src.startswith("f") and dst.startswith("i") and dst != "i1":
        # float -> int of NaN/inf/out-of-range is undefined in NumPy too
        x = np.array(
            [0.0, -0.0, 0.5, -0.5, 1.9, -1.9, 2.5, -2.5, 100.25, -100.75, 3, 7, 0.1, -7, 1e3, -1e3], DTYPE[src]
        ).reshape(4, 4)
    if src.startswith("i") and src != "i1" and dst == "f32":
        x = x // 1024  # keep int -> f32 exactly representable apart from the extremes
    (got,) = run(lambda b, a: b.op("cast", a, result=T((4, N), dst)), [T((4, N), src)], x)
    check(got, x.astype(DTYPE[dst]))


# ----------------------------------------------------------------------------- reductions

REDUCE = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean}


@pytest.mark.parametrize("op", list(REDUCE))
@pytest.mark.parametrize("axes", [(0,), (1,), (0, 2), (0, 1, 2), (), (2, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_f32(op, axes, keepdims):
    x = floats(np.float32, (3, 4, 5), seed=7)
    if op == "prod":
        x = (1 + x / 10).astype(np.float32)
    (got,) = run(lambda b, a: b.op(op, a, axes=axes, keepdims=keepdims), [T((3, N, 5))], x)
    check(got, REDUCE[op](x, axis=axes, keepdims=keepdims), reduction=True)


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", ["i32", "i64", "f64"])
def test_reduce_dtypes(op, dtype):
    x = sample(DTYPE[dtype], (4, 6), seed=2)
    if dtype.startswith("i"):
        x = np.random.default_rng(1).integers(-4, 5, (4, 6)).astype(DTYPE[dtype])
    if dtype == "f64":
        x = np.random.default_rng(1).standard_normal((4, 6))
    (got,) = run(lambda b, a: b.op(op, a, axes=(1,), keepdims=False), [T((N, 6), dtype)], x)
    # NumPy sums small ints into int64; Ember's sum keeps the dtype (the frontend casts).
    want = REDUCE[op](x, axis=1, dtype=x.dtype) if op in ("sum", "prod") else REDUCE[op](x, axis=1)
    check(got, want, reduction=True)


@pytest.mark.parametrize("op", ["max", "min"])
def test_reduce_bool(op):
    x = bools((5, 3), seed=4)
    x[0, :] = True
    x[1, :] = False
    (got,) = run(lambda b, a: b.op(op, a, axes=(1,), keepdims=True), [T((N, 3), "i1")], x)
    check(got, REDUCE[op](x, axis=1, keepdims=True))


@pytest.mark.parametrize("op", ["max", "min", "sum", "mean"])
def test_reduce_nan_propagates(op):
    x = np.array([[1.0, np.nan, 3.0], [np.inf, 2.0, -np.inf], [-0.0, -0.0, -0.0]], np.float32)
    (got,) = run(lambda b, a: b.op(op, a, axes=(1,), keepdims=False), [T((3, 3))], x)
    check(got, REDUCE[op](x, axis=1))


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
@pytest.mark.parametrize("op", ["sum", "prod", "mean"])
def test_reduce_empty(op):
    x = np.zeros((0, 3), np.float32)
    (got,) = run(lambda b, a: b.op(op, a, axes=(0,), keepdims=False), [T((N, 3))], x)
    check(got, REDUCE[op](x, axis=0))


@pytest.mark.parametrize("op", list(REDUCE))
def test_reduce_0d(op):
    x = np.array(2.5, np.float64)
    (got,) = run(lambda b, a: b.op(op, a, axes=(), keepdims=False), [T((), "f64")], x)
    check(got, REDUCE[op](x))


def test_mean_dynamic_all_axes():
    x = np.random.default_rng(3).standard_normal((7, 9)).astype(np.float32)
    (got,) = run(lambda b, a: b.op("mean", a, axes=(0, 1), keepdims=True), [T((N, N))], x)
    check(got, x.mean(keepdims=True), reduction=True)


# ----------------------------------------------------------------------------- matmul


@pytest.mark.parametrize(
    "ls,rs,lt,rt",
    [
        ((3, 4), (4, 5), (3, 4), (4, 5)),
        ((N, 4), (4, N), (6, 4), (4, 2)),
        ((4,), (4, 5), (4,), (4, 5)),
        ((3, 4), (4,), (3, 4), (4,)),
        ((N,), (N,), (7,), (7,)),
        ((2, 3, 4), (2, 4, 5), (2, 3, 4), (2, 4, 5)),
        ((N, 3, N), (N, N, 5), (2, 3, 4), (2, 4, 5)),
        ((2, 2, 3, 4), (2, 2, 4, 5), (2, 2, 3, 4), (2, 2, 4, 5)),
        ((3, 0), (0, 5), (3, 0), (0, 5)),
        ((1, 1), (1, 1), (1, 1), (1, 1)),
    ],
)
@pytest.mark.parametrize("dtype", ["f32", "f64", "i32", "i64"])
def test_matmul(ls, rs, lt, rt, dtype):
    if dtype in ("f64", "i32") and len(ls) != 2:
        pytest.skip("dtype coverage on the 2-d shapes is enough")
    x, y = sample(DTYPE[dtype], lt, seed=1), sample(DTYPE[dtype], rt, seed=2)
    if dtype.startswith("i"):
        x = np.random.default_rng(1).integers(-5, 6, lt).astype(DTYPE[dtype])
        y = np.random.default_rng(2).integers(-5, 6, rt).astype(DTYPE[dtype])
    (got,) = run(lambda b, a, c: b.op("matmul", a, c), [T(ls, dtype), T(rs, dtype)], x, y)
    check(got, np.matmul(x, y), reduction=True)


# ----------------------------------------------------------------------------- shapes


@pytest.mark.parametrize(
    "shape,actual,perm", [((2, 3, 4), (2, 3, 4), (2, 0, 1)), ((N, 3), (5, 3), (1, 0)), ((), (), ()), ((N,), (0,), (0,))]
)
def test_transpose(shape, actual, perm):
    x = floats(np.float32, actual)
    (got,) = run(lambda b, a: b.op("transpose", a, perm=perm), [T(shape)], x)
    check(got, np.transpose(x, perm))


def test_broadcast_static():
    x = floats(np.float64, (3, 1))
    (got,) = run(lambda b, a: b.op("broadcast_to", a, result=T((2, 3, 4), "f64")), [T((3, 1), "f64")], x)
    check(got, np.broadcast_to(x, (2, 3, 4)))


def test_broadcast_dynamic_sizes_from_operands():
    x, like = ints(np.int32, (1, 4)), floats(np.float32, (6, 5))

    def build(b, a, other):
        return b.op("broadcast_to", a, result=T((N, N, 4), "i32"), sizes=[b.dim(other, 0), b.dim(other, 1)])

    (got,) = run(build, [T((1, 4), "i32"), T((N, N))], x, like)
    check(got, np.broadcast_to(x, (6, 5, 4)))


def test_broadcast_0d_and_dynamic_passthrough():
    x, y = np.array(True), bools((3, 2))

    def build(b, a, c):
        return [
            b.op("broadcast_to", a, result=T((N, 2), "i1"), sizes=[b.dim(c, 0)]),
            b.op("broadcast_to", c, result=T((4, N, 2), "i1"), sizes=[b.dim(c, 0)]),
        ]

    got = run(build, [T((), "i1"), T((N, 2), "i1")], x, y)
    check(got[0], np.broadcast_to(x, (3, 2)))
    check(got[1], np.broadcast_to(y, (4, 3, 2)))


@pytest.mark.parametrize(
    "src,dst,actual",
    [
        ((2, 3, 4), (6, 4), None),
        ((6, 4), (2, 3, 4), None),
        ((2, 3), (3, 2), None),
        ((1, 6, 1), (6,), None),
        ((6,), (1, 2, 1, 3), None),
        ((4,), (2, 2), None),
        ((1, 1), (), None),
        ((), (1, 1, 1), None),
        ((2, 0), (0, 5), None),
        ((3, 4), (12, 1), None),  # a unit dim after every source dim is used: no reassociation
        ((2, 1, 4), (2, 4, 1), None),
        ((3, 4, 1), (12, 1), None),
        ((N, 4), (2, N), (6, 4)),
        ((N, N), (N,), (3, 5)),
        ((N,), (N, 2), (8,)),
        ((N, 1), (), (1, 1)),
        ((N, 3), (N, 3), (4, 3)),
    ],
)
def test_reshape(src, dst, actual):
    actual = actual or src
    x = ints(np.int64, actual)
    want = x.reshape([d if d is not None else -1 for d in dst])

    def build(b, a):
        sizes = [_index_const(b, want.shape[i]) for i, d in enumerate(dst) if d is N]
        return b.op("reshape", a, result=T(dst, "i64"), sizes=sizes)

    (got,) = run(build, [T(src, "i64")], x)
    check(got, want)


def _index_const(b, value):
    """An ``index`` value for a dynamic size: dim of a constant of that length."""
    return b.dim(b.constant(np.zeros(value, np.int32)), 0)


@pytest.mark.parametrize(
    "shape,actual,axes",
    [((3, N), (3, 5), (0,)), ((3, N), (3, 5), (2,)), ((3, N), (3, 5), (0, 2, 3)), ((), (), (0, 1)), ((N,), (0,), (1,))],
)
def test_expand_dims(shape, actual, axes):
    x = floats(np.float32, actual)
    (got,) = run(lambda b, a: b.op("expand_dims", a, axes=axes), [T(shape)], x)
    check(got, np.expand_dims(x, axes))


@pytest.mark.parametrize(
    "shape,actual,axes",
    [((1, N, 1), (1, 4, 1), (0, 2)), ((1, N, 1), (1, 4, 1), (2,)), ((1, 1), (1, 1), (0, 1)), ((N, 1), (0, 1), (1,))],
)
def test_squeeze(shape, actual, axes):
    x = floats(np.float64, actual)
    (got,) = run(lambda b, a: b.op("squeeze", a, axes=axes), [T(shape, "f64")], x)
    check(got, np.squeeze(x, axes))


# ----------------------------------------------------------------------------- slice / concatenate


@pytest.mark.parametrize(
    "shape,starts,steps",
    [
        ((6, 5), (1, 0), (2, 1)),
        ((6, 5), (-3, 2), (1, 2)),
        ((6, 5), (5, -1), (-1, -2)),
        ((6, 5), (-1, 3), (-2, 1)),
        ((6, 5), (6, 0), (1, 1)),
        ((6,), (0,), (7,)),
        ((1, 1), (0, -1), (1, -1)),
    ],
)
@pytest.mark.parametrize("dynamic", [False, True])
def test_slice(shape, starts, steps, dynamic):
    x = ints(np.int32, shape)
    index = tuple(slice(s, None, st) for s, st in zip(starts, steps))
    want = x[index]
    arg = T([N] * len(shape) if dynamic else shape, "i32")
    result = T([N] * len(shape) if dynamic else want.shape, "i32")

    def build(b, a):
        sizes = [_index_const(b, n) for n in want.shape] if dynamic else []
        return b.op("slice", a, starts=starts, steps=steps, result=result, sizes=sizes)

    (got,) = run(build, [arg], x)
    check(got, want)


@pytest.mark.parametrize(
    "ls,rs,lt,rt,axis",
    [
        ((2, 3), (4, 3), (2, 3), (4, 3), 0),
        ((2, 3), (2, 1), (2, 3), (2, 1), 1),
        ((N, 3), (N, 3), (2, 3), (5, 3), 0),
        ((2, N), (2, N), (2, 0), (2, 4), 1),
        ((N, N), (N, N), (3, 2), (3, 1), 1),
        ((4,), (0,), (4,), (0,), 0),
    ],
)
def test_concatenate(ls, rs, lt, rt, axis):
    x, y = bools(lt, seed=1), bools(rt, seed=2)
    (got,) = run(lambda b, a, c: b.op("concatenate", a, c, axis=axis), [T(ls, "i1"), T(rs, "i1")], x, y)
    check(got, np.concatenate([x, y], axis))


# ----------------------------------------------------------------------------- constants / dim


@pytest.mark.parametrize(
    "value",
    [
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.array(3, np.int64),
        np.array([True, False]),
        np.array([np.nan, -np.inf], np.float64),
        np.zeros((0, 2), np.int32),
    ],
)
def test_constant(value):
    (got,) = run(lambda b: b.constant(value), [])
    check(got, value)


def test_dim_feeds_sizes():
    x = floats(np.float32, (5, 3))

    def build(b, a):
        k = b.dim(a, 0)
        return b.op("broadcast_to", b.constant(np.float32(2.0)), result=T((N, 3)), sizes=[k])

    (got,) = run(build, [T((N, 3))], x)
    check(got, np.full((5, 3), 2.0, np.float32))


def test_composite_mse_dynamic():
    x, y = floats(np.float32, (17,), seed=1), floats(np.float32, (17,), seed=2)

    def build(b, a, c):
        d = b.op("sub", a, c)
        return b.op("mean", b.op("mul", d, d), axes=(0,), keepdims=False)

    (got,) = run(build, [T((N,))] * 2, x, y)
    check(got, np.mean((x - y) ** 2), reduction=True)


# ----------------------------------------------------------------------------- structure


def test_elementwise_form_is_fusable_generic():
    module = lower(lambda b, a, c: b.op("mul", b.op("add", a, c), c), [T((N, 4))] * 2)
    text = str(module)
    assert text.count("linalg.generic") == 2 and "tensor.empty" in text and '"reduction"' not in text
    run_pipeline(module, "builtin.module(func.func(linalg-fuse-elementwise-ops))")
    assert str(module).count("linalg.generic") == 1


def test_location_is_kept():
    b = FunctionBuilder("f", [T((4,))])
    b.at("model.py", 12, 3)
    module = b.finish([b.op("exp", b.args[0])])
    run_pipeline(module, "builtin.module(ember-to-linalg)")
    with module.context:
        text = module.operation.get_asm(enable_debug_info=True)
    assert 'model.py":12:3' in text and "linalg.generic" in text


def test_malformed_op_is_a_located_error():
    """A pass failure names the pass and is located at the op, never a traceback."""
    from compiler.passes.base import PassFailure
    from compiler.passes.ember_to_linalg import EmberToLinalg

    b = FunctionBuilder("f", [T((4,))])
    b.at("model.py", 7, 1)
    with b.context, b._location:
        op = ir.Operation.create(
            "ember.sum", results=[T(()).to_mlir()], operands=[b.args[0]], ip=ir.InsertionPoint(b.block)
        )  # no axes / keepdims
    module = b.finish([op.result])
    with pytest.raises(PassFailure) as failure:
        EmberToLinalg().run(module.operation)
    assert "axes" in str(failure.value) and failure.value.op.name == "ember.sum"
    with pytest.raises(ir.MLIRError) as error:
        run_pipeline(module, "builtin.module(ember-to-linalg)")
    assert "ember-to-linalg" in str(error.value) and "model.py" in str(error.value)
