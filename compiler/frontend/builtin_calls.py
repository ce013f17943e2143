"""Python builtins called inside traced code, evaluated at trace time.

``len``, ``range``, ``zip``, ``enumerate``, ``isinstance`` and friends only ever see
what the tracer knows statically (constants, container structure, array shapes), so
they run now and their results are constants of the trace; a builtin applied to
array *data* (``float(x.sum())``, ``max(a, b)`` of arrays) is data-dependent and
unsupported here (a graph break in a later milestone).
"""

from __future__ import annotations

import functools
import math

from compiler.errors import Unsupported
from compiler.frontend import variables as v
from compiler.frontend.operators import binary

# Builtins that are pure functions of constant arguments.
PURE = {
    abs,
    all,
    any,
    bool,
    bytes,
    callable,
    chr,
    complex,
    divmod,
    float,
    format,
    hash,
    hex,
    int,
    len,
    max,
    min,
    oct,
    ord,
    pow,
    repr,
    round,
    sorted,
    str,
    sum,
    type,
    reversed,
}
# ``math``'s functions are pure too (``math.sqrt(2 * math.pi)`` folds to a constant).
MATH_FUNCTIONS = {f for f in vars(math).values() if callable(f)}
PURE |= MATH_FUNCTIONS


def call_builtin(tx, fn, args: list, kwargs: dict) -> v.VariableTracker:
    special = _SPECIAL.get(fn)
    if special is not None:
        return special(tx, *args, **kwargs)
    if fn is print:
        raise Unsupported("`print` is a side effect Ember runs in Python")
    if fn in PURE and all(a.is_constant() for a in args) and all(k.is_constant() for k in kwargs.values()):
        try:
            return v.wrap_constant(
                fn(*[a.as_constant() for a in args], **{k: a.as_constant() for k, a in kwargs.items()})
            )
        except Unsupported:
            raise
        except Exception as e:  # the user's error: CPython raises it again
            raise v.UserError(e) from None
    if isinstance(fn, type) and issubclass(fn, BaseException):
        raise Unsupported(f"creating the exception {fn.__name__}")
    name = getattr(fn, "__name__", repr(fn))
    raise Unsupported(f"calling {name}() on values not known while tracing")


def _len(tx, obj):
    if isinstance(obj, v.MaskedVariable):  # len(x[mask]): the mask's count, computed in the graph
        return tx.emit("len", obj)
    if isinstance(obj, v.TensorVariable):
        t = obj.tensor
        if t.type.rank == 0:
            raise v.UserError(TypeError("len() of unsized object"))
        return v.sym_or_constant(tx.output.emitter.shape(t)[0])
    if isinstance(obj, (v.BaseListVariable, v.DictVariable, v.ListIteratorSource)):
        return v.ConstantVariable(len(obj.items))
    if obj.is_constant():
        return v.ConstantVariable(len(obj.as_constant()))
    raise Unsupported(f"len() of {obj}")


def _range(tx, *args):
    r = range(*[a.as_constant() for a in args])
    return v.ListIteratorSource(v.RangeItems(r), range=r)


def _zip(tx, *iterables, strict=None):
    columns = [it.iterate(tx) for it in iterables]
    if strict is not None and strict.as_constant() and len({len(c) for c in columns}) > 1:
        raise v.UserError(ValueError("zip() arguments have different lengths"))
    return v.ListIteratorSource([v.TupleVariable(list(row)) for row in zip(*columns)])


def _enumerate(tx, iterable, start=None):
    first = start.as_constant() if start is not None else 0
    return v.ListIteratorSource(
        [v.TupleVariable([v.ConstantVariable(first + i), item]) for i, item in enumerate(iterable.iterate(tx))]
    )


def _isinstance(tx, obj, classes):
    cls = (
        classes.as_constant()
        if not isinstance(classes, v.TupleVariable)
        else tuple(c.as_constant() for c in classes.items)
    )
    return v.ConstantVariable(isinstance_by_type(obj.python_type(), cls))


