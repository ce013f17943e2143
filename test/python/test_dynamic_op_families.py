"""Every op of the op table, compiled once for ``?`` sizes and run at many sizes.

One graph per op family (several results where a family has several ops), with
argument types whose sizes are all ``?``, compiled once by the CPU backend; each is
called at sizes 0 (where the op allows), 1, 2, small odd ones and one large enough
for the parallel paths, on C-contiguous inputs and on strided and negative-stride
views (the strided code variant), and compared with NumPy: exactly for integers and
bools, ``allclose`` for floats. The graphs together must use every op of ``ops.OPS``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
from graph_building import T, build
from op_oracles import BINARY_REF, CMP_REF, FLOAT_ONLY_BINARY, INTEGER_ONLY_BINARY, UNARY_REF

from compiler.backends.llvm_cpu import compile_module
from compiler.dialects import ops
from compiler.mlir import ir

N = None  # a dynamic size
SIZES = (0, 1, 2, 7, 67, 300)  # 300: 2-d operands past the parallel threshold


@dataclass
class Case:
    arg_types: list  # all sizes ``?``
    body: Callable  # (builder, *args) -> result values
    ref: Callable  # (*NumPy inputs) -> expected results (None: not compared for these inputs)
    inputs: Callable  # (size, rng) -> NumPy inputs, or None where the op does not allow the size
    module: ir.Module | None = None


def floats(rng, shape, low=-3.0, high=3.0, dtype=np.float32):
    return rng.uniform(low, high, shape).astype(dtype)


def ints(rng, shape, low=-50, high=50, dtype=np.int64):
    return rng.integers(low, high, shape).astype(dtype)


# ----------------------------------------------------------------------------- the cases

UNARY_FLOAT = {name: fn for name, fn in UNARY_REF.items() if name != "logical_not"}


def unary_case():
    def body(b, x, i, p):
        return [b.op(name, x) for name in UNARY_FLOAT] + [b.op("neg", i), b.op("abs", i)] + [b.op("logical_not", p)]

    def ref(x, i, p):
        with np.errstate(invalid="ignore"):  # arcsin(2) & co. are NaN
            return [fn(x) for fn in UNARY_FLOAT.values()] + [-i, np.abs(i), ~p]

    def inputs(s, rng):
        shape = (s, s + 1)
        return floats(rng, shape, 0.1, 4.0), ints(rng, shape, dtype=np.int32), rng.random(shape) < 0.5

    return Case([T((N, N)), T((N, N), "i32"), T((N, N), "i1")], body, ref, inputs)


BINARY_FLOAT = {name: fn for name, fn in BINARY_REF.items() if name not in INTEGER_ONLY_BINARY}
BINARY_INT = {name: fn for name, fn in BINARY_REF.items() if name not in FLOAT_ONLY_BINARY}


def binary_case():
    def body(b, x, y, i, j, p, q):
        return (
            [b.op(name, x, y) for name in BINARY_FLOAT]
            + [b.op(name, i, j) for name in BINARY_INT]
            + [b.op(name, p, q) for name in ("and", "or", "xor", "maximum", "minimum")]
        )

    def ref(x, y, i, j, p, q):
        return (
            [fn(x, y) for fn in BINARY_FLOAT.values()]
            + [fn(i, j) for fn in BINARY_INT.values()]
            + [p & q, p | q, p ^ q, p | q, p & q]
        )

    def inputs(s, rng):
        shape = (s + 1, s)
        return (
            floats(rng, shape, 0.5, 3.0),
            floats(rng, shape, 0.5, 2.0),
            ints(rng, shape, -20, 20),
            ints(rng, shape, 1, 4),  # positive: a divisor, an exponent
            rng.random(shape) < 0.5,
            rng.random(shape) < 0.5,
        )

    types = [T((N, N))] * 2 + [T((N, N), "i64")] * 2 + [T((N, N), "i1")] * 2
    return Case(types, body, ref, inputs)


def reduce_case():
    """Every reduction over axis 1, axis 0 with keepdims and both axes; max and min
    only where no reduced axis is empty (NumPy has no identity for them)."""
    names = ("sum", "mean", "max", "min", "prod")
    forms = (((1,), False), ((0,), True), ((0, 1), False))

    def body(b, x):
        return [b.op(name, x, axes=axes, keepdims=keep) for name in names for axes, keep in forms]

    def ref(x):
        out = []
        for name in names:
            for axes, keep in forms:
                empty = any(x.shape[a] == 0 for a in axes)
                if name in ("max", "min") and empty:
                    out.append(None)
                    continue
                kw = {} if name in ("max", "min") else {"dtype": x.dtype}
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # "Mean of empty slice"
                    out.append(getattr(np, name)(x, axis=axes, keepdims=keep, **kw))
        return out

    return Case([T((N, N))], body, ref, lambda s, rng: (floats(rng, (s, s + 2), 0.99, 1.01),))


def compare_select_case():
    predicates = ops.CMP_PREDICATES

    def body(b, x, y):
        conds = [b.op("cmp", x, y, predicate=p) for p in predicates]
        return conds + [b.op("select", conds[2], x, y)]

    def ref(x, y):
        return [CMP_REF[p](x, y) for p in predicates] + [np.where(x < y, x, y)]

    def inputs(s, rng):
        x = ints(rng, (s * 3,), -3, 3, np.int32)
        return x, np.where(rng.random(x.shape) < 0.3, x, ints(rng, x.shape, -3, 3, np.int32))

    return Case([T((N,), "i32")] * 2, body, ref, inputs)


def cast_case():
    def body(b, x, i, p):
        return [
            b.op("cast", x, result=T((N, N), "i32")),
            b.op("cast", x, result=T((N, N), "i1")),
            b.op("cast", i, result=T((N, N), "f64")),
            b.op("cast", p, result=T((N, N), "f32")),
        ]

    def ref(x, i, p):
        with np.errstate(all="ignore"):
            return [x.astype(np.int32), x.astype(np.bool_), i.astype(np.float64), p.astype(np.float32)]

    def inputs(s, rng):
        shape = (s, 3)
        x = floats(rng, shape, -100, 100)
        x[::3] = 0  # some exact zeros for the bool cast
        return x, ints(rng, shape), rng.random(shape) < 0.5

    return Case([T((N, N)), T((N, N), "i64"), T((N, N), "i1")], body, ref, inputs)


def matmul_case():
    """f32/f64 (BLAS), i32 (loops), matrix-vector, vector-matrix, dot and a batch."""

    def body(b, a, c, a64, c64, ai, ci, v, w, ba, bc):
        return [
            b.op("matmul", a, c),
            b.op("matmul", a64, c64),
            b.op("matmul", ai, ci),
            b.op("matmul", a, v),
            b.op("matmul", w, a),
            b.op("matmul", v, v),
            b.op("matmul", ba, bc),
        ]

    def ref(a, c, a64, c64, ai, ci, v, w, ba, bc):
        return [a @ c, a64 @ c64, ai @ ci, a @ v, w @ a, v @ v, ba @ bc]

    def inputs(s, rng):
        m, k, n = s, (s * 2) % 11, s + 1  # k is 0 for s = 0
        return (
            floats(rng, (m, k)),
            floats(rng, (k, n)),
            floats(rng, (m, k), dtype=np.float64),
            floats(rng, (k, n), dtype=np.float64),
            ints(rng, (m, k), -5, 5, np.int32),
            ints(rng, (k, n), -5, 5, np.int32),
            floats(rng, (k,)),
            floats(rng, (m,)),
            floats(rng, (2, m, k)),
            floats(rng, (2, k, n)),
        )

    types = [T((N, N))] * 2 + [T((N, N), "f64")] * 2 + [T((N, N), "i32")] * 2 + [T((N,))] * 2 + [T((N, N, N))] * 2
    return Case(types, body, ref, inputs)


def shape_case():
    """broadcast_to, transpose, reshape (sizes by size arithmetic), expand_dims, squeeze."""

    def body(b, x, col, y):
        rows, cols = b.dim(x, 0), b.dim(x, 1)
        flat = b.size_arith("mul", rows, cols)
        return [
            b.op("broadcast_to", col, result=T((N, N)), sizes=[b.dim(col, 0), cols]),
            b.op(
                "broadcast_to",
                b.op("sum", col, axes=(0, 1), keepdims=False),
                result=T((N, N, N)),
                sizes=[cols, rows, cols],
            ),
            b.op("transpose", y, perm=(2, 0, 1)),
            b.op("reshape", x, result=T((N,)), sizes=[flat]),
            b.op("expand_dims", x, axes=(0, 2)),
            b.op("squeeze", b.op("expand_dims", x, axes=(1,)), axes=(1,)),
        ]

    def ref(x, col, y):
        r, c = x.shape
        return [
            np.broadcast_to(col, (col.shape[0], c)),
            np.broadcast_to(col.sum(dtype=col.dtype), (c, r, c)),
            np.transpose(y, (2, 0, 1)),
            x.reshape(-1),
            np.expand_dims(x, (0, 2)),
            x,
        ]

    def inputs(s, rng):
        return floats(rng, (s, s + 1)), floats(rng, (s, 1)), floats(rng, (s, 2, s + 3))

    return Case([T((N, N)), T((N, 1)), T((N, N, N))], body, ref, inputs)


def _half(b, d):
    """``d // 2``: the length of ``x[1::2]`` along a dim of size ``d``."""
    return b.size_arith("floordiv", d, b.size_constant(2))


