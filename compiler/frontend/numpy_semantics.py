"""NumPy semantics for the tracing frontend: one table from NumPy to Ember.

The frontend meets a NumPy function (``np.add``), an operator (``x + y`` -> "add" or
``operator.add``), an array method (``x.sum(...)`` -> "sum" with ``x`` first) or an
attribute (``x.shape`` -> "shape") and calls ``Emitter.call`` with it. ``TABLE`` maps
each of them to a rule that emits the Ember ops with NumPy 2.x semantics: NEP 50
promotion of weak Python scalars, explicit broadcasting and casts, NumPy's result
dtypes, NumPy's errors on bad shapes. Every row names the Ember ops it emits and
where its dtype rule comes from:

* ``ufunc``: NumPy's own loop resolution (``np.<ufunc>.resolve_dtypes``),
* ``result_type``: ``np.result_type`` of the operands,
* ``reduce``: NumPy's reduction dtypes (sum/prod of bool and narrow ints -> int64, of
  narrow unsigned ints -> uint64, mean of integers -> float64),
* ``same``/``given``: the input's dtype / the ``dtype=`` argument.

What the table does not cover, or an argument it does not model, raises
``NotImplementedError`` (the frontend falls back to CPython); what NumPy would raise
on the traced types and sizes is raised with NumPy's exception type and message.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Callable

import numpy as np

from compiler.frontend import (
    numpy_complex,
    numpy_einsum,
    numpy_histograms,
    numpy_linalg,
    numpy_math,
    numpy_reductions,
    numpy_searching,
    numpy_sorting,
    numpy_structure,
)
from compiler.frontend import numpy_creation as cr
from compiler.frontend import numpy_elementwise as ew
from compiler.frontend import numpy_indexing as ix
from compiler.frontend import numpy_shapes as sh
from compiler.frontend.numpy_core import EmitterCore, Tensor
from compiler.frontend.numpy_indexing import getitem
from compiler.frontend.symbolic_shapes import SymInt

__all__ = ["Emitter", "Tensor", "TABLE", "lookup"]


def _reshape_method(em, self, *shape, order="C", copy=None):
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    return sh.reshape(em, self, shape, order, copy=copy)


def _transpose_method(em, self, *axes):
    axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list, type(None))) else axes
    return sh.transpose(em, self, axes or None)


def _ravel(em, self, order="C"):
    return sh.reshape(em, self, -1, order)


def _pow_operator(em, x, y, mod=None):
    """``x ** y``: ndarray.__pow__ takes NumPy's fast paths for an exact Python 2, -1 or
    0.5 exponent (square, reciprocal, sqrt), which changes dtypes (``bool ** 2`` is int8)."""
    if mod is not None:
        raise NotImplementedError("pow: the three-argument form is not supported")
    if isinstance(y, SymInt):  # the exponent's value picks NumPy's fast path: specialize it
        y = y.env.specialize(y)
    if isinstance(x, Tensor) and x.dtype.kind == "c":
        fast = numpy_complex.pow_fast_path(em, x, y)
        return fast if fast is not None else numpy_complex.power(em, x, y)
    if isinstance(x, Tensor) and type(y) is int and y == 2:
        return ew.apply_ufunc(em, np.square, x)
    if isinstance(x, Tensor) and x.dtype.kind == "f" and type(y) in (int, float) and y in (-1, 0.5):
        if y == 0.5:
            return ew.apply_ufunc(em, np.sqrt, x)
        return em.emit("div", em.scalar_like(1, x.dtype, x), x)  # np.reciprocal
    return numpy_complex.power(em, x, y)  # the ufunc's, or a complex loop's (powi)


def _builtin_extreme(name: str):
    ufunc = np.greater if name == "max" else np.less

    def rule(em, *values, **kwargs):
        """Python's ``max()``/``min()`` of NumPy scalars or 0-d arrays of one dtype: the
        first value, replaced by each later one that compares greater (``min``: less), as
        Python does (a NaN first stays, a later one is passed over): selects, no data read
        while tracing. Other operands (a Python number beside them: the result's type
        would depend on the data) break."""
        first = values[0] if values else None
        kind = (first.dtype, first.scalar, first.weak) if isinstance(first, Tensor) else None
        if (
            len(values) < 2
            or kwargs
            or any(not isinstance(x, Tensor) or x.ndim != 0 or (x.dtype, x.scalar, x.weak) != kind for x in values)
        ):
            raise NotImplementedError(f"{name}() of arrays compares their data")
        best = first
        for item in values[1:]:
            best = em.emit("select", ew.apply_ufunc(em, ufunc, item, best), item, best)
        return dataclasses.replace(best, scalar=first.scalar, weak=first.weak)

    return rule


def _ufunc_rows(rows):
    """(ufunc, operator names, Ember ops) rows for ufuncs: the dtype rule is always ``ufunc``."""
    return [((u, *names), ew.ufunc(u), ops, "ufunc") for u, names, ops in rows]


# (keys, rule, Ember ops emitted, dtype rule). A key is a NumPy callable, an
# ``operator`` function or a name (operator, array method or attribute).
_ROWS = _ufunc_rows(
    [
        (np.add, ("add", operator.add), "add (bool: or)"),
        (np.subtract, ("sub", operator.sub), "sub"),
        (np.multiply, ("mul", operator.mul), "mul (bool: and)"),
        (np.true_divide, ("truediv", operator.truediv), "div"),  # np.divide is np.true_divide
        (np.floor_divide, ("floordiv", operator.floordiv), "floordiv"),
        (np.remainder, ("mod", operator.mod), "mod"),  # np.mod is np.remainder
        (np.maximum, (), "maximum"),
        (np.minimum, (), "minimum"),
        (np.bitwise_and, ("and_", operator.and_), "and"),
        (np.bitwise_or, ("or_", operator.or_), "or"),
        (np.bitwise_xor, ("xor", operator.xor), "xor"),
        (np.less, ("lt", operator.lt), "cmp lt"),
        (np.less_equal, ("le", operator.le), "cmp le"),
        (np.greater, ("gt", operator.gt), "cmp gt"),
        (np.greater_equal, ("ge", operator.ge), "cmp ge"),
        (np.equal, ("eq", operator.eq), "cmp eq"),
        (np.not_equal, ("ne", operator.ne), "cmp ne"),
        (np.negative, ("neg", operator.neg), "neg"),
        (np.positive, ("pos", operator.pos), "-"),
        (np.absolute, ("abs", operator.abs, abs), "abs (bool: none)"),  # np.abs is np.absolute
        (np.exp, (), "exp"),
        (np.log, (), "log"),
        (np.sqrt, (), "sqrt"),
        (np.tanh, (), "tanh"),
        (np.sin, (), "sin"),
        (np.cos, (), "cos"),
        (np.floor, (), "floor (int: none)"),
        (np.square, (), "mul"),
        (np.invert, ("invert", operator.invert, operator.inv), "logical_not | xor -1"),  # np.bitwise_not
        (np.logical_not, (), "logical_not | cmp eq 0"),
    ]
) + [
    ((np.power,), numpy_complex.power, "pow | powi (complex)", "ufunc"),
    (("pow", operator.pow, pow), _pow_operator, "pow | mul | div | sqrt | powi | reciprocal", "ufunc"),
    ((np.where,), ew.where, "cast, select", "result_type"),
    ((max,), _builtin_extreme("max"), "cmp gt, select", "same"),
    ((min,), _builtin_extreme("min"), "cmp lt, select", "same"),
    ((np.clip, "clip"), ew.clip, "maximum, minimum", "ufunc"),
    ((np.sum, "sum"), sh.sum_, "cast, sum", "reduce"),
    ((np.prod, "prod"), sh.prod, "cast, prod", "reduce"),
    ((np.mean, "mean"), sh.mean, "cast, mean", "reduce"),
    ((np.max, np.amax, "max"), sh.max_, "max", "same"),
    ((np.min, np.amin, "min"), sh.min_, "min", "same"),
    ((np.matmul, "matmul", operator.matmul), sh.matmul, "matmul (+broadcast_to, expand_dims, squeeze)", "ufunc"),
    ((np.dot, "dot"), sh.dot, "matmul | mul", "result_type"),
    ((np.transpose,), sh.transpose, "transpose", "same"),
    (("transpose",), _transpose_method, "transpose", "same"),
    (("T",), lambda em, x: sh.transpose(em, x), "transpose", "same"),
    ((np.reshape,), sh.reshape, "reshape", "same"),
    (("reshape",), _reshape_method, "reshape", "same"),
    (("ravel", "flatten", np.ravel), _ravel, "reshape", "same"),
    ((np.expand_dims,), sh.expand_dims, "expand_dims", "same"),
    ((np.squeeze, "squeeze"), sh.squeeze, "squeeze", "same"),
    ((np.concatenate,), sh.concatenate, "cast, concatenate", "result_type"),
    ((np.stack,), sh.stack, "cast, expand_dims, concatenate", "result_type"),
    *cr.ROWS,  # array creation: numpy_creation.py
    *numpy_complex.ROWS,  # real, imag, angle of complex arrays: numpy_complex.py
    *numpy_math.ROWS,  # elementwise math beyond the operators: numpy_math.py
    *numpy_reductions.ROWS,  # statistics, arg-reductions, scans: numpy_reductions.py
    *numpy_structure.ROWS,  # flips, rolls, stacking, splitting, triangles: numpy_structure.py
    *numpy_linalg.ROWS,  # np.linalg, vdot/inner/tensordot: numpy_linalg.py
    *numpy_sorting.ROWS,  # sort, argsort, median, percentile: numpy_sorting.py
    *numpy_einsum.ROWS,  # einsum: numpy_einsum.py
    *ix.ROWS,  # take, take_along_axis: numpy_indexing.py (advanced indexing)
    *numpy_histograms.ROWS,  # bincount, histogram: numpy_histograms.py
    *numpy_searching.ROWS,  # searchsorted, digitize, isin: numpy_searching.py
    (("astype",), ew.astype, "cast", "given"),
    *(((t,), ew.scalar_type_call(t), "cast", "given") for t in ew.SCALAR_TYPES),
    (("getitem", operator.getitem), getitem, "slice, squeeze, expand_dims", "same"),
    (("shape",), sh.shape_of, "dim (symbolic sizes)", "-"),
    (("ndim",), sh.ndim_of, "-", "-"),
    (("dtype",), sh.dtype_of, "-", "-"),
    (("size",), sh.size_of, "-", "-"),
    (("itemsize",), sh.itemsize_of, "-", "-"),
    (("nbytes",), sh.nbytes_of, "-", "-"),
]

# u.outer for every two-operand ufunc above: its own rule, after unit dims for b's
_ROWS += [
    ((key.outer,), ew.ufunc_outer(key, rule), f"expand_dims, {ops}", dtypes)
    for keys, rule, ops, dtypes in list(_ROWS)
    for key in keys
    if isinstance(key, np.ufunc) and key.nin == 2
]


# Keys whose rules read symbolic ints themselves (sizes, indices, ufunc operands); for
# any other the tracer specializes a symbolic int argument to its value first.
SYMBOLIC_INT_RULES = {
    *(k for keys, rule, _ops, dtypes in _ROWS if dtypes == "ufunc" for k in keys if not isinstance(k, np.ufunc)),
    "getitem",
    operator.getitem,
    "reshape",
    np.reshape,
    np.zeros,
    np.ones,
    np.empty,
    np.full,
    np.zeros_like,
    np.ones_like,
    np.empty_like,
    np.full_like,
    np.arange,
    *numpy_structure.SYMBOLIC_INT_RULES,
    *numpy_linalg.SYMBOLIC_INT_RULES,
    *numpy_sorting.SYMBOLIC_INT_RULES,
    *numpy_einsum.SYMBOLIC_INT_RULES,
}


# Array methods (``x.sum(...)``): the tracer binds these names to the array.
ARRAY_METHODS = (
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "transpose",
    "reshape",
    "astype",
    "squeeze",
    "copy",
    "dot",
    "clip",
    "all",
    "any",
    "flatten",
    "ravel",
    "item",
    "tolist",
    "argmax",
    "argmin",
    "fill",
    *numpy_math.METHODS,
    *numpy_reductions.METHODS,
    *numpy_structure.METHODS,
    *numpy_linalg.METHODS,
    *numpy_sorting.METHODS,
    *numpy_searching.METHODS,
    *numpy_einsum.METHODS,
    *ix.METHODS,
    "put",
)


def _build(rows) -> dict:
    table = {}
    for keys, rule, _ops, _dtypes in rows:
        for key in keys:
            assert key not in table, f"two rules for {key!r}"
            table[key] = rule
    return table


TABLE: dict = _build(_ROWS)
numpy_complex.guard(TABLE)  # complex arrays only reach the rules known to be right for them


def lookup(fn) -> Callable | None:
    """The rule for ``fn`` (a NumPy callable, an ``operator`` function or a name), if any."""
    try:
        return TABLE.get(fn) or numpy_math.optional_rule(fn)
    except TypeError:  # unhashable
        return None


def ufunc_method_name(fn) -> str | None:
    """``"np.maximum.accumulate"`` for a ufunc's method (it has no module), else None."""
    owner = getattr(fn, "__self__", None)
    return f"np.{owner.__name__}.{fn.__name__}" if isinstance(owner, np.ufunc) else None


