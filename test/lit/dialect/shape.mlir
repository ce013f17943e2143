// RUN: ember-opt %s | ember-opt | FileCheck %s

// Shape ops; dynamic result sizes travel as trailing index operands.

// CHECK-LABEL: func.func @shape_ops
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<1xf32>, %[[D:.*]]: index)
func.func @shape_ops(%x: tensor<2x3xf32>, %y: tensor<1xf32>, %d: index) -> (tensor<3x2xf32>, tensor<?xf32>, tensor<6xf32>, tensor<2x1x3xf32>, tensor<2x3xf32>) {
  // CHECK-NEXT: %[[T:.*]] = "ember.transpose"(%[[X]]) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: %[[BC:.*]] = "ember.broadcast_to"(%[[Y]], %[[D]]) : (tensor<1xf32>, index) -> tensor<?xf32>
  // CHECK-NEXT: %[[R:.*]] = "ember.reshape"(%[[X]]) : (tensor<2x3xf32>) -> tensor<6xf32>
  // CHECK-NEXT: %[[E:.*]] = "ember.expand_dims"(%[[X]]) {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  // CHECK-NEXT: %[[S:.*]] = "ember.squeeze"(%[[E]]) {axes = array<i64: 1>} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: return %[[T]], %[[BC]], %[[R]], %[[E]], %[[S]]
  %0 = "ember.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "ember.broadcast_to"(%y, %d) : (tensor<1xf32>, index) -> tensor<?xf32>
  %2 = "ember.reshape"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  %3 = "ember.expand_dims"(%x) {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  %4 = "ember.squeeze"(%3) {axes = array<i64: 1>} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<3x2xf32>, tensor<?xf32>, tensor<6xf32>, tensor<2x1x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @dynamic_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[N:.*]]: index)
func.func @dynamic_reshape(%x: tensor<?x4xf32>, %n: index) -> tensor<?x2x2xf32> {
  // CHECK-NEXT: %[[R:.*]] = "ember.reshape"(%[[X]], %[[N]]) : (tensor<?x4xf32>, index) -> tensor<?x2x2xf32>
  %0 = "ember.reshape"(%x, %n) : (tensor<?x4xf32>, index) -> tensor<?x2x2xf32>
  return %0 : tensor<?x2x2xf32>
}
