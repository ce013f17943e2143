"""The CUDA backend: an Ember module becomes GPU kernels (PTX) and the host steps
that launch them, run by ``runtime/cuda``.

``lower-to-gpu`` makes the kernels and the host function (``ember-gpu-kernels``);
the host function becomes plain steps (``host_plan.py``), the kernels go through
``gpu-to-nvvm``, LLVM IR and llvmlite's NVPTX target, with libdevice linked
(``codegen.py``). PTX and steps are stored in the artifact cache, keyed like the CPU
artifacts plus the GPU architecture; the driver JIT-compiles the PTX when a call
first loads it.
"""

from __future__ import annotations

import time

from compiler import logs
from compiler.backends.llvm_cpu import signature_of
from compiler.backends.nvptx.codegen import default_arch, kernel_module_ir, ptx_from_llvm_ir
from compiler.backends.nvptx.host_plan import host_steps
from compiler.dialects.shapes import ShapeProgram
from compiler.errors import EmberError
from compiler.mlir import bindings_version, copy_module, function_named, ir, module_text
from compiler.passes.bufferize import set_contiguous
from compiler.passes.pass_manager import run_pipeline
from runtime.cache import ARTIFACTS, Artifact, artifact_key
from runtime.cuda.driver import driver
from runtime.cuda.kernel import GpuKernel
from runtime.cuda.program import Program
from runtime.version import __version__


def target_arch() -> str:
    """The device's own architecture where a GPU is visible, else ``default_arch()``."""
    try:
        return driver().sm
    except EmberError:
        return default_arch()


def lower_to_ptx(module: ir.Module, entry: str, contiguous: tuple[bool, ...], arch: str) -> tuple[str, list]:
    """(PTX of the kernels, host steps) of ``module``'s function ``entry``; ``module`` is untouched."""
    lowered = copy_module(module)
    with module.context:
        set_contiguous(function_named(lowered, entry), contiguous)
    start = time.perf_counter()
    run_pipeline(lowered, "builtin.module(lower-to-gpu)")
    logs.log("ir", "IR of %s after lower-to-gpu\n%s", entry, lowered)
    steps = host_steps(function_named(lowered, entry))
    run_pipeline(lowered, "builtin.module(gpu-to-nvvm)")
    mlir_done = time.perf_counter()
    ptx = ptx_from_llvm_ir(kernel_module_ir(lowered), arch)
    logs.log(
        "perf",
        "%s: MLIR passes %.1f ms, NVPTX %.1f ms",
        entry,
        (mlir_done - start) * 1e3,
        (time.perf_counter() - mlir_done) * 1e3,
    )
    return ptx, steps


def gpu_artifact(module: ir.Module, entry: str, contiguous: tuple[bool, ...], arch: str) -> Artifact:
    layout = "".join("c" if flag else "s" for flag in contiguous)
    key = artifact_key(module_text(module), entry, layout, __version__, bindings_version(), "nvptx", arch)
    artifact = ARTIFACTS.get(key)
    if artifact is None:
        ptx, steps = lower_to_ptx(module, entry, contiguous, arch)
        artifact = Artifact(ptx.encode(), {"entry": entry, "steps": steps, "arch": arch, "key": key})
        ARTIFACTS.put(key, artifact)
    return artifact


def load_program(artifact: Artifact) -> Program:
    """The artifact's kernels loaded into this process's CUDA context."""
    device = driver()
    loaded = device.load_module(artifact.payload, artifact.meta["key"])
    names = {step[1] for step in artifact.meta["steps"] if step[0] == "launch"}
    return Program(artifact.meta["steps"], {name: device.function(loaded, name) for name in names}, device)


def compile_graph_module(module: ir.Module, entry: str | None = None) -> GpuKernel:
    """A callable running ``module``'s function ``entry`` on the GPU. The all-contiguous
    variant's PTX is made now (no GPU needed); loading waits for the first call."""
    func_op = function_named(module, entry)
    signature = signature_of(func_op)
    arch = target_arch()
    gpu_artifact(module, signature.name, (True,) * len(signature.inputs), arch)

    def build(contiguous: tuple[bool, ...]) -> Program:
        return load_program(gpu_artifact(module, signature.name, contiguous, arch))

    return GpuKernel(signature, ShapeProgram(func_op), build)
