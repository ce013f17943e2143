// RUN: ember-opt %s -p ember-bufferize | FileCheck %s

// Two updates of one computed tensor, each returned (canonicalization leaves this when
// `b[...] = a; a[...] = t; t[1:] = ...` folds an update of an update): the second update
// works on a copy of t, so each result has a buffer of its own. Before, t was computed
// in the first output and both updates landed there.

#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @two_updates
// CHECK-SAME: %[[Z:[a-z0-9]+]]: memref<3xf64, {{[^%]*}}%[[X:[a-z0-9]+]]: memref<2xf64, {{[^%]*}}%[[Y:[a-z0-9]+]]: memref<2xf64, {{[^%]*}}%[[OUT0:[a-z0-9]+]]: memref<3xf64> {llvm.noalias}, %[[OUT1:[a-z0-9]+]]: memref<3xf64> {llvm.noalias}
// CHECK: linalg.generic {{.*}} outs(%[[OUT1]] :
// CHECK: %[[COPY:.*]] = memref.alloc()
// CHECK: linalg.copy {{.*}} ins(%[[OUT1]] {{.*}} outs(%[[COPY]] :
// CHECK: %[[A:.*]] = memref.subview %[[COPY]][1] [2] [1]
// CHECK: linalg.copy {{.*}} ins(%[[X]] {{.*}} outs(%[[A]] :
// CHECK: linalg.copy {{.*}} ins(%[[OUT1]] {{.*}} outs(%[[OUT0]] :
// CHECK: %[[B:.*]] = memref.subview %[[OUT0]][1] [2] [1]
// CHECK: linalg.copy {{.*}} ins(%[[Y]] {{.*}} outs(%[[B]] :
// CHECK: linalg.copy {{.*}} ins(%[[COPY]] {{.*}} outs(%[[OUT1]] :
// CHECK: return
func.func @two_updates(%z: tensor<3xf64>, %x: tensor<2xf64>, %y: tensor<2xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %e = tensor.empty() : tensor<3xf64>
  %t = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%z : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%in: f64, %out: f64):
    %d = arith.addf %in, %in : f64
    linalg.yield %d : f64
  } -> tensor<3xf64>
  %a = tensor.insert_slice %x into %t[1] [2] [1] : tensor<2xf64> into tensor<3xf64>
  %b = tensor.insert_slice %y into %t[1] [2] [1] : tensor<2xf64> into tensor<3xf64>
  return %b, %a : tensor<3xf64>, tensor<3xf64>
}
