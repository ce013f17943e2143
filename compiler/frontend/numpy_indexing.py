"""Basic indexing ``x[...]``: ints, slices (any step), ``None`` and ``...``.

One index becomes at most three Ember ops: a ``slice`` over every input dim (an int
is a length-1 slice), a ``squeeze`` of the int dims and an ``expand_dims`` for each
``None``. With a symbolic size, Python's clamping of the bounds is decided by the
shape environment (``x[1:n-1]`` of a size ``s0`` is ``s0 - 2`` long, guarded ``s0 >=
4`` or specialized where that length is 0 or 1); a start is an attribute of the op, a
constant from the beginning or (negative) from the end, so a start that is neither
(``x[k:]`` with a symbolic ``k``) is specialized. Advanced indexing (arrays, lists,
bools) is not basic indexing and raises ``NotImplementedError``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from compiler.frontend.numpy_core import EmitterCore, Tensor, holds, same_shape, shape_text
from compiler.frontend.symbolic_shapes import SymInt

SUFFIX = object()  # a start marking a slice that runs to the end, of a symbolic length


@dataclass
class _Plan:
    starts: list
    steps: list
    shape: list  # sliced shape, one entry per input dim
    squeezed: list  # input dims indexed by an int
    new_axes: list  # output positions of the None entries


def getitem(em: EmitterCore, x: Tensor, index) -> Tensor:
    if is_advanced(index):
        masked = masked_getitem(em, x, index)
        return masked if masked is not None else advanced_getitem(em, x, index)
    items = _expand(_as_tuple(index), x.ndim)
    plan = _plan(em, x, items)
    result = x
    if any(s != 0 or t != 1 for s, t in zip(plan.starts, plan.steps)) or not same_shape(tuple(plan.shape), em.shape(x)):
        suffix = [start is SUFFIX for start in plan.starts]
        starts = tuple(-1 if s else start for s, start in zip(suffix, plan.starts))
        steps = tuple(-1 if s else step for s, step in zip(suffix, plan.steps))
        shape, dtype = tuple(plan.shape), x.type.dtype
        result = em.emit_shaped("slice", x, shape=shape, dtype=dtype, starts=starts, steps=steps)
        if any(suffix):  # the suffix was taken backwards from the last element: turn it round
            starts = tuple(-1 if s else 0 for s in suffix)
            steps = tuple(-1 if s else 1 for s in suffix)
            result = em.emit_shaped("slice", result, shape=shape, dtype=dtype, starts=starts, steps=steps)
    if plan.squeezed:
        result = em.emit("squeeze", result, axes=tuple(plan.squeezed))
    if plan.new_axes:
        result = em.emit("expand_dims", result, axes=tuple(plan.new_axes))
    return result


def _as_tuple(index) -> tuple:
    return index if isinstance(index, tuple) else (index,)


def _kind(item) -> str:
    if item is None:
        return "none"
    if item is Ellipsis:
        return "ellipsis"
    if isinstance(item, slice):
        return "slice"
    if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
        return "int"
    what = "an array" if isinstance(item, Tensor) else f"a {type(item).__name__}"
    raise NotImplementedError(f"indexing with {what} (advanced indexing) is not supported yet")


def _expand(items: tuple, ndim: int) -> list:
    """``items`` with the ``...`` (or the implicit trailing one) spelled out as ``:``."""
    kinds = [_kind(i) for i in items]
    if kinds.count("ellipsis") > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(k in ("int", "slice") for k in kinds)
    if consumed > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed")
    fill = [slice(None)] * (ndim - consumed)
    if "ellipsis" not in kinds:
        return list(items) + fill
    at = kinds.index("ellipsis")
    return list(items[:at]) + fill + list(items[at + 1 :])


def _plan(em: EmitterCore, x: Tensor, items: list) -> _Plan:
    plan = _Plan([], [], [], [], [])
    out_axis, dim = 0, 0
    shape = em.shape(x)
    for item in items:
        if item is None:
            plan.new_axes.append(out_axis)
            out_axis += 1
            continue
        size = shape[dim]
        if isinstance(item, slice):
            start, step, length = _slice(em, item, size, dim)
            out_axis += 1
        else:
            start, step, length = _int(em, item, size, dim), 1, 1
            plan.squeezed.append(dim)
        plan.starts.append(start)
        plan.steps.append(step)
        plan.shape.append(length)
        dim += 1
    return plan


def _int(em: EmitterCore, i, size, dim: int) -> int:
    env = em.shape_env
    if isinstance(i, SymInt):
        from_end = env.normalize(i - size)
        i = from_end if isinstance(size, SymInt) and not isinstance(from_end, SymInt) else env.specialize(i)
    i = int(i)
    if not isinstance(size, SymInt):
        if not -size <= i < size:
            raise IndexError(f"index {i} is out of bounds for axis {dim} with size {size}")
        return i % size
    inside = env.evaluate(size > i) if i >= 0 else env.evaluate(size >= -i)
    if not inside:
        raise IndexError(f"index {i} is out of bounds for axis {dim} with size {size.hint}")
    return i  # a negative start counts from the end, as in NumPy


def _slice(em: EmitterCore, item: slice, size, dim: int) -> tuple:
    env = em.shape_env
    bounds = []
    for bound in (item.start, item.stop, item.step):
        if bound is not None and not isinstance(bound, (int, np.integer, SymInt)):
            raise NotImplementedError(f"slice bound of type {type(bound).__name__}")
        bounds.append(bound if bound is None or isinstance(bound, SymInt) else int(bound))
    start, stop, step = bounds
    step = 1 if step is None else env.specialize(step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if not any(isinstance(b, SymInt) for b in (start, stop, size)):
        start, stop, step = slice(start, stop, step).indices(size)
        length = len(range(start, stop, step))
        return (start if length else 0), step, length
    first = _clamp(env, start, size, step, default=0 if step > 0 else size - 1)
    end = _clamp(env, stop, size, step, default=size if step > 0 else -1)
    span = (end - first) if step > 0 else (first - end)
    if not env.evaluate(span >= 1):
        return 0, step, 0
    length = em.as_size((span + abs(step) - 1) // abs(step), "indexing")
    rest = env.normalize(size - first - length)
    if step == 1 and isinstance(size, SymInt) and not isinstance(rest, SymInt) and rest == 0:
        if isinstance(env.normalize(first), SymInt) and isinstance(env.normalize(first - size), SymInt):
            return SUFFIX, step, length  # ``x[-n:]``: the last ``n`` elements
    return _static_start(env, first, size, start), step, length


def _clamp(env, bound, size, step: int, default):
    """Python's ``slice.indices`` for one bound, decided by the shape environment."""
    if bound is None:
        return default
    if env.evaluate(bound < 0):
        bound = bound + size
        if env.evaluate(bound < 0):
            return 0 if step > 0 else -1
        return bound
    if env.evaluate(bound >= size):
        return size if step > 0 else size - 1
    return bound


