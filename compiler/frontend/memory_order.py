"""Elementwise results in their operands' memory order, as NumPy lays them out.

NumPy gives a ufunc's result the memory order of its operands (``order='K'``): of
``x.T + 1`` it makes an F-ordered array, writing it in the order it reads ``x``.
Computed in C order instead, the result is a transpose: the operand read across its
rows, one cache line per element, and on a (2048, 2048) float32 ``x`` Ember took
13.4 ms where NumPy takes 1.1. So where every array operand of an elementwise call is a
transpose (one permutation, one shape) of another value, the call runs on those values
and its result is the transpose of that: a view of a fresh array, with NumPy's strides.
A returned one is built from the graph's output like any returned view
(``mutation.py``); one read on is a transpose the next op reads through, as before.
"""

from __future__ import annotations

from compiler.frontend import variables as v
from compiler.frontend.numpy_core import Tensor
from compiler.frontend.numpy_semantics import is_elementwise
from compiler.mlir import ir, operation_of


def _transposed(emitter, t: Tensor):
    """``(source, perm)`` when ``t`` is ``ember.transpose`` of ``source``, else None."""
    owner = operation_of(t.value.owner)
    if owner is None or owner.name != "ember.transpose":
        return None
    source = owner.operands[0]
    return Tensor(source, emitter.b.type_of(source)), tuple(ir.DenseI64ArrayAttr(owner.attributes["perm"]))


def in_memory_order(tx, fn, args: tuple, kwargs: dict):
    """The tracker of ``fn(*args)`` computed in its operands' memory order (see the
    module's text), or None where that does not apply: not an elementwise call, keyword
    arguments, an array operand that is not such a transpose (or of another rank,
    permutation or shape: a broadcast), no array operand at all."""
    if kwargs or not is_elementwise(fn):
        return None
    emitter = tx.output.emitter
    perm, shape, untransposed = None, None, []
    for arg in args:
        if not isinstance(arg, v.TensorVariable) or arg.tensor.ndim == 0:
            untransposed.append(arg)  # a scalar, a 0-d array, a dtype: the same either way
            continue
        found = _transposed(emitter, arg.tensor)
        if found is None or (perm is not None and found[1] != perm):
            return None
        sizes = emitter.shape(arg.tensor)
        if shape is not None and not (
            len(sizes) == len(shape) and all(emitter.equal_sizes(a, b) for a, b in zip(sizes, shape))
        ):
            return None
        perm, shape = found[1], sizes
        untransposed.append(v.TensorVariable(found[0]))
    if perm is None:
        return None
    result = tx.emit(fn, *untransposed)
    return tx.emit("transpose", result, *(v.ConstantVariable(axis) for axis in perm))
