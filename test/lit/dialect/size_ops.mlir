// RUN: ember-opt %s | ember-opt | FileCheck %s

// The size ops: index values computed inside the graph (size_constant, size_arith),
// read from a 0-d integer tensor (to_index) and made one (from_index).

// CHECK-LABEL: func.func @sizes
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>, %[[N:.*]]: tensor<i64>, %[[M:.*]]: tensor<i32>)
func.func @sizes(%x: tensor<?x3xf32>, %n: tensor<i64>, %m: tensor<i32>) -> (tensor<?x3xf32>, tensor<i64>, tensor<?xf32>) {
  // CHECK-NEXT: %[[D:.*]] = "ember.dim"(%[[X]]) {axis = 0 : i64} : (tensor<?x3xf32>) -> index
  // CHECK-NEXT: %[[C2:.*]] = "ember.size_constant"() {value = 2 : i64} : () -> index
  // CHECK-NEXT: %[[NEG:.*]] = "ember.size_constant"() {value = -3 : i64} : () -> index
  // CHECK-NEXT: %[[SUB:.*]] = "ember.size_arith"(%[[D]], %[[C2]]) {op = "sub"} : (index, index) -> index
  // CHECK-NEXT: %[[K:.*]] = "ember.to_index"(%[[N]]) : (tensor<i64>) -> index
  // CHECK-NEXT: %[[J:.*]] = "ember.to_index"(%[[M]]) : (tensor<i32>) -> index
  // CHECK-NEXT: %[[DIV:.*]] = "ember.size_arith"(%[[K]], %[[NEG]]) {op = "floordiv"} : (index, index) -> index
  // CHECK-NEXT: %[[MOD:.*]] = "ember.size_arith"(%[[DIV]], %[[J]]) {op = "mod"} : (index, index) -> index
  // CHECK-NEXT: %[[MAX:.*]] = "ember.size_arith"(%[[MOD]], %[[SUB]]) {op = "max"} : (index, index) -> index
  // CHECK-NEXT: %[[T:.*]] = "ember.from_index"(%[[MAX]]) : (index) -> tensor<i64>
  // CHECK-NEXT: %[[S:.*]] = "ember.slice"(%[[X]], %[[SUB]]) {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : (tensor<?x3xf32>, index) -> tensor<?x3xf32>
  // CHECK-NEXT: %[[I:.*]] = "ember.iota"(%[[K]]) {axis = 0 : i64} : (index) -> tensor<?xf32>
  // CHECK-NEXT: return %[[S]], %[[T]], %[[I]]
  %d = "ember.dim"(%x) {axis = 0 : i64} : (tensor<?x3xf32>) -> index
  %c2 = "ember.size_constant"() {value = 2 : i64} : () -> index
  %neg = "ember.size_constant"() {value = -3 : i64} : () -> index
  %sub = "ember.size_arith"(%d, %c2) {op = "sub"} : (index, index) -> index
  %k = "ember.to_index"(%n) : (tensor<i64>) -> index
  %j = "ember.to_index"(%m) : (tensor<i32>) -> index
  %div = "ember.size_arith"(%k, %neg) {op = "floordiv"} : (index, index) -> index
  %mod = "ember.size_arith"(%div, %j) {op = "mod"} : (index, index) -> index
  %max = "ember.size_arith"(%mod, %sub) {op = "max"} : (index, index) -> index
  %t = "ember.from_index"(%max) : (index) -> tensor<i64>
  %s = "ember.slice"(%x, %sub) {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : (tensor<?x3xf32>, index) -> tensor<?x3xf32>
  %i = "ember.iota"(%k) {axis = 0 : i64} : (index) -> tensor<?xf32>
  return %s, %t, %i : tensor<?x3xf32>, tensor<i64>, tensor<?xf32>
}

// Every arithmetic op name parses and prints.
// CHECK-LABEL: func.func @every_op
// CHECK: {op = "add"}
// CHECK: {op = "mul"}
// CHECK: {op = "min"}
func.func @every_op(%a: index, %b: index) -> (index, index, index) {
  %0 = "ember.size_arith"(%a, %b) {op = "add"} : (index, index) -> index
  %1 = "ember.size_arith"(%a, %b) {op = "mul"} : (index, index) -> index
  %2 = "ember.size_arith"(%a, %b) {op = "min"} : (index, index) -> index
  return %0, %1, %2 : index, index, index
}
