// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-matmul-to-blas{force=true})' | FileCheck %s

// A stack of rows times one matrix (what ember-to-linalg makes of x @ w with a 3-D+ x):
// one gemm over all rows when the helpers find them evenly spaced (views of the same
// memory as (rows, k) and (rows, n)), the contraction as loops otherwise.
// CHECK-DAG: func.func private @ember_rows_f32_4_1(%{{.*}}: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) -> (i1, memref<?x?xf32, strided<[?, ?], offset: ?>>)
// CHECK-DAG: memref.reinterpret_cast
// CHECK-DAG: func.func private @ember_rows_f64_3_0(%{{.*}}: memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>) -> (i1, memref<?xf64, strided<[?], offset: ?>>)
// CHECK-LABEL: func.func @rows
// CHECK: %[[A:.*]]:2 = call @ember_rows_f32_4_1(
// CHECK: %[[C:.*]]:2 = call @ember_rows_f32_4_1(
// CHECK: %[[OK:.*]] = arith.andi %[[A]]#0, %[[C]]#0 : i1
// CHECK: scf.if %[[OK]] {
// CHECK: func.call @ember_matmul_f32(%[[A]]#1, %{{.*}}, %[[C]]#1, %{{.*}})
// CHECK: } else {
// CHECK: linalg.contract
#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d4, d3)>
#c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
func.func @rows(%a: memref<2x3x4x5xf32>, %b: memref<5x6xf32>, %c: memref<2x3x4x6xf32>) {
  linalg.contract indexing_maps = [#a, #b, #c] ins(%a, %b : memref<2x3x4x5xf32>, memref<5x6xf32>) outs(%c : memref<2x3x4x6xf32>)
  return
}

// Times a vector: one gemv, the result's rows collapsed to a vector.
// CHECK-LABEL: func.func @rows_times_vector
// CHECK: call @ember_rows_f64_4_1(
// CHECK: call @ember_rows_f64_3_0(
// CHECK: func.call @ember_matvec_f64(
#va = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#vb = affine_map<(d0, d1, d2, d3) -> (d3)>
#vc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @rows_times_vector(%a: memref<2x3x4x5xf64>, %x: memref<5xf64>, %y: memref<2x3x4xf64>) {
  linalg.contract indexing_maps = [#va, #vb, #vc] ins(%a, %x : memref<2x3x4x5xf64>, memref<5xf64>) outs(%y : memref<2x3x4xf64>)
  return
}
