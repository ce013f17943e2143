// RUN: ember-opt %s | ember-opt | FileCheck %s

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<?x8xf32>, %[[B:.*]]: tensor<8x16xf32>, %[[V:.*]]: tensor<8xf32>)
func.func @matmul(%a: tensor<?x8xf32>, %b: tensor<8x16xf32>, %v: tensor<8xf32>) -> (tensor<?x16xf32>, tensor<?xf32>) {
  // CHECK-NEXT: %[[MM:.*]] = "ember.matmul"(%[[A]], %[[B]]) : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  // CHECK-NEXT: %[[MV:.*]] = "ember.matmul"(%[[A]], %[[V]]) : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?xf32>
  // CHECK-NEXT: return %[[MM]], %[[MV]]
  %0 = "ember.matmul"(%a, %b) : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  %1 = "ember.matmul"(%a, %v) : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?xf32>
  return %0, %1 : tensor<?x16xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @batched
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf64>, %[[B:.*]]: tensor<2x4x5xf64>)
func.func @batched(%a: tensor<2x3x4xf64>, %b: tensor<2x4x5xf64>) -> tensor<2x3x5xf64> {
  // CHECK-NEXT: %[[MM:.*]] = "ember.matmul"(%[[A]], %[[B]]) : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>
  // CHECK-NEXT: return %[[MM]]
  %0 = "ember.matmul"(%a, %b) : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>
  return %0 : tensor<2x3x5xf64>
}
