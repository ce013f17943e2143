"""ember-to-linalg: every ``ember.*`` op becomes linalg/tensor/arith/math ops on tensors.

One table (``LOWERINGS``) maps each Ember op to a small function that builds its
replacement before the op and returns the new value. Ops are read generically
(``op_attributes``, ``tensor_operands``, ``size_operands``), so the pass needs no
per-op Python classes. Per-dtype scalar rules (NumPy's semantics) live in
``scalar_semantics``; this file only decides the *structure* of the lowering:

* elementwise ops -> ``linalg.generic`` with all-parallel identity maps and a
  ``tensor.empty`` init, the form ``linalg-fuse-elementwise-ops`` fuses;
* reductions -> ``linalg.generic`` with reduction iterators into a ``linalg.fill``
  of the identity, then ``tensor.expand_shape`` for ``keepdims``;
* matmul -> ``linalg.matmul / batch_matmul / matvec / vecmat / dot`` (``lower_matmul``),
  transpose -> ``linalg.transpose``;
* shape ops -> ``tensor`` reshapes and slices; broadcast and negative-step slices
  -> ``linalg.generic`` (a broadcasting input map, resp. ``tensor.extract``).

Dynamic sizes come from ``tensor.dim`` of an operand, or from the op's trailing
``index`` operands (one per ``?`` of the result) where the result shape is not a
function of the operands (broadcast_to, reshape, slice). Those are computed by the
size ops, which become ``arith`` on ``index``: ``size_constant`` a constant,
``size_arith`` addi/subi/muli/maxsi/minsi and Python's floor division and remainder
(``floordivsi``; ``remsi`` with the sign fixed up), ``to_index`` a ``tensor.extract``
and ``index_cast``, ``from_index`` an ``index_cast`` to i64 filling a 0-d tensor.

Unsigned integers (``uiN`` in Ember's types) become signless ``iN`` here, the only
integers ``arith`` and ``linalg`` take: the pass runs under ``types.signless_types``,
converts function signatures, and remembers the Ember type of every value it replaced
(``_type``), so rules still see ``ui8`` and pick ``divui``, ``cmpi ult``, ``extui``...
``f16`` is computed as NumPy's half loops do: each op extends its operands to ``f32``,
computes there and rounds back (``_via_f32``); reductions and matmul accumulate in
``f32`` and round once at the end, as NumPy's half add/multiply reduce and matmul loops.
"""

from __future__ import annotations

import contextvars
import functools
from dataclasses import dataclass

import numpy as np

from compiler.dialects import ember, ops
from compiler.dialects.types import DYN, UNSIGNED, TensorType, bit_width, is_unsigned, mlir_element_type, signless_types
from compiler.mlir import arith, collect, index_constant, ir, linalg, math, operation_of, tensor
from compiler.passes import scalar_semantics as scalar
from compiler.passes.base import EmberPass, PassFailure
from compiler.passes.linalg_utils import generic, is_elementwise

_DYNAMIC = ir.ShapedType.get_dynamic_size()


# ----------------------------------------------------------------------------- helpers


# value -> its Ember type, for values whose MLIR type lost the signedness (``uiN`` -> ``iN``):
# the lowered results of ember ops and the converted function arguments (one dict per run).
_EMBER_TYPES: contextvars.ContextVar = contextvars.ContextVar("ember_to_linalg_types", default=None)


def _type(value: ir.Value) -> TensorType:
    known = _EMBER_TYPES.get()
    if known is not None and value in known:
        return known[value]
    return TensorType.from_mlir(value.type)


def _dim(value: ir.Value, axis: int) -> ir.Value | int:
    """Size of ``axis`` of ``value``: an int when static, else an index value.

    A dynamic size is traced back through destination-style producers (linalg ops,
    ``insert_slice``) to the ``tensor.empty`` that fixed it, so lowered ops do not
    take extra ``tensor.dim`` uses of each other's results: elementwise fusion
    only fuses producers with a single use.
    """
    size = _type(value).shape[axis]
    if size is not DYN:
        return size
    source = _size_source(value)
    owner = operation_of(source.owner)
    if owner is not None and owner.name == "tensor.empty":
        return owner.operands[_type(source).shape[:axis].count(DYN)]
    return tensor.dim(source, index_constant(axis))


def _size_source(value: ir.Value) -> ir.Value:
    """The value whose sizes ``value`` inherits: follow inits of single-result DPS ops."""
    while (owner := operation_of(value.owner)) is not None:
        if owner.name.startswith("linalg.") and len(owner.results) == 1:
            value = owner.operands[len(owner.operands) - 1]
        elif owner.name == "tensor.insert_slice":
            value = owner.operands[1]
        else:
            break
    return value


def _as_index(size) -> ir.Value:
    return size if isinstance(size, ir.Value) else index_constant(size)


def _result_sizes(t: TensorType, dynamic: list) -> list:
    """Sizes of ``t``: ints for static dims, the next ``dynamic`` value for each ``?``."""
    it = iter(dynamic)
    return [d if d is not DYN else next(it) for d in t.shape]


def _sizes_like(t: TensorType, like: ir.Value, axes=None) -> list:
    """Sizes of ``t`` whose ``?`` dims are read from ``like`` (same axes unless given)."""
    axes = range(t.rank) if axes is None else axes
    return [d if d is not DYN else _dim(like, a) for d, a in zip(t.shape, axes)]


def _empty(t: TensorType, sizes: list) -> ir.Value:
    """``tensor.empty`` of ``t``; ``sizes`` holds ints (static) or index values (``?``)."""
    mixed = [s if d is DYN else d for d, s in zip(t.shape, sizes)]
    return tensor.EmptyOp(mixed, mlir_element_type(t.dtype)).result


def _filled(t: TensorType, sizes: list, value) -> ir.Value:
    init = _empty(t, sizes)
    return linalg.fill(scalar.const(t.dtype, value), outs=[init])


def _map(rank: int, exprs) -> ir.AffineMapAttr:
    return ir.AffineMapAttr.get(ir.AffineMap.get(rank, 0, list(exprs)))


def _identity(rank: int) -> ir.AffineMapAttr:
    return _map(rank, [ir.AffineDimExpr.get(i) for i in range(rank)])


