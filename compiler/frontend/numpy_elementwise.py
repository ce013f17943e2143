"""Elementwise NumPy: ufuncs, ``where``, ``clip`` and the ``*_like`` constructors.

A ufunc call is always the same four steps: ask NumPy which loop it runs
(``promotion.ufunc_loop``), cast each operand to that loop's input dtype (weak
Python scalars become constants of it directly), broadcast explicitly, emit the
Ember op of ``LOWERINGS``. The lowering only fills gaps of Ember's op set (``bool +
bool`` is ``or``, ``~int`` is ``xor -1``); the result dtype is checked against
NumPy's answer so a lowering can never silently change it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np

from compiler.frontend import promotion
from compiler.frontend.numpy_core import NOVALUE, EmitterCore, Tensor, reject, reject_kwargs
from compiler.frontend.symbolic_shapes import SymInt

CLIP_UFUNC = np._core.umath.clip  # what np.clip(a, lo, hi) calls when both bounds are given


def _op(name: str, on_bool: str | None = None) -> Callable:
    def lower(em: EmitterCore, *ts: Tensor) -> Tensor:
        op = on_bool if on_bool and ts[0].dtype.kind == "b" else name
        return ts[0] if op == "identity" else em.emit(op, *ts)

    return lower


def _cmp(predicate: str) -> Callable:
    return lambda em, x, y: em.emit("cmp", x, y, predicate=predicate)


def _invert(em: EmitterCore, x: Tensor) -> Tensor:
    if x.dtype.kind == "b":
        return em.emit("logical_not", x)
    all_ones = np.array(-1).astype(x.dtype)  # uiN: the maximum
    return em.emit("xor", x, em.scalar_like(all_ones, x.dtype, x))  # ~x == x ^ -1 (two's complement)


def _logical_not(em: EmitterCore, x: Tensor) -> Tensor:
    if x.dtype.kind == "b":
        return em.emit("logical_not", x)
    return em.emit("cmp", x, em.scalar_like(0, x.dtype, x), predicate="eq")  # NaN is truthy


def _floor(em: EmitterCore, x: Tensor) -> Tensor:
    return x if x.dtype.kind in "biu" else em.emit("floor", x)  # NumPy 2 keeps integer dtypes


# ufunc -> lowering of the loop NumPy picked (operands already cast and broadcast).
LOWERINGS: dict[np.ufunc, Callable] = {
    np.add: _op("add", on_bool="or"),
    np.subtract: _op("sub"),
    np.multiply: _op("mul", on_bool="and"),
    np.true_divide: _op("div"),  # also np.divide
    np.floor_divide: _op("floordiv"),
    np.remainder: _op("mod"),  # also np.mod
    np.power: _op("pow"),
    np.maximum: _op("maximum"),
    np.minimum: _op("minimum"),
    np.bitwise_and: _op("and"),
    np.bitwise_or: _op("or"),
    np.bitwise_xor: _op("xor"),
    np.less: _cmp("lt"),
    np.less_equal: _cmp("le"),
    np.greater: _cmp("gt"),
    np.greater_equal: _cmp("ge"),
    np.equal: _cmp("eq"),
    np.not_equal: _cmp("ne"),
    np.negative: _op("neg"),
    np.positive: _op("identity"),
    np.absolute: _op("abs", on_bool="identity"),  # also np.abs
    np.exp: _op("exp"),
    np.log: _op("log"),
    np.sqrt: _op("sqrt"),
    np.tanh: _op("tanh"),
    np.sin: _op("sin"),
    np.cos: _op("cos"),
    np.floor: _floor,
    np.square: lambda em, x: em.emit("mul", x, x),
    np.invert: _invert,  # also np.bitwise_not
    np.logical_not: _logical_not,
    CLIP_UFUNC: lambda em, x, lo, hi: em.emit("minimum", em.emit("maximum", x, lo), hi),
}


def _operand(em: EmitterCore, x, fname: str):
    """Tensors and weak Python scalars stay; NumPy scalars and lists become strong tensors;
    a symbolic int (``x.shape[0] * x``) becomes a weak int64 tensor of its value."""
    if isinstance(x, SymInt):
        return replace(em.wrap(em.b.from_index(em.size_value(x))), weak=True)
    return x if isinstance(x, Tensor) or promotion.is_python_scalar(x) else em.array(x, fname)


def _key(x):
    """What promotion sees: a dtype, or a Python value (a weak tensor is a Python float or int)."""
    if isinstance(x, Tensor):
        return (0.0 if x.dtype.kind == "f" else 0) if x.weak else x.dtype
    return x


def _symbolic_operands(em: EmitterCore, ufunc: np.ufunc, args: tuple) -> tuple:
    """``args`` with each symbolic int kept symbolic where NumPy would convert it to an int64
    or floating loop (exact: no overflow check depends on its value), else specialized."""
    if not any(isinstance(a, SymInt) for a in args):
        return args
    keys = [0 if isinstance(a, SymInt) else _key(a) if isinstance(a, Tensor) else a for a in args]
    try:
        in_dtypes, _ = promotion.ufunc_loop(ufunc, keys, check=False)
    except Exception:  # noqa: BLE001 - NumPy's complaint comes again with the values
        in_dtypes = [None] * len(args)
    kept = []
    for a, d in zip(args, in_dtypes):
        if isinstance(a, SymInt) and (d is None or not (d.kind == "f" or d == np.int64) or ufunc is np.power):
            a = a.env.specialize(a)
        kept.append(a)
    return tuple(kept)


def apply_ufunc(em: EmitterCore, ufunc: np.ufunc, *args, **kwargs) -> Tensor:
    fname = f"np.{ufunc.__name__}"
    if len(args) > ufunc.nin:
        raise NotImplementedError(f"{fname}: argument out= (positional) is not supported")
    if len(args) < ufunc.nin:
        raise TypeError(
            f"{fname}() takes from {ufunc.nin} to {ufunc.nargs} positional arguments but {len(args)} were given"
        )
    reject(fname, out=(kwargs.pop("out", None), None), where=(kwargs.pop("where", True), True))
    reject_kwargs(fname, kwargs)
    operands = [_operand(em, x, fname) for x in _symbolic_operands(em, ufunc, args)]
    if ufunc in _COMPARISONS:
        operands = _widened_for_comparison(em, operands)
    in_dtypes, out_dtype = promotion.ufunc_loop(ufunc, [_key(x) for x in operands], check=False)
    shape = em.broadcast_shape([x for x in operands if isinstance(x, Tensor)], fname)  # NumPy's next complaint
    promotion.check_supported(in_dtypes + [out_dtype], fname)
    if ufunc is np.power and in_dtypes[1].kind == "i":
        _check_integer_exponent(args[1], shape)
    tensors = em.broadcast([em.operand(x, d, fname) for x, d in zip(operands, in_dtypes)], fname)
    result = LOWERINGS[ufunc](em, *tensors)
    assert result.dtype == out_dtype, f"{fname}: lowering gave {result.dtype}, NumPy gives {out_dtype}"
    if all(x.weak if isinstance(x, Tensor) else promotion.is_python_scalar(x) for x in operands):
        result = replace(result, weak=True)  # Python floats in, a Python float out
    return result


_COMPARISONS = (np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal)


def _widened_for_comparison(em: EmitterCore, operands: list) -> list:
    """NumPy 2 compares an integer array with a Python int outside its dtype's range
    exactly (``uint8_array >= -1`` is all true), where other ufuncs raise OverflowError:
    such an array is compared as int64, which holds both (a uint64 array or an int past
    int64 stays NumPy's to compare)."""
    ints = [x for x in operands if type(x) is int]
    arrays = [x for x in operands if isinstance(x, Tensor) and not x.weak and x.dtype.kind in "iu"]
    if len(ints) != 1 or len(arrays) != 1 or arrays[0].dtype == np.uint64:
        return operands
    info, wide = np.iinfo(arrays[0].dtype), np.iinfo(np.int64)
    if info.min <= ints[0] <= info.max or not wide.min <= ints[0] <= wide.max:
        return operands
    return [em.cast(x, np.int64) if x is arrays[0] else x for x in operands]


def _check_integer_exponent(exponent, shape: tuple):
    """NumPy raises ValueError for *any* negative element of an integer exponent that
    its loop meets (none when the result ``shape`` is empty), which is a fact about the
    data: known for Python and NumPy scalars, unknown for a traced array (an
    unsigned/bool one is never negative), which is then left to NumPy itself."""
    if isinstance(exponent, Tensor):
        if exponent.dtype.kind == "i":
            raise NotImplementedError(
                "np.power: an integer array exponent (NumPy raises on negative elements, a data-dependent error)"
            )
        return
    values = np.asarray(exponent)  # a scalar or a list of constants (em.array refused tensors in lists)
    if values.dtype.kind == "i" and (values < 0).any():
        if not any(not isinstance(d, SymInt) and d == 0 for d in shape):  # a symbolic size is never 0
            raise ValueError("Integers to negative integer powers are not allowed.")


def ufunc(u: np.ufunc) -> Callable:
    """The handler of one ufunc (for the dispatch table)."""
    return lambda em, *args, **kwargs: apply_ufunc(em, u, *args, **kwargs)


def ufunc_outer(u: np.ufunc, rule: Callable) -> Callable:
    """``u.outer(a, b)``: ``u`` of every element of ``a`` with every element of ``b`` (the
    result's shape ``a.shape + b.shape``) by ``rule``, ``u``'s own handler, with unit dims
    added after ``a``'s. As NumPy does, Python scalars and lists become arrays first
    (``np.multiply.outer(2, x)`` of float32 ``x`` is float64); ``out=``, ``dtype=`` and
    ``where=`` run in CPython."""
    fname = f"np.{u.__name__}.outer"

    def outer(em, a, b, /, **kwargs):
        """The ufunc of each element of ``a`` with each of ``b`` (shape ``a.shape + b.shape``;
        Python numbers and lists made arrays first, as NumPy does)."""
        reject_kwargs(fname, kwargs)
        a, b = em.array(a, fname), em.array(b, fname)
        if b.ndim:
            a = em.emit("expand_dims", a, axes=tuple(range(a.ndim, a.ndim + b.ndim)))
        return rule(em, a, b)

    outer.__name__ = outer.__qualname__ = f"{u.__name__}_outer"
    return outer


# ----------------------------------------------------------------------------- where, clip


def where(em: EmitterCore, condition, x=NOVALUE, y=NOVALUE, /) -> Tensor:
    if x is NOVALUE or y is NOVALUE:
        if x is NOVALUE and y is NOVALUE:
            raise NotImplementedError("np.where: the one-argument form (nonzero) has a data-dependent shape")
        raise ValueError("either both or neither of x and y should be given")
    x, y = (_operand(em, a.env.specialize(a) if isinstance(a, SymInt) else a, "np.where") for a in (x, y))
    dtype = promotion.result_type([_key(x), _key(y)], "np.where")
    cond = em.cast(em.array(condition, "np.where"), np.bool_)  # NumPy tests truthiness: x != 0
    parts = [cond, em.operand(x, dtype, "np.where"), em.operand(y, dtype, "np.where")]
    return em.emit("select", *em.broadcast(parts, "np.where"))


def clip(em: EmitterCore, a, a_min=NOVALUE, a_max=NOVALUE, out=None, *, min=NOVALUE, max=NOVALUE, **kwargs):
    """NumPy's ``_methods._clip``: drop Python-int bounds beyond the dtype's range, then
    positive / minimum / maximum / clip depending on which bounds remain."""
    reject("np.clip", out=(out, None))
    reject_kwargs("np.clip", kwargs)
    lo = _one_of(a_min, min, "min")
    hi = _one_of(a_max, max, "max")
    a = em.array(a, "np.clip")
    if a.dtype.kind in "iu":
        info = np.iinfo(a.dtype)
        lo = None if type(lo) is int and lo <= info.min else lo
        hi = None if type(hi) is int and hi >= info.max else hi
    if lo is None and hi is None:
        return apply_ufunc(em, np.positive, a)
    if lo is None:
        return apply_ufunc(em, np.minimum, a, hi)
    if hi is None:
        return apply_ufunc(em, np.maximum, a, lo)
    return apply_ufunc(em, CLIP_UFUNC, a, lo, hi)


def _one_of(positional, keyword, name):
    if positional is not NOVALUE and keyword is not NOVALUE:
        raise TypeError(f"Passed more than one argument for {name}")
    value = keyword if positional is NOVALUE else positional
    return None if value is NOVALUE else value


# NumPy's scalar types, called on an array (``np.uint8(x)``): an unsafe cast, as ``astype``.
SCALAR_TYPES = (
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
)


def scalar_type_call(scalar_type: type) -> Callable:
    """``np.uint8(x)`` of a traced array: ``x.astype(np.uint8)`` (a NumPy scalar when 0-d).
    Calls on constants never get here (the tracer makes them constants itself)."""
    fname = f"np.{scalar_type.__name__}"

    def rule(em: EmitterCore, x, /) -> Tensor:
        if not isinstance(x, Tensor):
            raise NotImplementedError(f"{fname}: only a call on a traced array is supported")
        target = promotion.parse_dtype(scalar_type, fname)
        if x.weak and target.kind != "f":  # np.int64(nan) raises, np.int64(1e300) too
            raise NotImplementedError(f"{fname} of a Python float argument")
        return em.cast(x, target)

    return rule


def astype(em: EmitterCore, x: Tensor, dtype, order="K", casting="unsafe", subok=True, copy=True):
    reject("astype", order=(order, "K"), subok=(subok, True))
    target = promotion.parse_dtype(dtype, "astype")
    if not np.can_cast(x.dtype, target, casting):
        raise TypeError(f"Cannot cast array data from {x.dtype!r} to {target!r} according to the rule {casting!r}")
    return em.cast(x, target)
