// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg,ember-fuse,ember-tile,ember-bufferize)' | FileCheck %s

// A time-stepped stencil the frontend traced as a loop (two grids swapped each step:
// two copies of the body per iteration). ember-tile tiles the loop body's roots as it
// tiles a function's, so each step splits across threads (one scf.forall per step,
// inside the sequential scf.for), and ember-bufferize copies the read-only inputs the
// loop carries straight into the output buffers, which every step then updates in
// place: no temporary grid, no copy after the loop.
// CHECK-LABEL: func.func @time_steps
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<400x400xf64, {{.*}}> {llvm.noalias}, %[[B:[a-z0-9_]+]]: memref<400x400xf64, {{.*}}> {llvm.noalias}, %[[OUTA:[a-z0-9_]+]]: memref<400x400xf64> {llvm.noalias}, %[[OUTB:[a-z0-9_]+]]: memref<400x400xf64> {llvm.noalias})
// CHECK-NOT: memref.alloc
// CHECK-DAG: linalg.copy {{.*}} ins(%[[B]] : {{.*}}) outs(%[[OUTB]] : {{.*}})
// CHECK-DAG: linalg.copy {{.*}} ins(%[[A]] : {{.*}}) outs(%[[OUTA]] : {{.*}})
// CHECK: scf.for
// CHECK-DAG: %[[INA:.*]] = memref.subview %[[OUTA]][1, 1] [398, 398]
// CHECK-DAG: %[[INB:.*]] = memref.subview %[[OUTB]][1, 1] [398, 398]
// CHECK: scf.forall
// CHECK: memref.subview %[[INB]]
// CHECK: linalg.generic
// CHECK: scf.forall
// CHECK: memref.subview %[[INA]]
// CHECK: linalg.generic
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @time_steps(%a: tensor<400x400xf64>, %b: tensor<400x400xf64>) -> (tensor<400x400xf64>, tensor<400x400xf64>) {
  %lo = "ember.size_constant"() {value = 0 : i64} : () -> index
  %hi = "ember.size_constant"() {value = 10 : i64} : () -> index
  %st = "ember.size_constant"() {value = 2 : i64} : () -> index
  %r:2 = scf.for %i = %lo to %hi step %st iter_args(%g1 = %b, %g0 = %a) -> (tensor<400x400xf64>, tensor<400x400xf64>) {
    %h = "ember.constant"() {value = dense<5.000000e-01> : tensor<f64>} : () -> tensor<f64>
    %hb = "ember.broadcast_to"(%h) : (tensor<f64>) -> tensor<398x398xf64>
    %n0 = "ember.slice"(%g0) {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<400x400xf64>) -> tensor<398x398xf64>
    %s0 = "ember.slice"(%g0) {starts = array<i64: 2, 1>, steps = array<i64: 1, 1>} : (tensor<400x400xf64>) -> tensor<398x398xf64>
    %t0 = "ember.add"(%n0, %s0) : (tensor<398x398xf64>, tensor<398x398xf64>) -> tensor<398x398xf64>
    %m0 = "ember.mul"(%hb, %t0) : (tensor<398x398xf64>, tensor<398x398xf64>) -> tensor<398x398xf64>
    %u1 = "ember.update_slice"(%g1, %m0) {starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<400x400xf64>, tensor<398x398xf64>) -> tensor<400x400xf64>
    %n1 = "ember.slice"(%u1) {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<400x400xf64>) -> tensor<398x398xf64>
    %s1 = "ember.slice"(%u1) {starts = array<i64: 2, 1>, steps = array<i64: 1, 1>} : (tensor<400x400xf64>) -> tensor<398x398xf64>
    %t1 = "ember.add"(%n1, %s1) : (tensor<398x398xf64>, tensor<398x398xf64>) -> tensor<398x398xf64>
    %h1 = "ember.constant"() {value = dense<5.000000e-01> : tensor<f64>} : () -> tensor<f64>
    %hb1 = "ember.broadcast_to"(%h1) : (tensor<f64>) -> tensor<398x398xf64>
    %m1 = "ember.mul"(%hb1, %t1) : (tensor<398x398xf64>, tensor<398x398xf64>) -> tensor<398x398xf64>
    %u0 = "ember.update_slice"(%g0, %m1) {starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<400x400xf64>, tensor<398x398xf64>) -> tensor<400x400xf64>
    scf.yield %u1, %u0 : tensor<400x400xf64>, tensor<400x400xf64>
  }
  return %r#1, %r#0 : tensor<400x400xf64>, tensor<400x400xf64>
}