def _elementwise(inputs, result: TensorType, body) -> ir.Value:
    """All-parallel identity-map generic over operands of the result's shape."""
    init = _empty(result, _sizes_like(result, inputs[0]))
    rank = result.rank
    return generic(inputs, init, [_identity(rank)] * (len(inputs) + 1), ["parallel"] * rank, body)


def _single_value(value) -> ir.Value:
    if isinstance(value, (ir.Operation, ir.OpView)):
        value = value.results
    if isinstance(value, ir.OpResultList):
        value = value[0]
    return value


def _unit_groups(rank: int, unit_axes) -> list[list[int]]:
    """Reassociation that attaches each unit axis of a rank-``rank`` shape to a kept axis.

    Unit axes join the group of the kept axis before them (leading ones the first
    kept axis); with no kept axis at all the reassociation is empty (0-d side).
    """
    kept = [i for i in range(rank) if i not in unit_axes]
    if not kept:
        return []
    groups = [[]]
    for i in range(rank):
        if i in kept and any(a in kept for a in groups[-1]):
            groups.append([])
        groups[-1].append(i)
    return groups


def _reassociation(groups) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, i) for i in g]) for g in groups])


def _expand(value: ir.Value, result: TensorType, groups, sizes: list) -> ir.Value:
    dynamic = [s for d, s in zip(result.shape, sizes) if d is DYN]
    static = [_DYNAMIC if d is DYN else d for d in result.shape]
    return tensor.ExpandShapeOp(result.to_mlir(), value, _reassociation(groups), dynamic, static).result


def _collapse(value: ir.Value, result: TensorType, groups) -> ir.Value:
    return tensor.CollapseShapeOp(result.to_mlir(), value, _reassociation(groups)).result


# ----------------------------------------------------------------------------- elementwise


# NumPy's math ufuncs beyond ``scalar_semantics``: one upstream ``math``/``arith`` op each
# (ember-expand-math writes some inline; convert-math-to-llvm / -libm turn the others
# into LLVM intrinsics or libm calls), or a short exact composition.
def _math(fn):
    return lambda x, dtype: fn(x)


def _atan2(a, b, dtype):
    """C's ``atan2``: ``math.atan2``, except where both operands are zeros, whose answer
    (``+-0``, or ``+-pi`` when ``b`` is negative, signed like ``a``) is selected here:
    MLIR's folder of ``math.atan2`` gives NaN for two zero constants (``np.angle(0.0)``
    of a value known while tracing came out NaN)."""
    zero, one = scalar.const(dtype, 0.0), scalar.const(dtype, 1.0)
    both_zero = arith.andi(arith.cmpf(arith.CmpFPredicate.OEQ, a, zero), arith.cmpf(arith.CmpFPredicate.OEQ, b, zero))
    b_negative = arith.cmpf(arith.CmpFPredicate.OLT, math.copysign(one, b), zero)
    at_zeros = math.copysign(arith.select(b_negative, scalar.const(dtype, 3.141592653589793), zero), a)
    return arith.select(both_zero, at_zeros, math.atan2(a, b))


def _hypot(a, b, dtype):
    """NumPy's ``hypot`` (C's): sqrt(a*a + b*b) without overflow, inf if either is inf
    (even with a NaN). f32 in f64, where the squares are exact and nothing overflows
    (within an ulp of f32: the f64 errors are far below it); f64 scaled by the larger
    magnitude: big * sqrt(1 + (small/big)**2), within 2 ulp."""
    inf = scalar.const(dtype, float("inf"))
    either_inf = arith.ori(
        arith.cmpf(scalar.CmpF.OEQ, math.absf(a), inf), arith.cmpf(scalar.CmpF.OEQ, math.absf(b), inf)
    )
    if dtype == "f32":
        f64 = mlir_element_type("f64")
        a64, b64 = arith.extf(f64, a), arith.extf(f64, b)
        total = arith.addf(arith.mulf(a64, a64), arith.mulf(b64, b64))
        value = arith.truncf(mlir_element_type("f32"), math.sqrt(total))
    else:
        big = arith.maximumf(math.absf(a), math.absf(b))  # NaN-propagating
        small = arith.minimumf(math.absf(a), math.absf(b))
        ratio = arith.divf(small, big)
        one = scalar.const(dtype, 1.0)
        value = arith.mulf(big, math.sqrt(arith.addf(one, arith.mulf(ratio, ratio))))
        value = arith.select(arith.cmpf(scalar.CmpF.OEQ, big, scalar.const(dtype, 0.0)), big, value)
    return arith.select(either_inf, inf, value)


def _fmod(a, b, dtype):
    """C's ``fmod`` / ``%`` (the dividend's sign); NumPy's integer ``fmod(x, 0)`` is 0, and
    ``INT_MIN fmod -1`` is 0: both divisors become 1 (x % 1 == 0), so none traps."""
    if dtype in ("f32", "f64"):
        return arith.remf(a, b)
    one = scalar.const(dtype, 1)
    if is_unsigned(dtype):
        return arith.remui(a, arith.select(arith.cmpi(scalar.CmpI.eq, b, scalar.const(dtype, 0)), one, b))
    trap = arith.ori(
        arith.cmpi(scalar.CmpI.eq, b, scalar.const(dtype, 0)), arith.cmpi(scalar.CmpI.eq, b, scalar.const(dtype, -1))
    )
    return arith.remsi(a, arith.select(trap, one, b))


def _shift_in_range(b, dtype):
    """0 <= b < bits: NumPy compares the count as unsigned, so a negative one is out of range."""
    return arith.cmpi(scalar.CmpI.ult, b, scalar.const(dtype, bit_width(dtype)))


def _shl(a, b, dtype):
    """NumPy's ``left_shift``: 0 for a count outside [0, bits) (LLVM's shl would be poison)."""
    ok = _shift_in_range(b, dtype)
    zero = scalar.const(dtype, 0)
    return arith.select(ok, arith.shli(a, arith.select(ok, b, zero)), zero)


def _shr(a, b, dtype):
    """NumPy's ``right_shift`` (arithmetic): a count outside [0, bits) shifts the sign in
    everywhere, as a shift by bits - 1 does. Unsigned (logical): such a count gives 0."""
    ok = _shift_in_range(b, dtype)
    if is_unsigned(dtype):
        zero = scalar.const(dtype, 0)
        return arith.select(ok, arith.shrui(a, arith.select(ok, b, zero)), zero)
    return arith.shrsi(a, arith.select(ok, b, scalar.const(dtype, bit_width(dtype) - 1)))


