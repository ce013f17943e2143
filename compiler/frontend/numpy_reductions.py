"""Statistics, arg-reductions, truth reductions, NaN-ignoring reductions and scans.

Every rule here is built from Ember's existing ops (``sum``/``max``/``min`` reductions,
elementwise arithmetic through ``apply_ufunc`` so that promotion stays NumPy's, ``cmp``,
``select``, ``iota``, ``slice``, ``concatenate``, ``cast``); no op of its own. Each follows
the steps of NumPy's own implementation (``numpy/_core/_methods.py``,
``numpy/lib/_nanfunctions_impl.py``, ``np.average``) so that result dtypes and, where the
arithmetic is the same, the values are NumPy's:

* ``std``/``var``: the two-pass formula: ``mean = sum(x, keepdims) / N`` (a strong intp
  ``N``: a float32 sum is divided in float64 and cast back, as NumPy does), then the sum
  of squared deviations divided by ``max(N - ddof, 0)``. Integers and bools in float64.
* ``argmax``/``argmin``: the ``max`` along the axis compared (``cmp eq``) with the input
  broadcast back, or-ed with ``x != x`` (NaN: NumPy returns the first NaN's index, and a
  NaN ``max`` makes no ``eq`` hit); ``select(hit, iota, INT64_MAX)`` and ``min`` give the
  first such index (int64). A long 1-d one searches blocks first (``_blocked_arg``).
* ``any``/``all``: ``cast`` to bool (truthiness: NaN is true, ``-0.0`` false), then bool
  ``max``/``min`` (their identities False/True give NumPy's empty answers).
* ``nan*``: ``select(x != x, identity, x)`` first; ``nanmax``/``nanmin`` put NaN back
  where a whole slice was NaN; ``nanmean`` divides by the count of non-NaN elements.
* ``ufunc.reduce``: the reduction it names (``np.add.reduce`` is ``np.sum`` along axis 0).
* ``cumsum``/``cumprod`` and ``ufunc.accumulate`` (``add``, ``multiply``, ``maximum``,
  ``minimum``, ``fmax``, ``fmin``: a running maximum is how a drawdown or an envelope is
  written): the ``scan`` op, NumPy's sequential loop (``passes/lower_scan.py``): the same
  values bit for bit, integers wrapping as NumPy's do, any size symbolic.

Errors NumPy raises on the traced shapes (an empty ``argmax``, ``nanmax`` or ``ptp``, a
bad axis, weights of the wrong shape) are raised with NumPy's exception and message.
One error depends on the data and is not raised: ``np.average`` whose weights sum to 0
(NumPy: ``ZeroDivisionError``; compiled: the division's inf/NaN).
"""

from __future__ import annotations

import math

import numpy as np

from compiler.dialects.ops import SCAN_KINDS
from compiler.frontend import numpy_creation as cr
from compiler.frontend import numpy_indexing as ix
from compiler.frontend import numpy_shapes as sh
from compiler.frontend import promotion
from compiler.frontend.numpy_core import NOVALUE, EmitterCore, Tensor, normalize_axes, normalize_axis, reject
from compiler.frontend.numpy_elementwise import apply_ufunc, where
from compiler.frontend.symbolic_shapes import SymInt

INTP = np.dtype(np.intp)


def _keepdims(keepdims) -> bool:
    return False if keepdims is NOVALUE else bool(keepdims)


def _is_zero(d) -> bool:
    return not isinstance(d, SymInt) and d == 0  # a symbolic size is never 0


def _count(em: EmitterCore, a: Tensor, axes: tuple):
    """How many elements each reduction sees: an int, or a SymInt."""
    return em.shape_env.normalize(math.prod(em.shape(a)[i] for i in axes))


def _as_strong(em: EmitterCore, value) -> Tensor | np.generic:
    """A count as NumPy's strong ``np.intp`` scalar: a 0-d int64 tensor when symbolic."""
    if isinstance(value, SymInt):
        return em.wrap(em.b.from_index(em.size_value(value)))
    return INTP.type(value)


