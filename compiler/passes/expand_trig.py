"""The circular functions of ``ember-expand-math``: atan, atan2, asin, acos (f32, f64),
sin, cos, tan (float32; float64 of small arguments), as inline, branch-free arithmetic
(the pass and the rest of its functions are in ``expand_math``).

* atan, atan2 (f32, f64): |x| reduced around 0, 1/2, 1, 3/2 and infinity to |t| <= 7/16
  (``atan(c) + atan((x - c) / (1 + c*x))``, one division, the branch chosen by
  selects), then ``t + t**3 * Q(t*t)`` (fitted, below) added to atan(c) carried in two
  parts. atan2 is ``atan(|y| / |x|)``, ``pi - r`` where x's sign bit is set (not where
  the quotient is infinite: +-pi/2), y's sign; 0/0 and inf/inf made 0 and pi/4 give
  C99's table for signed zeros and infinities. Within 1 ulp of glibc (f64) and 1.4 ulp
  of the rounded result (f32).
* sin, cos (f32, computed in f64 and rounded once): Payne-Hanek reduction in floating
  point (``_quadrant_and_rest``): exact for every float32, however large, so the
  results are correctly rounded but for a hair (0.5001 ulp measured over the whole
  range and at the float32 numbers nearest to multiples of pi/2); Taylor polynomials
  on the rest; float32 tan is their quotient. NumPy's SIMD float32 loops had run
  6-7x faster than the libm calls.
* sin, cos, tan of arguments below 2**20 (``ember.small_argument``, set by
  ``ember-fast-paths`` on loops whose every argument is): Cody-Waite with pi/2 in
  exact 33-bit pieces, the quadrant from the rounded multiple's bits. float32 in
  float64, rounded once: the same results as the exact reduction. float64 with the rest
  in double-double, sin and cos within 0.51 ulp, tan (a quotient corrected by its
  residual) 0.52; unmarked float64 ones stay libm calls.
* asin, acos (f64): ``atan2(x, sqrt((1 - x) * (1 + x)))`` and ``atan2(sqrt(...), x)``,
  the product exact-ish near |x| = 1 where ``1 - x*x`` would cancel.
* asin, acos (f32): fdlibm's reduction, a polynomial where fdlibm divides: below
  |x| = 1/2 ``asin(x) = x + x*z*P(z)`` for ``z = x*x``; above, ``asin(|x|) = pi/2 -
  2*asin(s)`` for ``s = sqrt(z)``, ``z = (1 - |x|) / 2`` (exact), and ``asin(s)`` by the
  same polynomial, ``z`` being at most 1/4 both ways. The subtraction from pi/2 (in two
  parts) takes ``2s`` first, exactly where it matters (Sterbenz), then the small rest;
  acos is ``pi/2 - asin(x)``, ``2*asin(s)`` or ``pi - 2*asin(s)``. One square root and
  five FMAs, no division: 1M elements, 2 threads, asin 0.46 -> 0.18 ms and acos 0.46 ->
  0.19 (NumPy 0.40, 0.42); 1.2 ulp at most over every 7th float32 of [-1, 1], where the
  atan2 form had been 2.4 (NumPy's own: 3.0 and 2.0).
"""

from __future__ import annotations

import math as pymath

from compiler.mlir import arith
from compiler.mlir import math as math_ops
from compiler.passes.math_emitter import Emitter, two_sum

# ----------------------------------------------------------------------------- coefficients

