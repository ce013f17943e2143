"""NumPy's elementwise math beyond the operators: trigonometric, hyperbolic, exponential
and logarithmic ufuncs, rounding, NaN tests, shifts, ``divmod``, ``round``/``around`` and
``nan_to_num``.

Every ufunc goes through ``numpy_elementwise.apply_ufunc``: NumPy picks the loop
(``promotion.ufunc_loop``: ``np.tan(int32)`` runs the float64 loop, ``np.tan(bool)`` the
float16 one, which Ember refuses), the operands are cast and broadcast, and the lowering
registered here (``UFUNC_LOWERINGS``, added to ``numpy_elementwise.LOWERINGS``) emits the
Ember ops of that loop. A function with real math (tan, log1p, atan2, hypot, ...) is one
Ember op, lowered to the upstream ``math`` op (libm where LLVM calls it); the rest are
exact compositions of existing ops, written as NumPy's C loops compute them:

* ``sign``: ``x > 0 ? 1 : x < 0 ? -1 : x == 0 ? 0 : x`` (NaN stays NaN, ``sign(-0.0)`` is 0);
* ``signbit``: ``copysign(1, x) < 0`` (which sees the sign of a NaN, as the bit test does);
* ``isnan``/``isinf``/``isfinite``: ``x != x``, ``|x| == inf``, ``|x| < inf`` (integer and
  bool loops: constant False/False/True);
* ``fmax``/``fmin``: ``maximum``/``minimum`` where neither is NaN, else the other operand;
* ``heaviside(x, h)``: ``NaN`` for NaN, ``h`` for 0, else 0 or 1;
* ``logaddexp``/``logaddexp2``: NumPy's ``npy_logaddexp``: ``x + ln2`` (``+ 1``) for
  equal operands, else the larger plus ``log1p(exp(-|x - y|))`` (base 2: ``exp2`` and
  ``log2e *``);
* ``deg2rad``/``rad2deg``: multiplication by NumPy's own constant (``(type)(pi/180)``),
  read from NumPy as ``np.deg2rad(1)`` in the loop's dtype;
* ``reciprocal``: ``1 / x`` for floats; for integers NumPy's ``(int)(1.0 / x)``: 1, -1, 0,
  and for 0 what x86 converts an infinite double to (the dtype's minimum);
* ``logical_and``/``or``/``xor``: each operand's truth (``!= 0``, NaN is true), then and/or/xor;
* ``ceil``/``trunc`` of integers and bools: the operand (NumPy 2 keeps integer dtypes);
* ``divmod``: ``(floor_divide, remainder)``; ``conjugate`` of real dtypes: the operand.

``np.round(a, decimals)`` is ``PyArray_Round``: integers with ``decimals >= 0`` are returned
as they are; ``decimals == 0`` is ``rint``; otherwise ``a * 10**d``, ``rint``, ``/ 10**d``
(``/ 10**-d``, ``rint``, ``* 10**-d`` for negative ``d``) with ``10**d`` the double NumPy
computes, a weak scalar of the loop (float32 stays float32), and integers through float64
and back (``div`` is correctly rounded, as NumPy's division). ``np.nan_to_num`` is its Python source: selects of the replacement values,
which NumPy's ``copyto`` converts to the array's dtype (asked of NumPy at trace time).
"""

from __future__ import annotations

import dataclasses
import operator
import sys

import numpy as np

from compiler.frontend import numpy_elementwise as ew
from compiler.frontend.numpy_core import EmitterCore, Tensor, reject
from compiler.frontend.symbolic_shapes import SymInt

# ----------------------------------------------------------------------------- lowerings


def _op(name: str):
    return lambda em, *ts: em.emit(name, *ts)


def _const(em: EmitterCore, value, like: Tensor) -> Tensor:
    return em.scalar_like(value, like.dtype, like)


def _cmp(em: EmitterCore, predicate: str, x: Tensor, y: Tensor) -> Tensor:
    return em.emit("cmp", x, y, predicate=predicate)


def _select(em: EmitterCore, cond: Tensor, x: Tensor, y: Tensor) -> Tensor:
    return em.emit("select", cond, x, y)