MATH_UNARY = {
    "tan": _math(math.tan),
    "asin": _math(math.asin),
    "acos": _math(math.acos),
    "atan": _math(math.atan),
    "sinh": _math(math.sinh),
    "cosh": _math(math.cosh),
    "asinh": _math(math.asinh),
    "acosh": _math(math.acosh),
    "atanh": _math(math.atanh),
    "log1p": _math(math.log1p),
    "expm1": _math(math.expm1),
    "log2": _math(math.log2),
    "log10": _math(math.log10),
    "exp2": _math(math.exp2),
    "cbrt": _math(math.cbrt),
    "ceil": _math(math.ceil),
    "trunc": _math(math.trunc),
    "rint": _math(math.roundeven),  # half to even, as C's rint in the default rounding mode
}

MATH_BINARY = {
    "atan2": lambda a, b, dtype: _atan2(a, b, dtype),
    "hypot": _hypot,
    "copysign": lambda a, b, dtype: math.copysign(a, b),
    "fmod": _fmod,
    "shl": _shl,
    "shr": _shr,
}

_UNARY = {**scalar.UNARY, **MATH_UNARY}
_BINARY = {**scalar.BINARY, **MATH_BINARY}


def _via_f32(rule, dtype: str):
    """``rule(*scalars, dtype)``, for ``f16`` computed as NumPy's half loops do: operands
    extended to ``f32`` (exact), the ``f32`` rule, a float result rounded back to ``f16``."""
    if dtype != "f16":
        return lambda *xs: rule(*xs, dtype)
    f32 = mlir_element_type("f32")

    def rule_f16(*xs):
        value = rule(*(arith.extf(f32, x) for x in xs), "f32")
        return arith.truncf(mlir_element_type("f16"), value) if value.type == f32 else value

    return rule_f16


def _lower_unary(op, result: TensorType, attrs):
    (x,) = ember.tensor_operands(op)
    rule = _via_f32(_UNARY[op.name.removeprefix("ember.")], result.dtype)
    return _elementwise([x], result, lambda a, _: rule(a))


def _half_extreme(name: str):
    """NumPy's half ``maximum``/``minimum`` loop: ``(a >= b || isnan(a)) ? a : b`` (``<=``):
    NaN propagates and, of equal zeros, the first operand comes out (``maximum(-0.0, 0.0)``
    is ``-0.0``; the float32/float64 loops differ there)."""
    predicate = scalar.CmpF.OGE if name == "maximum" else scalar.CmpF.OLE

    def rule(a, b, dtype):
        take_a = arith.ori(arith.cmpf(predicate, a, b), arith.cmpf(scalar.CmpF.UNO, a, a))
        return arith.select(take_a, a, b)

    return rule


def _scalar_constant(value) -> float | None:
    """The value of a 0-d constant, seen through the broadcasts of it (``x ** 3`` with
    ``3`` broadcast to ``x``'s shape); None for anything else. Only a 0-d constant: a
    constant array exponent is not NumPy's scalar fast path."""
    owner = operation_of(value.owner)
    while owner is not None and owner.name == "linalg.generic" and len(owner.operands) == 2:
        body = owner.regions[0].blocks[0]
        if len(body.operations) != 1 or list(body.operations)[0].operands[0] != body.arguments[0]:
            return None
        owner = operation_of(owner.operands[0].owner)  # a broadcast's input
    if owner is None or owner.name != "arith.constant":
        return None
    attr = owner.attributes["value"]
    if not isinstance(attr, ir.DenseFPElementsAttr) or ir.RankedTensorType(attr.type).rank != 0:
        return None
    return float(np.array(attr))


def _constant_power(exponent: float):
    """``x ** n`` by multiplication for a constant ``n`` in -1..4 (strength reduction), and
    by ``sqrt`` for ``n`` = 1.5, -1.5, -0.5 (``r ** -1.5`` of gravity and ``1 / sqrt``):
    NumPy's ``pow`` answer within the rounding of the products, with the same zeros,
    infinities and NaNs (C's ``pow`` special cases where ``sqrt`` differs: ``pow(-0, -0.5)``
    and ``pow(-0, -1.5)`` are +inf, ``pow(-inf, 1.5)`` +inf, ``pow(-inf, -0.5)`` +0).
    Larger negative powers stay ``pow``: ``1 / (x * x)`` would overflow to 0 where the
    power is a small (subnormal) number; ``-1.5`` is ``r * sqrt(r)`` of ``r = 1 / x`` for
    that reason. None: keep ``pow``."""
    if exponent not in (-1.5, -1.0, -0.5, 0.0, 1.0, 1.5, 2.0, 3.0, 4.0):
        return None

    def power(a, d):
        def const(value):
            return arith.ConstantOp(a.type, ir.FloatAttr.get(a.type, value)).result

        one, inf = const(1.0), const(float("inf"))
        if exponent == 0.0:
            return one  # even NaN ** 0
        if exponent == -1.0:
            return arith.divf(one, a)
        if exponent in (1.5, -1.5, -0.5):
            return _half_power(exponent, a, one, inf, const(0.0))
        square = arith.mulf(a, a)
        return {1.0: a, 2.0: square, 3.0: arith.mulf(square, a), 4.0: arith.mulf(square, square)}[exponent]

    return power


def _half_power(exponent: float, a, one, inf, zero):
    """``a ** 1.5``, ``a ** -1.5``, ``a ** -0.5`` through ``sqrt`` (see ``_constant_power``)."""
    if exponent == 1.5:
        value = arith.mulf(a, math.sqrt(a))
        return arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, a, arith.negf(inf)), inf, value)
    is_zero = arith.cmpf(arith.CmpFPredicate.OEQ, a, zero)
    if exponent == -1.5:
        r = arith.divf(one, a)
        return arith.select(is_zero, inf, arith.mulf(r, math.sqrt(r)))
    value = arith.divf(one, math.sqrt(a))
    value = arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, a, arith.negf(inf)), zero, value)
    return arith.select(is_zero, inf, value)


def _lower_binary(op, result: TensorType, attrs):
    lhs, rhs = ember.tensor_operands(op)
    name = op.name.removeprefix("ember.")
    if name == "pow" and result.dtype in ("f16", "f32", "f64"):
        exponent = _scalar_constant(rhs)
        power = None if exponent is None else _constant_power(exponent)
        if power is not None:
            rule = _via_f32(power, result.dtype)
            return _elementwise([lhs], result, lambda a, _: rule(a))
    rule = binary_rule(name, result.dtype)
    return _elementwise([lhs, rhs], result, lambda a, b, _: rule(a, b))


