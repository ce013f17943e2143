"""NumPy's complex64/complex128 semantics, as ``complex``/``arith``/``math`` ops on the parts.

``ember-to-linalg`` hands every Ember op with a complex operand or result to ``lower``
(``handles``); the loop structure is ember-to-linalg's (``_elementwise``, ``_generic``),
the element type of the tensors is MLIR's ``complex<f32>``/``complex<f64>``, and each
scalar rule takes the block's complex values apart (``complex.re``/``complex.im``),
computes on the parts with ``arith``/``math`` and packs the result (``complex.create``);
canonicalization folds the ``re(create(a, b))`` pairs that fusion leaves between ops.

Which formulas: NumPy's own loops, checked bit for bit against NumPy 2 on x86-64.

* ``mul`` (and ``square``): NumPy's SIMD loop, ``fmaddsub``:
  ``re = fma(ar, br, -(ai*bi))``, ``im = fma(ar, bi, ai*br)`` (``math.fma``: fused on any
  CPU, in hardware where it has FMA). No C99 Annex G recovery of infinities: NumPy has none.
* ``div``: NumPy's Smith algorithm (``loops.c.src``), including its division by a zero
  divisor (``ar / |br|``, ``ai / |br|``) and its branch on ``|br| >= |bi|`` (false for a
  NaN: the other branch). ``reciprocal``: NumPy's own loop (not ``1 / x``).
* ``cabs``: NumPy's SIMD ``absolute`` (``loops_unary_complex``): inf if either part is
  inf, else NaN if either is NaN, else ``larger * sqrt(fma(r, r, 1))`` with
  ``r = smaller / larger`` (0 for a zero ``larger``). NumPy's scalar loop, which it takes for
  negative strides, is libm's ``hypot``: within 1 ulp of this.
* ``exp log sqrt sin cos tanh``: calls of C99's ``cexp clog csqrt csin ccos ctanh``, the
  functions NumPy's complex128 loops call (bit for bit, special values included):
  ``complex.log`` & co., which ``convert-complex-to-libm`` makes the calls, and for ``exp``,
  which that pass does not convert, a ``func.call @cexp`` of our own. complex64 is computed in complex128
  and rounded: NumPy calls ``cexpf`` & co., within a few float32 ulp of that (and the
  ``complex<f32>`` libm calls would need the C ABI's packed ``<2 x float>``, which the
  upstream lowering does not produce).
* comparisons: NumPy's ``CEQ CNE CLT CLE CGT CGE`` macros (lexicographic; a NaN in an
  imaginary part makes the strict real-part test false).
* casts: real to complex puts the value in ``re`` and ``+0.0`` in ``im``; complex to
  complex rounds each part; complex to bool is ``re != 0 or im != 0`` (NaN is true);
  complex to real keeps ``re`` (the frontend refuses it: NumPy warns ``ComplexWarning``).
* ``sum``/``prod``/``mean``: the identity ``0`` resp. ``1 + 0j``, ``add``/``mul`` above;
  ``mean`` divides by ``count + 0j`` with ``div`` above, as NumPy's ``true_divide`` does.
  NumPy sums pairwise and, in matmul, calls BLAS: equal up to rounding.
* ``matmul``: of two matrices (stacked or not) a named op that ``ember-matmul-to-blas`` makes
  a ``?gemm`` call, as NumPy calls it (loops where BLAS cannot take the strides); with a
  vector operand a ``linalg.generic`` accumulating ``acc + a * b``.
* ``complex(re, im)`` (how a complex constant is built: from two real constants) is a
  ``complex.create`` per element.
"""

from __future__ import annotations

import numpy as np

from compiler.dialects import ember
from compiler.dialects.types import COMPLEX, COMPLEX_PART, TensorType, mlir_element_type
from compiler.mlir import arith, func, index_constant, ir, linalg, math
from compiler.mlir import complex_dialect as cd
from compiler.passes import ember_to_linalg as e2l
from compiler.passes import lower_matmul
from compiler.passes import scalar_semantics as scalar
from compiler.passes.base import PassFailure
from compiler.passes.linalg_utils import generic

