// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// Positive steps: one extract_slice; a negative start counts from the end (6 - 4 = 2).
// CHECK-LABEL: func.func @slice_static
// CHECK-SAME: (%[[A:.*]]: tensor<6x5xi32>)
// CHECK: %[[R:.*]] = tensor.extract_slice %[[A]][2, 1] [2, 2] [2, 3] : tensor<6x5xi32> to tensor<2x2xi32>
// CHECK: return %[[R]]
func.func @slice_static(%a: tensor<6x5xi32>) -> tensor<2x2xi32> {
  %0 = "ember.slice"(%a) {starts = array<i64: -4, 1>, steps = array<i64: 2, 3>} : (tensor<6x5xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// Dynamic dim, negative start: offset = max(dim - 2, 0); the ? size is the index operand.
// CHECK-LABEL: func.func @slice_dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>, %[[N:.*]]: index)
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?xf32>
// CHECK: %[[OFF:.*]] = arith.addi %[[D]], %{{.*}} : index
// CHECK: %[[CLAMPED:.*]] = arith.maxsi %[[OFF]], %{{.*}} : index
// CHECK: tensor.extract_slice %[[A]][%[[CLAMPED]]] [%[[N]]] [1] : tensor<?xf32> to tensor<?xf32>
func.func @slice_dynamic(%a: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %0 = "ember.slice"(%a, %n) {starts = array<i64: -2>, steps = array<i64: 1>} : (tensor<?xf32>, index) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Negative steps read x[first + i * step] with linalg.index and tensor.extract.
// CHECK-LABEL: func.func @slice_reversed
// CHECK-SAME: (%[[A:.*]]: tensor<6xf64>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3xf64>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<3xf64>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[OFF:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: %[[IDX:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK: %[[X:.*]] = tensor.extract %[[A]][%[[IDX]]] : tensor<6xf64>
// CHECK: linalg.yield %[[X]] : f64
func.func @slice_reversed(%a: tensor<6xf64>) -> tensor<3xf64> {
  %0 = "ember.slice"(%a) {starts = array<i64: 5>, steps = array<i64: -2>} : (tensor<6xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// CHECK-LABEL: func.func @concat_dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?x3xi1>, %[[B:.*]]: tensor<?x3xi1>)
// CHECK-DAG: %[[DA:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x3xi1>
// CHECK-DAG: %[[DB:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x3xi1>
// CHECK: %[[N:.*]] = arith.addi %[[DA]], %[[DB]] : index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3xi1>
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [%[[DA]], 3] [1, 1] : tensor<?x3xi1> into tensor<?x3xi1>
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[B]] into %[[I1]][%[[DA]], 0] [%[[DB]], 3] [1, 1] : tensor<?x3xi1> into tensor<?x3xi1>
// CHECK: return %[[I2]]
func.func @concat_dynamic(%a: tensor<?x3xi1>, %b: tensor<?x3xi1>) -> tensor<?x3xi1> {
  %0 = "ember.concatenate"(%a, %b) {axis = 0} : (tensor<?x3xi1>, tensor<?x3xi1>) -> tensor<?x3xi1>
  return %0 : tensor<?x3xi1>
}

// CHECK-LABEL: func.func @concat_static
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x5xf32>
// CHECK: %[[I1:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %[[I1]][0, 3] [2, 2] [1, 1]
func.func @concat_static(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> tensor<2x5xf32> {
  %0 = "ember.concatenate"(%a, %b) {axis = 1} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// np.concatenate of three arrays is two ops; the second takes over the first's pieces:
// one buffer, each piece inserted once (not the first two twice).
// CHECK-LABEL: func.func @concat_three
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x2xf32>, %[[C:.*]]: tensor<2x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x9xf32>
// CHECK-NOT: tensor.empty
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[B]] into %[[I1]][0, 3] [2, 2] [1, 1]
// CHECK: %[[I3:.*]] = tensor.insert_slice %[[C]] into %[[I2]][0, 5] [2, 4] [1, 1]
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[I3]]
func.func @concat_three(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>, %c: tensor<2x4xf32>) -> tensor<2x9xf32> {
  %0 = "ember.concatenate"(%a, %b) {axis = 1} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  %1 = "ember.concatenate"(%0, %c) {axis = 1} : (tensor<2x5xf32>, tensor<2x4xf32>) -> tensor<2x9xf32>
  return %1 : tensor<2x9xf32>
}

// A concatenation read by something else as well keeps its buffer; one along another
// axis is not taken over either.
// CHECK-LABEL: func.func @concat_kept
// CHECK: tensor.empty() : tensor<2x5xf32>
// CHECK: tensor.empty() : tensor<2x9xf32>
// CHECK: tensor.empty() : tensor<4x5xf32>
func.func @concat_kept(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>, %c: tensor<2x4xf32>) -> (tensor<2x5xf32>, tensor<2x9xf32>, tensor<4x5xf32>) {
  %0 = "ember.concatenate"(%a, %b) {axis = 1} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  %1 = "ember.concatenate"(%0, %c) {axis = 1} : (tensor<2x5xf32>, tensor<2x4xf32>) -> tensor<2x9xf32>
  %2 = "ember.concatenate"(%0, %0) {axis = 0} : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  return %0, %1, %2 : tensor<2x5xf32>, tensor<2x9xf32>, tensor<4x5xf32>
}

// Symbolic sizes: the offsets are sums of the pieces' sizes.
// CHECK-LABEL: func.func @concat_three_dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<?x3xf32>, %[[C:.*]]: tensor<?x3xf32>)
// CHECK-DAG: %[[DA:.*]] = tensor.dim %[[A]], %{{.*}}
// CHECK-DAG: %[[DB:.*]] = tensor.dim %[[B]], %{{.*}}
// CHECK-DAG: %[[DC:.*]] = tensor.dim %[[C]], %{{.*}}
// CHECK: %[[AB:.*]] = arith.addi %[[DA]], %[[DB]] : index
// CHECK: %[[N:.*]] = arith.addi %[[AB]], %[[DC]] : index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK-NOT: tensor.empty
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [%[[DA]], 3]
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[B]] into %[[I1]][%[[DA]], 0] [%[[DB]], 3]
// CHECK: %[[OFF:.*]] = arith.addi %[[DA]], %[[DB]] : index
// CHECK: tensor.insert_slice %[[C]] into %[[I2]][%[[OFF]], 0] [%[[DC]], 3]
func.func @concat_three_dynamic(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>, %c: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = "ember.concatenate"(%a, %b) {axis = 0} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %1 = "ember.concatenate"(%0, %c) {axis = 0} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %1 : tensor<?x3xf32>
}

// Joins nothing reads, one of an array with itself read twice by the others: their
// buffers and size arithmetic are erased, a size that two sums read once each and one
// sum reading it twice (this once erased that size twice and crashed).
// CHECK-LABEL: func.func @unread_joins
// CHECK-NOT: tensor.empty
// CHECK-NOT: tensor.insert_slice
// CHECK: return %arg0
func.func @unread_joins(%a: tensor<?xf64>) -> tensor<?xf64> {
  %0 = "ember.concatenate"(%a, %a) {axis = 0} : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %1 = "ember.concatenate"(%0, %0) {axis = 0} : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %2 = "ember.concatenate"(%0, %0) {axis = 0} : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  return %a : tensor<?xf64>
}