def _is_numpy(fn) -> bool:
    """A ufunc, a ufunc's method or a NumPy function."""
    if isinstance(fn, np.ufunc) or ufunc_method_name(fn) is not None:
        return True
    return (getattr(fn, "__module__", None) or "").startswith("numpy")


def _name(fn) -> str:
    if (method := ufunc_method_name(fn)) is not None:
        return method
    return fn if isinstance(fn, str) else getattr(fn, "__name__", repr(fn))


# 0-d results: NumPy scalars from ufuncs, reductions and matmul; arrays from these ...
_ARRAY_RESULTS = (
    {np.where, np.expand_dims, np.concatenate, np.stack}
    | cr.ARRAY_RESULTS
    | numpy_math.ARRAY_RESULTS
    | numpy_reductions.ARRAY_RESULTS
    | numpy_structure.ARRAY_RESULTS
    | numpy_linalg.ARRAY_RESULTS
    | numpy_sorting.ARRAY_RESULTS
    | numpy_searching.ARRAY_RESULTS
    | numpy_einsum.ARRAY_RESULTS
)
# ... and whatever the operand was from these (a NumPy scalar's methods return scalars).
_SAME_AS_OPERAND = {
    max,
    min,
    "real",
    "imag",
    np.real,
    np.imag,
    "astype",
    "copy",
    "reshape",
    np.reshape,
    "transpose",
    np.transpose,
    "T",
    "squeeze",
    np.squeeze,
    "ravel",
    "flatten",
    np.ravel,
}