CmpF = scalar.CmpF


# ----------------------------------------------------------------------------- scalars


def parts(z):
    return cd.re(z), cd.im(z)


def make(dtype: str, re, im):
    return cd.create_(mlir_element_type(dtype), re, im)


def _part(dtype: str) -> str:
    return COMPLEX_PART[dtype]


def _c(dtype: str, value: float):
    return scalar.const(_part(dtype), value)


def add(a, b, dtype):
    (ar, ai), (br, bi) = parts(a), parts(b)
    return make(dtype, arith.addf(ar, br), arith.addf(ai, bi))


def sub(a, b, dtype):
    (ar, ai), (br, bi) = parts(a), parts(b)
    return make(dtype, arith.subf(ar, br), arith.subf(ai, bi))


def mul(a, b, dtype):
    (ar, ai), (br, bi) = parts(a), parts(b)
    re = math.fma(ar, br, arith.negf(arith.mulf(ai, bi)))
    im = math.fma(ar, bi, arith.mulf(ai, br))
    return make(dtype, re, im)


def div(a, b, dtype):
    """NumPy's ``@TYPE@_divide`` (Smith's algorithm), all branches computed, one selected."""
    (ar, ai), (br, bi) = parts(a), parts(b)
    one, zero = _c(dtype, 1.0), _c(dtype, 0.0)
    abs_br, abs_bi = math.absf(br), math.absf(bi)
    real_larger = arith.cmpf(CmpF.OGE, abs_br, abs_bi)
    both_zero = arith.andi(arith.cmpf(CmpF.OEQ, abs_br, zero), arith.cmpf(CmpF.OEQ, abs_bi, zero))
    # |br| >= |bi|, not both zero
    rat = arith.divf(bi, br)
    scl = arith.divf(one, arith.addf(br, arith.mulf(bi, rat)))
    re1 = arith.mulf(arith.addf(ar, arith.mulf(ai, rat)), scl)
    im1 = arith.mulf(arith.subf(ai, arith.mulf(ar, rat)), scl)
    # both zero: a complex inf or nan
    re0, im0 = arith.divf(ar, abs_br), arith.divf(ai, abs_br)
    # |br| < |bi| (or a NaN)
    rat2 = arith.divf(br, bi)
    scl2 = arith.divf(one, arith.addf(bi, arith.mulf(br, rat2)))
    re2 = arith.mulf(arith.addf(arith.mulf(ar, rat2), ai), scl2)
    im2 = arith.mulf(arith.subf(arith.mulf(ai, rat2), ar), scl2)
    re = arith.select(real_larger, arith.select(both_zero, re0, re1), re2)
    im = arith.select(real_larger, arith.select(both_zero, im0, im1), im2)
    return make(dtype, re, im)


def reciprocal(x, dtype):
    """NumPy's ``@TYPE@_reciprocal``."""
    xr, xi = parts(x)
    one = _c(dtype, 1.0)
    imag_smaller = arith.cmpf(CmpF.OLE, math.absf(xi), math.absf(xr))
    r1 = arith.divf(xi, xr)
    d1 = arith.addf(xr, arith.mulf(xi, r1))
    re1, im1 = arith.divf(one, d1), arith.divf(arith.negf(r1), d1)
    r2 = arith.divf(xr, xi)
    d2 = arith.addf(arith.mulf(xr, r2), xi)
    re2, im2 = arith.divf(r2, d2), arith.divf(_c(dtype, -1.0), d2)
    return make(dtype, arith.select(imag_smaller, re1, re2), arith.select(imag_smaller, im1, im2))


