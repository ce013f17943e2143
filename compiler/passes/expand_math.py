"""Transcendental functions as inline, branch-free arithmetic (``ember-expand-math``).

Why: ``convert-math-to-llvm``/``convert-math-to-libm`` turn ``math.exp``, ``math.tanh``,
``math.log`` and ``math.erf`` into calls of ``expf``/``tanhf``/... (or ``llvm.exp``
intrinsics that LLVM lowers to the same calls). A call in a loop body stops LLVM's loop
vectorizer, so a fused kernel such as ``tanh(x*1.5+b)*0.5+x`` ran one scalar libm call
per element and lost to NumPy. This pass rewrites those ops, before they reach the LLVM
lowering, into ``arith`` only: mul/add (marked ``contract`` so LLVM may fuse them into
FMAs where the target has them), compares and ``arith.select`` instead of branches, and
integer bit manipulation through ``arith.bitcast`` to build ``2**n`` and to split a
float into exponent and mantissa. The result vectorizes like any other arithmetic.
This MLIR build has no polynomial-approximation pass of its own (only
``math-expand-ops``, whose tanh-through-exp overflows to NaN for large |x|).

Accuracy target: a few ulp of the correctly rounded result over the whole range.
Measured on a million-point sweep (``test/python/test_expand_math.py``, against NumPy
and ``math.erf``): f32 max 0.9 ulp (exp), 0.8 (log), 1.2 (tanh), 2.3 (erf), relative
error <= 1.7e-7; f64 max 1 ulp (exp, log, erf) and 2 ulp (tanh) from NumPy's and
glibc's own results, relative error <= 4e-16. Special values are those NumPy gives: exp(-inf)=0, exp(inf)=inf,
overflow to inf, gradual underflow through the subnormals to 0; log(0)=-inf,
log(x<0)=nan, log(inf)=inf, subnormal inputs exact; tanh(+-inf)=+-1, tanh(-0)=-0;
erf(+-inf)=+-1; NaN in gives NaN out.

Algorithms (coefficients are exact Taylor terms or our own fits, see each table):

* exp: Cody-Waite reduction. n = round(x*log2(e)) (by the add-and-subtract
  1.5*2**p trick), r = x - n*ln2_hi - n*ln2_lo with ln2_hi holding few enough bits
  that n*ln2_hi is exact, exp(r) by a polynomial (|r| <= ln2/2; f32: 1 + r + r**2 *
  Q(r), Q fitted; f64: Taylor), then
  exp(r) * 2**n1 * 2**n2 with n1 = n>>1, n2 = n-n1: each factor is a normal float
  built from exponent bits, and the last product rounds once, so results in the
  subnormal range are correctly scaled. x is clamped first to a range where the
  natural result is already inf (or 0), which also keeps the integer conversion
  defined. With ``scalef`` (the default on AVX-512 hosts) the scaling is one
  ``llvm.intr.ldexp(exp(r), n)`` instead, also rounding once: LLVM vectorizes it into
  ``vscalefps``/``vscalefpd``, one instruction for the eight of the bit construction
  (measured on a 2-core AVX-512 Xeon, 2 threads: the tanh chain on 16M float32
  8.2 -> 7.2 ms, row softmax 1.59 -> 1.45 ms). Without AVX-512 LLVM would call
  ``ldexpf`` per lane, so other hosts keep the bits. Vector-typed ops keep them too:
  the LLVM dialect's ldexp takes a scalar exponent only.
* log: scale subnormals by 2**p; split x = 2**e * m with m in [sqrt(1/2), sqrt(2))
  by subtracting the bits of sqrt(1/2); with f = m-1, s = f/(2+f), z = s*s:
  log(m) = 2*atanh(s) = f - f*f/2 + s*(f*f/2 + R(z)), R(z) = sum 2*z**k/(2k+1) (the
  atanh series; the rearrangement keeps the big term f exact), plus e*ln2 as hi+lo.
* tanh: for |x| < 0.625, x + x**3 * P(x*x) (P fitted, below); otherwise
  sign(x) * (1 - 2/(exp(2|x|)+1)) with the exp above and |x| clamped where tanh
  already rounds to 1.
* erf: for |x| < 1, x * P(x*x); otherwise 1 - exp(-x*x) * Q(x) where
  Q(x) = erfc(x)*exp(x*x) is smooth and fitted by a polynomial; |x| clamped to where
  erf(x) rounds to 1. f32: Q in x-2.5 on [1, 4]. f64: x + x * R(x*x) (the exact term
  first), Q of degree 29 on [1, 6] (Estrin), and exp(-x*x) with x*x split exactly into
  h + h_err by an FMA, as exp(-h) * (1 - h_err). Against mpmath on 27,000 points of
  [-6.5, 6.5]: max 1.15 ulp, mean 0.25 (glibc's erf: 0.85, 0.24). A libm ``erf`` call
  per element had stopped the loop vectorizer.

* pow, f32: exp(y * log|x|) in float64, rounded once to float32; log and exp each
  only as exact as that needs (``expand_pow_f32``): the result is finite only while
  |y * log x| is below about 104, so log to 2**-39 and exp to 2**-37 leave it within
  half a float32 ulp of the exact power and 0.004 more (correctly rounded but for 1 of
  240,000 random arguments; NumPy's own float32 power is an ulp off in about 15 %). y's integer and odd tests (``floor``) give
  the base's sign for odd integers and NaN for a finite negative base with a
  fractional exponent; y = 0, x = 1 and (|x| = 1, y = +-inf) give 1: C99's table. A
  scalar ``powf`` call per element had stopped the loop vectorizer (a gamma curve
  ``x ** g`` on a 1080x1920 float32 image: 2.8x slower than NumPy, which vectorizes
  its power).
* pow, f64: the same formula in double-double, since an error ``d`` in ``y * log|x|``
  is a relative error ``d`` in the power and ``|y * log|x||`` reaches 745: log|x| to
  about 2**-62 (``s = g / (2 + g)``, ``s**3`` and its product by 2/3 carried with FMA
  error terms), the product ``y * log|x|`` with its exact FMA error, and the
  exponential of that sum with its reduction carried too, ``1 + r`` by an exact
  TwoSum, rounded once at the end. Measured against glibc's ``pow`` on 240,000
  arguments (``test_expand_math.py``): at most 1 ulp, 0.015 ulp on average (NumPy's
  own float64 power: 0.047), exact powers exact (``3.0 ** 2.0``); the same C99 table.
  The long polynomials use Estrin's scheme (half the dependent chain). A libm ``pow``
  call per element had stopped the loop vectorizer: 2M elements 13.6 ms on 2 threads,
  now 4.9 ms (NumPy, which vectorizes its power with a table-based library, 4.5 ms on
  one thread; ours takes 9.7 on one).

Fitted coefficients (tanh, f32 erf) minimize the relative error in the least-squares
sense on 400 Chebyshev nodes of the interval, computed with mpmath at 50 digits
(``mpmath.qr_solve``); the f64 erf's are Chebyshev interpolants (near minimax) at 40
digits turned into monomials; the max relative error of each is noted beside it. The f32
exp's Q: least squares of the relative error on 4000 Chebyshev nodes in float64,
reweighted 30 times towards the largest errors (close to minimax).

* log1p, expm1, log2, sinh, cosh (f32, f64): from the exp and log above, each with its
  own care for the digits a plain composition loses (``log(1 + x)`` and ``exp(x) - 1``
  lose every digit for small |x|: NumPy's ``log1p(1e-8)`` is 1e-8 to the last bit,
  ``log(1 + 1e-8)`` 9.99999989e-09):
  log1p as ``log(u)`` of ``u = 1 + x`` with the rounding's error over ``u`` added into
  the log's low part (fdlibm's correction; Goldberg's ``log(u) * x / (u - 1)``, before
  it, rounded twice more: 2.4 ulp in float32, 1.9 in float64, now 0.78 and 0.83), expm1
  and sinh by Taylor series below 1 in magnitude, log2 with its integer part exact. They had been scalar libm calls, and
  NumPy's own (SIMD) loops ran 4-25x faster: float32 ``np.log1p`` of 1M elements 6.7
  against NumPy's 0.56 ms, ``np.sinh`` 9.3 against 0.37.
* cbrt: 1/cbrt guessed from the bits, three (f32) or four (f64) division-free Newton
  steps, then ``a * r * r`` and one Newton step for the root: 1 ulp (f64), 0.8 (f32);
  exact cubes exact (``np.cbrt(-27.0)`` is -3). It had been a libm call per element,
  8-25x slower than NumPy's loop.
* log10: float64 from log's reduction and parts, each product with 1/ln10 and log10(2)
  split so that its leading part is exact (fdlibm's split), so that ``log10(10**k)`` is
  ``k`` exactly (a plain ``log(x) * (1/ln10)`` misses 546 of the 609 powers of ten from
  1e-300 to 1e308); float32 likewise in float32. It had been a libm call (float64) and
  a computation in float64 (float32): ``np.log10`` ran at 0.27x and 0.32x NumPy's speed.
* asinh, acosh: one log of an argument the branches choose (``log1p`` of ``a + a*a / (1 +
  sqrt(1 + a*a))`` near 0, ``log(2a + ...)`` further, ``log(a) + ln2`` where ``a*a``
  would overflow): 1.6 ulp (float32), 1.4 (float64) at most. They had been libm calls,
  at 0.11x (float32) and 0.3x (float64) NumPy's speed; now about 1.1-1.4x and 1.2-1.6x.
* exp2: ``n = round(x)``, ``exp((x - n) ln2)`` by exp's polynomial with the product's
  error carried, scaled as exp is; integers exact. It had been a libm call, at 0.57x
  (float64) and 0.22x (float32) NumPy's speed; now 1.6x and 1.5x, within an ulp.
* atanh: ``log1p(2a / (1 - a)) / 2`` (below 1/2 ``log1p(2a + 2a*a / (1 - a))``): 1.6 ulp
  (float32), an ulp of the rounded result (float64); a libm call before, at 0.05x and
  0.15x NumPy's speed, now 1.1x and 1.4x.
* sin, cos, tan marked ``ember.small_argument`` (``ember-fast-paths``: every argument
  of the loop below 2**20), float32 and float64, in ``expand_trig``; unmarked float64
  ones stay libm calls.
* float remainders (``arith.remf``, C's fmod) marked likewise (every quotient below
  2**52, float32 2**23): from the truncated quotient by exact fused multiply-adds, the
  same bits as fmod; unmarked ones stay libm calls.

The circular functions (atan, atan2, asin, acos; sin, cos, tan) are in
``expand_trig.py``, and the arith builder every expansion shares (``Emitter``, the IEEE
format constants) in ``math_emitter.py``.
"""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass, field
from typing import Callable