def returns_scalar(fn, args) -> bool:
    """Whether NumPy returns a NumPy scalar (``np.float32``) rather than a 0-d array for a
    0-d result of ``fn(*args)``: ``a.astype(f)`` of a 0-d array is a 0-d array, ``a[()]`` is
    a scalar, ``a[...]`` an array, ``np.where`` always an array, ufuncs always a scalar."""
    key = fn if _hashable(fn) else None
    if key in ("conj", "conjugate") and args and numpy_complex.is_complex(args[0]):
        return True  # a complex array's conj() is the ufunc's result (real ones return the array)
    if key in _ARRAY_RESULTS:
        return False
    if key in _SAME_AS_OPERAND:
        first = args[0] if args else None
        return first.scalar if isinstance(first, Tensor) else isinstance(first, np.generic)
    if key in ("getitem", operator.getitem):
        index = args[1] if len(args) > 1 else None
        items = index if isinstance(index, tuple) else (index,)
        return all(
            (isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)))
            or (isinstance(i, Tensor) and i.ndim == 0 and i.dtype.kind in "iu")  # x[np.array(1)]: a scalar too
            for i in items
        )
    return True


# Elementwise keys (a ufunc without a core signature, its operators, ``astype``): they
# map a boolean-mask result ``x[mask]`` element by element (numpy_indexing.masked_call).
_ELEMENTWISE = {
    k
    for keys, _rule, _ops, _dtypes in _ROWS
    if any(isinstance(x, np.ufunc) and x.signature is None for x in keys)
    for k in keys
} | {"pow", operator.pow, pow, "astype"}


