// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-matmul-to-blas{force=true})' | FileCheck %s

// A batch_matmul is one gemm per batch entry: a loop over the batch, the entries'
// 2-D views (rank-reducing subviews) cast to the helper's generic type.
// CHECK-LABEL: func.func @batched
// CHECK: %[[B:.*]] = memref.dim %arg2, %c0
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[B]] step %{{.*}} {
// CHECK: memref.subview %arg0[%[[I]], 0, 0] [1, %{{.*}}, %{{.*}}] [1, 1, 1] : memref<?x?x?xf64> to memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK: memref.subview %arg1[%[[I]], 0, 0]
// CHECK: memref.subview %arg2[%[[I]], 0, 0]
// CHECK: call @ember_matmul_f64(
// CHECK-NOT: linalg.batch_matmul
func.func @batched(%a: memref<?x?x?xf64>, %b: memref<?x?x?xf64>, %c: memref<?x?x?xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf64>, memref<?x?x?xf64>) outs(%c : memref<?x?x?xf64>)
  return
}

// Two batch dims (the generic ember-to-linalg makes of a 4-D a @ b): a loop nest.
// CHECK-LABEL: func.func @two_batch_dims
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: memref.subview %arg0[%[[I]], %[[J]], 0, 0] [1, 1, %{{.*}}, %{{.*}}] [1, 1, 1, 1] : memref<2x3x4x5xf32> to memref<?x?xf32, strided<[5, 1], offset: ?>>
// CHECK: call @ember_matmul_f32(
// CHECK-NOT: linalg.generic
#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
func.func @two_batch_dims(%a: memref<2x3x4x5xf32>, %b: memref<2x3x5x6xf32>, %c: memref<2x3x4x6xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<2x3x4x5xf32>, memref<2x3x5x6xf32>) outs(%c : memref<2x3x4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Any other body (a fused producer: exp of A) stays a loop nest.
// CHECK-LABEL: func.func @not_a_plain_product
// CHECK: linalg.generic
#a3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#b3 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @not_a_plain_product(%a: memref<2x4x5xf32>, %b: memref<2x5x6xf32>, %c: memref<2x4x6xf32>) {
  linalg.generic {indexing_maps = [#a3, #b3, #c3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<2x4x5xf32>, memref<2x5x6xf32>) outs(%c : memref<2x4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %e = math.exp %x : f32
    %p = arith.mulf %e, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Small entries (32 x 32 x 32: BLAS runs each on one thread), 256 of them: the batch is
// a parallel loop, each entry's call on one thread of the pool.
// CHECK-LABEL: func.func @small_entries
// CHECK: scf.forall (%[[I:.*]]) in (%{{.*}}) {
// CHECK: memref.subview %arg0[%[[I]], 0, 0]
// CHECK: call @ember_matmul_f64(
// CHECK-NOT: scf.for
// CHECK: return
func.func @small_entries(%a: memref<256x32x32xf64>, %b: memref<256x32x32xf64>, %c: memref<256x32x32xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<256x32x32xf64>, memref<256x32x32xf64>) outs(%c : memref<256x32x32xf64>)
  return
}

// Entries BLAS threads itself (128 x 128 x 128), or too little work in all for a fork
// (four 32 x 32 x 32 entries): one call after the other.
// CHECK-LABEL: func.func @large_entries
// CHECK-NOT: scf.forall
// CHECK: scf.for
// CHECK-LABEL: func.func @few_entries
// CHECK-NOT: scf.forall
// CHECK: scf.for
func.func @large_entries(%a: memref<4x128x128xf32>, %b: memref<4x128x128xf32>, %c: memref<4x128x128xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<4x128x128xf32>, memref<4x128x128xf32>) outs(%c : memref<4x128x128xf32>)
  return
}
func.func @few_entries(%a: memref<4x32x32xf64>, %b: memref<4x32x32xf64>, %c: memref<4x32x32xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<4x32x32xf64>, memref<4x32x32xf64>) outs(%c : memref<4x32x32xf64>)
  return
}