def _is_nan(em: EmitterCore, x: Tensor) -> Tensor:
    return _cmp(em, "ne", x, x)  # False for integers and bools


def _float_only(name: str):
    """A ceil/trunc-like op: integer and bool loops (NumPy 2) return the operand."""
    return lambda em, x: x if x.dtype.kind in "biu" else em.emit(name, x)


def _sign(em: EmitterCore, x: Tensor) -> Tensor:
    zero = _const(em, 0, x)
    inner = _const(em, 0, x)
    if x.dtype.kind == "f":
        inner = _select(em, _cmp(em, "eq", x, zero), zero, x)  # NaN stays NaN
    if x.dtype.kind == "u":  # never negative
        return _select(em, _cmp(em, "gt", x, zero), _const(em, 1, x), zero)
    negative = _select(em, _cmp(em, "lt", x, zero), _const(em, -1, x), inner)
    return _select(em, _cmp(em, "gt", x, zero), _const(em, 1, x), negative)


def _signbit(em: EmitterCore, x: Tensor) -> Tensor:
    return _cmp(em, "lt", em.emit("copysign", _const(em, 1.0, x), x), _const(em, 0.0, x))


def _isinf(em: EmitterCore, x: Tensor) -> Tensor:
    if x.dtype.kind != "f":
        return _cmp(em, "ne", x, x)
    return _cmp(em, "eq", em.emit("abs", x), _const(em, np.inf, x))


def _isfinite(em: EmitterCore, x: Tensor) -> Tensor:
    if x.dtype.kind != "f":
        return _cmp(em, "eq", x, x)
    return _cmp(em, "lt", em.emit("abs", x), _const(em, np.inf, x))


def _nan_aware(name: str):
    """``fmax``/``fmin``: NumPy's ``(a >= b || isnan(b)) ? a : b`` (and the mirror): the
    NaN-propagating op where neither is NaN, else whichever operand is not NaN. Which of
    +0.0 and -0.0 comes out of equal operands differs between NumPy's own scalar and SIMD
    loops; this gives what ``maximum``/``minimum`` give."""

    def lower(em: EmitterCore, a: Tensor, b: Tensor) -> Tensor:
        both = em.emit(name, a, b)
        if a.dtype.kind != "f":
            return both
        return _select(em, _is_nan(em, b), a, _select(em, _is_nan(em, a), b, both))

    return lower


def _heaviside(em: EmitterCore, x: Tensor, h: Tensor) -> Tensor:
    step = _select(em, _cmp(em, "lt", x, _const(em, 0, x)), _const(em, 0, x), _const(em, 1, x))
    step = _select(em, _cmp(em, "eq", x, _const(em, 0, x)), h, step)
    return _select(em, _is_nan(em, x), x, step)


def _logaddexp(base2: bool):
    """NumPy's ``npy_logaddexp`` (``npy_logaddexp2``): ``x + ln2`` (``x + 1``) where the
    operands are equal (infinities of one sign included: their difference is NaN), else
    the larger plus ``log1p(exp(-|x - y|))`` (``log2e * log1p(exp2(-|x - y|))``); NaN
    where either is NaN (the difference is NaN)."""
    exp, at_equal = ("exp2", 1.0) if base2 else ("exp", np.log(2.0))

    def lower(em: EmitterCore, x: Tensor, y: Tensor) -> Tensor:
        d = em.emit("sub", x, y)
        larger = _select(em, _cmp(em, "gt", d, _const(em, 0, d)), x, y)
        tail = em.emit("log1p", em.emit(exp, em.emit("neg", em.emit("abs", d))))
        if base2:
            tail = em.emit("mul", tail, _const(em, np.log2(np.e), x))
        value = em.emit("add", larger, tail)
        return _select(em, _cmp(em, "eq", x, y), em.emit("add", x, _const(em, at_equal, x)), value)

    return lower


def _scale_by_numpy_constant(ufunc: np.ufunc):
    """``deg2rad``/``rad2deg``: ``x * c`` with NumPy's ``c`` in the loop's dtype (``ufunc(1)``)."""

    def lower(em: EmitterCore, x: Tensor) -> Tensor:
        return em.emit("mul", x, _const(em, ufunc(np.ones((), x.dtype)), x))

    return lower


