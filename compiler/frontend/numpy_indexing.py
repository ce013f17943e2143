"""Basic indexing ``x[...]``: ints, slices (any step), ``None`` and ``...``.

One index becomes at most three Ember ops: a ``slice`` over every input dim (an int
is a length-1 slice), a ``squeeze`` of the int dims and an ``expand_dims`` for each
``None``. With a symbolic (``?``) size only what does not depend on it is traced:
``:``, ``::-1``, and the ints 0 and -1 (symbolic sizes are never 0 or 1); the rest
raises ``NotImplementedError``. Advanced indexing (arrays, lists, bools) is not basic
indexing and also raises ``NotImplementedError``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler.dialects.types import DYN
from compiler.frontend.numpy_core import EmitterCore, SymbolicSize, Tensor


@dataclass
class _Plan:
    starts: list
    steps: list
    shape: list  # sliced shape, one entry per input dim
    squeezed: list  # input dims indexed by an int
    new_axes: list  # output positions of the None entries


def getitem(em: EmitterCore, x: Tensor, index) -> Tensor:
    items = _expand(_as_tuple(index), x.ndim)
    plan = _plan(x, items)
    result = x
    if plan.shape != list(x.shape) or any(s != 0 or t != 1 for s, t in zip(plan.starts, plan.steps)):
        sizes = [em.dim(x, a) for a, d in enumerate(plan.shape) if d is DYN]
        result = em.emit(
            "slice",
            x,
            result=x.type.with_shape(plan.shape),
            sizes=sizes,
            starts=tuple(plan.starts),
            steps=tuple(plan.steps),
        )
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


def _plan(x: Tensor, items: list) -> _Plan:
    plan = _Plan([], [], [], [], [])
    out_axis, dim = 0, 0
    for item in items:
        if item is None:
            plan.new_axes.append(out_axis)
            out_axis += 1
            continue
        size = x.shape[dim]
        if isinstance(item, slice):
            start, step, length = _slice(item, size, dim)
            out_axis += 1
        else:
            start, step, length = _int(int(item), size, dim), 1, 1
            plan.squeezed.append(dim)
        plan.starts.append(start)
        plan.steps.append(step)
        plan.shape.append(length)
        dim += 1
    return plan


def _int(i: int, size, dim: int) -> int:
    if size is DYN:
        if i in (0, -1):
            return i  # a negative start counts from the end, as in NumPy
        raise NotImplementedError(f"index {i} into the symbolic size of axis {dim}")
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for axis {dim} with size {size}")
    return i % size


def _slice(item: slice, size, dim: int) -> tuple:
    for bound in (item.start, item.stop, item.step):
        if bound is not None and not isinstance(bound, (int, np.integer)) or isinstance(bound, SymbolicSize):
            raise NotImplementedError(f"slice bound of type {type(bound).__name__}")
    if item.step == 0:
        raise ValueError("slice step cannot be zero")
    if size is DYN:
        return _dynamic_slice(item, dim)
    start, stop, step = item.indices(size)
    length = len(range(start, stop, step))
    return (start if length else 0), step, length


def _dynamic_slice(item: slice, dim: int) -> tuple:
    if item.start is None and item.stop is None and item.step in (None, 1, -1):
        step = item.step or 1
        return (0 if step == 1 else -1), step, DYN
    raise NotImplementedError(f"slice {item} of the symbolic size of axis {dim}")