def isinstance_by_type(t: type, cls) -> bool:
    return issubclass(t, cls)


def _type(tx, obj):
    return v.ClassVariable(obj.python_type())


def _list(tx, iterable=None):
    return v.ListVariable(iterable.iterate(tx) if iterable is not None else [])


def _tuple(tx, iterable=None):
    return v.TupleVariable(iterable.iterate(tx) if iterable is not None else [])


def _dict(tx, mapping=None, **kwargs):
    items = {}
    if isinstance(mapping, v.DictVariable):
        items.update(mapping.items)
    elif mapping is not None:
        for pair in mapping.iterate(tx):
            key, value = pair.iterate(tx)
            items[key.as_constant()] = value
    items.update(kwargs)
    return v.DictVariable(items)


def _reversed(tx, seq):
    return v.ListIteratorSource(list(reversed(seq.iterate(tx))))


def _abs(tx, x):
    if isinstance(x, v.TensorVariable):
        # the builtin, not np.abs: abs of a Python float (a weak scalar) is a Python float
        return tx.emit(abs, x)
    return v.wrap_constant(abs(x.as_constant()))


def _sum(tx, iterable, start=None):
    total = start if start is not None else v.ConstantVariable(0)
    for item in iterable.iterate(tx):
        total = binary(tx, "+", total, item)
    return total


def _minmax(fn):
    def call(tx, *args, **kwargs):
        values = args[0].iterate(tx) if len(args) == 1 else list(args)
        if len(values) > 1 and not kwargs and all(isinstance(a, v.TensorVariable) for a in values):
            return tx.emit(fn, *values)  # NumPy scalars: numpy_semantics' selects, or a break
        if any(isinstance(a, v.TensorVariable) for a in values):
            raise Unsupported(
                f"{fn.__name__}() of arrays compares their data", hint=f"use np.{fn.__name__}imum or a reduction"
            )
        return v.wrap_constant(fn([a.as_constant() for a in values], **{k: a.as_constant() for k, a in kwargs.items()}))

    return call


def _getattr(tx, obj, name, default=None):
    try:
        return obj.getattr(tx, name.as_constant())
    except v.UserError:
        if default is not None:
            return default
        raise


def _hasattr(tx, obj, name):
    try:
        obj.getattr(tx, name.as_constant())
        return v.ConstantVariable(True)
    except v.UserError:
        return v.ConstantVariable(False)


def _partial(tx, fn, *args, **kwargs):
    return v.PartialVariable(fn, list(args), dict(kwargs))


def _slice(tx, *args):
    parts = list(args) + [v.ConstantVariable(None)] * (3 - len(args))
    if len(args) == 1:
        parts = [v.ConstantVariable(None), args[0], v.ConstantVariable(None)]
    return v.SliceVariable(*parts)


def _scalar_conversion(fn):
    def call(tx, x=None, *rest):
        if fn is int and isinstance(x, v.SymIntVariable) and not rest:
            return x  # int(n) of a symbolic int is itself
        if isinstance(x, v.TensorVariable):
            raise Unsupported(
                f"{fn.__name__}() of an array reads its data", hint="data-dependent Python values are graph breaks"
            )
        return v.wrap_constant(fn(*([] if x is None else [x.as_constant()]), *[r.as_constant() for r in rest]))

    return call


_SPECIAL = {
    len: _len,
    range: _range,
    zip: _zip,
    enumerate: _enumerate,
    isinstance: _isinstance,
    type: _type,
    list: _list,
    tuple: _tuple,
    dict: _dict,
    reversed: _reversed,
    abs: _abs,
    sum: _sum,
    min: _minmax(min),
    max: _minmax(max),
    getattr: _getattr,
    hasattr: _hasattr,
    functools.partial: _partial,
    slice: _slice,
    int: _scalar_conversion(int),
    float: _scalar_conversion(float),
    bool: _scalar_conversion(bool),
    str: _scalar_conversion(str),
}