def _static_start(env, first, size, given):
    """The op's start attribute: ``first`` as a constant from the beginning, or from the
    end (negative); else the user's start bound is specialized and the slice recomputed."""
    for attempt in range(2):
        first = env.normalize(first)
        if not isinstance(first, SymInt):
            return first
        from_end = env.normalize(first - size)
        if not isinstance(from_end, SymInt):
            return from_end
        if attempt == 0 and isinstance(given, SymInt):
            env.specialize(given)  # ``x[k:]`` with a symbolic k: k is guarded to its value
    raise NotImplementedError(f"a slice start of {first} (neither from the beginning nor from the end)")


# ----------------------------------------------------------------------------- advanced indexing
#
# Integer arrays (and lists) as indices: ``x[idx]``, ``x[i, j]``, mixed with ints,
# slices, ``None`` and ``...``. NumPy's rules: the index arrays (ints among them, as
# 0-d arrays) broadcast to one batch shape ``B``; the basic items (slices, ``None``)
# apply first, as a view; the result has ``B`` where the advanced items stood when
# they are adjacent in the index, else in front. That is one ``ember.gather`` of the
# basic view, whose ``indices`` stack the broadcast index arrays (cast to int64) on a
# last axis. ``x[idx] = v`` is one ``ember.scatter`` of the same indices into the
# basic view, which the mutation machinery writes back (``mutation.setitem``).
#
# Bounds: a constant index out of range raises at trace time (CPython then raises
# NumPy's error); a traced index array is checked in the graph (``add_check``): an
# index outside ``[-size, size)`` makes the entry re-run the call in CPython, which
# raises NumPy's ``IndexError`` with the caller's arrays as NumPy leaves them (the
# kernel itself clamps, so it never reads or writes outside an array).


def is_advanced(index) -> bool:
    """Whether ``index`` (a getitem key, Tensors for traced arrays) is advanced indexing."""
    return any(_is_array_item(i) for i in _as_tuple(index))


def _is_array_item(item) -> bool:
    return isinstance(item, (Tensor, list, tuple, np.ndarray, bool, np.bool_))


@dataclass
class Advanced:
    """An advanced index split into its basic part and its index arrays."""

    basic: tuple  # slices and None over every dim: applied first, a view
    dims: list  # the dim of the basic part's result each index array indexes
    arrays: list  # Tensors of an integer dtype, or NumPy integer arrays (constants)
    adjacent: bool  # the advanced items stand together: the batch goes where they stood


def _index_array(item):
    """An advanced item as a Tensor or a NumPy array (bool arrays stay bool)."""
    if isinstance(item, Tensor):
        if item.dtype.kind == "b":
            return item
        if item.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if item.dtype.kind == "u" and item.dtype.itemsize == 8:  # uint8..uint32 zero-extend exactly
            raise NotImplementedError("an unsigned index array (its values as int64 could wrap)")
        return item
    if isinstance(item, (bool, np.bool_)):
        raise NotImplementedError("indexing with a Python bool (a new axis of length 0 or 1)")
    if holds(item, Tensor):
        raise NotImplementedError("an index list holding traced arrays")
    array = np.asarray(_specialized(item))
    if array.size == 0 and array.dtype.kind == "f":  # ``x[[]]``: NumPy takes an empty list as intp
        array = array.astype(np.intp)
    if array.dtype.kind not in "iub":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return array


def _specialized(item):
    """``item`` with each symbolic int in it guarded to its value (an index list's ints)."""
    if isinstance(item, SymInt):
        return item.env.specialize(item)
    if isinstance(item, (list, tuple)):
        return [_specialized(i) for i in item]
    return item