from compiler.mlir import arith, collect, ir, llvm
from compiler.mlir import math as math_ops
from compiler.passes.base import EmberPass
from compiler.passes.expand_trig import (
    SMALL_ARGUMENT_ATTR,
    expand_acos,
    expand_acos_f32,
    expand_asin,
    expand_asin_f32,
    expand_atan,
    expand_atan2,
    expand_cos_f32,
    expand_cos_small,
    expand_sin_f32,
    expand_sin_small,
    expand_tan_f32,
    expand_tan_small,
)
from compiler.passes.math_emitter import Emitter, float_width, two_sum
from runtime.target import has_512_bit_vectors

# ----------------------------------------------------------------------------- coefficients

# exp(r) for |r| <= ln2/2, lowest degree first. f32: 1 + r + r**2 * Q(r) with Q of degree 4
# fitted (max rel. error 3.8e-9 with the coefficients rounded to float32; the Taylor
# polynomial of degree 7 it replaces, one fused multiply-add more, 7e-9); f64: Taylor
# terms 1/k! to degree 13 (truncation error 4e-18).
_EXP_POLY = {
    32: [
        1.0,
        1.0,
        0.4999999403953552,
        0.1666652113199234,
        0.04166838526725769,
        0.008368710987269878,
        0.0013814662816002965,
    ],
    64: [1.0 / pymath.factorial(k) for k in range(14)],
}
# float32 pow's parts in float64 (expand_pow_f32), to about 2**-39 of log|x| and 2**-37
# of exp: the series of log to z**6 (truncation z**7 / 15 <= 2**-39.5 of log(m)), exp's
# Taylor terms to r**9 (r**10 / 10! <= 2**-37)
_LOG_ATANH_POW_F32 = [2.0 / (2 * k + 1) for k in range(1, 7)]
_EXP_POLY_POW_F32 = [1.0 / pymath.factorial(k) for k in range(10)]
# (exp(r) - 1 - r) / r**2 for the f64 pow's exponential: terms to r**17/17! (|r| <= ln2/2:
# the rest below 2**-64).
_EXP_TAYLOR_LONG = [1.0 / pymath.factorial(k) for k in range(2, 18)]

# atanh series of log: R(z) = sum_{k>=1} 2 z**k / (2k+1), z = s*s <= 0.0295.
# Truncation error relative to log(m): 2e-9 (f32, k<=4), 2e-17 (f64, k<=9).
_LOG_ATANH = {32: [2.0 / (2 * k + 1) for k in range(1, 5)], 64: [2.0 / (2 * k + 1) for k in range(1, 10)]}
# Q(z) of the double-double log of the f64 pow, log(m) = 2s + (2/3)s**3 + s**5 Q(s*s):
# terms to z**12 (z <= 0.0295), the rest below 2**-64 of log(m). 2/3 as hi + lo.
_LOG_ATANH_LONG = [2.0 / (2 * k + 1) for k in range(2, 13)]
_TWO_THIRDS = (2.0 / 3.0, 3.700743415417188e-17)

