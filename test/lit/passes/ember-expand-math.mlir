// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-expand-math{scalef=false})' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-expand-math{scalef=true})' | FileCheck %s --check-prefix=SCALEF

// exp: where exp rounds to 0, exp(0) is computed and 0 selected at the end (no
// underflow into the subnormals: a microcode assist on x86); then clamp from above only
// (below is 0 already; NaN goes to the bound), round x*log2(e) by adding and subtracting 1.5*2^23, Cody-Waite
// reduction, polynomial, then two factors 2^n1 * 2^n2 built from exponent bits; NaN
// restored by a final select. No branches, no calls.
// CHECK-LABEL: func.func @exp_f32
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: f32)
// CHECK-NOT: math.exp
// CHECK: %[[LO:.*]] = arith.constant -1.040000e+02 : f32
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %[[X]], %[[LO]] : f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[X0:.*]] = arith.select %[[BELOW]], %[[ZERO]], %[[X]] : f32
// CHECK-NOT: arith.cmpf ogt
// CHECK: %[[HI:.*]] = arith.constant 8.900000e+01 : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[X0]], %[[HI]] : f32
// CHECK: %[[XC:.*]] = arith.select %[[LT]], %[[X0]], %[[HI]] : f32
// CHECK: %[[MAGIC:.*]] = arith.constant 0x4B400000 : f32
// CHECK: %[[SHIFTED:.*]] = arith.addf %{{.*}}, %[[MAGIC]] fastmath<contract> : f32
// CHECK: %[[N:.*]] = arith.subf %[[SHIFTED]], %[[MAGIC]] fastmath<contract> : f32
// CHECK: %[[NI:.*]] = arith.fptosi %[[N]] : f32 to i32
// CHECK: %[[N1:.*]] = arith.shrsi %[[NI]], %{{.*}} : i32
// CHECK: %[[N2:.*]] = arith.subi %[[NI]], %[[N1]] : i32
// CHECK: %[[B1:.*]] = arith.addi %[[N1]], %[[BIAS:.*]] : i32
// CHECK: %[[E1:.*]] = arith.shli %[[B1]], %[[MANT:.*]] : i32
// CHECK: %[[P1:.*]] = arith.bitcast %[[E1]] : i32 to f32
// CHECK: %[[Y1:.*]] = arith.mulf %{{.*}}, %[[P1]]
// CHECK: %[[B2:.*]] = arith.addi %[[N2]], %[[BIAS]] : i32
// CHECK: %[[E2:.*]] = arith.shli %[[B2]], %[[MANT]] : i32
// CHECK: %[[P2:.*]] = arith.bitcast %[[E2]] : i32 to f32
// CHECK: %[[Y:.*]] = arith.mulf %[[Y1]], %[[P2]]
// CHECK: %[[Y0:.*]] = arith.select %[[BELOW]], %[[ZERO]], %[[Y]] : f32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[R:.*]] = arith.select %[[NAN]], %[[X]], %[[Y0]] : f32
// CHECK: return %[[R]] : f32
// scalef (the default on AVX-512 hosts): the same reduction and polynomial, then one
// ldexp (LLVM vectorizes it to vscalefps) by n as i32, taken from the rounded sum's bits
// (its bits less the magic number's: defined for NaN, where fptosi would be poison); no
// exponent bits built. The upper clamp keeps a NaN (x >= 89 ? 89 : x), so NaN runs
// through to the result and no final select restores it.
// SCALEF-LABEL: func.func @exp_f32
// SCALEF-SAME: (%[[X:[a-z0-9_]+]]: f32)
// SCALEF: %[[BELOW:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f32
// SCALEF: %[[X0:.*]] = arith.select %[[BELOW]], %{{.*}}, %[[X]] : f32
// SCALEF: %[[HI:.*]] = arith.constant 8.900000e+01 : f32
// SCALEF: %[[GE:.*]] = arith.cmpf oge, %[[X0]], %[[HI]] : f32
// SCALEF: %[[XC:.*]] = arith.select %[[GE]], %[[HI]], %[[X0]] : f32
// SCALEF: %[[MAGIC:.*]] = arith.constant 0x4B400000 : f32
// SCALEF: %[[SHIFTED:.*]] = arith.addf %{{.*}}, %[[MAGIC]] fastmath<contract> : f32
// SCALEF: %[[N:.*]] = arith.subf %[[SHIFTED]], %[[MAGIC]] fastmath<contract> : f32
// SCALEF-NOT: arith.fptosi
// SCALEF-NOT: arith.shli
// SCALEF: %[[MB:.*]] = arith.bitcast %[[MAGIC]] : f32 to i32
// SCALEF: %[[SB:.*]] = arith.bitcast %[[SHIFTED]] : f32 to i32
// SCALEF: %[[NI:.*]] = arith.subi %[[SB]], %[[MB]] : i32
// SCALEF: %[[Y:.*]] = llvm.intr.ldexp(%{{.*}}, %[[NI]]) : (f32, i32) -> f32
// SCALEF: %[[Y0:.*]] = arith.select %[[BELOW]], %{{.*}}, %[[Y]] : f32
// SCALEF-NOT: arith.cmpf uno
// SCALEF: return %[[Y0]] : f32
func.func @exp_f32(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}

