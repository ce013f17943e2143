// RUN: ember-opt %s | ember-opt | FileCheck %s

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>)
func.func @reductions(%x: tensor<4x?xf32>) -> (tensor<4xf32>, tensor<1x?xf32>, tensor<f32>, tensor<4x1xf32>, tensor<f32>) {
  // CHECK-NEXT: %[[SUM:.*]] = "ember.sum"(%[[X]]) {axes = array<i64: 1>, keepdims = false} : (tensor<4x?xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %[[MEAN:.*]] = "ember.mean"(%[[X]]) {axes = array<i64: 0>, keepdims = true} : (tensor<4x?xf32>) -> tensor<1x?xf32>
  // CHECK-NEXT: %[[MAX:.*]] = "ember.max"(%[[X]]) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<4x?xf32>) -> tensor<f32>
  // CHECK-NEXT: %[[MIN:.*]] = "ember.min"(%[[X]]) {axes = array<i64: 1>, keepdims = true} : (tensor<4x?xf32>) -> tensor<4x1xf32>
  // CHECK-NEXT: %[[PROD:.*]] = "ember.prod"(%[[SUM]]) {axes = array<i64: 0>, keepdims = false} : (tensor<4xf32>) -> tensor<f32>
  // CHECK-NEXT: return %[[SUM]], %[[MEAN]], %[[MAX]], %[[MIN]], %[[PROD]]
  %0 = "ember.sum"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<4x?xf32>) -> tensor<4xf32>
  %1 = "ember.mean"(%x) {axes = array<i64: 0>, keepdims = true} : (tensor<4x?xf32>) -> tensor<1x?xf32>
  %2 = "ember.max"(%x) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<4x?xf32>) -> tensor<f32>
  %3 = "ember.min"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<4x?xf32>) -> tensor<4x1xf32>
  %4 = "ember.prod"(%0) {axes = array<i64: 0>, keepdims = false} : (tensor<4xf32>) -> tensor<f32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<1x?xf32>, tensor<f32>, tensor<4x1xf32>, tensor<f32>
}
