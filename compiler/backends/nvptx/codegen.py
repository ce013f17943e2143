"""GPU kernels in the LLVM/NVVM dialects -> LLVM IR -> PTX, with llvmlite's NVPTX backend.

``kernel_module_ir`` takes the ``gpu.module`` of a module lowered by ``gpu-to-nvvm``
and translates its body to LLVM IR: each kernel is a ``define ptx_kernel`` function,
and each math function a declared libdevice function (``declare float @__nv_expf(float)``).

``ptx_from_llvm_ir`` then links libdevice in, gives every function but the kernels
(and every global) internal linkage -- after linking: before it, the libdevice
definitions would not resolve the kernels' declarations -- so that O3 inlines what
the kernels call and drops the rest of libdevice, and prints PTX for one SM
architecture. The CUDA driver (or ptxas) turns the PTX into machine code.
"""

from __future__ import annotations

import functools
import os
import re
import time

import llvmlite.binding as llvm

from compiler import logs
from compiler.backends.llvm_cpu.float_syntax import legacy_float_syntax
from compiler.backends.nvptx.toolkit import libdevice_path
from compiler.errors import BackendError
from compiler.mlir import ir, translate_to_llvm_ir

TRIPLE = "nvptx64-nvidia-cuda"
DEFAULT_ARCH = "sm_80"
ARCH_ENV = "EMBER_CUDA_ARCH"
KERNEL_MODULE = "ember_kernels"  # the gpu.module Ember's lowering puts its kernels in

# The SM architectures the NVPTX backend of llvmlite's LLVM (22, pinned) knows. LLVM
# only warns on another name, then prints PTX ``.version 3.2`` that no ptxas takes.
LLVM_ARCHES = frozenset(
    ["sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37", "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62"]
    + ["sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a"]
    + [f"sm_{n}{s}" for n in (100, 101, 103, 110, 120, 121) for s in ("", "a", "f")]
)
# The PTX ISA version asked for per architecture; elsewhere LLVM's own choice, the
# oldest version that has the architecture (sm_86: 7.1, sm_100: 8.6, ...).
PTX_FEATURES = {"sm_80": "+ptx70", "sm_90": "+ptx80", "sm_90a": "+ptx80"}

_KERNEL_DEFINITION = re.compile(r'^define\b[^\n@]*\bptx_kernel\b[^\n@]*@("(?:[^"\\]|\\.)*"|[-\w.$]+)\s*\(', re.M)


def default_arch() -> str:
    """``$EMBER_CUDA_ARCH`` if set, else sm_80 (the runtime passes its device's own)."""
    return os.environ.get(ARCH_ENV, "").strip() or DEFAULT_ARCH


def check_arch(arch: str) -> None:
    if arch not in LLVM_ARCHES:
        known = ", ".join(a for a in sorted(LLVM_ARCHES, key=_arch_key) if _arch_key(a)[0] >= 70)
        raise BackendError(f"unknown GPU architecture {arch!r} (expected sm_XX, one of: {known})")


def _arch_key(arch: str) -> tuple[int, str]:
    """``sm_90a`` -> ``(90, "a")``: the number, then the suffix."""
    number = re.search(r"\d+", arch)
    return (int(number.group()) if number else 0, arch)


@functools.cache
def _initialize() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


@functools.cache
def target_machine(arch: str, opt_level: int = 3) -> llvm.TargetMachine:
    check_arch(arch)
    _initialize()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch, features=PTX_FEATURES.get(arch, ""), opt=opt_level)


@functools.cache
def _libdevice_bytes(path: str) -> bytes:
    """libdevice's bitcode, read once per process (parsed per use: linking consumes it)."""
    with open(path, "rb") as f:
        return f.read()


def kernel_names(llvm_ir: str) -> set[str]:
    """The functions defined with the ``ptx_kernel`` calling convention."""
    return {m.group(1).strip('"') for m in _KERNEL_DEFINITION.finditer(llvm_ir)}


