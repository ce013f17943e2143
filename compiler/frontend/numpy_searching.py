"""Where values stand among others: ``np.searchsorted``, ``np.digitize``, ``np.isin``,
``np.interp``.

A sorted array of up to ``SEARCH_MAX`` elements is searched by counting: the insertion
point of ``v`` in a sorted ``a`` is the number of elements of ``a`` before it (``a[k] <
v``, or ``<=`` for ``side="right"``, in NumPy's sort order, NaN last), one comparison per
element of ``a`` in a reduction the loops vectorize, where a binary search would read
``a`` at data-dependent places, step after step. NumPy's binary search gives that count
only where ``a`` is sorted, which NumPy never checks: an unsorted ``a`` sends the call to
CPython (a run-time check). ``np.isin`` against a short list of values compares with each
of them, as NumPy's own loop for short lists does.
"""

from __future__ import annotations

import numpy as np

from compiler.frontend import numpy_shapes as sh
from compiler.frontend.numpy_core import EmitterCore, Tensor, holds
from compiler.frontend.numpy_elementwise import apply_ufunc, where
from compiler.frontend.numpy_indexing import elements, getitem, neighbours
from compiler.frontend.symbolic_shapes import SymInt

SEARCH_MAX = 256  # elements of a sorted array searched by counting (more: CPython)
ISIN_MAX = 64  # values np.isin compares with one by one (more: CPython)
ISIN_TRACED_MAX = 16  # ... when they are an array of the traced function's


def searchsorted(em: EmitterCore, a, v, side="left", sorter=None) -> Tensor:
    """The insertion points of ``v`` in the sorted 1-d ``a`` (int64), left or right of
    equal elements, compared in the dtype ``a`` and ``v`` promote to (``v``'s Python
    numbers as NumPy arrays them: a float is float64), NaN after every number."""
    fname = "np.searchsorted"
    if sorter is not None:
        raise NotImplementedError(f"{fname}: argument sorter= is not supported")
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    a, v = _sorted_operand(em, a, fname), em.array(v, fname)
    _check_sorted(em, a)
    return _count_before(em, a, v, side)


def digitize(em: EmitterCore, x, bins, right=False) -> Tensor:
    """The bin of each ``x`` (int64): ``np.searchsorted`` of increasing ``bins``
    (``right=False``: the count of edges at or below ``x``), or the count from the end
    of decreasing ones. Bins neither increasing nor decreasing, or holding a NaN, run in
    CPython (its ``ValueError``, or NumPy's own order for NaN), by a run-time check."""
    fname = "np.digitize"
    x, bins = em.array(x, fname), _sorted_operand(em, bins, fname)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    side = "left" if right else "right"
    count = _count_before(em, bins, x, side)
    (n,) = em.shape(bins)
    if n < 2:
        return count
    first, rest = neighbours(em, bins)
    increasing = _all(em, apply_ufunc(em, np.less_equal, first, rest))
    decreasing = _all(em, apply_ufunc(em, np.greater_equal, first, rest))
    em.add_check(em.emit("logical_not", em.emit("or", increasing, decreasing)))  # neither, or a NaN
    from_end = apply_ufunc(em, np.subtract, n, count)
    return em.emit("select", em.broadcast_to(increasing, em.shape(count)), count, from_end)


def isin(em: EmitterCore, element, test_elements, assume_unique=False, invert=False, *, kind=None) -> Tensor:
    """Whether each element equals one of ``test_elements`` (a list or array known while
    tracing, up to ``ISIN_MAX`` distinct values): compared with each value in turn, as
    NumPy's loop for short lists compares, in the dtype the two promote to."""
    fname = "np.isin"
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    x = em.array(element, fname)
    if not isinstance(test_elements, Tensor) and holds(test_elements, (Tensor, SymInt)):
        raise NotImplementedError(f"{fname}: test_elements computed while tracing")
    if isinstance(test_elements, Tensor):  # np.array([...]) in the function: its elements
        values = elements(em, test_elements, ISIN_TRACED_MAX, f"{fname}: test_elements")
        kinds = {test_elements.dtype.kind}
    else:
        known = np.asarray(test_elements)
        values, kinds = list(np.unique(known.ravel())), {known.dtype.kind}
    if kind == "table" and not (x.dtype.kind in "biu" and kinds <= set("biu")):
        raise ValueError(
            "The 'table' method is only supported for boolean or integer arrays. Please select 'sort' or None for kind."
        )
    if len(values) > ISIN_MAX or not kinds <= set("biufc"):
        raise NotImplementedError(f"{fname}: more than {ISIN_MAX} test elements, or not numbers")
    found = em.broadcast_to(em.constant(np.asarray(False)), em.shape(x))
    for value in values:  # NumPy scalars: compared as its loop compares (strong)
        found = em.emit("or", found, apply_ufunc(em, np.equal, x, value))
    return em.emit("logical_not", found) if invert else found


