// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// cumsum along the last (dynamic) axis: per row, the innermost loop carries the running
// value as a scalar, starting from -0.0 (-0.0 + x[0] is x[0] bit for bit, -0.0 included):
// no select for element 0 on the chain each step waits on.
// CHECK-LABEL: func.func @cumsum_rows
// CHECK-SAME: (%[[X:.*]]: tensor<3x?xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<3x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<3x?xf32>
// CHECK: %[[START:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[Y:.*]] = %[[E]])
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[START]], %[[Y2:.*]] = %[[Y]]) -> (f32, tensor<3x?xf32>)
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%[[I]], %[[K]]]
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NOT: arith.select
// CHECK: tensor.insert %[[S]] into %[[Y2]][%[[I]], %[[K]]]
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

// np.maximum.accumulate: NumPy's loop, (a > b || isnan(a)) ? a : b, from -inf (which
// takes x[0], NaN included): the first NaN stays, equal zeros give the element.
// CHECK-LABEL: func.func @running_max
// CHECK: %[[START:.*]] = arith.constant 0xFFF0000000000000 : f64
// CHECK: iter_args(%[[ACC:[^ ]*]] = %[[START]], %{{.*}} = %{{.*}}) -> (f64
// CHECK: %[[V:.*]] = tensor.extract
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[ACC]], %[[V]] : f64
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[ACC]], %[[ACC]] : f64
// CHECK: %[[KEEP:.*]] = arith.ori %[[GT]], %[[NAN]] : i1
// CHECK: %[[M:.*]] = arith.select %[[KEEP]], %[[ACC]], %[[V]] : f64
// CHECK: tensor.insert %[[M]]
func.func @running_max(%x: tensor<?xf64>) -> tensor<?xf64> {
  %0 = "ember.scan"(%x) {axis = 0, kind = "max"} : (tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

// np.fmin.accumulate: (a < b || isnan(b)) ? a : b: a NaN element keeps the running
// value; element 0 is x[0] itself (no start value skips a NaN and keeps its bits).
// CHECK-LABEL: func.func @running_fmin
// CHECK: iter_args(%[[ACC:[^ ]*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32
// CHECK: %[[V:.*]] = tensor.extract
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[ACC]], %[[V]] : f32
// CHECK: %[[VNAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK: %[[KEEP:.*]] = arith.ori %[[LT]], %[[VNAN]] : i1
// CHECK: %[[M:.*]] = arith.select %[[KEEP]], %[[ACC]], %[[V]] : f32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: arith.select %[[FIRST]], %[[V]], %[[M]] : f32
func.func @running_fmin(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "ember.scan"(%x) {axis = 0, kind = "fmin"} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// A running maximum of bools is a running or, from False.
// CHECK-LABEL: func.func @running_any
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
func.func @running_any(%x: tensor<7xi1>) -> tensor<7xi1> {
  %0 = "ember.scan"(%x) {axis = 0, kind = "max"} : (tensor<7xi1>) -> tensor<7xi1>
  return %0 : tensor<7xi1>
}
