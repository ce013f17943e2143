"""sort, argsort, median, percentile, quantile: rules over Ember's ``sort``/``argsort`` ops.

* ``np.sort``/``np.argsort``/``x.argsort()`` along any axis (``axis=None`` sorts the
  flattened array) are one ``ember.sort``/``ember.argsort`` each: a stable merge sort
  (``passes/lower_sort.py``) with NumPy's order (NaN last, ``-0.0 == 0.0``, ``False <
  True``). Every ``kind`` NumPy accepts (``quicksort``, ``mergesort``, ``heapsort``,
  ``stable``, ``stable=``) gets the stable order: for ``sort`` the values are the same
  whatever the kind; for ``argsort`` with ties, NumPy's order of equal elements is
  unspecified except for ``kind='stable'``/``'mergesort'``, and Ember gives the stable
  one. ``x.sort()`` sorts the caller's array in place (``mutation.sort_in_place`` writes
  the sorted value back, as every in-place write).
* ``np.median`` follows ``_median``: the middle one or two elements of the sorted
  slice and NumPy's ``mean`` of them (so ints give float64 and float32 stays float32),
  and NaN where the slice's last sorted element is NaN (``_median_nancheck``).
* ``np.percentile``/``np.quantile`` follow ``_quantile``: the virtual indexes, the
  neighbouring indexes and ``gamma`` are computed at trace time by NumPy's own helpers
  (``_QuantileMethods``, ``_get_indexes``, ``_get_gamma``) from the static size and
  the constant ``q``, so every method is NumPy's; the graph takes the elements from the
  sorted array and applies ``_lerp`` with NumPy's promotion (a Python-scalar ``q`` is
  weak: float32 stays float32). A slice holding a NaN gives NaN.

Multi-axis reductions move the reduced axes last and merge them, as ``_ureduce`` does.
Symbolic sizes: ``sort``/``argsort`` and ``median`` stay symbolic (``median`` reads its
middle elements with a mask compared to an iota, its parity chosen at run time);
``percentile``/``quantile`` specialize the reduced size (their indexes are computed
from it at trace time). Not supported (the call runs in CPython): ``order=``, ``out=``,
``overwrite_input=True``, ``weights=``, a ``q`` that is a traced array, and the NaN-
ignoring variants.
"""

from __future__ import annotations

import numpy as np
from numpy.lib import _function_base_impl as fb

from compiler.frontend import numpy_shapes as sh
from compiler.frontend.numpy_core import NOVALUE, EmitterCore, Tensor, normalize_axis, reject
from compiler.frontend.numpy_elementwise import apply_ufunc
from compiler.frontend.symbolic_shapes import SymInt

# ----------------------------------------------------------------------------- sort, argsort


def _check_kind(kind, stable) -> None:
    """NumPy's ``PyArray_SortkindConverter``: a str starting with q, h, m or s (any case)."""
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. Use only one of them.")
    if kind is None:
        return
    if not isinstance(kind, str):
        raise TypeError(f"sort kind must be str, not {type(kind).__name__}")
    if not kind or kind[0].lower() not in "qhms":
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")


def _sort_op(em: EmitterCore, name: str, fname: str, a, axis, kind, order, stable) -> Tensor:
    _check_kind(kind, stable)
    reject(fname, order=(order, None))
    a = em.array(a, fname)
    if axis is None:
        a = sh.reshape(em, a, -1)
        axis = 0
    axis = normalize_axis(axis, a.ndim)
    return em.emit(name, a, axis=axis)


def sort(em, a, axis=-1, kind=None, order=None, *, stable=None):
    return _sort_op(em, "sort", "np.sort", a, axis, kind, order, stable)


def argsort(em, a, axis=-1, kind=None, order=None, *, stable=None):
    return _sort_op(em, "argsort", "np.argsort", a, axis, kind, order, stable)


def sort_method(em, a, axis=-1, kind=None, order=None, *, stable=None):
    """``x.sort()`` is in place: the tracer's ``mutation.dispatch`` writes ``np.sort``'s
    value back into ``x``; this rule is only reached outside the tracer."""
    raise NotImplementedError("x.sort() sorts in place: only the tracer (mutation.sort_in_place) models it")


