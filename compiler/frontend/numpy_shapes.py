"""NumPy's shape functions, reductions, matmul/dot and array attributes.

Each function takes NumPy's own parameter names and defaults, so positional and
keyword arguments bind exactly as in NumPy; arguments Ember does not model
(``out=``, ``initial=``, ``where=``, ``order=``) raise ``NotImplementedError``.
Shape errors NumPy would raise on the traced sizes are raised here, with NumPy's
exception type and message.
"""

from __future__ import annotations

import math

import numpy as np

from compiler.dialects.types import DYN
from compiler.frontend import promotion
from compiler.frontend.numpy_core import (
    NOVALUE,
    EmitterCore,
    Tensor,
    normalize_axes,
    normalize_axis,
    reject,
    same_shape,
)
from compiler.frontend.numpy_elementwise import apply_ufunc
from compiler.frontend.symbolic_shapes import SymInt
from compiler.mlir import operation_of

# ----------------------------------------------------------------------------- reductions

_UFUNC_NAMES = {"max": "maximum", "min": "minimum"}


def _reduce(em: EmitterCore, name: str, a, axis, dtype, keepdims) -> Tensor:
    a = em.array(a, f"np.{name}")
    axes = normalize_axes(axis, a.ndim)
    keepdims = False if keepdims is NOVALUE else bool(keepdims)
    reduced = [em.shape(a)[i] for i in axes]  # a symbolic size is never 0
    if name in _UFUNC_NAMES and any(not isinstance(d, SymInt) and d == 0 for d in reduced):
        raise ValueError(f"zero-size array to reduction operation {_UFUNC_NAMES[name]} which has no identity")
    out_dtype = promotion.reduction_dtype(name, a.dtype, dtype)
    if name == "mean" and out_dtype.kind not in "fc":
        raise NotImplementedError(f"np.mean: dtype={out_dtype} (an integer mean) is not supported")
    return em.emit(name, em.cast(a, out_dtype), axes=axes, keepdims=keepdims)


def sum_(em, a, axis=None, dtype=None, out=None, keepdims=NOVALUE, initial=NOVALUE, where=NOVALUE):
    reject("np.sum", out=(out, None), initial=(initial, NOVALUE), where=(where, NOVALUE))
    return _reduce(em, "sum", a, axis, dtype, keepdims)


def prod(em, a, axis=None, dtype=None, out=None, keepdims=NOVALUE, initial=NOVALUE, where=NOVALUE):
    reject("np.prod", out=(out, None), initial=(initial, NOVALUE), where=(where, NOVALUE))
    return _reduce(em, "prod", a, axis, dtype, keepdims)


def mean(em, a, axis=None, dtype=None, out=None, keepdims=NOVALUE, *, where=NOVALUE):
    reject("np.mean", out=(out, None), where=(where, NOVALUE))
    return _reduce(em, "mean", a, axis, dtype, keepdims)


def max_(em, a, axis=None, out=None, keepdims=NOVALUE, initial=NOVALUE, where=NOVALUE):
    reject("np.max", out=(out, None), initial=(initial, NOVALUE), where=(where, NOVALUE))
    return _reduce(em, "max", a, axis, None, keepdims)


def min_(em, a, axis=None, out=None, keepdims=NOVALUE, initial=NOVALUE, where=NOVALUE):
    reject("np.min", out=(out, None), initial=(initial, NOVALUE), where=(where, NOVALUE))
    return _reduce(em, "min", a, axis, None, keepdims)


# ----------------------------------------------------------------------------- matmul, dot

_SIGNATURE = "(n?,k),(k,m?)->(n?,m?)"


def matmul(em: EmitterCore, x1, x2, /, out=None, **kwargs) -> Tensor:
    reject("np.matmul", out=(out, None), **{k: (v, None) for k, v in kwargs.items()})
    a, b = em.array(x1, "np.matmul"), em.array(x2, "np.matmul")
    for i, t in enumerate((a, b)):
        if t.ndim == 0:
            raise ValueError(
                f"matmul: Input operand {i} does not have enough dimensions (has 0, gufunc core "
                f"with signature {_SIGNATURE} requires 1)"
            )
    sa, sb = em.shape(a), em.shape(b)
    k_a, k_b = sa[-1], sb[0] if b.ndim == 1 else sb[-2]
    if not em.equal_sizes(k_a, k_b):
        raise ValueError(
            f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature {_SIGNATURE} (size {k_b} is different from {k_a})"
        )
    (da, db), _ = promotion.ufunc_loop(np.matmul, [a.dtype, b.dtype])
    return _contract(em, em.cast(a, da), em.cast(b, db))


