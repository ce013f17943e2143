"""LLVM IR float constants rewritten for llvmlite's parser, values preserved bit for bit."""

import struct

import llvmlite.binding as llvm
import numpy as np
import pytest

from compiler.backends.llvm_cpu.codegen import optimize
from compiler.backends.llvm_cpu.float_syntax import legacy_float_syntax


def f32_bits_as_double_hex(bits: int) -> str:
    value = struct.unpack("<f", struct.pack("<I", bits))[0]
    return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"


@pytest.mark.parametrize(
    "line, expected",
    [
        ("store float -inf, ptr %0", "store float 0xFFF0000000000000, ptr %0"),
        ("store float +qnan, ptr %0", "store float 0x7FF8000000000000, ptr %0"),
        ("store double -qnan, ptr %1", "store double 0xFFF8000000000000, ptr %1"),
        ("store float +nan(0x1), ptr %0", "store float 0x7FF8000020000000, ptr %0"),
        ("store float +snan(0x1), ptr %0", "store float 0x7FF0000020000000, ptr %0"),
        ("store double -nan(0x5), ptr %1", "store double 0xFFF8000000000005, ptr %1"),
        ("%5 = fcmp olt double %3, +inf", "%5 = fcmp olt double %3, 0x7FF0000000000000"),
        ("store <4 x float> splat (float -inf), ptr %0", "store <4 x float> splat (float 0xFFF0000000000000), ptr %0"),
        ("%6 = fmul float %x, f0x3DCCCCCD", f"%6 = fmul float %x, {f32_bits_as_double_hex(0x3DCCCCCD)}"),
        ("%7 = fmul float %x, 1.000000e-01", f"%7 = fmul float %x, {f32_bits_as_double_hex(0x3DCCCCCD)}"),
        ("%8 = fmul float %x, 1.500000e+00", "%8 = fmul float %x, 1.500000e+00"),  # exact: kept
        ("%9 = fmul double %x, 1.000000e-01", "%9 = fmul double %x, 1.000000e-01"),  # doubles: kept
        ("%inf = fadd float %inf.1, %nan", "%inf = fadd float %inf.1, %nan"),  # names are not values
    ],
)
def test_rewrites(line, expected):
    assert legacy_float_syntax(line) == expected


def test_rewritten_module_parses_and_keeps_values():
    module = optimize(
        """
define void @f(ptr %p, ptr %q) {
  store float -inf, ptr %p
  %a = getelementptr float, ptr %p, i64 1
  store float f0x3DCCCCCD, ptr %a
  %b = getelementptr float, ptr %p, i64 2
  store float +nan(0x1), ptr %b
  store double -qnan, ptr %q
  ret void
}""",
        opt_level=0,
    )
    text = str(module)
    assert "store float 0xFFF0000000000000" in text and "0x3FB99999A0000000" in text
    assert isinstance(module, llvm.ModuleRef)
    assert np.float32(struct.unpack("<f", struct.pack("<I", 0x3DCCCCCD))[0]) == np.float32(0.1)
