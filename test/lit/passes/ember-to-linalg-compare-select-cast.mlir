// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// Float != is unordered (NaN != NaN), other float predicates ordered; ints signed; bools unsigned.
// CHECK-LABEL: func.func @compare
// CHECK: linalg.generic
// CHECK: arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : i32
// CHECK: linalg.generic
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i1
// CHECK-NOT: ember.
func.func @compare(%a: tensor<?xf32>, %b: tensor<?xf32>, %i: tensor<?xi32>, %p: tensor<?xi1>) -> (tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>) {
  %0 = "ember.cmp"(%a, %b) {predicate = "ne"} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
  %1 = "ember.cmp"(%a, %b) {predicate = "lt"} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
  %2 = "ember.cmp"(%i, %i) {predicate = "ge"} : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
  %3 = "ember.cmp"(%p, %p) {predicate = "lt"} : (tensor<?xi1>, tensor<?xi1>) -> tensor<?xi1>
  return %0, %1, %2, %3 : tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>
}

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[C:.*]]: tensor<2x3xi1>, %[[A:.*]]: tensor<2x3xf64>, %[[B:.*]]: tensor<2x3xf64>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf64>
// CHECK: linalg.generic {{.*}} ins(%[[C]], %[[A]], %[[B]] : tensor<2x3xi1>, tensor<2x3xf64>, tensor<2x3xf64>) outs(%[[E]] : tensor<2x3xf64>)
// CHECK-NEXT: ^bb0(%[[P:.*]]: i1, %[[X:.*]]: f64, %[[Y:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[S:.*]] = arith.select %[[P]], %[[X]], %[[Y]] : f64
// CHECK-NEXT: linalg.yield %[[S]] : f64
func.func @select(%c: tensor<2x3xi1>, %a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = "ember.select"(%c, %a, %b) : (tensor<2x3xi1>, tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// NumPy astype: float->int truncates, x->bool is != 0 (NaN is truthy), bool->int zero-extends.
// CHECK-LABEL: func.func @casts
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK: arith.extui %{{.*}} : i1 to i64
// CHECK: arith.uitofp %{{.*}} : i1 to f64
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.sitofp %{{.*}} : i64 to f32
func.func @casts(%f: tensor<?xf32>, %i: tensor<?xi64>, %p: tensor<?xi1>, %j: tensor<?xi32>, %d: tensor<?xf64>) -> (tensor<?xi32>, tensor<?xi1>, tensor<?xi1>, tensor<?xi64>, tensor<?xf64>, tensor<?xi64>, tensor<?xi32>, tensor<?xf64>, tensor<?xf32>, tensor<?xf32>) {
  %0 = "ember.cast"(%f) : (tensor<?xf32>) -> tensor<?xi32>
  %1 = "ember.cast"(%f) : (tensor<?xf32>) -> tensor<?xi1>
  %2 = "ember.cast"(%i) : (tensor<?xi64>) -> tensor<?xi1>
  %3 = "ember.cast"(%p) : (tensor<?xi1>) -> tensor<?xi64>
  %4 = "ember.cast"(%p) : (tensor<?xi1>) -> tensor<?xf64>
  %5 = "ember.cast"(%j) : (tensor<?xi32>) -> tensor<?xi64>
  %6 = "ember.cast"(%i) : (tensor<?xi64>) -> tensor<?xi32>
  %7 = "ember.cast"(%f) : (tensor<?xf32>) -> tensor<?xf64>
  %8 = "ember.cast"(%d) : (tensor<?xf64>) -> tensor<?xf32>
  %9 = "ember.cast"(%i) : (tensor<?xi64>) -> tensor<?xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<?xi32>, tensor<?xi1>, tensor<?xi1>, tensor<?xi64>, tensor<?xf64>, tensor<?xi64>, tensor<?xi32>, tensor<?xf64>, tensor<?xf32>, tensor<?xf32>
}

// A cast to the same type is no op at all.
// CHECK-LABEL: func.func @same_cast
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32>)
// CHECK-NEXT: return %[[A]]
func.func @same_cast(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "ember.cast"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