def _cmul(a, b, dtype):
    """npy_math's ``cmul`` (scalar C, no FMA): what ``np.power``'s integer path multiplies with."""
    (ar, ai), (br, bi) = parts(a), parts(b)
    re = arith.subf(arith.mulf(ar, br), arith.mulf(ai, bi))
    im = arith.addf(arith.mulf(ar, bi), arith.mulf(ai, br))
    return make(dtype, re, im)


def powi(x, n: int, dtype):
    """NumPy's ``npy_cpow`` for an exponent ``n + 0j`` with ``|n| < 100``: 1 for ``n == 0``
    (whatever ``x``); a zero ``x`` gives 0 (``n > 0``) or a complex NaN; else repeated
    ``cmul`` (unrolled for 1, 2, 3; square-and-multiply from ``1 + 0j`` above), and for a
    negative ``n`` the Smith division ``1 / result``."""
    if n == 0:
        return scalar.const(dtype, 1.0)
    m = abs(n)
    if n == 1:
        value = x
    elif n == 2:
        value = _cmul(x, x, dtype)
    elif n == 3:
        value = _cmul(x, _cmul(x, x, dtype), dtype)
    else:  # NumPy unrolls only 1, 2 and 3 themselves: -1, -2, -3 multiply from 1 + 0j too
        acc, p, mask = scalar.const(dtype, 1.0), x, 1
        while True:
            if m & mask:
                acc = _cmul(acc, p, dtype)
            mask <<= 1
            if m < mask:
                break
            p = _cmul(p, p, dtype)
        value = acc
    if n < 0:
        value = div(scalar.const(dtype, 1.0), value, dtype)
    xr, xi = parts(x)
    zero = _c(dtype, 0.0)
    is_zero = arith.andi(arith.cmpf(CmpF.OEQ, xr, zero), arith.cmpf(CmpF.OEQ, xi, zero))
    at_zero = scalar.const(dtype, 0.0 if n > 0 else complex(np.nan, np.nan))
    return arith.select(is_zero, at_zero, value)


def neg(x, dtype):
    xr, xi = parts(x)
    return make(dtype, arith.negf(xr), arith.negf(xi))


def conj(x, dtype):
    xr, xi = parts(x)
    return make(dtype, xr, arith.negf(xi))


def cabs(x, dtype):
    """NumPy's SIMD ``absolute`` of complex (see the module docstring)."""
    inf, nan, zero = _c(dtype, np.inf), _c(dtype, np.nan), _c(dtype, 0.0)
    xr, xi = parts(x)
    re, im = math.absf(xr), math.absf(xi)
    re_inf, im_inf = arith.cmpf(CmpF.OEQ, re, inf), arith.cmpf(CmpF.OEQ, im, inf)
    im = arith.select(re_inf, inf, im)
    re = arith.select(im_inf, inf, re)
    re_ok, im_ok = arith.cmpf(CmpF.ORD, re, re), arith.cmpf(CmpF.ORD, im, im)
    im = arith.select(re_ok, im, nan)
    re = arith.select(im_ok, re, nan)
    larger, smaller = arith.maximumf(re, im), arith.minimumf(im, re)
    no_div = arith.ori(arith.cmpf(CmpF.OEQ, larger, zero), arith.cmpf(CmpF.OEQ, smaller, inf))
    ratio = arith.select(no_div, zero, arith.divf(smaller, larger))
    return arith.mulf(math.sqrt(math.fma(ratio, ratio, _c(dtype, 1.0))), larger)


def _cexp(z):
    """``cexp(z)``: a call of C99's ``cexp``, declared in the module (convert-complex-to-libm
    has no pattern for ``complex.exp``, and complex-to-standard's expansion,
    ``e^re * (cos im + i sin im)``, differs from it in the last bit and at infinities)."""
    t = z.type
    block = ir.InsertionPoint.current.block
    op = block.owner
    while op is not None and op.name != "builtin.module":
        op = op.parent
    if op is None:
        raise PassFailure("complex exp outside a module", None)
    body = op.regions[0].blocks[0]
    if not any(
        o.operation.name == "func.func" and ir.StringAttr(o.operation.attributes["sym_name"]).value == "cexp"
        for o in body.operations
    ):
        with ir.InsertionPoint.at_block_begin(body), ir.Location.unknown():
            func.FuncOp("cexp", ir.FunctionType.get([t], [t]), visibility="private")
    return func.CallOp([t], ir.FlatSymbolRefAttr.get("cexp"), [z]).result


