"""Ember's plain-Python view of tensor types.

Type rules, the reference interpreter and the frontend reason about shapes and
dtypes without an MLIR context; this module is the bridge between that view and
MLIR's ``RankedTensorType``. A size is an ``int`` or ``DYN`` (``None``): a size that
is only known at run time (printed ``?`` in MLIR), which is what a symbolic size of
the frontend becomes.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass

import numpy as np

from compiler.mlir import ir
from runtime.abi import DYN  # the runtime's marker, so a signature needs no translating of sizes

# Ember element type name -> NumPy dtype. The name is the MLIR element type of Ember's
# dialect: ``iN`` (signless) is a signed integer, ``uiN`` (MLIR's unsigned integer type)
# an unsigned one. ``arith``/``linalg`` only take signless integers, so ember-to-linalg
# lowers ``uiN`` to ``iN`` (``signless_types``) and picks the unsigned arith ops itself.
NUMPY_DTYPES = {
    "i1": np.dtype(np.bool_),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "ui8": np.dtype(np.uint8),
    "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32),
    "ui64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    # complex: MLIR's ``complex<fN>``, laid out as NumPy's, {re, im} (complex_numbers.py)
    "complex<f32>": np.dtype(np.complex64),
    "complex<f64>": np.dtype(np.complex128),
}
ELEMENT_TYPES = {v: k for k, v in NUMPY_DTYPES.items()}
FLOATS = ("f32", "f64", "f16")
UNSIGNED = ("ui8", "ui16", "ui32", "ui64")
INTEGERS = ("i32", "i64", "i8", "i16") + UNSIGNED
COMPLEX = ("complex<f32>", "complex<f64>")
COMPLEX_PART = {"complex<f32>": "f32", "complex<f64>": "f64"}  # the type of re and im

# While set (ember-to-linalg, see ``signless_types``), ``uiN`` names build signless MLIR types.
_SIGNLESS = contextvars.ContextVar("ember_signless_types", default=False)


@contextlib.contextmanager
def signless_types():
    """Within the block, ``mlir_element_type`` (and ``TensorType.to_mlir``) of an unsigned
    name give the signless integer of its width: what ``arith``/``linalg`` accept."""
    token = _SIGNLESS.set(True)
    try:
        yield
    finally:
        _SIGNLESS.reset(token)


def is_unsigned(name: str) -> bool:
    return name in UNSIGNED


def bit_width(name: str) -> int:
    """Bits of an integer or float element type name (``ui8`` -> 8, ``f16`` -> 16)."""
    return int(name.lstrip("uif"))


@dataclass(frozen=True)
class TensorType:
    shape: tuple
    dtype: str

    def __post_init__(self):
        if self.dtype not in NUMPY_DTYPES:
            raise ValueError(f"unsupported element type {self.dtype!r}")

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numpy_dtype(self) -> np.dtype:
        return NUMPY_DTYPES[self.dtype]

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOATS

    @property
    def is_complex(self) -> bool:
        return self.dtype in COMPLEX

    @property
    def is_static(self) -> bool:
        return all(d is not DYN for d in self.shape)

    def dynamic_axes(self) -> list[int]:
        return [i for i, d in enumerate(self.shape) if d is DYN]

    def with_shape(self, shape) -> "TensorType":
        return TensorType(tuple(shape), self.dtype)

    def with_dtype(self, dtype: str) -> "TensorType":
        return TensorType(self.shape, dtype)

    def __str__(self) -> str:
        dims = "".join(("?" if d is DYN else str(d)) + "x" for d in self.shape)
        return f"tensor<{dims}{self.dtype}>"

    @staticmethod
    def of_array(array: np.ndarray) -> "TensorType":
        return TensorType(tuple(array.shape), element_type_of(array.dtype))

    def to_mlir(self) -> ir.RankedTensorType:
        shape = [ir.ShapedType.get_dynamic_size() if d is DYN else d for d in self.shape]
        return ir.RankedTensorType.get(shape, mlir_element_type(self.dtype))

    @staticmethod
    def from_mlir(t: ir.Type) -> "TensorType":
        found = _FROM_MLIR.get(t)
        if found is None:
            if len(_FROM_MLIR) >= _FROM_MLIR_LIMIT:
                _FROM_MLIR.clear()
            t = ir.RankedTensorType(t)
            shape = tuple(DYN if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank))
            found = _FROM_MLIR[t] = TensorType(shape, element_type_name(t.element_type))
        return found


# MLIR tensor type -> TensorType. Reading a type through the bindings (its rank, each
# size, its element type) costs ~10 us; the tracer reads the type of every operand of
# every op it builds (a sixth of tracing a 10-step stencil). MLIR types are unique per
# context, so a type is its own key; the bound keeps the types (and contexts) held few.
_FROM_MLIR: dict = {}
_FROM_MLIR_LIMIT = 4096


def element_type_of(dtype) -> str:
    dtype = np.dtype(dtype)
    if dtype not in ELEMENT_TYPES:
        raise TypeError(f"unsupported dtype {dtype}")
    return ELEMENT_TYPES[dtype]


def mlir_element_type(name: str) -> ir.Type:
    if name in COMPLEX:
        return ir.ComplexType.get(mlir_element_type(COMPLEX_PART[name]))
    if name in FLOATS:
        return {"f16": ir.F16Type, "f32": ir.F32Type, "f64": ir.F64Type}[name].get()
    if name in UNSIGNED and not _SIGNLESS.get():
        return ir.IntegerType.get_unsigned(bit_width(name))
    return ir.IntegerType.get_signless(bit_width(name))


def element_type_name(t: ir.Type) -> str:
    text = str(t)
    if text not in NUMPY_DTYPES:
        raise TypeError(f"unsupported element type {text}")
    return text
