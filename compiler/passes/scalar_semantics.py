"""NumPy's scalar semantics per element type, as arith/math ops (one table per op kind).

``ember-to-linalg`` builds the body of every elementwise ``linalg.generic`` and every
reduction from these rules, so the place where Ember's numbers must agree with NumPy
is this one file. Each rule takes the block's scalar values and the Ember element
type name (``f32 f64 i32 i64 i1``) and returns the result value; it builds at the
current insertion point and location.

Where NumPy differs from the obvious arith op it is spelled out: ``iN`` integers are
signed and ``uiN`` unsigned (both signless in arith: the rules pick ``divui remui
maxui minui shrui extui uitofp fptoui`` and the unsigned predicates for ``uiN``); integer ``//`` and ``%`` by zero give 0 (and never reach a hardware divide
by zero or ``INT_MIN / -1``, which trap on x86); float ``//`` and ``%`` follow
``npy_divmod`` (floor of the fmod-corrected quotient, not ``floor(a / b)``, which is
wrong for ``1 // 0.1``); max/min propagate NaN; ``!=`` on floats is unordered
(``NaN != NaN``); bools compare as unsigned (``False < True``). ``f16`` never reaches
these rules: ember-to-linalg computes it in ``f32`` and rounds back after each op, as
NumPy's half loops do (``cast`` alone takes ``f16`` operands and results).
"""

from __future__ import annotations

from compiler.dialects.types import COMPLEX, COMPLEX_PART, FLOATS, bit_width, is_unsigned, mlir_element_type
from compiler.mlir import arith, complex_dialect, ir, math

CmpI = arith.CmpIPredicate
CmpF = arith.CmpFPredicate


# ----------------------------------------------------------------------------- constants


def const(dtype: str, value) -> ir.Value:
    """A scalar constant of an Ember element type (bools as 0/1, floats may be inf/nan,
    complex ``{re, im}`` from a Python number)."""
    t = mlir_element_type(dtype)
    if dtype in COMPLEX:
        value, part = complex(value), COMPLEX_PART[dtype]
        return complex_dialect.create_(t, const(part, value.real), const(part, value.imag))
    if dtype in FLOATS:
        return arith.constant(t, ir.FloatAttr.get(t, float(value)))
    if dtype == "i1":
        return arith.constant(t, ir.IntegerAttr.get(t, -1 if value else 0))
    half = 1 << (bit_width(dtype) - 1)  # the bit pattern as a signed value (uiN: 255 is -1 of i8)
    return arith.constant(t, ir.IntegerAttr.get(t, (int(value) + half) % (2 * half) - half))


def int_min(dtype: str) -> int:
    return 0 if is_unsigned(dtype) else -(1 << (bit_width(dtype) - 1))


def int_max(dtype: str) -> int:
    return (1 << bit_width(dtype)) - 1 if is_unsigned(dtype) else (1 << (bit_width(dtype) - 1)) - 1


def _is_float(dtype: str) -> bool:
    return dtype in FLOATS


# ----------------------------------------------------------------------------- unary


def _neg(x, dtype):
    return arith.negf(x) if _is_float(dtype) else arith.subi(const(dtype, 0), x)


def _abs(x, dtype):
    if is_unsigned(dtype):
        return x  # np.abs of an unsigned integer is the identity
    return math.absf(x) if _is_float(dtype) else math.absi(x)


def _sigmoid(x, dtype):
    """1 / (1 + exp(-x)): saturates to 0 and 1 without NaN for large |x|."""
    one = const(dtype, 1.0)
    return arith.divf(one, arith.addf(one, math.exp(arith.negf(x))))


def _logical_not(x, dtype):
    return arith.xori(x, const("i1", True))


UNARY = {
    "neg": _neg,
    "abs": _abs,
    "exp": lambda x, d: math.exp(x),
    "log": lambda x, d: math.log(x),
    "sqrt": lambda x, d: math.sqrt(x),
    "tanh": lambda x, d: math.tanh(x),
    "sin": lambda x, d: math.sin(x),
    "cos": lambda x, d: math.cos(x),
    "sigmoid": _sigmoid,
    "erf": lambda x, d: math.erf(x),
    "floor": lambda x, d: math.floor(x),
    "logical_not": _logical_not,
}


# ----------------------------------------------------------------------------- binary


