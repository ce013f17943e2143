// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// The affine maps print at the top of the module.
// CHECK-DAG: #[[BIN:.*]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-DAG: #[[BOUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[A:.*]]: tensor<2x?x4xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<2x?x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x2x?xf32>
// CHECK: linalg.transpose ins(%[[A]] : tensor<2x?x4xf32>) outs(%[[E]] : tensor<4x2x?xf32>) permutation = [2, 0, 1]
func.func @transpose(%a: tensor<2x?x4xf32>) -> tensor<4x2x?xf32> {
  %0 = "ember.transpose"(%a) {perm = array<i64: 2, 0, 1>} : (tensor<2x?x4xf32>) -> tensor<4x2x?xf32>
  return %0 : tensor<4x2x?xf32>
}

// Size-1 input dims read index 0; the new leading dim is not in the input map;
// the result's ? size is the op's trailing index operand.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<1x4xi32>, %[[N:.*]]: index)
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3x4xi32>
// CHECK: linalg.generic {indexing_maps = [#[[BIN]], #[[BOUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]] : tensor<1x4xi32>) outs(%[[E]] : tensor<?x3x4xi32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: linalg.yield %[[X]] : i32
func.func @broadcast(%a: tensor<1x4xi32>, %n: index) -> tensor<?x3x4xi32> {
  %0 = "ember.broadcast_to"(%a, %n) : (tensor<1x4xi32>, index) -> tensor<?x3x4xi32>
  return %0 : tensor<?x3x4xi32>
}

// CHECK-LABEL: func.func @reshape_clear
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [1, 2, 3] : tensor<6xf32> into tensor<1x2x3xf32>
func.func @reshape_clear(%a: tensor<2x3x4xf32>, %b: tensor<6xf32>) -> (tensor<6x4xf32>, tensor<1x2x3xf32>) {
  %0 = "ember.reshape"(%a) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = "ember.reshape"(%b) : (tensor<6xf32>) -> tensor<1x2x3xf32>
  return %0, %1 : tensor<6x4xf32>, tensor<1x2x3xf32>
}

// No clear grouping (or dynamic sizes): flatten to 1-d, then unflatten with the given sizes.
// CHECK-LABEL: func.func @reshape_flatten
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>, %[[N:.*]]: index)
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK: tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [2, %[[N]]] : tensor<?xf32> into tensor<2x?xf32>
func.func @reshape_flatten(%a: tensor<?x4xf32>, %n: index) -> tensor<2x?xf32> {
  %0 = "ember.reshape"(%a, %n) : (tensor<?x4xf32>, index) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// CHECK-LABEL: func.func @expand_squeeze
// CHECK-SAME: (%[[A:.*]]: tensor<3x?xf32>, %[[B:.*]]: tensor<1x?x1xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[A]]
// CHECK: tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 3, %[[D]], 1] : tensor<3x?xf32> into tensor<1x3x?x1xf32>
// CHECK: tensor.collapse_shape %[[B]] {{\[\[}}0, 1, 2]] : tensor<1x?x1xf32> into tensor<?xf32>
func.func @expand_squeeze(%a: tensor<3x?xf32>, %b: tensor<1x?x1xf32>) -> (tensor<1x3x?x1xf32>, tensor<?xf32>) {
  %0 = "ember.expand_dims"(%a) {axes = array<i64: 0, 3>} : (tensor<3x?xf32>) -> tensor<1x3x?x1xf32>
  %1 = "ember.squeeze"(%b) {axes = array<i64: 0, 2>} : (tensor<1x?x1xf32>) -> tensor<?xf32>
  return %0, %1 : tensor<1x3x?x1xf32>, tensor<?xf32>
}

// A transpose of an elementwise result that only elementwise ops read (np.exp(a.T) * b
// as the frontend traces it: np.exp(a).T * b) is a generic reading through the
// permutation, which elementwise fusion folds into both; a matmul still reads it
// through its transposed indexing (BLAS's transpose flag).
// CHECK-LABEL: func.func @transpose_between_elementwise
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3x5xf32>)
// CHECK: math.exp
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} ins(%[[E]] : tensor<3x5xf32>) outs(%{{.*}} : tensor<5x3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @transpose_between_elementwise(%a: tensor<3x5xf32>, %b: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %0 = "ember.exp"(%a) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %1 = "ember.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<3x5xf32>) -> tensor<5x3xf32>
  %2 = "ember.mul"(%1, %b) : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  return %2 : tensor<5x3xf32>
}

// CHECK-LABEL: func.func @transpose_read_by_a_matmul
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: math.exp
// CHECK-NOT: linalg.generic
// CHECK: linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%[[E]], %{{.*}} : tensor<3x5xf32>, tensor<3x4xf32>)
func.func @transpose_read_by_a_matmul(%a: tensor<3x5xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = "ember.exp"(%a) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %1 = "ember.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<3x5xf32>) -> tensor<5x3xf32>
  %2 = "ember.matmul"(%1, %b) : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %2 : tensor<5x4xf32>
}
