"""Ember's plain-Python view of tensor types.

Type rules, the reference interpreter and the frontend reason about shapes and
dtypes without an MLIR context; this module is the bridge between that view and
MLIR's ``RankedTensorType``. A size is an ``int`` or ``DYN`` (``None``): a size that
is only known at run time (printed ``?`` in MLIR), which is what a symbolic size of
the frontend becomes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler.mlir import ir
from runtime.abi import DYN  # the runtime's marker, so a signature needs no translating of sizes

# Ember element type name -> NumPy dtype. Integers are signed (MLIR signless, read as signed).
NUMPY_DTYPES = {
    "i1": np.dtype(np.bool_),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
ELEMENT_TYPES = {v: k for k, v in NUMPY_DTYPES.items()}
FLOATS = ("f32", "f64")
INTEGERS = ("i32", "i64")


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
        t = ir.RankedTensorType(t)
        shape = tuple(DYN if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank))
        return TensorType(shape, element_type_name(t.element_type))


def element_type_of(dtype) -> str:
    dtype = np.dtype(dtype)
    if dtype not in ELEMENT_TYPES:
        raise TypeError(f"unsupported dtype {dtype}")
    return ELEMENT_TYPES[dtype]


def mlir_element_type(name: str) -> ir.Type:
    if name in FLOATS:
        return ir.F32Type.get() if name == "f32" else ir.F64Type.get()
    return ir.IntegerType.get_signless(int(name[1:]))


def element_type_name(t: ir.Type) -> str:
    text = str(t)
    if text not in NUMPY_DTYPES:
        raise TypeError(f"unsupported element type {text}")
    return text