def _float_or_int(f_op, i_op):
    def rule(a, b, dtype):
        return f_op(a, b) if _is_float(dtype) else i_op(a, b)

    return rule


def _cmpf(pred, a, b):
    return arith.cmpf(pred, a, b)


def _cmpi(pred, a, b):
    return arith.cmpi(pred, a, b)


def _safe_divisor(b, dtype):
    """(divisor that never traps, b == 0, b == -1): 0 and -1 are replaced by 1.

    ``x / 0`` is UB and ``INT_MIN / -1`` traps; the callers patch both results
    with selects (NumPy: ``x // 0 == x % 0 == 0``, ``x // -1 == -x`` wrapping).
    """
    zero, one, minus_one = const(dtype, 0), const(dtype, 1), const(dtype, -1)
    is_zero = _cmpi(CmpI.eq, b, zero)
    is_minus_one = _cmpi(CmpI.eq, b, minus_one)
    safe = arith.select(arith.ori(is_zero, is_minus_one), one, b)
    return safe, is_zero, is_minus_one


def _unsigned_divisor(b, dtype):
    """(divisor that never traps, b == 0): 0 is replaced by 1 (unsigned: no -1 case)."""
    is_zero = _cmpi(CmpI.eq, b, const(dtype, 0))
    return arith.select(is_zero, const(dtype, 1), b), is_zero


def _int_floordiv(a, b, dtype):
    if is_unsigned(dtype):  # floor is truncation; x // 0 == 0
        safe, is_zero = _unsigned_divisor(b, dtype)
        return arith.select(is_zero, const(dtype, 0), arith.divui(a, safe))
    safe, is_zero, is_minus_one = _safe_divisor(b, dtype)
    q = arith.floordivsi(a, safe)
    q = arith.select(is_minus_one, arith.subi(const(dtype, 0), a), q)
    return arith.select(is_zero, const(dtype, 0), q)


def _int_mod(a, b, dtype):
    """Python's ``%``: the remainder takes the divisor's sign; ``x % 0 == 0``."""
    if is_unsigned(dtype):
        safe, is_zero = _unsigned_divisor(b, dtype)
        return arith.select(is_zero, const(dtype, 0), arith.remui(a, safe))
    safe, is_zero, _ = _safe_divisor(b, dtype)  # x % -1 == x % 1 == 0
    zero = const(dtype, 0)
    r = arith.remsi(a, safe)
    signs_differ = arith.xori(_cmpi(CmpI.slt, r, zero), _cmpi(CmpI.slt, safe, zero))
    adjust = arith.andi(_cmpi(CmpI.ne, r, zero), signs_differ)
    r = arith.select(adjust, arith.addi(r, safe), r)
    return arith.select(is_zero, zero, r)


def _float_divmod(a, b, dtype):
    """NumPy's ``npy_divmod`` for floats: returns (floordiv, mod) exactly as NumPy does."""
    zero, one, half = const(dtype, 0.0), const(dtype, 1.0), const(dtype, 0.5)
    mod = arith.remf(a, b)  # fmod
    div = arith.divf(arith.subf(a, mod), b)
    # C truthiness `if (mod)` is true for NaN: unordered !=.
    mod_nonzero = _cmpf(CmpF.UNE, mod, zero)
    signs_differ = arith.xori(_cmpf(CmpF.OLT, b, zero), _cmpf(CmpF.OLT, mod, zero))
    adjust = arith.andi(mod_nonzero, signs_differ)
    mod = arith.select(adjust, arith.addf(mod, b), mod)
    div = arith.select(adjust, arith.subf(div, one), div)
    mod = arith.select(mod_nonzero, mod, math.copysign(zero, b))
    # Snap the quotient to the nearest integral value.
    floor = math.floor(div)
    floor = arith.select(_cmpf(CmpF.OGT, arith.subf(div, floor), half), arith.addf(floor, one), floor)
    quotient = arith.divf(a, b)
    floordiv = arith.select(_cmpf(CmpF.UNE, div, zero), floor, math.copysign(zero, quotient))
    # Division by zero: NumPy returns a / b and fmod(a, 0) (NaN).
    b_zero = _cmpf(CmpF.OEQ, b, zero)
    floordiv = arith.select(b_zero, quotient, floordiv)
    mod = arith.select(b_zero, arith.remf(a, b), mod)
    return floordiv, mod