# 1/ln2 as hi + lo, each rounded to the format
_INV_LN2 = {32: (1.4426950216293335, 1.925963033500011e-08), 64: (1.4426950408889634, 2.0355273740931033e-17)}
# asinh, acosh: above the first, log(2|x|) (x*x would overflow, the rest is below an
# ulp); below the second asinh is x
_HYPERBOLIC_LIMITS = {32: (2.0**12, 2.0**-12), 64: (2.0**28, 2.0**-28)}
# ln 2 as hi + lo, each rounded to the format (exp2's t ln2)
_LN2 = {32: (0.6931471824645996, -1.9046542121259336e-09), 64: (0.6931471805599453, 2.3190468138462996e-17)}
# log10's parts (expand_log10): 1/ln10 cut to 32 (float32: 12) significant bits and the
# rest, log10(2) cut to 40 (16) and the rest; the mask keeping a float's 21 (12) leading
# bits, so that their products are exact
_LOG10_PARTS = {
    64: (0.4342944818781689, 2.5082946711645275e-11, 0.30102999566361177, 3.694239077158931e-13),
    32: (0.4342041015625, 9.038033749675378e-05, 0.301025390625, 4.605039066518657e-06),
}
_LEADING_BITS = {64: -(1 << 32), 32: -(1 << 12)}
# expm1 = x + x*x * P(x) below 1: Taylor terms until the first left out is under 2**-28 resp. 2**-60
_EXPM1_TAYLOR = {bits: [1.0 / pymath.factorial(k) for k in range(2, last)] for bits, last in ((32, 12), (64, 20))}
# sinh = x + x**3 * P(x*x) below 1, likewise
_SINH_TAYLOR = {bits: [1.0 / pymath.factorial(k) for k in range(3, last, 2)] for bits, last in ((32, 12), (64, 22))}
# where exp is still finite; sinh and cosh are up to about 89.4 resp. 710.47
_HYPERBOLIC_EXP_LIMIT = {32: 88.0, 64: 709.0}
# cbrt: a first guess of a**(-1/3) from the bits of a (K - bits/3; f64: its high 32
# bits; K the constant whose guess is worst, 3.4 resp. 3.7 %, least over [1, 8): our own
# search), three resp. four Newton steps for 1/cbrt (no division), then a * r * r and
# one Newton step for cbrt
_CBRT_K = {32: 0x54A23300, 64: 0x553EFEEF}  # f64: the high word's
_CBRT_STEPS = {32: 3, 64: 4}
_CBRT_SCALE = {32: 24, 64: 54}  # subnormals times 2**this (a multiple of 3)
# tanh(x) = x + x**3 * P(x*x) on |x| <= 0.625 (fit; max rel. error 4.6e-9 / 1.1e-17).
_TANH_SMALL = {
    32: [-0.3333328521960245, 0.13331512665829803, -0.05374465795903646, 0.020653124681708542, -0.005718962726874719],
    64: [
        -0.3333333333333293,
        0.1333333333327011,
        -0.05396825393437368,
        0.021869487637090432,
        -0.008863221701817317,
        0.003591994186756833,
        -0.001454982045517612,
        0.0005863855612279529,
        -0.0002286922924029597,
        7.727904980814694e-05,
        -1.6133873070913687e-05,
    ],
}
_TANH_SMALL_LIMIT = 0.625
# tanh(x) rounds to 1 beyond these (2*exp(-2x) below half an ulp of 1).
_TANH_SATURATE = {32: 10.0, 64: 20.0}

# erf(x) = x * P(x*x) on |x| <= 1 (fit; max rel. error 1.4e-9).
_ERF_SMALL_F32 = [
    1.1283791665100473,
    -0.37612628843314244,
    0.11283612428168437,
    -0.026854808534834983,
    0.005190053574128705,
    -0.0008024354100643322,
    7.898210124667817e-05,
]
# erfc(x) * exp(x*x) = Q(x - 2.5) on 1 <= x <= 4 (fit; max rel. error 6.4e-8 with
# the coefficients rounded to f32; sum |c_k| 1.5**k equals Q(1), so Horner is stable).
_ERFC_CENTER = 2.5
_ERFC_Q_F32 = [
    0.21080635884277243,
    -0.07434736051141586,
    0.024938173437969877,
    -0.008001474768662527,
    0.002466092840389953,
    -0.0007337129757150332,
    0.00021283205477688134,
    -5.894270747049747e-05,
    1.4425777468305393e-05,
    -4.009343094875807e-06,
    1.6588418352341738e-06,
    -3.8357987565367393e-07,
]
_ERF_ONE = 4.0  # erfc(4) = 1.5e-8 < half an ulp of 1 in f32

# f64, erf(x) = x + x * R(x*x) on |x| <= 1: the exact term x first, so R's error
# reaches the result scaled by |R / (1 + R)| <= 0.19. R is the degree-11 Chebyshev
# interpolant of erf(x)/x - 1 on x*x in [0, 1] (mpmath, 40 digits) in monomials; max
# rel. error of erf(x)/x 4.4e-17 with the coefficients rounded to f64.
_ERF_SMALL_F64 = [
    0.12837916709551256,
    -0.37612638903183543,
    0.11283791670945006,
    -0.02686617064323777,
    0.0052239776071164225,
    -0.0008548325975389692,
    0.00012055294904839707,
    -1.492473690741966e-05,
    1.6447424703317362e-06,
    -1.6208483801871705e-07,
    1.3720064546777686e-08,
    -7.795898827002142e-10,
]
# f64, erfc(x) * exp(x*x) = Q((x - 3.5) / 2.5) on 1 <= x <= 6: the degree-29 Chebyshev
# interpolant (mpmath, 40 digits) in monomials of t in [-1, 1]; max rel. error 1.0e-16
# with the coefficients rounded to f64. The coefficients alternate in sign, so at x = 1
# (t = -1) every term adds: no cancellation where erfc is largest (0.157 of the result).
_ERFC_T_CENTER, _ERFC_T_SCALE = 3.5, 0.4
_ERFC_Q_F64 = [
    0.1552936556088943,
    -0.10330894458313124,
    0.0666320824531906,
    -0.04176678811943188,
    0.025495559643743348,
    -0.015182511545620832,
    0.00883342391529903,
    -0.005028067968654204,
    0.0028033262034199737,
    -0.001532515711226679,
    0.0008222550987233205,
    -0.00043336170490803185,
    0.00022453088978866036,
    -0.00011444247762230747,
    5.741680994974455e-05,
    -2.8376281485934893e-05,
    1.3832421918659423e-05,
    -6.6422186210437495e-06,
    3.1225510221476298e-06,
    -1.4615385561115369e-06,
    7.117053416590745e-07,
    -3.227264363656852e-07,
    1.0532664214626851e-07,
    -4.841629944913183e-08,
    5.158307441554354e-08,
    -2.1641342219954443e-08,
    -5.788800082379115e-09,
    2.203648393927714e-09,
    3.555964753024834e-09,
    -1.4479464300262855e-09,
]
_ERF_ONE_F64 = 6.0  # erfc(6) = 2.2e-17 < half an ulp below 1 in f64


# ----------------------------------------------------------------------------- functions


def _exp_reduction(e: Emitter, x, nan_through: bool = False, base2: bool = False):
    """``(below, xc, n, shifted)``: where exp rounds to 0, ``x`` clamped to where exp is
    finite and not 0, ``n = round(xc * log2(e))`` (``exp(x) = 2**n * exp(xc - n ln2)``),
    and ``shifted = xc * log2(e) + round_magic``, whose low bits hold ``n`` as an integer;
    with ``base2`` the same for exp2 (its bounds are exp's over ln 2, ``n = round(xc)``).

    Where exp rounds to 0 (a masked -inf score), exp(0) is computed and 0 selected: scaling
    down into the subnormals costs a microcode assist per instruction on x86, and a
    causal softmax's masked half ran 6x slower than its unmasked half. A NaN goes to
    exp_hi (callers put it back), or with ``nan_through`` stays a NaN through the clamp."""
    f = e.fmt
    lo, hi = (f.exp_lo / pymath.log(2.0), f.exp_hi / pymath.log(2.0)) if base2 else (f.exp_lo, f.exp_hi)
    below = e.cmp("OLT", x, e.c(lo))
    # only the upper bound: what is below lo is 0 already; one vector instruction
    # less than a two-sided clamp
    kept = e.select(below, e.c(0.0), x)
    xc = e.upper_clamp_keeping_nan(kept, hi) if nan_through else e.upper_clamp(kept, hi)
    shifted = e.add(xc, e.c(f.round_magic)) if base2 else e.fma(xc, e.c(1.0 / pymath.log(2.0)), e.c(f.round_magic))
    return below, xc, e.sub(shifted, e.c(f.round_magic)), shifted