// f64 uses the same algorithm with the double format's constants.
// CHECK-LABEL: func.func @exp_f64
// CHECK-NOT: math.exp
// CHECK: arith.constant -7.460000e+02 : f64
// CHECK: arith.constant 7.100000e+02 : f64
// CHECK: arith.fptosi %{{.*}} : f64 to i64
// CHECK: arith.constant 1023 : i64
// CHECK: arith.constant 52 : i64
// CHECK: arith.bitcast %{{.*}} : i64 to f64
// SCALEF-LABEL: func.func @exp_f64
// SCALEF-NOT: arith.fptosi
// SCALEF: %[[NI:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// SCALEF: %[[N32:.*]] = arith.trunci %[[NI]] : i64 to i32
// SCALEF-NOT: arith.shli
// SCALEF: llvm.intr.ldexp(%{{.*}}, %[[N32]]) : (f64, i32) -> f64
func.func @exp_f64(%x: f64) -> f64 {
  %y = math.exp %x : f64
  return %y : f64
}

// log on vectors: subnormals scaled up, exponent and mantissa split with integer ops
// on the bits, then the special values selected in.
// CHECK-LABEL: func.func @log_vector
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: vector<4xf64>)
// CHECK-NOT: math.log
// CHECK: %[[TINY:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : vector<4xf64>
// CHECK: %[[XS:.*]] = arith.select %[[TINY]], %{{.*}}, %[[X]] : vector<4xi1>, vector<4xf64>
// CHECK: %[[BITS:.*]] = arith.bitcast %[[XS]] : vector<4xf64> to vector<4xi64>
// CHECK: %[[U:.*]] = arith.subi %[[BITS]], %{{.*}} : vector<4xi64>
// CHECK: %[[K:.*]] = arith.shrsi %[[U]], %[[C52:.*]] : vector<4xi64>
// CHECK: %[[KS:.*]] = arith.shli %[[K]], %[[C52]] : vector<4xi64>
// CHECK: %[[MB:.*]] = arith.subi %[[BITS]], %[[KS]] : vector<4xi64>
// CHECK: arith.bitcast %[[MB]] : vector<4xi64> to vector<4xf64>
// CHECK: arith.divf
// CHECK: %[[INF:.*]] = arith.constant dense<0x7FF0000000000000> : vector<4xf64>
// CHECK: arith.cmpf oeq, %[[X]], %[[INF]] : vector<4xf64>
// CHECK: arith.constant dense<0xFFF0000000000000> : vector<4xf64>
// CHECK: arith.cmpf olt, %[[X]], %{{.*}} : vector<4xf64>
// CHECK: arith.constant dense<0x7FF8000000000000> : vector<4xf64>
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : vector<4xf64>
// CHECK: %[[R:.*]] = arith.select %[[NAN]], %[[X]], %{{.*}} : vector<4xi1>, vector<4xf64>
// CHECK: return %[[R]]
func.func @log_vector(%x: vector<4xf64>) -> vector<4xf64> {
  %y = math.log %x : vector<4xf64>
  return %y : vector<4xf64>
}

