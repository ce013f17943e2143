"""Python operators, ``is``, subscripts applied to trackers.

An operator with an array operand is a NumPy operation (a graph op, through the
tracer's ``emit``); between trace-time constants it is computed now; ``==``/``is``
between other trackers compare identity. An exception the user's own expression
raises (``1 / 0``) becomes a ``UserError``: CPython will raise it again.
"""

from __future__ import annotations

import operator

from compiler.errors import Unsupported
from compiler.frontend import variables as v
from compiler.frontend.scalar_inputs import EXACT_OPERATORS, ScalarVariable, is_array


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
    if is_array(lhs) or is_array(rhs) or isinstance(lhs, v.MaskedVariable) or isinstance(rhs, v.MaskedVariable):
        return tx.emit(_OPERATOR_NAMES[op], lhs, rhs)
    if isinstance(lhs, v.SymIntVariable) or isinstance(rhs, v.SymIntVariable):
        traced = _symbolic_arithmetic(op, lhs, rhs)
        if traced is not None:
            return traced
        if op in EXACT_OPERATORS and (isinstance(lhs, ScalarVariable) or isinstance(rhs, ScalarVariable)):
            return tx.emit(_OPERATOR_NAMES[op], lhs, rhs)  # ``x.shape[0] * lr``: a 0-d value of the graph
    if isinstance(lhs, ScalarVariable) or isinstance(rhs, ScalarVariable):
        traced = _scalar_arithmetic(tx, op, lhs, rhs)
        if traced is not None:
            return traced
        lhs, rhs = (x.specialize() if isinstance(x, ScalarVariable) else x for x in (lhs, rhs))
    if isinstance(lhs, v.BaseListVariable) and isinstance(rhs, v.BaseListVariable) and op == "+":
        if type(lhs) is not type(rhs):  # [1] + (2,): Python's TypeError, raised again by CPython
            raise v.UserError(TypeError(f"can only concatenate {lhs.python_type().__name__} to the same type"))
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


_SYMBOLIC_OPERATORS = ("+", "-", "*", "//", "%", "<", "<=", "==", "!=", ">", ">=")


def _symbolic_arithmetic(op: str, lhs, rhs):
    """``lhs op rhs`` of symbolic ints and ints, kept symbolic; a comparison is decided
    by the shape environment (which guards it). None: the caller specializes."""
    if op not in _SYMBOLIC_OPERATORS and not (op == "**" and isinstance(rhs, v.ConstantVariable)):
        return None
    values = []
    for x in (lhs, rhs):
        if isinstance(x, v.SymIntVariable):
            values.append(x.value)
        elif isinstance(x, v.ConstantVariable) and type(x.value) in (int, bool):
            values.append(x.value)
        else:
            return None
    fn = v.BINARY_OPERATORS.get(op) or v.COMPARE_OPERATORS[op]
    sym = next(x.value for x in (lhs, rhs) if isinstance(x, v.SymIntVariable))
    try:
        result = fn(*values)
    except ZeroDivisionError as e:
        raise v.UserError(e) from None
    except TypeError:  # a negative power: not an int
        return None
    if result is NotImplemented:
        return None
    if op in v.COMPARE_OPERATORS:
        return v.ConstantVariable(sym.env.evaluate(result))
    return v.sym_or_constant(result)


def _scalar_arithmetic(tx, op: str, lhs, rhs):
    """``lhs op rhs`` with a ScalarVariable and no array: in the graph when Python and
    NumPy agree on the result (``EXACT_OPERATORS``) and the other side is a number,
    else None (the caller specializes)."""
    if op not in EXACT_OPERATORS:
        return None
    values = []
    for x in (lhs, rhs):
        if isinstance(x, ScalarVariable):
            values.append(x.value)
        elif x.is_constant() and type(x.as_constant()) in (int, float):
            values.append(x.as_constant())
        else:
            return None
    traced = tx.emit(_OPERATOR_NAMES[op], lhs, rhs)
    inputs = tuple(dict.fromkeys(a for x in (lhs, rhs) if isinstance(x, ScalarVariable) for a in x.inputs))
    return ScalarVariable(traced.tensor, None, v.BINARY_OPERATORS[op](*values), inputs)


def inplace_binary(tx, op: str, lhs, rhs):
    """``lhs op= rhs``. On a mutable ``lhs`` Python calls ``__iop__``, which changes the
    object itself: every other reference to it (the caller's argument, an alias, a
    container holding it, an array viewing the same memory) sees the change.

    * An array (``a += b``, ``x1 += A @ y``): ``np.<ufunc>(a, b, out=a)``, functionalized
      (``mutation.augmented``): the new value of ``a``'s memory updates its base, which
      every alias and view sees, and a written argument is written back to the caller.
      NumPy's casting errors (``int_array /= 2``) are NumPy's own, raised by CPython. A
      NumPy scalar (a 0-d result NumPy gives as ``np.float64``...) is immutable:
      rebinding is exact.
    * A list: ``+=`` extends it, ``*=`` repeats it, in place (a side effect replayed on
      the caller's list like ``append``). A dict: ``|=`` updates it in place.
    * Immutable values (numbers, strings, tuples): the plain operator, rebound.
    """
    if isinstance(lhs, v.TensorVariable):
        if lhs.tensor.type.rank == 0 and getattr(lhs.tensor, "scalar", False):
            return binary(tx, op, lhs, rhs)  # a NumPy scalar: ``s += x[i]`` rebinds ``s``
        from compiler.frontend.mutation import augmented

        return augmented(tx, op, lhs, rhs)
    if isinstance(lhs, v.MaskedVariable):  # ``x[mask] += v``: a new lazy value, stored back by setitem
        return binary(tx, op, lhs, rhs)
    if isinstance(lhs, v.ListVariable):
        if op == "+":
            items = rhs.iterate(tx)  # list += any iterable
            tx.mark_mutated(lhs)
            lhs.items.extend(items)
            return lhs
        if op == "*":
            try:
                count = operator.index(rhs.as_constant())
            except TypeError as e:  # lst *= 1.5: Python's TypeError, raised again by CPython
                raise v.UserError(e) from None
            tx.mark_mutated(lhs)
            lhs.items[:] = lhs.items * count
            return lhs
        raise Unsupported(f"the in-place operator {op}= on a list")
    if isinstance(lhs, v.DictVariable):
        if op == "|" and isinstance(rhs, v.DictVariable):
            tx.mark_mutated(lhs)
            lhs.items.update(rhs.items)
            return lhs
        raise Unsupported(f"the in-place operator {op}= on a dict")
    if lhs.is_constant() or isinstance(lhs, v.TupleVariable):
        return binary(tx, op, lhs, rhs)
    raise Unsupported(f"the in-place operator {op}= on {lhs}")


def unary(tx, op: str, value):
    if isinstance(value, (v.TensorVariable, v.MaskedVariable)):
        return tx.emit({"neg": "neg", "pos": "pos", "invert": "invert"}[op], value)
    if isinstance(value, v.SymIntVariable) and op in ("neg", "pos"):
        return v.sym_or_constant(-value.value if op == "neg" else value.value)
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
