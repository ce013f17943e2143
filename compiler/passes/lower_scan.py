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

``y[0]`` is ``x[0]`` itself (a select, not ``identity op x[0]``: ``0.0 + -0.0`` would lose
the sign NumPy keeps). Each step is the elementwise op's own rule (``binary_rule``: a
running maximum gives what ``np.maximum`` of the two gives); bools sum and multiply
with or/and, ``f16`` through ``f32`` as NumPy's half loops do. The loops are ``scf.for``, not linalg ops: fusion and tiling leave them alone.
"""

from __future__ import annotations

from compiler.dialects import ember
from compiler.dialects.types import DYN, TensorType
from compiler.mlir import arith, index_constant, tensor
from compiler.passes import scalar_semantics as scalar
from compiler.passes.ember_to_linalg import _as_index, _dim, _empty, _result_sizes, _type, binary_rule
from compiler.passes.scf_loops import for_loop

# (kind, bool operand) -> the elementwise op; fmax/fmin are maximum/minimum skipping NaN
_OPS = {
    ("sum", False): "add",
    ("prod", False): "mul",
    ("sum", True): "or",
    ("prod", True): "and",
    **{(kind, boolean): name for kind, name in (("max", "maximum"), ("min", "minimum")) for boolean in (False, True)},
}


def _combine(kind: str, dtype: str):
    """``y[k - 1] op x[k]`` as the elementwise op computes it. ``fmax``/``fmin``: NumPy's
    ``isnan(b) ? a : isnan(a) ? b : maximum(a, b)`` (``np.fmax``'s rule): NaN only where
    every element so far is NaN."""
    extreme = binary_rule(_OPS[kind.removeprefix("f"), dtype == "i1"], dtype)
    if not kind.startswith("f"):
        return extreme

    def nan_skipping(a, b):
        def is_nan(v):
            return arith.cmpf(arith.CmpFPredicate.UNO, v, v)

        return arith.select(is_nan(b), a, arith.select(is_nan(a), b, extreme(a, b)))

    return nan_skipping


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

    def along_last(outer: list, y):
        def step(k, running, y):
            value = tensor.extract(x, [*outer, k])
            running = first_or(k, value, combine(running, value))
            return [running, tensor.insert(running, y, [*outer, k])]

        start = scalar.const(xt.dtype, 0)  # any value of the type: step 0 replaces it
        return for_loop(zero, sizes[axis], one, [start, y], step)[1:]

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
