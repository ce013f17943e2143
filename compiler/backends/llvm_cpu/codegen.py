"""LLVM IR -> optimized host object code, with llvmlite.

Ember's loops only vectorize when LLVM knows the machine: the target machine is
created for the host CPU's name and features (so AVX-512/AVX2/NEON are used when
present) and the module gets the machine's triple and data layout before the O3
pipeline (loop and SLP vectorizers on) runs.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import llvmlite
import llvmlite.binding as llvm

from compiler.backends.llvm_cpu.float_syntax import legacy_float_syntax


@functools.cache
def _init() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


@dataclass(frozen=True)
class HostTarget:
    triple: str
    cpu: str
    features: str

    @property
    def cache_tag(self) -> str:
        """What the object code depends on, for artifact cache keys."""
        return f"llvmlite-{llvmlite.__version__}/{self.triple}/{self.cpu}/{self.features}"


@functools.cache
def host_target() -> HostTarget:
    _init()
    return HostTarget(llvm.get_process_triple(), llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten())


@functools.cache
def target_machine(opt_level: int = 3) -> llvm.TargetMachine:
    host = host_target()
    target = llvm.Target.from_triple(host.triple)
    return target.create_target_machine(cpu=host.cpu, features=host.features, opt=opt_level,
                                        reloc="pic", codemodel="jitdefault")


def optimize(llvm_ir: str, opt_level: int = 3) -> llvm.ModuleRef:
    """Parse, verify and optimize LLVM IR for the host; raises RuntimeError if invalid."""
    _init()
    tm = target_machine(opt_level)
    module = llvm.parse_assembly(legacy_float_syntax(llvm_ir))
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    module.verify()
    tuning = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    tuning.loop_vectorization = opt_level >= 2
    tuning.slp_vectorization = opt_level >= 2
    builder = llvm.create_pass_builder(tm, tuning)
    builder.getModulePassManager().run(module, builder)
    return module


def emit_object(module: llvm.ModuleRef, opt_level: int = 3) -> bytes:
    return target_machine(opt_level).emit_object(module)


def emit_assembly(module: llvm.ModuleRef, opt_level: int = 3) -> str:
    return target_machine(opt_level).emit_assembly(module)
