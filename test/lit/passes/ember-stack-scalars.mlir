// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-stack-scalars)' | FileCheck %s

// The small buffers a loop's body reads and writes (allocated once, before it) are
// stack slots, and their deallocations are gone; the 64-byte index vector is one
// too (through its view).
// CHECK-LABEL: func.func @running_sum
// CHECK-DAG: %[[SUM:.*]] = memref.alloca() {alignment = 64 : i64} : memref<f64>
// CHECK-DAG: %[[IDX:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8xi64>
// CHECK-NOT: memref.alloc()
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[SUM]][]
// CHECK: memref.subview %[[IDX]]
// CHECK: memref.load %[[SUM]][]
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @running_sum(%x: memref<100xf64>, %out: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f64
  %sum = memref.alloc() {alignment = 64 : i64} : memref<f64>
  %idx = memref.alloc() {alignment = 64 : i64} : memref<8xi64>
  %r = scf.for %i = %c0 to %c100 step %c1 iter_args(%s = %zero) -> (f64) {
    memref.store %s, %sum[] : memref<f64>
    %i64 = arith.index_cast %i : index to i64
    %first = memref.subview %idx[0] [1] [1] : memref<8xi64> to memref<1xi64, strided<[1]>>
    memref.store %i64, %first[%c0] : memref<1xi64, strided<[1]>>
    %xi = memref.load %x[%i] : memref<100xf64>
    %old = memref.load %sum[] : memref<f64>
    %new = arith.addf %old, %xi : f64
    scf.yield %new : f64
  }
  memref.store %r, %out[] : memref<f64>
  memref.dealloc %idx : memref<8xi64>
  memref.dealloc %sum : memref<f64>
  return
}

// Left on the heap: a buffer larger than a cache line, one of a run-time size, one
// handed to a call, one allocated in a loop (a stack slot there would grow the stack
// every iteration), one whose pointer is taken apart.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: memref.alloca
// CHECK-COUNT-5: memref.alloc(
// CHECK-NOT: memref.alloca
// CHECK: return
func.func private @helper(memref<f64>)
func.func @kept(%n: index, %out: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %big = memref.alloc() {alignment = 64 : i64} : memref<9xf64>
  memref.store %zero, %big[%c0] : memref<9xf64>
  %sized = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf64>
  memref.store %zero, %sized[%c0] : memref<?xf64>
  %called = memref.alloc() {alignment = 64 : i64} : memref<f64>
  call @helper(%called) : (memref<f64>) -> ()
  scf.for %i = %c0 to %n step %c1 {
    %inner = memref.alloc() {alignment = 64 : i64} : memref<f64>
    memref.store %zero, %inner[] : memref<f64>
    memref.dealloc %inner : memref<f64>
  }
  %taken = memref.alloc() {alignment = 64 : i64} : memref<f64>
  %base, %offset = memref.extract_strided_metadata %taken : memref<f64> -> memref<f64>, index
  memref.dealloc %big : memref<9xf64>
  memref.dealloc %sized : memref<?xf64>
  memref.dealloc %called : memref<f64>
  memref.dealloc %taken : memref<f64>
  return
}