def _reduce(em: EmitterCore, name: str, t: Tensor, axes: tuple, keepdims: bool, dtype=None) -> Tensor:
    """Ember's reduction ``name`` of ``t`` cast to ``dtype`` (if given): no checks."""
    if dtype is not None:
        t = em.cast(t, dtype)
    return em.emit(name, t, axes=axes, keepdims=keepdims)


def _isnan(em: EmitterCore, t: Tensor) -> Tensor:
    return em.emit("cmp", t, t, predicate="ne")  # only NaN differs from itself


def _fill_nan(em: EmitterCore, t: Tensor, value) -> Tensor:
    """``t`` with each NaN replaced by ``value`` (floats only)."""
    return em.emit("select", _isnan(em, t), em.scalar_like(value, t.dtype, t), t)


def _float_dtype(dtype, fname: str) -> np.dtype | None:
    if dtype is None:
        return None
    parsed = promotion.parse_dtype(dtype, fname)
    if parsed.kind != "f":
        raise NotImplementedError(f"{fname}: dtype={parsed} (an integer or bool accumulator) is not supported")
    return parsed


# ----------------------------------------------------------------------------- std, var


def _var(em: EmitterCore, fname: str, a, axis, dtype, out, ddof, keepdims, where, mean, correction) -> Tensor:
    where = NOVALUE if where is True else where  # the array method's default
    reject(fname, out=(out, None), where=(where, NOVALUE), mean=(mean, NOVALUE))
    if correction is not NOVALUE:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    if isinstance(ddof, SymInt):
        ddof = ddof.env.specialize(ddof)
    if isinstance(ddof, (bool, np.bool_)) or not isinstance(ddof, (int, float, np.integer, np.floating)):
        raise NotImplementedError(f"{fname}: ddof={ddof!r} is not supported (an int or a float)")
    a = em.array(a, fname)
    axes = normalize_axes(axis, a.ndim)
    keepdims = _keepdims(keepdims)
    dtype = _float_dtype(dtype, fname)
    if dtype is None and a.dtype.kind in "biu":
        dtype = np.dtype(np.float64)
    count = _count(em, a, axes)
    # mean = sum(a, dtype, keepdims=True) / intp(N), cast back (NumPy divides into the sum's buffer)
    total = _reduce(em, "sum", a, axes, True, dtype)
    arrmean = em.cast(apply_ufunc(em, np.true_divide, total, _as_strong(em, count)), total.dtype)
    deviation = apply_ufunc(em, np.subtract, a, arrmean)
    squares = apply_ufunc(em, np.square, deviation)
    ret = _reduce(em, "sum", squares, axes, keepdims, dtype)
    if isinstance(count, SymInt):
        dof = apply_ufunc(em, np.maximum, apply_ufunc(em, np.subtract, _as_strong(em, count), ddof), 0)
    else:
        dof = np.maximum(INTP.type(count) - ddof, 0)
    return em.cast(apply_ufunc(em, np.true_divide, ret, dof), ret.dtype)


