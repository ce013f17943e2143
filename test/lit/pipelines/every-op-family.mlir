// RUN: ember-opt %s -p lower-to-llvm --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: ember-opt %s -p lower-to-loops | FileCheck %s --check-prefix=LOOPS
// RUN: ember-opt %s --emit=llvm | FileCheck %s --check-prefix=LLVM

// One function using every Ember op family, lowered all the way to LLVM IR (with
// -p lower-to-llvm, or implicitly by --emit=llvm on Ember input).
// LLVM-NOT: ember.
// LLVM: define void @every_family(
// LLVM: define void @_mlir_ciface_every_family(ptr noalias %0, ptr noalias %1, ptr noalias %2, ptr noalias %3, ptr noalias %4, ptr noalias %5, ptr noalias %6, ptr noalias %7, ptr noalias %8)
// LLVM-NEXT: {{.*}} = load { ptr, ptr, i64, [2 x i64], [2 x i64] }, ptr %0

// lower-to-loops: memref arguments (4 inputs, then 5 output buffers), scf loops,
// the outer parallel loops as scf.forall, nothing of linalg or tensors left.
// LOOPS-LABEL: func.func @every_family
// LOOPS-SAME: %arg3: memref<?x4xi32, strided<[?, ?], offset: ?>> {llvm.noalias}, %arg4: memref<?x3xf32> {llvm.noalias}, %arg5: memref<?xf32> {llvm.noalias}, %arg6: memref<4x?xf32> {llvm.noalias}, %arg7: memref<?x4xf32> {llvm.noalias}, %arg8: memref<?x4xi1> {llvm.noalias})
// LOOPS-SAME: ember.num_outputs = 5
// LOOPS-NOT: linalg.
// LOOPS-NOT: tensor.
// LOOPS: scf.forall
// LOOPS: scf.for
// LOOPS-NOT: linalg.
// LOOPS-NOT: tensor.
// LOOPS: return
func.func @every_family(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>, %w: tensor<4x3xf32>, %i: tensor<?x4xi32>) -> (tensor<?x3xf32>, tensor<?xf32>, tensor<4x?xf32>, tensor<?x4xf32>, tensor<?x4xi1>) {
  %0 = "ember.sub"(%x, %y) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = "ember.tanh"(%0) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = "ember.cmp"(%x, %y) {predicate = "lt"} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xi1>
  %3 = "ember.select"(%2, %1, %x) : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %4 = "ember.cast"(%i) : (tensor<?x4xi32>) -> tensor<?x4xf32>
  %5 = "ember.mul"(%3, %4) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %6 = "ember.matmul"(%5, %w) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %7 = "ember.sum"(%5) {axes = array<i64: 1>, keepdims = false} : (tensor<?x4xf32>) -> tensor<?xf32>
  %8 = "ember.transpose"(%5) {perm = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<4x?xf32>
  %c = "ember.constant"() {value = dense<2.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %n = "ember.dim"(%x) {axis = 0 : i64} : (tensor<?x4xf32>) -> index
  %9 = "ember.broadcast_to"(%c, %n) : (tensor<4xf32>, index) -> tensor<?x4xf32>
  %10 = "ember.slice"(%9, %n) {starts = array<i64: -1, 0>, steps = array<i64: -1, 1>} : (tensor<?x4xf32>, index) -> tensor<?x4xf32>
  %11 = "ember.add"(%10, %5) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %12 = "ember.expand_dims"(%11) {axes = array<i64: 0>} : (tensor<?x4xf32>) -> tensor<1x?x4xf32>
  %13 = "ember.squeeze"(%12) {axes = array<i64: 0>} : (tensor<1x?x4xf32>) -> tensor<?x4xf32>
  %14 = "ember.concatenate"(%13, %13) {axis = 1 : i64} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
  %15 = "ember.reshape"(%14, %n) : (tensor<?x8xf32>, index) -> tensor<?x2x4xf32>
  %16 = "ember.max"(%15) {axes = array<i64: 1>, keepdims = false} : (tensor<?x2x4xf32>) -> tensor<?x4xf32>
  return %6, %7, %8, %16, %2 : tensor<?x3xf32>, tensor<?xf32>, tensor<4x?xf32>, tensor<?x4xf32>, tensor<?x4xi1>
}
