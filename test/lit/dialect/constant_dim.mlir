// RUN: ember-opt %s | ember-opt | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<2x2xi64>, tensor<i1>) {
  // CHECK-NEXT: %[[SPLAT:.*]] = "ember.constant"() {value = dense<1.000000e+00> : tensor<2xf32>} : () -> tensor<2xf32>
  // CHECK-NEXT: %[[INTS:.*]] = "ember.constant"() {value = dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  // CHECK-NEXT: %[[BOOL:.*]] = "ember.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  // CHECK-NEXT: return %[[SPLAT]], %[[INTS]], %[[BOOL]]
  %0 = "ember.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = "ember.constant"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  %2 = "ember.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  return %0, %1, %2 : tensor<2xf32>, tensor<2x2xi64>, tensor<i1>
}

// CHECK-LABEL: func.func @dims
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
func.func @dims(%x: tensor<?x3xf32>) -> (index, index) {
  // CHECK-NEXT: %[[D0:.*]] = "ember.dim"(%[[X]]) {axis = 0 : i64} : (tensor<?x3xf32>) -> index
  // CHECK-NEXT: %[[D1:.*]] = "ember.dim"(%[[X]]) {axis = 1 : i64} : (tensor<?x3xf32>) -> index
  // CHECK-NEXT: return %[[D0]], %[[D1]] : index, index
  %0 = "ember.dim"(%x) {axis = 0 : i64} : (tensor<?x3xf32>) -> index
  %1 = "ember.dim"(%x) {axis = 1 : i64} : (tensor<?x3xf32>) -> index
  return %0, %1 : index, index
}