// The same loop on 200x200 grids: each step's result fills under 4 tiles (1 MiB), so
// the body stays whole (no scf.forall: a tile loop handed to the worker pool every
// iteration would cost more than it saves), its inputs still copied straight into the
// outputs.
// CHECK-LABEL: func.func @small_steps
// CHECK-NOT: memref.alloc
// CHECK: scf.for
// CHECK-NOT: scf.forall
// CHECK: return
func.func @small_steps(%a: tensor<200x200xf64>, %b: tensor<200x200xf64>) -> (tensor<200x200xf64>, tensor<200x200xf64>) {
  %lo = "ember.size_constant"() {value = 0 : i64} : () -> index
  %hi = "ember.size_constant"() {value = 10 : i64} : () -> index
  %st = "ember.size_constant"() {value = 2 : i64} : () -> index
  %r:2 = scf.for %i = %lo to %hi step %st iter_args(%g1 = %b, %g0 = %a) -> (tensor<200x200xf64>, tensor<200x200xf64>) {
    %h = "ember.constant"() {value = dense<5.000000e-01> : tensor<f64>} : () -> tensor<f64>
    %hb = "ember.broadcast_to"(%h) : (tensor<f64>) -> tensor<198x198xf64>
    %n0 = "ember.slice"(%g0) {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<200x200xf64>) -> tensor<198x198xf64>
    %s0 = "ember.slice"(%g0) {starts = array<i64: 2, 1>, steps = array<i64: 1, 1>} : (tensor<200x200xf64>) -> tensor<198x198xf64>
    %t0 = "ember.add"(%n0, %s0) : (tensor<198x198xf64>, tensor<198x198xf64>) -> tensor<198x198xf64>
    %m0 = "ember.mul"(%hb, %t0) : (tensor<198x198xf64>, tensor<198x198xf64>) -> tensor<198x198xf64>
    %u1 = "ember.update_slice"(%g1, %m0) {starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<200x200xf64>, tensor<198x198xf64>) -> tensor<200x200xf64>
    %n1 = "ember.slice"(%u1) {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<200x200xf64>) -> tensor<198x198xf64>
    %s1 = "ember.slice"(%u1) {starts = array<i64: 2, 1>, steps = array<i64: 1, 1>} : (tensor<200x200xf64>) -> tensor<198x198xf64>
    %t1 = "ember.add"(%n1, %s1) : (tensor<198x198xf64>, tensor<198x198xf64>) -> tensor<198x198xf64>
    %h1 = "ember.constant"() {value = dense<5.000000e-01> : tensor<f64>} : () -> tensor<f64>
    %hb1 = "ember.broadcast_to"(%h1) : (tensor<f64>) -> tensor<198x198xf64>
    %m1 = "ember.mul"(%hb1, %t1) : (tensor<198x198xf64>, tensor<198x198xf64>) -> tensor<198x198xf64>
    %u0 = "ember.update_slice"(%g0, %m1) {starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<200x200xf64>, tensor<198x198xf64>) -> tensor<200x200xf64>
    scf.yield %u1, %u0 : tensor<200x200xf64>, tensor<200x200xf64>
  }
  return %r#1, %r#0 : tensor<200x200xf64>, tensor<200x200xf64>
}