# atan: |x| reduced to |t| <= 7/16 around the breakpoints 0, 1/2, 1, 3/2 and infinity
# (atan(x) = atan(c) + atan((x - c) / (1 + c*x)); beyond 39/16 atan(inf) + atan(-1/x)),
# then atan(t) = t + t**3 * Q(t*t). Q: least squares of atan's error on 400 Chebyshev
# nodes of t*t in [0, (7/16)**2] (mpmath, 50 digits); max relative error of the
# polynomial itself 1.8e-10 (f32, degree 5) and 7.1e-19 (f64, degree 11).
_ATAN_Q = {
    32: [
        -0.33333333237538143,
        0.19999963438011298,
        -0.14283439518115706,
        0.11058801462416117,
        -0.08535536949677239,
        0.048294004526170754,
    ],
    64: [
        -0.3333333333333333,
        0.1999999999999943,
        -0.1428571428557081,
        0.11111111096969703,
        -0.09090908369112904,
        0.07692285883039952,
        -0.06666246894347413,
        0.058769948333092806,
        -0.05216982252306086,
        0.04493434205036697,
        -0.03315392661556325,
        0.014797639441686453,
    ],
}
# (breakpoint's upper end, c, atan(c) as hi + lo per format); c = inf past the last
_ATAN_STEPS = [
    (7 / 16, 0.0, {32: (0.0, 0.0), 64: (0.0, 0.0)}),
    (11 / 16, 0.5, {32: (0.46364760398864746, 5.01215868808913e-09), 64: (0.4636476090008061, 2.2698777452961687e-17)}),
    (
        19 / 16,
        1.0,
        {32: (0.7853981852531433, -2.1855694143368964e-08), 64: (0.7853981633974483, 3.061616997868383e-17)},
    ),
    (
        39 / 16,
        1.5,
        {32: (0.9827937483787537, -2.5131424052915463e-08), 64: (0.982793723247329, 1.3903311031230998e-17)},
    ),
]
_HALF_PI = {32: (1.5707963705062866, -4.371138828673793e-08), 64: (1.5707963267948966, 6.123233995736766e-17)}
_PI = {32: (3.1415927410125732, -8.742277657347586e-08), 64: (3.141592653589793, 1.2246467991473532e-16)}
# asin(s) = s + s * z * P(z), z = s*s <= 1/4: least squares of (asin(sqrt(z))/sqrt(z) - 1)/z
# on 200 Chebyshev nodes of [0, 1/4], weighted by z (mpmath, 40 digits); rounded to
# float32, the polynomial's error is at most 6.8e-9 of s
_ASIN_P_F32 = [0.16666753590106964, 0.07495298236608505, 0.04546918720006943, 0.024188648909330368, 0.04214736446738243]
# 2/pi in eight 24-bit pieces (the integers below times 2**-24, 2**-48, ...): a float32
# times a piece is exact in float64, for any float32 (sin/cos's argument reduction); what
# the pieces leave out, 1.6e-58, times the largest float32 is under 1e-19
_TWO_OVER_PI_24 = [
    p * 2.0 ** (-24 * (i + 1))
    for i, p in enumerate([10680707, 7228996, 1387004, 2578385, 16069853, 12639074, 9804092, 4427841])
]
# sin(r) = r + r**3 * S(r*r), cos(r) = 1 - r*r/2 + r**4 * C(r*r) on |r| <= pi/4: Taylor
# terms to r**11 resp. r**12, the first left out under 1e-11 (float32 results only)
_SIN_TAYLOR = [(-1.0) ** k / pymath.factorial(2 * k + 1) for k in range(1, 6)]
_COS_TAYLOR = [(-1.0) ** k / pymath.factorial(2 * k) for k in range(2, 7)]
# float64: to r**17 resp. r**18, the first term left out under 1e-19 of the result
_SIN_TAYLOR_64 = [(-1.0) ** k / pymath.factorial(2 * k + 1) for k in range(1, 9)]
_COS_TAYLOR_64 = [(-1.0) ** k / pymath.factorial(2 * k) for k in range(2, 10)]

# Arguments below SMALL_ARGUMENT in magnitude (``ember-fast-paths`` checks a loop's
# before it runs the loop whose sin, cos and tan carry SMALL_ARGUMENT_ATTR): pi/2 in
# three pieces of at most 33 bits at fixed places (2**-32, 2**-65, 2**-98) and the rest
# rounded, so ``k * piece`` is exact for every ``k < 2**20`` and the reduction (Cody-Waite)
# loses only ``k`` times the rest's rounding, under 2**-130
SMALL_ARGUMENT = 2.0**20
SMALL_ARGUMENT_ATTR = "ember.small_argument"
_HALF_PI_33 = [6746518852 * 2.0**-32, 2242054355 * 2.0**-65, 640881756 * 2.0**-98]
_HALF_PI_33_REST = 8.4784276603689e-32

# ----------------------------------------------------------------------------- functions