def binary_rule(name: str, dtype: str):
    """``rule(a, b)``: the elementwise op ``name`` on scalars of ``dtype`` (float16 as
    NumPy's half loops: through float32, ``maximum``/``minimum`` their own rule)."""
    if dtype == "f16" and name in ("maximum", "minimum"):
        return _via_f32(_half_extreme(name), "f16")
    return _via_f32(_BINARY[name], dtype)


def _lower_cmp(op, result: TensorType, attrs):
    lhs, rhs = ember.tensor_operands(op)
    rule = _via_f32(lambda a, b, d: scalar.compare(attrs["predicate"], a, b, d), _type(lhs).dtype)
    return _elementwise([lhs, rhs], result, lambda a, b, _: rule(a, b))


def _lower_select(op, result: TensorType, attrs):
    return _elementwise(ember.tensor_operands(op), result, lambda c, a, b, _: arith.select(c, a, b))


def _lower_cast(op, result: TensorType, attrs):
    (x,) = ember.tensor_operands(op)
    src = _type(x).dtype
    if src == result.dtype:
        return x
    return _elementwise([x], result, lambda a, _: scalar.cast(a, src, result.dtype))


# ----------------------------------------------------------------------------- reductions


def _lower_reduce(op, result: TensorType, attrs):
    """Reduce into the result shape directly: with keepdims over trailing axes the
    reduced axes stay as loops of extent 1 (no reshape), so the reduction and its
    broadcast consumers stay one chain of linalg ops that tile-and-fuse can put in one
    loop nest; over an axis before a kept one, the loops follow x's order instead."""
    (x,) = ember.tensor_operands(op)
    xt = _type(x)
    name = op.name.removeprefix("ember.")
    axes = sorted(attrs["axes"])
    if not axes:  # reducing over nothing is the identity, for mean too (x / 1)
        return x
    identity, combine = scalar.REDUCTIONS[name]
    # f16 accumulates in f32 and rounds once, as NumPy's half add/multiply reduce loops
    # (and mean, which sums float16 in float32) do
    acc = result.with_dtype("f32") if xt.dtype == "f16" else result
    f32 = mlir_element_type("f32")
    element = (lambda a: arith.extf(f32, a)) if xt.dtype == "f16" else (lambda a: a)
    kept = [i for i in range(xt.rank) if i not in axes]
    if attrs["keepdims"] and not (kept and axes[0] < kept[-1]):
        loops = xt.rank + len(axes)  # the result's dims, then one reduction loop per axis
        in_exprs = [ir.AffineDimExpr.get(xt.rank + axes.index(i) if i in axes else i) for i in range(xt.rank)]
        out_map = _identity_prefix(loops, xt.rank)
        init = _filled(acc, _sizes_like(result, x), identity(acc.dtype))
        iterators = ["parallel"] * xt.rank + ["reduction"] * len(axes)
        in_map = _map(loops, in_exprs)
    else:
        # The loops in x's order. keepdims over an axis before a kept one
        # (x.mean(0, keepdims=True)) writes row 0 of the output there: as unit loops with
        # the reductions last, the loops walked each column down the rows (x.std(0) of
        # (4096, 1024) float32: 15 ms).
        if attrs["keepdims"]:
            init = _filled(acc, _sizes_like(result, x), identity(acc.dtype))
            zero = ir.AffineConstantExpr.get(0)
            out_map = _map(xt.rank, [zero if i in axes else ir.AffineDimExpr.get(i) for i in range(xt.rank)])
        else:
            init = _filled(acc, _sizes_like(result, x, kept), identity(acc.dtype))
            out_map = _map(xt.rank, [ir.AffineDimExpr.get(i) for i in kept])
        iterators = ["reduction" if i in axes else "parallel" for i in range(xt.rank)]
        in_map = _identity(xt.rank)
    reduced = [xt.shape[i] for i in axes]
    few = (
        all(isinstance(n, int) for n in reduced) and functools.reduce(int.__mul__, reduced, 1) < scalar.SEQUENTIAL_BELOW
    )
    value = generic(
        [x], init, [in_map, out_map], iterators, lambda a, total: combine(total, element(a), acc.dtype, not few)
    )
    if name == "mean":
        value = _divide_by_count(value, acc, x, axes)
    if acc != result:
        value = _elementwise([value], result, lambda a, _: scalar.cast(a, acc.dtype, result.dtype))
    return value


def _identity_prefix(loops: int, rank: int) -> ir.AffineMap:
    """``(d0, ..., d{loops-1}) -> (d0, ..., d{rank-1})``."""
    return _map(loops, [ir.AffineDimExpr.get(i) for i in range(rank)])


def _divide_by_count(total: ir.Value, t: TensorType, x: ir.Value, axes) -> ir.Value:
    """``total / prod(dims of x over axes)``; the count is computed from (dynamic) dims."""
    static, count = 1, None
    for a in axes:
        size = _dim(x, a)
        if isinstance(size, int):
            static *= size
        else:
            count = size if count is None else arith.muli(count, size)
    if count is None:
        count = index_constant(static)
    elif static != 1:
        count = arith.muli(count, index_constant(static))
    f = mlir_element_type(t.dtype)
    count = arith.sitofp(f, arith.index_cast(ir.IntegerType.get_signless(64), count))
    return _elementwise([total], t, lambda s, _: arith.divf(s, count))


# ----------------------------------------------------------------------------- shapes


# Ember ops read element by element: a transpose only they read can be a generic that
# elementwise fusion folds into them.
_ELEMENTWISE_FAMILIES = ("unary", "binary", "compare", "select", "cast")