def _libm(fn):
    """A ``complex`` op that ``convert-complex-to-libm`` makes a C99 call, in complex<f64>."""

    def rule(x, dtype):
        if dtype == "complex<f64>":
            return fn(x)
        f64, f32 = mlir_element_type("f64"), mlir_element_type("f32")
        xr, xi = parts(x)
        wide = fn(make("complex<f64>", arith.extf(f64, xr), arith.extf(f64, xi)))
        wr, wi = parts(wide)
        return make(dtype, arith.truncf(f32, wr), arith.truncf(f32, wi))

    return rule


UNARY = {
    "neg": neg,
    "conj": conj,
    "reciprocal": reciprocal,
    "real": lambda x, dtype: cd.re(x),
    "imag": lambda x, dtype: cd.im(x),
    "cabs": cabs,
    "exp": _libm(_cexp),
    "log": _libm(cd.log),
    "sqrt": _libm(cd.sqrt),
    "sin": _libm(cd.sin),
    "cos": _libm(cd.cos),
    "tanh": _libm(cd.tanh),
}

BINARY = {"add": add, "sub": sub, "mul": mul, "div": div}


def _lower_complex(op, result: TensorType, attrs):
    """``complex(re, im)``: an elementwise ``complex.create`` of the parts."""
    re, im = ember.tensor_operands(op)
    return e2l._elementwise([re, im], result, lambda a, b, _: make(result.dtype, a, b))


def _not_nan(x):
    return arith.cmpf(CmpF.ORD, x, x)


def compare(predicate: str, a, b, dtype: str):
    """NumPy's ``CEQ CNE CLT CLE CGT CGE`` (``loops.c.src``)."""
    (ar, ai), (br, bi) = parts(a), parts(b)
    if predicate == "eq":
        return arith.andi(arith.cmpf(CmpF.OEQ, ar, br), arith.cmpf(CmpF.OEQ, ai, bi))
    if predicate == "ne":
        return arith.ori(arith.cmpf(CmpF.UNE, ar, br), arith.cmpf(CmpF.UNE, ai, bi))
    strict, tie = {
        "lt": (CmpF.OLT, CmpF.OLT),
        "le": (CmpF.OLT, CmpF.OLE),
        "gt": (CmpF.OGT, CmpF.OGT),
        "ge": (CmpF.OGT, CmpF.OGE),
    }[predicate]
    real_decides = arith.andi(arith.cmpf(strict, ar, br), arith.andi(_not_nan(ai), _not_nan(bi)))
    imag_decides = arith.andi(arith.cmpf(CmpF.OEQ, ar, br), arith.cmpf(tie, ai, bi))
    return arith.ori(real_decides, imag_decides)


def cast(x, src: str, dst: str):
    if src == dst:
        return x
    if src in COMPLEX and dst in COMPLEX:
        xr, xi = parts(x)
        return make(dst, scalar.cast(xr, _part(src), _part(dst)), scalar.cast(xi, _part(src), _part(dst)))
    if dst in COMPLEX:
        return make(dst, scalar.cast(x, src, _part(dst)), _c(dst, 0.0))
    xr, xi = parts(x)
    if dst == "i1":
        zero = _c(src, 0.0)
        return arith.ori(arith.cmpf(CmpF.UNE, xr, zero), arith.cmpf(CmpF.UNE, xi, zero))
    return scalar.cast(xr, _part(src), dst)


# ----------------------------------------------------------------------------- op lowerings


