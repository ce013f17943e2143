"""The CPU backend: an Ember module becomes a callable running host object code."""

from __future__ import annotations

from dataclasses import dataclass

from compiler import __version__
from compiler.backends.llvm_cpu.codegen import emit_object, host_target, optimize
from compiler.dialects.shapes import ShapeProgram
from compiler.dialects.types import TensorType
from compiler.mlir import bindings_version, ir, translate_to_llvm_ir
from compiler.passes.parallel import PARALLEL_ATTR
from compiler.passes.registry import run_pipeline
from runtime.cache import ARTIFACTS, Artifact, artifact_key
from runtime.kernel import Kernel, Signature
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


def lower_to_object(module: ir.Module, entry: str) -> Lowered:
    """Object code of an Ember module's function ``entry``; ``module`` is untouched."""
    with module.context:
        lowered = ir.Module.parse(str(module))
    run_pipeline(lowered, "builtin.module(lower-to-loops)")
    attrs = entry_function(lowered, entry).attributes
    parallel = PARALLEL_ATTR in attrs and ir.BoolAttr(attrs[PARALLEL_ATTR]).value
    run_pipeline(lowered, "builtin.module(loops-to-llvm)")
    llvm_ir = translate_to_llvm_ir(lowered)
    return Lowered(emit_object(optimize(llvm_ir)), llvm_ir, parallel)


def cache_key(module: ir.Module, entry: str) -> str:
    return artifact_key(str(module), entry, __version__, bindings_version(), host_target().cache_tag)


def object_code(module: ir.Module, entry: str) -> Artifact:
    """The entry's object code, from the artifact cache or freshly compiled into it."""
    key = cache_key(module, entry)
    artifact = ARTIFACTS.get(key)
    if artifact is None:
        lowered = lower_to_object(module, entry)
        artifact = Artifact(lowered.object_code, {"parallel": lowered.parallel, "entry": entry})
        ARTIFACTS.put(key, artifact)
    return artifact


def compile_module(module: ir.Module, entry: str | None = None) -> Kernel:
    func_op = entry_function(module, entry)
    signature = signature_of(func_op)
    artifact = object_code(module, signature.name)
    return Kernel(LoadedObject(artifact.payload), signature, ShapeProgram(func_op), artifact.meta["parallel"])