def _floordiv(a, b, dtype):
    return _float_divmod(a, b, dtype)[0] if _is_float(dtype) else _int_floordiv(a, b, dtype)


def _mod(a, b, dtype):
    return _float_divmod(a, b, dtype)[1] if _is_float(dtype) else _int_mod(a, b, dtype)


def _pow(a, b, dtype):
    if _is_float(dtype):
        return math.powf(a, b)
    if is_unsigned(dtype):
        # ipowi reads its exponent as signed (a uiN count with the top bit set would be
        # negative): a**b == (a**(b >> 1))**2 * (a if b is odd else 1), all wrapping, as
        # NumPy's square-and-multiply loop.
        half = math.ipowi(a, arith.shrui(b, const(dtype, 1)))
        square = arith.muli(half, half)
        odd = _cmpi(CmpI.ne, arith.andi(b, const(dtype, 1)), const(dtype, 0))
        return arith.select(odd, arith.muli(square, a), square)
    return math.ipowi(a, b)


def _max(a, b, dtype):
    if _is_float(dtype):
        return arith.maximumf(a, b)  # NaN-propagating, like np.maximum
    if is_unsigned(dtype):
        return arith.maxui(a, b)
    return arith.ori(a, b) if dtype == "i1" else arith.maxsi(a, b)


def _min(a, b, dtype):
    if _is_float(dtype):
        return arith.minimumf(a, b)
    if is_unsigned(dtype):
        return arith.minui(a, b)
    return arith.andi(a, b) if dtype == "i1" else arith.minsi(a, b)


BINARY = {
    "add": _float_or_int(arith.addf, arith.addi),
    "sub": _float_or_int(arith.subf, arith.subi),
    "mul": _float_or_int(arith.mulf, arith.muli),
    # correctly rounded, as NumPy's true_divide: never a multiply by a reciprocal (``arcp``
    # made x / 100.0 differ from NumPy in the last bit for about 13% of x)
    "div": lambda a, b, d: arith.divf(a, b),
    "floordiv": _floordiv,
    "mod": _mod,
    "pow": _pow,
    "maximum": _max,
    "minimum": _min,
    "and": lambda a, b, d: arith.andi(a, b),
    "or": lambda a, b, d: arith.ori(a, b),
    "xor": lambda a, b, d: arith.xori(a, b),
}


# ----------------------------------------------------------------------------- compare

# predicate -> (float predicate, signed int predicate, bool and uiN (unsigned) predicate)
COMPARE = {
    "eq": (CmpF.OEQ, CmpI.eq, CmpI.eq),
    "ne": (CmpF.UNE, CmpI.ne, CmpI.ne),  # NaN != NaN is True
    "lt": (CmpF.OLT, CmpI.slt, CmpI.ult),
    "le": (CmpF.OLE, CmpI.sle, CmpI.ule),
    "gt": (CmpF.OGT, CmpI.sgt, CmpI.ugt),
    "ge": (CmpF.OGE, CmpI.sge, CmpI.uge),
}


def compare(predicate: str, a, b, dtype: str):
    f_pred, si_pred, b_pred = COMPARE[predicate]
    if _is_float(dtype):
        return _cmpf(f_pred, a, b)
    return _cmpi(b_pred if dtype == "i1" or is_unsigned(dtype) else si_pred, a, b)


# ----------------------------------------------------------------------------- cast


def cast(x, src: str, dst: str):
    """NumPy ``astype`` between Ember element types (``x`` of type ``src``)."""
    if src == dst:
        return x
    t = mlir_element_type(dst)
    if src == "f16":  # exact; NumPy's half casts go through float too
        return cast(arith.extf(mlir_element_type("f32"), x), "f32", dst)
    if dst == "i1":  # truthiness; NaN is truthy
        if _is_float(src):
            return _cmpf(CmpF.UNE, x, const(src, 0.0))
        return _cmpi(CmpI.ne, x, const(src, 0))
    if dst == "f16":
        if src == "f64":
            return _f64_to_f16(x)
        # an integer > 65504 in magnitude is inf in f16 whichever way it rounds to f32 first,
        # and every smaller one is exact in f32: no double rounding
        return arith.truncf(t, cast(x, src, "f32"))
    if src == "i1":
        return arith.uitofp(t, x) if _is_float(dst) else arith.extui(t, x)
    if _is_float(src) and _is_float(dst):
        return arith.extf(t, x) if bit_width(dst) > bit_width(src) else arith.truncf(t, x)
    if _is_float(src):  # truncates toward zero (out-of-range values are undefined, as in C)
        return arith.fptoui(t, x) if is_unsigned(dst) else arith.fptosi(t, x)
    if _is_float(dst):
        return arith.uitofp(t, x) if is_unsigned(src) else arith.sitofp(t, x)
    if bit_width(dst) > bit_width(src):  # widening: the source's signedness decides
        return arith.extui(t, x) if is_unsigned(src) else arith.extsi(t, x)
    return arith.trunci(t, x) if bit_width(dst) < bit_width(src) else x  # iN <-> uiN: same bits