def ptx_from_llvm_ir(llvm_ir: str, arch: str = DEFAULT_ARCH) -> str:
    """PTX for ``arch`` of LLVM IR holding GPU kernels, libdevice linked in when a
    kernel calls it; BackendError when the IR is invalid or libdevice is missing."""
    tm = target_machine(arch)  # checks arch first: LLVM does not fail on an unknown one
    start = time.perf_counter()
    try:
        module = llvm.parse_assembly(legacy_float_syntax(llvm_ir))
    except RuntimeError as e:
        raise BackendError(f"invalid LLVM IR for the GPU: {str(e).strip()}") from None
    module.triple = TRIPLE
    module.data_layout = str(tm.target_data)
    try:
        module.verify()  # before linking: verifying libdevice too took 35 ms
    except RuntimeError as e:
        raise BackendError(f"invalid LLVM IR for the GPU: {str(e).strip()}") from None
    # The kernels stay visible to the driver; without a ptx_kernel definition (kernels
    # marked by !nvvm.annotations instead) every function defined here stays too.
    kept = kernel_names(llvm_ir) or {f.name for f in module.functions if not f.is_declaration}
    if any(f.is_declaration and f.name.startswith("__nv_") for f in module.functions):
        libdevice = llvm.parse_bitcode(_libdevice_bytes(str(libdevice_path())))
        libdevice.triple = module.triple
        libdevice.data_layout = module.data_layout
        module.link_in(libdevice)
    for fn in module.functions:
        if not fn.is_declaration and fn.name not in kept:
            fn.linkage = llvm.Linkage.internal
    for var in module.global_variables:
        if not var.is_declaration:
            var.linkage = llvm.Linkage.internal
    # Dropping the unused libdevice functions first: O3 then takes 4 ms, not 80.
    dce = llvm.create_new_module_pass_manager()
    dce.add_global_dead_code_eliminate_pass()
    dce.run(module, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=0)))
    builder = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=3))
    builder.getModulePassManager().run(module, builder)
    ptx = tm.emit_assembly(module)
    logs.log("output_code", "PTX for %s\n%s", arch, ptx)
    logs.log(
        "perf",
        "PTX for %s (%s): LLVM link + O3 + codegen %.1f ms",
        arch,
        ", ".join(sorted(kept)),
        (time.perf_counter() - start) * 1e3,
    )
    return ptx


def gpu_modules(module) -> list[ir.Operation]:
    """The ``gpu.module`` ops at the top of ``module``."""
    return [op.operation for op in module.body.operations if op.operation.name == "gpu.module"]


def kernel_module(module) -> ir.Operation:
    """The ``gpu.module`` named ``ember_kernels``, or the only one; BackendError otherwise."""
    found = gpu_modules(module)
    named = [op for op in found if ir.StringAttr(op.attributes["sym_name"]).value == KERNEL_MODULE]
    if named:
        return named[0]
    if len(found) == 1:
        return found[0]
    if not found:
        raise BackendError("no gpu.module in the module: there are no GPU kernels to compile")
    names = ", ".join("@" + ir.StringAttr(op.attributes["sym_name"]).value for op in found)
    raise BackendError(f"several gpu.modules ({names}) and none named @{KERNEL_MODULE}: which one holds the kernels?")


def kernel_module_ir(module) -> str:
    """LLVM IR of the body of the module's kernel ``gpu.module`` (``kernel_module``),
    which must already be in the LLVM and NVVM dialects (``gpu-to-nvvm``)."""
    gpu_module = kernel_module(module)
    with module.context, ir.Location.unknown():
        inner = ir.Module.create()
        with ir.InsertionPoint(inner.body):
            for op in gpu_module.regions[0].blocks[0].operations:
                if op.operation.name != "gpu.module_end":
                    op.operation.clone()
    try:
        return translate_to_llvm_ir(inner, dialects=("llvm", "nvvm"))
    except ValueError as e:
        raise BackendError(f"{e} (run gpu-to-nvvm first)") from None
