"""Property test: random well-typed Ember programs mean what NumPy says.

Hypothesis draws a chain of ops from the op table over random shapes (some sizes
``?`` in the argument types) and dtypes. Each step emits the op with
``FunctionBuilder`` *and* computes the same step with plain NumPy, side by side.
The module must verify, print and re-parse in a fresh context to identical text,
and the interpreter (on the re-parsed module) must reproduce every NumPy value
exactly: same dtype, same shape, same bits (NaN == NaN).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_oracles import BINARY_REF, CMP_REF, UNARY_REF

from compiler.dialects import complex_numbers, ember, interpreter, ops
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import DYN, NUMPY_DTYPES, TensorType
from compiler.mlir import ir

DTYPES = ("f32", "f64", "i32", "i64", "i1")


@dataclass
class Val:
    value: ir.Value  # the builder's SSA value
    ref: np.ndarray  # NumPy's value of the same expression
    type: TensorType  # its Ember type (may have ``?`` sizes)


def random_array(draw, dtype: str, shape) -> np.ndarray:
    """Values that exercise edge cases: small ints, zeros, NaN/inf for floats."""
    n = math.prod(shape)
    np_dtype = NUMPY_DTYPES[dtype]
    if np_dtype.kind == "c":  # the parts drawn as float64 values
        re, im = (random_array(draw, "f64", shape) for _ in range(2))
        out = np.empty(shape, np_dtype)
        out.real, out.imag = re, im
        return out
    if dtype == "i1":
        elems = st.booleans()
    elif np_dtype.kind == "i":
        elems = st.integers(-9, 9)
    elif np_dtype.kind == "u":
        elems = st.integers(0, 18)
    else:
        elems = st.one_of(
            st.integers(-6, 6).map(lambda k: k / 2), st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 1e-3])
        )
    values = draw(st.lists(elems, min_size=n, max_size=n))
    return np.array(values, np_dtype).reshape(shape)


class Program:
    """The builder and the NumPy mirror, growing one op at a time."""

    def __init__(self, draw, arg_types, args):
        self._draw = draw
        self.b = FunctionBuilder("prop", arg_types)
        self.vals = [Val(v, a, t) for v, a, t in zip(self.b.args, args, arg_types)]

    def draw(self, strategy):
        return self._draw(strategy)

    def pick(self, ok=lambda v: True):
        candidates = [v for v in self.vals if ok(v)]
        return self.draw(st.sampled_from(candidates)) if candidates else None

    def emit(self, name, operands, ref, result=None, sizes=(), **attrs):
        value = self.b.op(name, *(o.value for o in operands), result=result, sizes=sizes, **attrs)
        ref = np.asarray(ref)
        t = FunctionBuilder.type_of(value)
        assert ref.dtype == t.numpy_dtype, (name, ref.dtype, t)
        self.vals.append(Val(value, ref, t))

    def value_of(self, dtypes):
        """A value with an element type in ``dtypes``, casting one when there is none.

        Ops are drawn first and values fitted to them, so that every row of the op
        table is exercised about equally whatever dtype the arguments started with.
        """
        v = self.pick(lambda v: v.type.dtype in dtypes)
        if v is None or self.draw(st.integers(0, 3)) == 0:
            dtype = self.draw(st.sampled_from(sorted(dtypes)))
            w = self.pick(lambda w: cast_is_defined(w.ref, dtype))
            if w is None:  # every value holds floats no integer type has: a constant instead
                c = random_array(self.draw, dtype, ())
                self.vals.append(Val(self.b.constant(c), c, TensorType.of_array(c)))
            else:
                self.emit("cast", [w], w.ref.astype(NUMPY_DTYPES[dtype]), result=w.type.with_dtype(dtype))
            v = self.vals[-1]
        return v

    def partner(self, v):
        """Another value of ``v``'s type and run-time shape (or ``v`` itself).

        Equal types are not enough: two ``?`` sizes may differ at run time (a
        well-typed program whose sizes disagree fails at run time, tested elsewhere).
        """
        return self.pick(lambda w: w.type == v.type and w.ref.shape == v.ref.shape)


# ----------------------------------------------------------------------------- one generator per family


NUMERIC = ("f32", "f64", "i32", "i64")


def g_unary(p, name):
    v = p.value_of(ops.UNARY_DTYPES[name])
    p.emit(name, [v], UNARY_REF[name](v.ref))


def g_binary(p, name):
    # int ** negative int raises in NumPy (tested in test_dialect.py): pow only on floats here
    v = p.value_of(("f32", "f64") if name == "pow" else ops.BINARY_DTYPES[name])
    w = p.partner(v)
    p.emit(name, [v, w], BINARY_REF[name](v.ref, w.ref))


def g_constant(p, name):
    """A constant of a static value's type, combined with that value (or on its own)."""
    v = p.pick(lambda v: v.type.is_static)
    if v is None:
        shape = tuple(p.draw(st.lists(st.integers(0, 3), max_size=2)))
        c = random_array(p.draw, p.draw(st.sampled_from(DTYPES)), shape)
        p.vals.append(Val(p.b.constant(c), c, TensorType.of_array(c)))
        return
    c = random_array(p.draw, v.type.dtype, v.type.shape)
    if v.type.is_complex:  # a complex constant is ember.complex of its parts (complex_numbers.py)
        p.vals.append(Val(p.b.op("complex", p.b.constant(c.real), p.b.constant(c.imag)), c, v.type))
    else:
        p.vals.append(Val(p.b.constant(c), c, v.type))
    op = p.draw(
        st.sampled_from(sorted(n for n, dts in ops.BINARY_DTYPES.items() if v.type.dtype in dts and n != "pow"))
    )
    p.emit(op, [v, p.vals[-1]], BINARY_REF[op](v.ref, c))


