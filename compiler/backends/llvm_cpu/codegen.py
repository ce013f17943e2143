"""LLVM IR -> optimized host object code, with llvmlite.

Ember's loops only vectorize when LLVM knows the machine: the target machine is the
host CPU's (``runtime/target.py``; the loader links the object code with the same
one) and the module gets the machine's triple and data layout before the O3 pipeline
(loop and SLP vectorizers on) runs.
"""

from __future__ import annotations

import contextlib
import threading

import llvmlite.binding as llvm

from compiler.backends.llvm_cpu.float_syntax import legacy_float_syntax
from runtime.target import target_machine


def optimize(llvm_ir: str, opt_level: int = 3) -> llvm.ModuleRef:
    """Parse, verify and optimize LLVM IR for the host; raises RuntimeError if invalid."""
    tm = target_machine(opt_level)
    module = llvm.parse_assembly(legacy_float_syntax(llvm_ir))
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    module.verify()
    tuning = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    tuning.loop_vectorization = opt_level >= 2
    tuning.slp_vectorization = opt_level >= 2
    # No loop unrolling: with small static trip counts LLVM unrolled Ember's loop nests
    # completely and O3 took 0.5-0.6 s (``x - x.mean(-1, keepdims=True)`` on (8, 64)),
    # against 40-80 ms for other shapes. The vectorizer still interleaves (several
    # accumulators per loop); measured on (8, 64), (8, 4096) and (4096, 1024) float32
    # centring, layer norm and mse, the kernels ran as fast or faster without it.
    tuning.loop_unrolling = False
    builder = llvm.create_pass_builder(tm, tuning)
    builder.getModulePassManager().run(module, builder)
    return module


# Code generation of a kernel runs without LLVM's loop strength reduction. It was
# the costliest pass of a kernel's whole compile: 24 of 54 ms of a 10-step Jacobi's
# code generation (-disable-lsr: 37 -> 15 ms; tanh-trace loop 34 -> 23, layer norm 24
# -> 16, softmax 21 -> 17), and its kernels run as fast without it (Zen 4, median of
# 30 paired ratios of interleaved calls, without/with: chain 0.994, gelu 0.999,
# softmax 1.003, layer norm 0.999, mse 0.989, Jacobi 1.000, tanh-trace 0.985,
# relu(A@B+b) 0.996, matvec_update 1.014): x86 addresses a vector loop's loads as
# base + index * scale + offset whatever LSR does. Helper libraries (compiled once per
# machine) keep it. The switch is one of LLVM's process-wide options, so it is set
# around each of Ember's code generations under a lock and put back after; another
# library's LLVM (Numba's) compiling in another thread in that window gets no LSR.
_CODEGEN = threading.Lock()


@contextlib.contextmanager
def _strength_reduction(enabled: bool):
    with _CODEGEN:
        if not enabled:
            llvm.set_option("ember", "-disable-lsr=true")
        try:
            yield
        finally:
            if not enabled:
                llvm.set_option("ember", "-disable-lsr=false")


def emit_object(module: llvm.ModuleRef, opt_level: int = 3, strength_reduction: bool = False) -> bytes:
    """Object code of an optimized module; ``strength_reduction`` for a helper library."""
    with _strength_reduction(strength_reduction):
        return target_machine(opt_level).emit_object(module)


def emit_assembly(module: llvm.ModuleRef, opt_level: int = 3, strength_reduction: bool = False) -> str:
    with _strength_reduction(strength_reduction):
        return target_machine(opt_level).emit_assembly(module)