def expand_exp(e: Emitter, x, keep_nan: bool = True, poly=None):
    """With ``scalef`` a NaN runs through (the clamp keeps it, the polynomial and the
    scaling give NaN, and the exponent comes from ``shifted``'s bits, defined for any
    input, where ``fptosi`` of a NaN would be poison): no compare and select to put it
    back, and an integer subtraction instead of a conversion for the exponent: exp of
    1M float32 135.7 -> 122 us, float64 437 -> 400 us (2 threads, Zen 4)."""
    f = e.fmt
    nan_through = keep_nan and e.scalef
    below, xc, n, shifted = _exp_reduction(e, x, nan_through)
    r = e.fma(n, e.c(-f.ln2_hi), xc)  # exact
    r = e.fma(n, e.c(-f.ln2_lo), r)
    p = e.horner(r, _EXP_POLY[f.bits] if poly is None else poly)
    y = e.select(below, e.c(0.0), _scaled(e, p, n, shifted))
    return e.keep_nan(x, y) if keep_nan and not nan_through else y


def expand_exp2(e: Emitter, x):
    """``2**n * exp(t ln2)`` with ``n = round(x)`` and ``t = x - n`` (exact, |t| <= 1/2):
    ``t ln2`` carried in two parts (an FMA gives the product's error), exp's polynomial on
    the leading one and ``p * (1 + r_lo)`` for the rest, scaled as exp is. An integer
    ``x`` gives its power of two exactly (``t`` is 0), as ``np.exp2(3)`` must be 8. It
    had been a libm call: ``np.exp2`` of 1M elements ran at 0.57x (float64) and 0.22x
    (float32) NumPy's speed, now 1.6x and 1.5x; within an ulp of the rounded result."""
    f = e.fmt
    nan_through = e.scalef
    below, xc, n, shifted = _exp_reduction(e, x, nan_through, base2=True)
    t = arith.subf(xc, n)  # exact
    ln2_hi, ln2_lo = _LN2[f.bits]
    r = arith.mulf(t, e.c(ln2_hi))  # not contracted: r_lo holds its error
    r_lo = e.add(math_ops.fma(t, e.c(ln2_hi), arith.negf(r)), e.mul(t, e.c(ln2_lo)))
    p = e.horner(r, _EXP_POLY[f.bits])
    p = e.fma(p, r_lo, p)
    y = e.select(below, e.c(0.0), _scaled(e, p, n, shifted))
    return y if nan_through else e.keep_nan(x, y)


def _log_reduction(e: Emitter, x, subnormals: bool = True):
    """``(ek, g)`` with ``x = 2**ek * (1 + g)`` and ``1 + g`` in [sqrt(1/2), sqrt(2)):
    subnormals scaled by 2**p first (unless ``x`` cannot be one: a float32 in float64),
    the exponent and mantissa split from the bits by subtracting those of sqrt(1/2);
    ``g`` is exact."""
    f = e.fmt
    tiny = e.cmp("OLT", x, e.c(f.min_normal)) if subnormals else None
    if tiny is not None:
        x = e.select(tiny, e.mul(x, e.c(2.0**f.mantissa)), x)
    bits = e.to_bits(x)
    k = arith.shrsi(arith.subi(bits, e.i(f.sqrt_half_bits)), e.i(f.mantissa))
    m = e.from_bits(arith.subi(bits, arith.shli(k, e.i(f.mantissa))))
    if tiny is not None:
        k = arith.subi(k, e.select(tiny, e.i(f.mantissa), e.i(0)))
    return arith.sitofp(e.type, k), e.sub(m, e.c(1.0))


def _log_parts(e: Emitter, g):
    """``(s, hfsq + R)`` of ``log(1 + g) = g - hfsq + s * (hfsq + R)`` (module doc)."""
    s = e.div(g, e.add(g, e.c(2.0)))
    z = e.mul(s, s)
    big_r = e.mul(z, e.horner(z, _LOG_ATANH[e.fmt.bits]))
    hfsq = e.mul(e.mul(g, g), e.c(0.5))
    return s, hfsq, e.add(hfsq, big_r)


def _log_special_values(e: Emitter, x, y):
    """log's answers at +inf (inf), +-0 (-inf), below 0 (NaN) and NaN (the NaN)."""
    y = e.select(e.cmp("OEQ", x, e.c(pymath.inf)), x, y)
    y = e.select(e.cmp("OEQ", x, e.c(0.0)), e.c(-pymath.inf), y)
    y = e.select(e.cmp("OLT", x, e.c(0.0)), e.c(pymath.nan), y)
    return e.keep_nan(x, y)


def expand_log(e: Emitter, x, correction=None):
    """``log(x)``; with ``correction``, ``log(x) + correction`` for a correction below
    an ulp of the result's scale (log1p's ``err / u``), added into the low part before
    the one final rounding."""
    f = e.fmt
    ek, g = _log_reduction(e, x)
    s, hfsq, tail = _log_parts(e, g)
    lo = e.fma(s, tail, e.mul(ek, e.c(f.ln2_lo)))
    if correction is not None:
        lo = e.add(lo, correction)
    y = e.sub(e.mul(ek, e.c(f.ln2_hi)), e.sub(e.sub(hfsq, lo), g))
    return _log_special_values(e, x, y)


def expand_log2(e: Emitter, x):
    """``ek + log(1 + g) / ln2``, the integer part exact (``log2(2**k)`` is ``k``
    exactly, as users who take ``int(np.log2(n))`` rely on), the fraction's product by
    ``1/ln2`` carried in two parts."""
    ek, g = _log_reduction(e, x)
    s, hfsq, tail = _log_parts(e, g)
    lm = e.sub(g, e.sub(hfsq, e.mul(s, tail)))
    frac = e.fma(lm, e.c(_INV_LN2[e.fmt.bits][0]), e.mul(lm, e.c(_INV_LN2[e.fmt.bits][1])))
    return _log_special_values(e, x, e.add(ek, frac))


def _one_plus(e: Emitter, v):
    """``(u, err / u)`` for ``u = fl(1 + v)`` and ``1 + v = u + err`` exactly (TwoSum):
    ``log(1 + v) = log(u) + err / u`` to far below an ulp, since ``err`` is below half an
    ulp of ``u``."""
    u, err = two_sum(v, e.c(1.0))
    return u, e.div(err, u)