def is_elementwise(fn) -> bool:
    """Whether ``fn`` (a ufunc without a core signature, an operator, ``astype``) maps
    element by element."""
    return _hashable(fn) and fn in _ELEMENTWISE


def _hashable(fn) -> bool:
    try:
        hash(fn)
        return True
    except TypeError:
        return False


class Emitter(EmitterCore):
    """``Emitter(builder).call(fn, *args, **kwargs)``: emit NumPy's ``fn(*args, **kwargs)``.

    Array operands are ``Tensor``s; results are ``Tensor``s (NumPy scalars as 0-d
    tensors) or Python values for metadata (``shape``, ``ndim``, ``dtype``, ``size``)."""

    def call(self, fn, *args, **kwargs):
        if any(isinstance(a, ix.Masked) for a in (*args, *kwargs.values())):  # x[mask], lazy
            return ix.masked_call(self, fn, args, kwargs, is_elementwise(fn))
        unsized = ix.data_dependent(fn)
        if unsized is not None:
            raise NotImplementedError(unsized)
        rule = lookup(fn)
        if rule is None:
            raise NotImplementedError(f"{_name(fn)} is not supported by Ember's NumPy semantics")
        if not _is_numpy(fn) and not any(isinstance(a, (Tensor, np.generic)) for a in args):
            raise NotImplementedError(f"{_name(fn)} of Python values is plain Python, not NumPy")
        result = rule(self, *args, **kwargs)
        if isinstance(result, Tensor) and result.ndim == 0:
            result = dataclasses.replace(result, scalar=returns_scalar(fn, args))
        elif isinstance(result, tuple) and any(isinstance(r, Tensor) and r.ndim == 0 for r in result):
            scalar = returns_scalar(fn, args)  # np.divmod(a, b), np.unravel_index(k, shape)
            items = [
                dataclasses.replace(r, scalar=scalar) if isinstance(r, Tensor) and r.ndim == 0 else r for r in result
            ]
            result = result._make(items) if hasattr(result, "_make") else tuple(items)  # SlogdetResult stays one
        if isinstance(result, Tensor) and result.weak and _is_numpy(fn):
            # np.sqrt(4) is a NumPy float64, strong (NEP 50); only Python's own operators on
            # Python numbers give a Python number
            result = dataclasses.replace(result, weak=False)
        return result