def g_cmp_select(p, name):
    v = p.pick()
    w = p.partner(v)
    predicate = p.draw(st.sampled_from(ops.CMP_PREDICATES))
    p.emit("cmp", [v, w], CMP_REF[predicate](v.ref, w.ref), predicate=predicate)
    cond = p.vals[-1]
    if name == "select":
        p.emit("select", [cond, v, w], np.where(cond.ref, v.ref, w.ref))


def g_cast(p, name):
    dtype = p.draw(st.sampled_from(DTYPES))
    v = p.pick(lambda v: cast_is_defined(v.ref, dtype)) or p.pick()
    if not cast_is_defined(v.ref, dtype):
        dtype = "f64"
    p.emit("cast", [v], v.ref.astype(NUMPY_DTYPES[dtype]), result=v.type.with_dtype(dtype))


def cast_is_defined(ref: np.ndarray, dtype: str) -> bool:
    """Whether ``ref.astype`` to ``dtype`` has one answer. A NaN, an infinity or a float
    outside an integer type's range becomes whatever the conversion instruction of the
    loop NumPy runs gives (C leaves it undefined): NumPy's own contiguous and strided
    loops differ (a complex NaN's real part as uint32: 0x80000000 from one, 0 from the
    other), and so may a compiled kernel, as NumPy warns."""
    target = NUMPY_DTYPES[dtype]
    if target.kind not in "iu" or ref.dtype.kind not in "fc":
        return True
    values = np.asarray(ref.real if ref.dtype.kind == "c" else ref, np.float64)
    if not np.all(np.isfinite(values)):
        return False
    whole = np.trunc(values)
    return bool(np.all((whole >= np.iinfo(target).min) & (whole <= np.iinfo(target).max)))


def g_reduce(p, name):
    v = p.value_of({"sum": NUMERIC, "prod": NUMERIC, "mean": ("f32", "f64")}.get(name, DTYPES))
    axes = tuple(p.draw(st.permutations(range(v.type.rank)))[: p.draw(st.integers(0, v.type.rank))])
    keepdims = p.draw(st.booleans())
    if name in ("max", "min"):  # NumPy raises over size 0: no identity (tested in test_dialect.py)
        axes = tuple(a for a in axes if v.ref.shape[a] != 0)
    kw = {} if name in ("max", "min") else {"dtype": v.ref.dtype}
    ref = getattr(np, name)(v.ref, axis=axes, keepdims=keepdims, **kw)
    p.emit(name, [v], ref, axes=axes, keepdims=keepdims)


def at_least_1d(p, v):
    if v.type.rank == 0:
        p.emit("expand_dims", [v], v.ref[None], axes=(0,))
        v = p.vals[-1]
    return v


