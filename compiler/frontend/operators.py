"""Python operators, ``is``, subscripts applied to trackers.

An operator with an array operand is a NumPy operation (a graph op, through the
tracer's ``emit``); between trace-time constants it is computed now; ``==``/``is``
between other trackers compare identity. An exception the user's own expression
raises (``1 / 0``) becomes a ``UserError``: CPython will raise it again.
"""

from __future__ import annotations

from compiler.errors import Unsupported
from compiler.frontend import variables as v


def identical(a, b) -> bool:
    if a is b:
        return True
    if a.is_constant() and b.is_constant():
        x, y = a.as_constant(), b.as_constant()
        return x is y or (x is None) == (y is None) and x is None
    for t in (v.ModuleVariable, v.ClassVariable, v.PythonFunctionVariable):
        if isinstance(a, t) and isinstance(b, t):
            key = {"ModuleVariable": "module", "ClassVariable": "cls", "PythonFunctionVariable": "fn"}[t.__name__]
            return getattr(a, key) is getattr(b, key)
    if isinstance(a, v.TensorVariable) and isinstance(b, v.TensorVariable):
        return a.tensor.value == b.tensor.value
    if isinstance(a, v.UserObjectVariable) and isinstance(b, v.UserObjectVariable):
        return a.value is b.value
    return False


_OPERATOR_NAMES = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "truediv",
    "//": "floordiv",
    "%": "mod",
    "**": "pow",
    "@": "matmul",
    "&": "and_",
    "|": "or_",
    "^": "xor",
    "<": "lt",
    "<=": "le",
    "==": "eq",
    "!=": "ne",
    ">": "gt",
    ">=": "ge",
    "<<": "lshift",
    ">>": "rshift",
}


def binary(tx, op: str, lhs, rhs):
    if isinstance(lhs, v.TensorVariable) or isinstance(rhs, v.TensorVariable):
        return tx.emit(_OPERATOR_NAMES[op], lhs, rhs)
    if isinstance(lhs, v.BaseListVariable) and isinstance(rhs, v.BaseListVariable) and op == "+":
        return type(lhs)(lhs.items + rhs.items)
    if isinstance(lhs, v.BaseListVariable) and op == "*":
        return type(lhs)(lhs.items * rhs.as_constant())
    if op in ("==", "!=") and not (lhs.is_constant() and rhs.is_constant()):
        same = identical(lhs, rhs)
        return v.ConstantVariable(same if op == "==" else not same)
    fn = v.BINARY_OPERATORS.get(op) or v.COMPARE_OPERATORS[op]
    try:
        return v.wrap_constant(fn(lhs.as_constant(), rhs.as_constant()))
    except Unsupported:
        raise
    except Exception as e:  # the user's error (1 / 0): CPython raises it again
        raise v.UserError(e) from None


def unary(tx, op: str, value):
    if isinstance(value, v.TensorVariable):
        return tx.emit({"neg": "neg", "pos": "pos", "invert": "invert"}[op], value)
    fn = {"neg": lambda x: -x, "pos": lambda x: +x, "invert": lambda x: ~x}[op]
    try:
        return v.wrap_constant(fn(value.as_constant()))
    except Unsupported:
        raise
    except Exception as e:
        raise v.UserError(e) from None


def subscript(tx, obj, index):
    if isinstance(obj, v.TensorVariable):
        return tx.emit("getitem", obj, index)
    if isinstance(obj, v.DictVariable):
        key = index.as_constant()
        if key not in obj.items:
            raise v.UserError(KeyError(key))
        return obj.items[key]
    if isinstance(obj, v.BaseListVariable):
        if isinstance(index, v.SliceVariable):
            return type(obj)(obj.items[index.as_constant()])
        i = index.as_constant()
        try:
            return obj.items[i]
        except (IndexError, TypeError) as e:
            raise v.UserError(e) from None
    if obj.is_constant():
        try:
            return v.wrap_constant(obj.as_constant()[index.as_constant()])
        except Exception as e:
            raise v.UserError(e) from None
    raise Unsupported(f"indexing {obj}")
