// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-matmul-to-blas{force=true define-helpers=true})' | FileCheck %s

// A complex matrix product calls ?gemm (zgemm for complex<f64>), alpha and beta passed
// by address from a stack slot; the zero fill before it goes (beta 0 + 0i). The loop
// fallback fills the output itself when beta is zero.
// CHECK: func.func private @ember_blas_zgemm(i32, i32, i32, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64)
// CHECK-LABEL: func.func private @ember_matmul_c128
// CHECK-SAME: %[[BETA:[a-z0-9_]+]]: complex<f64>)
// CHECK: memref.alloca() : memref<2xcomplex<f64>>
// CHECK: memref.store %[[BETA]]
// CHECK: call @ember_blas_zgemm(
// CHECK: } else {
// CHECK: complex.eq %[[BETA]]
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @zmm
// CHECK-NOT: linalg.fill
// CHECK: call @ember_matmul_c128(
func.func @zmm(%x: memref<4x3xcomplex<f64>>, %w: memref<3x2xcomplex<f64>>, %out: memref<4x2xcomplex<f64>>) {
  %re = arith.constant 0.0 : f64
  %zero = complex.create %re, %re : complex<f64>
  linalg.fill ins(%zero : complex<f64>) outs(%out : memref<4x2xcomplex<f64>>)
  linalg.matmul ins(%x, %w : memref<4x3xcomplex<f64>>, memref<3x2xcomplex<f64>>) outs(%out : memref<4x2xcomplex<f64>>)
  return
}

// A complex matrix-vector product stays a loop (no complex gemv call).
// CHECK-LABEL: func.func @zmv
// CHECK: linalg.matvec
func.func @zmv(%x: memref<4x3xcomplex<f64>>, %v: memref<3xcomplex<f64>>, %out: memref<4xcomplex<f64>>) {
  linalg.matvec ins(%x, %v : memref<4x3xcomplex<f64>>, memref<3xcomplex<f64>>) outs(%out : memref<4xcomplex<f64>>)
  return
}
