// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-fuse-row-loops)' | FileCheck %s

// Layer norm's tile: the rows' sums, their squared deviations, the output. Each row of
// a later loop reads only its own row's sums: one loop over the rows, the three passes
// inside it (the running sums carried in registers), the view between moved along.
// CHECK-LABEL: func.func @layer_norm_tile
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: memref<?x64xf32>, %[[OUT:[a-z0-9_]+]]: memref<?x64xf32>, %[[SUM:[a-z0-9_]+]]: memref<?x1xf32>, %[[SQ:[a-z0-9_]+]]: memref<?x1xf32>)
// CHECK: %[[VIEW:.*]] = memref.subview %[[OUT]]
// CHECK: scf.for %[[R:[a-z0-9_]+]] = %c0 to %[[N:[a-z0-9_]+]] step %c1 {
// CHECK: %[[S0:.*]] = memref.load %[[SUM]][%[[R]], %c0]
// CHECK: %[[S:.*]] = scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%[[ACC:.*]] = %[[S0]]) -> (f32) {
// CHECK: memref.load %[[X]][%[[R]],
// CHECK: arith.addf %[[ACC]]
// CHECK: memref.store %[[S]], %[[SUM]][%[[R]], %c0]
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(
// CHECK: memref.load %[[SUM]][%[[R]], %c0]
// CHECK: memref.store %{{.*}}, %[[SQ]][%[[R]], %c0]
// CHECK: scf.for %[[J:.*]] = %c0 to %c64 step %c1 {
// CHECK: memref.load %[[SQ]][%[[R]], %c0]
// CHECK: memref.store %{{.*}}, %[[VIEW]][%[[R]], %[[J]]]
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @layer_norm_tile(%x: memref<?x64xf32>, %out: memref<?x64xf32>, %sum: memref<?x1xf32>, %sq: memref<?x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %r = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %x[%r, %j] : memref<?x64xf32>
      %a = memref.load %sum[%r, %c0] : memref<?x1xf32>
      %s = arith.addf %a, %v fastmath<reassoc> : f32
      memref.store %s, %sum[%r, %c0] : memref<?x1xf32>
    }
  }
  scf.for %r = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %x[%r, %j] : memref<?x64xf32>
      %m = memref.load %sum[%r, %c0] : memref<?x1xf32>
      %a = memref.load %sq[%r, %c0] : memref<?x1xf32>
      %d = arith.subf %v, %m : f32
      %d2 = arith.mulf %d, %d : f32
      %s = arith.addf %a, %d2 fastmath<reassoc> : f32
      memref.store %s, %sq[%r, %c0] : memref<?x1xf32>
    }
  }
  %view = memref.subview %out[0, 0] [%n, 64] [1, 1] : memref<?x64xf32> to memref<?x64xf32, strided<[64, 1]>>
  scf.for %r = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %x[%r, %j] : memref<?x64xf32>
      %q = memref.load %sq[%r, %c0] : memref<?x1xf32>
      %y = arith.divf %v, %q : f32
      memref.store %y, %view[%r, %j] : memref<?x64xf32, strided<[64, 1]>>
    }
  }
  return
}

// Left alone: a row reading the next row's sum; rows of the sums at another index
// position; other bounds; a call between; two loops sharing nothing written.
// CHECK-LABEL: func.func @next_row
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
func.func @next_row(%x: memref<?x64xf32>, %out: memref<?x64xf32>, %sum: memref<?x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %m = arith.subi %n, %c1 : index
  scf.for %r = %c0 to %m step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %x[%r, %j] : memref<?x64xf32>
      memref.store %v, %sum[%r, %c0] : memref<?x1xf32>
    }
  }
  scf.for %r = %c0 to %m step %c1 {
    %next = arith.addi %r, %c1 : index
    scf.for %j = %c0 to %c64 step %c1 {
      %s = memref.load %sum[%next, %c0] : memref<?x1xf32>
      memref.store %s, %out[%r, %j] : memref<?x64xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @other_position
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
func.func @other_position(%x: memref<8x8xf32>, %out: memref<8x8xf32>, %acc: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %r = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<8x8xf32>
      memref.store %v, %acc[%r, %j] : memref<8x8xf32>
    }
  }
  scf.for %r = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %acc[%j, %r] : memref<8x8xf32>
      memref.store %v, %out[%r, %j] : memref<8x8xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @other_bounds
// CHECK: scf.for %{{.*}} = %c0 to %c8
// CHECK: scf.for %{{.*}} = %c0 to %c7
func.func @other_bounds(%x: memref<8x8xf32>, %out: memref<8x8xf32>, %acc: memref<8x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  scf.for %r = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<8x8xf32>
      memref.store %v, %acc[%r, %c0] : memref<8x1xf32>
    }
  }
  scf.for %r = %c0 to %c7 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %acc[%r, %c0] : memref<8x1xf32>
      memref.store %v, %out[%r, %j] : memref<8x8xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @call_between
// CHECK: scf.for
// CHECK: call @opaque
// CHECK: scf.for
func.func private @opaque(memref<8x1xf32>)
func.func @call_between(%x: memref<8x8xf32>, %out: memref<8x8xf32>, %acc: memref<8x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %r = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<8x8xf32>
      memref.store %v, %acc[%r, %c0] : memref<8x1xf32>
    }
  }
  func.call @opaque(%acc) : (memref<8x1xf32>) -> ()
  scf.for %r = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %acc[%r, %c0] : memref<8x1xf32>
      memref.store %v, %out[%r, %j] : memref<8x8xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @nothing_shared
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
func.func @nothing_shared(%x: memref<8x8xf32>, %a: memref<8x8xf32>, %b: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %r = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<8x8xf32>
      memref.store %v, %a[%r, %j] : memref<8x8xf32>
    }
  }
  scf.for %r = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<8x8xf32>
      memref.store %v, %b[%r, %j] : memref<8x8xf32>
    }
  }
  return
}
