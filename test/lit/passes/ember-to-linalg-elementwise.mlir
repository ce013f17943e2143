// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// Elementwise ops become one all-parallel linalg.generic each, with identity maps
// and a tensor.empty init sized from the operands' dynamic dims.

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<4x?xf32>, %[[B:.*]]: tensor<4x?xf32>)
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %[[C1]] : tensor<4x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x?xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x?xf32>, tensor<4x?xf32>) outs(%[[E]] : tensor<4x?xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
// CHECK-NOT: ember.
func.func @add_dynamic(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = "ember.add"(%a, %b) : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// A chain reuses the first op's size, not a tensor.dim of its result (fusion needs single uses).
// CHECK-LABEL: func.func @chain
// CHECK: %[[D:.*]] = tensor.dim
// CHECK: tensor.empty(%[[D]])
// CHECK: math.exp
// CHECK-NOT: tensor.dim
// CHECK: tensor.empty(%[[D]])
// CHECK: arith.mulf
func.func @chain(%a: tensor<?xf64>) -> tensor<?xf64> {
  %0 = "ember.exp"(%a) : (tensor<?xf64>) -> tensor<?xf64>
  %1 = "ember.mul"(%0, %a) : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  return %1 : tensor<?xf64>
}

// Integer division is guarded: no trap on x // 0 or INT_MIN // -1, and x // 0 == 0.
// CHECK-LABEL: func.func @int_floordiv
// CHECK: linalg.generic
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[RHS:.*]], %{{.*}} : i32
// CHECK: %[[M:.*]] = arith.cmpi eq, %[[RHS]], %{{.*}} : i32
// CHECK: %[[BAD:.*]] = arith.ori %[[Z]], %[[M]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[BAD]], %{{.*}}, %[[RHS]] : i32
// CHECK: arith.floordivsi %{{.*}}, %[[SAFE]] : i32
// CHECK: arith.select %[[Z]]
func.func @int_floordiv(%a: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<8xi32> {
  %0 = "ember.floordiv"(%a, %b) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// CHECK-LABEL: func.func @unary_family
// CHECK: arith.negf
// CHECK: math.absi
// CHECK: math.erf
// CHECK: %[[N:.*]] = arith.negf
// CHECK-NEXT: %[[E:.*]] = math.exp %[[N]]
// CHECK-NEXT: %[[P:.*]] = arith.addf %{{.*}}, %[[E]]
// CHECK-NEXT: arith.divf %{{.*}}, %[[P]]
// CHECK: arith.xori
// CHECK: arith.maximumf
// CHECK: math.ipowi
// CHECK: math.powf
func.func @unary_family(%f: tensor<3xf32>, %i: tensor<3xi64>, %p: tensor<3xi1>) -> (tensor<3xf32>, tensor<3xi64>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xf32>, tensor<3xi64>, tensor<3xf32>) {
  %0 = "ember.neg"(%f) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "ember.abs"(%i) : (tensor<3xi64>) -> tensor<3xi64>
  %2 = "ember.erf"(%f) : (tensor<3xf32>) -> tensor<3xf32>
  %3 = "ember.sigmoid"(%f) : (tensor<3xf32>) -> tensor<3xf32>
  %4 = "ember.logical_not"(%p) : (tensor<3xi1>) -> tensor<3xi1>
  %5 = "ember.maximum"(%f, %f) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %6 = "ember.pow"(%i, %i) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %7 = "ember.pow"(%f, %f) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3xf32>, tensor<3xi64>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xf32>, tensor<3xi64>, tensor<3xf32>
}

// A 0-d elementwise op is a generic with no loops.
// CHECK-LABEL: func.func @scalar
// CHECK: %[[E:.*]] = tensor.empty() : tensor<f32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = []} ins(%{{.*}} : tensor<f32>) outs(%[[E]] : tensor<f32>)
// CHECK: math.sqrt
func.func @scalar(%a: tensor<f32>) -> tensor<f32> {
  %0 = "ember.sqrt"(%a) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// x ** -1.5 by a constant exponent: r * sqrt(r) of r = 1 / x, +inf at a zero of either
// sign (pow's answer, where 1 / -0.0 and sqrt would give NaN); no powf.
// CHECK-LABEL: func.func @inverse_three_halves
// CHECK: linalg.generic
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: %[[S:.*]] = math.sqrt %[[R]] : f64
// CHECK: %[[P:.*]] = arith.mulf %[[R]], %[[S]] : f64
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[P]] : f64
// CHECK-NOT: math.powf
func.func @inverse_three_halves(%x: tensor<5xf64>) -> tensor<5xf64> {
  %c = "ember.constant"() {value = dense<-1.5> : tensor<f64>} : () -> tensor<f64>
  %e = "ember.broadcast_to"(%c) : (tensor<f64>) -> tensor<5xf64>
  %0 = "ember.pow"(%x, %e) : (tensor<5xf64>, tensor<5xf64>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}
