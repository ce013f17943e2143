// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-invariant-division{slow-division=true})' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-invariant-division{slow-division=false})' | FileCheck %s --check-prefix=FAST

// A host that divides quickly (slow-division=false, the default on AMD Zen): the
// division stays as it is.
// FAST-LABEL: func.func @row_norm
// FAST-NOT: f64
// FAST: arith.divf %{{.*}} : f32

// A row divided by its total, the total computed in the loop from a load at the row's
// index: the load and the sqrt copied before the loop under "the loop runs", the
// reciprocal taken there in float64, and the division a float64 multiply rounded once.
// CHECK-LABEL: func.func @row_norm
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0, %{{.*}} : index
// CHECK: %[[Y:.*]] = scf.if %[[RUNS]] -> (f64) {
// CHECK: %[[T:.*]] = memref.load %{{.*}}[%[[I]], %c0] : memref<?x1xf32>
// CHECK: %[[S:.*]] = math.sqrt %[[T]] : f32
// CHECK: %[[D:.*]] = arith.extf %[[S]] : f32 to f64
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %[[D]] : f64
// CHECK: scf.yield %[[R]] : f64
// CHECK: } else {
// CHECK: scf.for %[[J:.*]] = %c0 to %{{.*}} step
// CHECK: %[[A:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK: %[[A64:.*]] = arith.extf %[[A]] : f32 to f64
// CHECK: %[[P:.*]] = arith.mulf %[[A64]], %[[Y]] : f64
// CHECK: %[[Q:.*]] = arith.truncf %[[P]] : f64 to f32
// CHECK: memref.store %[[Q]]
// CHECK-NOT: arith.divf %{{.*}} : f32
func.func @row_norm(%x: memref<?x?xf32>, %t: memref<?x1xf32>, %out: memref<?x?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %a = memref.load %x[%i, %j] : memref<?x?xf32>
      %tot = memref.load %t[%i, %c0] : memref<?x1xf32>
      %d = math.sqrt %tot : f32
      %q = arith.divf %a, %d : f32
      memref.store %q, %out[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// Left alone: a divisor loaded at the loop's own index (x / y), a divisor the loop
// stores to, a power of two (LLVM multiplies by it already), float64, and a division
// with fast-math flags.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: arith.extf
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<afn> : f32
// CHECK-NOT: arith.extf
func.func @kept(%x: memref<?xf32>, %y: memref<?xf32>, %s: memref<1xf32>, %z: memref<?xf64>, %out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %zd = memref.load %z[%c0] : memref<?xf64>
  scf.for %j = %c0 to %n step %c1 {
    %a = memref.load %x[%j] : memref<?xf32>
    %b = memref.load %y[%j] : memref<?xf32>
    %q1 = arith.divf %a, %b : f32
    %d = memref.load %s[%c0] : memref<1xf32>
    %q2 = arith.divf %q1, %d : f32
    memref.store %q2, %s[%c0] : memref<1xf32>
    %q3 = arith.divf %q2, %two : f32
    %w = memref.load %z[%j] : memref<?xf64>
    %q4 = arith.divf %w, %zd : f64
    memref.store %q4, %z[%j] : memref<?xf64>
    %q5 = arith.divf %q3, %d fastmath<afn> : f32
    memref.store %q5, %out[%j] : memref<?xf32>
  }
  return
}