def split_advanced(em: EmitterCore, x: Tensor, index) -> Advanced:
    """NumPy's reading of an advanced index of ``x``: the basic part, each index array
    with the dim it indexes, and whether the batch dims go in front."""
    items = list(_as_tuple(index))
    arrays_present = any(_is_array_item(i) for i in items)
    kinds = []
    for i, item in enumerate(items):
        if item is None or item is Ellipsis or isinstance(item, slice):
            kinds.append("basic")
        elif isinstance(item, (int, np.integer, SymInt)) and not isinstance(item, (bool, np.bool_)):
            kinds.append("array" if arrays_present else "basic")
            if arrays_present:
                items[i] = np.asarray(item.env.specialize(item) if isinstance(item, SymInt) else int(item), np.intp)
        else:
            items[i] = _index_array(item)
            kinds.append("array")
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    positions = [i for i, k in enumerate(kinds) if k == "array"]
    adjacent = positions[-1] - positions[0] + 1 == len(positions)
    consumed = sum(
        (item.ndim if k == "array" and item.dtype.kind == "b" else 1)
        for item, k in zip(items, kinds)
        if item is not None and item is not Ellipsis
    )
    if consumed > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, but {consumed} were indexed")
    shape = em.shape(x)
    basic, dims, arrays = [], [], []
    x_dim = 0
    for item, kind in zip(items, kinds):
        if item is Ellipsis:
            for _ in range(x.ndim - consumed):
                basic.append(slice(None))
                x_dim += 1
            continue
        if kind == "basic":
            basic.append(item)
            x_dim += item is not None
            continue
        if item.dtype.kind == "b":  # a boolean array over item.ndim dims
            if isinstance(item, Tensor):
                raise NotImplementedError(
                    "indexing with a boolean array here (x[mask] alone, reduced or assigned, is supported)"
                )
            for k, size in enumerate(item.shape):
                if not em.equal_sizes(shape[x_dim + k], size):
                    actual = shape[x_dim + k]
                    actual = actual.hint if isinstance(actual, SymInt) else actual
                    raise IndexError(
                        f"boolean index did not match indexed array along axis {x_dim + k}; size of axis is "
                        f"{actual} but size of corresponding boolean axis is {size}"
                    )
            for nz in np.nonzero(item):
                dims.append(len(basic))
                arrays.append(nz.astype(np.intp))
                basic.append(slice(None))
                x_dim += 1
            continue
        dims.append(len(basic))
        arrays.append(item)
        basic.append(slice(None))
        x_dim += 1
    for _ in range(x.ndim - x_dim):  # the implicit trailing ``...``
        basic.append(slice(None))
    return Advanced(tuple(basic), dims, arrays, adjacent)


def _basic_part(em: EmitterCore, x: Tensor, adv: Advanced) -> Tensor:
    if all(isinstance(i, slice) and i == slice(None) for i in adv.basic):
        return x
    return getitem(em, x, adv.basic)


def _size_tensor(em: EmitterCore, size) -> Tensor:
    """A size (int or SymInt) as a 0-d int64 tensor of the graph."""
    if isinstance(size, SymInt):
        return em.wrap(em.b.from_index(em.size_value(size)))
    return em.constant(np.int64(size))


def check_bounds(em: EmitterCore, index: Tensor, size, axis: int) -> None:
    """A run-time check that every element of the int64 ``index`` lies in ``[-size, size)``."""
    shape = em.shape(index)
    if any(not isinstance(d, SymInt) and d == 0 for d in shape):
        return
    n = em.broadcast_to(_size_tensor(em, size), shape)
    minus_n = em.emit("neg", n)
    low = em.emit("cmp", index, minus_n, predicate="lt")
    high = em.emit("cmp", index, n, predicate="ge")
    em.add_check(em.emit("or", low, high))


def index_tensor(em: EmitterCore, y: Tensor, adv: Advanced) -> tuple:
    """(``indices``, ``axes``, ``at``, the shape gather gives) for the index arrays of
    ``adv`` over the basic part ``y``, with their bounds checked."""
    y_shape = em.shape(y)
    shapes = [em.shape(a) if isinstance(a, Tensor) else a.shape for a in adv.arrays]
    try:
        batch = em.broadcast_shapes(shapes, "indexing")
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            + " ".join(shape_text(s) for s in shapes)
            + " "
        ) from None
    empty = any(not isinstance(d, SymInt) and d == 0 for d in batch)
    pieces = []
    for dim, array in zip(adv.dims, adv.arrays):
        size = y_shape[dim]
        if isinstance(array, Tensor):
            t = em.cast(array, np.int64)
            if not empty:
                if not isinstance(size, SymInt) and size == 0:
                    raise IndexError(f"index out of bounds for axis {dim} with size 0")
                check_bounds(em, t, size, dim)
        else:
            if array.size and not empty:
                if isinstance(size, SymInt):
                    lo, hi = int(array.min()), int(array.max())
                    ok = em.shape_env.evaluate(size > hi) if hi >= 0 else True
                    ok = ok and (em.shape_env.evaluate(size >= -lo) if lo < 0 else True)
                else:
                    bad = array[(array < -size) | (array >= size)]
                    ok = not bad.size
                if not ok:
                    first = array[(array < -_hint(size)) | (array >= _hint(size))].flat[0]
                    raise IndexError(f"index {first} is out of bounds for axis {dim} with size {_hint(size)}")
            t = em.constant(array.astype(np.int64))
        t = em.broadcast_to(t, batch)
        pieces.append(em.emit("expand_dims", t, axes=(len(batch),)))
    indices = pieces[0]
    for piece in pieces[1:]:
        indices = em.emit("concatenate", indices, piece, axis=len(batch))
    axes = tuple(adv.dims)
    rest = [d for i, d in enumerate(y_shape) if i not in axes]
    at = adv.dims[0] if adv.adjacent else 0
    shape = tuple(rest[:at]) + tuple(batch) + tuple(rest[at:])
    return indices, axes, at, shape


