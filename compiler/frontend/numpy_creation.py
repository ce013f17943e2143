"""Arrays the traced function creates: ``np.zeros``/``ones``/``empty``/``full`` (and their
``*_like``), ``np.arange``, ``np.linspace``, ``np.eye``, ``np.identity``, ``np.copy``/``x.copy()``,
``np.array``/``np.asarray`` and ``np.ascontiguousarray``.

Every array is made by ops of the graph, never by a dense constant of the whole array:
a fill is a 0-d ``ember.constant`` broadcast with ``ember.broadcast_to``; a range is an
``ember.iota`` (the index along one axis) scaled and shifted by 0-d constants; ``eye``
compares two iotas. Only ``np.array`` of a Python literal (``np.array([1.0, 2.0])``)
becomes a constant, and only a small one (``MAX_LITERAL`` elements).

Result dtypes are NumPy's own: what NumPy decides from argument *types* alone
(``np.arange(0, 5)`` is int64, ``np.linspace(np.float32(0), 1)`` float32) is asked of
NumPy at trace time on empty or 0-d stand-ins, and the values follow NumPy's
formulas step by step in the result dtype:

* ``np.arange``: NumPy stores ``start`` and ``start + step`` (Python arithmetic on the
  arguments) in the first two elements, then fills ``buffer[i] = buffer[0] + i * delta``
  with ``delta = buffer[1] - buffer[0]`` computed *in the result dtype* (so ``delta`` is
  not ``step``: the values of ``np.arange(0.1, 1, 0.1)`` come from ``0.2 - 0.1``). Its
  length is ``ceil((stop - start) / step)`` in double precision.
* ``np.linspace`` (``numpy/_core/function_base.py``): ``arange(0, num) * step + start``
  with ``step = (stop - start) / div`` (``/ div * delta`` when ``step`` underflows to 0),
  the last element set to ``stop`` when ``endpoint``, ``floor`` before an integer ``dtype``.

Whatever this module does not model raises ``NotImplementedError`` (the call runs in
CPython); arguments NumPy itself refuses raise NumPy's exception where it is certain.
"""

from __future__ import annotations

import math
import operator

import numpy as np
from numpy._core._multiarray_umath import _array_converter

from compiler.dialects import ops
from compiler.frontend import numpy_shapes as sh
from compiler.frontend import promotion
from compiler.frontend.numpy_core import EmitterCore, Tensor, holds, is_one, reject, shape_text
from compiler.frontend.symbolic_shapes import SymInt

MAX_LITERAL = 4096  # elements of the largest constant np.array/np.asarray makes of a Python literal

# ----------------------------------------------------------------------------- helpers


def _dtype(dtype, default, fname: str) -> np.dtype:
    return np.dtype(default) if dtype is None else promotion.parse_dtype(dtype, fname)


def _check_order(order, allowed: tuple, fname: str):
    if order not in allowed:
        raise NotImplementedError(f"{fname}: order={order!r} is not supported (only {', '.join(map(repr, allowed))})")


def _no_like(fname: str, like=None, device=None):
    reject(fname, like=(like, None), device=(device, None))


def _shape(em: EmitterCore, shape, fname: str) -> tuple:
    """A ``shape`` argument (an int, a tuple/list of ints or symbolic sizes) as a tuple."""
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    result = []
    for d in dims:
        if isinstance(d, SymInt):
            result.append(em.as_size(d, fname))
            continue
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise NotImplementedError(f"{fname}: a shape entry of type {type(d).__name__} ({d!r})")
        result.append(em.as_size(int(d), fname))
    return tuple(result)


def _shape_of(em: EmitterCore, t: Tensor) -> tuple:
    return em.shape(t)


def fill(em: EmitterCore, shape: tuple, value, dtype) -> Tensor:
    """An array of ``shape`` whose every element is ``value`` (already of ``dtype``):
    a 0-d constant broadcast to the shape."""
    scalar = em.constant(np.asarray(value, dtype=dtype))
    if not shape:
        return scalar
    return em.emit_shaped("broadcast_to", scalar, shape=shape, dtype=promotion.ember_dtype(dtype))


