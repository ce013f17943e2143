"""Integer keys that sort like floats (``lower_sort.py``: float sorts merge these).

A merge step on floats in NumPy's order (NaN last) takes two compares and an ``and``;
on integers of the float's width, one compare. ``argsort_key`` ties ``-0.0`` with
``0.0`` and every NaN with every other, as NumPy's stable argsort does; ``value_key`` is
one to one, so ``np.sort`` gets every bit back (``float_of_key``), its signed zeros and
NaNs put back in their order by the sort itself.
"""

from __future__ import annotations

from compiler.dialects.types import mlir_element_type
from compiler.mlir import arith, ir
from compiler.passes import scalar_semantics as scalar

CmpF = arith.CmpFPredicate

# A float type -> its keys' integer type, of the same width
KEY_TYPES = {"f32": "i32", "f64": "i64"}


def argsort_key(a: ir.Value, dtype: str) -> ir.Value:
    """A signed integer that orders like the float ``a`` in NumPy's order, for ``argsort``:
    ``-0.0`` made ``0.0`` and every NaN one NaN (they tie, as in NumPy's stable order: the
    merges keep their positions' order), then the bits, with the magnitude bits of a
    negative float flipped (more negative, smaller key). NaN's key is past inf's. One
    integer compare per merge step instead of two float compares and an and."""
    key = KEY_TYPES[dtype]
    width = int(key[1:])
    zero = scalar.const(dtype, 0.0)
    a = arith.select(arith.cmpf(CmpF.OEQ, a, zero), zero, a)
    a = arith.select(arith.cmpf(CmpF.UNO, a, a), scalar.const(dtype, float("nan")), a)
    bits = arith.bitcast(mlir_element_type(key), a)
    negative = arith.shrsi(bits, scalar.const(key, width - 1))  # all ones where the sign is set
    return arith.xori(bits, arith.andi(negative, scalar.const(key, (1 << (width - 1)) - 1)))


def _constants(dtype: str):
    """(key type name, width, the sign bit, ``2**mantissa - 1``) of a float type's keys."""
    key = KEY_TYPES[dtype]
    width = int(key[1:])
    return key, width, 1 << (width - 1), (1 << {"f32": 23, "f64": 52}[dtype]) - 1


def value_key(a: ir.Value, dtype: str) -> ir.Value:
    """A float's key for ``np.sort``, one to one (its bits come back, ``float_of_key``):
    the bits made to order as unsigned integers (a negative's all flipped, a positive's
    sign bit set), then rotated down by the span of the negative NaNs (``-inf`` is 0), so
    NaNs of both signs are past ``+inf``; the sign bit flipped last makes a signed compare
    order them. ``-0.0``'s key is just below ``0.0``'s: the two and the NaNs are put back
    in their order after the merges (``lower_sort._ties_in_order``)."""
    key, width, sign, rest = _constants(dtype)
    bits = arith.bitcast(mlir_element_type(key), a)
    negative = arith.shrsi(bits, scalar.const(key, width - 1))
    ordered = arith.xori(bits, arith.ori(negative, scalar.const(key, sign)))
    return arith.xori(arith.subi(ordered, scalar.const(key, rest)), scalar.const(key, sign))


def float_of_key(k: ir.Value, dtype: str) -> ir.Value:
    """The float whose ``value_key`` is ``k``."""
    key, width, sign, rest = _constants(dtype)
    ordered = arith.addi(arith.xori(k, scalar.const(key, sign)), scalar.const(key, rest))
    positive = arith.shrsi(ordered, scalar.const(key, width - 1))  # all ones where the float was positive
    flip = arith.ori(arith.xori(positive, scalar.const(key, -1)), scalar.const(key, sign))
    return arith.bitcast(mlir_element_type(dtype), arith.xori(ordered, flip))
