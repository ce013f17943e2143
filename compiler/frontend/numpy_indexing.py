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

from dataclasses import dataclass

import numpy as np

from compiler.frontend.numpy_core import EmitterCore, Tensor, same_shape
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