def iota(em: EmitterCore, shape: tuple, axis: int, dtype, fname: str) -> Tensor:
    """``result[i0, i1, ...] = i_axis`` as ``dtype``."""
    if "iota" not in ops.OPS:
        raise NotImplementedError(f"{fname}: needs the ember.iota op, which this build of Ember lacks")
    return em.emit_shaped("iota", shape=shape, dtype=promotion.ember_dtype(dtype), axis=axis)


def _binary(em: EmitterCore, name: str, x: Tensor, value) -> Tensor:
    """``x <name> value`` for a trace-time scalar ``value`` (converted to ``x``'s dtype)."""
    return em.emit(name, x, fill(em, _shape_of(em, x), value, x.dtype))


def _fill_value(value, dtype: np.dtype, fname: str) -> np.ndarray:
    """A scalar fill value converted to ``dtype`` as ``np.copyto(..., casting="unsafe")``
    does (2.7 -> 2 for ints); what NumPy refuses or leaves undefined is left to NumPy."""
    if promotion.is_python_scalar(value) and type(value) is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise NotImplementedError(f"{fname}: Python int {value} is out of bounds for {dtype}")
    array = np.asarray(value)
    if array.ndim != 0 or array.dtype not in promotion.SUPPORTED:
        raise NotImplementedError(f"{fname}: fill value {value!r} (dtype {array.dtype}) is not supported")
    if array.dtype.kind == "c" and dtype.kind not in "cb":
        raise NotImplementedError(f"{fname}: complex fill value {value!r} into {dtype} (NumPy warns ComplexWarning)")
    if dtype.kind in "iu" and array.dtype.kind == "f":
        info = np.iinfo(dtype)
        if not (np.isfinite(array) and info.min <= float(array) < float(info.max) + 1):
            raise NotImplementedError(f"{fname}: casting {value} to {dtype} is undefined")
    with np.errstate(all="ignore"):
        return array.astype(dtype)


def _filled(em: EmitterCore, shape: tuple, fill_value, dtype: np.dtype, fname: str) -> Tensor:
    """``empty(shape, dtype)`` then ``copyto(result, fill_value, casting="unsafe")``."""
    if isinstance(fill_value, (list, tuple)):
        values = np.asarray(fill_value)
        if values.size > MAX_LITERAL or values.dtype not in promotion.SUPPORTED:
            raise NotImplementedError(f"{fname}: a fill value of {values.size} elements of {values.dtype}")
        fill_value = em.constant(values)
    if not isinstance(fill_value, Tensor):
        return fill(em, shape, _fill_value(fill_value, dtype, fname), dtype)
    fill_shape = em.shape(fill_value)
    fits = len(fill_shape) <= len(shape) and all(
        is_one(f) or em.equal_sizes(f, d) for f, d in zip(fill_shape[::-1], shape[::-1])
    )
    if not fits:
        raise ValueError(
            f"could not broadcast input array from shape {shape_text(fill_shape)} into shape {shape_text(shape)}"
        )
    return em.broadcast_to(em.cast(fill_value, dtype), shape)


def _prototype(em: EmitterCore, a, fname: str) -> tuple[tuple, np.dtype]:
    """Shape and dtype of a ``*_like`` prototype (a traced array or a Python literal)."""
    if isinstance(a, Tensor):
        return _shape_of(em, a), a.dtype
    if isinstance(a, (list, tuple)) and holds(a, Tensor):
        raise NotImplementedError(f"{fname}: a prototype that is a list of arrays")
    proto = np.asarray(a)
    return proto.shape, proto.dtype


# ----------------------------------------------------------------------------- fills