def g_matmul(p, name):
    v = at_least_1d(p, p.value_of(NUMERIC))
    if v.type.rank == 1:
        p.emit("matmul", [v, v], np.matmul(v.ref, v.ref))
        return
    perm = tuple(range(v.type.rank - 2)) + (v.type.rank - 1, v.type.rank - 2)
    p.emit("transpose", [v], np.transpose(v.ref, perm), perm=perm)
    vt = p.vals[-1]
    p.emit("matmul", [v, vt], np.matmul(v.ref, vt.ref))


def g_transpose(p, name):
    v = p.pick()
    perm = tuple(p.draw(st.permutations(range(v.type.rank))))
    p.emit("transpose", [v], np.transpose(v.ref, perm), perm=perm)


def g_expand_dims(p, name):
    v = p.pick()
    rank = v.type.rank + p.draw(st.integers(0, 2))
    axes = tuple(p.draw(st.permutations(range(rank)))[: rank - v.type.rank])
    p.emit("expand_dims", [v], np.expand_dims(v.ref, axes), axes=axes)


def g_squeeze(p, name):
    v = p.pick(lambda v: 1 in v.type.shape)
    if v is None:
        g_expand_dims(p, "expand_dims")
        v = p.vals[-1]
    ones = [i for i, d in enumerate(v.type.shape) if d == 1]
    axes = tuple(p.draw(st.permutations(ones))[: p.draw(st.integers(0, len(ones)))])
    p.emit("squeeze", [v], np.squeeze(v.ref, axis=axes), axes=axes)


def g_reshape(p, name):
    v = p.pick(lambda v: v.type.is_static)
    if v is None:
        return g_dim(p, "dim")  # the other thing a value of unknown sizes can be reshaped by
    dims = [d for d in v.type.shape if d != 1]
    dims = list(p.draw(st.permutations(dims)))
    if len(dims) >= 2 and p.draw(st.booleans()):
        dims = [dims[0] * dims[1]] + dims[2:]
    shape = tuple(dims) + (1,) * p.draw(st.integers(0, 2))
    p.emit("reshape", [v], np.reshape(v.ref, shape), result=v.type.with_shape(shape))


def g_dim(p, name):
    """Reshape a value to its sizes in another order, each ``?`` fed by ``ember.dim``."""
    v = p.pick()
    perm = tuple(p.draw(st.permutations(range(v.type.rank))))
    result = v.type.with_shape([v.type.shape[a] for a in perm])
    sizes = [p.b.dim(v.value, perm[a]) for a in result.dynamic_axes()]
    ref = np.reshape(v.ref, [v.ref.shape[a] for a in perm])
    p.emit("reshape", [v], ref, result=result, sizes=sizes)


def g_broadcast(p, name):
    v = p.pick()
    lead = tuple(p.draw(st.lists(st.integers(0, 3), max_size=2)))
    shape, concrete = list(lead), list(lead)
    for d, actual in zip(v.type.shape, v.ref.shape):
        if d == 1 and p.draw(st.booleans()):
            k = p.draw(st.integers(0, 3))
            shape.append(k)
            concrete.append(k)
        else:
            shape.append(d)
            concrete.append(actual)
    result = v.type.with_shape(shape)
    sizes = [p.b.dim(v.value, axis - len(lead)) for axis in result.dynamic_axes()]
    p.emit("broadcast_to", [v], np.broadcast_to(v.ref, concrete), result=result, sizes=sizes)


def draw_region(p, v):
    """(starts, steps, shape, sizes, picked) of a random strided region of ``v``:
    ``picked[axis]`` are the indices NumPy's slice would take along ``axis``."""
    starts, steps, shape, sizes, picked = [], [], [], [], []
    for axis, (d, actual) in enumerate(zip(v.type.shape, v.ref.shape)):
        if d is DYN and p.draw(st.booleans()):  # the whole dim, maybe reversed: its length is dim(v)
            step = p.draw(st.sampled_from([1, -1]))
            start, length = (0 if step == 1 else -1), DYN
            sizes.append(p.b.dim(v.value, axis))
            indices = np.arange(actual)[::step]
        elif actual == 0:
            start, step, length, indices = 0, 1, 0, np.arange(0)
        else:
            start = p.draw(st.integers(-actual, actual - 1))
            step = p.draw(st.sampled_from([1, 2, 3, -1, -2]))
            first = start % actual
            length = p.draw(st.integers(0, ops.slice_length(actual, first, step)))
            indices = first + step * np.arange(length)
        starts.append(start)
        steps.append(step)
        shape.append(length)
        picked.append(indices)
    return starts, steps, shape, sizes, picked