def slice_update_case():
    """``x[1::2, ::-1]`` and ``dest[1::2, :] = src``, lengths by size arithmetic."""

    def body(b, x, dest, src):
        rows, cols = b.dim(x, 0), b.dim(x, 1)
        sliced = b.op("slice", x, result=T((N, N)), sizes=[_half(b, rows), cols], starts=(1, -1), steps=(2, -1))
        updated = b.op("update_slice", dest, src, starts=(1, 0), steps=(2, 1))
        return [sliced, updated]

    def ref(x, dest, src):
        out = dest.copy()
        out[1::2] = src
        return [x[1::2, ::-1], out]

    def inputs(s, rng):
        src = ints(rng, (s // 2, s + 1), dtype=np.int32)
        return floats(rng, (s, s + 1)), ints(rng, (s, s + 1), dtype=np.int32), src

    return Case([T((N, N)), T((N, N), "i32"), T((N, N), "i32")], body, ref, inputs)


def iota_concatenate_constant_case():
    def body(b, x, y):
        rows, cols = b.dim(x, 0), b.dim(x, 1)
        row_const = b.constant(np.array([1.5, -2.0, 4.0], np.float32))
        return [
            b.op("iota", result=T((N, N), "i32"), sizes=[rows, cols], axis=1),
            b.op("iota", result=T((N, 3), "f64"), sizes=[rows], axis=0),
            b.op("concatenate", x, y, axis=0),
            b.op("concatenate", x, x, axis=1),
            b.op(
                "add",
                b.op("slice", x, result=T((N, 3)), sizes=[rows], starts=(0, 0), steps=(1, 1)),
                b.op("broadcast_to", row_const, result=T((N, 3)), sizes=[rows]),
            ),
        ]

    def ref(x, y):
        r, c = x.shape
        return [
            np.broadcast_to(np.arange(c, dtype=np.int32), (r, c)),
            np.broadcast_to(np.arange(r, dtype=np.float64)[:, None], (r, 3)),
            np.concatenate([x, y], axis=0),
            np.concatenate([x, x], axis=1),
            x[:, :3] + np.array([1.5, -2.0, 4.0], np.float32),
        ]

    def inputs(s, rng):
        return floats(rng, (s, s + 3)), floats(rng, (s + 2, s + 3))

    return Case([T((N, N)), T((N, N))], body, ref, inputs)


def dim_size_case():
    """dim, and the size family: ``x[1:n-1] * n`` with ``n = len(x)``, ``zeros(k)``,
    ``arange(max(k, len(x)) % 5)`` for an int argument ``k``, and a mod/floordiv result."""

    def body(b, x, k):
        n = b.dim(x, 0)
        inner = b.size_arith("sub", n, b.size_constant(2))
        middle = b.op("slice", x, result=T((N,), "i64"), sizes=[inner], starts=(1,), steps=(1,))
        scale = b.op("broadcast_to", b.from_index(n), result=T((N,), "i64"), sizes=[inner])
        count = b.to_index(k)
        length = b.size_arith("mod", b.size_arith("max", count, n), b.size_constant(5))
        mixed = b.size_arith("add", b.size_arith("floordiv", count, b.size_constant(-3)), b.size_arith("min", count, n))
        return [
            b.op("mul", middle, scale),
            b.op("broadcast_to", b.constant(np.float32(0)), result=T((N,)), sizes=[count]),
            b.op("iota", result=T((N,), "i64"), sizes=[length], axis=0),
            b.from_index(mixed),
        ]

    def ref(x, k):
        n, k = x.shape[0], int(k)
        return [
            x[1 : n - 1] * n,
            np.zeros(k, np.float32),
            np.arange(max(k, n) % 5, dtype=np.int64),
            np.array(k // -3 + min(k, n), np.int64),
        ]

    def inputs(s, rng):
        if s < 2:
            return None  # x[1:n-1] needs n >= 2
        return ints(rng, (s,)), np.array(s * 3 % 7, np.int64)

    return Case([T((N,), "i64"), T((), "i64")], body, ref, inputs)


def gather_scatter_case():
    """``x[i, j]`` and ``x[rows]`` (gather), ``dest[rows] = upd`` (scatter, duplicate rows:
    the last write wins) and ``dest[rows] += upd`` per row (scatter_add: duplicates add),
    indices negative too, at every size (0: no index at all)."""

    def body(b, x, pi, pj, rows, dest, upd):
        pairs = b.op("concatenate", pi, pj, axis=1)  # (?, 2): the index column of each axis
        return [
            b.op("gather", x, pairs, axes=(0, 1), at=0),
            b.op("gather", x, rows, axes=(0,), at=0),
            b.op("scatter", dest, rows, upd, axes=(0,), at=0),
            b.op("scatter_add", dest, rows, upd, axes=(0,), at=0),
        ]

    def ref(x, pi, pj, rows, dest, upd):
        out, summed = dest.copy(), dest.copy()
        for k in range(rows.shape[0]):
            out[rows[k, 0]] = upd[k]
            summed[rows[k, 0]] += upd[k]
        return [x[pi[:, 0], pj[:, 0]], x[rows[:, 0]], out, summed]

    def inputs(s, rng):
        n = s + 2 if s else 0  # size 0: no valid index, so none at all
        pi = rng.integers(-s, max(s, 1), (n, 1))
        pj = rng.integers(-s - 1, s + 1, (n, 1))
        rows = rng.integers(-s, max(s, 1), (n, 1))
        x, dest = floats(rng, (s, s + 1)), ints(rng, (s, s + 1), dtype=np.int32)
        return x, pi, pj, rows, dest, ints(rng, (n, s + 1), dtype=np.int32)

    i64 = T((N, 1), "i64")
    return Case([T((N, N)), i64, i64, i64, T((N, N), "i32"), T((N, N), "i32")], body, ref, inputs)


def sort_scan_case():
    """``np.sort``/``np.argsort`` (stable: ties keep their order), a partition at the first
    position (its parts' order unspecified: read through a sort) and ``cumsum``/``cumprod``
    along each axis of a matrix with ``?`` sizes."""

    def body(b, x, f):
        first = b.constant(np.array([0], np.int64))
        return [
            b.op("sort", x, axis=1),
            b.op("argsort", x, axis=0),
            b.op("scan", x, axis=0, kind="sum"),
            b.op("scan", f, axis=1, kind="prod"),
            b.op("sort", b.op("partition", f, first, axis=0), axis=0),
        ]

    def ref(x, f):
        return [
            np.sort(x, axis=1, kind="stable"),
            np.argsort(x, axis=0, kind="stable").astype(np.int64),
            np.cumsum(x, axis=0),
            np.cumprod(f, axis=1, dtype=f.dtype),
            np.sort(f, axis=0),
        ]

    def inputs(s, rng):
        return ints(rng, (s, s + 1), low=-5, high=5), floats(rng, (s + 1, s), low=0.5, high=1.5)

    return Case([T((N, N), "i64"), T((N, N))], body, ref, inputs)


def complex_case():
    """The complex ops on ``re + 1j*im`` built from two float64 vectors."""

    def body(b, re, im):
        z = b.op("complex", re, im)
        return [b.op(name, z) for name in ("real", "imag", "cabs", "conj", "reciprocal")] + [b.op("powi", z, n=3)]

    def ref(re, im):
        z = re + 1j * im
        with np.errstate(all="ignore"):
            return [z.real, z.imag, np.abs(z), np.conj(z), np.reciprocal(z), z**3]

    def inputs(s, rng):
        return floats(rng, (s,), dtype=np.float64), floats(rng, (s,), dtype=np.float64)

    return Case([T((N,), "f64"), T((N,), "f64")], body, ref, inputs)


def lapack_case():
    """``inv`` and ``slogdet`` (LAPACK gesv/getrf) of a stack of ``?`` x ``?`` matrices and
    ``solve`` against ``?`` right-hand sides; packed results as the interpreter packs them."""
    from compiler.dialects import interpreter

    def body(b, a, rhs):
        batch, n = b.dim(a, 0), b.dim(a, 1)
        square = b.size_arith("max", b.size_arith("mul", n, n), b.size_constant(1))
        solved = b.size_arith("max", b.size_arith("mul", n, b.dim(rhs, 2)), b.size_constant(1))
        return [
            b.op("lapack", a, routine="inv", result=T((N, 2, N), "f64"), sizes=[batch, square]),
            b.op("lapack", a, routine="slogdet", result=T((N, 1, 2), "f64"), sizes=[batch]),
            b.op("lapack_solve", a, rhs, result=T((N, 2, N), "f64"), sizes=[batch, solved]),
            # least squares: parts [info, rank], x (n x k), singular values (n), residuals (k)
            b.op(
                "lapack_lstsq", a, rhs, b.constant(np.float64(1e-12)), result=T((N, 4, N), "f64"), sizes=[batch, solved]
            ),
        ]

    def ref(a, rhs):
        n, k = a.shape[1], rhs.shape[2]
        inv = np.empty((a.shape[0], 2, max(n * n, 1)))
        slogdet = np.empty((a.shape[0], 1, 2))
        solve = np.empty((a.shape[0], 2, max(n * k, 1)))
        return [
            interpreter.IMPLS["lapack"](a, {"routine": "inv"}, inv),
            interpreter.IMPLS["lapack"](a, {"routine": "slogdet"}, slogdet),
            interpreter.IMPLS["lapack_solve"](a, rhs, {}, solve),
            interpreter.IMPLS["lapack_lstsq"](a, rhs, np.float64(1e-12), {}, np.empty((a.shape[0], 4, max(n * k, 1)))),
        ]

    def inputs(s, rng):
        if s > 67:
            return None  # one LAPACK call per matrix: the small sizes say all
        if s < 2:
            return None  # lstsq's parts are wider than n * k below 2
        a = floats(rng, (2, s, s), dtype=np.float64) + 4 * s * np.eye(s)  # well conditioned
        return a, floats(rng, (2, s, 3), dtype=np.float64)

    return Case([T((N, N, N), "f64"), T((N, N, N), "f64")], body, ref, inputs)


CASES = {
    "gather_scatter": gather_scatter_case(),
    "unary": unary_case(),
    "binary": binary_case(),
    "reduce": reduce_case(),
    "compare_select": compare_select_case(),
    "cast": cast_case(),
    "matmul": matmul_case(),
    "shape": shape_case(),
    "slice_update": slice_update_case(),
    "iota_concatenate_constant": iota_concatenate_constant_case(),
    "dim_size": dim_size_case(),
    "sort_scan": sort_scan_case(),
    "complex": complex_case(),
    "lapack": lapack_case(),
}


def module_of(case: Case) -> ir.Module:
    if case.module is None:
        case.module = build(case.arg_types, case.body)
    return case.module


def ember_ops(module: ir.Module) -> set[str]:
    found = set()

    def walk(op):
        if op.name.startswith("ember."):
            found.add(op.name.removeprefix("ember."))
        return ir.WalkResult.ADVANCE

    module.operation.walk(walk)
    return found


def test_the_cases_use_every_op():
    # every argument has ``?`` sizes (static 1s only where broadcast_to needs them)
    assert all(t.rank == 0 or t.dynamic_axes() for case in CASES.values() for t in case.arg_types)
    assert all(d in (None, 1) for case in CASES.values() for t in case.arg_types for d in t.shape)
    used = set().union(*(ember_ops(module_of(case)) for case in CASES.values()))
    assert used == set(ops.OPS), set(ops.OPS) - used
    assert {ops.OPS[name].family for name in used} == {spec.family for spec in ops.OPS.values()}


def strided(a: np.ndarray) -> np.ndarray:
    """``a``'s values in a view with a stride of 2 along its last axis."""
    if a.ndim == 0:
        return a
    wide = np.zeros(a.shape[:-1] + (a.shape[-1] * 2,), a.dtype)
    wide[..., ::2] = a
    return wide[..., ::2]


def reversed_view(a: np.ndarray) -> np.ndarray:
    """``a``'s values in a view with a negative stride along its first axis."""
    if a.ndim == 0:
        return a
    return np.array(a[::-1], copy=True)[::-1]


def check(got, want, name):
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (name, got.shape, want.shape, got.dtype, want.dtype)
    if want.dtype.kind == "f":
        tol = 1e-5 if want.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize("family", sorted(CASES))
def test_family_at_dynamic_sizes(family):
    case = CASES[family]
    kernel = compile_module(module_of(case))
    rng = np.random.default_rng(len(family))
    ran = 0
    for size in SIZES:
        inputs = case.inputs(size, rng)
        if inputs is None:
            continue
        want = case.ref(*inputs)
        for layout, transform in (("contiguous", lambda a: a), ("strided", strided), ("reversed", reversed_view)):
            got = kernel(*[transform(a) for a in inputs])
            assert len(got) == len(want)
            for k, (g, w) in enumerate(zip(got, want)):
                if w is not None:
                    check(g, w, f"{family} result {k}, size {size}, {layout}")
            ran += 1
    assert ran >= 3 * 4 - 6 * (family == "lapack")  # lapack: sizes 2 to 67
