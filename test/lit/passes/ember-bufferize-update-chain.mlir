// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg,ember-fuse,ember-tile,ember-bufferize)' | FileCheck %s

// Three Jacobi steps over two 130x130 grids, as the frontend traces
// `for _ in range(3): b[1:-1, 1:-1] = 0.2 * (five slices of a); a, b = b, a`:
// three update_slices, the second and third of each grid reading the one before.
// Each step is one pass: one fused generic writing the interior of its grid's
// output buffer in place (the last step tiled). Nothing recomputes an earlier step
// inside the last step's tiles, and no step gets a temporary grid: the only copies
// are the two input grids copied into their output buffers (their borders; the
// function returns the last value of b, then of a).
// CHECK-LABEL: func.func @jacobi
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<130x130xf64, {{.*}}> {llvm.noalias}, %[[B:[a-z0-9_]+]]: memref<130x130xf64, {{.*}}> {llvm.noalias}, %[[O0:[a-z0-9_]+]]: memref<130x130xf64> {llvm.noalias}, %[[O1:[a-z0-9_]+]]: memref<130x130xf64> {llvm.noalias})
// CHECK-NOT: memref.alloc
// CHECK-DAG: linalg.copy {{.*}}ins(%[[B]] : {{.*}}) outs(%[[O0]] : memref<130x130xf64>)
// CHECK-DAG: linalg.copy {{.*}}ins(%[[A]] : {{.*}}) outs(%[[O1]] : memref<130x130xf64>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.copy
// CHECK: linalg.generic
// CHECK-NOT: linalg.copy
// CHECK: linalg.generic
// CHECK-NOT: linalg.copy
// CHECK: scf.forall
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.copy
// CHECK-NOT: memref.alloc
// CHECK: return
  func.func @jacobi(%arg0: tensor<130x130xf64>, %arg1: tensor<130x130xf64>) -> (tensor<130x130xf64>, tensor<130x130xf64>) {
    %0 = "ember.slice"(%arg0) {starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %1 = "ember.slice"(%arg0) {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %2 = "ember.slice"(%arg0) {starts = array<i64: 2, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %3 = "ember.slice"(%arg0) {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %4 = "ember.slice"(%arg0) {starts = array<i64: 1, 2>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %5 = "ember.add"(%0, %1) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %6 = "ember.add"(%5, %2) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %7 = "ember.add"(%6, %3) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %8 = "ember.add"(%7, %4) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %9 = "ember.constant"() {value = dense<2.000000e-01> : tensor<f64>} : () -> tensor<f64>
    %10 = "ember.broadcast_to"(%9) : (tensor<f64>) -> tensor<128x128xf64>
    %11 = "ember.mul"(%10, %8) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %12 = "ember.update_slice"(%arg1, %11) {starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>, tensor<128x128xf64>) -> tensor<130x130xf64>
    %13 = "ember.slice"(%12) {starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %14 = "ember.slice"(%12) {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %15 = "ember.slice"(%12) {starts = array<i64: 2, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %16 = "ember.slice"(%12) {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %17 = "ember.slice"(%12) {starts = array<i64: 1, 2>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %18 = "ember.add"(%13, %14) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %19 = "ember.add"(%18, %15) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %20 = "ember.add"(%19, %16) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %21 = "ember.add"(%20, %17) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %22 = "ember.constant"() {value = dense<2.000000e-01> : tensor<f64>} : () -> tensor<f64>
    %23 = "ember.broadcast_to"(%22) : (tensor<f64>) -> tensor<128x128xf64>
    %24 = "ember.mul"(%23, %21) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %25 = "ember.update_slice"(%arg0, %24) {starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>, tensor<128x128xf64>) -> tensor<130x130xf64>
    %26 = "ember.slice"(%25) {starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %27 = "ember.slice"(%25) {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %28 = "ember.slice"(%25) {starts = array<i64: 2, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %29 = "ember.slice"(%25) {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %30 = "ember.slice"(%25) {starts = array<i64: 1, 2>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>) -> tensor<128x128xf64>
    %31 = "ember.add"(%26, %27) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %32 = "ember.add"(%31, %28) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %33 = "ember.add"(%32, %29) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %34 = "ember.add"(%33, %30) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %35 = "ember.constant"() {value = dense<2.000000e-01> : tensor<f64>} : () -> tensor<f64>
    %36 = "ember.broadcast_to"(%35) : (tensor<f64>) -> tensor<128x128xf64>
    %37 = "ember.mul"(%36, %34) : (tensor<128x128xf64>, tensor<128x128xf64>) -> tensor<128x128xf64>
    %38 = "ember.update_slice"(%12, %37) {starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<130x130xf64>, tensor<128x128xf64>) -> tensor<130x130xf64>
    return %38, %25 : tensor<130x130xf64>, tensor<130x130xf64>
  }
