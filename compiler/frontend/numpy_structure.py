"""NumPy's shape and structure functions: flips, rolls, tiling, padding, differences,
triangles and diagonals, stacking, splitting, broadcasting, axis moves, meshgrids.

Every rule is composed of Ember's existing ops (``slice``, ``concatenate``,
``broadcast_to``, ``reshape``, ``transpose``, ``expand_dims``, ``iota``, ``cmp``,
``select`` and the ufuncs), with NumPy's parameter names, defaults, dtypes and errors.

**Views.** What NumPy returns as a view of its argument is built from view ops only
(``flip`` is a ``slice`` of step -1, ``swapaxes``/``moveaxis`` a ``transpose``, the
``atleast_*`` an ``expand_dims``) and listed in ``view_steps.VIEW_FUNCTIONS``, so the
tracer follows it: writing through it writes the argument, and a returned one shares
the caller's memory. The read-only views (``broadcast_to``, ``diagonal``, ``np.diag``)
are listed there too but always end in an op that is no view op, so the tracer marks
them views it cannot follow: used in arithmetic they compile; returned, written, or
read after their base is written, the call runs in CPython (never a different
aliasing). Functions returning a *list* of views (``split``, ``array_split``,
``broadcast_arrays``, ``atleast_*`` of several arrays) compile only when the tracer
follows the views in a list (``LIST_VIEWS_FOLLOWED``); until then, traced on an array,
they raise ``NotImplementedError``. Everything else (``roll``, ``tile``, ``repeat``,
``pad``, ``diff``, ``outer``, ``tril``/``triu``, the stacks, ``meshgrid``) returns a new
array, as NumPy does.

**Symbolic sizes.** ``flip``, ``swapaxes``, ``moveaxis``, ``outer``, ``tril``/``triu``,
``diag`` (1-d), the stacks, ``broadcast_to``, ``atleast_*``, ``meshgrid``, ``tile`` and
``repeat`` (scalar repeats), ``diff``, ``pad`` (constant and edge) keep sizes symbolic;
``roll`` guards ``|shift| < size`` (else specializes the size); ``diagonal``/``trace``
take the diagonal by a mask and a ``max`` reduction; ``pad`` (wrap, reflect,
symmetric), ``split``/``array_split`` by sections and ``repeat`` with a list of counts
specialize the size they depend on.
"""

from __future__ import annotations

import dataclasses
import functools
import operator

import numpy as np

from compiler.frontend import numpy_creation as cr
from compiler.frontend import numpy_indexing, promotion
from compiler.frontend import numpy_shapes as sh
from compiler.frontend.numpy_core import (
    NOVALUE,
    EmitterCore,
    Tensor,
    normalize_axis,
    reject,
    shape_text,
)
from compiler.frontend.numpy_elementwise import apply_ufunc
from compiler.frontend.numpy_indexing import getitem
from compiler.frontend.symbolic_shapes import SymInt, sym_min

# Whether ``mutation.track_view`` follows the views in a list or tuple result (each
# item by the chain of view ops leading to it from the first argument). Until it does,
# the functions returning lists of views refuse to be traced on an array.
LIST_VIEWS_FOLLOWED = True


# ----------------------------------------------------------------------------- helpers


def _array(t: Tensor) -> Tensor:
    """``t`` as an array (a NumPy scalar operand's results are arrays)."""
    return dataclasses.replace(t, scalar=False) if t.scalar else t


def _along(ndim: int, axis: int, item) -> tuple:
    return tuple(item if i == axis else slice(None) for i in range(ndim))


def _is_zero(d) -> bool:
    return not isinstance(d, SymInt) and d == 0


def _int(value, fname: str, what: str) -> int:
    """A trace-time integer argument (a traced array or a float is not one)."""
    if isinstance(value, Tensor):
        raise NotImplementedError(f"{fname}: {what} given as a traced array (the result would depend on data)")
    if isinstance(value, SymInt):
        return value.env.specialize(value)
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer") from None


def _ints(value, fname: str, what: str) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(_int(v, fname, what) for v in value)
    if isinstance(value, np.ndarray):
        return tuple(_int(v, fname, what) for v in value.tolist())
    return (_int(value, fname, what),)


def _axis_tuple(axis, ndim: int, argname: str | None = None, allow_duplicate: bool = False) -> tuple:
    """NumPy's ``normalize_axis_tuple``."""
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in axes:
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"'{type(a).__name__}' object cannot be interpreted as an integer")
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(int(a), ndim, argname)
        out.append(int(a) % ndim)
    if not allow_duplicate and len(set(out)) != len(out):
        raise ValueError(f"repeated axis in `{argname}` argument" if argname else "repeated axis")
    return tuple(out)


def _zeros(em: EmitterCore, shape: tuple, dtype) -> Tensor:
    return cr.fill(em, tuple(shape), 0, dtype)


def _index(em: EmitterCore, a: Tensor, index: tuple) -> Tensor:
    """``a[index]`` (slices only) as a new value: an empty ``a`` gives zeros of the
    result's shape (the CPU backend cannot yet lower a slice with an offset of an array
    with a size-0 dimension)."""
    if any(_is_zero(d) for d in em.shape(a)):
        plan = numpy_indexing._plan(em, a, numpy_indexing._expand(index, a.ndim))
        return _zeros(em, tuple(plan.shape), a.dtype)
    return getitem(em, a, index)