def _lower_transpose(op, result: TensorType, attrs):
    """``linalg.transpose``, which a matmul reads through (BLAS's transpose flag); but
    where an elementwise generic makes the operand and elementwise ops alone read the
    result (``np.exp(a.T) * b`` as the frontend traces it: ``np.exp(a).T * b``), a
    generic reading the operand through the permutation, which elementwise fusion folds
    into both: one pass, ``exp`` computed as it is read, instead of the exponentials
    stored and then read back across their rows."""
    (x,) = ember.tensor_operands(op)
    perm = list(attrs["perm"])
    if perm == sorted(perm):  # identity (and 0-d, where linalg.transpose crashes the verifier)
        return x
    init = _empty(result, _sizes_like(result, x, perm))
    producer = operation_of(x.owner)
    readers = [operation_of(use.owner) for use in op.results[0].uses]
    if (
        producer is not None
        and producer.name == "linalg.generic"
        and is_elementwise(producer)
        and readers
        and all(r.name.startswith("ember.") and _family(r) in _ELEMENTWISE_FAMILIES for r in readers)
    ):
        inverse = [perm.index(j) for j in range(len(perm))]  # output dim i is input dim perm[i]
        read = _map(result.rank, [ir.AffineDimExpr.get(i) for i in inverse])
        return generic([x], init, [read, _identity(result.rank)], ["parallel"] * result.rank, lambda v, _: v)
    return linalg.transpose(x, outs=[init], permutation=perm)


def _family(op) -> str | None:
    spec = ops.OPS.get(op.name.removeprefix("ember."))
    return None if spec is None else spec.family


def _lower_broadcast_to(op, result: TensorType, attrs):
    """Generic whose input map sends the input's size-1 dims to 0 and drops new leading dims.

    A keepdims reduction arrives here as ``expand_shape`` (adding unit dims) of the
    reduced tensor; we read the reduced tensor itself, so no reshape sits between the
    reduction and its broadcast consumer — reshapes stop tile-and-fuse (ember-fuse)
    from putting a softmax or layernorm into one loop nest.
    """
    (x,) = ember.tensor_operands(op)
    xt = _type(x)
    offset = result.rank - xt.rank
    exprs = [
        ir.AffineConstantExpr.get(0) if d == 1 and result.shape[offset + i] != 1 else ir.AffineDimExpr.get(offset + i)
        for i, d in enumerate(xt.shape)
    ]
    source, kept = _unit_expansion_source(x)
    if source is not None:
        x, exprs = source, [exprs[i] for i in kept]
    init = _empty(result, _result_sizes(result, ember.size_operands(op)))
    return generic(
        [x], init, [_map(result.rank, exprs), _identity(result.rank)], ["parallel"] * result.rank, lambda a, _: a
    )


def _unit_expansion_source(x: ir.Value):
    """``(source, kept)`` when ``x = tensor.expand_shape source`` only inserts size-1
    dims: ``kept[j]`` is the dim of ``x`` that is ``source``'s dim ``j``. Else ``(None, None)``."""
    owner = x.owner
    if not isinstance(owner, (ir.OpView, ir.Operation)) or owner.operation.name != "tensor.expand_shape":
        return None, None
    xt = _type(x)
    kept = []
    for group in ir.ArrayAttr(owner.operation.attributes["reassociation"]):
        dims = [ir.IntegerAttr(d).value for d in ir.ArrayAttr(group)]
        wide = [d for d in dims if xt.shape[d] != 1]
        if len(wide) > 1:
            return None, None
        kept.append(wide[0] if wide else dims[-1])
    return owner.operation.operands[0], kept


def _static_groups(src, dst):
    """Reassociation grouping the dims of ``src`` (the longer shape) into ``dst``, or None.

    Greedy: each ``dst`` dim takes ``src`` dims until their product matches it;
    trailing unit dims join the last group. Static shapes without zeros only.
    """
    if len(dst) == 0:
        return [] if all(d == 1 for d in src) else None
    groups, i = [], 0
    for target in dst:
        group, product = [], 1
        while i < len(src):
            group.append(i)
            product *= src[i]
            i += 1
            if product >= target:
                break
        if product != target or not group:  # a unit dim past the last source dim: no grouping
            return None
        groups.append(group)
    while i < len(src) and src[i] == 1:
        groups[-1].append(i)
        i += 1
    return groups if i == len(src) else None


def _lower_reshape(op, result: TensorType, attrs):
    """collapse/expand when the grouping is clear, else flatten to 1-d and unflatten."""
    (x,) = ember.tensor_operands(op)
    xt = _type(x)
    sizes = _result_sizes(result, ember.size_operands(op))
    if xt.shape == result.shape and len(xt.dynamic_axes()) <= 1:
        return x  # equal element counts force the one unknown size to agree
    if xt.is_static and result.is_static and 0 not in xt.shape and 0 not in result.shape:
        if xt.rank >= result.rank:
            groups = _static_groups(xt.shape, result.shape)
            if groups is not None:
                return _collapse(x, result, groups)
        else:
            groups = _static_groups(result.shape, xt.shape)
            if groups is not None:
                return _expand(x, result, groups, sizes)
    if xt.rank == 0 or result.rank == 0:
        return _reshape_with_shape_tensor(x, result, sizes)
    flat = x
    if xt.rank > 1:
        flat = _collapse(x, xt.with_shape([_numel(xt.shape)]), [list(range(xt.rank))])
    if result.rank == 1:
        return flat if _type(flat) == result else tensor.CastOp(result.to_mlir(), flat).result
    # expand_shape wants its one collapsed size static exactly when every expanded size is
    # (a symbolic size the frontend has since learned equal to a constant meets both kinds)
    numel = _numel(result.shape)
    if (numel is DYN) != (_type(flat).shape[0] is DYN):
        flat = tensor.CastOp(_type(flat).with_shape([numel]).to_mlir(), flat).result
    return _expand(flat, result, [list(range(result.rank))], sizes)


def _numel(shape):
    n = 1
    for d in shape:
        n = DYN if d is DYN or n is DYN else n * d
    return n


def _reshape_with_shape_tensor(x, result: TensorType, sizes):
    shape = tensor.from_elements(
        ir.RankedTensorType.get([result.rank], ir.IndexType.get()), [_as_index(s) for s in sizes]
    )
    return tensor.ReshapeOp(result.to_mlir(), x, shape).result


def _lower_expand_dims(op, result: TensorType, attrs):
    (x,) = ember.tensor_operands(op)
    axes = set(attrs["axes"])
    src_axes = [i for i in range(result.rank) if i not in axes]
    sizes = [1 if i in axes else None for i in range(result.rank)]
    for src, i in enumerate(src_axes):
        sizes[i] = _dim(x, src)
    return _expand(x, result, _unit_groups(result.rank, axes), sizes)


def _lower_squeeze(op, result: TensorType, attrs):
    (x,) = ember.tensor_operands(op)
    return _collapse(x, result, _unit_groups(_type(x).rank, set(attrs["axes"])))