def var(
    em,
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=NOVALUE,
    *,
    where=NOVALUE,
    mean=NOVALUE,
    correction=NOVALUE,
):
    return _var(em, "np.var", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


def std(
    em,
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=NOVALUE,
    *,
    where=NOVALUE,
    mean=NOVALUE,
    correction=NOVALUE,
):
    return apply_ufunc(em, np.sqrt, _var(em, "np.std", a, axis, dtype, out, ddof, keepdims, where, mean, correction))


# ----------------------------------------------------------------------------- argmax, argmin


def _arg(em: EmitterCore, name: str, a, axis, out, keepdims) -> Tensor:
    fname = f"np.arg{name}"
    reject(fname, out=(out, None))
    a = em.array(a, fname)
    keepdims = _keepdims(keepdims)
    if axis is None:
        flat = sh.reshape(em, a, -1)
        result = _arg(em, name, flat, 0, None, keepdims)
        return sh.reshape(em, result, (1,) * a.ndim) if keepdims else result
    if isinstance(axis, (tuple, list)):
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    axis = normalize_axis(axis, a.ndim)
    shape = em.shape(a)
    if _is_zero(shape[axis]):
        raise ValueError(f"attempt to get arg{name} of an empty sequence")
    if a.ndim == 1 and em.shape_env.evaluate(shape[0] >= ARG_BLOCKED_MIN):  # guarded where symbolic
        found = _blocked_arg(em, name, a, shape[0])
        return sh.reshape(em, found, (1,)) if keepdims else found
    extreme = em.broadcast_to(em.emit(name, a, axes=(axis,), keepdims=True), shape)
    hit = em.emit("cmp", a, extreme, predicate="eq")
    if a.dtype.kind == "f":  # a NaN makes the extreme NaN (no eq hit): the first NaN wins
        hit = em.emit("or", hit, _isnan(em, a))
    index = cr.iota(em, shape, axis, np.int64, fname)
    never = em.scalar_like(np.iinfo(np.int64).max, np.int64, index)
    return em.emit("min", em.emit("select", hit, index, never), axes=(axis,), keepdims=keepdims)


# a 1-d argmax/argmin of at least ARG_BLOCKED_MIN elements reduces rows of ARG_BLOCK
# first (_blocked_arg). Below, the two passes are faster: 2048 float64 1.1 us against
# 2.2 blocked; from 16384 the blocks win (1M: 0.23 ms -> 0.06, NumPy 0.135).
ARG_BLOCK = 1024
ARG_BLOCKED_MIN = 16 * ARG_BLOCK


def _blocked_arg(em: EmitterCore, name: str, a: Tensor, n) -> Tensor:
    """``np.arg<name>`` of a long 1-d array in one pass that runs on every thread: the
    ``k = n // ARG_BLOCK`` whole blocks as rows, their extremes a row reduction (parallel
    over the rows, vectorized along them); the first block holding the extreme (or a NaN)
    found among those ``k`` values, and its element among the block's (a gather); the
    last ``ARG_BLOCK`` elements (the rest, overlapping the blocks) searched alike, and
    taken only where their extreme is beyond the blocks' (or a NaN the blocks lack), so
    ties and NaN go to the first, as NumPy's. Two passes over the whole array, on one
    thread (the extreme, then its first place) had made ``np.argmax`` of 1M float64 run
    at 0.58x NumPy's speed; now 2.2x (the block extremes' loop tiled: ``ember-tile``'s
    ``_stranded``)."""
    k = n // ARG_BLOCK
    # the whole blocks, sliced as the op (x[:k * ARG_BLOCK] would guard whether n is a multiple)
    whole = em.emit_shaped("slice", a, shape=(k * ARG_BLOCK,), dtype=a.type.dtype, starts=(0,), steps=(1,))
    blocks = sh.reshape(em, whole, (k, ARG_BLOCK))
    block_extremes = em.emit(name, blocks, axes=(1,), keepdims=False)
    block = _arg(em, name, block_extremes, 0, None, False)
    start = apply_ufunc(em, np.multiply, block, ARG_BLOCK)
    inside = apply_ufunc(em, np.add, start, cr.iota(em, (ARG_BLOCK,), 0, np.int64, f"np.arg{name}"))
    found = apply_ufunc(em, np.add, start, _arg(em, name, ix.take(em, a, inside, mode="clip"), 0, None, False))
    tail = ix.getitem(em, a, slice(-ARG_BLOCK, None))
    in_tail = apply_ufunc(em, np.add, _arg(em, name, tail, 0, None, False), n - ARG_BLOCK)
    blocks_value = em.emit(name, block_extremes, axes=(0,), keepdims=False)
    tail_value = em.emit(name, tail, axes=(0,), keepdims=False)
    beyond = em.emit("cmp", tail_value, blocks_value, predicate="gt" if name == "max" else "lt")
    if a.dtype.kind == "f":  # a NaN in the tail only
        number = em.emit("cmp", blocks_value, blocks_value, predicate="eq")
        beyond = em.emit("or", beyond, em.emit("and", _isnan(em, tail_value), number))
    return em.emit("select", beyond, in_tail, found)


def argmax(em, a, axis=None, out=None, *, keepdims=NOVALUE):
    return _arg(em, "max", a, axis, out, keepdims)


def argmin(em, a, axis=None, out=None, *, keepdims=NOVALUE):
    return _arg(em, "min", a, axis, out, keepdims)


# ----------------------------------------------------------------------------- any, all, count_nonzero


def _truth(em: EmitterCore, name: str, a, axis, out, keepdims, where) -> Tensor:
    fname = f"np.{'any' if name == 'max' else 'all'}"
    reject(fname, out=(out, None), where=(NOVALUE if where is True else where, NOVALUE))
    a = em.array(a, fname)
    axes, keepdims = normalize_axes(axis, a.ndim), _keepdims(keepdims)
    shape = em.shape(a)
    if any(_is_zero(shape[i]) for i in axes):  # nothing to reduce (Ember's max/min need an element)
        kept = tuple(1 if i in axes else d for i, d in enumerate(shape) if keepdims or i not in axes)
        return em.broadcast_to(em.constant(np.asarray(name == "min")), kept)
    return _reduce(em, name, em.cast(a, np.bool_), axes, keepdims)


def any_(em, a, axis=None, out=None, keepdims=NOVALUE, *, where=NOVALUE):
    return _truth(em, "max", a, axis, out, keepdims, where)


def all_(em, a, axis=None, out=None, keepdims=NOVALUE, *, where=NOVALUE):
    return _truth(em, "min", a, axis, out, keepdims, where)


def count_nonzero(em, a, axis=None, *, keepdims=False):
    a = em.array(a, "np.count_nonzero")
    axes = normalize_axes(axis, a.ndim)
    return _reduce(em, "sum", em.cast(a, np.bool_), axes, bool(keepdims), INTP)


# ----------------------------------------------------------------------------- nan-reductions


def nansum(em, a, axis=None, dtype=None, out=None, keepdims=NOVALUE, initial=NOVALUE, where=NOVALUE):
    a = em.array(a, "np.nansum")
    if a.dtype.kind == "f":
        a = _fill_nan(em, a, 0.0)
    return sh.sum_(em, a, axis, dtype, out, keepdims, initial, where)


def nanmean(em, a, axis=None, dtype=None, out=None, keepdims=NOVALUE, *, where=NOVALUE):
    a = em.array(a, "np.nanmean")
    if a.dtype.kind != "f":
        return sh.mean(em, a, axis, dtype, out, keepdims, where=where)
    if dtype is not None and not issubclass(np.dtype(dtype).type, np.inexact):
        raise TypeError("If a is inexact, then dtype must be inexact")
    reject("np.nanmean", out=(out, None), where=(where, NOVALUE))
    axes = normalize_axes(axis, a.ndim)
    keepdims = _keepdims(keepdims)
    dtype = _float_dtype(dtype, "np.nanmean")
    valid = em.emit("logical_not", _isnan(em, a))
    count = _reduce(em, "sum", valid, axes, keepdims, INTP)
    total = _reduce(em, "sum", _fill_nan(em, a, 0.0), axes, keepdims, dtype)
    return em.cast(apply_ufunc(em, np.true_divide, total, count), total.dtype)  # 0/0: NaN, as NumPy


def _nan_extreme(em: EmitterCore, name: str, a, axis, out, keepdims, initial, where) -> Tensor:
    ufunc = "fmax" if name == "max" else "fmin"
    fname = f"np.nan{name}"
    reject(fname, out=(out, None), initial=(initial, NOVALUE), where=(where, NOVALUE))
    a = em.array(a, fname)
    axes = normalize_axes(axis, a.ndim)
    keepdims = _keepdims(keepdims)
    if any(_is_zero(em.shape(a)[i]) for i in axes):
        raise ValueError(f"zero-size array to reduction operation {ufunc} which has no identity")
    if a.dtype.kind != "f":
        return _reduce(em, name, a, axes, keepdims)
    isnan = _isnan(em, a)
    ignored = em.emit("select", isnan, em.scalar_like(-np.inf if name == "max" else np.inf, a.dtype, a), a)
    result = _reduce(em, name, ignored, axes, keepdims)
    all_nan = _reduce(em, "min", isnan, axes, keepdims)  # a slice of NaNs only: NaN
    return em.emit("select", all_nan, em.scalar_like(np.nan, a.dtype, result), result)


def nanmax(em, a, axis=None, out=None, keepdims=NOVALUE, initial=NOVALUE, where=NOVALUE):
    return _nan_extreme(em, "max", a, axis, out, keepdims, initial, where)


def nanmin(em, a, axis=None, out=None, keepdims=NOVALUE, initial=NOVALUE, where=NOVALUE):
    return _nan_extreme(em, "min", a, axis, out, keepdims, initial, where)


# ----------------------------------------------------------------------------- ptp, average


def ptp(em, a, axis=None, out=None, keepdims=NOVALUE):
    reject("np.ptp", out=(out, None))
    high = sh.max_(em, a, axis, None, keepdims)
    low = sh.min_(em, a, axis, None, keepdims)
    return apply_ufunc(em, np.subtract, high, low)  # bool: NumPy's boolean-subtract TypeError


def average(em, a, axis=None, weights=None, returned=False, *, keepdims=NOVALUE):
    if returned is not False:
        raise NotImplementedError("np.average: returned=True (a tuple result) is not supported")
    a = em.array(a, "np.average")
    if axis is not None:  # NumPy's normalize_axis_tuple: the order given is kept (for the weights)
        axis = tuple(normalize_axis(i, a.ndim) for i in (axis if isinstance(axis, (tuple, list)) else (axis,)))
        if len(set(axis)) != len(axis):
            raise ValueError("repeated axis in `axis` argument")
    if weights is None:
        return sh.mean(em, a, axis, None, None, keepdims)
    w = em.array(weights, "np.average")
    shape, wshape = em.shape(a), em.shape(w)
    if len(shape) != len(wshape) or not all(em.equal_sizes(x, y) for x, y in zip(shape, wshape)):
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        wanted = tuple(shape[i] for i in axis)
        if len(wshape) != len(wanted) or not all(em.equal_sizes(x, y) for x, y in zip(wshape, wanted)):
            raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
        w = sh.transpose(em, w, tuple(int(i) for i in np.argsort(axis)))
        w = sh.reshape(em, w, tuple(s if i in axis else 1 for i, s in enumerate(shape)))
    result_dtype = np.result_type(a.dtype, w.dtype, *(["f8"] if a.dtype.kind in "biu" else []))
    promotion.ember_dtype(result_dtype, "np.average")
    axes, keep = normalize_axes(axis, a.ndim), _keepdims(keepdims)
    scale = _reduce(em, "sum", w, axes, keep, result_dtype)
    total = _reduce(
        em, "sum", apply_ufunc(em, np.multiply, em.cast(a, result_dtype), em.cast(w, result_dtype)), axes, keep
    )
    return apply_ufunc(em, np.true_divide, total, scale)  # weights summing to 0: inf/NaN, not NumPy's error


# ----------------------------------------------------------------------------- cumsum, cumprod, accumulate

# ufunc -> the scan's kind; fmax/fmin of integers are maximum/minimum (nothing is NaN)
_SCAN_KINDS = {ufunc: kind for kind, ufunc in SCAN_KINDS.items()}


def _scan(em: EmitterCore, ufunc: np.ufunc, a, axis, dtype, out, fname: str) -> Tensor:
    reject(fname, out=(out, None))
    a = em.array(a, fname)
    if axis is None:
        a = sh.reshape(em, a, -1)
        axis = 0
    axis = normalize_axis(axis, a.ndim)
    kind = _SCAN_KINDS[ufunc]
    if kind in ("sum", "prod"):
        y = em.cast(a, promotion.reduction_dtype(kind, a.dtype, dtype))
    else:
        y = em.cast(a, a.dtype if dtype is None else promotion.parse_dtype(dtype, fname))
        if y.dtype.kind != "f":
            kind = kind.removeprefix("f")
    if any(_is_zero(d) for d in em.shape(y)):
        return y  # no element: nothing to scan
    return em.emit("scan", y, axis=axis, kind=kind)


def cumsum(em, a, axis=None, dtype=None, out=None):
    return _scan(em, np.add, a, axis, dtype, out, "np.cumsum")


def cumprod(em, a, axis=None, dtype=None, out=None):
    return _scan(em, np.multiply, a, axis, dtype, out, "np.cumprod")


def _nan_scan(ufunc: np.ufunc, neutral: int):
    fname = f"np.nan{'cumsum' if ufunc is np.add else 'cumprod'}"

    def nan_scan(em, a, axis=None, dtype=None, out=None):
        """NumPy's ``nancumsum``/``nancumprod``: NaN replaced by 0 (1), then the scan."""
        a = em.array(a, fname)
        if a.dtype.kind == "c":
            raise NotImplementedError(f"{fname} of complex values")
        if a.dtype.kind == "f":
            a = where(em, apply_ufunc(em, np.isnan, a), cr.fill(em, (), neutral, a.dtype), a)
        return _scan(em, ufunc, a, axis, dtype, out, fname)

    return nan_scan


def _cumulative(ufunc: np.ufunc, initial: int):
    fname = f"np.cumulative_{'sum' if ufunc is np.add else 'prod'}"

    def cumulative(em, x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        """NumPy 2's ``cumulative_sum``/``cumulative_prod``: the scan along ``axis`` (which a
        1-d array may leave out), ``include_initial`` putting 0 (1) first."""
        x = em.array(x, fname)
        if axis is None:
            if x.ndim != 1:
                raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
            axis = 0
        y = _scan(em, ufunc, x, axis, dtype, out, fname)
        if not include_initial:
            return y
        axis = normalize_axis(axis, x.ndim)
        shape = list(em.shape(y))
        shape[axis] = 1
        first = cr.fill(em, tuple(shape), initial, y.dtype)
        return sh.concatenate(em, [first, y], axis=axis)

    return cumulative


def _accumulate(ufunc: np.ufunc):
    fname = f"np.{ufunc.__name__}.accumulate"

    def accumulate(em, array, axis=0, dtype=None, out=None):
        """The running ``ufunc`` along ``axis`` (0 unless given), NumPy's sequential loop:
        ``add``/``multiply`` as ``cumsum``/``cumprod``, ``maximum``/``minimum`` NaN-propagating,
        ``fmax``/``fmin`` NaN-skipping, in the array's dtype (or ``dtype``)."""
        a = em.array(array, fname)
        if a.ndim == 0:
            raise TypeError("cannot accumulate on a scalar")
        if axis is None and a.ndim > 1:
            raise ValueError("accumulate does not allow multiple axes")
        return _scan(em, ufunc, a, axis, dtype, out, fname)

    accumulate.__name__ = accumulate.__qualname__ = f"{ufunc.__name__}_accumulate"
    return accumulate


# ----------------------------------------------------------------------------- ufunc.reduce


def _ufunc_reduce(ufunc: np.ufunc):
    """``ufunc.reduce`` as the reduction it is (``np.add.reduce`` is ``np.sum``...), with
    ``axis=0`` unless given, as every ufunc's reduce."""
    fname = f"np.{ufunc.__name__}.reduce"
    typed = {np.add: sh.sum_, np.multiply: sh.prod}.get(ufunc)
    untyped = {
        np.maximum: sh.max_,
        np.minimum: sh.min_,
        np.fmax: nanmax,
        np.fmin: nanmin,
        np.logical_or: any_,
        np.logical_and: all_,
    }.get(ufunc)

    def reduce(em, array, axis=0, dtype=None, out=None, keepdims=False):
        """The reduction of ``array`` along ``axis`` (0 unless given; None: all axes):
        ``add``/``multiply`` as ``np.sum``/``np.prod`` (their dtypes), ``maximum``/``minimum``
        as ``np.max``/``np.min``, ``fmax``/``fmin`` as ``np.nanmax``/``np.nanmin``,
        ``logical_or``/``logical_and`` as ``np.any``/``np.all``."""
        reject(fname, out=(out, None))
        if isinstance(array, (list, tuple)) and any(isinstance(item, Tensor) for item in array):
            array = sh.stack(em, list(array))  # np.maximum.reduce([a, b, c]): NumPy stacks them
        a = em.array(array, fname)
        if typed is not None:
            return typed(em, a, axis, dtype, keepdims=bool(keepdims))
        reject(fname, dtype=(dtype, None))
        return untyped(em, a, axis, keepdims=bool(keepdims))

    reduce.__name__ = reduce.__qualname__ = f"{ufunc.__name__}_reduce"
    return reduce


# (keys, rule, Ember ops emitted, dtype rule), as numpy_semantics._ROWS.
ROWS: list = [
    ((np.var, "var"), var, "cast, sum, div, sub, mul, maximum", "reduce (ints: float64)"),
    ((np.std, "std"), std, "cast, sum, div, sub, mul, maximum, sqrt", "reduce (ints: float64)"),
    ((np.argmax, "argmax"), argmax, "max, cmp, or, iota, select, min (+reshape)", "int64"),
    ((np.argmin, "argmin"), argmin, "min, cmp, or, iota, select, min (+reshape)", "int64"),
    ((np.any, "any"), any_, "cast, max", "bool"),
    ((np.all, "all"), all_, "cast, min", "bool"),
    ((np.count_nonzero,), count_nonzero, "cast, sum", "int64"),
    ((np.nansum,), nansum, "cmp, select, cast, sum", "reduce"),
    ((np.nanmean,), nanmean, "cmp, select, logical_not, cast, sum, div", "reduce"),
    ((np.nanmax,), nanmax, "cmp, select, max, min", "same"),
    ((np.nanmin,), nanmin, "cmp, select, min", "same"),
    ((np.ptp,), ptp, "max, min, sub", "same"),
    ((np.average,), average, "cast, mul, sum, div | mean", "result_type (ints: float64)"),
    ((np.cumsum, "cumsum"), cumsum, "cast, scan", "reduce"),
    ((np.cumprod, "cumprod"), cumprod, "cast, scan", "reduce"),
    ((np.nancumsum,), _nan_scan(np.add, 0), "cmp ne, select, cast, scan", "reduce"),
    ((np.nancumprod,), _nan_scan(np.multiply, 1), "cmp ne, select, cast, scan", "reduce"),
    ((np.cumulative_sum,), _cumulative(np.add, 0), "cast, scan (+concatenate)", "reduce"),
    ((np.cumulative_prod,), _cumulative(np.multiply, 1), "cast, scan (+concatenate)", "reduce"),
    *(
        ((ufunc.accumulate,), _accumulate(ufunc), "cast, scan", "reduce" if ufunc in (np.add, np.multiply) else "same")
        for ufunc in _SCAN_KINDS
    ),
    *(
        ((ufunc.reduce,), _ufunc_reduce(ufunc), ops, dtypes)
        for ufunc, ops, dtypes in (
            (np.add, "cast, sum", "reduce"),
            (np.multiply, "cast, prod", "reduce"),
            (np.maximum, "max", "same"),
            (np.minimum, "min", "same"),
            (np.fmax, "cmp, select, max, min", "same"),
            (np.fmin, "cmp, select, min", "same"),
            (np.logical_or, "cast, max", "bool"),
            (np.logical_and, "cast, min", "bool"),
        )
    ),
]

# Array methods this module answers (``x.name(...)`` with the array first); "argmax",
# "argmin", "any" and "all" are listed in numpy_semantics.ARRAY_METHODS already, and
# NumPy 2 has no ``ndarray.ptp``.
METHODS: tuple = ("std", "var", "cumsum", "cumprod")

# NumPy functions whose 0-d results are 0-d arrays, not NumPy scalars (none: a scan's
# result is never 0-d, the others give NumPy scalars).
ARRAY_RESULTS: set = set()
