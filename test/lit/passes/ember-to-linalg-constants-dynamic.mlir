// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// CHECK-LABEL: func.func @constants
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>
// CHECK: %[[S:.*]] = arith.constant dense<7> : tensor<i64>
// CHECK: %[[B:.*]] = arith.constant dense<[true, false]> : tensor<2xi1>
// CHECK: return %[[C]], %[[S]], %[[B]]
func.func @constants() -> (tensor<1x2xf32>, tensor<i64>, tensor<2xi1>) {
  %0 = "ember.constant"() {value = dense<[[1.0, 2.0]]> : tensor<1x2xf32>} : () -> tensor<1x2xf32>
  %1 = "ember.constant"() {value = dense<7> : tensor<i64>} : () -> tensor<i64>
  %2 = "ember.constant"() {value = dense<[true, false]> : tensor<2xi1>} : () -> tensor<2xi1>
  return %0, %1, %2 : tensor<1x2xf32>, tensor<i64>, tensor<2xi1>
}

// ember.dim is tensor.dim; a dim feeding a result size flows straight into tensor.empty.
// CHECK-LABEL: func.func @dim_sizes
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %[[C0]] : tensor<?x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK: %[[BC:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<4xf32>) outs(%[[E]] : tensor<?x4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[BC]] : tensor<?x4xf32>, tensor<?x4xf32>) outs(%[[E2]] : tensor<?x4xf32>)
// CHECK: arith.mulf
// CHECK-NOT: ember.
func.func @dim_sizes(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %n = "ember.dim"(%a) {axis = 0} : (tensor<?x4xf32>) -> index
  %0 = "ember.broadcast_to"(%b, %n) : (tensor<4xf32>, index) -> tensor<?x4xf32>
  %1 = "ember.mul"(%a, %0) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// Every ? of every result is sized, all the way down a mixed chain.
// CHECK-LABEL: func.func @dynamic_chain
// CHECK-NOT: ember.
// CHECK: linalg.transpose
// CHECK: linalg.generic
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: return
func.func @dynamic_chain(%a: tensor<?x?xf64>) -> tensor<?xf64> {
  %0 = "ember.transpose"(%a) {perm = array<i64: 1, 0>} : (tensor<?x?xf64>) -> tensor<?x?xf64>
  %1 = "ember.tanh"(%0) : (tensor<?x?xf64>) -> tensor<?x?xf64>
  %2 = "ember.max"(%1) {axes = array<i64: 1>, keepdims = false} : (tensor<?x?xf64>) -> tensor<?xf64>
  return %2 : tensor<?xf64>
}