# ----------------------------------------------------------------------------- slices


def _slice_first(size, start: int, step: int):
    """First index of NumPy's ``a[start::step]`` along a dim of ``size`` (clamped like NumPy)."""
    if isinstance(size, int):
        return range(size)[slice(start, None, step)].start if size else 0
    if start < 0:
        first = arith.addi(size, index_constant(start))
        return arith.maxsi(first, index_constant(-1 if step < 0 else 0))
    limit = arith.subi(size, index_constant(1)) if step < 0 else size
    return arith.minsi(index_constant(start), limit)


def _lower_slice(op, result: TensorType, attrs):
    (x,) = ember.tensor_operands(op)
    xt = _type(x)
    sizes = _result_sizes(result, ember.size_operands(op))
    if 0 in result.shape:  # no elements: no offset to check (MLIR refuses offset 0 into a size 0)
        return _empty(result, sizes)
    firsts = []
    for axis, (start, step, out) in enumerate(zip(attrs["starts"], attrs["steps"], result.shape)):
        first = 0 if out == 0 else _slice_first(_dim(x, axis), start, step)
        firsts.append(first)
    steps = list(attrs["steps"])
    if all(s > 0 for s in steps):
        return _extract_slice(x, result, firsts, sizes, steps)
    return _gather_slice(x, result, firsts, sizes, steps, xt)


def split_mixed(values) -> tuple[list, list]:
    """Mixed offsets or sizes (ints and ``ir.Value``s) as a slice op takes them: the
    values, and the static list with a dynamic marker in their places."""
    return [v for v in values if isinstance(v, ir.Value)], [_DYNAMIC if isinstance(v, ir.Value) else v for v in values]


def _extract_slice(x, result, offsets, sizes, strides):
    dyn_off, st_off = split_mixed(offsets)
    dyn_size, st_size = split_mixed(sizes)
    return tensor.ExtractSliceOp(result.to_mlir(), x, dyn_off, dyn_size, [], st_off, st_size, strides).result


def _gather_slice(x, result, firsts, sizes, steps, xt):
    """Negative steps: element i of the result reads ``x[first + i * step]`` per dim."""
    init = _empty(result, sizes)

    def body(_):
        indices = []
        for axis, (first, step) in enumerate(zip(firsts, steps)):
            i = linalg.IndexOp(axis).result
            indices.append(arith.addi(_as_index(first), arith.muli(i, index_constant(step))))
        return tensor.extract(x, indices)

    return generic([], init, [_identity(result.rank)], ["parallel"] * result.rank, body)


def _lower_update_slice(op, result: TensorType, attrs):
    """``tensor.insert_slice`` of ``src`` into ``dest`` at the region's offsets, sizes from ``src``.

    A negative step mirrors ``_lower_slice``: the region ``first, first + step, ...``
    is the region ``last, last - step, ...`` walked backwards, so ``src`` is reversed
    along those axes (a gather, as for negative-step slices) and inserted with the
    positive stride ``-step`` from ``last = first + (length - 1) * step``. A region
    with a static size 0 (of ``src`` or ``dest``) writes nothing: the result is ``dest``.
    """
    dest, src = ember.tensor_operands(op)
    st = _type(src)
    if 0 in st.shape or 0 in result.shape:
        return dest
    sizes = [_dim(src, axis) for axis in range(st.rank)]
    offsets, strides, reverse = [], [], False
    for axis, (start, step, length) in enumerate(zip(attrs["starts"], attrs["steps"], sizes)):
        size = _dim(dest, axis)
        first = _slice_first(size, start, step)
        if isinstance(first, int) and isinstance(size, int):
            # only an empty region (a ? length of 0) starts at the end: keep the static
            # offset inside the dim, where the insert_slice verifier wants it
            first = min(first, size - 1)
        if step > 0:
            offsets.append(first)
        elif isinstance(first, int) and isinstance(length, int):
            offsets.append(first + (length - 1) * step)
        else:  # the last element; an empty region would put it before 0
            span = arith.muli(arith.subi(_as_index(length), index_constant(1)), index_constant(-step))
            offsets.append(arith.maxsi(arith.subi(_as_index(first), span), index_constant(0)))
        strides.append(abs(step))
        reverse = reverse or step < 0
    if reverse:
        steps = [-1 if step < 0 else 1 for step in attrs["steps"]]
        lasts = [_last(n) if step < 0 else 0 for n, step in zip(sizes, steps)]
        src = _gather_slice(src, st, lasts, sizes, steps, st)
    return _insert_slice(src, dest, offsets, sizes, strides)


def _last(size):
    """``size - 1``: an int when ``size`` is, else an index value."""
    return size - 1 if isinstance(size, int) else arith.subi(size, index_constant(1))


# On the tensor.empty a concatenation fills: its axis, so that the next concatenation
# along the same axis can take over its pieces (``_joined_pieces``); removed at the end.
_JOINED_AXIS = "ember.joined_axis"


def _lower_concatenate(op, result: TensorType, attrs):
    """``np.concatenate`` of n arrays is n - 1 pairwise ops; each fills one new buffer
    with its two operands. Where the left one is the previous concatenation along the
    same axis and read by nothing else, its pieces go straight into this one's buffer:
    each piece is copied once, not once per later piece (nine (8, 62, 62, 16) float32
    pieces joined along the last axis: 14.5 ms, NumPy 0.7 ms)."""
    lhs, rhs = ember.tensor_operands(op)
    axis = attrs["axis"]
    pieces = [*(_joined_pieces(lhs, axis) or [lhs]), rhs]
    along = [_dim(p, axis) for p in pieces]
    sizes = [along[0] if i == axis else _dim(pieces[0], i) for i in range(result.rank)]
    if result.shape[axis] is DYN:
        sizes[axis] = functools.reduce(_add_sizes, along)
    out = _empty(result, sizes)
    operation_of(out.owner).attributes[_JOINED_AXIS] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), axis)
    if 0 in result.shape:  # no elements: nothing to insert (and MLIR refuses offsets into a size 0)
        return out
    offset = 0
    for k, (piece, size) in enumerate(zip(pieces, along)):
        if size != 0:  # a static empty piece has nothing to insert (and would be out of bounds)
            offsets = [0] * result.rank
            offsets[axis] = offset
            out = _insert_slice(piece, out, offsets, sizes[:axis] + [size] + sizes[axis + 1 :])
        if k + 1 < len(pieces):  # the next piece's offset (none after the last)
            offset = _add_sizes(offset, size)
    return out


