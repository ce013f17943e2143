"""The CPU backend: an Ember module becomes a callable running host object code."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from compiler import logs

from compiler import __version__
from compiler.backends.llvm_cpu import blas
from compiler.backends.llvm_cpu.codegen import emit_object, host_target, optimize
from compiler.dialects.shapes import ShapeProgram
from compiler.dialects.types import TensorType
from compiler.mlir import bindings_version, ir, translate_to_llvm_ir
from compiler.passes.bufferize import set_contiguous
from compiler.passes.parallel import PARALLEL_ATTR
from compiler.passes.parallel_reduction import SCRATCH_ATTR
from compiler.passes.registry import Element, expand, run_pipeline
from runtime import abi, threads
from runtime.cache import ARTIFACTS, Artifact, artifact_key
from runtime.kernel import Kernel, Signature, Variant
from runtime.loader import LoadedObject


def entry_function(module: ir.Module, name: str | None = None):
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and (name is None or ir.StringAttr(op.attributes["sym_name"]).value == name):
            return op
    raise LookupError(f"no function {name or ''} in module".replace("  ", " "))


def signature_of(func_op) -> Signature:
    fn_type = ir.FunctionType(ir.TypeAttr(func_op.attributes["function_type"]).value)
    return Signature(ir.StringAttr(func_op.attributes["sym_name"]).value,
                     tuple(TensorType.from_mlir(t) for t in fn_type.inputs),
                     tuple(TensorType.from_mlir(t) for t in fn_type.results))


@dataclass(frozen=True)
class Lowered:
    object_code: bytes
    llvm_ir: str
    parallel: bool  # the kernel takes (part, parts): see compiler/passes/parallel.py
    scratch: tuple = ()  # (slots, dtype) of each scratch array: compiler/passes/parallel_reduction.py


def lower_to_object(module: ir.Module, entry: str, contiguous: tuple[bool, ...] = ()) -> Lowered:
    """Object code of an Ember module's function ``entry``, specialized for the inputs
    flagged in ``contiguous`` being C-contiguous; ``module`` is untouched."""
    with module.context:
        lowered = ir.Module.parse(str(module))
        fn = entry_function(lowered, entry)
        set_contiguous(fn, contiguous)
        fn.attributes["sym_name"] = ir.StringAttr.get(abi.kernel_symbol(entry))
    start = time.perf_counter()
    _run_stages(lowered, "lower-to-loops", entry)
    attrs = entry_function(lowered, abi.kernel_symbol(entry)).attributes
    parallel = PARALLEL_ATTR in attrs and ir.BoolAttr(attrs[PARALLEL_ATTR]).value
    signature = signature_of(entry_function(module, entry))
    scratch = _scratch(attrs, signature)
    _run_stages(lowered, "loops-to-llvm", entry)
    _one_copy_of_the_kernel(lowered, abi.kernel_symbol(entry))
    arrays = [(t.rank, t.numpy_dtype.itemsize) for t in signature.inputs + signature.outputs]
    buffers = [(slots, np.dtype(dtype).itemsize) for slots, dtype in scratch]
    llvm_ir = translate_to_llvm_ir(lowered) + "\n" + abi.entry_wrapper_ir(entry, arrays, parallel, buffers)
    mlir_done = time.perf_counter()
    object_code = emit_object(optimize(llvm_ir))
    logs.log("output_code", "LLVM IR %s\n%s", entry, llvm_ir)
    logs.log("perf", "%s: MLIR passes %.1f ms, LLVM O3 + codegen %.1f ms", entry,
             (mlir_done - start) * 1e3, (time.perf_counter() - mlir_done) * 1e3)
    return Lowered(object_code, llvm_ir, parallel, scratch)


def _one_copy_of_the_kernel(module: ir.Module, symbol: str) -> None:
    """The kernel's body is big (vectorized loops), and LLVM inlined a small one into
    each of its wrappers — the C interface, the entry, the launcher's task
    (runtime/abi.py) — each one more copy for O3 and code generation (mse's cold
    compile: 65-76 ms of LLVM instead of 31-33). ``noinline`` keeps one copy, which
    the wrappers call once per kernel call; its ``noalias`` arguments stay its own."""
    with module.context:
        for op in module.body.operations:
            name = ir.StringAttr(op.attributes["sym_name"]).value if "sym_name" in op.attributes else ""
            if name == symbol:
                op.attributes["passthrough"] = ir.Attribute.parse('["noinline"]')


def _scratch(attrs, signature) -> tuple:
    """The scratch arrays the kernel takes after its outputs: a split reduction's
    partials (of its output's dtype) and its int64 counter."""
    if SCRATCH_ATTR not in attrs:
        return ()
    partials, counter = list(ir.DenseI64ArrayAttr(attrs[SCRATCH_ATTR]))
    return ((partials, signature.outputs[0].numpy_dtype.str), (counter, "<i8"))


def _run_stages(module: ir.Module, pipeline: str, entry: str) -> None:
    """Run a named pipeline; with the ``ir`` log on, pass by pass, printing the IR after each."""
    if not logs.enabled("ir"):
        run_pipeline(module, f"builtin.module({pipeline})")
        return
    for element in expand([Element(pipeline)]):
        run_pipeline(module, f"builtin.module({element.text()})")
        logs.log("ir", "IR of %s after %s\n%s", entry, element.text(), module)


def cache_key(module: ir.Module, entry: str, contiguous: tuple[bool, ...] = ()) -> str:
    layout = "".join("c" if flag else "s" for flag in contiguous)
    return artifact_key(str(module), entry, layout, __version__, bindings_version(), host_target().cache_tag,
                        blas.cache_tag())


def object_code(module: ir.Module, entry: str, contiguous: tuple[bool, ...] = ()) -> Artifact:
    """The entry's object code, from the artifact cache or freshly compiled into it."""
    key = cache_key(module, entry, contiguous)
    artifact = ARTIFACTS.get(key)
    if artifact is None:
        lowered = lower_to_object(module, entry, contiguous)
        artifact = Artifact(lowered.object_code, {"parallel": lowered.parallel, "entry": entry,
                                                  "scratch": [list(s) for s in lowered.scratch]})
        ARTIFACTS.put(key, artifact)
    return artifact


def _load(artifact: Artifact, entry: str) -> Variant:
    start = time.perf_counter()
    if artifact.meta["parallel"]:
        threads.register_symbols()  # its launcher calls the worker pool
    variant = Variant(LoadedObject(artifact.payload), artifact.meta["parallel"],
                      tuple((slots, np.dtype(dtype)) for slots, dtype in artifact.meta.get("scratch", ())))
    logs.log("perf", "%s: load %.1f ms", entry, (time.perf_counter() - start) * 1e3)
    return variant


def compile_module(module: ir.Module, entry: str | None = None) -> Kernel:
    """A native callable for ``module``'s function ``entry``.

    Code is specialized on which inputs are C-contiguous (unit-stride loads
    vectorize; any other NumPy view goes through strided code): the all-contiguous
    variant is compiled now, others on the first call that needs them.
    """
    func_op = entry_function(module, entry)
    signature = signature_of(func_op)

    def build(contiguous: tuple[bool, ...]) -> Variant:
        return _load(object_code(module, signature.name, contiguous), signature.name)

    kernel = Kernel(signature, ShapeProgram(func_op), build)
    kernel.variant((True,) * len(signature.inputs))
    return kernel
