// RUN: ember-opt %s -p lower-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: ember-opt %s -p lower-to-loops | FileCheck %s --check-prefix=LOOPS

// A Jacobi step, A[1:-1, 1:-1] = 0.25 * (A[:-2, 1:-1] + A[2:, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:]),
// the update of a reversed, strided region, and an identity matrix from two iotas
// (np.eye), through the default pipeline: fusion, tiling and bufferization take
// the insert_slice of ember.update_slice and the index generic of ember.iota.
// LLVM-NOT: ember.
// LLVM-NOT: tensor.
// LLVM: llvm.func @stencil(
// LLVM: llvm.func @_mlir_ciface_stencil(

// lower-to-loops: each updated input is copied into its output buffer once, and the
// stencil and the reversed region are then written straight into those buffers
// (no temporary: ember-bufferize's copy_read_only_update_targets).
// LOOPS-LABEL: func.func @stencil
// LOOPS-SAME: %arg3: memref<64x32xf64> {llvm.noalias}, %arg4: memref<?x5xi32> {llvm.noalias}, %arg5: memref<?x?xf32> {llvm.noalias})
// LOOPS-SAME: ember.num_outputs = 3
// LOOPS-NOT: memref.alloc
// LOOPS-DAG: memref.store %{{.*}}, %arg4[
// LOOPS-DAG: memref.store %{{.*}}, %arg3[
// LOOPS: %[[INNER:.*]] = memref.subview %arg3[1, 1] [62, 30] [1, 1]
// LOOPS: arith.mulf
// LOOPS-NEXT: memref.store %{{.*}}, %[[INNER]][
// LOOPS: call @ember_fork_stencil_0(%{{.*}}, %{{.*}}, %arg4,
// LOOPS: call @ember_fork_stencil_1(%{{.*}}, %{{.*}}, %arg5,
// LOOPS-NOT: memref.alloc
// LOOPS-NOT: linalg.
// LOOPS-NOT: tensor.
// LOOPS: return
// The reversed region's loop and the eye's, each forked onto the worker pool.
// LOOPS-LABEL: func.func @ember_forked_stencil_0
// LOOPS-SAME: (%{{[a-z0-9_]+}}: index, %[[LEN:[a-z0-9_]+]]: index, %[[OUT:[a-z0-9_]+]]: memref<?x5xi32>, %[[START:[a-z0-9_]+]]: index,
// The strided rows are a view the forked function makes from the output buffer.
// LOOPS: %[[R:.*]] = memref.subview %[[OUT]][%[[START]], 0] [%[[LEN]], 5] [2, 1]
// LOOPS: scf.forall
// LOOPS: memref.subview %[[R]]
// LOOPS-LABEL: func.func @ember_forked_stencil_1
// LOOPS: arith.cmpi eq
// LOOPS-NOT: memref.alloc
// LOOPS-NOT: linalg.
// LOOPS-NOT: tensor.
// LOOPS: return

func.func @stencil(%a: tensor<64x32xf64>, %m: tensor<?x5xi32>, %src: tensor<?x5xi32>) -> (tensor<64x32xf64>, tensor<?x5xi32>, tensor<?x?xf32>) {
  %up = "ember.slice"(%a) {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<64x32xf64>) -> tensor<62x30xf64>
  %down = "ember.slice"(%a) {starts = array<i64: 2, 1>, steps = array<i64: 1, 1>} : (tensor<64x32xf64>) -> tensor<62x30xf64>
  %left = "ember.slice"(%a) {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : (tensor<64x32xf64>) -> tensor<62x30xf64>
  %right = "ember.slice"(%a) {starts = array<i64: 1, 2>, steps = array<i64: 1, 1>} : (tensor<64x32xf64>) -> tensor<62x30xf64>
  %s0 = "ember.add"(%up, %down) : (tensor<62x30xf64>, tensor<62x30xf64>) -> tensor<62x30xf64>
  %s1 = "ember.add"(%s0, %left) : (tensor<62x30xf64>, tensor<62x30xf64>) -> tensor<62x30xf64>
  %s2 = "ember.add"(%s1, %right) : (tensor<62x30xf64>, tensor<62x30xf64>) -> tensor<62x30xf64>
  %c = "ember.constant"() {value = dense<2.500000e-01> : tensor<f64>} : () -> tensor<f64>
  %q = "ember.broadcast_to"(%c) : (tensor<f64>) -> tensor<62x30xf64>
  %s3 = "ember.mul"(%q, %s2) : (tensor<62x30xf64>, tensor<62x30xf64>) -> tensor<62x30xf64>
  %jacobi = "ember.update_slice"(%a, %s3) {starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<64x32xf64>, tensor<62x30xf64>) -> tensor<64x32xf64>
  // m[-1::-2, ::-1] = src
  %updated = "ember.update_slice"(%m, %src) {starts = array<i64: -1, -1>, steps = array<i64: -2, -1>} : (tensor<?x5xi32>, tensor<?x5xi32>) -> tensor<?x5xi32>
  // np.eye(n, k): iota along rows == iota along columns
  %n = "ember.dim"(%m) {axis = 0 : i64} : (tensor<?x5xi32>) -> index
  %k = "ember.dim"(%src) {axis = 0 : i64} : (tensor<?x5xi32>) -> index
  %i = "ember.iota"(%n, %k) {axis = 0 : i64} : (index, index) -> tensor<?x?xi64>
  %j = "ember.iota"(%n, %k) {axis = 1 : i64} : (index, index) -> tensor<?x?xi64>
  %eq = "ember.cmp"(%i, %j) {predicate = "eq"} : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi1>
  %eye = "ember.cast"(%eq) : (tensor<?x?xi1>) -> tensor<?x?xf32>
  return %jacobi, %updated, %eye : tensor<64x32xf64>, tensor<?x5xi32>, tensor<?x?xf32>
}
