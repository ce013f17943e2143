// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s
// RUN: ember-opt %s -p lower-to-loops | FileCheck %s --check-prefix=LOOPS

// A stable merge sort per line along axis 0 of a symbolic-size matrix: one loop over
// the other dim, the line loaded from the operand, 32 double passes guarded by
// width < n, and merges that take the right element only when it sorts strictly
// before the left one (NaN last: olt, or the left is NaN and the right is not).
// CHECK-LABEL: func.func @argsort_columns
// CHECK: %[[N:.+]] = tensor.dim %{{.*}}, %c0
// CHECK: tensor.empty(%[[N]]) : tensor<?x5xf32>
// CHECK: tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: tensor.empty(%[[N]]) : tensor<?x5xi64>
// CHECK: tensor.empty(%[[N]]) : tensor<?xi64>
// CHECK: scf.for %[[COL:.+]] = %{{.*}} to %c5
// CHECK: scf.for %[[K:.+]] = %{{.*}} to %[[N]]
// CHECK: tensor.extract %{{.*}}[%[[K]], %[[COL]]] : tensor<?x5xf32>
// CHECK: arith.index_cast %[[K]] : index to i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32
// CHECK: %[[W:.+]] = arith.shli
// CHECK: arith.cmpi slt, %[[W]], %[[N]]
// CHECK: scf.if
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ord
// CHECK: arith.select
// CHECK: tensor.insert {{.*}} : tensor<?xf32>
// CHECK: tensor.insert {{.*}} : tensor<?xi64>
// CHECK-NOT: ember.
// CHECK: return
func.func @argsort_columns(%x: tensor<?x5xf32>) -> tensor<?x5xi64> {
  %0 = "ember.argsort"(%x) {axis = 0 : i64} : (tensor<?x5xf32>) -> tensor<?x5xi64>
  return %0 : tensor<?x5xi64>
}

// Integers compare signed, and bufferization keeps everything in place: the sorted
// keys are the output buffer, with one scratch line allocated per call.
// LOOPS-LABEL: func.func @sort_rows
// LOOPS-SAME: %[[OUT:[a-z0-9_]+]]: memref<3x8xi32>
// LOOPS: memref.alloc() {{.*}} : memref<8xi32>
// LOOPS-NOT: memref.alloc
// LOOPS: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// LOOPS: memref.store %{{.*}}, %[[OUT]]
// LOOPS: memref.dealloc
func.func @sort_rows(%x: tensor<3x8xi32>) -> tensor<3x8xi32> {
  %0 = "ember.sort"(%x) {axis = 1 : i64} : (tensor<3x8xi32>) -> tensor<3x8xi32>
  return %0 : tensor<3x8xi32>
}