def _reciprocal(em: EmitterCore, x: Tensor) -> Tensor:
    if x.dtype.kind == "f":
        return em.emit("div", _const(em, 1, x), x)
    # NumPy's integer loop: (int)(1.0 / x); 1.0 / 0 is inf, which x86 converts to INT_MIN
    # (int32, int64), of which int8/int16 and the unsigned types keep the low bits: 0
    at_zero = np.iinfo(x.dtype).min if x.dtype in (np.dtype(np.int32), np.dtype(np.int64)) else 0
    result = _select(em, _cmp(em, "eq", x, _const(em, 0, x)), _const(em, at_zero, x), _const(em, 0, x))
    if x.dtype.kind == "i":
        result = _select(em, _cmp(em, "eq", x, _const(em, -1, x)), _const(em, -1, x), result)
    return _select(em, _cmp(em, "eq", x, _const(em, 1, x)), _const(em, 1, x), result)


def _truth(em: EmitterCore, x: Tensor) -> Tensor:
    return x if x.dtype.kind == "b" else _cmp(em, "ne", x, _const(em, 0, x))  # NaN is true


def _logical(name: str):
    return lambda em, a, b: em.emit(name, _truth(em, a), _truth(em, b))


# ufunc -> lowering of the loop NumPy picked (operands already cast and broadcast).
UFUNC_LOWERINGS = {
    np.arctan2: _op("atan2"),
    np.hypot: _op("hypot"),
    np.arcsin: _op("asin"),
    np.arccos: _op("acos"),
    np.arctan: _op("atan"),
    np.sinh: _op("sinh"),
    np.cosh: _op("cosh"),
    np.arcsinh: _op("asinh"),
    np.arccosh: _op("acosh"),
    np.arctanh: _op("atanh"),
    np.tan: _op("tan"),
    np.log1p: _op("log1p"),
    np.expm1: _op("expm1"),
    np.log2: _op("log2"),
    np.log10: _op("log10"),
    np.exp2: _op("exp2"),
    np.cbrt: _op("cbrt"),
    np.copysign: _op("copysign"),
    np.fmod: _op("fmod"),
    np.rint: _op("rint"),
    np.ceil: _float_only("ceil"),
    np.trunc: _float_only("trunc"),
    np.reciprocal: _reciprocal,
    np.sign: _sign,
    np.signbit: _signbit,
    np.isnan: _is_nan,
    np.isinf: _isinf,
    np.isfinite: _isfinite,
    np.fmax: _nan_aware("maximum"),
    np.fmin: _nan_aware("minimum"),
    np.logical_and: _logical("and"),
    np.logical_or: _logical("or"),
    np.logical_xor: _logical("xor"),
    np.left_shift: _op("shl"),
    np.right_shift: _op("shr"),
    np.deg2rad: _scale_by_numpy_constant(np.deg2rad),
    np.rad2deg: _scale_by_numpy_constant(np.rad2deg),
    np.radians: _scale_by_numpy_constant(np.radians),  # a ufunc of its own, deg2rad's loops
    np.degrees: _scale_by_numpy_constant(np.degrees),
    np.heaviside: _heaviside,
    np.logaddexp: _logaddexp(base2=False),
    np.logaddexp2: _logaddexp(base2=True),
    np.conjugate: lambda em, x: x,  # real dtypes only; also np.conj
}
assert not set(UFUNC_LOWERINGS) & set(ew.LOWERINGS), "a ufunc lowered twice"
ew.LOWERINGS.update(UFUNC_LOWERINGS)


def optional_rule(fn):
    """The rule of a ufunc from a library Ember does not import: SciPy's ``scipy.special.erf``
    (the Ember op ``erf``), recognized by identity once the user has imported SciPy. Its
    float32 loop is Ember's own polynomial (a few ulp, see ``expand_math``); SciPy
    rounds the double result."""
    special = sys.modules.get("scipy.special")
    if special is None or fn is not getattr(special, "erf", None):
        return None
    ew.LOWERINGS.setdefault(fn, _op("erf"))
    return ew.ufunc(fn)


# ----------------------------------------------------------------------------- non-ufunc rules