def _add_sizes(a, b):
    """``a + b`` of two sizes (ints or index values): an int when both are; no op for + 0."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if isinstance(a, int) and a == 0:
        return b
    if isinstance(b, int) and b == 0:
        return a
    return arith.addi(_as_index(a), _as_index(b))


def _joined_pieces(value: ir.Value, axis: int) -> list | None:
    """The pieces a concatenation along ``axis`` inserted into ``value`` (in order), if
    ``value`` and each step before it has one reader (the next step), else None."""
    pieces = []
    while (owner := operation_of(value.owner)) is not None and len(list(value.uses)) == 1:
        if owner.name == "tensor.empty":
            joined = owner.attributes[_JOINED_AXIS] if _JOINED_AXIS in owner.attributes else None
            return pieces[::-1] if joined is not None and ir.IntegerAttr(joined).value == axis else None
        if owner.name != "tensor.insert_slice":
            return None
        pieces.append(owner.operands[0])
        value = owner.operands[1]
    return None


def _insert_slice(source, dest, offsets, sizes, strides=None):
    strides = [1] * len(sizes) if strides is None else list(strides)
    dyn_off, st_off = split_mixed(offsets)
    dyn_size, st_size = split_mixed(sizes)
    return tensor.InsertSliceOp(source, dest, dyn_off, dyn_size, [], st_off, st_size, strides).result


# ----------------------------------------------------------------------------- leaves


def _lower_iota(op, result: TensorType, attrs):
    """A generic with no inputs yielding ``linalg.index axis`` cast to the element type
    (indices are never negative, so a signed conversion of the i64 is exact as NumPy's)."""
    init = _empty(result, _result_sizes(result, ember.size_operands(op)))
    element = mlir_element_type(result.dtype)

    def body(_):
        i = linalg.IndexOp(attrs["axis"]).result
        if result.is_float:
            return scalar.cast(arith.index_cast(ir.IntegerType.get_signless(64), i), "i64", result.dtype)
        return arith.index_cast(element, i)

    return generic([], init, [_identity(result.rank)], ["parallel"] * result.rank, body)


def _lower_constant(op, result: TensorType, attrs):
    if result.dtype in UNSIGNED:  # the same bits as a signless dense attribute
        value = attrs["value"].view(result.numpy_dtype.str.replace("u", "i"))
        return arith.ConstantOp(result.to_mlir(), ember.to_attribute("dense", value)).result
    return arith.ConstantOp(op.results[0].type, op.attributes["value"]).result


def _lower_dim(op, result, attrs):
    (x,) = ember.tensor_operands(op)
    return tensor.dim(x, index_constant(attrs["axis"]))


# ----------------------------------------------------------------------------- sizes


def _lower_size_constant(op, result, attrs):
    return index_constant(attrs["value"])


def _cmp_index(predicate: str, a: ir.Value, b: ir.Value) -> ir.Value:
    return arith.cmpi(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), _CMPI[predicate]), a, b)


_CMPI = {"eq": 0, "ne": 1, "slt": 2}  # arith.cmpi predicate numbers


def _safe_divisor(b: ir.Value) -> ir.Value:
    """``b``, or 1 where ``b`` is 0: the frontend guards divisors and the shape program
    raises on a zero one, so this only keeps a kernel from trapping (SIGFPE) should a
    zero ever reach it."""
    return arith.select(_cmp_index("eq", b, index_constant(0)), index_constant(1), b)


def _python_mod(a: ir.Value, b: ir.Value) -> ir.Value:
    """Python's ``a % b``: the remainder takes the divisor's sign."""
    r = arith.remsi(a, b)
    zero = index_constant(0)
    signs_differ = arith.xori(_cmp_index("slt", r, zero), _cmp_index("slt", b, zero))
    adjust = arith.andi(_cmp_index("ne", r, zero), signs_differ)
    return arith.select(adjust, arith.addi(r, b), r)


_SIZE_ARITH = {
    "add": arith.addi,
    "sub": arith.subi,
    "mul": arith.muli,
    "floordiv": lambda a, b: arith.floordivsi(a, _safe_divisor(b)),
    "mod": lambda a, b: _python_mod(a, _safe_divisor(b)),
    "max": arith.maxsi,
    "min": arith.minsi,
}
assert set(_SIZE_ARITH) == set(ops.SIZE_ARITH)


def _lower_size_arith(op, result, attrs):
    lhs, rhs = ember.index_operands(op)
    return _SIZE_ARITH[attrs["op"]](lhs, rhs)


def _lower_to_index(op, result, attrs):
    (x,) = ember.tensor_operands(op)
    cast = arith.index_castui if is_unsigned(_type(x).dtype) else arith.index_cast
    return cast(ir.IndexType.get(), tensor.extract(x, []))


def _lower_from_index(op, result: TensorType, attrs):
    """A ``linalg.fill`` of the i64 rather than ``tensor.from_elements``: fusion folds
    the fill into its readers (``x * n`` multiplies by the scalar itself) and, as a
    result, it bufferizes into the output; ``from_elements`` became a heap buffer,
    allocated and read back on every call."""
    (size,) = ember.index_operands(op)
    value = arith.index_cast(ir.IntegerType.get_signless(64), size)
    return linalg.fill(value, outs=[_empty(result, [])])


# ----------------------------------------------------------------------------- the table

LOWERINGS = {}
for _name, _spec in ops.OPS.items():
    LOWERINGS[_name] = {
        "unary": _lower_unary,
        "binary": _lower_binary,
        "reduce": _lower_reduce,
    }.get(_spec.family)
LOWERINGS.update(
    {
        "cmp": _lower_cmp,
        "select": _lower_select,
        "cast": _lower_cast,
        "transpose": _lower_transpose,
        "broadcast_to": _lower_broadcast_to,
        "reshape": _lower_reshape,
        "expand_dims": _lower_expand_dims,
        "squeeze": _lower_squeeze,
        "slice": _lower_slice,
        "update_slice": _lower_update_slice,
        "iota": _lower_iota,
        "concatenate": _lower_concatenate,
        "constant": _lower_constant,
        "dim": _lower_dim,
        "size_constant": _lower_size_constant,
        "size_arith": _lower_size_arith,
        "to_index": _lower_to_index,
        "from_index": _lower_from_index,
    }
)
# Ops with complex operands or results: NumPy's complex loops (complex_semantics.handles).
from compiler.passes import complex_semantics  # noqa: E402


