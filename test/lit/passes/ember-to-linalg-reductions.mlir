// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @sum_rows
// CHECK-SAME: (%[[A:.*]]: tensor<4x?xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]] : tensor<4x?xf32>) outs(%[[F]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] fastmath<reassoc> : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @sum_rows(%a: tensor<4x?xf32>) -> tensor<4xf32> {
  %0 = "ember.sum"(%a) {axes = array<i64: 1>, keepdims = false} : (tensor<4x?xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// keepdims over an axis before a kept one: no reshape, the reduction loop in the
// axis's place (the loops walk the input in memory order) writing row 0 of the
// output; max on floats starts at -inf and propagates NaN.
// CHECK-LABEL: func.func @max_keepdims
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<1x?xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<3x?xf32>)
// CHECK-SAME: outs(%[[INIT]] : tensor<1x?xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: tensor.expand_shape
func.func @max_keepdims(%a: tensor<3x?xf32>) -> tensor<1x?xf32> {
  %0 = "ember.max"(%a) {axes = array<i64: 0>, keepdims = true} : (tensor<3x?xf32>) -> tensor<1x?xf32>
  return %0 : tensor<1x?xf32>
}

// keepdims over the last axis: the reduced axis stays a loop of extent 1, the
// reduction loop last (a row's reduction and its broadcast consumer tile together).
// CHECK-LABEL: func.func @sum_keepdims_last
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<3x?xf32>)
// CHECK-SAME: outs(%{{.*}} : tensor<3x1xf32>)
func.func @sum_keepdims_last(%a: tensor<3x?xf32>) -> tensor<3x1xf32> {
  %0 = "ember.sum"(%a) {axes = array<i64: 1>, keepdims = true} : (tensor<3x?xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// Integer and bool identities: INT_MAX for min, true for bool min (andi), 1 for prod.
// CHECK-LABEL: func.func @int_and_bool
// CHECK: arith.constant 2147483647 : i32
// CHECK: arith.minsi
// CHECK: arith.constant true
// CHECK: arith.andi
// CHECK: arith.constant 1 : i64
// CHECK: arith.muli
func.func @int_and_bool(%i: tensor<5xi32>, %p: tensor<5xi1>, %j: tensor<5xi64>) -> (tensor<i32>, tensor<i1>, tensor<i64>) {
  %0 = "ember.min"(%i) {axes = array<i64: 0>, keepdims = false} : (tensor<5xi32>) -> tensor<i32>
  %1 = "ember.min"(%p) {axes = array<i64: 0>, keepdims = false} : (tensor<5xi1>) -> tensor<i1>
  %2 = "ember.prod"(%j) {axes = array<i64: 0>, keepdims = false} : (tensor<5xi64>) -> tensor<i64>
  return %0, %1, %2 : tensor<i32>, tensor<i1>, tensor<i64>
}

// mean = sum / count, the count multiplied from the (dynamic) reduced dims.
// CHECK-LABEL: func.func @mean_all
// CHECK-SAME: (%[[A:.*]]: tensor<?x3xf64>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: %[[D:.*]] = tensor.dim %[[A]]
// CHECK: %[[N:.*]] = arith.muli %[[D]], %{{.*}} : index
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[NF:.*]] = arith.sitofp %[[N64]] : i64 to f64
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x1xf64>)
// CHECK: arith.divf %{{.*}}, %[[NF]] : f64
// CHECK-NOT: tensor.expand_shape
func.func @mean_all(%a: tensor<?x3xf64>) -> tensor<1x1xf64> {
  %0 = "ember.mean"(%a) {axes = array<i64: 0, 1>, keepdims = true} : (tensor<?x3xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}

// Reducing over no axes is the identity.
// CHECK-LABEL: func.func @no_axes
// CHECK-SAME: (%[[A:.*]]: tensor<2xf32>)
// CHECK-NEXT: return %[[A]]
func.func @no_axes(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "ember.sum"(%a) {axes = array<i64>, keepdims = false} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Fewer than 8 elements (static sizes) are added in turn, as NumPy adds so few: the
// combine is not reassociable; 8 or more may be added in vector lanes.
// CHECK-LABEL: func.func @sum_few
// CHECK: arith.addf %{{[^ ]*}}, %{{[^ ]*}} : f64
// CHECK-LABEL: func.func @sum_eight
// CHECK: arith.addf %{{[^ ]*}}, %{{[^ ]*}} fastmath<reassoc> : f64
func.func @sum_few(%a: tensor<2x3xf64>) -> tensor<f64> {
  %0 = "ember.sum"(%a) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<2x3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func @sum_eight(%a: tensor<2x4xf64>) -> tensor<f64> {
  %0 = "ember.sum"(%a) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<2x4xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
