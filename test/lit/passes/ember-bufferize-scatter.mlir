// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg,ember-fuse,ember-tile,ember-bufferize)' | FileCheck %s

// `np.fill_diagonal(a, v)` / `a[idx] = v` on a caller's array whose new value is
// written back in place (`ember.inout`): the scatter loop stores straight into the
// argument, with no temporary and no copy.
// CHECK-LABEL: func.func @scatter_in_place
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<8xf64, {{.*}}> {llvm.noalias}, %[[I:[a-z0-9_]+]]: memref<3x1xi64, {{.*}}> {llvm.noalias}, %[[U:[a-z0-9_]+]]: memref<3xf64, {{.*}}> {llvm.noalias})
// CHECK-SAME: ember.num_outputs = 0
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.copy
// CHECK: scf.for %[[K:.*]] =
// CHECK: memref.load %[[I]][%[[K]], %{{.*}}]
// CHECK: %[[V:.*]] = memref.load %[[U]][%[[K]]]
// CHECK: memref.store %[[V]], %[[A]][%{{.*}}]
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @scatter_in_place(%x: tensor<8xf64>, %i: tensor<3x1xi64>, %u: tensor<3xf64>) -> (tensor<8xf64> {ember.inout = 0 : i64}) {
  %0 = "ember.scatter"(%x, %i, %u) {axes = array<i64: 0>, at = 0} : (tensor<8xf64>, tensor<3x1xi64>, tensor<3xf64>) -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// A fresh result: the read-only argument is copied once, straight into the output
// (copy_read_only_loop_inits: the scatter loop's init), which the loop then updates
// in place; no temporary, no second copy, no store into the argument.
// CHECK-LABEL: func.func @scatter_copy
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<8xf64, {{.*}}> {llvm.noalias}, %{{.*}}: memref<3x1xi64, {{.*}}> {llvm.noalias}, %{{.*}}: memref<3xf64, {{.*}}> {llvm.noalias}, %[[OUT:[a-z0-9_]+]]: memref<8xf64> {llvm.noalias})
// CHECK-NOT: memref.alloc
// CHECK: linalg.copy {{.*}} ins(%[[A]] : {{.*}}) outs(%[[OUT]] : {{.*}})
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[OUT]][%{{.*}}]
// CHECK-NOT: linalg.copy
// CHECK-NOT: memref.store %{{.*}}, %[[A]]
func.func @scatter_copy(%x: tensor<8xf64>, %i: tensor<3x1xi64>, %u: tensor<3xf64>) -> tensor<8xf64> {
  %0 = "ember.scatter"(%x, %i, %u) {axes = array<i64: 0>, at = 0} : (tensor<8xf64>, tensor<3x1xi64>, tensor<3xf64>) -> tensor<8xf64>
  return %0 : tensor<8xf64>
}