def _take(em: EmitterCore, a: Tensor, axis: int, item: slice) -> Tensor:
    return _index(em, a, _along(a.ndim, axis, item))


def _concat(em: EmitterCore, parts: list, axis: int) -> Tensor:
    """``parts`` (one dtype) joined along ``axis``, empty static pieces dropped."""
    first = em.shape(parts[0])
    if any(_is_zero(d) for i, d in enumerate(first) if i != axis):
        total = em.shape_env.normalize(sum(em.shape(p)[axis] for p in parts))
        return _zeros(em, first[:axis] + (total,) + first[axis + 1 :], parts[0].dtype)
    kept = [p for p in parts if not _is_zero(em.shape(p)[axis])]
    if not kept:
        return parts[0]
    if len(kept) == 1:
        return kept[0]
    return sh.concatenate(em, kept, axis=axis)


def _join(em: EmitterCore, arrays: list, axis: int, **kwargs) -> Tensor:
    """``np.concatenate(arrays, axis, **kwargs)``. An empty result of static sizes is asked
    of NumPy on stand-ins (its errors, dtype and shape) and made of zeros: the CPU backend
    cannot yet join arrays with a size-0 dimension other than the joined one."""
    tensors = [em.array(x, "np.concatenate") for x in arrays]
    shapes = [em.shape(t) for t in tensors]
    static = all(not isinstance(d, SymInt) for s in shapes for d in s)
    if static and any(_is_zero(d) for s in shapes for i, d in enumerate(s) if i != axis):
        stand_ins = [np.broadcast_to(np.zeros((), t.dtype), s) for t, s in zip(tensors, shapes)]
        want = np.concatenate(stand_ins, axis=axis, **kwargs)
        promotion.ember_dtype(want.dtype, "np.concatenate")
        return _zeros(em, want.shape, want.dtype)
    return sh.concatenate(em, tensors, axis=axis, **kwargs)


def _view_sequence(em: EmitterCore, fname: str, args) -> None:
    """Refuse a list of views the tracer would not follow: views of any argument but the
    first, and (until ``LIST_VIEWS_FOLLOWED``) any list of views of a traced array (the
    tracer records the ops of a view function, ``em.recording``, only for an array first
    argument)."""
    if any(isinstance(x, Tensor) for x in args[1:]):
        raise NotImplementedError(f"{fname}: views of several traced arrays in one result")
    if not LIST_VIEWS_FOLLOWED and em.recording is not None:
        raise NotImplementedError(f"{fname}: returns views of its argument in a list, which the tracer does not follow")


# ----------------------------------------------------------------------------- flips, axes


def flip(em: EmitterCore, m, axis=None) -> Tensor:
    m = em.array(m, "np.flip")
    if m.ndim == 0:
        return m  # NumPy indexes a 0-d array by (): a scalar
    axes = tuple(range(m.ndim)) if axis is None else _axis_tuple(axis, m.ndim)
    index = tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(m.ndim))
    return getitem(em, m, index)


def flipud(em: EmitterCore, m) -> Tensor:
    m = em.array(m, "np.flipud")
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(em, m, 0)


def fliplr(em: EmitterCore, m) -> Tensor:
    m = em.array(m, "np.fliplr")
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(em, m, 1)


