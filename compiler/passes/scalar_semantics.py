"""NumPy's scalar semantics per element type, as arith/math ops (one table per op kind).

``ember-to-linalg`` builds the body of every elementwise ``linalg.generic`` and every
reduction from these rules, so the place where Ember's numbers must agree with NumPy
is this one file. Each rule takes the block's scalar values and the Ember element
type name (``f32 f64 i32 i64 i1``) and returns the result value; it builds at the
current insertion point and location.

Where NumPy differs from the obvious arith op it is spelled out: integers are
signed; integer ``//`` and ``%`` by zero give 0 (and never reach a hardware divide
by zero or ``INT_MIN / -1``, which trap on x86); float ``//`` and ``%`` follow
``npy_divmod`` (floor of the fmod-corrected quotient, not ``floor(a / b)``, which is
wrong for ``1 // 0.1``); max/min propagate NaN; ``!=`` on floats is unordered
(``NaN != NaN``); bools compare as unsigned (``False < True``).
"""

from __future__ import annotations

from compiler.dialects.types import FLOATS, mlir_element_type
from compiler.mlir import arith, ir, math

CmpI = arith.CmpIPredicate
CmpF = arith.CmpFPredicate


# ----------------------------------------------------------------------------- constants


def const(dtype: str, value) -> ir.Value:
    """A scalar constant of an Ember element type (bools as 0/1, floats may be inf/nan)."""
    t = mlir_element_type(dtype)
    if dtype in FLOATS:
        return arith.constant(t, ir.FloatAttr.get(t, float(value)))
    if dtype == "i1":
        return arith.constant(t, ir.IntegerAttr.get(t, -1 if value else 0))
    return arith.constant(t, ir.IntegerAttr.get(t, int(value)))


def int_min(dtype: str) -> int:
    return -(1 << (int(dtype[1:]) - 1))


def int_max(dtype: str) -> int:
    return (1 << (int(dtype[1:]) - 1)) - 1


def _is_float(dtype: str) -> bool:
    return dtype in FLOATS


# ----------------------------------------------------------------------------- unary


def _neg(x, dtype):
    return arith.negf(x) if _is_float(dtype) else arith.subi(const(dtype, 0), x)


def _abs(x, dtype):
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


def _int_floordiv(a, b, dtype):
    safe, is_zero, is_minus_one = _safe_divisor(b, dtype)
    q = arith.floordivsi(a, safe)
    q = arith.select(is_minus_one, arith.subi(const(dtype, 0), a), q)
    return arith.select(is_zero, const(dtype, 0), q)


def _int_mod(a, b, dtype):
    """Python's ``%``: the remainder takes the divisor's sign; ``x % 0 == 0``."""
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
    return math.powf(a, b) if _is_float(dtype) else math.ipowi(a, b)


def _max(a, b, dtype):
    if _is_float(dtype):
        return arith.maximumf(a, b)  # NaN-propagating, like np.maximum
    return arith.ori(a, b) if dtype == "i1" else arith.maxsi(a, b)


def _min(a, b, dtype):
    if _is_float(dtype):
        return arith.minimumf(a, b)
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

# predicate -> (float predicate, signed int predicate, bool (unsigned) predicate)
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
    return _cmpi(b_pred if dtype == "i1" else si_pred, a, b)


# ----------------------------------------------------------------------------- cast


def cast(x, src: str, dst: str):
    """NumPy ``astype`` between Ember element types (``x`` of type ``src``)."""
    if src == dst:
        return x
    t = mlir_element_type(dst)
    if dst == "i1":  # truthiness; NaN is truthy
        if _is_float(src):
            return _cmpf(CmpF.UNE, x, const(src, 0.0))
        return _cmpi(CmpI.ne, x, const(src, 0))
    if src == "i1":
        return arith.uitofp(t, x) if _is_float(dst) else arith.extui(t, x)
    if _is_float(src) and _is_float(dst):
        return arith.extf(t, x) if dst == "f64" else arith.truncf(t, x)
    if _is_float(src):
        return arith.fptosi(t, x)  # truncates toward zero
    if _is_float(dst):
        return arith.sitofp(t, x)
    return arith.extsi(t, x) if int(dst[1:]) > int(src[1:]) else arith.trunci(t, x)


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


# reduction name -> (identity(dtype), combine(acc, x, dtype)); mean is sum then divide.
def _reassociable(float_op, int_op):
    """A reduction's combine: floats may be reassociated, so LLVM can vectorize the
    reduction (partial sums in vector lanes, NumPy's pairwise summation is no more
    sequential than that); integer arithmetic is associative as it is."""

    def combine(a, b, dtype):
        if _is_float(dtype):
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
