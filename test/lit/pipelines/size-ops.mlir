// RUN: ember-opt %s -p lower-to-loops | FileCheck %s --check-prefix=LOOPS
// RUN: ember-opt %s --emit=llvm | FileCheck %s --check-prefix=LLVM

// The size ops through the whole CPU pipeline: sizes from a dim and from a 0-d int
// argument (to_index) size a slice and a broadcast, and a size computed with Python's
// floor division and remainder is returned as an array (from_index), written
// straight into its output buffer.

// LOOPS-LABEL: func.func @sizes
// LOOPS-SAME: %arg1: memref<i64, strided<[], offset: ?>> {llvm.noalias}, %arg2: memref<?x4xf32> {llvm.noalias}, %arg3: memref<i64> {llvm.noalias}, %arg4: memref<?xf32> {llvm.noalias})
// LOOPS: %[[DIM:.*]] = memref.dim %arg0
// LOOPS: %[[LEN:.*]] = arith.subi %[[DIM]], %c2 : index
// LOOPS: call @ember_fork_sizes_0(%{{.*}}, %[[LEN]], %arg0, %{{.*}}, %arg2, %{{.*}})
// LOOPS: %[[NV:.*]] = memref.load %arg1[]
// LOOPS: %[[N:.*]] = arith.index_cast %[[NV]] : i64 to index
// LOOPS: arith.floordivsi %[[DIM]]
// LOOPS: arith.remsi
// LOOPS: %[[R:.*]] = arith.index_cast %{{.*}} : index to i64
// LOOPS-NEXT: memref.store %[[R]], %arg3[] : memref<i64>
// LOOPS: affine.apply #{{.*}}()[%[[N]]]
// LOOPS: call @ember_fork_sizes_1(%{{.*}}, %[[N]], %arg4, %{{.*}})
// LOOPS-NOT: memref.alloc
// LOOPS: return
// The loops, each forked onto the worker pool (ember-fork-loops).
// LOOPS-LABEL: func.func @ember_forked_sizes_0
// The slice is made in the forked function, from the argument it is a slice of.
// LOOPS: memref.subview %arg2[%arg3, 0] [%arg1, 4] [1, 1]
// LOOPS: math.exp
// LOOPS-LABEL: func.func @ember_forked_sizes_1
// LOOPS: memref.store %cst, %{{.*}}[%{{.*}}] : memref<?xf32, strided<[1], offset: ?>>
// LOOPS-NOT: memref.alloc
// LOOPS: return

// LLVM-NOT: ember.
// LLVM: define void @sizes(
// LLVM: sdiv i64
// LLVM: srem i64
// LLVM: define void @_mlir_ciface_sizes(
func.func @sizes(%x: tensor<?x4xf32>, %n: tensor<i64>) -> (tensor<?x4xf32>, tensor<i64>, tensor<?xf32>) {
  %d = "ember.dim"(%x) {axis = 0 : i64} : (tensor<?x4xf32>) -> index
  %c2 = "ember.size_constant"() {value = 2 : i64} : () -> index
  %l = "ember.size_arith"(%d, %c2) {op = "sub"} : (index, index) -> index
  %s = "ember.slice"(%x, %l) {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : (tensor<?x4xf32>, index) -> tensor<?x4xf32>
  %e = "ember.exp"(%s) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %k = "ember.to_index"(%n) : (tensor<i64>) -> index
  %q = "ember.size_arith"(%d, %k) {op = "floordiv"} : (index, index) -> index
  %r = "ember.size_arith"(%q, %k) {op = "mod"} : (index, index) -> index
  %t = "ember.from_index"(%r) : (index) -> tensor<i64>
  %z = "ember.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %zeros = "ember.broadcast_to"(%z, %k) : (tensor<f32>, index) -> tensor<?xf32>
  return %e, %t, %zeros : tensor<?x4xf32>, tensor<i64>, tensor<?xf32>
}
