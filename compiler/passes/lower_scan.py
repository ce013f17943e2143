"""Lowering of ``ember.scan`` (``cumsum``/``cumprod``, ``ufunc.accumulate``): NumPy's
sequential loop.

NumPy computes ``y[k] = y[k - 1] op x[k]`` in order, so the only way to give its
floating-point results bit for bit is the same order. (A log-step scan of ``log2 n``
whole-array passes vectorizes but adds in another order and does ``n log n`` work.)
The lowering is a nest of ``scf.for`` loops over every index in row-major order, which
one-shot bufferization turns into loops over the result buffer:

* scanning along the last axis, the running value is a scalar the innermost loop
  carries: one add (or multiply) per element, no memory round trip;
* along another axis, ``y[..., k, ...]`` reads ``y[..., k - 1, ...]``, written one outer
  iteration earlier: row-major order walks memory contiguously and the inner loops over
  the trailing dims carry no dependency.

Along the last axis the running value starts where ``start op x[0]`` is ``x[0]`` bit for
bit (``_start``: ``-0.0`` for float sums, ``-inf`` for maxima...), so no select for
element 0 waits on the chain; fmax/fmin, and the other axes (whose ``y[k - 1]`` is read
back), select ``x[0]`` itself. Sums and products and integer extremes step by the
elementwise op's rule (``binary_rule``: bools with or/and, ``f16`` through ``f32`` as
NumPy's half loops do); float extremes by NumPy's own loops' compare and select
(``_float_extreme``). Measured on one row of 1M float64, against NumPy's 3.4 ms
for each: ``np.maximum.accumulate`` with ``arith.maximumf`` and the select 5.4 ms, now 1.15;
``np.cumsum`` 1.17 -> 0.86. The loops are ``scf.for``, not linalg ops: fusion and tiling
leave them alone.
"""

from __future__ import annotations

from compiler.dialects import ember
from compiler.dialects.types import DYN, FLOATS, TensorType
from compiler.mlir import arith, index_constant, tensor
from compiler.passes import scalar_semantics as scalar
from compiler.passes.ember_to_linalg import _as_index, _dim, _empty, _result_sizes, _type, binary_rule
from compiler.passes.scf_loops import for_loop

# (kind, bool operand) -> the elementwise op of sums and products and integer extremes
_OPS = {
    ("sum", False): "add",
    ("prod", False): "mul",
    ("sum", True): "or",
    ("prod", True): "and",
    **{(kind, boolean): name for kind, name in (("max", "maximum"), ("min", "minimum")) for boolean in (False, True)},
}


def _combine(kind: str, dtype: str):
    """``y[k - 1] op x[k]`` as NumPy's loop computes it: sums and products and integer
    extremes by the elementwise op's rule; float extremes by ``_float_extreme``."""
    if dtype in FLOATS and kind not in ("sum", "prod"):
        return _float_extreme(kind, dtype)
    return binary_rule(_OPS[kind.removeprefix("f"), dtype == "i1"], dtype)


def _float_extreme(kind: str, dtype: str):
    """NumPy's float ``maximum``/``minimum`` loops, bit for bit: ``(a > b || isnan(a)) ?
    a : b`` for the running ``a`` and the element ``b`` (a NaN, the first one with its
    bits, runs to the end; of equal zeros the element, ``-0.0`` after ``0.0`` stays
    ``-0.0``); ``fmax``/``fmin`` ``(a > b || isnan(b)) ? a : b`` (a NaN is skipped; NaN
    only while every element so far is). float16's half loops keep the running value of
    equal ones (``>=``). Not ``arith.maximumf``: it puts ``+0.0`` above ``-0.0``, and on
    x86 its NaN and signed-zero fix-ups lengthen the chain a running maximum waits on
    each element: a compare or two and a select are the step."""
    greater = {
        ("max", False): arith.CmpFPredicate.OGT,
        ("max", True): arith.CmpFPredicate.OGE,
        ("min", False): arith.CmpFPredicate.OLT,
        ("min", True): arith.CmpFPredicate.OLE,
    }[kind.removeprefix("f"), dtype == "f16"]
    skips_nan = kind.startswith("f")

    def rule(a, b):
        kept_nan = b if skips_nan else a
        keep = arith.ori(arith.cmpf(greater, a, b), arith.cmpf(arith.CmpFPredicate.UNO, kept_nan, kept_nan))
        return arith.select(keep, a, b)

    return rule


def _start(kind: str, dtype: str):
    """The running value before element 0 where ``start op x[0]`` is ``x[0]`` bit for bit,
    so that step 0 needs no select on the chain: ``-0.0`` for float sums (``-0.0 + -0.0``
    is ``-0.0``; ``0.0 +`` would lose the sign), 1 for products, the least and greatest
    value for maxima and minima (``-inf``: NumPy's rule takes ``x[0]``, NaN included);
    None for fmax/fmin (no start skips a NaN ``x[0]`` and keeps its bits)."""
    if kind.startswith("f"):
        return None
    float_type = dtype in FLOATS
    value = {
        "sum": -0.0 if float_type else 0,
        "prod": 1.0 if float_type else 1,
        "max": scalar.REDUCTIONS["max"][0](dtype),
        "min": scalar.REDUCTIONS["min"][0](dtype),
    }[kind]
    if dtype == "i1":
        value = {"sum": False, "prod": True}.get(kind, value)
    return scalar.const(dtype, value)


def _lower_scan(op, result: TensorType, attrs):
    (x,) = ember.tensor_operands(op)
    xt = _type(x)
    axis, rank = attrs["axis"], xt.rank
    if 0 in xt.shape or xt.shape[axis] == 1:
        return x  # nothing to accumulate
    combine = _combine(attrs["kind"], xt.dtype)
    sizes = [_as_index(_dim(x, d)) for d in range(rank)]
    out = _empty(xt, _result_sizes(xt, [s for s, d in zip(sizes, xt.shape) if d is DYN]))
    zero, one = index_constant(0), index_constant(1)

    def first_or(k, value, combined):
        return arith.select(arith.cmpi(arith.CmpIPredicate.eq, k, zero), value, combined)

    start = _start(attrs["kind"], xt.dtype)

    def along_last(outer: list, y):
        def step(k, running, y):
            value = tensor.extract(x, [*outer, k])
            running = combine(running, value) if start is not None else first_or(k, value, combine(running, value))
            return [running, tensor.insert(running, y, [*outer, k])]

        initial = start if start is not None else scalar.const(xt.dtype, 0)  # step 0 replaces it
        return for_loop(zero, sizes[axis], one, [initial, y], step)[1:]

    def element(index: list, y):
        k = index[axis]
        previous = list(index)
        previous[axis] = arith.subi(arith.maxsi(k, one), one)  # k = 0 reads y[0] (in bounds): discarded
        value = tensor.extract(x, index)
        return [tensor.insert(first_or(k, value, combine(tensor.extract(y, previous), value)), y, index)]

    def nest(level: int, index: list, y):
        if axis == rank - 1 and level == rank - 1:
            return along_last(index, y)
        if level == rank:
            return element(index, y)
        return for_loop(zero, sizes[level], one, [y], lambda iv, y: nest(level + 1, [*index, iv], y))

    (y,) = nest(0, [], out)
    return y


# Ember op name -> lowering function (op, result TensorType, attrs) -> ir.Value, merged
# into ember_to_linalg.lowerings().
LOWERINGS: dict = {"scan": _lower_scan}