def expand_log1p(e: Emitter, x):
    """``log(u)`` of ``u = 1 + x`` rounded, with the rounding's error corrected in the
    log's low part (``_one_plus``; fdlibm's log1p does the same): the result
    keeps ``x``'s digits where ``u`` is 1 (``log1p(1e-20)`` is 1e-20) and is within
    about an ulp elsewhere (Goldberg's ``log(u) * x / (u - 1)``, which this replaced,
    rounded twice more: 2.5 ulp in float32). ``+-0`` -> ``+-0``; +inf is +inf."""
    u, correction = _one_plus(e, x)
    y = expand_log(e, u, correction=correction)
    return e.select(e.cmp("OEQ", x, e.c(0.0)), x, y)


def _log1p_or_log(e: Emitter, near, v, u):
    """``log1p(v)`` where ``near`` (as ``expand_log1p``), else ``log(u)``: one log for
    both, no rounding of ``u`` less 1 then 1 added back."""
    w, correction = _one_plus(e, v)
    return expand_log(e, e.select(near, w, u), correction=e.select(near, correction, e.c(0.0)))


def expand_asinh(e: Emitter, x):
    """For ``a = |x|``: ``log1p(a + a*a / (1 + sqrt(1 + a*a)))`` up to 2, ``log(2a + 1 /
    (a + sqrt(a*a + 1)))`` up to 2**28, ``log(a) + ln2`` above (where ``a*a`` may
    overflow), ``a`` below 2**-28 (float32: 2**12, 2**-12); x's sign. One log: the
    branches choose its argument."""
    a = e.abs(x)
    big, tiny = _HYPERBOLIC_LIMITS[e.fmt.bits]
    aa = e.mul(a, a)
    root = math_ops.sqrt(e.add(aa, e.c(1.0)))
    small = e.add(a, e.div(aa, e.add(e.c(1.0), root)))
    middle = e.add(e.add(a, a), e.div(e.c(1.0), e.add(a, root)))
    y = _log1p_or_log(e, e.cmp("OLE", a, e.c(2.0)), small, e.select(e.cmp("OLE", a, e.c(big)), middle, a))
    y = e.select(e.cmp("OGT", a, e.c(big)), e.add(y, e.c(pymath.log(2.0))), y)
    y = e.select(e.cmp("OLT", a, e.c(tiny)), a, y)
    return e.keep_nan(x, e.copysign(y, x))


def expand_acosh(e: Emitter, x):
    """``log1p(t + sqrt(2t + t*t))`` for ``t = x - 1`` up to ``x = 2``, ``log(2x - 1 / (x
    + sqrt(x*x - 1)))`` up to 2**28 (float32: 2**12), ``log(x) + ln2`` above; NaN below
    1. One log: the branches choose its argument."""
    big, _ = _HYPERBOLIC_LIMITS[e.fmt.bits]
    t = e.sub(x, e.c(1.0))
    small = e.add(t, math_ops.sqrt(e.fma(t, t, e.add(t, t))))
    middle = e.sub(e.add(x, x), e.div(e.c(1.0), e.add(x, math_ops.sqrt(e.fma(x, x, e.c(-1.0))))))
    y = _log1p_or_log(e, e.cmp("OLE", x, e.c(2.0)), small, e.select(e.cmp("OLE", x, e.c(big)), middle, x))
    y = e.select(e.cmp("OGT", x, e.c(big)), e.add(y, e.c(pymath.log(2.0))), y)
    y = e.select(e.cmp("OLT", x, e.c(1.0)), e.c(pymath.nan), y)
    return e.keep_nan(x, y)


def expand_atanh(e: Emitter, x):
    """``log1p(2a / (1 - a)) / 2`` for ``a = |x|``, with x's sign; below 1/2 the argument
    is ``t + t*a / (1 - a)`` for ``t = 2a`` (exact), so the roundings of ``1 - a`` and
    the quotient touch only its smaller term (fdlibm's split). ``+-1`` -> ``+-inf``, NaN
    past 1 (``log1p`` of a number below -1), ``+-0`` -> ``+-0``, tiny arguments keep
    their digits (``log1p``'s own). It had been a libm call, at 0.05x (float32) and 0.15x
    (float64) NumPy's speed."""
    a = e.abs(x)
    t = e.add(a, a)
    one_less = e.sub(e.c(1.0), a)
    small = e.add(t, e.div(e.mul(t, a), one_less))
    arg = e.select(e.cmp("OLT", a, e.c(0.5)), small, e.div(t, one_less))
    y = e.mul(expand_log1p(e, arg), e.c(0.5))
    return e.keep_nan(x, e.copysign(y, x))


def expand_expm1(e: Emitter, x):
    """below 1 in magnitude the Taylor series ``x + x*x * P(x)`` (terms to x**19: the
    first left out is under 2**-60 of the result), Estrin; from 1 on ``exp(x) - 1``, which
    loses at most about 1.6 ulp to the subtraction there. -0.0 stays -0.0."""
    small = e.fma(e.mul(x, x), e.estrin(x, _EXPM1_TAYLOR[e.fmt.bits]), x)
    large = e.sub(expand_exp(e, x, keep_nan=False), e.c(1.0))
    y = e.select(e.cmp("OLT", e.abs(x), e.c(1.0)), small, large)
    y = e.select(e.cmp("OEQ", x, e.c(0.0)), x, y)
    return e.keep_nan(x, y)


def _exp_of_magnitude(e: Emitter, a):
    """``(ea, big, half_big)``: ``exp(a)`` for ``a`` up to ``_HYPERBOLIC_EXP_LIMIT`` (where
    it is finite), ``big`` where ``a`` is past it, and for those larger ``a`` (where
    ``sinh`` and ``cosh`` are still finite) ``exp(a) / 2`` as ``(exp(a/2) / 2) * exp(a/2)``."""
    big = e.cmp("OGT", a, e.c(_HYPERBOLIC_EXP_LIMIT[e.fmt.bits]))
    ea = expand_exp(e, e.select(big, e.c(0.0), a), keep_nan=False)
    h = expand_exp(e, e.mul(a, e.c(0.5)), keep_nan=False)
    return ea, big, e.mul(e.mul(h, e.c(0.5)), h)


def expand_sinh(e: Emitter, x):
    """below 1 in magnitude ``x + x**3 * P(x*x)`` (odd Taylor terms to x**21);
    above, ``(exp|x| - 1/exp|x|) / 2`` with x's sign (at most about 1.3 ulp lost to the
    subtraction, at 1)."""
    a = e.abs(x)
    z = e.mul(x, x)
    small = e.fma(e.mul(x, z), e.estrin(z, _SINH_TAYLOR[e.fmt.bits]), x)
    ea, big, half_big = _exp_of_magnitude(e, a)
    large = e.sub(e.mul(ea, e.c(0.5)), e.div(e.c(0.5), ea))
    large = e.copysign(e.select(big, half_big, large), x)
    return e.keep_nan(x, e.select(e.cmp("OLT", a, e.c(1.0)), small, large))


def expand_cosh(e: Emitter, x):
    """``(exp|x| + 1/exp|x|) / 2``: no cancellation."""
    ea, big, half_big = _exp_of_magnitude(e, e.abs(x))
    y = e.add(e.mul(ea, e.c(0.5)), e.div(e.c(0.5), ea))
    return e.keep_nan(x, e.select(big, half_big, y))


