"""Traced array values and the emission helpers every NumPy rule is built from.

A ``Tensor`` is an SSA value of the function being traced plus its Ember type
(static sizes, ``DYN`` for symbolic ones). ``EmitterCore`` wraps a
``FunctionBuilder`` with the few moves NumPy semantics needs: turning operands
(tensors, Python and NumPy scalars) into tensors of a given dtype, broadcasting
explicitly, normalizing axes, and refusing unsupported keyword arguments with a
``NotImplementedError`` that names the function and the argument (the frontend
turns it into a fallback to CPython).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import DYN, TensorType
from compiler.frontend import promotion
from compiler.mlir import ir

NOVALUE = np._NoValue  # NumPy's "argument not given" default (keepdims, initial, where)


@dataclass(frozen=True)
class Tensor:
    """A traced array value: NumPy arrays and NumPy scalars (as 0-d) alike."""

    value: ir.Value
    type: TensorType
    scalar: bool = False  # a 0-d result NumPy gives as a NumPy scalar (ufuncs, reductions), not an array
    weak: bool = False  # a Python float traced as a value (frontend/scalar_inputs.py): promotes weakly

    @property
    def dtype(self) -> np.dtype:
        return self.type.numpy_dtype

    @property
    def shape(self) -> tuple:
        return self.type.shape

    @property
    def ndim(self) -> int:
        return self.type.rank


@dataclass(frozen=True)
class SymbolicSize:
    """A size known only at run time: ``value`` is an ``index`` SSA value (``ember.dim``)."""

    value: ir.Value


def reject(fname: str, **given):
    """``NotImplementedError`` for the first argument whose value is not its default.

    ``given`` maps an argument name to ``(value, default)``."""
    for name, (value, default) in given.items():
        if value is not default and not (isinstance(value, (bool, str)) and value == default):
            raise NotImplementedError(f"{fname}: argument {name}={value!r} is not supported")


def reject_kwargs(fname: str, kwargs: dict):
    if kwargs:
        raise NotImplementedError(f"{fname}: argument {next(iter(kwargs))}= is not supported")


def normalize_axis(axis, ndim: int) -> int:
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(int(axis), ndim)
    return int(axis) % ndim


def normalize_axes(axis, ndim: int) -> tuple[int, ...]:
    """``axis=None|int|tuple`` as sorted non-negative axes (None: all of them)."""
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    normalized = tuple(normalize_axis(a, ndim) for a in axes)
    if len(set(normalized)) != len(normalized):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(normalized))


def _shape_text(shapes) -> str:
    return " ".join(str(tuple("?" if d is DYN else d for d in s)).replace("'", "") for s in shapes)


class EmitterCore:
    """Emission helpers over one ``FunctionBuilder``."""

    def __init__(self, builder: FunctionBuilder):
        self.b = builder
        self.recording: list | None = None  # (name, operands, result, sizes, attrs) of each op, when a list

    # ----------------------------------------------------------------- values

    def wrap(self, value: ir.Value) -> Tensor:
        return Tensor(value, self.b.type_of(value))

    def emit(self, name: str, *operands: Tensor, result: TensorType | None = None, sizes=(), **attrs) -> Tensor:
        value = self.b.op(name, *(t.value for t in operands), result=result, sizes=list(sizes), **attrs)
        out = Tensor(value, result if result is not None else self.b.type_of(value))
        if self.recording is not None:
            self.recording.append((name, operands, out, tuple(sizes), attrs))
        return out

    def constant(self, array) -> Tensor:
        array = np.asarray(array)
        promotion.ember_dtype(array.dtype, "constant")
        return self.wrap(self.b.constant(array))

    def dim(self, t: Tensor, axis: int) -> ir.Value:
        return self.b.dim(t.value, axis)

    def cast(self, t: Tensor, dtype) -> Tensor:
        name = promotion.ember_dtype(dtype)
        if t.type.dtype == name:
            return t
        return self.emit("cast", t, result=t.type.with_dtype(name))

    def array(self, x, fname: str) -> Tensor:
        """An array_like argument as a tensor; Python scalars and lists become strong
        constants of NumPy's default dtype, as ``np.asarray`` makes them."""
        if isinstance(x, Tensor):
            return x
        if isinstance(x, (bool, int, float, np.generic)):
            if promotion.is_python_scalar(x):
                return self.constant(promotion.check_weak_scalar(x, promotion.default_dtype(x), fname))
            return self.constant(np.asarray(x))
        if isinstance(x, (list, tuple)) and not _holds_tensor(x):
            return self.constant(np.asarray(x))
        raise NotImplementedError(f"{fname}: cannot trace an operand of type {type(x).__name__}")

    def operand(self, x, dtype: np.dtype, fname: str) -> Tensor:
        """``x`` (a tensor, a Python or NumPy scalar) as a tensor of ``dtype``."""
        if isinstance(x, Tensor):
            return self.cast(x, dtype)
        if promotion.is_python_scalar(x):
            return self.constant(promotion.check_weak_scalar(x, np.dtype(dtype), fname))
        return self.cast(self.array(x, fname), dtype)

    def scalar_like(self, value, dtype, like: Tensor) -> Tensor:
        """A tensor of ``like``'s shape filled with ``value`` converted to ``dtype``."""
        return self.broadcast_to(self.constant(np.asarray(value, dtype=dtype)), like.shape, like)

    # ----------------------------------------------------------------- broadcasting

    def broadcast_shape(self, tensors: list[Tensor], fname: str) -> tuple[tuple, dict]:
        """NumPy's broadcast shape of ``tensors`` and, per ``?`` axis, a tensor and axis to
        take its size from. A symbolic size against a static one other than 1 would need
        a guard (``s0 == 3``): not yet."""
        rank = max((t.ndim for t in tensors), default=0)
        shape, sources = [], {}
        for axis in range(rank):
            dims = [(t, t.ndim - rank + axis) for t in tensors if t.ndim - rank + axis >= 0]
            sizes = {t.shape[i] for t, i in dims} - {1}
            static = sorted(d for d in sizes if d is not DYN)
            if len(static) > 1:
                raise ValueError(
                    f"operands could not be broadcast together with shapes {_shape_text([t.shape for t in tensors])} "
                )
            if static and DYN in sizes:
                raise NotImplementedError(f"{fname}: broadcasting a symbolic size against {static[0]}")
            if DYN in sizes:
                sources[axis] = next((t, i) for t, i in dims if t.shape[i] is DYN)
            shape.append(static[0] if static else DYN if DYN in sizes else 1)
        return tuple(shape), sources

    def broadcast_to(self, t: Tensor, shape: tuple, sources) -> Tensor:
        """``t`` broadcast to ``shape``; ``sources`` is a tensor of that shape or a dict
        axis -> (tensor, axis) giving each ``?`` size."""
        if t.shape == tuple(shape):
            return t
        if isinstance(sources, Tensor):
            sources = {a: (sources, a) for a in range(len(shape))}
        sizes = [self.dim(*sources[a]) for a, d in enumerate(shape) if d is DYN]
        return self.emit("broadcast_to", t, result=TensorType(tuple(shape), t.type.dtype), sizes=sizes)

    def broadcast(self, tensors: list[Tensor], fname: str) -> list[Tensor]:
        shape, sources = self.broadcast_shape(tensors, fname)
        return [self.broadcast_to(t, shape, sources) for t in tensors]


def _holds_tensor(seq) -> bool:
    return any(isinstance(x, Tensor) or (isinstance(x, (list, tuple)) and _holds_tensor(x)) for x in seq)