def signbit(em: EmitterCore, *args, **kwargs) -> Tensor:
    """``np.signbit``; of a bool array NumPy runs the float16 loop, whose answer (the sign
    of 0.0 or 1.0) is False everywhere: that needs no float16."""
    if len(args) == 1 and not kwargs and isinstance(args[0], (Tensor, bool, np.bool_)):
        x = em.array(args[0], "np.signbit")
        if x.dtype.kind == "b":
            return _cmp(em, "ne", x, x)
    return ew.apply_ufunc(em, np.signbit, *args, **kwargs)


def _scalar_result(t: Tensor) -> Tensor:
    """A ufunc's 0-d output is a NumPy scalar (inside a tuple, which ``Emitter.call`` leaves alone)."""
    return dataclasses.replace(t, scalar=True) if t.ndim == 0 and not t.weak else t


def divmod_(em: EmitterCore, x1, x2, /, *args, **kwargs):
    """``np.divmod``: NumPy's floor_divide and remainder loops are those of divmod."""
    if args or kwargs.get("out") is not None:
        raise NotImplementedError("np.divmod: out= is not supported")
    quotient = ew.apply_ufunc(em, np.floor_divide, x1, x2, **kwargs)
    remainder = ew.apply_ufunc(em, np.remainder, x1, x2, **kwargs)
    return _scalar_result(quotient), _scalar_result(remainder)


def power_of_ten(n: int) -> float:
    """NumPy's ``power_of_ten`` (``calculation.c``): a table up to 1e8, then repeated
    multiplication in double precision (which is not ``10.0 ** n`` for large ``n``)."""
    if n < 9:
        return (1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8)[n]
    ret = 1e9
    for _ in range(n - 9):
        ret *= 10.0
    return ret


def round_(em: EmitterCore, a, decimals=0, out=None):
    """``np.round``/``np.around``/``a.round()``: NumPy's ``PyArray_Round`` step by step."""
    reject("np.round", out=(out, None))
    if isinstance(decimals, SymInt):
        decimals = decimals.env.specialize(decimals)
    decimals = operator.index(decimals)  # NumPy's TypeError for 1.5
    a = em.array(a, "np.round")
    if a.dtype.kind == "b":  # NumPy's own error for this ``decimals``, else its float16 loops
        a = em.cast(a, np.round(np.zeros(0, np.bool_), decimals).dtype)
    if decimals >= 0 and a.dtype.kind in "iu":
        return a
    if decimals == 0:
        return ew.apply_ufunc(em, np.rint, a)
    # NumPy's loops: multiply/true_divide of a and the weak Python float 10**|d| (float32
    # stays float32, integers run the float64 loop), rint, the inverse step, and integers
    # cast back.
    work = a if a.dtype.kind == "f" else em.cast(a, np.float64)
    f = em.scalar_like(power_of_ten(abs(decimals)), work.dtype, work)
    first, second = ("mul", "div") if decimals > 0 else ("div", "mul")
    result = em.emit(second, em.emit("rint", em.emit(first, work, f)), f)
    return em.cast(result, a.dtype) if result.dtype != a.dtype else result


def conj_method(em: EmitterCore, x: Tensor, out=None):
    """``x.conj()`` / ``x.conjugate()`` of a real array: the array itself (not a copy); of a
    complex array a new one (``conj``)."""
    reject("conj", out=(out, None))
    if x.scalar:
        raise NotImplementedError("conj of a NumPy scalar (a scalar result, not an array)")
    return em.emit("conj", x) if x.dtype.kind == "c" else x


def _fill_value(value, dtype: np.dtype) -> np.ndarray:
    """``value`` as ``np.copyto`` puts it into an array of ``dtype`` (same_kind; inf when a
    float64 overflows float32), or NumPy's own error."""
    if isinstance(value, (Tensor, SymInt)):
        raise NotImplementedError("np.nan_to_num: a traced replacement value")
    target = np.empty((), dtype)
    with np.errstate(all="ignore"):
        np.copyto(target, value)
    return target