def interp(em: EmitterCore, x, xp, fp, left=None, right=None, period=None) -> Tensor:
    """``np.interp`` of float64 data: NumPy's C loop step for step, each value's interval
    ``j`` (the number of ``xp`` at or below it, less one) found by counting in the sorted
    ``xp``; ``fp[j] + slope * (x - xp[j])``, tried from ``j + 1`` where that is NaN, ``fp[j]``
    where ``x`` is ``xp[j]`` or at the last point, ``left``/``right`` (``fp``'s ends)
    outside, NaN for NaN. An ``xp`` not increasing or holding a NaN (NumPy's answers
    are its binary search's then) runs in CPython, by a run-time check."""
    fname = "np.interp"
    if period is not None:
        raise NotImplementedError(f"{fname}: argument period= is not supported")
    xp, fp = _sorted_operand(em, xp, fname), em.array(fp, fname)
    if fp.dtype.kind == "c":
        raise NotImplementedError(f"{fname}: complex fp")
    if fp.ndim != 1:
        raise NotImplementedError(f"{fname}: fp of {fp.ndim} dims")
    (n,) = em.shape(xp)
    if not em.equal_sizes(em.shape(fp)[0], n):
        raise ValueError("fp and xp are not of the same length.")
    if n == 0:
        raise ValueError("array of sample points is empty")
    x, xp, fp = (em.cast(em.array(t, fname), np.float64) for t in (x, xp, fp))

    def at(values, k):
        return getitem(em, values, k)

    low = at(fp, 0) if left is None else em.cast(em.array(left, fname), np.float64)
    high = at(fp, n - 1) if right is None else em.cast(em.array(right, fname), np.float64)
    first, last = at(xp, 0), at(xp, n - 1)
    if n == 1:
        inner = where(em, apply_ufunc(em, np.greater, x, first), high, at(fp, 0))
        return where(em, apply_ufunc(em, np.less, x, first), low, inner)  # NaN: fp[0], as NumPy's
    _check_increasing(em, xp)
    j = apply_ufunc(em, np.subtract, _count_before(em, xp, x, "right"), 1)
    k = apply_ufunc(em, np.maximum, apply_ufunc(em, np.minimum, j, n - 2), 0)
    k1 = _next(em, k)
    x0, x1, y0, y1 = _pick(em, xp, k), _pick(em, xp, k1), _pick(em, fp, k), _pick(em, fp, k1)
    slope = apply_ufunc(em, np.true_divide, apply_ufunc(em, np.subtract, y1, y0), apply_ufunc(em, np.subtract, x1, x0))

    def line(xa, ya):  # slope * (x - xa) + ya: a product, then a sum (no fused multiply-add)
        return apply_ufunc(em, np.add, apply_ufunc(em, np.multiply, slope, apply_ufunc(em, np.subtract, x, xa)), ya)

    value = line(x0, y0)
    value = where(em, apply_ufunc(em, np.isnan, value), line(x1, y1), value)  # NaN one way: the other
    flat = em.emit("and", apply_ufunc(em, np.isnan, value), apply_ufunc(em, np.equal, y0, y1))
    value = where(em, flat, y0, value)
    value = where(em, apply_ufunc(em, np.equal, x0, x), y0, value)
    value = where(em, apply_ufunc(em, np.equal, j, n - 1), at(fp, n - 1), value)
    value = where(em, apply_ufunc(em, np.greater, x, last), high, value)
    value = where(em, apply_ufunc(em, np.less, x, first), low, value)
    return where(em, apply_ufunc(em, np.isnan, x), x, value)


def _next(em: EmitterCore, k: Tensor) -> Tensor:
    return apply_ufunc(em, np.add, k, 1)


