// RUN: ember-opt %s | ember-opt | FileCheck %s

// CHECK-LABEL: func.func @cmp_select
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>, %[[B:.*]]: tensor<?xf32>)
func.func @cmp_select(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK-NEXT: %[[LT:.*]] = "ember.cmp"(%[[A]], %[[B]]) {predicate = "lt"} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
  // CHECK-NEXT: %[[SEL:.*]] = "ember.select"(%[[LT]], %[[A]], %[[B]]) : (tensor<?xi1>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  // CHECK-NEXT: return %[[SEL]]
  %0 = "ember.cmp"(%a, %b) {predicate = "lt"} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
  %1 = "ember.select"(%0, %a, %b) : (tensor<?xi1>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}

// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi32>)
func.func @casts(%x: tensor<2x3xi32>) -> tensor<2x3xi1> {
  // CHECK-NEXT: %[[F:.*]] = "ember.cast"(%[[X]]) : (tensor<2x3xi32>) -> tensor<2x3xf64>
  // CHECK-NEXT: %[[B:.*]] = "ember.cast"(%[[F]]) : (tensor<2x3xf64>) -> tensor<2x3xi1>
  // CHECK-NEXT: return %[[B]]
  %0 = "ember.cast"(%x) : (tensor<2x3xi32>) -> tensor<2x3xf64>
  %1 = "ember.cast"(%0) : (tensor<2x3xf64>) -> tensor<2x3xi1>
  return %1 : tensor<2x3xi1>
}