def nan_to_num(em: EmitterCore, x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``np.nan_to_num``: for floats NaN, +inf and -inf replaced (by 0 and the largest and
    smallest finite values unless given); other dtypes as they are."""
    x = em.array(x, "np.nan_to_num")
    if x.dtype.kind != "f":
        return x
    if not copy:
        raise NotImplementedError("np.nan_to_num: copy=False (it writes into its argument)")
    info = np.finfo(x.dtype)
    nan_v = _fill_value(nan, x.dtype)
    posinf_v = _fill_value(info.max if posinf is None else posinf, x.dtype)
    neginf_v = _fill_value(info.min if neginf is None else neginf, x.dtype)
    result = _select(em, _cmp(em, "eq", x, _const(em, -np.inf, x)), _const(em, neginf_v, x), x)
    result = _select(em, _cmp(em, "eq", x, _const(em, np.inf, x)), _const(em, posinf_v, x), result)
    return _select(em, _is_nan(em, x), _const(em, nan_v, x), result)


# ----------------------------------------------------------------------------- the rows


def _ufunc_rows(rows):
    return [((u, *names), ew.ufunc(u), ops, "ufunc") for u, names, ops in rows]


# (keys, rule, Ember ops emitted, dtype rule), as numpy_semantics._ROWS.
def polyval(em: EmitterCore, p, x):
    """``np.polyval``: Horner's steps as NumPy takes them, ``y = y * x + c`` for each
    coefficient from the highest, starting from zeros of ``x``'s dtype (so ``inf`` at
    ``x`` gives NaN: 0 * inf), each coefficient a NumPy scalar of ``p``'s dtype; ``p``
    known while tracing, or a 1-d array of the function's of a fixed size up to 64."""
    from compiler.frontend import numpy_creation as cr
    from compiler.frontend.numpy_indexing import elements

    fname = "np.polyval"
    if isinstance(p, np.poly1d) or isinstance(x, np.poly1d):
        raise NotImplementedError(f"{fname} of a np.poly1d")
    x = em.array(x, fname)
    if isinstance(p, Tensor):
        if p.ndim != 1:
            raise NotImplementedError(f"{fname}: coefficients of {p.ndim} dims")
        coefficients = elements(em, p, 64, f"{fname}: coefficients")
    else:
        known = np.asarray(p)
        if known.ndim != 1 or known.dtype.kind not in "biufc":
            raise NotImplementedError(f"{fname}: coefficients that are not a 1-d list of numbers")
        coefficients = list(known)
    y = cr.fill(em, em.shape(x), 0, x.dtype)
    for c in coefficients:
        y = ew.apply_ufunc(em, np.add, ew.apply_ufunc(em, np.multiply, y, x), c)
    return y


def isclose(em: EmitterCore, a, b, rtol=1.0e-5, atol=1.0e-8, equal_nan=False):
    """``np.isclose`` as NumPy 2 computes it: ``y`` made inexact, ``|x - y| <= atol + rtol
    * |y|`` where ``y`` is finite, or ``x == y`` (infinities of one sign), NaNs equal with
    ``equal_nan``; a bool array (a NumPy bool for scalars)."""
    x, y = (v if isinstance(v, (int, float, complex)) else em.array(v, "np.isclose") for v in (a, b))
    if isinstance(y, Tensor):
        y = em.cast(y, np.result_type(y.dtype, 1.0))
    elif isinstance(y, int):
        y = float(y)
    u = ew.apply_ufunc
    tolerance = u(em, np.add, atol, u(em, np.multiply, rtol, u(em, np.absolute, y)))
    close = u(
        em,
        np.logical_and,
        u(em, np.less_equal, u(em, np.absolute, u(em, np.subtract, x, y)), tolerance),
        u(em, np.isfinite, y),
    )
    result = u(em, np.logical_or, close, u(em, np.equal, x, y))
    if equal_nan:
        result = u(em, np.logical_or, result, u(em, np.logical_and, u(em, np.isnan, x), u(em, np.isnan, y)))
    return result


def fix(em: EmitterCore, x, out=None):
    """``np.fix``: NumPy's ``ceil``, then ``floor`` where ``x >= 0`` (toward zero; -0.0
    and NaN kept)."""
    reject("np.fix", out=(out, None))
    x = em.array(x, "np.fix")
    up = ew.apply_ufunc(em, np.ceil, x)
    return ew.where(em, ew.apply_ufunc(em, np.greater_equal, x, 0), ew.apply_ufunc(em, np.floor, x), up)