def _unary(op, result: TensorType, attrs):
    (x,) = ember.tensor_operands(op)
    name, dtype = op.name.removeprefix("ember."), e2l._type(x).dtype
    rule = (lambda a, d: powi(a, attrs["n"], d)) if name == "powi" else UNARY[name]
    return e2l._elementwise([x], result, lambda a, _: rule(a, dtype))


def _binary(op, result: TensorType, attrs):
    lhs, rhs = ember.tensor_operands(op)
    rule = BINARY[op.name.removeprefix("ember.")]
    return e2l._elementwise([lhs, rhs], result, lambda a, b, _: rule(a, b, result.dtype))


def _cmp(op, result: TensorType, attrs):
    lhs, rhs = ember.tensor_operands(op)
    dtype = e2l._type(lhs).dtype
    return e2l._elementwise([lhs, rhs], result, lambda a, b, _: compare(attrs["predicate"], a, b, dtype))


def _cast(op, result: TensorType, attrs):
    (x,) = ember.tensor_operands(op)
    src = e2l._type(x).dtype
    if src == result.dtype:
        return x
    return e2l._elementwise([x], result, lambda a, _: cast(a, src, result.dtype))


_REDUCTIONS = {"sum": (0.0, add), "mean": (0.0, add), "prod": (1.0, mul)}


def _reduce(op, result: TensorType, attrs):
    """As ember-to-linalg's reductions (keepdims keeps unit loops), with complex add/mul."""
    (x,) = ember.tensor_operands(op)
    xt = e2l._type(x)
    name = op.name.removeprefix("ember.")
    if name not in _REDUCTIONS:
        raise PassFailure(f"'{op.name}' of complex is not supported (NumPy orders complex lexicographically)", op)
    axes = sorted(attrs["axes"])
    if not axes:
        return x
    identity, combine = _REDUCTIONS[name]
    if attrs["keepdims"]:
        loops = xt.rank + len(axes)
        in_exprs = [ir.AffineDimExpr.get(xt.rank + axes.index(i) if i in axes else i) for i in range(xt.rank)]
        out_map = e2l._identity_prefix(loops, xt.rank)
        init = e2l._filled(result, e2l._sizes_like(result, x), identity)
        iterators = ["parallel"] * xt.rank + ["reduction"] * len(axes)
        in_map = e2l._map(loops, in_exprs)
    else:
        kept = [i for i in range(xt.rank) if i not in axes]
        init = e2l._filled(result, e2l._sizes_like(result, x, kept), identity)
        out_map = e2l._map(xt.rank, [ir.AffineDimExpr.get(i) for i in kept])
        iterators = ["reduction" if i in axes else "parallel" for i in range(xt.rank)]
        in_map = e2l._identity(xt.rank)
    dtype = xt.dtype
    value = generic([x], init, [in_map, out_map], iterators, lambda a, total: combine(total, a, dtype))
    if name == "mean":
        value = _divide_by_count(value, result, x, axes)
    return value


def _divide_by_count(total, t: TensorType, x, axes):
    """``total / (count + 0j)``: NumPy's ``true_divide`` of the sum by the element count."""
    count = None
    static = 1
    for a in axes:
        size = e2l._dim(x, a)
        if isinstance(size, int):
            static *= size
        else:
            count = size if count is None else arith.muli(count, size)
    count = index_constant(static) if count is None else arith.muli(count, index_constant(static))
    part = mlir_element_type(_part(t.dtype))
    n = arith.sitofp(part, arith.index_cast(ir.IntegerType.get_signless(64), count))
    divisor = make(t.dtype, n, _c(t.dtype, 0.0))
    return e2l._elementwise([total], t, lambda s, _: div(s, divisor, t.dtype))