def _hint(size):
    return size.hint if isinstance(size, SymInt) else size


def advanced_getitem(em: EmitterCore, x: Tensor, index) -> Tensor:
    """``x[index]`` for an advanced index: a gather of the basic part (a new array)."""
    adv = split_advanced(em, x, index)
    y = _basic_part(em, x, adv)
    indices, axes, at, _shape = index_tensor(em, y, adv)
    result = em.emit("gather", y, indices, axes=axes, at=at)
    scalars = [i for i in _as_tuple(index) if isinstance(i, Tensor)]
    if result.ndim and all(t.scalar and t.ndim == 0 for t in scalars) and not _has_index_list(index):
        # only NumPy integer scalars: basic indexing in NumPy, a view at a data-dependent
        # offset; computed as a gather, followed as an opaque view (never written through)
        em.opaque_views.add(result.value)
    return result


def _has_index_list(index) -> bool:
    return any(isinstance(i, (list, tuple, np.ndarray)) for i in _as_tuple(index))


def scatter(em: EmitterCore, y: Tensor, adv: Advanced, value: Tensor, add: bool = False) -> Tensor:
    """The new value of the basic part ``y`` after ``y[arrays] = value`` (``value`` of
    ``y``'s dtype; broadcast to the indexed shape as NumPy's assignment does); with
    ``add``, after ``np.add.at(y, arrays, value)``: each value added, repeats accumulating."""
    indices, axes, at, shape = index_tensor(em, y, adv)
    value = fit_value(em, value, shape)
    return em.emit("scatter_add" if add else "scatter", y, indices, value, axes=axes, at=at)


def fit_value(em: EmitterCore, value: Tensor, shape: tuple) -> Tensor:
    """``value`` broadcast to ``shape`` by NumPy's assignment rules (extra leading 1s drop)."""
    vshape = em.shape(value)
    if len(vshape) > len(shape):
        extra = vshape[: len(vshape) - len(shape)]
        if any(isinstance(d, SymInt) or d != 1 for d in extra):
            raise ValueError(
                f"shape mismatch: value array of shape {shape_text(vshape)} could not be broadcast to "
                f"indexing result of shape {shape_text(shape)}"
            )
        value = em.emit("squeeze", value, axes=tuple(range(len(extra))))
    try:
        out = em.broadcast_shapes([em.shape(value), shape], "indexing")
    except ValueError:
        out = None
    if out is None or not same_shape(out, tuple(em.shape_env.normalize(d) for d in shape)):
        raise ValueError(
            f"shape mismatch: value array of shape {shape_text(vshape)} could not be broadcast to "
            f"indexing result of shape {shape_text(shape)}"
        )
    return em.broadcast_to(value, shape)


# ----------------------------------------------------------------------------- boolean masks
#
# ``x[mask]`` has as many elements as ``mask`` has True: a size only the data knows.
# It stays lazy, a ``Masked`` (``x`` itself and the mask over its leading dims), and
# compiles where that size does not matter: reductions (``sum prod mean max min any
# all count_nonzero``) reduce ``select(mask, x, identity)``; ``len``/``.size`` count the
# mask; elementwise arithmetic with scalars (or arrays of the trailing dims) maps
# ``x`` under the same mask; ``x[mask] = v`` and ``x[mask] = y[mask]`` are a
# ``select`` (``mutation.setitem``). Anything else needs the elements themselves and
# raises ``NotImplementedError`` (a graph break) saying so.


@dataclass(frozen=True)
class Masked:
    """``full[mask]``, not materialized: ``mask`` (bool) covers ``full``'s leading dims."""

    full: Tensor
    mask: Tensor

    @property
    def dtype(self) -> np.dtype:
        return self.full.dtype

    @property
    def ndim(self) -> int:
        return 1 + self.full.ndim - self.mask.ndim


def _data_dependent(what: str) -> NotImplementedError:
    return NotImplementedError(
        f"{what} of a boolean-mask result x[mask]: its size depends on the data (only reductions, "
        "len(), .size, elementwise arithmetic with scalars and x[mask] = ... compile)"
    )


def mask_of(em: EmitterCore, x: Tensor, index) -> Tensor | None:
    """The traced boolean mask of ``x[mask]`` / ``x[mask, ...]``, checked against ``x``'s
    shape as NumPy checks it; None for any other index."""
    items = list(_as_tuple(index))
    if items and items[-1] is Ellipsis:
        items = items[:-1]
    if len(items) != 1 or not isinstance(items[0], Tensor) or items[0].dtype.kind != "b":
        return None
    mask = items[0]
    if mask.ndim > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, but {mask.ndim} were indexed")
    shape, mshape = em.shape(x), em.shape(mask)
    for axis, (size, msize) in enumerate(zip(shape, mshape)):
        if not em.equal_sizes(size, msize):
            raise IndexError(
                f"boolean index did not match indexed array along axis {axis}; size of axis is {_hint(size)} "
                f"but size of corresponding boolean axis is {_hint(msize)}"
            )
    return mask