def sinc(em: EmitterCore, x):
    """``np.sinc``: ``sin(y) / y`` for ``y = pi * x``, ``x`` of 0 replaced by 1e-20 (so 1
    there), in ``x``'s float type (float64 for integers)."""
    x = em.array(x, "np.sinc")
    u = ew.apply_ufunc
    y = u(em, np.multiply, np.pi, ew.where(em, u(em, np.equal, x, 0), 1.0e-20, x))
    return u(em, np.true_divide, u(em, np.sin, y), y)


ROWS: list = _ufunc_rows(
    [
        (np.arctan2, (), "atan2"),
        (np.hypot, (), "hypot"),
        (np.arcsin, (), "asin"),
        (np.arccos, (), "acos"),
        (np.arctan, (), "atan"),
        (np.sinh, (), "sinh"),
        (np.cosh, (), "cosh"),
        (np.arcsinh, (), "asinh"),
        (np.arccosh, (), "acosh"),
        (np.arctanh, (), "atanh"),
        (np.tan, (), "tan"),
        (np.log1p, (), "log1p"),
        (np.expm1, (), "expm1"),
        (np.log2, (), "log2"),
        (np.log10, (), "log10"),
        (np.exp2, (), "exp2"),
        (np.cbrt, (), "cbrt"),
        (np.reciprocal, (), "div | cmp, select"),
        (np.sign, (), "cmp, select"),
        (np.copysign, (), "copysign"),
        (np.ceil, (), "ceil (int: none)"),
        (np.trunc, (), "trunc (int: none)"),
        (np.rint, (), "rint"),
        (np.fmod, (), "fmod"),
        (np.fmax, (), "maximum (float: cmp ne, select)"),
        (np.fmin, (), "minimum (float: cmp ne, select)"),
        (np.isnan, (), "cmp ne"),
        (np.isinf, (), "abs, cmp eq | cmp ne"),
        (np.isfinite, (), "abs, cmp lt | cmp eq"),
        (np.logical_and, (), "and (+cmp ne 0)"),
        (np.logical_or, (), "or (+cmp ne 0)"),
        (np.logical_xor, (), "xor (+cmp ne 0)"),
        (np.left_shift, ("lshift", operator.lshift), "shl"),
        (np.right_shift, ("rshift", operator.rshift), "shr"),
        (np.deg2rad, (), "mul"),
        (np.rad2deg, (), "mul"),
        (np.radians, (), "mul"),
        (np.degrees, (), "mul"),
        (np.heaviside, (), "cmp, select"),
        (np.logaddexp, (), "sub, abs, neg, exp, log1p, add, cmp, select"),
        (np.logaddexp2, (), "sub, abs, neg, exp2, log1p, mul, add, cmp, select"),
        (np.conjugate, (), "-"),  # np.conj is np.conjugate
    ]
) + [
    ((np.signbit,), signbit, "copysign, cmp lt (bool: cmp ne)", "ufunc"),
    ((np.divmod,), divmod_, "floordiv, mod", "ufunc"),
    ((np.round, np.around, "round"), round_, "rint (+mul, div, cast)", "same (ufunc steps)"),
    (("conj", "conjugate"), conj_method, "-", "same"),
    ((np.nan_to_num,), nan_to_num, "cmp, select", "same"),
    ((np.polyval,), polyval, "mul, add (Horner's steps)", "ufunc steps"),
    ((np.isclose,), isclose, "sub, abs, mul, add, cmp le, isfinite, cmp eq, or", "bool"),
    ((np.fix,), fix, "ceil, floor, cmp ge, select", "ufunc"),
    ((np.sinc,), sinc, "cmp eq, select, mul, sin, div", "ufunc"),
]

# Array methods this module answers (``x.name(...)`` with the array first).
METHODS: tuple = ("round", "conj", "conjugate")

# NumPy functions whose 0-d results are 0-d arrays, not NumPy scalars.
ARRAY_RESULTS: set = {"conj", "conjugate"}