// tanh: an odd polynomial for |x| < 0.625, otherwise 1 - 2/(exp(2|x|)+1) (the exp
// expanded inline), the branch picked per element by a select, then x's sign bit put on.
// CHECK-LABEL: func.func @tanh_f32
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: f32)
// CHECK-NOT: math.
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: %[[ABSBITS:.*]] = arith.andi %[[BITS]], %{{.*}} : i32
// CHECK: %[[ABS:.*]] = arith.bitcast %[[ABSBITS]] : i32 to f32
// CHECK: arith.constant 1.000000e+01 : f32
// CHECK: arith.shli
// CHECK: arith.divf
// CHECK: %[[SMALL:.*]] = arith.cmpf olt, %[[ABS]], %{{.*}} : f32
// CHECK: %[[SEL:.*]] = arith.select %[[SMALL]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[SELBITS:.*]] = arith.bitcast %[[SEL]] : f32 to i32
// CHECK: %[[MAG:.*]] = arith.andi %[[SELBITS]], %{{.*}} : i32
// CHECK: %[[XBITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: %[[SIGN:.*]] = arith.andi %[[XBITS]], %{{.*}} : i32
// CHECK: %[[YBITS:.*]] = arith.ori %[[MAG]], %[[SIGN]] : i32
// CHECK: %[[Y:.*]] = arith.bitcast %[[YBITS]] : i32 to f32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: arith.select %[[NAN]], %[[X]], %[[Y]] : f32
func.func @tanh_f32(%x: f32) -> f32 {
  %y = math.tanh %x : f32
  return %y : f32
}

// erf f32 is expanded (polynomial below 1, 1 - exp(-x*x)*Q(x) above, clamped at 4).
// CHECK-LABEL: func.func @erf_f32
// CHECK-NOT: math.erf
// CHECK: arith.constant 4.000000e+00 : f32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: return
func.func @erf_f32(%x: f32) -> f32 {
  %y = math.erf %x : f32
  return %y : f32
}

// powf: in double precision (extf), exp(y * log|x|), each as exact as a float32 needs:
// log's series to 2/13 s**13 (float64 log: 2/19), no subnormal scaling, 0/inf/NaN in
// one select; exp's Taylor terms to r**9 / 9! (float64 exp: 13!); the integer and odd
// tests of y by floor, then one truncf; no powf call left.
// CHECK-LABEL: func.func @pow_f32
// CHECK-NOT: math.powf
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK-NOT: 2.2250738585072014E-308
// CHECK: arith.divf
// CHECK-NOT: 0.10526315789473684
// CHECK: arith.constant 0.15384615384615385 : f64
// CHECK: %[[ORDINARY:.*]] = arith.andi
// CHECK: %[[SPECIAL:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f64
// CHECK: arith.select %[[ORDINARY]], %{{.*}}, %[[SPECIAL]] : f64
// CHECK-NOT: 1.6059043836821613E-10
// CHECK: arith.constant 2.7557319223985893E-6 : f64
// CHECK: math.floor %{{.*}} : f64
// CHECK: arith.negf %{{.*}} : f64
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK: return %[[R]] : f32
func.func @pow_f32(%x: f32, %y: f32) -> f32 {
  %r = math.powf %x, %y : f32
  return %r : f32
}

// pow f64: log and exp in double-double: the quotient's residual, the product's error and
// the reduced argument's by FMAs (math.fma, never contracted away), 1 + r by a TwoSum,
// then C99's table by floor; no powf call left.
// CHECK-LABEL: func.func @pow_f64
// CHECK-NOT: math.powf
// CHECK: arith.divf %{{.*}} : f64
// CHECK: math.fma %{{.*}} : f64
// CHECK: math.floor %{{.*}} : f64
// CHECK: return %{{.*}} : f64
func.func @pow_f64(%x: f64, %y: f64) -> f64 {
  %r = math.powf %x, %y : f64
  return %r : f64
}

