// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s
// RUN: ember-opt %s -p lower-to-llvm | FileCheck %s --check-prefix=LLVM

// NumPy's math ufuncs: one upstream math op per element, in a linalg.generic.
// CHECK-LABEL: func.func @unary_math
// CHECK: math.tan %{{.*}} : f32
// CHECK: math.asin %{{.*}} : f32
// CHECK: math.acos %{{.*}} : f32
// CHECK: math.atan %{{.*}} : f32
// CHECK: math.sinh %{{.*}} : f32
// CHECK: math.cosh %{{.*}} : f32
// CHECK: math.asinh %{{.*}} : f32
// CHECK: math.acosh %{{.*}} : f32
// CHECK: math.atanh %{{.*}} : f32
// CHECK: math.log2 %{{.*}} : f32
// CHECK: math.log10 %{{.*}} : f32
// CHECK: math.exp2 %{{.*}} : f32
// CHECK: math.cbrt %{{.*}} : f32
// CHECK: math.ceil %{{.*}} : f32
// CHECK: math.trunc %{{.*}} : f32
// CHECK: math.roundeven %{{.*}} : f32
// CHECK-NOT: ember.
func.func @unary_math(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %0 = "ember.tan"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = "ember.asin"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %2 = "ember.acos"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %3 = "ember.atan"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %4 = "ember.sinh"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %5 = "ember.cosh"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %6 = "ember.asinh"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %7 = "ember.acosh"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %8 = "ember.atanh"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %9 = "ember.log2"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %10 = "ember.log10"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %11 = "ember.exp2"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %12 = "ember.cbrt"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %13 = "ember.ceil"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %14 = "ember.trunc"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %15 = "ember.rint"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// log1p and expm1 stay math ops here; ember-expand-math writes them inline, keeping the
// digits of small x, where convert-math-to-llvm would compute log(1 + x) and exp(x) - 1:
// no LLVM log/exp intrinsic and no libm call is left.
// CHECK-LABEL: func.func @log1p_expm1
// CHECK: math.log1p %{{.*}} : f64
// CHECK: math.expm1 %{{.*}} : f32
// LLVM-LABEL: llvm.func @log1p_expm1
// LLVM-NOT: llvm.intr.log(
// LLVM-NOT: llvm.intr.exp(
// LLVM-NOT: llvm.call @log1p
// LLVM-NOT: llvm.call @expm1
// LLVM: llvm.return
func.func @log1p_expm1(%x: tensor<8xf64>, %y: tensor<8xf32>) -> (tensor<8xf64>, tensor<8xf32>) {
  %0 = "ember.log1p"(%x) : (tensor<8xf64>) -> tensor<8xf64>
  %1 = "ember.expm1"(%y) : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf64>, tensor<8xf32>
}

// atan2 and copysign are math ops; fmod of floats is arith.remf (C's fmod).
// CHECK-LABEL: func.func @binary_math
// CHECK: math.atan2 %{{.*}}, %{{.*}} : f64
// CHECK: math.copysign %{{.*}}, %{{.*}} : f64
// CHECK: arith.remf %{{.*}}, %{{.*}} : f64
// CHECK-NOT: ember.
func.func @binary_math(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = "ember.atan2"(%a, %b) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = "ember.copysign"(%a, %b) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %2 = "ember.fmod"(%a, %b) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0, %1, %2 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// hypot: f32 squares summed in f64 (exact squares, no overflow), one truncation; an
// infinite operand gives inf even beside a NaN. f64: big * sqrt(1 + (small/big)^2).
// CHECK-LABEL: func.func @hypot
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.divf
// CHECK: math.sqrt %{{.*}} : f64
// CHECK-NOT: ember.
func.func @hypot(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf64>, %d: tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf64>) {
  %0 = "ember.hypot"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "ember.hypot"(%c, %d) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0, %1 : tensor<4xf32>, tensor<4xf64>
}

// Integer fmod: remsi by a divisor with 0 and -1 replaced by 1 (NumPy: x fmod 0 == 0,
// and INT_MIN fmod -1 must not trap).
// CHECK-LABEL: func.func @fmod_int
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[B:.*]], %{{.*}} : i32
// CHECK: %[[M:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : i32
// CHECK: %[[T:.*]] = arith.ori %[[Z]], %[[M]] : i1
// CHECK: %[[S:.*]] = arith.select %[[T]], %{{.*}}, %[[B]] : i32
// CHECK: arith.remsi %{{.*}}, %[[S]] : i32
func.func @fmod_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "ember.fmod"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// Shifts: a count outside [0, 64) (unsigned compare: negatives too) gives 0 for shl and
// a shift by 63 (the sign everywhere) for shr; the count fed to the shift is always in range.
// CHECK-LABEL: func.func @shifts
// CHECK: %[[C64:.*]] = arith.constant 64 : i64
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[N:.*]], %[[C64]] : i64
// CHECK: %[[CNT:.*]] = arith.select %[[OK]], %[[N]], %{{.*}} : i64
// CHECK: %[[SH:.*]] = arith.shli %{{.*}}, %[[CNT]] : i64
// CHECK: arith.select %[[OK]], %[[SH]], %{{.*}} : i64
// CHECK: %[[OK2:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK: %[[C63:.*]] = arith.constant 63 : i64
// CHECK: %[[CNT2:.*]] = arith.select %[[OK2]], %{{.*}}, %[[C63]] : i64
// CHECK: arith.shrsi %{{.*}}, %[[CNT2]] : i64
func.func @shifts(%a: tensor<4xi64>, %b: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %0 = "ember.shl"(%a, %b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = "ember.shr"(%a, %b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0, %1 : tensor<4xi64>, tensor<4xi64>
}

// div is a plain divf: no arcp, so x / 100 is never x * 0.01 (NumPy's true_divide).
// CHECK-LABEL: func.func @div
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK-NOT: arcp
func.func @div(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %0 = "ember.div"(%a, %b) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
