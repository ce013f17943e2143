"""The arithmetic builder every expansion of ``ember-expand-math`` shares.

``Emitter`` is one builder of ``arith`` ops per float type (float32 or float64, scalar or
vector), so that the expansions in ``expand_math`` and ``expand_trig`` read like the
formulas they compute (``e.fma(a, b, e.c(1.0))``) and stay the same for both widths;
``Format`` and ``FORMATS`` hold each width's IEEE constants (bias, mantissa bits, ln 2
split for Cody-Waite, exp's range), and ``two_sum`` is the exact addition both modules use.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import arith, ir


@dataclass(frozen=True)
class Format:
    """The IEEE binary format of one float width."""

    bits: int
    mantissa: int  # explicit mantissa bits
    bias: int
    ln2_hi: float  # ln 2 truncated so that n*ln2_hi is exact for every n used
    ln2_lo: float  # ln 2 - ln2_hi, rounded
    exp_lo: float  # exp(x) rounds to 0 below this
    exp_hi: float  # exp(x) overflows above this
    sqrt_half_bits: int  # bit pattern of sqrt(1/2)

    @property
    def round_magic(self) -> float:  # adding and subtracting it rounds to an integer
        return 1.5 * 2.0**self.mantissa

    @property
    def min_normal(self) -> float:
        return 2.0 ** (1 - self.bias)

    @property
    def sign_bit(self) -> int:  # as a signed integer of the format's width
        return -(1 << (self.bits - 1))


# ln2_hi: ln 2 truncated to 15 (f32) / 32 (f64) significant bits; n has at most 8 / 11.
FORMATS = {
    32: Format(32, 23, 127, 0.693145751953125, 1.428606765330187e-06, -104.0, 89.0, 0x3F3504F3),
    64: Format(64, 52, 1023, 0.6931471803691238, 1.9082149292705877e-10, -746.0, 710.0, 0x3FE6A09E667F3BCD),
}


def float_width(t: ir.Type) -> int | None:
    if isinstance(t, ir.VectorType):
        t = t.element_type
    if isinstance(t, ir.F32Type):
        return 32
    if isinstance(t, ir.F64Type):
        return 64
    return None


def f64_like(t: ir.Type) -> ir.Type:
    f64 = ir.F64Type.get()
    return ir.VectorType.get(t.shape, f64) if isinstance(t, ir.VectorType) else f64


def two_sum(a, b):
    """``(s, err)`` with ``s = fl(a + b)`` and ``a + b = s + err`` exactly (Knuth's TwoSum;
    plain ops: a contracted or reassociated step would lose ``err``)."""
    s = arith.addf(a, b)
    bb = arith.subf(s, a)
    return s, arith.addf(arith.subf(a, arith.subf(s, bb)), arith.subf(b, bb))


# ----------------------------------------------------------------------------- emitter


class Emitter:
    """Builds arith ops on values of one float type (scalar or vector) at the insertion point."""

    def __init__(self, float_type: ir.Type, scalef: bool = False):
        self.type = float_type
        shaped = isinstance(float_type, ir.VectorType)
        # llvm.intr.ldexp takes a scalar exponent only; LLVM vectorizes scalar code into it
        self.scalef = scalef and not shaped
        element = float_type.element_type if shaped else float_type
        self.fmt = FORMATS[float_width(float_type)]
        int_element = ir.IntegerType.get_signless(self.fmt.bits)
        self.int_type = ir.VectorType.get(float_type.shape, int_element) if shaped else int_element
        self.exponent_type = ir.IntegerType.get_signless(32)  # ldexp's
        self.word_type = ir.VectorType.get(float_type.shape, self.exponent_type) if shaped else self.exponent_type
        self._element, self._int_element, self._shaped = element, int_element, shaped
        self._contract = ir.Attribute.parse("#arith.fastmath<contract>")
        self._consts: dict = {}

    # constants
    def _splat(self, ty, attr):
        return ir.DenseElementsAttr.get_splat(ty, attr) if self._shaped else attr

    def c(self, value: float) -> ir.Value:
        key = ("f", repr(float(value)))
        if key not in self._consts:
            attr = ir.FloatAttr.get(self._element, float(value))
            self._consts[key] = arith.ConstantOp(self.type, self._splat(self.type, attr)).result
        return self._consts[key]

    def i(self, value: int) -> ir.Value:
        """An integer constant of the float's width (``int_type``)."""
        return self._integer(self.int_type, self._int_element, value)

    def word(self, value: int) -> ir.Value:
        """A 32-bit integer constant (of ``word_type``), whatever the float width."""
        return self._integer(self.word_type, self.exponent_type, value)

    def _integer(self, ty, element, value: int) -> ir.Value:
        key = (str(element), value)
        if key not in self._consts:
            self._consts[key] = arith.ConstantOp(ty, self._splat(ty, ir.IntegerAttr.get(element, value))).result
        return self._consts[key]

    def double(self) -> Emitter:
        """An emitter of float64 values of this one's shape (float32 functions computed in
        double and rounded once)."""
        return Emitter(f64_like(self.type), self.scalef)

    # float arithmetic
    def add(self, a, b):
        return arith.addf(a, b, fastmath=self._contract)

    def sub(self, a, b):
        return arith.subf(a, b, fastmath=self._contract)

    def mul(self, a, b):
        return arith.mulf(a, b, fastmath=self._contract)

    def div(self, a, b):
        return arith.divf(a, b)

    def fma(self, a, b, c):
        """a*b + c; LLVM fuses it into one FMA where the target has one (contract)."""
        return self.add(self.mul(a, b), c)

    def horner(self, x, coeffs):
        """coeffs[0] + coeffs[1]*x + ... (lowest degree first)."""
        acc = self.c(coeffs[-1])
        for coeff in reversed(coeffs[:-1]):
            acc = self.fma(acc, x, self.c(coeff))
        return acc

    def estrin(self, x, coeffs):
        """The same polynomial by Estrin's scheme: pairs ``c[i] + c[i+1]*x`` combined by
        ``x**2``, ``x**4``...: a chain of about ``log2(n)`` steps instead of ``n``, for the
        long polynomials, whose Horner chain of dependent FMAs set the pace."""
        terms = [self.c(c) for c in coeffs]
        power = x
        while len(terms) > 1:
            pairs = [self.fma(terms[i + 1], power, terms[i]) for i in range(0, len(terms) - 1, 2)]
            terms = pairs + terms[len(pairs) * 2 :]
            power = self.mul(power, power)
        return terms[0]

    # comparisons and selects
    def cmp(self, predicate: str, a, b):
        return arith.cmpf(getattr(arith.CmpFPredicate, predicate), a, b)

    def isnan(self, a):
        return self.cmp("UNO", a, a)

    def select(self, cond, a, b):
        return arith.select(cond, a, b)

    def clamp(self, x, lo: float, hi: float):
        """min(max(x, lo), hi), with NaN going to lo (callers restore NaN at the end)."""
        return self.upper_clamp(self.select(self.cmp("OGT", x, self.c(lo)), x, self.c(lo)), hi)

    def upper_clamp(self, x, hi: float):
        """min(x, hi), with NaN going to hi (callers restore NaN at the end)."""
        return self.select(self.cmp("OLT", x, self.c(hi)), x, self.c(hi))

    def upper_clamp_keeping_nan(self, x, hi: float):
        """min(x, hi) with NaN staying NaN (``x >= hi ? hi : x``: one x86 min)."""
        return self.select(self.cmp("OGE", x, self.c(hi)), self.c(hi), x)

    def keep_nan(self, x, result):
        """NaN in, the same NaN out."""
        return self.select(self.isnan(x), x, result)

    # bits
    def to_bits(self, x):
        return arith.bitcast(self.int_type, x)

    def from_bits(self, n):
        return arith.bitcast(self.type, n)

    def abs(self, x):
        return self.from_bits(arith.andi(self.to_bits(x), self.i(~self.fmt.sign_bit)))

    def copysign(self, magnitude, sign):
        """|magnitude| with the sign bit of ``sign``."""
        mag = arith.andi(self.to_bits(magnitude), self.i(~self.fmt.sign_bit))
        return self.from_bits(arith.ori(mag, arith.andi(self.to_bits(sign), self.i(self.fmt.sign_bit))))

    def pow2(self, n):
        """2**n for an integer n in the normal exponent range, from its exponent bits."""
        biased = arith.addi(n, self.i(self.fmt.bias))
        return self.from_bits(arith.shli(biased, self.i(self.fmt.mantissa)))
