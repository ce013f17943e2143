"""A compiled Ember graph as a Python callable over NumPy arrays.

The kernel's C interface (``_mlir_ciface_<name>``) takes one memref descriptor
pointer per input, then one per output (destination passing, see
``compiler/passes/bufferize.py``). A call checks the inputs against the graph's
signature, allocates the outputs as ordinary NumPy arrays the caller then owns
(their shapes from the graph's shape program, memoized per input shapes), and makes
one foreign call; ctypes releases the GIL for its duration.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from compiler.dialects.types import DYN, TensorType
from runtime import threads
from runtime.loader import LoadedObject
from runtime.memref import descriptor, descriptor_type


@dataclass(frozen=True)
class Signature:
    name: str
    inputs: tuple[TensorType, ...]
    outputs: tuple[TensorType, ...]


class Kernel:
    def __init__(self, loaded: LoadedObject, signature: Signature, shape_program, parallel: bool = False):
        self.signature = signature
        self.parallel = parallel
        self._loaded = loaded  # keeps the code alive
        self._shape_program = shape_program
        self._shape_cache: dict[tuple, list[tuple]] = {}
        ranks = [t.rank for t in signature.inputs + signature.outputs]
        argtypes = [ctypes.POINTER(descriptor_type(r)) for r in ranks]
        if parallel:
            argtypes += [ctypes.c_int64, ctypes.c_int64]  # part, parts
        self._function = ctypes.CFUNCTYPE(None, *argtypes)(loaded.address(f"_mlir_ciface_{signature.name}"))

    def output_shapes(self, inputs) -> list[tuple]:
        key = tuple(a.shape for a in inputs)
        shapes = self._shape_cache.get(key)
        if shapes is None:
            shapes = self._shape_cache[key] = self._shape_program(key)
        return shapes

    def _check(self, arrays) -> list[np.ndarray]:
        sig = self.signature
        if len(arrays) != len(sig.inputs):
            raise TypeError(f"{sig.name} takes {len(sig.inputs)} arrays, got {len(arrays)}")
        for i, (a, t) in enumerate(zip(arrays, sig.inputs)):
            if not isinstance(a, np.ndarray) or a.dtype != t.numpy_dtype or a.ndim != t.rank or any(
                    d is not DYN and d != s for d, s in zip(t.shape, a.shape)):
                got = f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else type(a).__name__
                raise TypeError(f"{sig.name}: argument {i} must be {t}, got {got}")
        return list(arrays)

    def __call__(self, *arrays) -> tuple[np.ndarray, ...]:
        inputs = self._check(arrays)
        outputs = [np.empty(shape, t.numpy_dtype)
                   for shape, t in zip(self.output_shapes(inputs), self.signature.outputs)]
        arrays = inputs + outputs
        pointers = [ctypes.byref(descriptor(a)) for a in arrays]
        if not self.parallel:
            self._function(*pointers)
            return tuple(outputs)
        parts = threads.num_threads() if sum(a.nbytes for a in arrays) >= threads.PARALLEL_MIN_BYTES else 1
        threads.run_parts(lambda part: self._function(*pointers, part, parts), parts)
        return tuple(outputs)
