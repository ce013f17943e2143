"""Float constants in LLVM IR as llvmlite's LLVM (22) reads them.

The LLVM inside the MLIR bindings is newer and prints float constants in forms the
older parser rejects:

* special values: ``-inf``, ``+qnan``, ``+nan(0x1)``, ``-snan(0x2)``;
* an ``f32`` by its bits: ``f0x3DCCCCCD``;
* an ``f32`` as a short decimal that is exact only once rounded to float
  (``1.000000e-01``; the old parser wants a decimal exactly representable).

Every LLVM version reads the hexadecimal *double* bit pattern of the value
(``0x3FB99999A0000000``), for ``float`` and ``double`` alike, so each such constant
is rewritten to that; a ``half`` constant (short decimals, special values, ``f0x3C00``)
becomes its own bits, ``0xH3C00``. A constant's type is the last ``half``/``float``/
``double`` before it on its line (``fcmp olt float %a, -inf``, ``store float -inf, ptr %p``).
"""

from __future__ import annotations

import re
import struct

_LITERAL = re.compile(
    r"(?<![\w.%@$\"])("
    r"[+-]?(?:qnan|inf|nan\(0x[0-9a-fA-F]+\)|snan\(0x[0-9a-fA-F]+\))"  # special values
    r"|f0x(?:[0-9A-Fa-f]{16}|[0-9A-Fa-f]{8}|[0-9A-Fa-f]{4})"  # bits
    r"|[+-]?\d+\.\d+e[+-]\d+"  # decimals
    r")(?![\w.])"
)
_TYPE = re.compile(r"\b(half|float|double)\b")
_F32_TO_F64_PAYLOAD_SHIFT = 29  # 52 - 23 mantissa bits


def _hex_double(value: float) -> str:
    return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"


def _special(text: str, ty: str) -> str:
    sign = 0x8000000000000000 if text.startswith("-") else 0
    body = text.lstrip("+-")
    shift = _F32_TO_F64_PAYLOAD_SHIFT if ty == "float" else 0
    if body == "inf":
        return f"0x{sign | 0x7FF0000000000000:016X}"
    if body == "qnan":
        return f"0x{sign | 0x7FF8000000000000:016X}"
    payload = int(body[body.index("(") + 1 : -1], 16) << shift
    quiet = 0x7FF8000000000000 if body.startswith("nan") else 0x7FF0000000000000
    return f"0x{sign | quiet | payload:016X}"


def _half(text: str) -> str:
    """A ``half`` constant as its bits, ``0xHxxxx``."""
    if text.startswith("f0x"):
        return f"0xH{int(text[3:], 16) & 0xFFFF:04X}"
    sign = 0x8000 if text.startswith("-") else 0
    body = text.lstrip("+-")
    if body == "inf":
        return f"0xH{sign | 0x7C00:04X}"
    if body == "qnan":
        return f"0xH{sign | 0x7E00:04X}"
    if "(" in body:
        payload = int(body[body.index("(") + 1 : -1], 16)
        return f"0xH{sign | (0x7E00 if body.startswith('nan') else 0x7C00) | payload:04X}"
    return f"0xH{struct.unpack('<H', struct.pack('<e', float(text)))[0]:04X}"


def _rewrite(text: str, ty: str) -> str:
    if ty == "half":
        return _half(text)
    if text.startswith("f0x"):
        bits = int(text[3:], 16)
        if len(text) == 19:  # a double's bits: the legacy form already
            return f"0x{bits:016X}"
        return _hex_double(struct.unpack("<f", struct.pack("<I", bits))[0])
    if text[-1] in "fn)" or text.lstrip("+-")[0].isalpha():
        return _special(text, ty)
    if ty != "float":
        return text
    value = float(text)
    as_float = struct.unpack("<f", struct.pack("<f", value))[0]
    return text if as_float == value else _hex_double(as_float)


def _rewrite_line(line: str) -> str:
    def repl(m):
        types = _TYPE.findall(line, 0, m.start())
        return _rewrite(m.group(1), types[-1] if types else "double")

    return _LITERAL.sub(repl, line)


def legacy_float_syntax(llvm_ir: str) -> str:
    """``llvm_ir`` with every float constant in the syntax llvmlite's LLVM parses."""
    return "\n".join(
        _rewrite_line(line) if ("float" in line or "double" in line or "half" in line) else line
        for line in llvm_ir.split("\n")
    )
