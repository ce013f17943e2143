// RUN: ember-opt %s | ember-opt | FileCheck %s

// CHECK-LABEL: func.func @slices
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<6x5xf32>)
func.func @slices(%x: tensor<4xf32>, %m: tensor<6x5xf32>) -> (tensor<4xf32>, tensor<3x2xf32>) {
  // CHECK-NEXT: %[[REV:.*]] = "ember.slice"(%[[X]]) {starts = array<i64: -1>, steps = array<i64: -1>} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %[[SUB:.*]] = "ember.slice"(%[[M]]) {starts = array<i64: 1, 1>, steps = array<i64: 2, 2>} : (tensor<6x5xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: return %[[REV]], %[[SUB]]
  %0 = "ember.slice"(%x) {starts = array<i64: -1>, steps = array<i64: -1>} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "ember.slice"(%m) {starts = array<i64: 1, 1>, steps = array<i64: 2, 2>} : (tensor<6x5xf32>) -> tensor<3x2xf32>
  return %0, %1 : tensor<4xf32>, tensor<3x2xf32>
}

// CHECK-LABEL: func.func @dynamic_slice
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>, %[[N:.*]]: index)
func.func @dynamic_slice(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  // CHECK-NEXT: "ember.slice"(%[[X]], %[[N]]) {starts = array<i64: 1>, steps = array<i64: 1>} : (tensor<?xf32>, index) -> tensor<?xf32>
  %0 = "ember.slice"(%x, %n) {starts = array<i64: 1>, steps = array<i64: 1>} : (tensor<?xf32>, index) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x?xf32>)
func.func @concatenate(%a: tensor<2x3xf32>, %b: tensor<2x?xf32>) -> (tensor<4x3xf32>, tensor<2x?xf32>) {
  // CHECK-NEXT: %[[C0:.*]] = "ember.concatenate"(%[[A]], %[[A]]) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: %[[C1:.*]] = "ember.concatenate"(%[[A]], %[[B]]) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK-NEXT: return %[[C0]], %[[C1]]
  %0 = "ember.concatenate"(%a, %a) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %1 = "ember.concatenate"(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<2x?xf32>
}
