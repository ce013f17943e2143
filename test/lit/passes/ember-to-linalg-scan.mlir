// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// cumsum along the last (dynamic) axis: per row, the innermost loop carries the running
// value as a scalar; element 0 is x[0] itself (select), not 0 + x[0].
// CHECK-LABEL: func.func @cumsum_rows
// CHECK-SAME: (%[[X:.*]]: tensor<3x?xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<3x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<3x?xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[Y:.*]] = %[[E]])
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[Y2:.*]] = %[[Y]]) -> (f32, tensor<3x?xf32>)
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%[[I]], %[[K]]]
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK: %[[NEW:.*]] = arith.select %[[FIRST]], %[[V]], %[[S]] : f32
// CHECK: tensor.insert %[[NEW]] into %[[Y2]][%[[I]], %[[K]]]
func.func @cumsum_rows(%x: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %0 = "ember.scan"(%x) {axis = 1, kind = "sum"} : (tensor<3x?xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// cumprod along axis 0: row-major loops; y[i, j] reads y[i - 1, j] (clamped at i = 0,
// where the select keeps x[0, j]).
// CHECK-LABEL: func.func @cumprod_columns
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}}
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} iter_args(%[[Y:.*]] = %{{.*}})
// CHECK: %[[M:.*]] = arith.maxsi %[[I]], %{{.*}} : index
// CHECK: %[[P:.*]] = arith.subi %[[M]], %{{.*}} : index
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[%[[I]], %[[J]]] : tensor<4x5xi64>
// CHECK: %[[PREV:.*]] = tensor.extract %[[Y]][%[[P]], %[[J]]] : tensor<4x5xi64>
// CHECK: %[[MUL:.*]] = arith.muli %[[PREV]], %[[V]] : i64
// CHECK: arith.select %{{.*}}, %[[V]], %[[MUL]] : i64
func.func @cumprod_columns(%x: tensor<4x5xi64>) -> tensor<4x5xi64> {
  %0 = "ember.scan"(%x) {axis = 0, kind = "prod"} : (tensor<4x5xi64>) -> tensor<4x5xi64>
  return %0 : tensor<4x5xi64>
}

// np.maximum.accumulate: each step is np.maximum's own rule (NaN-propagating).
// CHECK-LABEL: func.func @running_max
// CHECK: %[[V:.*]] = tensor.extract
// CHECK: %[[M:.*]] = arith.maximumf %{{.*}}, %[[V]] : f64
// CHECK: arith.select %{{.*}}, %[[V]], %[[M]] : f64
func.func @running_max(%x: tensor<?xf64>) -> tensor<?xf64> {
  %0 = "ember.scan"(%x) {axis = 0, kind = "max"} : (tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

// np.fmin.accumulate: NaN skipped: a NaN element keeps the running value, a NaN running
// value (every element so far NaN) takes the element.
// CHECK-LABEL: func.func @running_fmin
// CHECK: iter_args(%[[ACC:[^ ]*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32
// CHECK: %[[V:.*]] = tensor.extract
// CHECK: %[[VNAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK: %[[ANAN:.*]] = arith.cmpf uno, %[[ACC]], %[[ACC]] : f32
// CHECK: %[[M:.*]] = arith.minimumf %[[ACC]], %[[V]] : f32
// CHECK: %[[B:.*]] = arith.select %[[ANAN]], %[[V]], %[[M]] : f32
// CHECK: arith.select %[[VNAN]], %[[ACC]], %[[B]] : f32
func.func @running_fmin(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "ember.scan"(%x) {axis = 0, kind = "fmin"} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// A running maximum of bools is a running or.
// CHECK-LABEL: func.func @running_any
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
func.func @running_any(%x: tensor<7xi1>) -> tensor<7xi1> {
  %0 = "ember.scan"(%x) {axis = 0, kind = "max"} : (tensor<7xi1>) -> tensor<7xi1>
  return %0 : tensor<7xi1>
}
