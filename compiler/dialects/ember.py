"""The ``ember`` MLIR dialect, defined in Python over IRDL.

Each row of ``ops.OPS`` becomes an op class of the dialect: tensor operands are
builtin ranked tensors (static or ``?`` sizes), named index operands (the ``size``
family's) and trailing dynamic-size operands are ``index`` values, attributes are
builtin attributes; the result is a tensor, or an ``index`` for ``dim`` and the
size ops. Ops print in MLIR's generic form, e.g.::

    %0 = "ember.add"(%a, %b) : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
    %1 = "ember.sum"(%0) {axes = array<i64: 1>, keepdims = false} : (tensor<4x?xf32>) -> tensor<4xf32>
    %2 = "ember.size_arith"(%n, %c2) {op = "sub"} : (index, index) -> index

IRDL checks the op's structure; the op's semantics (shapes, dtypes, axes) are
checked by ``verify_invariants``, which runs the op's type rule and reports a
located diagnostic (``file:line:col: error: 'ember.sum' op axes [3] out of range``).

Why not ``ext.Dialect.load`` as is: it runs CSE over the IRDL module, which merges
the constraints of different operands into one IRDL variable, and IRDL then demands
that those operands have *equal* types. We emit one constraint per operand and
load the IRDL module ourselves. A variadic IRDL operand binds one type for all its
values too, which is why ``concatenate`` is binary (n-ary joins are chains) and the
only variadic operand group is the ``index`` sizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from compiler.dialects import ops
from compiler.dialects.types import TensorType, mlir_element_type
from compiler.mlir import ext, ir, load_python_dialect


class Ember(ext.Dialect, name="ember"):
    """Ember's tensor dialect: NumPy's array semantics with broadcasting made explicit."""


def _verify(op) -> bool:
    try:
        check_op(op.operation)
    except ops.TypeRuleError as e:
        op.location.emit_error(f"'{op.operation.name}' op {e}")
        return False
    return True


def _define(spec: ops.OpSpec) -> type:
    annotations: dict[str, Any] = {n: ext.Operand[ir.RankedTensorType] for n in spec.operands}
    annotations.update({n: ext.Operand[ir.IndexType] for n in spec.index_operands})
    if spec.sizes:
        annotations["sizes"] = Sequence[ext.Operand[ir.IndexType]]
    annotations.update({n: Any for n in spec.attrs})
    annotations["result"] = ext.Result[ir.IndexType if spec.index_result else ir.RankedTensorType]
    body = {
        "__annotations__": annotations,
        "__doc__": f"ember.{spec.name} ({spec.family})",
        "verify_invariants": staticmethod(_verify),
    }
    class_name = "".join(part.capitalize() for part in spec.name.split("_")) + "Op"
    return type(class_name, (Ember.Operation,), body, name=spec.name, traits=[ext.Pure])


OP_CLASSES: dict[str, type] = {name: _define(spec) for name, spec in ops.OPS.items()}


def load(context: ir.Context | None = None) -> None:
    """Register the dialect in ``context`` (or the current one); a no-op if it is there."""
    context = context or ir.Context.current
    if context.is_dialect_loaded(Ember.DIALECT_NAMESPACE):
        return
    load_python_dialect(Ember, context)


def new_context() -> ir.Context:
    """An MLIR context with the upstream dialects and Ember's registered."""
    context = ir.Context()
    load(context)
    return context


# ----------------------------------------------------------------------------- attributes


def to_attribute(kind: str, value) -> ir.Attribute:
    if kind == "i64":
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))
    if kind == "i64s":
        return ir.DenseI64ArrayAttr.get([int(v) for v in value])
    if kind == "bool":
        return ir.BoolAttr.get(bool(value))
    if kind == "str":
        return ir.StringAttr.get(str(value))
    if kind == "dense":
        array = np.array(value, order="C")  # not ascontiguousarray: it makes 0-d arrays 1-d
        t = TensorType.of_array(array)
        if t.is_complex:  # the bindings cannot read one back: ``complex`` of two real constants
            raise ValueError("a complex dense attribute (build it with ember.complex of its parts)")
        return ir.DenseElementsAttr.get(array, type=mlir_element_type(t.dtype), shape=list(array.shape))
    raise ValueError(f"unknown attribute kind {kind!r}")


def from_attribute(kind: str, attr: ir.Attribute):
    if kind == "i64":
        return ir.IntegerAttr(attr).value
    if kind == "i64s":
        return tuple(ir.DenseI64ArrayAttr(attr))
    if kind == "bool":
        return ir.BoolAttr(attr).value
    if kind == "str":
        return ir.StringAttr(attr).value
    if kind == "dense":
        dense = ir.DenseElementsAttr(attr)
        t = TensorType.from_mlir(dense.type)
        return np.array(dense).astype(t.numpy_dtype, copy=False).reshape(t.shape)
    raise ValueError(f"unknown attribute kind {kind!r}")


def op_attributes(op: ir.Operation) -> dict:
    """The op's Ember attributes as Python values (raises TypeRuleError when malformed)."""
    spec = ops.OPS[op.name.removeprefix("ember.")]
    values = {}
    for name, kind in spec.attrs.items():
        if name not in op.attributes:
            raise ops.TypeRuleError(f"requires attribute '{name}'")
        try:
            values[name] = from_attribute(kind, op.attributes[name])
        except (ValueError, TypeError) as e:
            raise ops.TypeRuleError(f"attribute '{name}' must be {kind}: {e}") from None
    return values


def tensor_operands(op: ir.Operation) -> list:
    spec = ops.OPS[op.name.removeprefix("ember.")]
    return list(op.operands)[: len(spec.operands)]


def index_operands(op: ir.Operation) -> list:
    """The op's named ``index`` operands (``size_arith``'s two, ``from_index``'s one)."""
    spec = ops.OPS[op.name.removeprefix("ember.")]
    first = len(spec.operands)
    return list(op.operands)[first : first + len(spec.index_operands)]


def size_operands(op: ir.Operation) -> list:
    """The op's trailing dynamic result sizes (one per ``?`` of the result)."""
    spec = ops.OPS[op.name.removeprefix("ember.")]
    return list(op.operands)[len(spec.operands) + len(spec.index_operands) :]


def check_op(op: ir.Operation):
    """Run the op's type rule; raise TypeRuleError when the op is malformed."""
    spec = ops.OPS[op.name.removeprefix("ember.")]
    attrs = op_attributes(op)
    operand_types = [TensorType.from_mlir(v.type) for v in tensor_operands(op)]
    declared = op.results[0].type
    if spec.index_result:
        ops.infer(spec.name, operand_types, attrs)
        return
    try:
        declared_t = TensorType.from_mlir(declared)
    except TypeError as e:
        raise ops.TypeRuleError(str(e)) from None
    expected = ops.infer(spec.name, operand_types, attrs, declared_t)
    if expected != declared_t:
        raise ops.TypeRuleError(f"result type {declared_t} does not match the expected {expected}")
    if spec.sizes:
        dynamic = len(declared_t.dynamic_axes())
        got = len(size_operands(op))
        if got != dynamic:
            raise ops.TypeRuleError(f"expects {dynamic} size operands (one per '?' of the result), got {got}")
