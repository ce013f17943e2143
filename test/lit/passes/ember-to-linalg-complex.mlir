// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s
// RUN: ember-opt %s -p lower-to-llvm | FileCheck %s --check-prefix=LLVM

// exp's libm declaration (see @parts) goes to the top of the module.
// CHECK: func.func private @cexp(complex<f64>) -> complex<f64>

// Complex multiply is NumPy's SIMD loop: re = fma(ar, br, -(ai*bi)), im = fma(ar, bi, ai*br).
// CHECK-LABEL: func.func @mul
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[A:.*]]: complex<f64>, %[[B:.*]]: complex<f64>, %{{.*}}: complex<f64>):
// CHECK-DAG: %[[AR:.*]] = complex.re %[[A]] : complex<f64>
// CHECK-DAG: %[[AI:.*]] = complex.im %[[A]] : complex<f64>
// CHECK-DAG: %[[BR:.*]] = complex.re %[[B]] : complex<f64>
// CHECK-DAG: %[[BI:.*]] = complex.im %[[B]] : complex<f64>
// CHECK: %[[II:.*]] = arith.mulf %[[AI]], %[[BI]] : f64
// CHECK: %[[NII:.*]] = arith.negf %[[II]] : f64
// CHECK: %[[RE:.*]] = math.fma %[[AR]], %[[BR]], %[[NII]] : f64
// CHECK: %[[IR:.*]] = arith.mulf %[[AI]], %[[BR]] : f64
// CHECK: %[[IM:.*]] = math.fma %[[AR]], %[[BI]], %[[IR]] : f64
// CHECK: %[[Z:.*]] = complex.create %[[RE]], %[[IM]] : complex<f64>
// CHECK: linalg.yield %[[Z]] : complex<f64>
func.func @mul(%a: tensor<?xcomplex<f64>>, %b: tensor<?xcomplex<f64>>) -> tensor<?xcomplex<f64>> {
  %0 = "ember.mul"(%a, %b) : (tensor<?xcomplex<f64>>, tensor<?xcomplex<f64>>) -> tensor<?xcomplex<f64>>
  return %0 : tensor<?xcomplex<f64>>
}

// Division is Smith's algorithm, branch on |br| >= |bi| (false for NaN), as NumPy's loop.
// CHECK-LABEL: func.func @div
// CHECK: linalg.generic
// CHECK: math.absf
// CHECK: math.absf
// CHECK: arith.cmpf oge
// CHECK-COUNT-2: arith.select
// CHECK-NOT: complex.div
// CHECK: complex.create
func.func @div(%a: tensor<3xcomplex<f32>>, %b: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %0 = "ember.div"(%a, %b) : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}

// The magnitude has the part's type; real/imag take a part; exp of complex<f32> is computed
// by C99's cexp in complex<f64> (a func.call, declared at the top) and rounded.
// CHECK-LABEL: func.func @parts
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK: math.sqrt
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK: complex.im
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xcomplex<f32>>)
// CHECK: arith.extf
// CHECK: func.call @cexp(%{{.*}}) : (complex<f64>) -> complex<f64>
// CHECK: arith.truncf
func.func @parts(%z: tensor<4xcomplex<f32>>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xcomplex<f32>>) {
  %0 = "ember.cabs"(%z) : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %1 = "ember.imag"(%z) : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %2 = "ember.exp"(%z) : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xcomplex<f32>>
}

// A complex constant is ember.complex of two real constants; a sum starts from 0 + 0j.
// CHECK-LABEL: func.func @constant_sum
// CHECK: %[[RE:.*]] = arith.constant dense<1.500000e+00> : tensor<f64>
// CHECK: %[[IM:.*]] = arith.constant dense<-0.000000e+00> : tensor<f64>
// CHECK: linalg.generic {{.*}} ins(%[[RE]], %[[IM]] : tensor<f64>, tensor<f64>)
// CHECK: complex.create
// CHECK: linalg.fill
// CHECK: iterator_types = ["reduction"]
func.func @constant_sum(%x: tensor<5xcomplex<f64>>) -> (tensor<complex<f64>>, tensor<complex<f64>>) {
  %re = "ember.constant"() {value = dense<1.5> : tensor<f64>} : () -> tensor<f64>
  %im = "ember.constant"() {value = dense<-0.0> : tensor<f64>} : () -> tensor<f64>
  %c = "ember.complex"(%re, %im) : (tensor<f64>, tensor<f64>) -> tensor<complex<f64>>
  %s = "ember.sum"(%x) {axes = array<i64: 0>, keepdims = false} : (tensor<5xcomplex<f64>>) -> tensor<complex<f64>>
  return %c, %s : tensor<complex<f64>>, tensor<complex<f64>>
}

// All the way down: {re, im} structs, log and sqrt as libm calls (convert-complex-to-libm).
// LLVM-LABEL: llvm.func @libm
// LLVM: llvm.call @clog(%{{.*}}) : (!llvm.struct<(f64, f64)>) -> !llvm.struct<(f64, f64)>
// LLVM: llvm.call @csqrt(%{{.*}}) : (!llvm.struct<(f64, f64)>) -> !llvm.struct<(f64, f64)>
// LLVM-NOT: complex.
func.func @libm(%z: tensor<8xcomplex<f64>>) -> tensor<8xcomplex<f64>> {
  %0 = "ember.log"(%z) : (tensor<8xcomplex<f64>>) -> tensor<8xcomplex<f64>>
  %1 = "ember.sqrt"(%0) : (tensor<8xcomplex<f64>>) -> tensor<8xcomplex<f64>>
  return %1 : tensor<8xcomplex<f64>>
}