def _atan_of_magnitude(e: Emitter, a):
    """atan(a) for ``a >= 0`` (NaN for NaN, pi/2 for inf) as ``hi + rest``: one reduction
    chosen by selects, one division, the polynomial; ``hi`` is atan(c)'s leading part,
    ``rest`` the small remainder (callers that subtract it from pi keep the two apart)."""
    bits = e.fmt.bits
    num, den = e.c(-1.0), a  # past 39/16: t = -1/a, atan(c) = pi/2
    hi, lo = e.c(_HALF_PI[bits][0]), e.c(_HALF_PI[bits][1])
    for upper, c, atan_c in reversed(_ATAN_STEPS):
        inside = e.cmp("OLT", a, e.c(upper))
        step_num = a if c == 0.0 else e.sub(a, e.c(c))
        step_den = e.c(1.0) if c == 0.0 else e.fma(a, e.c(c), e.c(1.0))
        num, den = e.select(inside, step_num, num), e.select(inside, step_den, den)
        hi, lo = e.select(inside, e.c(atan_c[bits][0]), hi), e.select(inside, e.c(atan_c[bits][1]), lo)
    t = e.div(num, den)
    z = e.mul(t, t)
    poly = e.mul(e.mul(t, z), e.estrin(z, _ATAN_Q[bits]))
    return hi, e.add(t, e.add(poly, lo))


def expand_atan(e: Emitter, x):
    """Odd: atan(|x|) with x's sign (-0.0 stays -0.0, NaN stays NaN)."""
    hi, rest = _atan_of_magnitude(e, e.abs(x))
    return e.copysign(e.add(hi, rest), x)


def expand_atan2(e: Emitter, y, x):
    """``atan(|y| / |x|)``, then ``pi - r`` where x's sign bit is set, then y's sign: C99's
    table from the same steps, once 0/0 is made 0 and inf/inf pi/4 (``atan2(+-0, -0)`` is
    ``+-pi``, ``atan2(inf, -inf)`` 3pi/4); a NaN in either gives NaN. ``pi - r`` is
    ``(pi_hi - hi) + (pi_lo - rest)``: the first difference exact where r is near pi/2,
    so ``atan2(1, -1e-300)`` is pi/2 to the last bit."""
    bits = e.fmt.bits
    ay, ax = e.abs(y), e.abs(x)
    q = e.div(ay, ax)
    hi, rest = _atan_of_magnitude(e, q)
    both_zero = arith.andi(e.cmp("OEQ", ay, e.c(0.0)), e.cmp("OEQ", ax, e.c(0.0)))
    both_inf = arith.andi(e.cmp("OEQ", ay, e.c(pymath.inf)), e.cmp("OEQ", ax, e.c(pymath.inf)))
    special = arith.ori(both_zero, both_inf)
    hi = e.select(both_zero, e.c(0.0), e.select(both_inf, e.c(pymath.pi / 4), hi))
    rest = e.select(special, e.c(0.0), rest)
    # x's sign bit set, unless the answer is +-pi/2 (|y|/|x| infinite: x is +-0 or y +-inf)
    negative_x = arith.andi(arith.cmpi(arith.CmpIPredicate.slt, e.to_bits(x), e.i(0)), e.cmp("UNE", q, e.c(pymath.inf)))
    flipped = e.add(e.sub(e.c(_PI[bits][0]), hi), e.sub(e.c(_PI[bits][1]), rest))
    return e.copysign(e.select(negative_x, flipped, e.add(hi, rest)), y)


def _quadrant_and_rest(d: Emitter, a):
    """``(q, r)`` with ``a = (4j + q) * pi/2 + r`` for some integer j, ``q`` mod 4 the
    quadrant (an integer: ``_nearest_integer``'s bits) and ``|r| <= pi/4`` about, for any
    float32 ``a >= 0`` held in float64 (inf, NaN: NaN).
    Payne-Hanek in floating point: ``a * 2/pi`` as the exact products of ``a`` and 2/pi's
    24-bit pieces, each taken mod 4 (exactly: ``p - 4*floor(p/4)``), summed in
    double-double (TwoSum, no contraction), so the fraction keeps its digits whatever the
    size of ``a`` (float32 arguments near multiples of pi/2 leave 2**-30 or so of them)."""
    total, carry = None, None
    for piece in reversed(_TWO_OVER_PI_24):
        p = arith.mulf(a, d.c(piece))
        t = arith.subf(p, arith.mulf(d.c(4.0), math_ops.floor(arith.mulf(p, d.c(0.25)))))
        if total is None:
            total, carry = t, d.c(0.0)
        else:
            total, err = two_sum(total, t)
            carry = arith.addf(carry, err)
    q, k = _nearest_integer(d, total)
    f = arith.addf(arith.subf(total, k), carry)
    return q, arith.mulf(f, d.c(pymath.pi / 2))


