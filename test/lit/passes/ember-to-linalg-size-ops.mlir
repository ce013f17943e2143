// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// size_constant is an arith.constant of index type.
// CHECK-LABEL: func.func @constant
// CHECK-NEXT: %[[C:.*]] = arith.constant -7 : index
// CHECK-NEXT: return %[[C]] : index
func.func @constant() -> index {
  %0 = "ember.size_constant"() {value = -7 : i64} : () -> index
  return %0 : index
}

// add, sub, mul, max and min are one arith op each, on index.
// CHECK-LABEL: func.func @arith
// CHECK-SAME: (%[[A:.*]]: index, %[[B:.*]]: index)
// CHECK-NEXT: %[[ADD:.*]] = arith.addi %[[A]], %[[B]] : index
// CHECK-NEXT: %[[SUB:.*]] = arith.subi %[[A]], %[[B]] : index
// CHECK-NEXT: %[[MUL:.*]] = arith.muli %[[A]], %[[B]] : index
// CHECK-NEXT: %[[MAX:.*]] = arith.maxsi %[[A]], %[[B]] : index
// CHECK-NEXT: %[[MIN:.*]] = arith.minsi %[[A]], %[[B]] : index
// CHECK-NEXT: return %[[ADD]], %[[SUB]], %[[MUL]], %[[MAX]], %[[MIN]]
func.func @arith(%a: index, %b: index) -> (index, index, index, index, index) {
  %0 = "ember.size_arith"(%a, %b) {op = "add"} : (index, index) -> index
  %1 = "ember.size_arith"(%a, %b) {op = "sub"} : (index, index) -> index
  %2 = "ember.size_arith"(%a, %b) {op = "mul"} : (index, index) -> index
  %3 = "ember.size_arith"(%a, %b) {op = "max"} : (index, index) -> index
  %4 = "ember.size_arith"(%a, %b) {op = "min"} : (index, index) -> index
  return %0, %1, %2, %3, %4 : index, index, index, index, index
}

// Python's floor division: floordivsi, by a divisor that cannot be 0 (a 0 never
// reaches a kernel: the shape program raises first; the select keeps it from trapping).
// CHECK-LABEL: func.func @floordiv
// CHECK-SAME: (%[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : index
// CHECK: %[[SAFE:.*]] = arith.select %[[ZERO]], %{{.*}}, %[[B]] : index
// CHECK: %[[Q:.*]] = arith.floordivsi %[[A]], %[[SAFE]] : index
// CHECK: return %[[Q]] : index
func.func @floordiv(%a: index, %b: index) -> index {
  %0 = "ember.size_arith"(%a, %b) {op = "floordiv"} : (index, index) -> index
  return %0 : index
}

// Python's remainder: remsi, plus the divisor when it is nonzero and its sign
// differs from the divisor's.
// CHECK-LABEL: func.func @mod
// CHECK-SAME: (%[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[B]] : index
// CHECK: %[[R:.*]] = arith.remsi %[[A]], %[[SAFE]] : index
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[RNEG:.*]] = arith.cmpi slt, %[[R]], %[[C0]] : index
// CHECK: %[[BNEG:.*]] = arith.cmpi slt, %[[SAFE]], %[[C0]] : index
// CHECK: %[[DIFFER:.*]] = arith.xori %[[RNEG]], %[[BNEG]] : i1
// CHECK: %[[NONZERO:.*]] = arith.cmpi ne, %[[R]], %[[C0]] : index
// CHECK: %[[FIX:.*]] = arith.andi %[[NONZERO]], %[[DIFFER]] : i1
// CHECK: %[[SUM:.*]] = arith.addi %[[R]], %[[SAFE]] : index
// CHECK: %[[M:.*]] = arith.select %[[FIX]], %[[SUM]], %[[R]] : index
// CHECK: return %[[M]] : index
func.func @mod(%a: index, %b: index) -> index {
  %0 = "ember.size_arith"(%a, %b) {op = "mod"} : (index, index) -> index
  return %0 : index
}

// to_index reads the 0-d tensor and casts (i32 sign-extends); from_index casts to
// i64 and fills a 0-d tensor (a fill fuses into readers and bufferizes into the
// output). A size from to_index sizes a tensor.empty directly.
// CHECK-LABEL: func.func @conversions
// CHECK-SAME: (%[[N:.*]]: tensor<i64>, %[[M:.*]]: tensor<i32>)
// CHECK-NEXT: %[[NV:.*]] = tensor.extract %[[N]][] : tensor<i64>
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[NV]] : i64 to index
// CHECK-NEXT: %[[MV:.*]] = tensor.extract %[[M]][] : tensor<i32>
// CHECK-NEXT: %[[J:.*]] = arith.index_cast %[[MV]] : i32 to index
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[K]], %[[J]] : index
// CHECK-NEXT: %[[I64:.*]] = arith.index_cast %[[SUM]] : index to i64
// CHECK-NEXT: %[[E0:.*]] = tensor.empty() : tensor<i64>
// CHECK-NEXT: %[[T:.*]] = linalg.fill ins(%[[I64]] : i64) outs(%[[E0]] : tensor<i64>) -> tensor<i64>
// CHECK-NEXT: %[[E:.*]] = tensor.empty(%[[K]]) : tensor<?xi64>
// CHECK-NEXT: %[[IOTA:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<?xi64>)
// CHECK: return %[[T]], %[[IOTA]] : tensor<i64>, tensor<?xi64>
// CHECK-NOT: ember.
func.func @conversions(%n: tensor<i64>, %m: tensor<i32>) -> (tensor<i64>, tensor<?xi64>) {
  %k = "ember.to_index"(%n) : (tensor<i64>) -> index
  %j = "ember.to_index"(%m) : (tensor<i32>) -> index
  %sum = "ember.size_arith"(%k, %j) {op = "add"} : (index, index) -> index
  %t = "ember.from_index"(%sum) : (index) -> tensor<i64>
  %iota = "ember.iota"(%k) {axis = 0 : i64} : (index) -> tensor<?xi64>
  return %t, %iota : tensor<i64>, tensor<?xi64>
}

// x[1 : n - 1]: the slice's size operand is the subi of the dim.
// CHECK-LABEL: func.func @inner
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?xf32>
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[L:.*]] = arith.subi %[[D]], %[[C2]] : index
// CHECK: tensor.extract_slice %[[X]][%{{.*}}] [%[[L]]] [1] : tensor<?xf32> to tensor<?xf32>
func.func @inner(%x: tensor<?xf32>) -> tensor<?xf32> {
  %d = "ember.dim"(%x) {axis = 0 : i64} : (tensor<?xf32>) -> index
  %c2 = "ember.size_constant"() {value = 2 : i64} : () -> index
  %l = "ember.size_arith"(%d, %c2) {op = "sub"} : (index, index) -> index
  %0 = "ember.slice"(%x, %l) {starts = array<i64: 1>, steps = array<i64: 1>} : (tensor<?xf32>, index) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