// erf f64: x + x*R(x*x) below 1, 1 - exp(-x*x)*Q(x) above with x*x split exactly by
// an FMA (math.fma), |x| clamped at 6; no erf call left.
// CHECK-LABEL: func.func @erf_f64
// CHECK-NOT: math.erf
// CHECK: arith.constant 6.000000e+00 : f64
// CHECK: %[[H:.*]] = arith.mulf %[[A:.*]], %[[A]] : f64
// CHECK: %[[NH:.*]] = arith.negf %[[H]] : f64
// CHECK: math.fma %[[A]], %[[A]], %[[NH]] : f64
// CHECK: return %{{.*}} : f64
func.func @erf_f64(%x: f64) -> f64 {
  %y = math.erf %x : f64
  return %y : f64
}

// log1p: log(u) of u = 1 + x rounded, the rounding's error (TwoSum, plain ops: a
// contracted or reassociated step would lose it) over u added into the log's low part;
// x itself at +-0. No call (it had been libm's log1p, a call per element the vectorizer
// stops at).
// CHECK-LABEL: func.func @log1p_f64
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: f64)
// CHECK-NOT: call
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: %[[U:.*]] = arith.addf %[[X]], %[[ONE]] : f64
// CHECK: %[[BB:.*]] = arith.subf %[[U]], %[[X]] : f64
// CHECK: %[[UB:.*]] = arith.subf %[[U]], %[[BB]] : f64
// CHECK: %[[E1:.*]] = arith.subf %[[X]], %[[UB]] : f64
// CHECK: %[[E2:.*]] = arith.subf %[[ONE]], %[[BB]] : f64
// CHECK: %[[ERR:.*]] = arith.addf %[[E1]], %[[E2]] : f64
// CHECK: %[[C:.*]] = arith.divf %[[ERR]], %[[U]]
// CHECK: %[[LO:.*]] = arith.addf %{{.*}}, %[[C]]
// CHECK: arith.subf %{{.*}}, %[[LO]]
// CHECK: %[[ZERO:.*]] = arith.cmpf oeq, %[[X]], %{{.*}}
// CHECK: arith.select %[[ZERO]], %[[X]], %{{.*}}
// CHECK-NOT: math.log1p
// CHECK-NOT: call
// CHECK: return
func.func @log1p_f64(%x: f64) -> f64 {
  %y = math.log1p %x : f64
  return %y : f64
}

// expm1, sinh, cosh, log2, asinh, acosh (f32 and f64): inline too, no math op or call
// left but the square roots (asinh's and acosh's, which LLVM makes vsqrt).
// CHECK-LABEL: func.func @composed
// CHECK-NOT: math.{{(expm1|sinh|cosh|log|asinh|acosh|exp|fma)}}
// CHECK-NOT: call
// CHECK: return
func.func @composed(%a: f32, %b: f64) -> (f32, f64, f32, f64, f32, f64, f32, f64, f32, f64, f32, f64) {
  %0 = math.expm1 %a : f32
  %1 = math.expm1 %b : f64
  %2 = math.sinh %a : f32
  %3 = math.sinh %b : f64
  %4 = math.cosh %a : f32
  %5 = math.cosh %b : f64
  %6 = math.log2 %a : f32
  %7 = math.log2 %b : f64
  %8 = math.asinh %a : f32
  %9 = math.asinh %b : f64
  %10 = math.acosh %a : f32
  %11 = math.acosh %b : f64
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : f32, f64, f32, f64, f32, f64, f32, f64, f32, f64, f32, f64
}

// atanh: log1p of 2a/(1 - a) (below 1/2: 2a + 2a*a/(1 - a)), halved, x's sign; inline
// (log1p's TwoSum and log), no call.
// CHECK-LABEL: func.func @atanh
// CHECK-NOT: math.{{(atanh|log1p|log)}}
// CHECK: %[[HALF:.+]] = arith.constant 5.000000e-01 : f64
// CHECK: arith.cmpf olt, %{{.*}}, %[[HALF]] : f64
// CHECK-NOT: math.{{(atanh|log1p|log)}}
// CHECK-NOT: call
// CHECK: return
func.func @atanh(%a: f32, %b: f64) -> (f32, f64) {
  %0 = math.atanh %a : f32
  %1 = math.atanh %b : f64
  return %0, %1 : f32, f64
}