def _nearest_integer(d: Emitter, v):
    """``(bits, k)``: ``k`` the integer nearest to ``v`` (``|v| < 2**51``), and the bits of
    ``v + 1.5 * 2**52`` whose lowest two are ``k mod 4`` (negative ``k`` too): the
    quadrant without a conversion."""
    shifted = arith.addf(v, d.c(d.fmt.round_magic))
    return d.to_bits(shifted), arith.subf(shifted, d.c(d.fmt.round_magic))


def _reduce_small(d: Emitter, a, double_double: bool):
    """``(q, hi, lo)`` with ``a = (4j + q) * pi/2 + hi + lo``, ``q`` mod 4 the quadrant, for
    ``0 <= a < SMALL_ARGUMENT`` (NaN: NaN): Cody-Waite with the exact pieces above. With
    ``double_double`` the two roundings are kept in ``lo`` (TwoSum; float64 results),
    else ``lo`` is 0 and ``hi`` within 2**-52 of the rest (float32 results, in float64).
    Plain ops: LLVM may neither contract nor reassociate them."""
    q, k = _nearest_integer(d, arith.mulf(a, d.c(2 / pymath.pi)))
    p1, p2, p3 = (arith.mulf(k, d.c(piece)) for piece in _HALF_PI_33)
    r = arith.subf(a, p1)  # exact: a and k * pi/2 are within a factor of two, or k is 0
    if not double_double:
        return q, arith.subf(arith.subf(r, p2), p3), d.c(0.0)
    y, e1 = two_sum(r, arith.negf(p2))
    hi, e2 = two_sum(y, arith.negf(p3))
    lo = arith.subf(arith.addf(e1, e2), arith.mulf(k, d.c(_HALF_PI_33_REST)))
    s = arith.addf(hi, lo)
    return q, s, arith.addf(arith.subf(hi, s), lo)


def _sin_cos_of_rest(d: Emitter, r):
    z = d.mul(r, r)
    sin_r = d.fma(d.mul(r, z), d.horner(z, _SIN_TAYLOR), r)
    cos_r = d.fma(d.mul(z, z), d.horner(z, _COS_TAYLOR), d.sub(d.c(1.0), d.mul(z, d.c(0.5))))
    return sin_r, cos_r


def _sin_cos_of_double_double(d: Emitter, hi, lo):
    """sin and cos of ``hi + lo`` (``|lo|`` at most half an ulp of ``hi``) to float64's
    precision, each as a pair ``(big, small)`` whose sum is the value: ``lo`` enters as
    the first-order terms ``lo * cos(hi)`` and ``-lo * sin(hi)``; cos's ``1 - hi*hi/2``
    is ``w`` with its rounding error (``(1 - w) - hz``) moved to the small part."""
    z = arith.mulf(hi, hi)
    hz = arith.mulf(z, d.c(0.5))
    sin_small = d.fma(d.mul(hi, z), d.horner(z, _SIN_TAYLOR_64), d.mul(lo, arith.subf(d.c(1.0), hz)))
    w = arith.subf(d.c(1.0), hz)
    cos_small = d.sub(d.mul(d.mul(z, z), d.horner(z, _COS_TAYLOR_64)), d.mul(hi, lo))
    return (hi, sin_small), (w, arith.addf(arith.subf(arith.subf(d.c(1.0), w), hz), cos_small))


def _sum(pair):
    """The value of ``(big, small)``; a lone value as it is."""
    return arith.addf(*pair) if isinstance(pair, tuple) else pair