def _f64_to_f16(x):
    """float64 -> float16 correctly rounded (no double rounding through float32, which
    ``fptrunc`` would need the libcall ``__truncdfhf2`` for): round to float32 *to odd*
    (truncate toward zero, set the last bit when inexact), then to half to nearest even.
    float32's 13 extra bits keep the odd bit below half's rounding point, so the second
    rounding sees exactly what the first one cut (NaN, inf and +-0 pass through)."""
    f32, i32 = mlir_element_type("f32"), ir.IntegerType.get_signless(32)
    t = arith.truncf(f32, x)  # to nearest even; overflows to inf past float32's range
    back = arith.extf(mlir_element_type("f64"), t)
    inexact = _cmpf(CmpF.ONE, back, x)  # ordered: false for NaN
    bits = arith.bitcast(i32, t)
    away = _cmpf(CmpF.OGT, math.absf(back), math.absf(x))  # rounded away from zero: step back
    bits = arith.select(away, arith.subi(bits, arith.constant(i32, ir.IntegerAttr.get(i32, 1))), bits)
    bits = arith.select(inexact, arith.ori(bits, arith.constant(i32, ir.IntegerAttr.get(i32, 1))), bits)
    return arith.truncf(mlir_element_type("f16"), arith.bitcast(f32, bits))


# ----------------------------------------------------------------------------- reductions


def _sum_identity(dtype):
    # NumPy (2.x) starts a float sum from its identity, +0.0, not from the first element:
    # the sum of nothing and the sum of [-0.0] are both +0.0.
    return 0.0 if _is_float(dtype) else 0


def _max_identity(dtype):
    if _is_float(dtype):
        return float("-inf")
    return False if dtype == "i1" else int_min(dtype)


def _min_identity(dtype):
    if _is_float(dtype):
        return float("inf")
    return True if dtype == "i1" else int_max(dtype)


# NumPy's pairwise summation adds fewer than 8 elements one after the other (numpy's
# pairwise_sum: ``if (n < 8)``): a reduction of so few is combined in that order, bit
# for bit NumPy's (reassociated, LLVM added a 4x4 trace's diagonal in vector lanes).
SEQUENTIAL_BELOW = 8


# reduction name -> (identity(dtype), combine(acc, x, dtype[, reassociate])); mean is sum then divide.
def _reassociable(float_op, int_op):
    """A reduction's combine: floats may be reassociated, so LLVM can vectorize the
    reduction (partial sums in vector lanes, NumPy's pairwise summation is no more
    sequential than that); integer arithmetic is associative as it is. With
    ``reassociate=False`` (``ember_to_linalg``: fewer than ``SEQUENTIAL_BELOW`` elements)
    the floats are combined in turn, as NumPy combines so few."""

    def combine(a, b, dtype, reassociate=True):
        if _is_float(dtype):
            if not reassociate:
                return float_op(a, b)
            return float_op(a, b, fastmath=ir.Attribute.parse("#arith.fastmath<reassoc>"))
        return int_op(a, b, dtype)

    return combine


REDUCTIONS = {
    "sum": (_sum_identity, _reassociable(arith.addf, BINARY["add"])),
    "mean": (_sum_identity, _reassociable(arith.addf, BINARY["add"])),
    "prod": (lambda d: 1.0 if _is_float(d) else 1, _reassociable(arith.mulf, BINARY["mul"])),
    "max": (_max_identity, _reassociable(arith.maximumf, _max)),
    "min": (_min_identity, _reassociable(arith.minimumf, _min)),
}
