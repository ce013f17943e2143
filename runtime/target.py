"""The host CPU as LLVM sees it, and the target machine for it.

Both the compiler and the runtime need it: code generation emits object code for this
machine, and the runtime compiles its worker pool and temporaries' cache for it.
Ember's loops only vectorize when LLVM knows the machine, so the target machine is
created for the host CPU's name and features (AVX-512/AVX2/NEON are used when present).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import llvmlite
import llvmlite.binding as llvm


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


def has_512_bit_vectors() -> bool:
    """Whether the host has AVX-512 (``compiler/backends/llvm_cpu``: where a kernel may
    vectorize at full width)."""
    return "+avx512f" in host_target().features.split(",")


def fast_float32_division() -> bool:
    """Whether a vector float32 division costs about what its exact replacement by a
    float64 multiply does (``ember-invariant-division``), so the plain division is kept.
    AMD's Zen cores divide quickly: on the development machine (Zen 4, AVX-512) the
    float64 multiply made a (4096, 1024) float32 layer norm 0.553 -> 0.745 ms on two
    threads (1.09 -> 1.49 on one), ``x / x_row_norm`` 0.081 -> 0.091, ``x / 3`` 0.060 ->
    0.068; on a 2-core AVX-512 Xeon it made the layer norm 0.756 -> 0.705 ms."""
    return host_target().cpu.startswith("znver")


@functools.cache
def host_target() -> HostTarget:
    _init()
    return HostTarget(llvm.get_process_triple(), llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten())


def half_conversions_inline() -> bool:
    """Whether float16 <-> float32 conversions are instructions on this machine (x86:
    F16C; other targets convert natively). Without them LLVM calls ``__extendhfsf2`` /
    ``__truncsfhf2``, which the loader cannot resolve in this process (no libgcc/compiler-rt
    symbols), so the frontend does not compile float16 there."""
    host = host_target()
    if not host.triple.startswith(("x86_64", "i386", "i686")):
        return True
    return "+f16c" in host.features.split(",")


def new_target_machine(opt_level: int = 3) -> llvm.TargetMachine:
    """A target machine of its own, for an execution engine: llvmlite hands the
    machine over to the engine, which deletes it when the engine is freed, so a shared
    one would be left dangling (the worker pool's and the temporaries' engines). About
    0.3-0.6 ms."""
    host = host_target()
    target = llvm.Target.from_triple(host.triple)
    return target.create_target_machine(
        cpu=host.cpu, features=host.features, opt=opt_level, reloc="pic", codemodel="jitdefault"
    )


@functools.cache
def target_machine(opt_level: int = 3) -> llvm.TargetMachine:
    """The process's shared target machine, for optimizing and emitting code; never
    to be given to an execution engine (see ``new_target_machine``)."""
    return new_target_machine(opt_level)