@functools.cache
def lowerings() -> dict:
    """``LOWERINGS`` and the op families lowered in modules of their own (advanced
    indexing, LAPACK, products, scans, sorting). Those import this module's helpers, so they are
    imported here, on first use: imported at the top, whichever module a process
    imported first would find the other half-initialized."""
    from compiler.passes import lower_indexing, lower_lapack, lower_matmul, lower_scan, lower_sort

    table = dict(LOWERINGS)
    for module in (lower_indexing, lower_lapack, lower_matmul, lower_scan, lower_sort):
        table.update(module.LOWERINGS)
    missing = [n for n, fn in table.items() if fn is None]
    assert not missing, f"ember ops without a lowering: {missing}"
    return table


def lower_op(op: ir.Operation) -> ir.Value:
    """Build the replacement of one ember op before it and return its value."""
    name = op.name.removeprefix("ember.")
    table = lowerings()
    if name not in table:
        raise PassFailure(f"no lowering for '{op.name}'", op)
    try:
        attrs = ember.op_attributes(op)
        result = None if ops.OPS[name].index_result else _type(op.results[0])
    except (ops.TypeRuleError, TypeError, ValueError) as e:
        raise PassFailure(f"cannot lower '{op.name}': {e}", op) from None
    lowering = complex_semantics.lower if complex_semantics.handles(op, result) else table[name]
    with op.location, ir.InsertionPoint(op):
        value = lowering(op, result, attrs)
    # Some binding helpers (linalg.transpose) return the op rather than its result.
    return _single_value(value)


@dataclass
class EmberToLinalg(EmberPass):
    """Lowers Ember ops to upstream tensor-level dialects, where MLIR's fusion,
    tiling and bufferization take over; NumPy's semantics are fixed here, once."""

    name = "ember-to-linalg"
    summary = "Lower ember ops to linalg, tensor, arith and math ops on tensors"
    # Put the LAPACK helpers' definitions into the module (to read them, or to compile the
    # module on its own); by default it declares them, and the CPU backend links the
    # helper library it compiles once per process instead.
    define_helpers: bool = False

    def run(self, module):
        from compiler.passes import lower_lapack

        found = collect(module, lambda op: op.name.startswith("ember."))
        known: dict = {}
        token = _EMBER_TYPES.set(known)
        define = lower_lapack.DEFINE_HELPERS.set(self.define_helpers)
        try:
            with module.context, signless_types():
                _signless_signatures(module, known)
                for op in found:
                    ember_type = None if ops.OPS[op.name.removeprefix("ember.")].index_result else op.results[0].type
                    value = lower_op(op)
                    if ember_type is not None and value.type != ember_type:  # uiN: remember the type
                        known[value] = TensorType.from_mlir(ember_type)
                    op.results[0].replace_all_uses_with(value)
                    op.erase()
                _erase_dead_transposes(module)
                _erase_taken_over_joins(module)
        finally:
            _EMBER_TYPES.reset(token)
            lower_lapack.DEFINE_HELPERS.reset(define)


def _signless_signatures(module, known: dict) -> None:
    """Function arguments and results of ``uiN`` tensor types become ``iN`` (the Ember
    type of each argument is kept in ``known``); ``return`` follows its operands."""
    for fn in collect(module, lambda op: op.name == "func.func"):
        fn_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        inputs, results = [_signless(t) for t in fn_type.inputs], [_signless(t) for t in fn_type.results]
        if inputs == list(fn_type.inputs) and results == list(fn_type.results):
            continue
        for arg in fn.regions[0].blocks[0].arguments if len(fn.regions[0].blocks) else ():
            if _signless(arg.type) != arg.type:
                known[arg] = TensorType.from_mlir(arg.type)
                arg.set_type(_signless(arg.type))
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
    for loop in collect(module, lambda op: op.name == "scf.for"):  # loops the frontend traced as loops
        carried = list(loop.regions[0].blocks[0].arguments)[1:] + list(loop.results)
        for value in carried:
            if _signless(value.type) != value.type:
                known[value] = TensorType.from_mlir(value.type)
                value.set_type(_signless(value.type))


def _signless(t: ir.Type) -> ir.Type:
    """``t`` with a ``uiN`` tensor element type made ``iN`` (other types as they are)."""
    if not isinstance(t, ir.RankedTensorType):
        return t
    element = t.element_type
    if isinstance(element, ir.IntegerType) and element.is_unsigned:
        return ir.RankedTensorType.get(t.shape, ir.IntegerType.get_signless(element.width))
    return t


def _erase_dead_transposes(module) -> None:
    """Transposes that matmuls read through (``lower_matmul.transposed_source``) and nothing else reads."""
    for op in reversed(collect(module, lambda o: o.name == "linalg.transpose")):
        if not _has_uses(op.results[0]):
            init = operation_of(op.operands[1].owner)
            op.erase()
            if init is not None and init.name == "tensor.empty" and not _has_uses(init.results[0]):
                _erase_with_dead_sizes(init)


def _erase_taken_over_joins(module) -> None:
    """Concatenations whose pieces a later one took over (``_joined_pieces``): their
    inserts and buffer, now read by nothing; the marks on the others."""
    for op in reversed(collect(module, lambda o: o.name == "tensor.insert_slice")):
        if not _has_uses(op.results[0]):
            op.erase()
    for op in collect(module, lambda o: o.name == "tensor.empty" and _JOINED_AXIS in o.attributes):
        if _has_uses(op.results[0]):
            del op.attributes[_JOINED_AXIS]
        else:
            _erase_with_dead_sizes(op)


def _erase_with_dead_sizes(op) -> None:
    """Erase ``op`` and the size arithmetic (``tensor.dim``, ``arith.addi``) that only it read."""
    sizes = []
    for value in op.operands:  # each once: a + a reads one size twice
        owner = operation_of(value.owner)
        if owner is not None and owner.name in ("tensor.dim", "arith.addi") and owner not in sizes:
            sizes.append(owner)
    op.erase()
    for size in sizes:
        if not _has_uses(size.results[0]):
            _erase_with_dead_sizes(size)


def _has_uses(value: ir.Value) -> bool:
    return any(True for _ in value.uses)