// float32 asin and acos: |x| < 1/2 picks x*x, else (1 - |x|) / 2 (the same select
// feeds both functions' polynomial), one square root, no division and no float64.
// CHECK-LABEL: func.func @asin_acos_f32
// CHECK-NOT: math.{{(asin|acos|atan)}}
// CHECK: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: arith.cmpf olt, %{{.*}}, %[[HALF]] : f32
// CHECK: math.sqrt %{{.*}} : f32
// CHECK-NOT: arith.divf
// CHECK-NOT: f64
// CHECK: return
func.func @asin_acos_f32(%a: f32) -> (f32, f32) {
  %0 = math.asin %a : f32
  %1 = math.acos %a : f32
  return %0, %1 : f32, f32
}

// sin, cos, tan marked ember.small_argument (ember-fast-paths): Cody-Waite with pi/2
// in 33-bit pieces, the quadrant from the bits of k + 1.5*2**52; float64 keeps the rest
// in double-double (TwoSum), float32 computes in float64 and rounds once. tan divides
// once. No floor (the exact reduction's), no call.
// CHECK-LABEL: func.func @small_arguments
// CHECK-NOT: math.{{(sin|cos|tan|floor)}}
// CHECK: %[[TWO_OVER_PI:.+]] = arith.constant 0.63661977236758138 : f64
// CHECK: %[[SCALED:.+]] = arith.mulf %{{.+}}, %[[TWO_OVER_PI]] : f64
// CHECK: %[[MAGIC:.+]] = arith.constant 0x4338000000000000 : f64
// CHECK: %[[SHIFTED:.+]] = arith.addf %[[SCALED]], %[[MAGIC]] : f64
// CHECK: %[[Q:.+]] = arith.bitcast %[[SHIFTED]] : f64 to i64
// CHECK: %[[K:.+]] = arith.subf %[[SHIFTED]], %[[MAGIC]] : f64
// CHECK: %[[P1:.+]] = arith.constant 1.5707963267341256 : f64
// CHECK: arith.mulf %[[K]], %[[P1]] : f64
// CHECK-NOT: math.{{(sin|cos|tan|floor)}}
// CHECK-NOT: call
// CHECK: arith.truncf %{{.+}} : f64 to f32
// CHECK: arith.divf
// CHECK-NOT: arith.divf
// CHECK-NOT: math.{{(sin|cos|tan|floor)}}
// CHECK-NOT: call
// CHECK: return
func.func @small_arguments(%a: f64, %b: f32, %c: f64) -> (f64, f32, f64) {
  %0 = math.sin %a {ember.small_argument} : f64
  %1 = math.cos %b {ember.small_argument} : f32
  %2 = math.tan %c {ember.small_argument} : f64
  return %0, %1, %2 : f64, f32, f64
}

// A float remainder marked ember.small_argument: the truncated quotient, a fused
// multiply-add (math.fma: exact), one less where that came out negative, fused again;
// |x| where the quotient is 0; x's sign. No fmod call.
// CHECK-LABEL: func.func @remainder_small
// CHECK: %[[Q:.+]] = math.trunc %{{.+}} : f32
// CHECK: %[[NQ:.+]] = arith.negf %[[Q]] : f32
// CHECK: %[[FIRST:.+]] = math.fma %[[NQ]], %{{.+}}, %{{.+}} : f32
// CHECK: arith.cmpf olt, %[[FIRST]], %{{.+}} : f32
// CHECK: math.fma
// CHECK-NOT: arith.remf
// CHECK-NOT: call
// CHECK: return
func.func @remainder_small(%a: f32, %b: f32) -> f32 {
  %0 = arith.remf %a, %b {ember.small_argument} : f32
  return %0 : f32
}

