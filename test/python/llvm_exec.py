"""Test-only: lower a tensor-level module to LLVM, JIT it with llvmlite, call it on NumPy arrays.

This is not Ember's runtime (that lives elsewhere); it exists so pass tests can
check lowered IR against NumPy by running it. Results are returned as memref
descriptors (``llvm.emit_c_interface``), read with their offsets and strides, and
copied into fresh arrays; the buffers the compiled code malloc'ed are leaked.
"""

from __future__ import annotations

import ctypes
import re
import functools

import llvmlite.binding as llvm
import numpy as np

from compiler.dialects.types import NUMPY_DTYPES, TensorType
from compiler.mlir import ir, translate_to_llvm_ir
from compiler.passes.registry import run_pipeline

# From tensors to the LLVM dialect. arith-expand: floordivsi and friends;
# convert-math-to-funcs: math.ipowi; convert-math-to-libm: math ops without an
# LLVM intrinsic (erf, tanh) become libm calls that the JIT resolves in-process.
# Strided memref.copy becomes a call to MLIR's runtime function ``memrefCopy``,
# which a bare JIT lacks: ``_memref_copy`` below provides it.
LOWER_TO_LLVM = (
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},"
    "func.func(convert-linalg-to-loops),"
    "convert-scf-to-cf,"
    "expand-strided-metadata,"
    "lower-affine,"
    "arith-expand,"
    "convert-math-to-funcs,"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "convert-scf-to-cf,"
    "finalize-memref-to-llvm,"
    "convert-arith-to-llvm,"
    "convert-index-to-llvm,"
    "convert-func-to-llvm,"
    "convert-cf-to-llvm,"
    "reconcile-unrealized-casts"
)

_initialized = False


class _Unranked(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_int64), ("descriptor", ctypes.c_void_p)]


def _strided_bytes(desc_address: int, rank: int, item: int) -> np.ndarray:
    """A writable byte-element view (dtype ``V{item}``) of a ranked descriptor."""
    desc = descriptor_type(rank).from_address(desc_address)
    shape = tuple(desc.sizes) if rank else ()
    strides = tuple(s * item for s in desc.strides) if rank else ()
    if 0 in shape:
        return np.zeros(shape, f"V{item}")
    span = 1 + sum((d - 1) * s for d, s in zip(shape, strides)) // item  # strides >= 0 here
    buffer = (ctypes.c_char * (span * item)).from_address(desc.aligned + desc.offset * item)
    return np.lib.stride_tricks.as_strided(np.frombuffer(buffer, f"V{item}"), shape=shape, strides=strides)


@ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.POINTER(_Unranked), ctypes.POINTER(_Unranked))
def _memref_copy(item, src, dst):
    """MLIR's ``memrefCopy(elemSize, UnrankedMemRef *src, UnrankedMemRef *dst)``."""
    s, d = src.contents, dst.contents
    target = _strided_bytes(d.descriptor, d.rank, item)
    target[...] = _strided_bytes(s.descriptor, s.rank, item)


def _init_llvm():
    global _initialized
    if not _initialized:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.add_symbol("memrefCopy", ctypes.cast(_memref_copy, ctypes.c_void_p).value)
        _initialized = True


