// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-bufferize)' | FileCheck %s

// Inputs become strided memrefs (any NumPy view), or identity-layout ones where the
// frontend guarded contiguity; the result becomes a trailing output buffer that the
// final op writes directly: no allocation, no copy, nothing returned. Every buffer
// is noalias (outputs are fresh, inputs only read); ember.layout is consumed.
// CHECK-LABEL: func.func @add
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<?xf32, strided<[?], offset: ?>> {llvm.noalias}, %[[B:[a-z0-9_]+]]: memref<?xf32> {llvm.noalias}, %[[OUT:[a-z0-9_]+]]: memref<?xf32> {llvm.noalias})
// CHECK-SAME: ember.num_outputs = 1
// CHECK-SAME: llvm.emit_c_interface
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : {{.*}}) outs(%[[OUT]] : memref<?xf32>)
// CHECK-NOT: memref.copy
// CHECK: return{{$}}
#id1 = affine_map<(d0) -> (d0)>
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32> {ember.layout = "contiguous"}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Returning an input needs a copy; it is a linalg.copy (plain loops), never a call
// to the C runner library's memrefCopy.
// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: memref<4x2xi64, strided<[?, ?], offset: ?>> {llvm.noalias}, %[[O:[a-z0-9_]+]]: memref<4x2xi64> {llvm.noalias})
// CHECK: linalg.copy {{.*}}ins(%[[X]] : {{.*}}) outs(%[[O]] : memref<4x2xi64>)
// CHECK-NOT: memref.copy
func.func @identity(%x: tensor<4x2xi64>) -> tensor<4x2xi64> {
  return %x : tensor<4x2xi64>
}

// Two results, two output buffers, in order.
// CHECK-LABEL: func.func @two
// CHECK-SAME: (%{{.*}}: memref<3xf64, strided<[?], offset: ?>> {llvm.noalias}, %[[O0:[a-z0-9_]+]]: memref<3xf64> {llvm.noalias}, %[[O1:[a-z0-9_]+]]: memref<3xf64> {llvm.noalias})
// CHECK-SAME: ember.num_outputs = 2
// CHECK: linalg.generic {{.*}} outs(%[[O0]] : memref<3xf64>)
// CHECK: linalg.generic {{.*}} outs(%[[O1]] : memref<3xf64>)
func.func @two(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %e = tensor.empty() : tensor<3xf64>
  %0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%v: f64, %o: f64):
    %s = arith.addf %v, %v : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  %1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%v: f64, %o: f64):
    %s = arith.mulf %v, %v : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
}
