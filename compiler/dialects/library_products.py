"""Which ``ember.matmul`` ops become calls of a library routine (BLAS, or Ember's own
matrix-vector helpers) rather than generated loops.

Why here: the frontend must know it before any lowering runs. A call reads its operands
whole, from buffers computed before it, and fusion never moves an operand's producers
into it (``linalg_utils.is_library_call``). That is what lets ``write_in_place`` write a
new value straight into the caller's array when a product reads it afterwards
(``data -= mean; return data.T @ data``): no loop recomputes the new value from the
overwritten array. ``ember_to_linalg`` takes ``SMALL_K`` from here, so the two agree.
"""

from __future__ import annotations

from compiler.mlir import ir, operation_of

SMALL_K = 4  # a float product summing this few terms: our loop, not a BLAS call

_LIBRARY_ELEMENTS = ("f32", "f64")


def _users(value: ir.Value) -> list:
    return [operation_of(use.owner) for use in value.uses]


def is_library_product(op) -> bool:
    """Whether ``op`` is an ``ember.matmul`` that lowers to a library call: float32 or
    float64 operands of one type, summing more than ``SMALL_K`` terms (or a number
    known only at run time)."""
    if op.name != "ember.matmul":
        return False
    types = [ir.RankedTensorType(v.type) for v in op.operands]
    if len({str(t.element_type) for t in types}) != 1 or str(types[0].element_type) not in _LIBRARY_ELEMENTS:
        return False
    k = types[0].shape[-1]
    return ir.ShapedType.is_dynamic_size(k) or k > SMALL_K


def reads_as_library_operand(op) -> bool:
    """``op`` is a library product, or ``x.T`` of a matrix read only by library
    products (which read ``x`` in place with swapped indices: no transposed copy)."""
    if op.name == "ember.transpose":
        rank = ir.RankedTensorType(op.results[0].type).rank
        users = _users(op.results[0])
        return rank == 2 and bool(users) and all(is_library_product(u) for u in users)
    return is_library_product(op)
