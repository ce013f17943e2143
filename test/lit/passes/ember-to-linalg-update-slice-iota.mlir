// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// Positive steps: one insert_slice of src into dest, strides = steps; a negative start
// counts from the end (6 - 4 = 2).
// CHECK-LABEL: func.func @update_static
// CHECK-SAME: (%[[A:.*]]: tensor<6x5xi32>, %[[S:.*]]: tensor<2x2xi32>)
// CHECK-NEXT: %[[R:.*]] = tensor.insert_slice %[[S]] into %[[A]][2, 1] [2, 2] [2, 3] : tensor<2x2xi32> into tensor<6x5xi32>
// CHECK-NEXT: return %[[R]]
func.func @update_static(%a: tensor<6x5xi32>, %s: tensor<2x2xi32>) -> tensor<6x5xi32> {
  %0 = "ember.update_slice"(%a, %s) {starts = array<i64: -4, 1>, steps = array<i64: 2, 3>} : (tensor<6x5xi32>, tensor<2x2xi32>) -> tensor<6x5xi32>
  return %0 : tensor<6x5xi32>
}

// A negative step: rows 5, 3, 1 are rows 1, 3, 5 backwards, so src is reversed along
// that axis (src[2 - i], as a negative-step slice reads) and inserted from row 1 by 2.
// CHECK-LABEL: func.func @update_reversed
// CHECK-SAME: (%[[A:.*]]: tensor<6x5xf64>, %[[S:.*]]: tensor<3x5xf64>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x5xf64>
// CHECK: %[[REV:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<3x5xf64>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[NEG:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.addi %[[C2]], %[[NEG]] : index
// CHECK: %[[X:.*]] = tensor.extract %[[S]][%[[ROW]], %{{.*}}] : tensor<3x5xf64>
// CHECK: linalg.yield %[[X]] : f64
// CHECK: %[[R:.*]] = tensor.insert_slice %[[REV]] into %[[A]][1, 0] [3, 5] [2, 1] : tensor<3x5xf64> into tensor<6x5xf64>
// CHECK: return %[[R]]
func.func @update_reversed(%a: tensor<6x5xf64>, %s: tensor<3x5xf64>) -> tensor<6x5xf64> {
  %0 = "ember.update_slice"(%a, %s) {starts = array<i64: 5, 0>, steps = array<i64: -2, 1>} : (tensor<6x5xf64>, tensor<3x5xf64>) -> tensor<6x5xf64>
  return %0 : tensor<6x5xf64>
}

// Dynamic sizes: the region's size is src's dim at run time; with a negative step the
// offset is the last element, first - (n - 1) * 3 (kept >= 0 for an empty region).
// CHECK-LABEL: func.func @update_dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>, %[[S:.*]]: tensor<?xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[S]], %{{.*}} : tensor<?xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?xf32>
// CHECK: %[[END:.*]] = arith.addi %[[D]], %{{.*}} : index
// CHECK: %[[FIRST:.*]] = arith.maxsi %[[END]], %{{.*}} : index
// CHECK: %[[NM1:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[SPAN:.*]] = arith.muli %[[NM1]], %{{.*}} : index
// CHECK: %[[LAST:.*]] = arith.subi %[[FIRST]], %[[SPAN]] : index
// CHECK: %[[OFF:.*]] = arith.maxsi %[[LAST]], %{{.*}} : index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: %[[REV:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<?xf32>)
// CHECK: tensor.extract %[[S]]
// CHECK: %[[R:.*]] = tensor.insert_slice %[[REV]] into %[[A]][%[[OFF]]] [%[[N]]] [3] : tensor<?xf32> into tensor<?xf32>
// CHECK: return %[[R]]
func.func @update_dynamic(%a: tensor<?xf32>, %s: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "ember.update_slice"(%a, %s) {starts = array<i64: -1>, steps = array<i64: -3>} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// A region of static size 0 writes nothing: the result is dest.
// CHECK-LABEL: func.func @update_empty
// CHECK-SAME: (%[[A:.*]]: tensor<4xi1>, %{{.*}}: tensor<0xi1>)
// CHECK-NEXT: return %[[A]]
func.func @update_empty(%a: tensor<4xi1>, %s: tensor<0xi1>) -> tensor<4xi1> {
  %0 = "ember.update_slice"(%a, %s) {starts = array<i64: 9>, steps = array<i64: 1>} : (tensor<4xi1>, tensor<0xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// iota: a generic without inputs yielding linalg.index of the axis, cast to the
// element type (index_cast for integers, via i64 and sitofp for floats).
// CHECK-LABEL: func.func @iota_static
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x3xi32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<4x3xi32>)
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[V:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK: linalg.yield %[[V]] : i32
// CHECK: return %[[R]]
func.func @iota_static() -> tensor<4x3xi32> {
  %0 = "ember.iota"() {axis = 1 : i64} : () -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}

// CHECK-LABEL: func.func @iota_dynamic
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<?xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[W:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[F:.*]] = arith.sitofp %[[W]] : i64 to f32
// CHECK: linalg.yield %[[F]] : f32
func.func @iota_dynamic(%n: index) -> tensor<?xf32> {
  %0 = "ember.iota"(%n) {axis = 0 : i64} : (index) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
