// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg,ember-fuse,ember-tile,ember-bufferize)' | FileCheck %s

// `a += b` on a caller's array, as the frontend traces it: the new value of `a` is
// a result marked `ember.inout = 0`. It gets no output buffer: the fused generic
// writes into the first argument itself, with no temporary and no copy.
// CHECK-LABEL: func.func @accumulate
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf64, {{.*}}> {llvm.noalias}, %[[B:[a-z0-9_]+]]: memref<64xf64, {{.*}}> {llvm.noalias})
// CHECK-SAME: ember.num_outputs = 0
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.copy
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]], %[[B]] : {{.*}}) outs(%[[A]] : {{.*}})
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @accumulate(%a: tensor<64xf64>, %b: tensor<64xf64>) -> (tensor<64xf64> {ember.inout = 0 : i64}) {
  %0 = "ember.add"(%a, %b) : (tensor<64xf64>, tensor<64xf64>) -> tensor<64xf64>
  return %0 : tensor<64xf64>
}

// An update of a region (`a[1:-1] += 1.0`): the region is computed into the
// argument in place; the rest of it is left as it is.
// CHECK-LABEL: func.func @update_region
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf64, {{.*}}> {llvm.noalias})
// CHECK-SAME: ember.num_outputs = 0
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.copy
// CHECK: %[[R:.*]] = memref.subview %[[A]][1] [62] [1]
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[R]] : {{.*}})
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @update_region(%a: tensor<64xf64>) -> (tensor<64xf64> {ember.inout = 0 : i64}) {
  %0 = "ember.slice"(%a) {starts = array<i64: 1>, steps = array<i64: 1>} : (tensor<64xf64>) -> tensor<62xf64>
  %1 = "ember.constant"() {value = dense<1.0> : tensor<f64>} : () -> tensor<f64>
  %2 = "ember.broadcast_to"(%1) : (tensor<f64>) -> tensor<62xf64>
  %3 = "ember.add"(%0, %2) : (tensor<62xf64>, tensor<62xf64>) -> tensor<62xf64>
  %4 = "ember.update_slice"(%a, %3) {starts = array<i64: 1>, steps = array<i64: 1>} : (tensor<64xf64>, tensor<62xf64>) -> tensor<64xf64>
  return %4 : tensor<64xf64>
}