def g_slice(p, name):
    v = at_least_1d(p, p.pick())
    starts, steps, shape, sizes, picked = draw_region(p, v)
    ref = v.ref
    for axis, indices in enumerate(picked):
        ref = np.take(ref, indices, axis=axis)
    p.emit("slice", [v], ref, result=v.type.with_shape(shape), sizes=sizes, starts=starts, steps=steps)


def g_update_slice(p, name):
    """``v[region] = w[region]`` for a partner ``w`` of ``v``: the slice of ``w``, then the update."""
    v = at_least_1d(p, p.pick())
    w = p.partner(v)
    starts, steps, shape, sizes, picked = draw_region(p, v)
    region = np.ix_(*picked)
    p.emit("slice", [w], w.ref[region], result=v.type.with_shape(shape), sizes=sizes, starts=starts, steps=steps)
    ref = v.ref.copy()
    ref[region] = w.ref[region]
    p.emit("update_slice", [v, p.vals[-1]], ref, starts=starts, steps=steps)


def g_iota(p, name):
    """An iota of ``v``'s shape (its ``?`` sizes from ``dim``), any element type but i1."""
    v = at_least_1d(p, p.pick())
    axis = p.draw(st.integers(0, v.type.rank - 1))
    dtype = p.draw(st.sampled_from(["f32", "f64", "i32", "i64"]))
    result = v.type.with_dtype(dtype)
    sizes = [p.b.dim(v.value, a) for a in result.dynamic_axes()]
    line = np.arange(v.ref.shape[axis]).reshape([-1 if a == axis else 1 for a in range(v.type.rank)])
    ref = np.broadcast_to(line, v.ref.shape).astype(NUMPY_DTYPES[dtype])
    p.emit("iota", [], ref, result=result, sizes=sizes, axis=axis)


def g_concatenate(p, name):
    v = at_least_1d(p, p.pick())
    axis = p.draw(st.integers(0, v.type.rank - 1))
    w = p.partner(v)
    p.emit("concatenate", [v, w], np.concatenate([v.ref, w.ref], axis=axis), axis=axis)


def g_size(p, name):
    """A size computed from a ``dim`` and a constant (``size_arith``), made an array
    (``from_index``) and read back (``to_index``) to size an iota (max with 0 first)."""
    v = at_least_1d(p, p.pick())
    axis = p.draw(st.integers(0, v.type.rank - 1))
    op = p.draw(st.sampled_from(sorted(ops.SIZE_ARITH)))
    k = p.draw(st.integers(-5, 5).filter(lambda k: k != 0 or op not in ("floordiv", "mod")))
    want = ops.SIZE_ARITH[op](v.ref.shape[axis], k)
    size = p.b.size_arith(op, p.b.dim(v.value, axis), p.b.size_constant(k))
    p.vals.append(Val(p.b.from_index(size), np.array(want, np.int64), TensorType((), "i64")))
    length = p.b.size_arith("max", p.b.to_index(p.vals[-1].value), p.b.size_constant(0))
    ref = np.arange(max(want, 0), dtype=np.int64)
    p.emit("iota", [], ref, result=TensorType((DYN,), "i64"), sizes=[length], axis=0)