def _renormalized(pair):
    """``(big, small)`` as ``(fl(big + small), its error)``: Fast2Sum (``|big| >= |small|``)."""
    big, small = pair
    total = arith.addf(big, small)
    return total, arith.addf(arith.subf(big, total), small)


def _odd(d: Emitter, q):
    """Whether the quadrant ``q`` is odd (its lowest bit)."""
    return arith.cmpi(arith.CmpIPredicate.ne, arith.andi(q, d.i(1)), d.i(0))


def _negated_where(d: Emitter, y, sign):
    """``y`` with its sign bit flipped where ``sign`` (an integer of y's width) has it set."""
    return d.from_bits(arith.xori(d.to_bits(y), sign))


def _bit_to_sign(d: Emitter, q, bit: int):
    """``q``'s bit number ``bit`` moved to the sign bit, the others cleared."""
    return arith.shli(arith.andi(q, d.i(1 << bit)), d.i(d.fmt.bits - 1 - bit))


def _sign_of(d: Emitter, x):
    return arith.andi(d.to_bits(x), d.i(d.fmt.sign_bit))


def _sin_from(d: Emitter, q, s, c, x):
    """sin(x) from the quadrant of |x| and sin, cos of its rest: cos in odd quadrants,
    negated in quadrants 2 and 3; odd in x (-0.0 stays -0.0)."""
    sign = arith.xori(_bit_to_sign(d, q, 1), _sign_of(d, x))
    return _negated_where(d, d.select(_odd(d, q), _sum(c), _sum(s)), sign)


def _cos_from(d: Emitter, q, s, c, x):
    """cos(x): sin in odd quadrants, negated in quadrants 1 and 2; even."""
    return _negated_where(d, d.select(_odd(d, q), _sum(s), _sum(c)), _bit_to_sign(d, arith.addi(q, d.i(1)), 1))


def _tan_from(d: Emitter, q, s, c, x):
    """tan(x): ``s/c``, in odd quadrants ``-c/s``; odd in x. One division: of the values,
    or, where sin and cos come as pairs (float64), of 1 by the denominator's big part,
    then the quotient corrected by its residual (``n - t*d``, the product fused): a plain
    quotient of the rounded sin and cos was 1.7 ulp off, this is 0.5-0.6."""
    odd = _odd(d, q)
    sign = arith.xori(_bit_to_sign(d, q, 0), _sign_of(d, x))
    if not isinstance(s, tuple):
        return _negated_where(d, d.div(d.select(odd, c, s), d.select(odd, s, c)), sign)
    s, c = _renormalized(s), _renormalized(c)
    num = [d.select(odd, a, b) for a, b in zip(c, s)]
    den = [d.select(odd, a, b) for a, b in zip(s, c)]
    inverse = d.div(d.c(1.0), den[0])
    t = d.mul(num[0], inverse)
    residual = d.add(d.fma(arith.negf(t), den[0], num[0]), d.fma(arith.negf(t), den[1], num[1]))
    return _negated_where(d, d.fma(residual, inverse, t), sign)


def _circular(e: Emitter, x, result_from, small: bool):
    """sin, cos or tan (``result_from``) of x. float32 in float64, rounded once: the exact
    reduction (``_quadrant_and_rest``) or, for ``small`` arguments, Cody-Waite; float64
    (``small`` only) with the rest in double-double."""
    if e.fmt.bits == 64:
        q, hi, lo = _reduce_small(e, e.abs(x), double_double=True)
        s, c = _sin_cos_of_double_double(e, hi, lo)
        return result_from(e, q, s, c, x)
    d = e.double()
    xd = arith.extf(d.type, x)
    q, r = _reduce_small(d, d.abs(xd), double_double=False)[:2] if small else _quadrant_and_rest(d, d.abs(xd))
    s, c = _sin_cos_of_rest(d, r)
    return arith.truncf(e.type, result_from(d, q, s, c, xd))


def expand_sin_f32(e: Emitter, x):
    """float32 sin in float64 at any argument: the exact reduction, Taylor polynomials,
    rounded once."""
    return _circular(e, x, _sin_from, small=False)


def expand_cos_f32(e: Emitter, x):
    """float32 cos in float64, as sin."""
    return _circular(e, x, _cos_from, small=False)


