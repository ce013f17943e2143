"""Counting values into bins: ``np.bincount`` and ``np.histogram`` (NumPy's
``_histograms_impl``).

Both end in an ``ember.scatter_add`` of ones at each value's bin. ``np.histogram`` with
a number of bins finds each value's bin as NumPy's own uniform-bin path does, step for
step, so the counts and the edges are NumPy's bit for bit: the edges by ``np.linspace``
of the outer edges, a value's bin by ``(x - first) / (last - first) * bins`` truncated,
then moved down or up by one where that lands on the wrong side of an edge. The dtype
of each step is the one NumPy's scalars give it: with ``range`` given as Python floats
the quotient is float64 even for float32 data; with the data's own minimum and maximum
it stays float32. NumPy adds the counts block by block; integer counts agree in any
order, but sums of ``weights`` would not, so weights run in CPython.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from compiler.frontend import numpy_creation as cr
from compiler.frontend import numpy_shapes as sh
from compiler.frontend.numpy_core import EmitterCore, Tensor
from compiler.frontend.numpy_elementwise import apply_ufunc, where
from compiler.frontend.numpy_indexing import getitem, neighbours, non_empty
from compiler.frontend.symbolic_shapes import SymInt

# the unsigned type NumPy's _unsigned_subtract computes a signed range's width in
_UNSIGNED = {np.dtype(s): np.dtype(u) for s, u in zip("bhilq", "BHILQ")}


def _counts(em: EmitterCore, bins: Tensor, length: int) -> Tensor:
    """``length`` int64 counts of the values of ``bins`` (all in ``[0, length)``)."""
    (n,) = em.shape(bins)
    ones = cr.fill(em, (n,), 1, np.int64)
    stacked = em.emit("expand_dims", bins, axes=(1,))
    return em.emit("scatter_add", cr.fill(em, (length,), 0, np.int64), stacked, ones, axes=(0,), at=0)


def bincount(em: EmitterCore, x, weights=None, minlength=0) -> Tensor:
    """``np.bincount`` with ``minlength=``: ``minlength`` counts (or sums of ``weights``,
    float64), each element of ``x`` adding one (its weight) at its value, in order (a
    scatter-add). Where ``x`` holds a value at or past ``minlength`` NumPy's result is
    longer, and a negative is its error: a run-time check sends those calls to CPython.
    Without ``minlength`` the length is the data's largest value: a break."""
    x = em.array(x, "np.bincount")
    if x.ndim != 1:
        raise ValueError(
            "object too deep for desired array" if x.ndim else "object of too small depth for desired array"
        )
    if x.dtype.kind not in "biu" or x.dtype == np.uint64:
        raise TypeError(f"Cannot cast array data from {x.dtype!r} to dtype('int64') according to the rule 'safe'")
    if isinstance(minlength, SymInt):
        minlength = em.shape_env.specialize(minlength)
    if isinstance(minlength, Tensor) or minlength is None or operator.index(minlength) <= 0:
        raise NotImplementedError("np.bincount without minlength=: the result's length is the data's largest value")
    length = operator.index(minlength)
    (n,) = em.shape(x)
    values = em.cast(x, np.int64)
    if weights is not None:
        weights = em.cast(em.array(weights, "np.bincount"), np.float64)
        if weights.ndim != 1 or not em.equal_sizes(em.shape(weights)[0], n):
            raise ValueError("The weights and list don't have the same length.")
    if not non_empty((n,)):
        return cr.fill(em, (length,), 0, np.int64 if weights is None else np.float64)
    low = em.emit("cmp", values, cr.fill(em, (n,), 0, np.int64), predicate="lt")
    high = em.emit("cmp", values, cr.fill(em, (n,), length, np.int64), predicate="ge")
    em.add_check(em.emit("or", low, high))
    if weights is None:
        return _counts(em, values, length)
    stacked = em.emit("expand_dims", values, axes=(1,))
    return em.emit("scatter_add", cr.fill(em, (length,), 0, np.float64), stacked, weights, axes=(0,), at=0)


# ----------------------------------------------------------------------------- np.histogram


