// RUN: ember-opt %s | ember-opt | FileCheck %s

// Unary and binary elementwise ops round-trip in generic form, dynamic sizes kept.

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>, %[[B:.*]]: tensor<3xi1>)
func.func @unary(%x: tensor<4x?xf32>, %b: tensor<3xi1>) -> (tensor<4x?xf32>, tensor<3xi1>) {
  // CHECK-NEXT: %[[NEG:.*]] = "ember.neg"(%[[X]]) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  // CHECK-NEXT: %[[EXP:.*]] = "ember.exp"(%[[NEG]]) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  // CHECK-NEXT: %[[TANH:.*]] = "ember.tanh"(%[[EXP]])
  // CHECK-NEXT: %[[SIG:.*]] = "ember.sigmoid"(%[[TANH]])
  // CHECK-NEXT: %[[FLOOR:.*]] = "ember.floor"(%[[SIG]])
  // CHECK-NEXT: %[[NOT:.*]] = "ember.logical_not"(%[[B]]) : (tensor<3xi1>) -> tensor<3xi1>
  // CHECK-NEXT: return %[[FLOOR]], %[[NOT]]
  %0 = "ember.neg"(%x) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  %1 = "ember.exp"(%0) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  %2 = "ember.tanh"(%1) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  %3 = "ember.sigmoid"(%2) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  %4 = "ember.floor"(%3) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  %5 = "ember.logical_not"(%b) : (tensor<3xi1>) -> tensor<3xi1>
  return %4, %5 : tensor<4x?xf32>, tensor<3xi1>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<4x?xf32>, %[[B:.*]]: tensor<4x?xf32>, %[[I:.*]]: tensor<8xi32>)
func.func @binary(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>, %i: tensor<8xi32>) -> (tensor<4x?xf32>, tensor<8xi32>) {
  // CHECK-NEXT: %[[ADD:.*]] = "ember.add"(%[[A]], %[[B]]) : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  // CHECK-NEXT: %[[SUB:.*]] = "ember.sub"(%[[ADD]], %[[B]])
  // CHECK-NEXT: %[[MUL:.*]] = "ember.mul"(%[[SUB]], %[[A]])
  // CHECK-NEXT: %[[DIV:.*]] = "ember.div"(%[[MUL]], %[[B]])
  // CHECK-NEXT: %[[POW:.*]] = "ember.pow"(%[[DIV]], %[[A]])
  // CHECK-NEXT: %[[MAX:.*]] = "ember.maximum"(%[[POW]], %[[A]])
  // CHECK-NEXT: %[[AND:.*]] = "ember.and"(%[[I]], %[[I]]) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  // CHECK-NEXT: %[[MOD:.*]] = "ember.mod"(%[[AND]], %[[I]])
  // CHECK-NEXT: return %[[MAX]], %[[MOD]]
  %0 = "ember.add"(%a, %b) : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %1 = "ember.sub"(%0, %b) : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %2 = "ember.mul"(%1, %a) : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %3 = "ember.div"(%2, %b) : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %4 = "ember.pow"(%3, %a) : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %5 = "ember.maximum"(%4, %a) : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %6 = "ember.and"(%i, %i) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %7 = "ember.mod"(%6, %i) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  return %5, %7 : tensor<4x?xf32>, tensor<8xi32>
}