def expand_tan_f32(e: Emitter, x):
    """float32 tan in float64: sin/cos of the rest divided."""
    return _circular(e, x, _tan_from, small=False)


def expand_sin_small(e: Emitter, x):
    """sin of ``|x| < SMALL_ARGUMENT`` (float32 and float64): Cody-Waite."""
    return _circular(e, x, _sin_from, small=True)


def expand_cos_small(e: Emitter, x):
    """cos of ``|x| < SMALL_ARGUMENT``."""
    return _circular(e, x, _cos_from, small=True)


def expand_tan_small(e: Emitter, x):
    """tan of ``|x| < SMALL_ARGUMENT``."""
    return _circular(e, x, _tan_from, small=True)


def _asin_reduction_f32(e: Emitter, x):
    """``(a, near_zero, s, t)`` for float32 asin and acos: ``a = |x|``; where ``a < 1/2``
    (``near_zero``) ``s = a``, elsewhere ``s = sqrt((1 - a) / 2)`` (NaN past 1); ``asin(s)
    = s + t`` with ``t = s*z*P(z)``, ``z = s*s``, kept apart for the callers' sums."""
    a = e.abs(x)
    near_zero = e.cmp("OLT", a, e.c(0.5))
    z = e.select(near_zero, e.mul(a, a), e.mul(e.sub(e.c(1.0), a), e.c(0.5)))
    s = e.select(near_zero, a, math_ops.sqrt(z))
    return a, near_zero, s, e.mul(e.mul(s, z), e.horner(z, _ASIN_P_F32))


def _minus_twice(e: Emitter, pair, s, t):
    """``hi + lo - 2s - 2t`` for ``(hi, lo)`` = pi/2 or pi and ``2s <= hi``: ``hi - 2s``
    and its rounding error (Fast2Sum), which joins the small terms, so one rounding of the
    large part is not left in the result (asin near 0.84 had been 2 ulp off)."""
    hi, lo = (e.c(v) for v in pair)
    twice = e.add(s, s)
    big = e.sub(hi, twice)
    error = e.sub(e.sub(hi, big), twice)
    return e.add(big, e.add(error, e.sub(lo, e.add(t, t))))


def expand_asin_f32(e: Emitter, x):
    """``a + t`` below 1/2, ``pi/2 - 2s - 2t`` above; x's sign, NaN kept."""
    a, near_zero, s, t = _asin_reduction_f32(e, x)
    far = _minus_twice(e, _HALF_PI[32], s, t)
    return e.keep_nan(x, e.copysign(e.select(near_zero, e.add(a, t), far), x))


def expand_acos_f32(e: Emitter, x):
    """``pi/2 - asin(x)`` below 1/2 (``pi/2_hi - (x - (pi/2_lo - t'))``, ``t'`` with x's
    sign), ``2 asin(s)`` above, ``pi - 2 asin(s)`` below -1/2; NaN kept."""
    _, near_zero, s, t = _asin_reduction_f32(e, x)
    half_hi, half_lo = (e.c(v) for v in _HALF_PI[32])
    middle = e.sub(half_hi, e.sub(x, e.sub(half_lo, e.copysign(t, x))))
    twice = e.add(e.add(s, s), e.add(t, t))
    far = e.select(e.cmp("OLT", x, e.c(0.0)), _minus_twice(e, _PI[32], s, t), twice)
    return e.keep_nan(x, e.select(near_zero, middle, far))


def _cosine_side(e: Emitter, x):
    """``sqrt(1 - x*x)`` as ``sqrt((1 - x) * (1 + x))``: no cancellation near |x| = 1
    (``1 - x`` is exact there); NaN for |x| > 1."""
    return math_ops.sqrt(e.mul(e.sub(e.c(1.0), x), e.add(e.c(1.0), x)))


def expand_asin(e: Emitter, x):
    """``atan2(x, sqrt(1 - x*x))``: +-pi/2 at +-1, NaN beyond, -0.0 stays -0.0."""
    return expand_atan2(e, x, _cosine_side(e, x))


def expand_acos(e: Emitter, x):
    """``atan2(sqrt(1 - x*x), x)``: 0 at 1, pi at -1, NaN beyond."""
    return expand_atan2(e, _cosine_side(e, x), x)