def _pick(em: EmitterCore, values: Tensor, index: Tensor) -> Tensor:
    """``values[index]`` of int64 indices known to be in range."""
    return em.emit("gather", values, em.emit("expand_dims", index, axes=(index.ndim,)), axes=(0,), at=0)


def _check_increasing(em: EmitterCore, a: Tensor) -> None:
    """A run-time check that ``a`` is nondecreasing and holds no NaN."""
    first, rest = neighbours(em, a)
    em.add_check(em.emit("logical_not", _all(em, apply_ufunc(em, np.less_equal, first, rest))))


def _sorted_operand(em: EmitterCore, a, fname: str) -> Tensor:
    """``a`` as a 1-d tensor of a fixed, searchable size."""
    a = em.array(a, fname)
    if a.ndim != 1:
        raise ValueError(
            "object too deep for desired array" if a.ndim else "object of too small depth for desired array"
        )
    (n,) = em.shape(a)
    if isinstance(n, SymInt):
        n = em.shape_env.specialize(n)  # the count's width is the size
    if n > SEARCH_MAX:
        raise NotImplementedError(f"{fname}: a sorted array of {n} elements (more than {SEARCH_MAX})")
    if a.dtype.kind not in "iuf":
        raise NotImplementedError(f"{fname}: of {a.dtype} values")
    return a


def _check_sorted(em: EmitterCore, a: Tensor) -> None:
    """A run-time check that ``a`` is in NumPy's sort order (no element before a smaller
    one; NaN last): else NumPy's binary search gives no count, and CPython answers."""
    (n,) = em.shape(a)
    if n >= 2:
        first, rest = neighbours(em, a)
        em.add_check(em.emit("logical_not", _all(em, em.emit("logical_not", _sort_less(em, rest, first)))))


def _count_before(em: EmitterCore, a: Tensor, v: Tensor, side: str) -> Tensor:
    """For each ``v``, how many elements of the sorted ``a`` go before it: ``a[k] < v``
    (left) or ``not v < a[k]`` (right), in NumPy's sort order, in the dtype the two
    promote to; a reduction over ``a`` along a new last axis."""
    dtype = np.result_type(a.dtype, v.dtype)
    if dtype.kind not in "iuf":
        raise NotImplementedError(f"searching {a.dtype} values for {v.dtype} ones")
    a, v = em.cast(a, dtype), em.cast(v, dtype)
    (n,) = em.shape(a)
    if n == 0:
        return em.broadcast_to(em.constant(np.asarray(0, np.int64)), em.shape(v))
    shape = (*em.shape(v), n)
    wide_a = em.broadcast_to(a, shape)
    wide_v = em.broadcast_to(em.emit("expand_dims", v, axes=(v.ndim,)), shape)
    before = (
        _sort_less(em, wide_a, wide_v) if side == "left" else em.emit("logical_not", _sort_less(em, wide_v, wide_a))
    )
    return sh.sum_(em, em.cast(before, np.int64), axis=-1)


def _sort_less(em: EmitterCore, x: Tensor, y: Tensor) -> Tensor:
    """``x < y`` in NumPy's sort order: floats ``x < y or (y is NaN and x is not)``."""
    less = apply_ufunc(em, np.less, x, y)
    if x.dtype.kind != "f":
        return less
    nan_after = em.emit("and", apply_ufunc(em, np.not_equal, y, y), apply_ufunc(em, np.equal, x, x))
    return em.emit("or", less, nan_after)


def _all(em: EmitterCore, flags: Tensor) -> Tensor:
    return em.emit("min", flags, axes=tuple(range(flags.ndim)), keepdims=False)


ROWS: list = [
    ((np.searchsorted, "searchsorted"), searchsorted, "cmp, or, and, cast, sum (+the sorted check)", "int64"),
    ((np.digitize,), digitize, "cmp, or, and, cast, sum, sub, select (+the monotonic check)", "int64"),
    ((np.isin,), isin, "cmp eq, or (, logical_not)", "bool"),
    ((np.interp,), interp, "cmp, cast, sum, gather, sub, div, mul, add, select (+the increasing check)", "float64"),
]

# Array methods (``x.name(...)``) these rows serve.
METHODS: tuple = ("searchsorted",)

# NumPy functions whose 0-d results are 0-d arrays, not NumPy scalars.
ARRAY_RESULTS: set = {np.isin}
