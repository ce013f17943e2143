// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg{define-helpers=true})' | FileCheck %s
// RUN: ember-opt %s -p lower-to-loops | FileCheck %s --check-prefix=LOOPS

// By default (what the CPU backend compiles) each helper is only declared: the backend
// links it from its helper library, compiled once per process.
// LOOPS-NOT: call @ember_lapack_dgesv
// LOOPS: func.func private @ember_lapack_lstsq(memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, {{.*}}){{$}}
// LOOPS: func.func private @ember_lapack_inv(memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf64>){{$}}
// LOOPS-NOT: call @ember_lapack_dgesv

// The helpers come first, each added once per module (the last added, lstsq's, first):
// plain loops around LAPACKE's _work routines on column-major copies.
// CHECK: func.func private @ember_lapack_lstsq(
// CHECK: call @ember_lapack_dgelsd
// CHECK: func.func private @ember_lapack_dgesv(i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> i64
// CHECK: func.func private @ember_lapack_inv(
// CHECK: call @ember_la_identity
// CHECK: call @ember_lapack_dgesv

// np.linalg.inv of a stack: the input is read as a strided buffer, the packed result
// (batch, parts, width) is a fresh buffer the helper writes, then a tensor again.
// CHECK-LABEL: func.func @inv
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x3xf64>)
// CHECK: %[[DYN:.*]] = tensor.cast %[[A]] : tensor<2x3x3xf64> to tensor<?x?x?xf64>
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[DYN]] read_only : tensor<?x?x?xf64> to memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x2x9xf64>
// CHECK: %[[CAST:.*]] = memref.cast %[[OUT]] : memref<2x2x9xf64> to memref<?x?x?xf64>
// CHECK: call @ember_lapack_inv(%[[BUF]], %[[CAST]])
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<2x2x9xf64> to tensor<2x2x9xf64>
// CHECK: return %[[R]]
// LOOPS-LABEL: func.func @inv
// LOOPS: call @ember_lapack_inv
func.func @inv(%a: tensor<2x3x3xf64>) -> tensor<2x2x9xf64> {
  %0 = "ember.lapack"(%a) {routine = "inv"} : (tensor<2x3x3xf64>) -> tensor<2x2x9xf64>
  return %0 : tensor<2x2x9xf64>
}

// np.linalg.lstsq: the rcond operand is passed as a scalar; dynamic result sizes are
// the op's size operands.
// CHECK-LABEL: func.func @lstsq
// CHECK: %[[RC:.*]] = tensor.extract %{{.*}}[] : tensor<f64>
// CHECK: memref.alloc(%{{.*}}) : memref<1x4x?xf64>
// CHECK: call @ember_lapack_lstsq(%{{.*}}, %{{.*}}, %[[RC]], %{{.*}})
func.func @lstsq(%a: tensor<1x?x3xf64>, %b: tensor<1x?x2xf64>, %rcond: tensor<f64>, %w: index) -> tensor<1x4x?xf64> {
  %0 = "ember.lapack_lstsq"(%a, %b, %rcond, %w) : (tensor<1x?x3xf64>, tensor<1x?x2xf64>, tensor<f64>, index) -> tensor<1x4x?xf64>
  return %0 : tensor<1x4x?xf64>
}