def masked_getitem(em: EmitterCore, x: Tensor, index) -> Masked | None:
    mask = mask_of(em, x, index)
    return None if mask is None else Masked(x, mask)


def same_mask(masked: Masked, mask: Tensor) -> bool:
    return masked.mask.value == mask.value


def _spread_mask(em: EmitterCore, mask: Tensor, like: Tensor) -> Tensor:
    """``mask`` over ``like``'s leading dims, broadcast over its trailing ones."""
    extra = like.ndim - mask.ndim
    if extra:
        mask = em.emit("expand_dims", mask, axes=tuple(range(mask.ndim, like.ndim)))
    return em.broadcast_to(mask, em.shape(like))


def mask_fill(em: EmitterCore, target: Tensor, mask: Tensor, value: Tensor, spread: bool) -> Tensor:
    """``target`` after ``target[mask] = value`` (``value`` of ``target``'s dtype): a
    ``select``. ``spread``: ``value`` has ``target``'s shape (``y[mask]``, the same
    mask); else ``value`` must give every selected element the same value (it does not
    depend on how many there are)."""
    tshape = em.shape(target)
    if spread:
        if not same_shape(em.shape(value), tshape):
            raise NotImplementedError("x[mask] = y[mask] with y of another shape than x")
        return em.emit("select", _spread_mask(em, mask, target), value, target)
    rest = tshape[mask.ndim :]
    vshape = em.shape(value)
    while len(vshape) > len(rest):
        lead = vshape[0]
        if isinstance(lead, SymInt) or lead != 1:
            raise NotImplementedError(
                "x[mask] = values with one value per selected element (their number depends on the data)"
            )
        value = em.emit("squeeze", value, axes=(0,))
        vshape = em.shape(value)
    try:
        out = em.broadcast_shapes([vshape, rest], "indexing")
    except ValueError:
        out = None
    if out is None or not same_shape(out, tuple(rest)):
        raise ValueError(
            f"NumPy boolean array indexing assignment cannot assign {shape_text(vshape)} input values to the output"
        )
    value = em.broadcast_to(value, tshape)
    return em.emit("select", _spread_mask(em, mask, target), value, target)


def _count(em: EmitterCore, masked: Masked, per_element: bool) -> Tensor:
    """How many rows (``per_element``: elements) ``masked`` selects: a 0-d int64."""
    ones = em.cast(masked.mask, np.int64)
    count = em.emit("sum", ones, axes=tuple(range(ones.ndim)), keepdims=False) if ones.ndim else ones
    if per_element:
        rest = em.shape(masked.full)[masked.mask.ndim :]
        static = 1
        for d in rest:
            if isinstance(d, SymInt):
                count = em.emit("mul", count, _size_tensor(em, d))
            else:
                static *= d
        if static != 1:
            count = em.emit("mul", count, em.constant(np.int64(static)))
    return count


def _identity(dtype: np.dtype, kind: str):
    if kind == "sum":
        return -0.0 if dtype.kind == "f" else 0
    if kind == "prod":
        return 1
    if dtype.kind == "b":
        return kind == "min"
    if dtype.kind == "f":
        return -np.inf if kind == "max" else np.inf
    info = np.iinfo(dtype)
    return info.min if kind == "max" else info.max


def _filled(em: EmitterCore, masked: Masked, fill) -> Tensor:
    full = masked.full
    return em.emit("select", _spread_mask(em, masked.mask, full), full, em.scalar_like(fill, full.dtype, full))


_REDUCTIONS = {
    np.sum: "sum",
    "sum": "sum",
    np.prod: "prod",
    "prod": "prod",
    np.max: "max",
    np.amax: "max",
    "max": "max",
    np.min: "min",
    np.amin: "min",
    "min": "min",
    np.any: "any",
    "any": "any",
    np.all: "all",
    "all": "all",
    np.mean: "mean",
    "mean": "mean",
    np.count_nonzero: "count_nonzero",
}


