// RUN: ember-opt %s | ember-opt | FileCheck %s

// update_slice: dest with the region dest[start::step, ...] of src's shape replaced
// by src; the result has dest's type. Sizes may be static or ?.
// CHECK-LABEL: func.func @update_slice
// CHECK-SAME: (%[[A:.*]]: tensor<6x5xf32>, %[[S:.*]]: tensor<2x3xf32>, %[[D:.*]]: tensor<?x?xi1>, %[[T:.*]]: tensor<?x1xi1>)
func.func @update_slice(%a: tensor<6x5xf32>, %s: tensor<2x3xf32>, %d: tensor<?x?xi1>, %t: tensor<?x1xi1>) -> (tensor<6x5xf32>, tensor<6x5xf32>, tensor<?x?xi1>) {
  // CHECK-NEXT: %[[U0:.*]] = "ember.update_slice"(%[[A]], %[[S]]) {starts = array<i64: 1, 0>, steps = array<i64: 3, 2>} : (tensor<6x5xf32>, tensor<2x3xf32>) -> tensor<6x5xf32>
  // CHECK-NEXT: %[[U1:.*]] = "ember.update_slice"(%[[U0]], %[[S]]) {starts = array<i64: -1, -1>, steps = array<i64: -2, -1>} : (tensor<6x5xf32>, tensor<2x3xf32>) -> tensor<6x5xf32>
  // CHECK-NEXT: %[[U2:.*]] = "ember.update_slice"(%[[D]], %[[T]]) {starts = array<i64: 0, -1>, steps = array<i64: 1, 1>} : (tensor<?x?xi1>, tensor<?x1xi1>) -> tensor<?x?xi1>
  // CHECK-NEXT: return %[[U0]], %[[U1]], %[[U2]]
  %0 = "ember.update_slice"(%a, %s) {starts = array<i64: 1, 0>, steps = array<i64: 3, 2>} : (tensor<6x5xf32>, tensor<2x3xf32>) -> tensor<6x5xf32>
  %1 = "ember.update_slice"(%0, %s) {starts = array<i64: -1, -1>, steps = array<i64: -2, -1>} : (tensor<6x5xf32>, tensor<2x3xf32>) -> tensor<6x5xf32>
  %2 = "ember.update_slice"(%d, %t) {starts = array<i64: 0, -1>, steps = array<i64: 1, 1>} : (tensor<?x?xi1>, tensor<?x1xi1>) -> tensor<?x?xi1>
  return %0, %1, %2 : tensor<6x5xf32>, tensor<6x5xf32>, tensor<?x?xi1>
}

// iota: result[i0, i1, ...] = i_axis for the declared result type, one index operand
// per ? of the result.
// CHECK-LABEL: func.func @iota
// CHECK-SAME: (%[[N:.*]]: index)
func.func @iota(%n: index) -> (tensor<4xi32>, tensor<?x3xf64>, tensor<?x3xi64>) {
  // CHECK-NEXT: %[[I0:.*]] = "ember.iota"() {axis = 0 : i64} : () -> tensor<4xi32>
  // CHECK-NEXT: %[[I1:.*]] = "ember.iota"(%[[N]]) {axis = 1 : i64} : (index) -> tensor<?x3xf64>
  // CHECK-NEXT: %[[I2:.*]] = "ember.iota"(%[[N]]) {axis = 0 : i64} : (index) -> tensor<?x3xi64>
  // CHECK-NEXT: return %[[I0]], %[[I1]], %[[I2]]
  %0 = "ember.iota"() {axis = 0 : i64} : () -> tensor<4xi32>
  %1 = "ember.iota"(%n) {axis = 1 : i64} : (index) -> tensor<?x3xf64>
  %2 = "ember.iota"(%n) {axis = 0 : i64} : (index) -> tensor<?x3xi64>
  return %0, %1, %2 : tensor<4xi32>, tensor<?x3xf64>, tensor<?x3xi64>
}