def _scaled(em: EmitterCore, t: Tensor):
    """``(c, m)`` where ``t`` is ``c * m`` (either order) for a 0-d ``c`` broadcast to
    ``m``'s shape; None otherwise."""
    owner = operation_of(t.value.owner)
    if owner is None or owner.name != "ember.mul":
        return None
    for i in (0, 1):
        spread = operation_of(owner.operands[i].owner)
        if spread is not None and spread.name == "ember.broadcast_to" and spread.operands[0].type.rank == 0:
            scalar, other = spread.operands[0], owner.operands[1 - i]
            return Tensor(scalar, em.b.type_of(scalar)), Tensor(other, em.b.type_of(other))
    return None


def _contract(em: EmitterCore, a: Tensor, b: Tensor) -> Tensor:
    """matmul of operands of one dtype; bool as ``(int64 product) != 0``.

    A float operand scaled by a scalar (``alpha * A @ x``) is contracted unscaled and the
    (smaller) product scaled: ``alpha * (A @ x)``, what BLAS's alpha does, instead of
    writing and reading a scaled copy of the matrix (rounding may differ in the last
    bit, as between BLAS builds)."""
    if a.dtype.kind == "b":
        product = _contract(em, em.cast(a, np.int64), em.cast(b, np.int64))
        return em.emit("cmp", product, em.scalar_like(0, np.int64, product), predicate="ne")
    for side in (0, 1) if a.dtype.kind == "f" else ():
        scaled = _scaled(em, (a, b)[side])
        if scaled is not None:
            scalar, unscaled = scaled
            product = _contract(em, unscaled, b) if side == 0 else _contract(em, a, unscaled)
            return em.emit("mul", em.broadcast_to(scalar, em.shape(product)), product)
    if a.ndim <= 2 and b.ndim <= 2:
        return em.emit("matmul", a, b)
    if b.ndim <= 2:  # a stack of rows times one matrix or vector: no batch to broadcast
        return em.emit("matmul", a, b)
    a2 = a if a.ndim >= 2 else em.emit("expand_dims", a, axes=(0,))
    b2 = b if b.ndim >= 2 else em.emit("expand_dims", b, axes=(1,))
    sa, sb = em.shape(a2), em.shape(b2)
    batch = em.broadcast_shapes([sa[:-2], sb[:-2]], "np.matmul")
    a2 = em.broadcast_to(a2, batch + sa[-2:])
    b2 = em.broadcast_to(b2, batch + sb[-2:])
    result = em.emit("matmul", a2, b2)
    dropped = ((result.ndim - 2,) if a.ndim == 1 else ()) + ((result.ndim - 1,) if b.ndim == 1 else ())
    return em.emit("squeeze", result, axes=dropped) if dropped else result


def dot(em: EmitterCore, a, b, out=None) -> Tensor:
    reject("np.dot", out=(out, None))
    a, b = em.array(a, "np.dot"), em.array(b, "np.dot")  # Python scalars are strong here
    if a.ndim == 0 or b.ndim == 0:
        return apply_ufunc(em, np.multiply, a, b)
    sa, sb = em.shape(a), em.shape(b)
    k_b = sb[0] if b.ndim == 1 else sb[-2]
    if not em.equal_sizes(sa[-1], k_b):
        raise ValueError(
            f"shapes {_tuple(sa)} and {_tuple(sb)} not aligned: {sa[-1]} "
            f"(dim {a.ndim - 1}) != {k_b} (dim {max(b.ndim - 2, 0)})"
        )
    dtype = promotion.result_type([a.dtype, b.dtype], "np.dot")
    a, b = em.cast(a, dtype), em.cast(b, dtype)
    if a.ndim > 2 or b.ndim > 2:
        return _dot_nd(em, a, b, sa, sb)
    return _contract(em, a, b)