def masked_call(em, fn, args, kwargs, elementwise: bool):
    """NumPy's ``fn(*args, **kwargs)`` where some argument is a ``Masked``; ``elementwise``:
    ``fn`` is a ufunc (or its operator)."""
    masked = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Masked)]
    first = masked[0]
    key = fn if isinstance(fn, (str, np.ufunc)) or callable(fn) else None
    name = fn if isinstance(fn, str) else getattr(fn, "__name__", repr(fn))
    if key in ("size",):
        return dataclasses.replace(_count(em, first, per_element=True), weak=True, scalar=True)
    if key == "len":
        return dataclasses.replace(_count(em, first, per_element=False), weak=True, scalar=True)
    if key == "ndim":
        return first.ndim
    if key == "dtype":
        return first.dtype
    if elementwise:
        if any(not same_mask(m, first.mask) for m in masked):
            raise _data_dependent(f"{name} of two different masks")
        rest = first.full.ndim - first.mask.ndim
        plain = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
        if any(t.ndim > rest for t in plain):
            raise _data_dependent(f"{name} with an array operand")
        result = em.call(
            fn,
            *[a.full if isinstance(a, Masked) else a for a in args],
            **{k: a.full if isinstance(a, Masked) else a for k, a in kwargs.items()},
        )
        if not isinstance(result, Tensor):
            raise _data_dependent(name)
        return Masked(dataclasses.replace(result, scalar=False), first.mask)
    kind = _REDUCTIONS.get(key) if _hashable(key) else None
    if kind is None or len(masked) != 1 or not args or args[0] is not first:
        raise _data_dependent(f"{name}()")
    axis = None
    for k, value in kwargs.items():
        if k == "dtype" and kind in ("sum", "prod", "mean"):
            continue
        if k == "axis":
            axis = value
            continue
        if k == "keepdims" and value is False:
            continue
        raise NotImplementedError(f"{name} of x[mask] with {k}={value!r}")
    if len(args) > 1:
        raise NotImplementedError(f"{name} of x[mask] with positional arguments")
    kwargs = {k: a for k, a in kwargs.items() if k == "dtype"}
    full = first.full
    rows_only = False  # reduce over the selected rows only: ``X[labels == k].mean(axis=0)``
    if axis is not None:
        from compiler.frontend.numpy_core import normalize_axes

        if normalize_axes(axis, first.ndim) != (0,):
            raise _data_dependent(f"{name}(axis={axis!r})")
        if first.ndim > 1:
            rows_only = True
            kwargs["axis"] = tuple(range(first.mask.ndim))
    if kind in ("any", "all", "count_nonzero"):
        truth = em.cast(full, np.bool_)
        filled = em.emit(
            "select", _spread_mask(em, first.mask, full), truth, em.scalar_like(kind == "all", np.bool_, full)
        )
        fn = {"any": np.any, "all": np.all, "count_nonzero": np.count_nonzero}[kind]
        return em.call(fn, filled, **kwargs)
    if kind == "mean":
        dtype = kwargs.pop("dtype", None)
        if dtype is None and full.dtype.kind in "biu":
            dtype = np.float64
        total = em.call(np.sum, _filled(em, first, _identity(full.dtype, "sum")), dtype=dtype, **kwargs)
        count = dataclasses.replace(_count(em, first, per_element=not rows_only), weak=True, scalar=False)
        mean = em.call(np.true_divide, total, count)
        if mean.dtype != total.dtype:  # NumPy divides, then converts back to the sum's dtype
            mean = em.cast(mean, total.dtype)
        return mean
    filled = _filled(em, first, _identity(full.dtype, kind))
    if kind in ("max", "min"):
        empty = em.emit("cmp", _count(em, first, per_element=not rows_only), em.constant(np.int64(0)), predicate="eq")
        em.add_check(empty)  # NumPy raises ValueError (a reduction with no identity)
    fns = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}
    return em.call(fns[kind], filled, **kwargs)


def _hashable(key) -> bool:
    try:
        hash(key)
        return True
    except TypeError:
        return False


# ----------------------------------------------------------------------------- take, put, along an axis


def _index_operand(em: EmitterCore, indices, fname: str) -> Tensor:
    """Indices (a traced array, a list, an int) as an integer tensor."""
    if not isinstance(indices, Tensor):
        array = _index_array(indices)
        if array.dtype.kind == "b":
            raise NotImplementedError(f"{fname}: boolean indices")
        return em.constant(array.astype(np.int64))
    if indices.dtype.kind == "u":
        raise NotImplementedError(f"{fname}: unsigned indices (their values as int64 could wrap)")
    if indices.dtype.kind not in "iu":
        raise TypeError(
            f"Cannot cast array data from dtype('{indices.dtype}') to dtype('int64') according to the rule 'safe'"
        )
    return em.cast(indices, np.int64)


def _mode_indices(em: EmitterCore, index: Tensor, size, mode: str, axis: int) -> Tensor:
    """``mode='raise'``: checked (negatives count from the end); ``'wrap'``: modulo the
    size; ``'clip'``: clamped to ``[0, size - 1]`` (a negative index is 0)."""
    if mode == "raise":
        check_bounds(em, index, size, axis)
        return index
    n = em.broadcast_to(_size_tensor(em, size), em.shape(index))
    if mode == "wrap":
        return em.call(np.mod, index, n)
    if mode == "clip":
        zero = em.scalar_like(0, np.int64, index)
        last = em.emit("sub", n, em.scalar_like(1, np.int64, index))
        return em.emit("minimum", em.emit("maximum", index, zero), last)
    raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")


def elements(em: EmitterCore, values: Tensor, most: int, what: str) -> list:
    """The elements of a traced array of a fixed size up to ``most``, flattened, as 0-d
    tensors (``np.isin``'s test values, ``np.polyval``'s coefficients made in the
    function); ``what`` names them in the break."""
    size = 1
    for d in em.shape(values):
        if isinstance(d, SymInt):
            raise NotImplementedError(f"{what} of a size known only at run time")
        size *= d
    if size > most:
        raise NotImplementedError(f"{what}: more than {most} elements computed while tracing")
    flat = values if values.ndim == 1 else em.emit_shaped("reshape", values, shape=(size,), dtype=values.type.dtype)
    return [getitem(em, flat, k) for k in range(size)]


def neighbours(em: EmitterCore, a: Tensor) -> tuple:
    """``(a[:-1], a[1:])`` of a 1-d ``a``: each element and the next."""
    return getitem(em, a, slice(None, -1)), getitem(em, a, slice(1, None))