def sorted_in_place(em, a, axis=-1, kind=None, order=None, *, stable=None) -> Tensor:
    """The new value of ``a`` after ``a.sort(...)`` (``ndarray.sort`` refuses ``axis=None``)."""
    if axis is None:
        raise TypeError("'NoneType' object cannot be interpreted as an integer")
    if isinstance(a, Tensor) and a.scalar:
        raise NotImplementedError("sort of a NumPy scalar")
    return _sort_op(em, "sort", "ndarray.sort", a, axis, kind, order, stable)


# ----------------------------------------------------------------------------- helpers


def _reduced_last(em: EmitterCore, a: Tensor, axis, fname: str) -> tuple[Tensor, tuple]:
    """``a`` with the reduced axes merged into its last one (``_ureduce``), and the shape
    of a ``keepdims`` result. ``axis=None`` flattens."""
    if axis is None:
        return sh.reshape(em, a, -1), (1,) * a.ndim
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple(normalize_axis(i, a.ndim) for i in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    shape = em.shape(a)
    kept_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    keep = [i for i in range(a.ndim) if i not in axes]
    moved = keep + sorted(axes)
    if moved != list(range(a.ndim)):
        a = sh.transpose(em, a, tuple(moved))
    if len(axes) > 1:
        a = sh.reshape(em, a, tuple(shape[i] for i in keep) + (-1,))
    return a, kept_shape


def _take(em: EmitterCore, t: Tensor, k) -> Tensor:
    """Element ``k`` (an int or SymInt, ``0 <= k < n``) of ``t``'s last axis, keeping it (size 1)."""
    shape = em.shape(t)
    axis = t.ndim - 1
    if not isinstance(k, SymInt) and not isinstance(shape[axis], SymInt):
        starts = (0,) * axis + (int(k),)
        return em.emit_shaped(
            "slice", t, shape=shape[:axis] + (1,), dtype=t.type.dtype, starts=starts, steps=(1,) * t.ndim
        )
    from compiler.frontend import numpy_creation as cr

    index = cr.iota(em, shape, axis, np.int64, "np.median")
    where = em.emit("cmp", index, em.broadcast_to(_index_tensor(em, k), shape), predicate="eq")
    if t.dtype.kind == "b":
        picked = em.emit("select", where, t, em.scalar_like(False, t.dtype, t))
        return em.emit("max", picked, axes=(axis,), keepdims=True)
    zero = -0.0 if t.dtype.kind == "f" else 0  # x + -0.0 is x, -0.0 included
    picked = em.emit("select", where, t, em.scalar_like(zero, t.dtype, t))
    return em.emit("sum", picked, axes=(axis,), keepdims=True)


PARTITION_MAX_POSITIONS = 6


def _partitioned(em: EmitterCore, t: Tensor, kth: list) -> Tensor:
    """``t`` partitioned along its last axis at the positions ``kth`` (ints or SymInts in
    ``[0, n)``; the last one ``n - 1``, where the largest lands, NaN if there is one): all
    that median and percentile read, as NumPy's own ``np.partition`` call, in ``O(n)`` a
    position instead of a sort. Past ``PARTITION_MAX_POSITIONS`` positions the sort is
    faster: each selection scans what the previous one left (2 threads, float64, 500k:
    3 positions 5.6 ms, 9 positions 9.6, 21 positions 47, the sort 7.0; 10k: 0.12, 0.18
    and 0.2 for the sort); the values at the positions are the same."""
    static = all(not isinstance(k, SymInt) for k in kth)
    if (len({int(k) for k in kth}) if static else len(kth)) > PARTITION_MAX_POSITIONS:
        return em.emit("sort", t, axis=t.ndim - 1)
    if static:
        positions = em.constant(np.asarray(sorted({int(k) for k in kth}), dtype=np.int64))
    else:  # ascending by construction: (n - 1) // 2, n // 2, n - 1 (repeats are skipped)
        parts = [sh.reshape(em, _index_tensor(em, k), (1,)) for k in kth]
        positions = parts[0]
        for part in parts[1:]:
            positions = em.emit("concatenate", positions, part, axis=0)
    return em.emit("partition", t, positions, axis=t.ndim - 1)


def _index_tensor(em: EmitterCore, k) -> Tensor:
    if isinstance(k, SymInt):
        return em.wrap(em.b.from_index(em.size_value(k)))
    return em.constant(np.asarray(k, dtype=np.int64))


def _finish(em: EmitterCore, result: Tensor, keepdims, kept_shape: tuple) -> Tensor:
    """``result`` (the kept dims, with a trailing axis of 1) reshaped as NumPy returns it."""
    shape = em.shape(result)[:-1]
    if keepdims is not NOVALUE and keepdims:
        return sh.reshape(em, result, kept_shape)
    return sh.reshape(em, result, shape)


def _nan_last(em: EmitterCore, s: Tensor, result: Tensor) -> Tensor:
    """NaN where the sorted slice ``s`` ends in NaN (it holds one), as ``_median_nancheck``."""
    n = em.shape(s)[-1]
    last = _take(em, s, n - 1)
    isnan = em.emit("cmp", last, last, predicate="ne")
    nan = em.broadcast_to(em.constant(np.asarray(np.nan, dtype=result.dtype)), em.shape(result))
    return em.emit("select", em.broadcast_to(isnan, em.shape(result)), nan, result)


# ----------------------------------------------------------------------------- median


def median(em, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    fname = "np.median"
    reject(fname, out=(out, None), overwrite_input=(bool(overwrite_input), False))
    a = em.array(a, fname)
    t, kept_shape = _reduced_last(em, a, axis, fname)
    n = em.shape(t)[-1]
    if not isinstance(n, SymInt) and n == 0:  # the mean of an empty slice: NaN
        return sh.mean(em, t, -1, None, None, keepdims if keepdims is not NOVALUE else False)
    s = _partitioned(em, t, [(n - 1) // 2, n // 2, n - 1])
    if isinstance(n, SymInt):
        lo, hi = _take(em, s, (n - 1) // 2), _take(em, s, n // 2)
        pair = sh.mean(em, em.emit("concatenate", lo, hi, axis=t.ndim - 1), -1, None, None, True)
        single = sh.mean(em, lo, -1, None, None, True)
        odd = em.emit(
            "cmp",
            _index_tensor(em, n % 2),
            em.constant(np.asarray(1, dtype=np.int64)),
            predicate="eq",
        )
        result = em.emit("select", em.broadcast_to(odd, em.shape(pair)), single, pair)
    elif n % 2:
        result = sh.mean(em, _take(em, s, n // 2), -1, None, None, True)
    else:
        pair = em.emit("concatenate", _take(em, s, n // 2 - 1), _take(em, s, n // 2), axis=t.ndim - 1)
        result = sh.mean(em, pair, -1, None, None, True)
    if t.dtype.kind == "f":
        result = _nan_last(em, s, result)
    return _finish(em, result, keepdims, kept_shape)


# ----------------------------------------------------------------------------- percentile, quantile


def _quantile(em, fname: str, a, q, axis, out, overwrite_input, method, keepdims, weights, interpolation, scale):
    reject(fname, out=(out, None), overwrite_input=(bool(overwrite_input), False), weights=(weights, None))
    if interpolation is not None:
        raise NotImplementedError(f"{fname}: the deprecated interpolation= is not supported (use method=)")
    if isinstance(q, Tensor) and em.known_value(q) is not None:
        q = em.known_value(q)  # np.linspace(0, 1, 11) in the function: a constant of the graph
    if isinstance(q, Tensor) or (isinstance(q, (list, tuple)) and any(isinstance(i, Tensor) for i in q)):
        raise NotImplementedError(f"{fname}: q as a traced array is not supported (a constant q is)")
    a = em.array(a, fname)
    weak_q = type(q) in (int, float)
    qa = np.true_divide(q, 100) if scale else np.asanyarray(q)
    if not fb._quantile_is_valid(qa):
        raise ValueError(
            "Percentiles must be in the range [0, 100]" if scale else "Quantiles must be in the range [0, 1]"
        )
    if qa.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    if qa.ndim == 2:
        raise NotImplementedError(f"{fname}: a 2-d q is not supported")
    if method not in fb._QuantileMethods:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {fb._QuantileMethods.keys()}")
    if a.ndim == 0 and axis is not None:
        normalize_axis(axis, 0)  # NumPy's AxisError
    t, kept_shape = _reduced_last(em, a, axis, fname)
    n = em.shape(t)[-1]
    if isinstance(n, SymInt):
        n = n.env.specialize(n)  # the indexes are computed from it at trace time
        t = em.refine(t)
    if n == 0:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    props = fb._QuantileMethods[method]
    virtual = np.asanyarray(props["get_virtual_index"](n, qa))
    supports_nans = a.dtype.kind == "f"
    if props["fix_gamma"] is None or (method == "linear" and virtual.dtype.kind in "iu"):
        s = _partitioned(em, t, [int(k) for k in virtual.reshape(-1)] + [n - 1])
        values = [_take(em, s, int(k)) for k in virtual.reshape(-1)]
    else:
        prev, nxt = fb._get_indexes(np.empty(0, a.dtype), virtual, n)
        gamma = fb._get_gamma(virtual, prev, props)
        pairs = [(int(p) % n, int(x) % n) for p, x in zip(prev.reshape(-1), nxt.reshape(-1))]
        s = _partitioned(em, t, [k for pair in pairs for k in pair] + [n - 1])
        values = []
        for (p, x), g in zip(pairs, gamma.reshape(-1)):
            g = float(g) if weak_q else np.float64(g)
            values.append(_lerp(em, _take(em, s, p), _take(em, s, x), g))
    if supports_nans:
        if virtual.ndim == 0 and values[0].dtype != a.dtype:
            # NumPy returns the slice's NaN element itself here: a dtype that depends on the data
            raise NotImplementedError(f"{fname}: a strong 0-d q on a {a.dtype} array (NumPy's dtype depends on NaNs)")
        values = [_nan_last(em, s, v) for v in values]
    results = [_finish(em, v, keepdims, kept_shape) for v in values]
    if virtual.ndim == 0:
        return results[0]
    return sh.stack(em, results) if len(results) > 1 else sh.expand_dims(em, results[0], 0)


def _lerp(em: EmitterCore, a: Tensor, b: Tensor, t) -> Tensor:
    """NumPy's ``_lerp``: ``a + (b - a) * t``, or ``b - (b - a) * (1 - t)`` where ``t >= 0.5``."""
    diff = apply_ufunc(em, np.subtract, b, a)
    if t >= 0.5:
        return apply_ufunc(em, np.subtract, b, apply_ufunc(em, np.multiply, diff, 1 - t))
    return apply_ufunc(em, np.add, a, apply_ufunc(em, np.multiply, diff, t))


def percentile(
    em,
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
    interpolation=None,
):
    return _quantile(
        em, "np.percentile", a, q, axis, out, overwrite_input, method, keepdims, weights, interpolation, True
    )


def quantile(
    em,
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
    interpolation=None,
):
    return _quantile(
        em, "np.quantile", a, q, axis, out, overwrite_input, method, keepdims, weights, interpolation, False
    )


# (keys, rule, Ember ops emitted, dtype rule) rows, as numpy_semantics reads them.
ROWS: list = [
    ((np.sort,), sort, "sort (+reshape)", "same"),
    ((np.argsort, "argsort"), argsort, "argsort (+reshape)", "int64"),
    (("sort",), sort_method, "sort (in place: written back)", "same"),
    ((np.median,), median, "sort, slice | iota, cmp, select, sum; concatenate, mean, select", "mean"),
    ((np.percentile,), percentile, "sort, slice, sub, mul, add, select", "_lerp (weak q)"),
    ((np.quantile,), quantile, "sort, slice, sub, mul, add, select", "_lerp (weak q)"),
]

# Array methods (``x.name(...)``) these rows serve.
METHODS: tuple = ("sort", "argsort")

# NumPy functions whose 0-d results are 0-d arrays, not NumPy scalars.
ARRAY_RESULTS: set = set()

# Rules that read symbolic ints themselves.
SYMBOLIC_INT_RULES: set = set()