def full(em: EmitterCore, shape, fill_value, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    _no_like("np.full", like, device)
    _check_order(order, ("C",), "np.full")
    shape = _shape(em, shape, "np.full")
    if dtype is None:
        if isinstance(fill_value, Tensor):
            dtype = fill_value.dtype
        elif isinstance(fill_value, (list, tuple)) and holds(fill_value, Tensor):
            raise NotImplementedError("np.full: a fill value that is a list of arrays")
        else:
            dtype = np.asarray(fill_value).dtype
    dtype = _dtype(dtype, None, "np.full")
    return _filled(em, shape, fill_value, dtype, "np.full")


def zeros(em: EmitterCore, shape, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    _no_like("np.zeros", like, device)
    _check_order(order, ("C",), "np.zeros")
    dtype = _dtype(dtype, np.float64, "np.zeros")
    return fill(em, _shape(em, shape, "np.zeros"), 0, dtype)


def ones(em: EmitterCore, shape, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    _no_like("np.ones", like, device)
    _check_order(order, ("C",), "np.ones")
    dtype = _dtype(dtype, np.float64, "np.ones")
    return fill(em, _shape(em, shape, "np.ones"), 1, dtype)


def empty(em: EmitterCore, shape, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    """NumPy leaves the contents unspecified: Ember fills zeros (deterministic)."""
    _no_like("np.empty", like, device)
    _check_order(order, ("C",), "np.empty")
    dtype = _dtype(dtype, np.float64, "np.empty")
    return fill(em, _shape(em, shape, "np.empty"), 0, dtype)


# The result of a ``*_like`` is C-contiguous: NumPy's default order="K" keeps the
# prototype's layout, which for the C-contiguous arrays the graph makes is the same.
_LIKE_ORDERS = ("K", "A", "C")


def full_like(em: EmitterCore, a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    reject("np.full_like", device=(device, None))
    _check_order(order, _LIKE_ORDERS, "np.full_like")
    proto_shape, proto_dtype = _prototype(em, a, "np.full_like")
    target = proto_shape if shape is None else _shape(em, shape, "np.full_like")
    dtype = _dtype(dtype, proto_dtype, "np.full_like")
    return _filled(em, target, fill_value, dtype, "np.full_like")


def zeros_like(em: EmitterCore, a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(em, a, 0, dtype, order, shape, device, "np.zeros_like")


def ones_like(em: EmitterCore, a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(em, a, 1, dtype, order, shape, device, "np.ones_like")


def empty_like(em: EmitterCore, prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Contents unspecified in NumPy: zeros here."""
    return _like(em, prototype, 0, dtype, order, shape, device, "np.empty_like")


def _like(em, a, value, dtype, order, shape, device, fname):
    reject(fname, device=(device, None))
    _check_order(order, _LIKE_ORDERS, fname)
    proto_shape, proto_dtype = _prototype(em, a, fname)
    target = proto_shape if shape is None else _shape(em, shape, fname)
    dtype = _dtype(dtype, proto_dtype, fname)
    return fill(em, target, value, dtype)


# ----------------------------------------------------------------------------- ranges


def _scalar_argument(x, fname: str, what: str):
    if isinstance(x, Tensor):
        raise NotImplementedError(f"{fname}: {what} is a traced array (the result's size would depend on data)")
    if isinstance(x, SymInt):
        raise NotImplementedError(f"{fname}: {what} is a symbolic size")
    if not isinstance(x, (bool, int, float, np.bool_, np.integer, np.floating)):
        raise NotImplementedError(f"{fname}: {what}={x!r} of type {type(x).__name__}")
    if type(x) is int and not -(2**63) <= x < 2**63:
        raise NotImplementedError(f"{fname}: {what}={x} is outside the int64 range")
    if isinstance(x, (float, np.floating)) and not math.isfinite(x):
        raise NotImplementedError(f"{fname}: {what}={x} is not finite")
    return x


def _same_type_zero(x):
    return type(x)(0)


def arange(em: EmitterCore, *args, start=None, stop=None, step=None, dtype=None, device=None, like=None) -> Tensor:
    fname = "np.arange"
    _no_like(fname, like, device)
    if len(args) > 4:
        raise TypeError(f"arange() takes at most 4 positional arguments ({len(args)} given)")
    positional = dict(zip(("start", "stop", "step", "dtype"), args))
    for name in positional:
        if {"start": start, "stop": stop, "step": step, "dtype": dtype}[name] is not None:
            raise TypeError(f"arange() got multiple values for argument '{name}'")
    start = positional.get("start", start)
    stop = positional.get("stop", stop)
    step = positional.get("step", step)
    dtype = positional.get("dtype", dtype)
    if len(args) == 1 and stop is None:  # arange(stop)
        start, stop = None, start
    if stop is None:
        if start is None:
            raise TypeError("arange() requires stop to be specified.")
        start, stop = None, start  # arange(start=5): NumPy reads it as the stop
    start = 0 if start is None else start
    step = 1 if step is None else step
    if isinstance(stop, SymInt) and type(em.shape_env.specialize(start) if isinstance(start, SymInt) else start) is int:
        return _symbolic_arange(em, start, stop, step, dtype, fname)
    start, stop, step = (_scalar_argument(x, fname, n) for x, n in ((start, "start"), (stop, "stop"), (step, "step")))
    if step == 0:
        raise NotImplementedError(f"{fname}: step 0 (NumPy raises)")
    if dtype is None:  # NumPy's choice depends on the arguments' types only: ask it with zeros
        dtype = np.arange(_same_type_zero(start), _same_type_zero(stop), type(step)(1)).dtype
    dtype = _dtype(dtype, None, fname)
    if dtype.kind == "b":
        raise NotImplementedError(f"{fname}: a bool range")
    length = math.ceil(float((stop - start) / step))  # as NumPy: PyNumber ops, then ceil in double
    length = max(length, 0)
    # NumPy writes the first two elements from Python arithmetic on the arguments ...
    first = np.empty(2, dtype)
    with np.errstate(all="ignore"):
        first[0] = start
        first[1] = start + step
        delta = first[1] - first[0]  # ... and fills the rest with first[0] + i * delta
    shape = (length,)
    if length == 0:
        return fill(em, shape, 0, dtype)
    values = iota(em, shape, 0, dtype, fname)
    values = _binary(em, "add", _binary(em, "mul", values, delta), first[0])
    with np.errstate(all="ignore"):
        formula = [first[0] + np.asarray(i, dtype) * delta for i in range(min(length, 2))]
    for i in range(min(length, 2)):  # -0.0 + 0 * delta is +0.0; v0 + (v1 - v0) may round away from v1
        if formula[i].tobytes() != first[i : i + 1].tobytes():
            values = _set_element(em, values, 0, i, first[i], fname)
    return values


def _symbolic_arange(em: EmitterCore, start, stop: SymInt, step, dtype, fname: str) -> Tensor:
    """``np.arange(start, n, step)`` with a symbolic ``n`` and int ``start``/``step``: a
    symbolic length, ``start + i * step`` (exact in integers; in floats as NumPy's fill)."""
    start = em.shape_env.specialize(start)
    step = em.shape_env.specialize(step) if isinstance(step, SymInt) else step
    if type(step) is not int or step == 0:
        raise NotImplementedError(f"{fname}: a symbolic stop with step {step!r}")
    dtype = np.dtype(np.int64) if dtype is None else _dtype(dtype, None, fname)
    if dtype.kind not in "iuf":
        raise NotImplementedError(f"{fname}: a {dtype} range of symbolic length")
    span = stop - start if step > 0 else start - stop
    length = (span + abs(step) - 1) // abs(step)
    if not em.shape_env.evaluate(length >= 1):
        return fill(em, (0,), 0, dtype)
    values = iota(em, (em.as_size(length, fname),), 0, dtype, fname)
    if step != 1:
        values = _binary(em, "mul", values, np.asarray(step, dtype))
    return _binary(em, "add", values, np.asarray(start, dtype)) if start else values


def _set_element(em: EmitterCore, values: Tensor, axis: int, index: int, value, fname: str) -> Tensor:
    """``values`` with every element whose index along ``axis`` is ``index`` replaced by
    the scalar ``value``: ``select(iota == index, value, values)``."""
    shape = _shape_of(em, values)
    positions = iota(em, shape, axis, np.int64, fname)
    where = em.emit("cmp", positions, fill(em, shape, index, np.int64), predicate="eq")
    return em.emit("select", where, fill(em, shape, value, values.dtype), values)


# np.linspace of up to this many numbers is also computed by NumPy while tracing, its
# values known to the rules that read numbers (emitter.known_value)
KNOWN_LINSPACE_MAX = 1024


def linspace(
    em: EmitterCore, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None
) -> Tensor | tuple:
    fname = "np.linspace"
    reject(fname, device=(device, None))
    start, stop = _scalar_argument(start, fname, "start"), _scalar_argument(stop, fname, "stop")
    if isinstance(num, SymInt):
        raise NotImplementedError(f"{fname}: num is a symbolic size")
    try:
        num = operator.index(num)
    except TypeError as e:
        raise TypeError(f"'{type(num).__name__}' object cannot be interpreted as an integer") from e
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if axis not in (0, -1):
        raise np.exceptions.AxisError(axis, 1)
    endpoint = bool(endpoint)
    div = (num - 1) if endpoint else num

    conv = _array_converter(start, stop)  # what np.linspace itself calls
    start_a, stop_a = conv.as_arrays()
    dt = conv.result_type(ensure_inexact=True)
    promotion.ember_dtype(dt, fname)
    integer_dtype = dtype is not None and np.issubdtype(np.dtype(dtype), np.integer)
    result_dtype = _dtype(dtype, dt, fname)

    with np.errstate(all="ignore"):
        delta = np.subtract(stop_a, start_a, dtype=type(dt))
        y = iota(em, (num,), 0, dt, fname) if num > 0 else fill(em, (0,), 0, dt)
        if div > 0:
            step = delta / div
            if step == 0:  # denormal steps (gh-5437): divide first
                y = _binary(em, "mul", _binary(em, "div", y, np.asarray(div, dt)), delta)
            else:
                y = _binary(em, "mul", y, step)
        else:
            step = np.nan
            y = _binary(em, "mul", y, delta)
        # ``y += start``: the loop NumPy picks for (dt array, start) may be wider than dt.
        loop = np.add(np.zeros(1, dt), start_a).dtype
        promotion.ember_dtype(loop, fname)
        y = em.cast(_binary(em, "add", em.cast(y, loop), np.asarray(start_a).astype(loop)), dt)
        if endpoint and num > 1:
            y = _set_element(em, y, 0, num - 1, np.asarray(stop_a).astype(dt), fname)
    if integer_dtype:
        y = em.emit("floor", y)
    y = em.cast(y, result_dtype)
    if num <= KNOWN_LINSPACE_MAX:  # NumPy's own values, for rules that read numbers (a quantile's q)
        with np.errstate(all="ignore"):
            em.remember(y, np.linspace(start, stop, num, endpoint=endpoint, dtype=result_dtype))
    if retstep:
        return y, step
    return y


def eye(em: EmitterCore, N, M=None, k=0, dtype=float, order="C", *, device=None, like=None) -> Tensor:
    fname = "np.eye"
    _no_like(fname, like, device)
    _check_order(order, ("C",), fname)
    dtype = _dtype(dtype, np.float64, fname)
    M = N if M is None else M
    for name, value in (("N", N), ("M", M), ("k", k)):
        if isinstance(value, (SymInt, Tensor)):
            raise NotImplementedError(f"{fname}: {name} is not known while tracing")
    try:
        N, M, k = operator.index(N), operator.index(M), operator.index(k)
    except TypeError as e:
        raise NotImplementedError(f"{fname}: {e}") from None
    shape = _shape(em, (N, M), fname)
    if k >= M or -k >= N:  # no diagonal inside: all zeros (NumPy returns early too)
        return fill(em, shape, 0, dtype)
    rows = iota(em, shape, 0, np.int64, fname)
    cols = iota(em, shape, 1, np.int64, fname)
    diagonal = rows if k == 0 else _binary(em, "add", rows, k)
    return em.cast(em.emit("cmp", cols, diagonal, predicate="eq"), dtype)


def identity(em: EmitterCore, n, dtype=None, *, like=None) -> Tensor:
    _no_like("np.identity", like)
    return eye(em, n, dtype=_dtype(dtype, np.float64, "np.identity"))


# ----------------------------------------------------------------------------- copies, np.array


def copy(em: EmitterCore, a, order="K", subok=False) -> Tensor:
    """``np.copy(a)``: a new array of the same value (values are never shared in the graph)."""
    _check_order(order, _LIKE_ORDERS, "np.copy")
    if isinstance(a, Tensor):
        return a
    return _literal(em, a, None, "np.copy")


def copy_method(em: EmitterCore, self: Tensor, order="C") -> Tensor:
    _check_order(order, _LIKE_ORDERS, "copy")
    return self


def array(
    em: EmitterCore, object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, ndmax=0, like=None
) -> Tensor:
    fname = "np.array"
    _no_like(fname, like)
    reject(fname, ndmax=(ndmax, 0))
    _check_order(order, _LIKE_ORDERS + (None,), fname)
    result = _as_array(em, object, dtype, copy, fname)
    if not isinstance(ndmin, (int, np.integer)) or isinstance(ndmin, (bool, np.bool_)):
        raise NotImplementedError(f"{fname}: ndmin={ndmin!r}")
    if ndmin > result.ndim:
        result = em.emit("expand_dims", result, axes=tuple(range(ndmin - result.ndim)))
    return result


def asarray(em: EmitterCore, a, dtype=None, order=None, *, device=None, copy=None, like=None) -> Tensor:
    """``np.asarray(x)`` of an array is ``x`` itself (the same Tensor is returned)."""
    fname = "np.asarray"
    _no_like(fname, like, device)
    _check_order(order, _LIKE_ORDERS + (None,), fname)
    return _as_array(em, a, dtype, copy, fname)


def ascontiguousarray(em: EmitterCore, a, dtype=None, *, like=None) -> Tensor:
    """``np.ascontiguousarray(x)``: ``x``'s value (cast to ``dtype``). Whether NumPy hands
    back ``x`` itself (C-contiguous already) or a C-ordered copy is the tracer's
    question (``mutation.c_contiguous``): the value is the same either way."""
    fname = "np.ascontiguousarray"
    _no_like(fname, like)
    if not isinstance(a, Tensor):
        raise NotImplementedError(f"{fname} of a {type(a).__name__}")
    if a.ndim == 0:  # NumPy gives a (1,) view of it (or of a scalar's copy)
        raise NotImplementedError(f"{fname} of a 0-d array or a NumPy scalar")
    return em.cast(a, _dtype(dtype, a.dtype, fname))


def _as_array(em: EmitterCore, obj, dtype, copy, fname: str) -> Tensor:
    if copy not in (True, False, None):
        raise NotImplementedError(f"{fname}: copy={copy!r}")
    if isinstance(obj, Tensor):
        target = _dtype(dtype, obj.dtype, fname)
        if copy is False and target != obj.dtype:
            raise NotImplementedError(f"{fname}: copy=False with a dtype change (NumPy raises)")
        return em.cast(obj, target)
    if copy is False:
        raise NotImplementedError(f"{fname}: copy=False of a Python object (NumPy raises)")
    if isinstance(obj, (list, tuple)) and holds(obj, Tensor):
        return _stacked(em, obj, dtype, fname)
    return _literal(em, obj, dtype, fname)


def _literal(em: EmitterCore, obj, dtype, fname: str) -> Tensor:
    """A Python scalar, NumPy scalar or (nested) list/tuple of them: a small constant."""
    if holds(obj, SymInt):
        raise NotImplementedError(f"{fname}: a symbolic size as data")
    if not isinstance(obj, (bool, int, float, np.generic, list, tuple)):
        raise NotImplementedError(f"{fname}: an object of type {type(obj).__name__}")
    target = None if dtype is None else promotion.parse_dtype(dtype, fname)
    try:
        values = np.array(obj, dtype=target)
    except (ValueError, TypeError, OverflowError) as e:
        raise NotImplementedError(f"{fname}: NumPy refuses {obj!r} ({e})") from None
    promotion.ember_dtype(values.dtype, fname)
    if values.size > MAX_LITERAL:
        raise NotImplementedError(
            f"{fname}: a literal of {values.size} elements (constants are limited to {MAX_LITERAL})"
        )
    return em.constant(values)


def _stacked(em: EmitterCore, items, dtype, fname: str) -> Tensor:
    """``np.array([a, b, 1.0])`` of traced arrays (and scalars) of one shape: a stack.
    Dtype and shape are NumPy's: it is asked with zero-filled stand-ins of the items."""
    if any(isinstance(x, (list, tuple)) for x in items):
        raise NotImplementedError(f"{fname}: nested lists holding traced arrays")
    tensors = [x for x in items if isinstance(x, Tensor)]
    if any(t.type.dynamic_axes() for t in tensors):
        raise NotImplementedError(f"{fname}: a list of arrays with symbolic sizes")
    stand_ins = [np.broadcast_to(np.zeros((), x.dtype), x.shape) if isinstance(x, Tensor) else x for x in items]
    try:
        probe = np.array(stand_ins, dtype=None if dtype is None else promotion.parse_dtype(dtype, fname))
    except (ValueError, TypeError) as e:
        raise NotImplementedError(f"{fname}: NumPy refuses this list ({e})") from None
    promotion.ember_dtype(probe.dtype, fname)
    if probe.ndim != 1 + tensors[0].ndim:
        raise NotImplementedError(f"{fname}: a list of arrays of different shapes")
    parts = [em.cast(em.array(x, fname), probe.dtype) for x in items]
    return sh.stack(em, parts, axis=0)


# ----------------------------------------------------------------------------- the table rows

# (keys, rule, Ember ops emitted, dtype rule), as numpy_semantics._ROWS.
ROWS = [
    ((np.zeros,), zeros, "constant, broadcast_to", "given (float64)"),
    ((np.ones,), ones, "constant, broadcast_to", "given (float64)"),
    ((np.empty,), empty, "constant, broadcast_to (zeros)", "given (float64)"),
    ((np.full,), full, "constant|cast, broadcast_to", "given|fill value"),
    ((np.zeros_like,), zeros_like, "constant, broadcast_to", "same|given"),
    ((np.ones_like,), ones_like, "constant, broadcast_to", "same|given"),
    ((np.empty_like,), empty_like, "constant, broadcast_to (zeros)", "same|given"),
    ((np.full_like,), full_like, "constant|cast, broadcast_to", "same|given"),
    ((np.arange,), arange, "iota, mul, add (, select)", "arguments' types|given"),
    ((np.linspace,), linspace, "iota, mul, add, select (, floor, cast)", "result_type inexact|given"),
    ((np.eye,), eye, "iota, add, cmp, cast", "given (float64)"),
    ((np.identity,), identity, "iota, cmp, cast", "given (float64)"),
    ((np.copy,), copy, "- (a new array of the same value) | constant", "same"),
    (("copy",), copy_method, "-", "same"),
    ((np.array,), array, "cast, expand_dims | constant | stack", "same|given|literal"),
    ((np.asarray,), asarray, "cast | constant | stack", "same|given|literal"),
    ((np.ascontiguousarray,), ascontiguousarray, "- (the array itself or a C-ordered copy) | cast", "same|given"),
]

# NumPy functions whose 0-d results are 0-d arrays, not NumPy scalars.
ARRAY_RESULTS = {keys[0] for keys, *_ in ROWS if keys[0] != "copy"}
