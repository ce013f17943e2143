// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-fast-paths)' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-fast-paths,ember-fast-paths)' | FileCheck %s

// sin(x[i] * 3) and tan(y[i]) stored: a scan loop repeats the loads and the multiply,
// or-ing |argument| > 2**20 (NaN: false; the bounds' bits below); if any, the loop as it was, else a copy
// whose sin and tan carry ember.small_argument. A second run changes nothing.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[B32:.+]] = arith.constant 0x49800000 : f32
// CHECK-DAG: %[[B64:.+]] = arith.constant 0x4130000000000000 : f64
// CHECK-DAG: %[[FALSE:.+]] = arith.constant false
// CHECK: %[[LARGE:.+]] = scf.for %[[I:.+]] = %{{.+}} to %[[N:.+]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[FALSE]]) -> (i1) {
// CHECK-NEXT: %[[X:.+]] = memref.load %{{.+}}[%[[I]]] : memref<?xf32>
// CHECK-NEXT: %[[ARG:.+]] = arith.mulf %[[X]], %{{.+}} : f32
// CHECK-NEXT: %[[Y:.+]] = memref.load %{{.+}}[%[[I]]] : memref<?xf64>
// CHECK-NEXT: %[[A32:.+]] = math.absf %[[ARG]] : f32
// CHECK-NEXT: %[[G32:.+]] = arith.cmpf ogt, %[[A32]], %[[B32]] : f32
// CHECK-NEXT: %[[O32:.+]] = arith.ori %[[ACC]], %[[G32]] : i1
// CHECK-NEXT: %[[A64:.+]] = math.absf %[[Y]] : f64
// CHECK-NEXT: %[[G64:.+]] = arith.cmpf ogt, %[[A64]], %[[B64]] : f64
// CHECK-NEXT: %[[O64:.+]] = arith.ori %[[O32]], %[[G64]] : i1
// CHECK-NEXT: scf.yield %[[O64]] : i1
// CHECK: scf.if %[[LARGE]] {
// CHECK-NEXT: scf.for
// CHECK-NOT: ember.small_argument
// CHECK: math.sin %{{.+}} : f32
// CHECK-NOT: ember.small_argument
// CHECK: math.tan %{{.+}} : f64
// CHECK: } {ember.range_scanned}
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for
// CHECK: math.sin %{{.+}} {ember.small_argument} : f32
// CHECK: math.tan %{{.+}} {ember.small_argument} : f64
// CHECK: } {ember.range_scanned}
// CHECK-NEXT: }
// CHECK-NOT: scf.if
// CHECK: return
func.func @elementwise(%x: memref<?xf32>, %y: memref<?xf64>, %out: memref<?xf32>, %out2: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %three = arith.constant 3.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %a = arith.mulf %v, %three : f32
    %s = math.sin %a : f32
    memref.store %s, %out[%i] : memref<?xf32>
    %w = memref.load %y[%i] : memref<?xf64>
    %t = math.tan %w : f64
    memref.store %t, %out2[%i] : memref<?xf64>
  }
  return
}

// A loop carrying a sum: the scf.if yields the result of whichever loop ran.
// CHECK-LABEL: func.func @sum_of_cos
// CHECK: %[[LARGE:.+]] = scf.for
// CHECK: %[[R:.+]] = scf.if %[[LARGE]] -> (f64) {
// CHECK-NEXT: %[[SLOW:.+]] = scf.for
// CHECK: math.cos %{{.+}} : f64
// CHECK: scf.yield %[[SLOW]] : f64
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[FAST:.+]] = scf.for
// CHECK: math.cos %{{.+}} {ember.small_argument} : f64
// CHECK: scf.yield %[[FAST]] : f64
// CHECK: return %[[R]] : f64
func.func @sum_of_cos(%x: memref<?xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<?xf64>
    %c = math.cos %v : f64
    %s = arith.addf %acc, %c : f64
    scf.yield %s : f64
  }
  return %r : f64
}

// A float remainder (x % y's fmod): out of range where |x| > 2**52 * |y| (the quotient
// may not be an integer a double holds); the fast copy's remf is marked.
// CHECK-LABEL: func.func @remainder
// CHECK-DAG: %[[SCALE:.+]] = arith.constant 0x4330000000000000 : f64
// CHECK: %[[LARGE:.+]] = scf.for %[[I:.+]] = %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (i1) {
// CHECK-NEXT: %[[X:.+]] = memref.load %{{.+}}[%[[I]]] : memref<?xf64>
// CHECK-NEXT: %[[AY:.+]] = math.absf %{{.+}} : f64
// CHECK-NEXT: %[[LIMIT:.+]] = arith.mulf %[[AY]], %[[SCALE]] : f64
// CHECK-NEXT: %[[AX:.+]] = math.absf %[[X]] : f64
// CHECK-NEXT: %[[OUT:.+]] = arith.cmpf ogt, %[[AX]], %[[LIMIT]] : f64
// CHECK-NEXT: %[[O:.+]] = arith.ori %[[ACC]], %[[OUT]] : i1
// CHECK-NEXT: scf.yield %[[O]] : i1
// CHECK: scf.if %[[LARGE]] {
// CHECK: arith.remf %{{.+}}, %{{.+}} : f64
// CHECK: } else {
// CHECK: arith.remf %{{.+}}, %{{.+}} {ember.small_argument} : f64
func.func @remainder(%x: memref<?xf64>, %y: f64, %out: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %r = arith.remf %v, %y : f64
    memref.store %r, %out[%i] : memref<?xf64>
  }
  return
}

// Left alone: an argument loaded from the buffer the loop writes (x[i] = sin(x[i]):
// a scan would see other values than the loop, in general), and an argument the loop
// carries.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.if
// CHECK-NOT: ember.small_argument
// CHECK: return
func.func @left_alone(%x: memref<?xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %s = math.sin %v : f64
    memref.store %s, %x[%i] : memref<?xf64>
  }
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %c = math.cos %acc : f64
    scf.yield %c : f64
  }
  return %r : f64
}