// Other math ops and other float types are left alone (float64 sin and tan: libm,
// unless marked as above).
// CHECK-LABEL: func.func @left_alone
// CHECK: math.sin %{{.*}} : f64
// CHECK: math.tan %{{.*}} : f64
// CHECK: math.exp %{{.*}} : f16
func.func @left_alone(%a: f64, %b: f32, %c: f16) -> (f64, f64, f16) {
  %0 = math.sin %a : f64
  %1 = math.tan %a : f64
  %2 = math.exp %c : f16
  return %0, %1, %2 : f64, f64, f16
}

// float64 log10: log's reduction and parts, g - hfsq cut to its 21 leading bits (the
// mask -2**32 on its bits) so that its product by 1/ln10's 32 leading bits is exact,
// k times log10(2)'s 40 leading bits likewise; the rest added last. No call.
// CHECK-LABEL: func.func @log10_f64
// CHECK: arith.divf
// CHECK: %[[MASK:.+]] = arith.constant -4294967296 : i64
// CHECK: %[[CUT:.+]] = arith.andi %{{.*}}, %[[MASK]] : i64
// CHECK: %[[HI:.+]] = arith.bitcast %[[CUT]] : i64 to f64
// CHECK: %[[IVHI:.+]] = arith.constant 0.43429448187816888 : f64
// CHECK: %[[L2HI:.+]] = arith.constant 0.30102999566361177 : f64
// CHECK: arith.mulf %[[HI]], %[[IVHI]] : f64
// CHECK: arith.mulf %{{.*}}, %[[L2HI]] : f64
// CHECK-NOT: math.log10
// CHECK-NOT: call
// CHECK: return
func.func @log10_f64(%a: f64) -> f64 {
  %0 = math.log10 %a : f64
  return %0 : f64
}

// float32 sin in float64: a times 2/pi's 24-bit pieces, each mod 4 (floor), summed
// in double-double; the quadrant picks sin or cos of the rest; rounded once. No call.
// CHECK-LABEL: func.func @sin_f32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK-COUNT-8: math.floor
// CHECK-NOT: call
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @sin_f32(%a: f32) -> f32 {
  %0 = math.sin %a : f32
  return %0 : f32
}

// exp on a vector keeps the exponent bits either way (the LLVM dialect's ldexp takes a
// scalar exponent only; Ember's loops reach LLVM scalar and LLVM vectorizes them).
// CHECK-LABEL: func.func @exp_vector
// CHECK: arith.shli %{{.*}} : vector<8xi32>
// SCALEF-LABEL: func.func @exp_vector
// SCALEF-NOT: llvm.intr.ldexp
// SCALEF: arith.shli %{{.*}} : vector<8xi32>
// SCALEF: return
func.func @exp_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.exp %x : vector<8xf32>
  return %y : vector<8xf32>
}

// exp2: n = round(x) by the magic add (no multiply by log2(e)), t = x - n, t ln2 in two
// parts (an FMA gives the product's error), exp's polynomial and p * r_lo + p (a
// contractible multiply-add). No call.
// CHECK-LABEL: func.func @exp2_f64
// CHECK: %[[MAGIC:.+]] = arith.constant 0x4338000000000000 : f64
// CHECK: %[[SHIFTED:.+]] = arith.addf %{{.*}}, %[[MAGIC]]
// CHECK: %[[N:.+]] = arith.subf %[[SHIFTED]], %[[MAGIC]]
// CHECK: %[[T:.+]] = arith.subf %{{.*}}, %[[N]] : f64
// CHECK: %[[LN2:.+]] = arith.constant 0.69314718055994529 : f64
// CHECK: %[[R:.+]] = arith.mulf %[[T]], %[[LN2]] : f64
// CHECK: math.fma %[[T]], %[[LN2]], %{{.*}} : f64
// CHECK: %[[RLO:.+]] = arith.addf
// CHECK: %[[PR:.+]] = arith.mulf %[[P:.+]], %[[RLO]] fastmath<contract> : f64
// CHECK: arith.addf %[[PR]], %[[P]] fastmath<contract> : f64
// CHECK-NOT: math.exp2
// CHECK-NOT: call
// CHECK: return
func.func @exp2_f64(%a: f64) -> f64 {
  %0 = math.exp2 %a : f64
  return %0 : f64
}
