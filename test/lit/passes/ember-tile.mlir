// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-tile{tile-bytes=4096})' | FileCheck %s

// An elementwise op is tiled along its only loop: 4096 bytes / (3 operands x 4 bytes).
// CHECK: #[[OFFSET:.*]] = affine_map<(d0) -> (d0 * 341)>
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]]) in (%{{.*}}) shared_outs(%[[O:.*]] = %{{.*}})
// CHECK: %[[OFF:.*]] = affine.apply #[[OFFSET]](%[[I]])
// CHECK: %[[A:.*]] = tensor.extract_slice %arg0[%[[OFF]]]
// CHECK: %[[B:.*]] = tensor.extract_slice %arg1[%[[OFF]]]
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] :
// CHECK: tensor.parallel_insert_slice {{.*}} into %[[O]][%[[OFF]]]
// CHECK: return %[[R]]
#id1 = affine_map<(d0) -> (d0)>
func.func @elementwise(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// A column sum reduces d0; the tile loop runs over the parallel d1 instead.
// CHECK-LABEL: func.func @column_sum
// CHECK: scf.forall (%[[J:.*]]) in (5)
// CHECK: %[[COL:.*]] = affine.apply #{{.*}}(%[[J]])
// CHECK: tensor.extract_slice %arg0[0, %[[COL]]] [128, %{{.*}}] [1, 1]
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
#in = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @column_sum(%x: tensor<128x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<128x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// A reduction to a scalar has no parallel loop: it is left alone.
// CHECK-LABEL: func.func @total
// CHECK-NOT: scf.forall
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]
#all = affine_map<(d0) -> ()>
func.func @total(%x: tensor<?xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = linalg.generic {indexing_maps = [#id1, #all], iterator_types = ["reduction"]} ins(%x : tensor<?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}