def _matmul(op, result: TensorType, attrs):
    """``acc + a * b`` over the contracted dim, for each rank NumPy's matmul/dot takes here
    (1-d and 2-d operands, a stack of rows times a matrix or vector, or equal-rank
    batches; the frontend broadcasts batch dims)."""
    lhs, rhs = ember.tensor_operands(op)
    lt, rt = e2l._type(lhs), e2l._type(rhs)
    if rt.rank <= 2:
        m = [f"m{i}" for i in range(lt.rank - 1)]
        n = ["n"] if rt.rank == 2 else []
        out_dims = m + n
        sources = [(lhs, i) for i in range(len(m))] + ([(rhs, 1)] if n else [])
        lhs_dims = m + ["k"]
        rhs_dims = ["k"] + n
    else:
        batch = [f"b{i}" for i in range(lt.rank - 2)]
        out_dims = batch + ["m", "n"]
        sources = [(lhs, i) for i in range(lt.rank - 1)] + [(rhs, rt.rank - 1)]
        lhs_dims, rhs_dims = batch + ["m", "k"], batch + ["k", "n"]
    loops = out_dims + ["k"]
    position = {d: i for i, d in enumerate(loops)}

    def amap(dims):
        return e2l._map(len(loops), [ir.AffineDimExpr.get(position[d]) for d in dims])

    # A transposed matrix is read in place (BLAS's transpose flag), not copied first.
    lhs_t, rhs_t = (lower_matmul.transposed_source(v) if lt.rank == rt.rank == 2 else None for v in (lhs, rhs))
    sources = [(v, a) if (t := lower_matmul.transposed_source(v)) is None else (t, 1 - a) for v, a in sources]
    sizes = [d if d is not e2l.DYN else e2l._dim(v, a) for d, (v, a) in zip(result.shape, sources)]
    init = e2l._filled(result, sizes, 0.0)
    dtype = result.dtype
    if lt.rank >= 2 and rt.rank >= 2:  # matrix times matrix: a named op, BLAS's ?gemm
        if lt.rank == rt.rank == 2:
            return lower_matmul.matrix_product(lhs, rhs, lhs_t, rhs_t, init)
        maps = [amap(lhs_dims).value, amap(rhs_dims).value, amap(out_dims).value]
        return linalg.contract(lhs, rhs, outs=[init], indexing_maps=maps)
    iterators = ["parallel"] * len(out_dims) + ["reduction"]
    return generic(
        [lhs, rhs],
        init,
        [amap(lhs_dims), amap(rhs_dims), amap(out_dims)],
        iterators,
        lambda a, b, acc: add(acc, mul(a, b, dtype), dtype),
    )


def _iota(op, result: TensorType, attrs):
    init = e2l._empty(result, e2l._result_sizes(result, ember.size_operands(op)))
    part = mlir_element_type(_part(result.dtype))

    def body(_):
        i = linalg.IndexOp(attrs["axis"]).result
        re = arith.sitofp(part, arith.index_cast(ir.IntegerType.get_signless(64), i))
        return make(result.dtype, re, _c(result.dtype, 0.0))

    return generic([], init, [e2l._identity(result.rank)], ["parallel"] * result.rank, body)


def _select(op, result: TensorType, attrs):
    return e2l._elementwise(ember.tensor_operands(op), result, lambda c, a, b, _: arith.select(c, a, b))


LOWERINGS = {
    **{name: _unary for name in (*UNARY, "powi")},
    **{name: _binary for name in BINARY},
    "complex": _lower_complex,
    "cmp": _cmp,
    "cast": _cast,
    "sum": _reduce,
    "mean": _reduce,
    "prod": _reduce,
    "max": _reduce,
    "min": _reduce,
    "matmul": _matmul,
    "iota": _iota,
    "select": _select,
}


def handles(op, result: TensorType | None) -> bool:
    """Whether ``op`` has complex values this module lowers (shape ops are dtype-blind)."""
    name = op.name.removeprefix("ember.")
    if name not in LOWERINGS:
        return False
    if result is not None and result.is_complex:
        return True
    return any(e2l._type(v).is_complex for v in ember.tensor_operands(op))


def lower(op, result: TensorType, attrs):
    return LOWERINGS[op.name.removeprefix("ember.")](op, result, attrs)
