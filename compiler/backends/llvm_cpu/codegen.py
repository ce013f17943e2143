"""LLVM IR -> optimized host object code, with llvmlite.

Ember's loops only vectorize when LLVM knows the machine: the target machine is
created for the host CPU's name and features (so AVX-512/AVX2/NEON are used when
present) and the module gets the machine's triple and data layout before the O3
pipeline (loop and SLP vectorizers on) runs.
"""

from __future__ import annotations

import functools
import re
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


# The MLIR bindings' LLVM prints special floats in a newer syntax (``-inf``, ``+qnan``,
# ``+nan(0x1)``, ``-snan(0x2)``) than llvmlite's LLVM 22 parses; rewrite them as the
# hexadecimal double bit patterns every LLVM version reads.
_SPECIAL_FLOAT = re.compile(r"(?<![\w.%@$\"])([+-]?)(qnan|inf|nan\((0x[0-9a-fA-F]+)\)|snan\((0x[0-9a-fA-F]+)\))(?![\w.])")
_FLOAT_TYPE = re.compile(r"\b(float|double)\b")
_F32_TO_F64_PAYLOAD_SHIFT = 29  # 52 - 23 mantissa bits


def _special_float_bits(sign: str, kind: str, qpayload: str | None, spayload: str | None, ty: str) -> int:
    bits = 0x8000000000000000 if sign == "-" else 0
    shift = _F32_TO_F64_PAYLOAD_SHIFT if ty == "float" else 0
    if kind == "inf":
        return bits | 0x7FF0000000000000
    if kind == "qnan":
        return bits | 0x7FF8000000000000
    if qpayload is not None:
        return bits | 0x7FF8000000000000 | (int(qpayload, 16) << shift)
    return bits | 0x7FF0000000000000 | (int(spayload, 16) << shift)


def _rewrite_line(line: str) -> str:
    def repl(m):
        types = _FLOAT_TYPE.findall(line, 0, m.start())
        ty = types[-1] if types else "double"
        return f"0x{_special_float_bits(m.group(1), m.group(2).split('(')[0], m.group(3), m.group(4), ty):016X}"

    return _SPECIAL_FLOAT.sub(repl, line)


def legacy_float_literals(llvm_ir: str) -> str:
    """``float -inf`` -> ``float 0xFFF0000000000000`` (see ``_SPECIAL_FLOAT``)."""
    if not re.search(r"inf|nan", llvm_ir):
        return llvm_ir
    return "\n".join(_rewrite_line(line) if ("inf" in line or "nan" in line) else line
                     for line in llvm_ir.split("\n"))


def optimize(llvm_ir: str, opt_level: int = 3) -> llvm.ModuleRef:
    """Parse, verify and optimize LLVM IR for the host; raises RuntimeError if invalid."""
    _init()
    tm = target_machine(opt_level)
    module = llvm.parse_assembly(legacy_float_literals(llvm_ir))
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