def swapaxes(em: EmitterCore, a, axis1, axis2) -> Tensor:
    a = em.array(a, "np.swapaxes")
    i = _axis_tuple(axis1, a.ndim, "axis1")[0]
    j = _axis_tuple(axis2, a.ndim, "axis2")[0]
    perm = list(range(a.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return a if i == j else em.emit("transpose", a, perm=tuple(perm))


def moveaxis(em: EmitterCore, a, source, destination) -> Tensor:
    a = em.array(a, "np.moveaxis")
    src = _axis_tuple(source, a.ndim, "source")
    dst = _axis_tuple(destination, a.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a if order == list(range(a.ndim)) else em.emit("transpose", a, perm=tuple(order))


def _atleast(em: EmitterCore, fname: str, arys, expand) -> Tensor | tuple:
    tensors = [_array(em.array(a, fname)) for a in arys]
    results = tuple(expand(t) for t in tensors)
    if len(results) == 1:
        return results[0]
    _view_sequence(em, fname, arys)
    return results


def atleast_1d(em: EmitterCore, *arys):
    def expand(t):
        return em.emit("expand_dims", t, axes=(0,)) if t.ndim == 0 else t

    return _atleast(em, "np.atleast_1d", arys, expand)


def atleast_2d(em: EmitterCore, *arys):
    def expand(t):
        return em.emit("expand_dims", t, axes=tuple(range(2 - t.ndim))) if t.ndim < 2 else t

    return _atleast(em, "np.atleast_2d", arys, expand)


def atleast_3d(em: EmitterCore, *arys):
    def expand(t):
        axes = {0: (0, 1, 2), 1: (0, 2), 2: (2,)}.get(t.ndim)
        return em.emit("expand_dims", t, axes=axes) if axes else t

    return _atleast(em, "np.atleast_3d", arys, expand)


# ----------------------------------------------------------------------------- broadcasting


def _shape_argument(em: EmitterCore, shape, fname: str) -> tuple:
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    out = []
    for d in shape:
        if isinstance(d, Tensor):
            raise NotImplementedError(f"{fname}: a size given as a traced array")
        if not isinstance(d, SymInt):
            d = _int(d, fname, "a size")
            if d < 0:
                raise ValueError("all elements of broadcast shape must be non-negative")
        out.append(em.as_size(d, fname))
    return tuple(out)


def broadcast_to(em: EmitterCore, array, shape, subok=False) -> Tensor:
    reject("np.broadcast_to", subok=(subok, False))
    t = em.refine(em.array(array, "np.broadcast_to"))
    target = _shape_argument(em, shape, "np.broadcast_to")
    current = em.shape(t)
    if len(current) > len(target):
        raise ValueError("input operand has more dimensions than allowed by the axis remapping")
    for d, want in zip(current[::-1], target[::-1]):
        if not (not isinstance(d, SymInt) and d == 1) and not em.equal_sizes(d, want):
            raise ValueError(
                "operands could not be broadcast together with remapped shapes [original->remapped]: "
                f"{_compact(current)}  and requested shape {_compact(target)}"
            )
    # Always an op, even to the same shape: a read-only view the tracer must not follow.
    return em.emit_shaped("broadcast_to", t, shape=target, dtype=t.type.dtype)


def _compact(shape) -> str:
    return "(" + ",".join(str(d) for d in shape) + (",)" if len(shape) == 1 else ")")


def broadcast_arrays(em: EmitterCore, *args, subok=False):
    reject("np.broadcast_arrays", subok=(subok, False))
    tensors = [_array(em.array(a, "np.broadcast_arrays")) for a in args]
    shapes = [em.shape(t) for t in tensors]
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(rank):
        size, first = 1, None
        for i, s in enumerate(shapes):
            k = len(s) - rank + axis
            if k < 0 or (not isinstance(s[k], SymInt) and s[k] == 1):
                continue
            if first is None:
                size, first = s[k], i
            elif not em.equal_sizes(size, s[k]):
                raise ValueError(
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between "
                    f"arg {first} with shape {shape_text(shapes[first])} and arg {i} with shape {shape_text(s)}."
                )
        result.append(size)
    _view_sequence(em, "np.broadcast_arrays", args)
    return tuple(em.emit_shaped("broadcast_to", t, shape=tuple(result), dtype=t.type.dtype) for t in tensors)


# ----------------------------------------------------------------------------- roll, tile, repeat


def roll(em: EmitterCore, a, shift, axis=None) -> Tensor:
    a = _array(em.array(a, "np.roll"))
    if axis is None:
        flat = sh.reshape(em, a, -1)
        return sh.reshape(em, roll(em, flat, shift, 0), em.shape(a))
    axes = _axis_tuple(axis, a.ndim, allow_duplicate=True)
    if isinstance(shift, Tensor):
        raise NotImplementedError("np.roll: shift given as a traced array")
    if np.ndim(shift) > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    shifts = _ints(shift, "np.roll", "shift")
    scalar_shift = not isinstance(shift, (tuple, list, np.ndarray))
    scalar_axis = not isinstance(axis, (tuple, list))
    if not scalar_shift and not scalar_axis and len(shifts) != len(axes):
        raise ValueError(
            "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between "
            f"arg 0 with shape ({len(shifts)},) and arg 1 with shape ({len(axes)},)."
        )
    if scalar_shift:
        shifts = shifts * len(axes)
    if scalar_axis:
        axes = axes * len(shifts)
    total = dict.fromkeys(range(a.ndim), 0)
    for s, ax in zip(shifts, axes):
        total[ax] += s
    result = a
    for ax, s in total.items():
        result = _roll_axis(em, result, s, ax)
    return result


def _roll_axis(em: EmitterCore, a: Tensor, shift: int, axis: int) -> Tensor:
    n = em.shape(a)[axis]
    if shift == 0 or any(_is_zero(d) for d in em.shape(a)):  # "If `a` is empty, nothing matters."
        return a
    if isinstance(n, SymInt):
        if em.shape_env.evaluate(n > abs(shift)):
            # shift % n is shift (or n + shift): a[-shift:] then a[:-shift] either way
            cut = -shift
        else:
            n = em.shape_env.specialize(n)
            cut = -(shift % n)
    else:
        cut = -(shift % n)
    if cut == 0:
        return a
    head = _take(em, a, axis, slice(cut, None))
    tail = _take(em, a, axis, slice(None, cut))
    return _concat(em, [head, tail], axis)


def tile(em: EmitterCore, A, reps) -> Tensor:
    tup = _ints(reps, "np.tile", "reps")
    A = _array(em.array(A, "np.tile"))
    d = len(tup)
    if A.ndim < d:
        A = em.emit("expand_dims", A, axes=tuple(range(d - A.ndim)))
    if all(r == 1 for r in tup):
        return A
    tup = (1,) * (A.ndim - d) + tup
    if any(r < 0 for r in tup):
        raise ValueError("negative dimensions are not allowed")
    shape = em.shape(A)
    spread = em.emit("expand_dims", A, axes=tuple(range(0, 2 * A.ndim, 2)))
    wide = em.broadcast_to(spread, tuple(x for r, s in zip(tup, shape) for x in (r, s)))
    target = tuple(em.shape_env.normalize(r * s) for r, s in zip(tup, shape))
    return em.emit_shaped("reshape", wide, shape=target, dtype=A.type.dtype)


def repeat(em: EmitterCore, a, repeats, axis=None) -> Tensor:
    a = _array(em.array(a, "np.repeat"))
    if axis is None:
        a, axis = sh.reshape(em, a, -1), 0
    else:
        axis = normalize_axis(axis, a.ndim)
    if isinstance(repeats, Tensor):
        raise NotImplementedError("np.repeat: repeats given as a traced array (the result size depends on data)")
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "biu":
        raise NotImplementedError(f"np.repeat: repeats of dtype {counts.dtype}")
    shape = list(em.shape(a))
    if counts.size == 1 and counts.ndim <= 1:
        r = int(counts.reshape(()))
        if r < 0:
            raise ValueError("negative dimensions are not allowed")
        spread = em.emit("expand_dims", a, axes=(axis + 1,))
        wide = em.broadcast_to(spread, tuple(shape[: axis + 1]) + (r,) + tuple(shape[axis + 1 :]))
        shape[axis] = em.shape_env.normalize(shape[axis] * r)
        return em.emit_shaped("reshape", wide, shape=tuple(shape), dtype=a.type.dtype)
    if counts.ndim > 1:
        raise ValueError("object too deep for desired array")
    n = shape[axis]
    if isinstance(n, SymInt):
        n = em.shape_env.specialize(n)
    if counts.size != n:
        raise ValueError(f"operands could not be broadcast together with shape ({n},) ({counts.size},)")
    if (counts < 0).any():
        raise ValueError("repeats may not contain negative values.")
    pieces = []
    for i, r in enumerate(counts.tolist()):
        if r:
            one = _take(em, a, axis, slice(i, i + 1))
            pieces.append(em.broadcast_to(one, tuple(shape[:axis]) + (r,) + tuple(shape[axis + 1 :])))
    if not pieces:
        shape[axis] = 0
        return _zeros(em, tuple(shape), a.dtype)
    return _concat(em, pieces, axis)


# ----------------------------------------------------------------------------- pad

_PAD_KWARGS = {
    "empty": [],
    "edge": [],
    "wrap": [],
    "constant": ["constant_values"],
    "linear_ramp": ["end_values"],
    "maximum": ["stat_length"],
    "mean": ["stat_length"],
    "median": ["stat_length"],
    "minimum": ["stat_length"],
    "reflect": ["reflect_type"],
    "symmetric": ["reflect_type"],
}


def _as_pairs(x, ndim: int) -> list:
    """NumPy's ``np.lib._arraypad_impl._as_pairs(x, ndim, as_index=True)``."""
    x = np.round(np.array(x)).astype(np.intp, copy=False)
    if x.ndim < 3:
        if x.size == 1:
            x = x.ravel()
            if x < 0:
                raise ValueError("index can't contain negative values")
            return [(int(x[0]), int(x[0]))] * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            if x[0] < 0 or x[1] < 0:
                raise ValueError("index can't contain negative values")
            return [(int(x[0]), int(x[1]))] * ndim
    if x.size and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return [tuple(p) for p in np.broadcast_to(x, (ndim, 2)).tolist()]


def _pad_width(pad_width, ndim: int) -> list:
    if isinstance(pad_width, Tensor) or (
        isinstance(pad_width, (tuple, list))
        and any(isinstance(p, Tensor) for p in np.ravel(np.asarray(pad_width, object)))
    ):
        raise NotImplementedError("np.pad: pad_width given as a traced array")
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * ndim
        for axis, width in pad_width.items():
            seq[axis] = (width, width) if isinstance(width, int) else tuple(width)
        pad_width = seq
    widths = np.asarray(pad_width)
    if widths.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    return _as_pairs(widths, ndim)


def pad(em: EmitterCore, array, pad_width, mode="constant", **kwargs) -> Tensor:
    fname = "np.pad"
    a = _array(em.array(array, fname))
    widths = _pad_width(pad_width, a.ndim)
    if callable(mode):
        raise NotImplementedError(f"{fname}: a function as mode")
    try:
        unsupported = set(kwargs) - set(_PAD_KWARGS[mode])
    except (KeyError, TypeError):
        raise ValueError(f"mode '{mode}' is not supported") from None
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if mode not in ("constant", "empty", "edge", "wrap", "reflect", "symmetric"):
        raise NotImplementedError(f"{fname}: mode {mode!r} is not supported")
    if mode in ("reflect", "symmetric") and kwargs.get("reflect_type", "even") == "odd":
        raise NotImplementedError(f"{fname}: reflect_type='odd' is not supported")
    if mode == "constant":
        return _pad_constant(em, a, widths, kwargs.get("constant_values", 0))
    if mode == "empty":  # NumPy leaves the padding uninitialized: zeros are one answer
        return _pad_constant(em, a, widths, 0)
    shape = em.shape(a)
    if any(_is_zero(d) for d in shape):
        for axis, (d, pair) in enumerate(zip(shape, widths)):
            if _is_zero(d) and any(pair):
                raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
        return _zeros(em, tuple(em.shape_env.normalize(d + b + c) for d, (b, c) in zip(shape, widths)), a.dtype)
    result = a
    for axis, (before, after) in enumerate(widths):
        if before or after:
            result = _pad_indexed(em, result, axis, before, after, mode, kwargs.get("reflect_type", "even"))
    return result


def _pad_constant(em: EmitterCore, a: Tensor, widths: list, values) -> Tensor:
    """One value all round (``np.pad(x, 2)``): the output filled with it and ``a``
    written into its middle, one pass over each (as NumPy's own ``np.pad``); joined
    along each axis in turn, the (1000, 1000) float64 pad took three copies and 0.7 ms
    against NumPy's 0.24. Values per axis and side: joined in turn, later axes' values
    in the corners, as NumPy sets them."""
    pairs = _pad_values(em, a, values)
    if _one_pad_value(values) and any(b or c for b, c in widths):
        shape = tuple(em.shape_env.normalize(d + b + c) for d, (b, c) in zip(em.shape(a), widths))
        filled = em.broadcast_to(pairs[0][0], shape)
        if any(_is_zero(d) for d in em.shape(a)):
            return filled
        starts = [b for b, _ in widths]
        return em.emit("update_slice", filled, a, starts=starts, steps=[1] * a.ndim)
    result = a
    for axis, ((before, after), (vb, va)) in enumerate(zip(widths, pairs)):
        parts = []
        for width, value in ((before, vb), (after, va)):
            shape = list(em.shape(result))
            shape[axis] = width
            parts.append(em.broadcast_to(value, tuple(shape)) if width else None)
        if parts[0] is not None or parts[1] is not None:
            result = _concat(em, [p for p in (parts[0], result, parts[1]) if p is not None], axis)
    return result


def _one_pad_value(values) -> bool:
    """Whether ``constant_values`` gives every side one value (a number, or a traced 0-d
    array)."""
    if isinstance(values, Tensor):
        return values.ndim == 0
    flat = np.ravel(np.asarray(values, dtype=object))
    return bool(flat.size) and all(v is flat[0] or v == flat[0] for v in flat)


def _pad_values(em: EmitterCore, a: Tensor, values) -> list:
    """The fill values per axis and side, converted to ``a``'s dtype as NumPy's
    assignment converts them (asked of ``np.pad`` itself on a 3x...x3 stand-in)."""
    if isinstance(values, Tensor):
        if values.ndim != 0:
            raise NotImplementedError("np.pad: constant_values given as a traced array of values")
        value = em.cast(_array(values), a.dtype)
        return [(value, value)] * a.ndim
    try:
        probe = np.pad(np.zeros((1,) * a.ndim, a.dtype), 1, constant_values=values)
    except (OverflowError, FloatingPointError) as e:
        raise NotImplementedError(f"np.pad: constant_values {values!r} for {a.dtype} ({e})") from None
    pairs = []
    for axis in range(a.ndim):
        center = [1] * a.ndim
        sides = []
        for side in (0, 2):
            center[axis] = side
            sides.append(em.constant(np.asarray(probe[tuple(center)], dtype=a.dtype)))
        pairs.append(tuple(sides))
    return pairs


def _pad_indexed(em: EmitterCore, a: Tensor, axis: int, before: int, after: int, mode: str, reflect_type) -> Tensor:
    """Padding that repeats elements of ``a`` along ``axis``: NumPy's own padding of
    ``arange(n)`` says which element goes where; each run of neighbouring indices is a
    slice (a repeated one a broadcast)."""
    n = em.shape(a)[axis]
    if mode == "edge":
        shape = list(em.shape(a))
        parts = []
        for width, index in ((before, slice(0, 1)), (after, slice(-1, None))):
            edge = _take(em, a, axis, index)
            shape[axis] = width
            parts.append(em.broadcast_to(edge, tuple(shape)) if width else None)
        return _concat(em, [p for p in (parts[0], a, parts[1]) if p is not None], axis)
    if isinstance(n, SymInt):
        n = em.shape_env.specialize(n)
    kwargs = {} if mode == "wrap" else {"reflect_type": reflect_type}
    index = np.pad(np.arange(n), (before, after), mode=mode, **kwargs).tolist()
    parts, i = [], 0
    while i < len(index):
        step = index[i + 1] - index[i] if i + 1 < len(index) else 1
        step = step if step in (-1, 0, 1) else 1
        j = i + 1
        while j < len(index) and index[j] - index[j - 1] == step:
            j += 1
        start, length = index[i], j - i
        if step == 0:
            one = _take(em, a, axis, slice(start, start + 1))
            shape = list(em.shape(a))
            shape[axis] = length
            parts.append(em.broadcast_to(one, tuple(shape)))
        elif step == 1:
            parts.append(_take(em, a, axis, slice(start, start + length)))
        else:
            stop = start - length
            parts.append(_take(em, a, axis, slice(start, None if stop < 0 else stop, -1)))
        i = j
    return _concat(em, parts, axis)


# ----------------------------------------------------------------------------- diff, outer


def diff(em: EmitterCore, a, n=1, axis=-1, prepend=NOVALUE, append=NOVALUE) -> Tensor:
    n = _int(n, "np.diff", "n")
    if n == 0:
        raise NotImplementedError("np.diff: n=0 returns its argument itself")
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    a = _array(em.array(a, "np.diff"))
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, a.ndim)
    combined = [] if prepend is NOVALUE else [_diff_edge(em, a, prepend, axis)]
    combined.append(a)
    if append is not NOVALUE:
        combined.append(_diff_edge(em, a, append, axis))
    if len(combined) > 1:
        a = _join(em, combined, axis)
    ufunc = np.not_equal if a.dtype == np.bool_ else np.subtract
    for _ in range(n):
        upper = _take(em, a, axis, slice(1, None))
        lower = _take(em, a, axis, slice(None, -1))
        a = apply_ufunc(em, ufunc, upper, lower)
    return a


def _diff_edge(em: EmitterCore, a: Tensor, value, axis: int) -> Tensor:
    t = _array(em.array(value, "np.diff"))
    if t.ndim == 0:
        shape = list(em.shape(a))
        shape[axis] = 1
        t = em.broadcast_to(t, tuple(shape))
    return t


def outer(em: EmitterCore, a, b, out=None) -> Tensor:
    reject("np.outer", out=(out, None))
    a = sh.reshape(em, em.array(a, "np.outer"), -1)
    b = sh.reshape(em, em.array(b, "np.outer"), -1)
    return apply_ufunc(em, np.multiply, em.emit("expand_dims", a, axes=(1,)), em.emit("expand_dims", b, axes=(0,)))


# ----------------------------------------------------------------------------- triangles, diagonals


def _tri_mask(em: EmitterCore, shape: tuple, k: int, predicate: str) -> Tensor:
    """``cols <predicate> rows + k`` over the last two sizes of ``shape``."""
    rows = cr.iota(em, shape, len(shape) - 2, np.int64, "np.tri")
    cols = cr.iota(em, shape, len(shape) - 1, np.int64, "np.tri")
    if k:
        rows = em.emit("add", rows, cr.fill(em, shape, k, np.int64))
    return em.emit("cmp", cols, rows, predicate=predicate)


def _triangle(em: EmitterCore, m, k, predicate: str, fname: str) -> Tensor:
    m = _array(em.array(m, fname))
    k = _int(k, fname, "k")
    if m.ndim == 0:
        raise TypeError("tri() missing 1 required positional argument: 'N'")
    shape = em.shape(m)
    if m.ndim == 1:
        shape = (shape[0], shape[0])
        m = em.broadcast_to(m, shape)
    mask = _tri_mask(em, shape, k, predicate)
    return em.emit("select", mask, m, _zeros(em, shape, m.dtype))


def tril(em: EmitterCore, m, k=0) -> Tensor:
    return _triangle(em, m, k, "le", "np.tril")


def triu(em: EmitterCore, m, k=0) -> Tensor:
    return _triangle(em, m, k, "ge", "np.triu")


def _lowest(dtype: np.dtype):
    if dtype.kind == "b":
        return False
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    return -np.inf


def _diagonal(em: EmitterCore, a: Tensor, offset, axis1, axis2) -> Tensor:
    """The diagonal as a new value (``diagonal`` ends it in a non-view op: read-only)."""
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    i = _axis_tuple(axis1, a.ndim, "axis1")[0]
    j = _axis_tuple(axis2, a.ndim, "axis2")[0]
    if i == j:
        raise ValueError("axis1 and axis2 cannot be the same")
    k = _int(offset, "np.diagonal", "offset")
    rest = [d for d in range(a.ndim) if d not in (i, j)]
    t = a if rest + [i, j] == list(range(a.ndim)) else em.emit("transpose", a, perm=tuple(rest + [i, j]))
    shape = em.shape(t)
    n, m = shape[-2:]
    env = em.shape_env
    length = sym_min(n, m - k) if k >= 0 else sym_min(n + k, m)
    length = env.normalize(length)
    if (env.evaluate(length <= 0) if isinstance(length, SymInt) else length <= 0) or any(map(_is_zero, shape)):
        return _zeros(em, tuple(shape[:-2]) + (0,), a.dtype)
    length = em.as_size(length, "np.diagonal")
    r0, c0 = max(0, -k), max(0, k)
    if not isinstance(n, SymInt) and not isinstance(m, SymInt):
        square = getitem(em, t, (Ellipsis, slice(r0, r0 + length), slice(c0, c0 + length)))
        flat = em.emit_shaped("reshape", square, shape=tuple(shape[:-2]) + (length * length,), dtype=t.type.dtype)
        return getitem(em, flat, (Ellipsis, slice(0, None, length + 1)))
    # Symbolic sizes: the one element of each row on the diagonal, by a mask and a max
    mask = _tri_mask(em, shape, k, "eq")
    lowest = cr.fill(em, shape, _lowest(a.dtype), a.dtype)
    rows = em.emit("max", em.emit("select", mask, t, lowest), axes=(t.ndim - 1,), keepdims=False)
    starts = (0,) * (t.ndim - 2) + (r0,)
    return em.emit_shaped(
        "slice", rows, shape=tuple(shape[:-2]) + (length,), dtype=t.type.dtype, starts=starts, steps=(1,) * (t.ndim - 1)
    )


def _read_only(em: EmitterCore, t: Tensor) -> Tensor:
    """``t`` through an op that is no view op: NumPy's read-only view is not followed."""
    return em.emit("select", cr.fill(em, em.shape(t), True, np.bool_), t, t)


def diagonal(em: EmitterCore, a, offset=0, axis1=0, axis2=1) -> Tensor:
    return _read_only(em, _diagonal(em, _array(em.array(a, "np.diagonal")), offset, axis1, axis2))


def trace(em: EmitterCore, a, offset=0, axis1=0, axis2=1, dtype=None, out=None) -> Tensor:
    reject("np.trace", out=(out, None))
    d = _diagonal(em, _array(em.array(a, "np.trace")), offset, axis1, axis2)
    return sh.sum_(em, d, axis=-1, dtype=dtype)


def diag(em: EmitterCore, v, k=0) -> Tensor:
    v = _array(em.array(v, "np.diag"))
    k = _int(k, "np.diag", "k")
    if v.ndim == 2:
        return _read_only(em, _diagonal(em, v, k, 0, 1))
    if v.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = em.shape(v)[0]
    size = em.shape_env.normalize(n + abs(k))
    padded = _concat(em, [v, _zeros(em, (abs(k),), v.dtype)], 0) if k else v
    values = em.emit("expand_dims", padded, axes=(1,) if k >= 0 else (0,))
    shape = (size, size)
    mask = _tri_mask(em, shape, k, "eq")
    return em.emit("select", mask, em.broadcast_to(values, shape), _zeros(em, shape, v.dtype))


# ----------------------------------------------------------------------------- stacks


def _sequence(tup, fname: str) -> list:
    if isinstance(tup, Tensor) or not isinstance(tup, (list, tuple)):
        raise NotImplementedError(f"{fname}: joining the rows of one array")
    return list(tup)


def vstack(em: EmitterCore, tup, *, dtype=None, casting="same_kind") -> Tensor:
    arrs = [atleast_2d(em, x) for x in _sequence(tup, "np.vstack")]
    return _join(em, arrs, 0, dtype=dtype, casting=casting)


def hstack(em: EmitterCore, tup, *, dtype=None, casting="same_kind") -> Tensor:
    arrs = [atleast_1d(em, x) for x in _sequence(tup, "np.hstack")]
    axis = 0 if arrs and arrs[0].ndim == 1 else 1
    return _join(em, arrs, axis, dtype=dtype, casting=casting)


def dstack(em: EmitterCore, tup) -> Tensor:
    arrs = [atleast_3d(em, x) for x in _sequence(tup, "np.dstack")]
    return _join(em, arrs, 2)


def column_stack(em: EmitterCore, tup) -> Tensor:
    arrs = []
    for x in _sequence(tup, "np.column_stack"):
        t = _array(em.array(x, "np.column_stack"))
        if t.ndim < 2:
            t = em.emit("expand_dims", t, axes=(1,) if t.ndim == 1 else (0, 1))
        arrs.append(t)
    return _join(em, arrs, 1)


# ----------------------------------------------------------------------------- split


def array_split(em: EmitterCore, ary, indices_or_sections, axis=0) -> list:
    return _split(em, ary, indices_or_sections, axis, "np.array_split", equal=False)


def split(em: EmitterCore, ary, indices_or_sections, axis=0) -> list:
    return _split(em, ary, indices_or_sections, axis, "np.split", equal=True)


def _split(em: EmitterCore, ary, sections, axis, fname: str, equal: bool) -> list:
    if isinstance(sections, Tensor):
        raise NotImplementedError(f"{fname}: indices given as a traced array")
    a = _array(em.array(ary, fname))
    axis = _int(axis, fname, "axis")
    if a.ndim == 0 or not -a.ndim <= axis < a.ndim:
        raise IndexError("tuple index out of range")
    axis %= a.ndim
    total = em.shape(a)[axis]
    if isinstance(sections, (tuple, list, np.ndarray)):
        points = [0, *_ints(list(np.ravel(sections)) if isinstance(sections, np.ndarray) else sections, fname, "index")]
        bounds = [(points[i], points[i + 1]) for i in range(len(points) - 1)] + [(points[-1], None)]
    else:
        count = _int(sections, fname, "sections")
        if isinstance(total, SymInt):
            total = em.shape_env.specialize(total)
        if equal and total % count:
            raise ValueError("array split does not result in an equal division")
        if count <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extras = divmod(total, count)
        sizes = [each + 1] * extras + [each] * (count - extras)
        starts = np.cumsum([0] + sizes).tolist()
        bounds = [(starts[i], starts[i + 1]) for i in range(count)]
    _view_sequence(em, fname, (ary,))
    return [getitem(em, a, _along(a.ndim, axis, slice(lo, hi))) for lo, hi in bounds]


# ----------------------------------------------------------------------------- meshgrid


def meshgrid(em: EmitterCore, *xi, copy=True, sparse=False, indexing="xy") -> tuple:
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    if not copy:
        raise NotImplementedError("np.meshgrid: copy=False returns views of the inputs")
    ndim = len(xi)
    flat = [sh.reshape(em, _array(em.array(x, "np.meshgrid")), -1) for x in xi]
    axes = list(range(ndim))
    if indexing == "xy" and ndim > 1:
        axes[0], axes[1] = 1, 0
    output = [
        em.emit("expand_dims", f, axes=tuple(d for d in range(ndim) if d != ax)) if ndim > 1 else f
        for f, ax in zip(flat, axes)
    ]
    if sparse:
        return tuple(output)
    shape = [1] * ndim
    for f, ax in zip(flat, axes):
        shape[ax] = em.shape(f)[0]
    return tuple(em.broadcast_to(o, tuple(shape)) for o in output)


# ----------------------------------------------------------------------------- the table rows


def _view_rule(rule, param: str, fname: str):
    """A view function's rule that refuses its array given by keyword (``np.flip(m=x)``):
    the tracer follows the views of a positional first argument only."""

    @functools.wraps(rule)
    def wrapped(em, *args, **kwargs):
        if param in kwargs:
            raise NotImplementedError(f"{fname}: the array given by keyword ({param}=) returns a view not followed")
        return rule(em, *args, **kwargs)

    return wrapped


# (keys, rule, Ember ops emitted, dtype rule), as numpy_semantics._ROWS.
ROWS: list = [
    ((np.flip,), _view_rule(flip, "m", "np.flip"), "slice (step -1)", "same"),
    ((np.flipud,), _view_rule(flipud, "m", "np.flipud"), "slice (step -1)", "same"),
    ((np.fliplr,), _view_rule(fliplr, "m", "np.fliplr"), "slice (step -1)", "same"),
    ((np.roll,), roll, "slice, concatenate (, reshape)", "same"),
    ((np.tile,), tile, "expand_dims, broadcast_to, reshape", "same"),
    ((np.repeat, "repeat"), repeat, "expand_dims, broadcast_to, reshape | slice, concatenate", "same"),
    ((np.pad,), pad, "constant, broadcast_to, slice, concatenate", "same"),
    ((np.diff,), diff, "slice, sub | cmp ne (, concatenate)", "ufunc (subtract / not_equal)"),
    ((np.outer,), outer, "reshape, expand_dims, mul", "ufunc (multiply)"),
    ((np.tril,), tril, "iota, add, cmp, select", "same"),
    ((np.triu,), triu, "iota, add, cmp, select", "same"),
    (
        (np.diag,),
        _view_rule(diag, "v", "np.diag"),
        "iota, cmp, select (, concatenate) | slice, reshape, select",
        "same",
    ),
    (
        (np.diagonal, "diagonal"),
        _view_rule(diagonal, "a", "np.diagonal"),
        "transpose, slice, reshape, select | iota, cmp, select, max",
        "same",
    ),
    ((np.trace, "trace"), trace, "(diagonal), cast, sum", "reduce"),
    ((np.vstack,), vstack, "expand_dims, cast, concatenate", "result_type|given"),
    ((np.hstack,), hstack, "expand_dims, cast, concatenate", "result_type|given"),
    ((np.column_stack,), column_stack, "expand_dims, cast, concatenate", "result_type"),
    ((np.dstack,), dstack, "expand_dims, cast, concatenate", "result_type"),
    ((np.split,), _view_rule(split, "ary", "np.split"), "slice", "same"),
    ((np.array_split,), _view_rule(array_split, "ary", "np.array_split"), "slice", "same"),
    ((np.broadcast_to,), _view_rule(broadcast_to, "array", "np.broadcast_to"), "broadcast_to", "same"),
    ((np.broadcast_arrays,), broadcast_arrays, "broadcast_to", "same"),
    ((np.swapaxes, "swapaxes"), _view_rule(swapaxes, "a", "np.swapaxes"), "transpose", "same"),
    ((np.moveaxis,), _view_rule(moveaxis, "a", "np.moveaxis"), "transpose", "same"),
    ((np.atleast_1d,), atleast_1d, "expand_dims", "same"),
    ((np.atleast_2d,), atleast_2d, "expand_dims", "same"),
    ((np.atleast_3d,), atleast_3d, "expand_dims", "same"),
    ((np.meshgrid,), meshgrid, "reshape, expand_dims, broadcast_to", "same"),
]

# Array methods this module answers (``x.name(...)`` with the array first).
METHODS: tuple = ("swapaxes", "repeat", "diagonal", "trace")

# NumPy functions whose 0-d results are 0-d arrays, not NumPy scalars.
ARRAY_RESULTS: set = {
    np.roll,
    np.tile,
    np.pad,
    np.broadcast_to,
    np.moveaxis,
    np.atleast_1d,
    np.atleast_2d,
    np.atleast_3d,
}

# Rules that read symbolic ints themselves (sizes, counts): numpy_semantics may add these
# to its SYMBOLIC_INT_RULES so that ``np.broadcast_to(x, (n, 3))`` keeps ``n`` symbolic.
SYMBOLIC_INT_RULES: set = {np.broadcast_to}
