// RUN: ember-opt %s | ember-opt | FileCheck %s

// complex<f32>/complex<f64> element types round-trip; the complex-only ops give the part's type.

// CHECK-LABEL: func.func @complex_ops
// CHECK-SAME: (%[[Z:.*]]: tensor<2x?xcomplex<f64>>, %[[R:.*]]: tensor<3xf32>)
func.func @complex_ops(%z: tensor<2x?xcomplex<f64>>, %r: tensor<3xf32>) -> (tensor<2x?xf64>, tensor<2x?xf64>, tensor<2x?xcomplex<f64>>, tensor<3xcomplex<f32>>, tensor<2x?xi1>) {
  // CHECK-NEXT: %[[RE:.*]] = "ember.real"(%[[Z]]) : (tensor<2x?xcomplex<f64>>) -> tensor<2x?xf64>
  // CHECK-NEXT: %[[ABS:.*]] = "ember.cabs"(%[[Z]]) : (tensor<2x?xcomplex<f64>>) -> tensor<2x?xf64>
  // CHECK-NEXT: %[[P:.*]] = "ember.powi"(%[[Z]]) {n = -3 : i64} : (tensor<2x?xcomplex<f64>>) -> tensor<2x?xcomplex<f64>>
  // CHECK-NEXT: %[[D:.*]] = "ember.div"(%[[P]], %[[Z]]) : (tensor<2x?xcomplex<f64>>, tensor<2x?xcomplex<f64>>) -> tensor<2x?xcomplex<f64>>
  // CHECK-NEXT: %[[C:.*]] = "ember.complex"(%[[R]], %[[R]]) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
  // CHECK-NEXT: %[[LT:.*]] = "ember.cmp"(%[[D]], %[[Z]]) {predicate = "lt"}
  %0 = "ember.real"(%z) : (tensor<2x?xcomplex<f64>>) -> tensor<2x?xf64>
  %1 = "ember.cabs"(%z) : (tensor<2x?xcomplex<f64>>) -> tensor<2x?xf64>
  %2 = "ember.powi"(%z) {n = -3 : i64} : (tensor<2x?xcomplex<f64>>) -> tensor<2x?xcomplex<f64>>
  %3 = "ember.div"(%2, %z) : (tensor<2x?xcomplex<f64>>, tensor<2x?xcomplex<f64>>) -> tensor<2x?xcomplex<f64>>
  %4 = "ember.complex"(%r, %r) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
  %5 = "ember.cmp"(%3, %z) {predicate = "lt"} : (tensor<2x?xcomplex<f64>>, tensor<2x?xcomplex<f64>>) -> tensor<2x?xi1>
  return %0, %1, %3, %4, %5 : tensor<2x?xf64>, tensor<2x?xf64>, tensor<2x?xcomplex<f64>>, tensor<3xcomplex<f32>>, tensor<2x?xi1>
}
