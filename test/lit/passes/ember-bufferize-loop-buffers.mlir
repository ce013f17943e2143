// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg,ember-fuse,ember-tile,ember-bufferize)' | FileCheck %s

// `for i in range(n): trace += np.tanh(a[i, i])` traced as a loop: its 0-d and index
// values become small buffers. Those an iteration makes and uses up (the index pair of
// `a[i, i]`) are allocated once, before the loop (hoist_loop_buffers), not once per
// iteration; those it hands to the next (the running sum, the index check's flag) stay
// in the body, freed an iteration later.
// CHECK-LABEL: func.func @diagonal_sum
// CHECK: memref.alloc() {{.*}} : memref<i64>
// CHECK: memref.alloc() {{.*}} : memref<1xi64>
// CHECK: memref.alloc() {{.*}} : memref<2xi64>
// CHECK: scf.for
// CHECK-NOT: memref.alloc() {{.*}} : memref<{{[0-9]*}}xi64>
// CHECK-NOT: memref.alloc() {{.*}} : memref<i64>
// CHECK: %[[FLAG:.*]] = memref.alloc() {{.*}} : memref<i1>
// CHECK-NOT: memref.alloc() {{.*}} : memref<{{[0-9]*}}xi64>
// CHECK: %[[SUM:.*]] = memref.alloc() {{.*}} : memref<f64>
// CHECK-NOT: memref.alloc
// CHECK: scf.yield %[[SUM]], %[[FLAG]]
module {
  func.func @diagonal_sum(%arg0: tensor<40x40xf64>) -> (tensor<f64>, tensor<i1>) {
    %0 = "ember.constant"() {value = dense<0.000000e+00> : tensor<f64>} : () -> tensor<f64>
    %1 = "ember.constant"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
    %2 = "ember.size_constant"() {value = 0 : i64} : () -> index
    %3 = "ember.size_constant"() {value = 40 : i64} : () -> index
    %4 = "ember.size_constant"() {value = 1 : i64} : () -> index
    %5:2 = scf.for %arg1 = %2 to %3 step %4 iter_args(%arg2 = %0, %arg3 = %1) -> (tensor<f64>, tensor<i1>) {
      %6 = "ember.from_index"(%arg1) : (index) -> tensor<i64>
      %7 = "ember.constant"() {value = dense<40> : tensor<i64>} : () -> tensor<i64>
      %8 = "ember.neg"(%7) : (tensor<i64>) -> tensor<i64>
      %9 = "ember.cmp"(%6, %8) {predicate = "lt"} : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %10 = "ember.cmp"(%6, %7) {predicate = "ge"} : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %11 = "ember.or"(%9, %10) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %12 = "ember.or"(%arg3, %11) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %13 = "ember.expand_dims"(%6) {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
      %14 = "ember.constant"() {value = dense<40> : tensor<i64>} : () -> tensor<i64>
      %15 = "ember.neg"(%14) : (tensor<i64>) -> tensor<i64>
      %16 = "ember.cmp"(%6, %15) {predicate = "lt"} : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %17 = "ember.cmp"(%6, %14) {predicate = "ge"} : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %18 = "ember.or"(%16, %17) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %19 = "ember.or"(%12, %18) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %20 = "ember.expand_dims"(%6) {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
      %21 = "ember.concatenate"(%13, %20) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
      %22 = "ember.gather"(%arg0, %21) {at = 0 : i64, axes = array<i64: 0, 1>} : (tensor<40x40xf64>, tensor<2xi64>) -> tensor<f64>
      %23 = "ember.tanh"(%22) : (tensor<f64>) -> tensor<f64>
      %24 = "ember.add"(%arg2, %23) : (tensor<f64>, tensor<f64>) -> tensor<f64>
      scf.yield %24, %19 : tensor<f64>, tensor<i1>
    }
    return %5#0, %5#1 : tensor<f64>, tensor<i1>
  }
}