def histogram(em: EmitterCore, a, bins=10, range=None, density=None, weights=None) -> tuple:
    """``np.histogram`` with a number of bins: int64 counts of the values in each of
    ``bins`` equal bins between ``range`` (else the data's minimum and maximum, 0.5 wider
    each way where they are equal), the last bin closed; values outside ``range`` (NaN
    too) are not counted. ``density=True``: counts / bin widths / total. The edges and
    counts are NumPy's bit for bit; a non-finite minimum or maximum, or edges that do not
    increase (too many bins for the range), are NumPy's ``ValueError``, by a run-time
    check. ``bins`` as edges or an estimator's name, and ``weights=``, run in CPython."""
    fname = "np.histogram"
    if weights is not None:
        raise NotImplementedError(f"{fname}: weights= (NumPy adds them block by block, in its own order)")
    count = _bin_count(em, bins, fname)
    a = em.array(a, fname)
    if a.dtype == np.bool_ or a.dtype.kind not in "iuf":
        raise NotImplementedError(f"{fname}: of {a.dtype} data (NumPy converts booleans with a warning)")
    if a.ndim != 1:
        a = sh.reshape(em, a, -1)
    data = non_empty(em.shape(a))
    if range is None and data:
        first, width, edges = _data_edges(em, a, count)
        keep = None
    else:
        first, last = _given_range(range, fname)
        edges = _given_edges(em, first, last, count, _float_type(np.result_type(first, last, np.empty(0, a.dtype))))
        width = _unsigned_subtract(last, first)
        keep = em.emit("and", apply_ufunc(em, np.greater_equal, a, first), apply_ufunc(em, np.less_equal, a, last))
    edge_values = edges.at(em, cr.iota(em, (count + 1,), 0, np.int64, fname))
    counts = _uniform_counts(em, a, first, width, edges, keep) if data else cr.fill(em, (count,), 0, np.int64)
    if density:
        lower, upper = neighbours(em, edge_values)
        widths = apply_ufunc(em, np.subtract, upper, lower)
        widths = em.cast(widths, np.float64)
        total = sh.sum_(em, counts)
        counts = apply_ufunc(em, np.true_divide, apply_ufunc(em, np.true_divide, counts, widths), total)
    return counts, edge_values


@dataclass
class _Edges:
    """``np.linspace(first, last, count + 1)`` as a formula of an edge's number ``k``, so
    a value's bin edges are computed where the value is, in its loop, not looked up in
    the edges' array (a gather stops the loops' fusion): ``k * step`` (``k / count *
    delta`` where the step underflows to 0) plus ``start`` in the type NumPy's ``y +=
    start`` adds in, ``stop`` for the last, each step NumPy's linspace takes."""

    start: Tensor  # 0-d, in the type NumPy adds it in
    stop: Tensor  # 0-d, in linspace's type
    step: Tensor
    delta: Tensor
    underflow: object  # bool, or a 0-d bool tensor: the step is 0
    count: int
    dtype: np.dtype  # the edges' (NumPy's bin_type)

    def at(self, em: EmitterCore, k: Tensor) -> Tensor:
        i = em.cast(k, self.step.dtype)
        plain = lambda: apply_ufunc(em, np.multiply, i, self.step)  # noqa: E731
        divided = lambda: apply_ufunc(em, np.multiply, apply_ufunc(em, np.true_divide, i, self.count), self.delta)  # noqa: E731
        if isinstance(self.underflow, bool):
            scaled = divided() if self.underflow else plain()
        else:
            scaled = where(em, self.underflow, divided(), plain())
        y = em.cast(apply_ufunc(em, np.add, em.cast(scaled, self.start.dtype), self.start), self.step.dtype)
        y = where(em, apply_ufunc(em, np.equal, k, self.count), self.stop, y)
        return em.cast(y, self.dtype)


def _given_edges(em: EmitterCore, first, last, count: int, bin_type: np.dtype) -> _Edges:
    """The edges of a known range, as ``np.linspace(first, last, count + 1, dtype=bin_type)``
    computes them (its type: first's and last's, made inexact; ``y += start`` in the
    type NumPy picks for that), checked against ``np.linspace`` itself here."""
    start, stop = np.asarray(first), np.asarray(last)
    dt = np.result_type(first, last)
    dt = np.result_type(dt, 1.0) if dt.kind in "biu" else dt
    loop = np.add(np.zeros(1, dt), start).dtype
    with np.errstate(all="ignore"):
        delta = np.subtract(stop, start, dtype=dt)
        step = delta / count
        i = np.arange(count + 1, dtype=dt)
        y = (i / count * delta) if step == 0 else i * step
        y = (y.astype(loop) + start.astype(loop)).astype(dt)
    y[-1] = stop.astype(dt)
    edges = np.linspace(first, last, count + 1, endpoint=True, dtype=bin_type)
    if not np.array_equal(y.astype(bin_type), edges):
        raise NotImplementedError(
            f"np.histogram: edges of [{first}, {last}] not reproduced as np.linspace computes them"
        )
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(f"Too many bins for data range. Cannot create {count} finite-sized bins.")
    constant = lambda value, dtype: em.constant(np.asarray(value, dtype))  # noqa: E731
    return _Edges(
        constant(start, loop),
        constant(stop, dt),
        constant(step, dt),
        constant(delta, dt),
        bool(step == 0),
        count,
        bin_type,
    )


def _bin_count(em: EmitterCore, bins, fname: str) -> int:
    if isinstance(bins, SymInt):
        bins = em.shape_env.specialize(bins)
    if isinstance(bins, (str, Tensor, list, tuple)) or np.ndim(bins) != 0:
        raise NotImplementedError(f"{fname}: bins as edges or an estimator's name (only a number of bins)")
    try:
        count = operator.index(bins)
    except TypeError as e:
        raise TypeError("`bins` must be an integer, a string, or an array") from e
    if count < 1:
        raise ValueError("`bins` must be positive, when an integer")
    return count