def _dot_nd(em: EmitterCore, a: Tensor, b: Tensor, sa: tuple, sb: tuple) -> Tensor:
    """``dot`` of rank > 2: ``dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m])``, one
    matmul of ``a`` as rows ``(prod(a.shape[:-1]), K)`` and ``b`` with its axis ``-2``
    moved first, as columns ``(K, prod(rest))``."""
    env = em.shape_env
    k = sa[-1]
    lhs = a if a.ndim == 1 else reshape(em, a, (env.normalize(math.prod(sa[:-1])), k))
    if b.ndim == 1:
        return reshape(em, _contract(em, lhs, b), sa[:-1])
    perm = (b.ndim - 2, *range(b.ndim - 2), b.ndim - 1)
    rest = sb[:-2] + sb[-1:]
    rhs = reshape(em, transpose(em, b, perm), (k, env.normalize(math.prod(rest))))
    return reshape(em, _contract(em, lhs, rhs), sa[:-1] + rest)


def _tuple(shape) -> str:
    return "(" + ",".join(str(d) for d in shape) + (",)" if len(shape) == 1 else ")")


# ----------------------------------------------------------------------------- shapes


def transpose(em: EmitterCore, a, axes=None) -> Tensor:
    a = em.array(a, "np.transpose")
    if axes is None:
        perm = tuple(reversed(range(a.ndim)))
    else:
        if len(axes) != a.ndim:
            raise ValueError("axes don't match array")
        perm = tuple(normalize_axis(x, a.ndim) for x in axes)
        if len(set(perm)) != len(perm):
            raise ValueError("repeated axis in transpose")
    return a if perm == tuple(range(a.ndim)) else em.emit("transpose", a, perm=perm)


def reshape(em: EmitterCore, a, /, shape, order="C", *, copy=None) -> Tensor:
    reject("np.reshape", order=(order, "C"), copy=(copy, None))
    a = em.array(a, "np.reshape")
    current = em.shape(a)
    target = _target_shape(em, current, shape)
    if same_shape(target, current):
        return a
    return em.emit_shaped("reshape", a, shape=target, dtype=a.type.dtype)