@functools.cache
def descriptor_type(rank: int):
    """ctypes struct of a ranked memref descriptor: ptr, ptr, offset, sizes[rank], strides[rank]."""
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def _descriptor_of(array: np.ndarray):
    desc = descriptor_type(array.ndim)()
    desc.allocated = desc.aligned = array.ctypes.data
    desc.offset = 0
    if array.ndim:
        desc.sizes[:] = list(array.shape)
        desc.strides[:] = [s // array.itemsize for s in array.strides]
    return desc


def _array_of(desc, t: TensorType) -> np.ndarray:
    dtype = NUMPY_DTYPES[t.dtype]
    shape = tuple(desc.sizes) if t.rank else ()
    strides = tuple(s * dtype.itemsize for s in desc.strides) if t.rank else ()
    if 0 in shape:
        return np.zeros(shape, dtype)
    address = desc.aligned + desc.offset * dtype.itemsize
    # Span of memory the view touches, so np.frombuffer-free as_strided stays in bounds.
    extent = 1 + sum((d - 1) * abs(s) for d, s in zip(shape, strides)) // dtype.itemsize
    low = sum((d - 1) * s for d, s in zip(shape, strides) if s < 0) // dtype.itemsize
    buffer = (ctypes.c_char * (extent * dtype.itemsize)).from_address(address + low * dtype.itemsize)
    base = np.frombuffer(buffer, dtype=dtype)
    view = np.lib.stride_tricks.as_strided(base[-low:] if low else base, shape=shape, strides=strides)
    return np.array(view, copy=True)


# The bindings' LLVM prints special floats in a newer literal syntax (``float +inf``,
# ``double -qnan``, ``+nan(0x...)``) that llvmlite's (older) IR parser rejects; the
# hexadecimal double form is understood by both.
_SPECIAL_FLOAT = re.compile(r"(?<![\w.%@\"$-])([+-])(inf|qnan|snan|nan)(\(0x[0-9a-fA-F]+\))?(?![\w.])")
_HEX = {("+", "inf"): "0x7FF0000000000000", ("-", "inf"): "0xFFF0000000000000",
        ("+", "nan"): "0x7FF8000000000000", ("-", "nan"): "0xFFF8000000000000"}


def legacy_float_literals(llvm_ir: str) -> str:
    def hex_of(m):
        kind = "inf" if m.group(2) == "inf" else "nan"
        return _HEX[(m.group(1), kind)]

    return _SPECIAL_FLOAT.sub(hex_of, llvm_ir)


class Compiled:
    """A JIT-compiled function of a module whose one func takes and returns tensors."""

    def __init__(self, module: ir.Module, extra_pipeline: str = ""):
        _init_llvm()
        fn = next(op for op in module.body.operations if op.operation.name == "func.func")
        self.name = ir.StringAttr(fn.attributes["sym_name"]).value
        fn_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        self.arg_types = [TensorType.from_mlir(t) for t in fn_type.inputs]
        self.result_types = [TensorType.from_mlir(t) for t in fn_type.results]
        with module.context:
            fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        pipeline = (extra_pipeline + "," if extra_pipeline else "") + LOWER_TO_LLVM
        run_pipeline(module, f"builtin.module({pipeline})")
        self.llvm_ir = translate_to_llvm_ir(module)
        target = llvm.Target.from_default_triple().create_target_machine()
        parsed = llvm.parse_assembly(legacy_float_literals(self.llvm_ir))
        parsed.verify()
        self.engine = llvm.create_mcjit_compiler(parsed, target)
        self.engine.finalize_object()
        address = self.engine.get_function_address(f"_mlir_ciface_{self.name}")
        results = type("Results", (ctypes.Structure,),
                       {"_fields_": [(f"r{i}", descriptor_type(t.rank)) for i, t in enumerate(self.result_types)]})
        self.results_type = results
        argtypes = [ctypes.POINTER(descriptor_type(t.rank)) for t in self.arg_types]
        if self.result_types:
            argtypes = [ctypes.POINTER(results)] + argtypes
        self.function = ctypes.CFUNCTYPE(None, *argtypes)(address)

    def __call__(self, *arrays) -> list[np.ndarray]:
        inputs = []
        for a, t in zip(arrays, self.arg_types):
            a = np.array(a, dtype=t.numpy_dtype, order="C")  # not ascontiguousarray: keeps 0-d
            inputs.append(a)
        descs = [_descriptor_of(a) for a in inputs]
        out = self.results_type()
        args = [ctypes.byref(d) for d in descs]
        if self.result_types:
            args = [ctypes.byref(out)] + args
        self.function(*args)
        return [_array_of(getattr(out, f"r{i}"), t) for i, t in enumerate(self.result_types)]
