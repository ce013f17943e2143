"""A compiled Ember graph as a Python callable over NumPy arrays.

The kernel's C interface (``_mlir_ciface_<name>``) takes one memref descriptor
pointer per input, then one per output (destination passing, see
``compiler/passes/bufferize.py``). A call checks the inputs against the graph's
signature, picks the code variant compiled for its inputs' layouts, allocates the outputs as ordinary NumPy arrays the caller then owns
(their shapes from the graph's shape program, memoized per input shapes), and makes
one foreign call; ctypes releases the GIL for its duration.
"""

from __future__ import annotations

import ctypes
import threading
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


@dataclass(frozen=True)
class Variant:
    """One compiled specialization of a kernel (see ``Kernel``)."""

    loaded: LoadedObject
    parallel: bool  # takes (part, parts): see compiler/passes/parallel.py


class Kernel:
    """The compiled graph, in variants keyed by which inputs are C-contiguous.

    ``build(contiguous) -> Variant`` compiles (or loads from the artifact cache) the
    code for one key; a call picks the variant its inputs need, building it once.
    """

    def __init__(self, signature: Signature, shape_program, build):
        self.signature = signature
        self._build = build
        self._variants: dict[tuple, tuple[Variant, object]] = {}
        self._lock = threading.Lock()
        self._shape_program = shape_program
        self._shape_cache: dict[tuple, list[tuple]] = {}

    def variant(self, contiguous: tuple[bool, ...]):
        found = self._variants.get(contiguous)
        if found is None:
            with self._lock:
                found = self._variants.get(contiguous)
                if found is None:
                    variant = self._build(contiguous)
                    found = self._variants[contiguous] = (variant, self._function_of(variant))
        return found

    def _function_of(self, variant: Variant):
        ranks = [t.rank for t in self.signature.inputs + self.signature.outputs]
        argtypes = [ctypes.POINTER(descriptor_type(r)) for r in ranks]
        if variant.parallel:
            argtypes += [ctypes.c_int64, ctypes.c_int64]  # part, parts
        address = variant.loaded.address(f"_mlir_ciface_{self.signature.name}")
        return ctypes.CFUNCTYPE(None, *argtypes)(address)

    @property
    def parallel(self) -> bool:
        """Whether the all-contiguous variant splits across threads."""
        return self.variant((True,) * len(self.signature.inputs))[0].parallel

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
        variant, function = self.variant(tuple(a.flags.c_contiguous for a in inputs))
        arrays = inputs + outputs
        pointers = [ctypes.byref(descriptor(a)) for a in arrays]
        if not variant.parallel:
            function(*pointers)
            return tuple(outputs)
        parts = threads.num_threads() if sum(a.nbytes for a in arrays) >= threads.PARALLEL_MIN_BYTES else 1
        threads.run_parts(lambda part: function(*pointers, part, parts), parts)
        return tuple(outputs)
