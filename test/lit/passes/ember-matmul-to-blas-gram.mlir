// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-matmul-to-blas{force=true define-helpers=true})' | FileCheck %s

// A.T @ A into a zero-filled output: BLAS syrk computes the upper triangle (beta 0: the
// fill goes), the helper mirrors it into the lower one.
// CHECK-LABEL: func.func private @ember_gram_f64
// CHECK-SAME: %[[BETA:[a-z0-9_]+]]: f64)
// CHECK: func.call @ember_blas_dsyrk(%c101_i32, %c121_i32, {{.*}}, %[[BETA]],
// CHECK: memref.load %{{.*}}[%[[J:[a-z0-9_]+]], %[[I:[a-z0-9_]+]]]
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// CHECK: call @ember_blas_zero_f64(
// CHECK-NEXT: linalg.matmul

// CHECK-LABEL: func.func @gram
// CHECK-NOT: linalg.fill
// CHECK: %[[T:.*]] = memref.transpose
// CHECK: call @ember_gram_f64(%[[T]],
#at = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gram(%a: memref<10x8xf64>, %c: memref<8x8xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<8x8xf64>)
  linalg.matmul indexing_maps = [#at, #b, #c] ins(%a, %a : memref<10x8xf64>, memref<10x8xf64>) outs(%c : memref<8x8xf64>)
  return
}

// Into anything but zeros (mirroring in place would lose a non-symmetric start): the
// product into scratch and added (gemm onto the start when the sum is short, at run
// time), in a helper of its own.
// CHECK-LABEL: func.func @accumulating
// CHECK: call @ember_gram_add_f64(
func.func @accumulating(%a: memref<10x8xf64>, %c: memref<8x8xf64>) {
  linalg.matmul indexing_maps = [#at, #b, #c] ins(%a, %a : memref<10x8xf64>, memref<10x8xf64>) outs(%c : memref<8x8xf64>)
  return
}