def _target_shape(em: EmitterCore, current: tuple, shape) -> tuple:
    """NumPy's reading of a ``reshape`` argument: one ``-1`` is the size that keeps the
    element count. With symbolic sizes the count must divide evenly: guarded by ``%``."""
    env = em.shape_env
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    shape = tuple(_index(d) for d in shape)
    shape = tuple(d if isinstance(d, SymInt) or d >= 0 else -1 for d in shape)  # NumPy 2: any negative is unknown
    unknown = [i for i, d in enumerate(shape) if not isinstance(d, SymInt) and d == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    shape = tuple(em.as_size(d, "np.reshape") if i not in unknown else d for i, d in enumerate(shape))
    size = env.normalize(math.prod(current))
    known = env.normalize(math.prod(d for i, d in enumerate(shape) if i not in unknown))
    if unknown:
        if _is_zero(env, known) or not env.evaluate(size % known == 0):
            raise ValueError(f"cannot reshape array of size {size} into shape {_reshape_text(shape)}")
        shape = tuple(em.as_size(size // known, "np.reshape") if i in unknown else d for i, d in enumerate(shape))
    elif not em.equal_sizes(math.prod(shape), size):
        raise ValueError(f"cannot reshape array of size {size} into shape {_reshape_text(shape)}")
    return shape


def _is_zero(env, d) -> bool:
    return env.evaluate(d == 0) if isinstance(d, SymInt) else d == 0


def _reshape_text(shape) -> str:
    text = ", ".join("newaxis" if not isinstance(d, SymInt) and d == -1 else str(d) for d in shape)
    return f"({text}{',' * (len(shape) == 1)})"


def _index(d):
    if isinstance(d, SymInt):
        return d
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
        raise TypeError(f"'{type(d).__name__}' object cannot be interpreted as an integer")
    return int(d)


def expand_dims(em: EmitterCore, a, axis) -> Tensor:
    a = em.array(a, "np.expand_dims")
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    rank = a.ndim + len(axes)
    normalized = [normalize_axis(x, rank) for x in axes]
    if len(set(normalized)) != len(normalized):
        raise ValueError("repeated axis")
    return em.emit("expand_dims", a, axes=tuple(sorted(normalized)))


def squeeze(em: EmitterCore, a, axis=None) -> Tensor:
    a = em.array(a, "np.squeeze")
    if axis is None:
        axes = tuple(i for i, d in enumerate(a.shape) if d == 1)  # a symbolic size is never 1
    else:
        axes = normalize_axes(axis, a.ndim)
        if any(a.shape[i] is DYN or a.shape[i] != 1 for i in axes):  # a symbolic size is never 1
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return em.emit("squeeze", a, axes=axes) if axes else a


def concatenate(em: EmitterCore, arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind") -> Tensor:
    reject("np.concatenate", out=(out, None))
    tensors = _joined_operands(em, arrays, dtype, casting, "np.concatenate")
    if axis is None:
        tensors = [reshape(em, t, -1) for t in tensors]
        axis = 0
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise ValueError("zero-dimensional arrays cannot be concatenated")
        if t.ndim != tensors[0].ndim:
            raise ValueError(
                "all the input arrays must have same number of dimensions, but the array at index 0 "
                f"has {tensors[0].ndim} dimension(s) and the array at index {i} has {t.ndim} dimension(s)"
            )
    axis = normalize_axis(axis, tensors[0].ndim)
    _check_joined_dims(em, tensors, axis)
    tensors = [em.refine(t) for t in tensors]
    result = tensors[0]
    for t in tensors[1:]:
        result = em.emit("concatenate", result, t, axis=axis)
    return result


def _check_joined_dims(em: EmitterCore, tensors: list[Tensor], axis: int):
    for i, t in enumerate(tensors):
        for d, (x, y) in enumerate(zip(em.shape(tensors[0]), em.shape(t))):
            if d != axis and not em.equal_sizes(x, y):
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must match "
                    f"exactly, but along dimension {d}, the array at index 0 has size {x} and the "
                    f"array at index {i} has size {y}"
                )


def _joined_operands(em: EmitterCore, arrays, dtype, casting, fname: str) -> list[Tensor]:
    if isinstance(arrays, Tensor) or not isinstance(arrays, (list, tuple)):
        raise NotImplementedError(f"{fname}: joining the rows of one array")
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    tensors = [em.array(x, fname) for x in arrays]
    if dtype is None:
        target = promotion.result_type([t.dtype for t in tensors], fname)
    else:
        target = promotion.parse_dtype(dtype, fname)
    for t in tensors:
        if not np.can_cast(t.dtype, target, casting):
            raise TypeError(f"Cannot cast array data from {t.dtype!r} to {target!r} according to the rule {casting!r}")
    return [em.cast(t, target) for t in tensors]


def stack(em: EmitterCore, arrays, axis=0, out=None, *, dtype=None, casting="same_kind") -> Tensor:
    reject("np.stack", out=(out, None))
    tensors = _joined_operands(em, arrays, dtype, casting, "np.stack")
    first = em.shape(tensors[0])
    for t in tensors[1:]:
        shape = em.shape(t)
        if len(shape) != len(first) or not all(em.equal_sizes(x, y) for x, y in zip(first, shape)):
            raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis(axis, tensors[0].ndim + 1)
    expanded = [em.emit("expand_dims", t, axes=(axis,)) for t in tensors]
    return concatenate(em, expanded, axis=axis)


# ----------------------------------------------------------------------------- attributes


def shape_of(em: EmitterCore, a: Tensor) -> tuple:
    return em.shape(a)


def size_of(em: EmitterCore, a: Tensor):
    return em.shape_env.normalize(math.prod(em.shape(a)))


def itemsize_of(em: EmitterCore, a: Tensor) -> int:
    return a.dtype.itemsize


def nbytes_of(em: EmitterCore, a: Tensor):
    """``x.nbytes``: symbolic where the size is (``8*s0`` for a float64 vector)."""
    return em.shape_env.normalize(size_of(em, a) * a.dtype.itemsize)


def ndim_of(em: EmitterCore, a: Tensor) -> int:
    return a.ndim


def dtype_of(em: EmitterCore, a: Tensor) -> np.dtype:
    return a.dtype