def non_empty(shape) -> bool:
    """No size of ``shape`` is known to be 0 (a symbolic size is 2 or more: 0 and 1 are
    specialized, as torch.compile's)."""
    return not any(not isinstance(d, SymInt) and d == 0 for d in shape)


def take(em: EmitterCore, a, indices, axis=None, out=None, mode="raise") -> Tensor:
    """``np.take``: a gather along one axis (``axis=None``: of the flattened array)."""
    if out is not None:
        raise NotImplementedError("np.take: argument out= is not supported")
    a = em.array(a, "np.take")
    if axis is None:
        a = em.emit_shaped("reshape", a, shape=(_numel(em, a),), dtype=a.type.dtype) if a.ndim != 1 else a
        axis = 0
    from compiler.frontend.numpy_core import normalize_axis

    axis = normalize_axis(axis, a.ndim)
    index = _index_operand(em, indices, "np.take")
    size = em.shape(a)[axis]
    if non_empty(em.shape(index)):
        if not isinstance(size, SymInt) and size == 0:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        index = _mode_indices(em, index, size, mode, axis)
    stacked = em.emit("expand_dims", index, axes=(index.ndim,))
    return em.emit("gather", a, stacked, axes=(axis,), at=axis)


def _numel(em: EmitterCore, t: Tensor):
    n = 1
    for d in em.shape(t):
        n = n * d
    return em.shape_env.normalize(n)


def _along_axis(em: EmitterCore, arr: Tensor, indices, axis, fname: str) -> tuple:
    """NumPy's ``_make_along_axis_idx``: (``arr`` (flattened for ``axis=None``), the stacked
    indices over every axis of ``arr``, their batch shape)."""
    if axis is None:
        if arr.ndim != 1:
            arr = em.emit_shaped("reshape", arr, shape=(_numel(em, arr),), dtype=arr.type.dtype)
        axis = 0
    from compiler.frontend.numpy_core import normalize_axis

    axis = normalize_axis(axis, arr.ndim)
    index = _index_operand(em, indices, fname)
    if index.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    shape = em.shape(arr)
    fancy = [1 if d == axis else s for d, s in enumerate(shape)]
    batch = em.broadcast_shapes([tuple(fancy), em.shape(index)], fname)
    pieces = []
    for d in range(arr.ndim):
        if d == axis:
            if non_empty(batch):
                check_bounds(em, index, shape[d], d)
            piece = em.broadcast_to(index, batch)
        elif not isinstance(shape[d], SymInt) and shape[d] == 1:
            piece = em.broadcast_to(em.constant(np.int64(0)), batch)
        else:
            piece = em.emit_shaped("iota", shape=batch, dtype="i64", axis=d)
        pieces.append(em.emit("expand_dims", piece, axes=(len(batch),)))
    stacked = pieces[0]
    for piece in pieces[1:]:
        stacked = em.emit("concatenate", stacked, piece, axis=len(batch))
    return arr, stacked, batch


def take_along_axis(em: EmitterCore, arr, indices, axis=-1) -> Tensor:
    arr = em.array(arr, "np.take_along_axis")
    arr, stacked, _batch = _along_axis(em, arr, indices, axis, "np.take_along_axis")
    return em.emit("gather", arr, stacked, axes=tuple(range(arr.ndim)), at=0)


def put_along_axis(em: EmitterCore, arr: Tensor, indices, values: Tensor, axis) -> Tensor:
    """The new value of ``arr`` after ``np.put_along_axis`` (``values`` of its dtype)."""
    if axis is None and arr.ndim != 1:
        raise NotImplementedError("np.put_along_axis with axis=None on a multi-dimensional array")
    flat, stacked, batch = _along_axis(em, arr, indices, axis, "np.put_along_axis")
    value = fit_value(em, values, batch)
    return em.emit("scatter", flat, stacked, value, axes=tuple(range(flat.ndim)), at=0)


def put(em: EmitterCore, a: Tensor, ind, v: Tensor, mode="raise") -> Tensor:
    """The new value of ``a`` after ``np.put(a, ind, v, mode)``: ``a.flat[ind] = v`` (``v``
    of ``a``'s dtype, one value or one per index: NumPy would repeat a shorter ``v``)."""
    if a.ndim == 0:
        raise NotImplementedError("np.put into a 0-d array")
    index = _index_operand(em, ind, "np.put")
    index = em.emit_shaped("reshape", index, shape=(_numel(em, index),), dtype="i64") if index.ndim != 1 else index
    count = em.shape(index)[0]
    if not non_empty((count,)):
        return a
    size = _numel(em, a)
    if not isinstance(size, SymInt) and size == 0:
        raise IndexError("cannot replace elements of an empty array")
    index = _mode_indices(em, index, size, mode, 0)
    if mode == "raise":  # negatives wrapped here: the coordinates below need them in range
        n = em.broadcast_to(_size_tensor(em, size), em.shape(index))
        negative = em.emit("cmp", index, em.scalar_like(0, np.int64, index), predicate="lt")
        index = em.emit("select", negative, em.emit("add", index, n), index)
    values = v
    if values.ndim != 1:
        values = em.emit_shaped("reshape", values, shape=(_numel(em, values),), dtype=values.type.dtype)
    vcount = em.shape(values)[0]
    if not em.equal_sizes(vcount, count):
        if isinstance(vcount, SymInt) or vcount != 1:
            raise NotImplementedError("np.put with fewer values than indices (NumPy repeats them)")
        values = em.broadcast_to(em.emit("squeeze", values, axes=(0,)), (count,))
    # the flat index as coordinates of ``a`` (C order, whatever its layout)
    shape = em.shape(a)
    coords, rest = [], index
    for d in reversed(range(a.ndim)):
        n = em.broadcast_to(_size_tensor(em, shape[d]), (count,))
        coords.append(em.emit("mod", rest, n) if d else rest)
        rest = em.emit("floordiv", rest, n)
    pieces = [em.emit("expand_dims", c, axes=(1,)) for c in reversed(coords)]
    stacked = pieces[0]
    for piece in pieces[1:]:
        stacked = em.emit("concatenate", stacked, piece, axis=1)
    return em.emit("scatter", a, stacked, values, axes=tuple(range(a.ndim)), at=0)