def expand_cbrt(e: Emitter, x):
    """``|x|**(1/3)`` with x's sign; subnormals scaled up first (and the root back after),
    0 and inf kept, NaN through."""
    f = e.fmt
    bits = f.bits
    a = e.abs(x)
    tiny = e.cmp("OLT", a, e.c(f.min_normal))
    s = e.select(tiny, e.mul(a, e.c(2.0 ** _CBRT_SCALE[bits])), a)
    high = e.to_bits(s) if bits == 32 else arith.trunci(e.word_type, arith.shrui(e.to_bits(s), e.i(32)))
    guess = arith.subi(e.word(_CBRT_K[bits]), arith.divui(high, e.word(3)))
    r = e.from_bits(guess if bits == 32 else arith.shli(arith.extui(e.int_type, guess), e.i(32)))
    for _ in range(_CBRT_STEPS[bits]):  # r * (4 - s*r**3) / 3, s*r first: r**3 alone underflows for large s
        r = e.mul(e.mul(r, e.sub(e.c(4.0), e.mul(e.mul(e.mul(s, r), r), r))), e.c(1.0 / 3.0))
    y = e.mul(e.mul(s, r), r)
    y2 = e.mul(y, y)
    y = e.sub(y, e.div(math_ops.fma(y2, y, arith.negf(s)), e.mul(y2, e.c(3.0))))
    y = e.select(tiny, e.mul(y, e.c(2.0 ** -(_CBRT_SCALE[bits] // 3))), y)
    y = e.select(arith.ori(e.cmp("OEQ", a, e.c(0.0)), e.cmp("OEQ", a, e.c(pymath.inf))), a, y)
    return e.keep_nan(x, e.copysign(y, x))


def expand_log10(e: Emitter, x):
    """``k log10(2) + log(1 + g) / ln10`` with ``x = 2**k (1 + g)`` (``_log_reduction``)
    and ``log(1 + g) = g - hfsq + s (hfsq + R)`` (``_log_parts``), the terms in parts
    whose products are exact: ``hi``, ``g - hfsq`` cut to 21 significant bits, times
    1/ln10 cut to 32, and ``k`` times log10(2) cut to 40; what is left of each, and
    the rounding of their sum (Fast2Sum), added last. 0.71 ulp of the exact value at
    most over 55k points (mpmath; glibc's is 1.5 ulp off at some), and ``log10(10**k)``
    is ``k`` exactly for every power of ten a double holds (where ``log(x) * (1/ln10)``
    gives 2.9999999999999996 for 1000), as code taking ``floor(np.log10(x))`` for a
    number's digits relies on. The split is fdlibm's; the double-double log (pow's) gave
    the same answers at half the speed. float32 likewise in float32 (cut to 12, 12 and
    16 bits): 0.66 ulp at most over every 97th float32, the powers of ten up to 1e10
    exact (in float64 and rounded once it had been 2x slower). ``+-0`` -> -inf, inf ->
    inf, below 0 -> NaN. 1M elements, 2 threads, against NumPy's speed: float64 0.27x
    (the libm call) -> 1.24x, float32 0.32x -> 0.66x (NumPy's float32 log10 is faster
    than its log)."""
    ek, g = _log_reduction(e, x)
    s, hfsq, tail = _log_parts(e, g)
    hi = e.from_bits(arith.andi(e.to_bits(e.sub(g, hfsq)), e.i(_LEADING_BITS[e.fmt.bits])))
    lo = e.add(e.sub(e.sub(g, hi), hfsq), e.mul(s, tail))
    iv_hi, iv_lo, l2_hi, l2_lo = (e.c(v) for v in _LOG10_PARTS[e.fmt.bits])
    val_hi = arith.mulf(hi, iv_hi)  # exact
    k_hi = arith.mulf(ek, l2_hi)  # exact
    val_lo = e.add(e.add(e.mul(ek, l2_lo), e.mul(e.add(lo, hi), iv_lo)), e.mul(lo, iv_hi))
    w = arith.addf(k_hi, val_hi)
    val_lo = e.add(val_lo, arith.addf(arith.subf(k_hi, w), val_hi))  # the sum's rounding
    return _log_special_values(e, x, e.add(val_lo, w))


def _c99_pow_table(d: Emitter, x, y, r):
    """``r``, the power of ``|x|``, with C99's table for ``pow(x, y)`` applied: the base's
    sign for odd integer exponents (``+-inf`` count as even integers, NaN as none), NaN
    for a finite negative base with a fractional exponent, and 1 for ``y = 0``, ``x = 1``
    and ``|x| = 1`` with ``y = +-inf``, whatever the other is."""
    ax = d.abs(x)
    floor_y = math_ops.floor(y)
    half = d.mul(y, d.c(0.5))
    odd = arith.andi(d.cmp("OEQ", floor_y, y), d.cmp("ONE", math_ops.floor(half), half))
    negative = d.cmp("OLT", d.copysign(d.c(1.0), x), d.c(0.0))  # -0.0 included
    r = d.select(arith.andi(negative, odd), arith.negf(r), r)
    finite_negative = arith.andi(d.cmp("OLT", x, d.c(0.0)), d.cmp("ONE", ax, d.c(pymath.inf)))
    r = d.select(arith.andi(finite_negative, d.cmp("UNE", floor_y, y)), d.c(pymath.nan), r)
    one_to_inf = arith.andi(d.cmp("OEQ", ax, d.c(1.0)), d.cmp("OEQ", d.abs(y), d.c(pymath.inf)))
    one = arith.ori(arith.ori(d.cmp("OEQ", y, d.c(0.0)), d.cmp("OEQ", x, d.c(1.0))), one_to_inf)
    return d.select(one, d.c(1.0), r)


def expand_pow_f32(e: Emitter, x, y):
    """powf(x, y) as exp(y * log|x|) in double precision, rounded once to float32, each
    part only as exact as a float32 result needs: ``|y log|x||`` is below 104 wherever
    the power is a float32 other than 0 or inf, so log to 2**-39 of its value and exp to
    2**-37 leave the double within 2**-32 of the power, 0.004 of a float32 ulp. The
    log's series has 6 terms (float64 log: 9), no subnormal scaling (a float32 is a
    normal double) and one select for 0, inf and NaN; exp's polynomial degree 9 (13).
    1M float32 ``x ** (1/2.2)``, one thread: 2.72 -> 1.89 ms (NumPy 1.20)."""
    d = e.double()
    xd, yd = arith.extf(d.type, x), arith.extf(d.type, y)
    ax = d.abs(xd)
    ek, g = _log_reduction(d, ax, subnormals=False)
    s = d.div(g, d.add(g, d.c(2.0)))  # log(1 + g) = 2s + s**3 Q(s*s)
    z = d.mul(s, s)
    log_x = d.fma(ek, d.c(pymath.log(2.0)), d.fma(d.mul(s, z), d.horner(z, _LOG_ATANH_POW_F32), d.mul(s, d.c(2.0))))
    ordinary = arith.andi(d.cmp("OGT", ax, d.c(0.0)), d.cmp("OLT", ax, d.c(pymath.inf)))
    log_x = d.select(ordinary, log_x, d.select(d.cmp("OEQ", ax, d.c(0.0)), d.c(-pymath.inf), ax))
    r = expand_exp(d, d.mul(yd, log_x), poly=_EXP_POLY_POW_F32)
    return arith.truncf(e.type, _c99_pow_table(d, xd, yd, r))


def _log_double_double(e: Emitter, x):
    """``log(x)`` of a positive ``x`` as ``hi + lo`` to about 2**-62 relative (+-inf, NaN
    for 0, inf, NaN in ``hi``; ``lo`` 0 there). The reduction is ``_log_reduction``; then
    ``s = g / (2 + g)`` is carried to double-double (the quotient's exact residual by an
    FMA), and ``log(m) = 2s + (2/3) s**3 + s**5 * Q(s*s)`` with ``s**3`` and its product
    by 2/3 also carried (FMA error terms): the cubic term is up to 1 % of ``log(m)``, and
    rounded once it alone cost 2**-58, where ``e * ln2`` nearly cancels ``log(m)``."""
    f = e.fmt
    ek, g = _log_reduction(e, x)
    d = arith.addf(g, e.c(2.0))
    d_lo = arith.addf(arith.subf(e.c(2.0), d), g)  # exact: |g| < 2
    inverse = arith.divf(e.c(1.0), d)  # one division: s and its correction multiply by it
    s = arith.mulf(g, inverse)
    residual = math_ops.fma(arith.negf(s), d, g)  # exact: g - s * d (s is within 2 ulp of g / d)
    s_lo = arith.mulf(arith.subf(residual, arith.mulf(s, d_lo)), inverse)
    z = arith.mulf(s, s)
    z_lo = arith.addf(math_ops.fma(s, s, arith.negf(z)), arith.mulf(arith.mulf(s, s_lo), e.c(2.0)))
    t = arith.mulf(s, z)  # s**3 = t + t_lo
    t_lo = arith.addf(math_ops.fma(s, z, arith.negf(t)), arith.addf(arith.mulf(s, z_lo), arith.mulf(s_lo, z)))
    cubic = arith.mulf(t, e.c(_TWO_THIRDS[0]))
    cubic_lo = math_ops.fma(t, e.c(_TWO_THIRDS[0]), arith.negf(cubic))
    tail = e.mul(e.mul(t, z), e.estrin(z, _LOG_ATANH_LONG))
    small = e.add(e.add(cubic_lo, e.mul(t_lo, e.c(_TWO_THIRDS[0]))), e.mul(t, e.c(_TWO_THIRDS[1])))
    small = e.add(e.add(small, tail), e.mul(s_lo, e.c(2.0)))
    h, h_err = two_sum(arith.mulf(ek, e.c(f.ln2_hi)), arith.mulf(s, e.c(2.0)))  # both products exact
    h, h_err2 = two_sum(h, cubic)
    lo = arith.addf(arith.addf(arith.addf(h_err, h_err2), small), arith.mulf(ek, e.c(f.ln2_lo)))
    hi = arith.addf(h, lo)
    lo = arith.subf(lo, arith.subf(hi, h))  # |h| >= |lo|: Fast2Sum
    hi = e.select(e.cmp("OEQ", x, e.c(0.0)), e.c(-pymath.inf), hi)
    hi = e.select(e.cmp("OEQ", x, e.c(pymath.inf)), x, hi)
    hi = e.keep_nan(x, hi)
    return hi, e.select(e.cmp("OLT", e.abs(hi), e.c(pymath.inf)), lo, e.c(0.0))


def _scaled(e: Emitter, p, n, shifted):
    """``p * 2**n`` rounded once, also into the subnormals (``expand_exp``'s scaling);
    with scalef the integer ``n`` is ``shifted``'s bits less round_magic's (defined for
    a NaN, where ``fptosi`` would be poison)."""
    if e.scalef:
        magic = e.to_bits(e.c(e.fmt.round_magic))
        exponent = arith.subi(e.to_bits(shifted), magic)
        if e.fmt.bits != 32:
            exponent = arith.trunci(e.exponent_type, exponent)
        return llvm.intr_ldexp(e.type, p, exponent)
    ni = arith.fptosi(e.int_type, n)
    n1 = arith.shrsi(ni, e.i(1))
    n2 = arith.subi(ni, n1)
    return e.mul(e.mul(p, e.pow2(n1)), e.pow2(n2))


def _exp_double_double(e: Emitter, x, x_lo):
    """``exp(x + x_lo)`` for a small ``x_lo``, rounded once (about 0.05 ulp before it):
    ``_exp_reduction`` carried to double-double (``n * ln2_lo`` reaches 2e-7,
    and its square alone was 80 ulp), then ``1 + r`` by an exact TwoSum and everything
    smaller (``r**2 P(r)``, and ``exp(r)`` times what is left of the reduced argument)
    added to its error term."""
    f = e.fmt
    below, xc, n, shifted = _exp_reduction(e, x)
    r, r_err = two_sum(math_ops.fma(n, e.c(-f.ln2_hi), xc), arith.mulf(n, e.c(-f.ln2_lo)))  # the fma is exact
    correction = arith.addf(r_err, x_lo)  # below 2**-43: its square is negligible
    square = e.mul(e.mul(r, r), e.estrin(r, _EXP_TAYLOR_LONG))  # exp(r) - 1 - r
    rest = e.add(square, e.fma(correction, e.add(r, square), correction))  # + correction * exp(r)
    h, h_err = two_sum(e.c(1.0), r)
    y = _scaled(e, arith.addf(h, arith.addf(h_err, rest)), n, shifted)
    return e.keep_nan(x, e.select(below, e.c(0.0), y))


def expand_pow_f64(e: Emitter, x, y):
    """pow(x, y) as exp(y * log|x|) with the product in double-double: ``p + p_lo`` where
    ``p = fl(y * hi)`` and ``p_lo`` is its exact error (an FMA) plus ``y * lo``, and the
    exponential of that sum rounded once. An error of ``d`` in ``y * log|x|`` is a
    relative error ``d`` in the power, and ``|y * log|x||`` reaches 745 before the power
    under- or overflows: double precision alone there is 2**-43 off, hundreds of ulp; and
    an exact power (``3.0 ** 2.0``) comes out exact."""
    hi, lo = _log_double_double(e, e.abs(x))
    p = arith.mulf(y, hi)
    p_lo = arith.addf(math_ops.fma(y, hi, arith.negf(p)), arith.mulf(y, lo))
    p_lo = e.select(e.cmp("OLT", e.abs(p), e.c(746.0)), p_lo, e.c(0.0))  # 0 for inf, NaN
    return _c99_pow_table(e, x, y, _exp_double_double(e, p, p_lo))


def expand_tanh(e: Emitter, x):
    f = e.fmt
    a = e.abs(x)
    z = e.mul(x, x)
    small = e.fma(e.mul(x, z), e.horner(z, _TANH_SMALL[f.bits]), x)
    a2 = e.mul(e.clamp(a, 0.0, _TANH_SATURATE[f.bits]), e.c(2.0))
    large = e.sub(e.c(1.0), e.div(e.c(2.0), e.add(expand_exp(e, a2, keep_nan=False), e.c(1.0))))
    # tanh is odd: x's sign bit goes on both branches (the polynomial alone gives +0 for -0)
    y = e.copysign(e.select(e.cmp("OLT", a, e.c(_TANH_SMALL_LIMIT)), small, large), x)
    return e.keep_nan(x, y)


def expand_erf_f32(e: Emitter, x):
    a = e.abs(x)
    z = e.mul(x, x)
    small = e.mul(x, e.horner(z, _ERF_SMALL_F32))
    ac = e.clamp(a, 1.0, _ERF_ONE)
    q = e.horner(e.sub(ac, e.c(_ERFC_CENTER)), _ERFC_Q_F32)
    erfc = e.mul(expand_exp(e, e.mul(e.sub(e.c(0.0), ac), ac), keep_nan=False), q)
    large = e.copysign(e.sub(e.c(1.0), erfc), x)
    y = e.select(e.cmp("OLT", a, e.c(1.0)), small, large)
    return e.keep_nan(x, y)


def expand_erf_f64(e: Emitter, x):
    """erf in f64: ``x + x * R(x*x)`` below 1; above, ``1 - exp(-x*x) * Q(x)`` with
    ``x*x = h + h_err`` split exactly (an FMA), ``exp(-h - h_err)`` as
    ``exp(-h) * (1 - h_err)``:
    rounded once, ``x*x`` alone would put 36 ulp of error into ``exp`` at x = 6."""
    a = e.abs(x)
    small = e.fma(x, e.estrin(e.mul(x, x), _ERF_SMALL_F64), x)
    ac = e.clamp(a, 1.0, _ERF_ONE_F64)
    q = e.estrin(e.mul(e.sub(ac, e.c(_ERFC_T_CENTER)), e.c(_ERFC_T_SCALE)), _ERFC_Q_F64)
    h = arith.mulf(ac, ac)  # not contracted: h_err is its exact error
    h_err = math_ops.fma(ac, ac, arith.negf(h))
    p = e.mul(expand_exp(e, arith.negf(h), keep_nan=False), q)
    erfc = e.sub(p, e.mul(p, h_err))
    large = e.copysign(e.sub(e.c(1.0), erfc), x)
    y = e.select(e.cmp("OLT", a, e.c(1.0)), small, large)
    return e.keep_nan(x, y)


# (op name, float width) -> rewrite; what is missing stays for convert-math-to-libm.
EXPANSIONS: dict[tuple[str, int], Callable] = {
    ("math.exp", 32): expand_exp,
    ("math.exp", 64): expand_exp,
    ("math.exp2", 32): expand_exp2,
    ("math.exp2", 64): expand_exp2,
    ("math.log", 32): expand_log,
    ("math.log", 64): expand_log,
    ("math.tanh", 32): expand_tanh,
    ("math.tanh", 64): expand_tanh,
    ("math.erf", 32): expand_erf_f32,
    ("math.erf", 64): expand_erf_f64,
    ("math.powf", 32): expand_pow_f32,
    ("math.powf", 64): expand_pow_f64,
    ("math.log1p", 32): expand_log1p,
    ("math.log1p", 64): expand_log1p,
    ("math.expm1", 32): expand_expm1,
    ("math.expm1", 64): expand_expm1,
    ("math.log2", 32): expand_log2,
    ("math.log2", 64): expand_log2,
    ("math.log10", 32): expand_log10,
    ("math.log10", 64): expand_log10,
    ("math.sinh", 32): expand_sinh,
    ("math.sinh", 64): expand_sinh,
    ("math.cosh", 32): expand_cosh,
    ("math.cosh", 64): expand_cosh,
    ("math.atan", 32): expand_atan,
    ("math.atan", 64): expand_atan,
    ("math.atan2", 32): expand_atan2,
    ("math.atan2", 64): expand_atan2,
    ("math.sin", 32): expand_sin_f32,
    ("math.cos", 32): expand_cos_f32,
    ("math.tan", 32): expand_tan_f32,
    ("math.asin", 32): expand_asin_f32,
    ("math.asin", 64): expand_asin,
    ("math.acos", 32): expand_acos_f32,
    ("math.acos", 64): expand_acos,
    ("math.asinh", 32): expand_asinh,
    ("math.asinh", 64): expand_asinh,
    ("math.acosh", 32): expand_acosh,
    ("math.acosh", 64): expand_acosh,
    ("math.atanh", 32): expand_atanh,
    ("math.atanh", 64): expand_atanh,
    ("math.cbrt", 32): expand_cbrt,
    ("math.cbrt", 64): expand_cbrt,
}


def expand_remainder_small(e: Emitter, x, y):
    """``fmod(x, y)`` for ``|x| <= 2**mantissa * |y|`` (``ember-fast-paths`` checked it):
    the truncated quotient of ``|x|`` and ``|y|`` is the true one or one more (the
    division rounds by at most half), ``|x| - q*|y|`` fused is exact for the true one
    (fmod's result is a float) and negative for the other, which is then made one less;
    ``q = 0`` gives ``|x|`` itself (no ``0 * inf`` for infinite ``y``). x's sign; NaN
    for NaN, for ``0 % 0`` and ``inf % inf``. Fused on purpose: ``math.fma``, not the
    contractible pair, which a target without FMA would round twice."""
    a, b = e.abs(x), e.abs(y)
    q = math_ops.trunc(e.div(a, b))
    first = math_ops.fma(arith.negf(q), b, a)
    q = e.select(e.cmp("OLT", first, e.c(0.0)), e.sub(q, e.c(1.0)), q)
    r = e.select(e.cmp("OEQ", q, e.c(0.0)), a, math_ops.fma(arith.negf(q), b, a))
    return e.copysign(r, x)


# ops ember-fast-paths marked as having their operands in the range of a cheap version
SMALL_ARGUMENT_EXPANSIONS: dict[str, Callable] = {
    "math.sin": expand_sin_small,
    "math.cos": expand_cos_small,
    "math.tan": expand_tan_small,
    "arith.remf": expand_remainder_small,
}


def _expansion(op: ir.Operation) -> Callable | None:
    if SMALL_ARGUMENT_ATTR in op.attributes and op.name in SMALL_ARGUMENT_EXPANSIONS:
        return SMALL_ARGUMENT_EXPANSIONS[op.name]
    return EXPANSIONS.get((op.name, float_width(op.results[0].type)))


def _rewrite(op: ir.Operation, scalef: bool) -> None:
    rewrite = _expansion(op)
    with ir.InsertionPoint(op), op.location:
        result = rewrite(Emitter(op.results[0].type, scalef), *op.operands)
    op.results[0].replace_all_uses_with(result)
    op.erase()


# the name first: the pass looks at every op of the module
_EXPANDED = {name for name, _ in EXPANSIONS} | set(SMALL_ARGUMENT_EXPANSIONS)


def expandable(op: ir.Operation) -> bool:
    return (
        op.name in _EXPANDED
        and len(op.results) == 1
        and float_width(op.results[0].type) is not None
        and _expansion(op) is not None
    )


@dataclass
class EmberExpandMath(EmberPass):
    """Rewrite exp, exp2, log, tanh, erf, pow, log1p, expm1, log2, log10, sinh, cosh,
    asinh, acosh, atanh, atan, atan2, asin, acos, cbrt (and float32 sin, cos, tan; float64
    ones and float remainders marked ``ember.small_argument``) into branch-free arith so
    loops vectorize."""

    name = "ember-expand-math"
    summary = (
        "exp/exp2/log/tanh/erf/pow/log1p/expm1/log2/log10/sinh/cosh/asinh/acosh/atanh/atan/atan2/asin/acos/cbrt"
        " (f32, f64), f32 sin/cos/tan, small-argument f64 ones and remainders: inline, no libm calls"
    )
    scalef: bool = field(default_factory=lambda: has_512_bit_vectors())  # looked up per run: tests patch it

    def run(self, module):
        for op in collect(module, expandable):
            _rewrite(op, self.scalef)