def g_gather_scatter(p, name):
    """``w`` gathered at constant indices along some axes of ``v``'s type (negatives from
    the end, duplicates), then (for scatter) written into ``v`` at the same indices."""
    v = at_least_1d(p, p.pick())
    w = p.partner(v)
    rank = v.type.rank
    axes = sorted(p.draw(st.sets(st.integers(0, rank - 1), min_size=1, max_size=rank)))
    sizes = [v.ref.shape[a] for a in axes]
    batch = tuple(p.draw(st.lists(st.integers(1, 3), max_size=2)))
    if 0 in sizes:
        batch = (0,) + batch
    columns = [
        np.array(
            p.draw(st.lists(st.integers(-n, max(n - 1, -n)), min_size=math.prod(batch), max_size=math.prod(batch))),
            np.int64,
        )
        for n in sizes
    ]
    index = np.stack([c.reshape(batch).astype(np.int64) for c in columns], -1)
    indices = Val(p.b.constant(index), index, TensorType.of_array(index))
    rest = rank - len(axes)
    at = p.draw(st.integers(0, rest))
    parts = tuple(index[..., j] for j in range(len(axes)))
    taken = np.moveaxis(w.ref, axes, range(len(axes)))[parts]  # the batch first, then the rest
    gathered = np.moveaxis(taken, range(len(batch)), range(at, at + len(batch)))
    p.emit("gather", [w, indices], gathered, axes=axes, at=at)
    if name in ("scatter", "scatter_add") and not (name == "scatter_add" and v.ref.dtype.kind == "c"):
        ref = v.ref.copy()
        target = np.moveaxis(ref, axes, range(len(axes)))  # a view of ref
        for b in np.ndindex(*batch):  # row-major: a duplicate keeps its last write (or adds)
            at_b = tuple(int(c[b]) for c in parts)
            target[at_b] = target[at_b] + taken[b] if name == "scatter_add" else taken[b]
        p.emit(name, [v, indices, p.vals[-1]], ref, axes=axes, at=at)


def g_sort(p, name):
    """NumPy's stable sort (and its argsort) along an axis of a real value."""
    v = at_least_1d(p, p.value_of(DTYPES))
    axis = p.draw(st.integers(0, v.type.rank - 1))
    fn = np.sort if name == "sort" else lambda x, **kw: np.argsort(x, **kw).astype(np.int64)
    p.emit(name, [v], fn(v.ref, axis=axis, kind="stable"), axis=axis)


def g_partition(p, name):
    """partition at drawn positions along an axis. Where the other elements go is
    unspecified (np.partition's rule), so its result is read only through what is
    pinned: the element at each position (a slice of width 1: the sorted line's) and
    the line's values (its sort: the input's)."""
    v = p.pick(lambda v: v.type.is_static and v.type.rank > 0 and 0 not in v.type.shape and v.type.dtype in DTYPES)
    if v is None:
        shape = tuple(p.draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)))
        c = random_array(p.draw, p.draw(st.sampled_from(DTYPES)), shape)
        p.vals.append(Val(p.b.constant(c), c, TensorType.of_array(c)))
        v = p.vals[-1]
    axis = p.draw(st.integers(0, v.type.rank - 1))
    n = v.type.shape[axis]
    kth = np.array(sorted(set(p.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3)))), np.int64)
    positions = Val(p.b.constant(kth), kth, TensorType.of_array(kth))
    in_order = np.sort(v.ref, axis=axis, kind="stable")
    p.emit("partition", [v, positions], in_order, axis=axis)
    part = p.vals.pop()  # its own order is not NumPy's: no later op reads it whole
    for k in kth:
        starts = tuple(int(k) if d == axis else 0 for d in range(v.type.rank))
        shape = tuple(1 if d == axis else size for d, size in enumerate(v.type.shape))
        at_k = np.take(in_order, [int(k)], axis=axis)
        p.emit("slice", [part], at_k, result=v.type.with_shape(shape), starts=starts, steps=(1,) * v.type.rank)
    p.emit("sort", [part], in_order, axis=axis)


def g_scan(p, name):
    """cumsum/cumprod, a running maximum/minimum (NaN-propagating or -skipping) along an
    axis, in the value's own dtype (NumPy's sequential loop)."""
    v = at_least_1d(p, p.value_of(DTYPES))
    axis = p.draw(st.integers(0, v.type.rank - 1))
    kind = p.draw(st.sampled_from(list(ops.SCAN_KINDS)))
    p.emit("scan", [v], ops.SCAN_KINDS[kind].accumulate(v.ref, axis=axis, dtype=v.ref.dtype), axis=axis, kind=kind)


COMPLEX = ("complex<f32>", "complex<f64>")