def fill_diagonal(em: EmitterCore, a: Tensor, val: Tensor, wrap=False) -> Tensor:
    """The new value of ``a`` after ``np.fill_diagonal(a, val)`` (``val`` of its dtype; one
    value, or one per diagonal element)."""
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    shape = em.shape(a)
    if a.ndim > 2:
        for d in shape[1:]:
            if not em.equal_sizes(d, shape[0]):
                raise ValueError("All dimensions of input must be of equal length")
    rows, cols = shape[0], shape[1]
    if wrap and a.ndim == 2 and (isinstance(rows, SymInt) or isinstance(cols, SymInt) or rows > cols + 1):
        raise NotImplementedError("np.fill_diagonal(wrap=True) of a tall matrix")
    length = rows if a.ndim > 2 else em.shape_env.normalize(_min(em, rows, cols))
    if not non_empty((length,)):
        return a
    if val.ndim:
        count = _numel(em, val)
        if not isinstance(count, SymInt) and count == 1:
            val = em.emit_shaped("reshape", val, shape=(), dtype=val.type.dtype)
        elif em.equal_sizes(count, length):
            val = em.emit_shaped("reshape", val, shape=(length,), dtype=val.type.dtype)
        else:
            raise NotImplementedError("np.fill_diagonal with a number of values other than 1 or the diagonal's length")
    diagonal = em.emit("expand_dims", em.emit_shaped("iota", shape=(length,), dtype="i64", axis=0), axes=(1,))
    stacked = diagonal
    for _ in range(a.ndim - 1):
        stacked = em.emit("concatenate", stacked, diagonal, axis=1)
    return em.emit("scatter", a, stacked, em.broadcast_to(val, (length,)), axes=tuple(range(a.ndim)), at=0)


def unravel_index(em: EmitterCore, indices, shape, order="C") -> tuple:
    """``np.unravel_index``: flat indices into an array of ``shape`` as one int64 index
    per dim, by remainders and quotients of the sizes (the last dim's first, ``order="C"``;
    ``"F"``: the first's). An index outside ``[0, size)`` is NumPy's ``ValueError``, by a
    run-time check."""
    from compiler.frontend.numpy_elementwise import apply_ufunc

    fname = "np.unravel_index"
    index = em.array(indices, fname)
    if index.dtype.kind not in "iu":
        raise TypeError("only int indices permitted")
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if any(isinstance(d, Tensor) for d in dims):
        raise NotImplementedError(f"{fname}: a shape computed while tracing")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    index = em.cast(index, np.int64)
    size = 1
    for d in dims:
        size = size * d
    if non_empty(em.shape(index)):
        low = apply_ufunc(em, np.less, index, 0)
        em.add_check(em.emit("or", low, apply_ufunc(em, np.greater_equal, index, size)))
    parts, rest = [], index
    for d in reversed(dims) if order == "C" else dims:
        parts.append(apply_ufunc(em, np.remainder, rest, d))
        rest = apply_ufunc(em, np.floor_divide, rest, d)
    return tuple(reversed(parts)) if order == "C" else tuple(parts)


def _min(em: EmitterCore, a, b):
    if not isinstance(a, SymInt) and not isinstance(b, SymInt):
        return min(a, b)
    return a if em.shape_env.evaluate(a <= b) else b


# NumPy functions whose result's size depends on the data: a graph break that says so.
DATA_DEPENDENT = {
    np.nonzero: "np.nonzero",
    "nonzero": "x.nonzero()",
    np.argwhere: "np.argwhere",
    np.flatnonzero: "np.flatnonzero",
    np.extract: "np.extract",
    np.compress: "np.compress",
    "compress": "x.compress()",
    np.unique: "np.unique",
}


def data_dependent(fn) -> str | None:
    try:
        name = DATA_DEPENDENT.get(fn)
    except TypeError:
        return None
    if name is None:
        return None
    return f"{name}: the result's size depends on the data (it is computed in CPython)"


ROWS = [
    ((np.take, "take"), take, "gather (+cmp, or, max: the bounds check)", "same"),
    ((np.take_along_axis,), take_along_axis, "gather, iota, concatenate", "same"),
    ((np.unravel_index,), unravel_index, "mod, floordiv (+cmp, or: the bounds check)", "int64"),
]
METHODS = ("take", "nonzero", "compress")
