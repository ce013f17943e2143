// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-prefetch-rows)' | FileCheck %s

// Layer norm's row loop (after ember-fuse-row-loops): the row's sum, its squared
// deviations, the output. The writing pass runs in chunks of 4 lines (64 float32),
// each after prefetching the same 4 lines of the next row of x (the last row: its own).
// CHECK-LABEL: func.func @layer_norm_rows
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: memref<?x1024xf32>, %[[OUT:[a-z0-9_]+]]: memref<?x1024xf32>,
// CHECK: scf.for %[[R:[a-z0-9_]+]] = %c0 to %[[N:[a-z0-9_]+]] step %c1 {
// CHECK: scf.for {{.*}} iter_args(
// CHECK: scf.for {{.*}} iter_args(
// CHECK: %[[FOLLOWING:.*]] = arith.addi %[[R]], %c1
// CHECK: %[[HAS:.*]] = arith.cmpi slt, %[[FOLLOWING]], %[[N]]
// CHECK: %[[NEXT:.*]] = arith.select %[[HAS]], %[[FOLLOWING]], %[[R]]
// CHECK: %[[LAST:.*]] = arith.subi %c1024, %{{.*}}
// CHECK: scf.for %[[C:[a-z0-9_]+]] = %c0 to %c1024 step %[[STEP:[a-z0-9_]+]] {
// CHECK: %[[COL0:.*]] = arith.minsi %{{.*}}, %[[LAST]]
// CHECK: memref.prefetch %[[X]][%[[NEXT]], %[[COL0]]], read, locality<3>, data
// CHECK-COUNT-3: memref.prefetch %[[X]][%[[NEXT]],
// CHECK: %[[END:.*]] = arith.minsi %{{.*}}, %c1024
// CHECK: scf.for %[[J:[a-z0-9_]+]] = %[[C]] to %[[END]] step %c1 {
// CHECK: memref.load %[[X]][%[[R]], %[[J]]]
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[R]], %[[J]]]
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @layer_norm_rows(%x: memref<?x1024xf32>, %out: memref<?x1024xf32>, %sum: memref<?x1xf32>, %sq: memref<?x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x1024xf32>
  scf.for %r = %c0 to %n step %c1 {
    %s = scf.for %j = %c0 to %c1024 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%r, %j] : memref<?x1024xf32>
      %t = arith.addf %acc, %v fastmath<reassoc> : f32
      scf.yield %t : f32
    }
    memref.store %s, %sum[%r, %c0] : memref<?x1xf32>
    %q = scf.for %j = %c0 to %c1024 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%r, %j] : memref<?x1024xf32>
      %d = arith.subf %v, %s : f32
      %d2 = arith.mulf %d, %d : f32
      %t = arith.addf %acc, %d2 fastmath<reassoc> : f32
      scf.yield %t : f32
    }
    memref.store %q, %sq[%r, %c0] : memref<?x1xf32>
    scf.for %j = %c0 to %c1024 step %c1 {
      %v = memref.load %x[%r, %j] : memref<?x1024xf32>
      %y = arith.divf %v, %q : f32
      memref.store %y, %out[%r, %j] : memref<?x1024xf32>
    }
  }
  return
}

// A row length known at run time: the prefetches ask whether a row is 1-32 KiB
// (256 to 8192 float32).
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: %[[LEN:.*]] = arith.subi %[[M:[a-z0-9_]+]], %c0
// CHECK: %[[BIG:.*]] = arith.cmpi sge, %[[LEN]], %c256
// CHECK: %[[SMALL:.*]] = arith.cmpi sle, %[[LEN]], %c8192
// CHECK: %[[FITS:.*]] = arith.andi %[[BIG]], %[[SMALL]]
// CHECK: scf.for %[[C:[a-z0-9_]+]] = %c0 to %[[M]] step
// CHECK: scf.if %[[FITS]] {
// CHECK-COUNT-4: memref.prefetch
// CHECK: }
// CHECK: scf.for %{{.*}} = %[[C]] to
func.func @dynamic_rows(%x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  scf.for %r = %c0 to %n step %c1 {
    %s = scf.for %j = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%r, %j] : memref<?x?xf32>
      %t = arith.maximumf %acc, %v : f32
      scf.yield %t : f32
    }
    scf.for %j = %c0 to %m step %c1 {
      %v = memref.load %x[%r, %j] : memref<?x?xf32>
      %y = arith.subf %v, %s : f32
      memref.store %y, %out[%r, %j] : memref<?x?xf32>
    }
  }
  return
}

// Left alone: rows of 64 float32 (256 bytes, shorter than 1 KiB: several rows share a
// page the hardware prefetcher follows), rows of 16384 float32 (64 KiB: they leave the
// L1 cache), a single pass over each row, and a last pass that is a reduction.
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @long_rows
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @one_pass
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @reduction_last
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @short_rows(%x: memref<?x64xf32>, %out: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %r = %c0 to %n step %c1 {
    %s = scf.for %j = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%r, %j] : memref<?x64xf32>
      %t = arith.addf %acc, %v fastmath<reassoc> : f32
      scf.yield %t : f32
    }
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %x[%r, %j] : memref<?x64xf32>
      %y = arith.subf %v, %s : f32
      memref.store %y, %out[%r, %j] : memref<?x64xf32>
    }
  }
  return
}
func.func @long_rows(%x: memref<?x16384xf32>, %out: memref<?x16384xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cols = arith.constant 16384 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x16384xf32>
  scf.for %r = %c0 to %n step %c1 {
    %s = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%r, %j] : memref<?x16384xf32>
      %t = arith.addf %acc, %v fastmath<reassoc> : f32
      scf.yield %t : f32
    }
    scf.for %j = %c0 to %cols step %c1 {
      %v = memref.load %x[%r, %j] : memref<?x16384xf32>
      %y = arith.subf %v, %s : f32
      memref.store %y, %out[%r, %j] : memref<?x16384xf32>
    }
  }
  return
}
func.func @one_pass(%x: memref<?x1024xf32>, %out: memref<?x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %n = memref.dim %x, %c0 : memref<?x1024xf32>
  scf.for %r = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c1024 step %c1 {
      %v = memref.load %x[%r, %j] : memref<?x1024xf32>
      %y = arith.addf %v, %v : f32
      memref.store %y, %out[%r, %j] : memref<?x1024xf32>
    }
  }
  return
}
func.func @reduction_last(%x: memref<?x1024xf32>, %out: memref<?x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x1024xf32>
  scf.for %r = %c0 to %n step %c1 {
    %s = scf.for %j = %c0 to %c1024 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%r, %j] : memref<?x1024xf32>
      %t = arith.addf %acc, %v fastmath<reassoc> : f32
      scf.yield %t : f32
    }
    %q = scf.for %j = %c0 to %c1024 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%r, %j] : memref<?x1024xf32>
      %d = arith.subf %v, %s : f32
      %t = arith.addf %acc, %d fastmath<reassoc> : f32
      scf.yield %t : f32
    }
    memref.store %q, %out[%r, %c0] : memref<?x1xf32>
  }
  return
}