def g_complex(p, name):
    """The complex-only ops (compiler/dialects/complex_numbers.py gives NumPy's function)."""
    if name == "complex":
        v = p.value_of(("f32", "f64"))
        w = p.partner(v)
        ref = np.empty(v.ref.shape, np.result_type(v.ref.dtype, np.complex64))
        ref.real, ref.imag = v.ref, w.ref
        p.emit("complex", [v, w], ref)
        return
    v = p.value_of(COMPLEX)
    attrs = {"n": p.draw(st.integers(-12, 12))} if name == "powi" else {}
    with np.errstate(all="ignore"):
        p.emit(name, [v], complex_numbers.UNARY[name](v.ref, attrs), **attrs)


# op name -> generator(program, name) that emits (at least) that op
GENERATORS = {
    **{n: g_unary for n in ops.UNARY_DTYPES},
    **{n: g_binary for n in ops.BINARY_DTYPES},
    **{n: g_reduce for n in ("sum", "mean", "max", "min", "prod")},
    "constant": g_constant,
    "cmp": g_cmp_select,
    "select": g_cmp_select,
    "cast": g_cast,
    "matmul": g_matmul,
    "transpose": g_transpose,
    "expand_dims": g_expand_dims,
    "squeeze": g_squeeze,
    "reshape": g_reshape,
    "dim": g_dim,
    "broadcast_to": g_broadcast,
    "slice": g_slice,
    "update_slice": g_update_slice,
    "iota": g_iota,
    "concatenate": g_concatenate,
    **{n: g_size for n in ("size_constant", "size_arith", "to_index", "from_index")},
    "gather": g_gather_scatter,  # advanced indexing
    "scatter": g_gather_scatter,
    "scatter_add": g_gather_scatter,
    **{n: g_complex for n in ("real", "imag", "cabs", "conj", "reciprocal", "powi", "complex")},
    "sort": g_sort,
    "argsort": g_sort,
    "partition": g_partition,
    "scan": g_scan,
}
# LAPACK's packed results have no NumPy expression but np.linalg's own, which the
# interpreter calls: test_linalg.py checks them against NumPy, compiled.
TESTED_ELSEWHERE = {"lapack", "lapack_solve", "lapack_lstsq"}
OP_NAMES = sorted(GENERATORS)


def test_generators_cover_the_op_table():
    assert set(GENERATORS) | TESTED_ELSEWHERE == set(ops.OPS)


# ----------------------------------------------------------------------------- the property


@st.composite
def programs(draw, first=None):
    """(module, arguments, NumPy results) of a random chain of ops, ``first`` first."""
    dtype = draw(st.sampled_from(DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=first == "dim", max_size=3)))
    dynamic = tuple(draw(st.booleans()) or (i == 0 and first == "dim") for i in range(len(shape)))
    arg_type = TensorType(tuple(DYN if dyn else d for d, dyn in zip(shape, dynamic)), dtype)
    n_args = draw(st.integers(1, 2))
    args = [random_array(draw, dtype, shape) for _ in range(n_args)]
    program = Program(draw, [arg_type] * n_args, args)
    names = [first] if first else []
    names += [draw(st.sampled_from(OP_NAMES)) for _ in range(draw(st.integers(0 if first else 1, 6)))]
    for name in names:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # "Mean of empty slice"
            GENERATORS[name](program, name)
    n_results = draw(st.integers(1, min(3, len(program.vals))))
    results = program.vals[-n_results:]
    module = program.b.finish([r.value for r in results])
    return module, args, [r.ref for r in results]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_random_programs_roundtrip_and_match_numpy(program):
    check_program(*program)


def check_program(module, args, expected):
    assert module.operation.verify()
    text = str(module)
    with ember.new_context():
        reparsed = ir.Module.parse(text)
        assert reparsed.operation.verify()
        assert str(reparsed) == text
    got = interpreter.run(reparsed, *args)
    assert len(got) == len(expected)
    for g, want in zip(got, expected):
        assert isinstance(g, np.ndarray)
        np.testing.assert_array_equal(g, want, strict=True)


@pytest.mark.parametrize("first", OP_NAMES)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_random_programs_starting_with_each_op(first, data):
    """Every row of the op table, whatever the draw of the chain above favours."""
    module, args, expected = data.draw(programs(first=first))
    assert f'"ember.{first}"' in str(module)
    check_program(module, args, expected)