def _float_type(dtype: np.dtype) -> np.dtype:
    """NumPy's ``bin_type``: the edges' dtype, float64 for integer data."""
    return np.result_type(dtype, float) if np.issubdtype(dtype, np.integer) else dtype


def _given_range(range, fname: str) -> tuple:
    """NumPy's ``_get_outer_edges`` of a given ``range`` (or of empty data: 0 and 1)."""
    if range is None:
        first, last = 0, 1
    else:
        if any(isinstance(v, (Tensor, SymInt)) for v in range):
            raise NotImplementedError(f"{fname}: a range computed while tracing")
        first, last = range
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _unsigned_subtract(last, first):
    """NumPy's ``_unsigned_subtract`` of two known numbers: the width of the range, a
    signed integer type's in its unsigned type (no overflow), as a NumPy scalar."""
    dtype = np.result_type(last, first)
    unsigned = _UNSIGNED.get(dtype)
    if unsigned is None:
        return np.subtract(last, first, dtype=dtype)
    return np.subtract(np.asarray(last, dtype), np.asarray(first, dtype), casting="unsafe", dtype=unsigned)


def _data_edges(em: EmitterCore, a: Tensor, count: int) -> tuple:
    """The first edge, the range's width and the edges from the data's minimum and
    maximum (NumPy's ``_get_outer_edges``, its ``_unsigned_subtract`` and its
    ``np.linspace`` of NumPy scalars), each in the dtype NumPy's scalars give it: the
    data's float type, float64 for integers."""
    bin_type = _float_type(a.dtype)
    low, high = sh.min_(em, a), sh.max_(em, a)
    if a.dtype.kind == "f":
        finite = em.emit("and", apply_ufunc(em, np.isfinite, low), apply_ufunc(em, np.isfinite, high))
        em.add_check(em.emit("logical_not", finite))
    equal = em.emit("cmp", low, high, predicate="eq")
    low_f, high_f = em.cast(low, bin_type), em.cast(high, bin_type)
    first = em.emit("select", equal, apply_ufunc(em, np.subtract, low_f, 0.5), low_f)
    last = em.emit("select", equal, apply_ufunc(em, np.add, high_f, 0.5), high_f)
    delta = apply_ufunc(em, np.subtract, last, first)
    width = delta
    if a.dtype.kind in "iu":  # integers: the width in uint64 (int8's in uint8: the same value)
        unsigned = em.emit("sub", em.cast(high, np.uint64), em.cast(low, np.uint64))
        width = em.emit("select", equal, delta, em.cast(unsigned, np.float64))
    step = apply_ufunc(em, np.true_divide, delta, count)
    edges = _Edges(first, last, step, delta, apply_ufunc(em, np.equal, step, 0), count, bin_type)
    values = edges.at(em, cr.iota(em, (count + 1,), 0, np.int64, "np.histogram"))
    increasing = apply_ufunc(em, np.less, *neighbours(em, values))
    em.add_check(em.emit("logical_not", em.emit("min", increasing, axes=(0,), keepdims=False)))
    return first, width, edges


def _uniform_counts(em: EmitterCore, a: Tensor, first, width, edges: _Edges, keep) -> Tensor:
    """NumPy's uniform-bin loop: each kept value's bin from ``(x - first) / width *
    count`` (in the dtype NumPy's operands give each step), truncated, the last edge's
    value moved into the last bin, then one bin down where the value is below its bin's
    first edge or up where it is at or past the next one (the quotient can be an ulp
    off); the values not kept go to an extra bin, dropped."""
    count = edges.count
    x = em.cast(a, edges.dtype)
    offset = apply_ufunc(em, np.subtract, x, first)
    quotient = apply_ufunc(em, np.multiply, apply_ufunc(em, np.true_divide, offset, width), count)
    if keep is not None:
        quotient = where(em, keep, quotient, 0)
    index = em.cast(quotient, np.int64)
    index = apply_ufunc(em, np.subtract, index, em.cast(apply_ufunc(em, np.equal, index, count), np.int64))
    # NumPy steps down, then up from where it stepped to; since the edges increase, the
    # two tests read the same two edges of the first index
    below = apply_ufunc(em, np.less, x, edges.at(em, index))
    above = apply_ufunc(em, np.greater_equal, x, edges.at(em, apply_ufunc(em, np.add, index, 1)))
    above = em.emit("and", above, apply_ufunc(em, np.not_equal, index, count - 1))
    step = apply_ufunc(em, np.subtract, em.cast(above, np.int64), em.cast(below, np.int64))
    index = apply_ufunc(em, np.add, index, step)
    if keep is None:
        return _counts(em, index, count)
    index = where(em, keep, index, count)
    return getitem(em, _counts(em, index, count + 1), slice(None, count))


ROWS = [
    ((np.bincount,), bincount, "scatter_add (+cmp, or, max: the range check)", "int64 (weights: float64)"),
    (
        (np.histogram,),
        histogram,
        "min, max, iota, sub, div, mul, cast, gather, cmp, select, scatter_add, slice",
        "int64 counts (density: float64), edges float",
    ),
]
