// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-free-early)' | FileCheck %s

// Two steps' temporaries: each is freed right after the last op that uses it (a loop
// reading it, a call taking a view of it), not at the end of the function, so the
// second step's buffer can take the first one's memory.
// CHECK-LABEL: func.func @two_steps
// CHECK: %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK: scf.for
// CHECK: memref.store {{.*}}, %[[A]]
// CHECK: %[[VIEW:.*]] = memref.subview %[[A]]
// CHECK: call @use(%[[VIEW]])
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<64xf32>
// CHECK: scf.for
// CHECK: memref.load %[[B]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: %[[C:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT: memref.dealloc %[[C]]
// CHECK-NEXT: return
func.func private @use(memref<32xf32, strided<[1], offset: 8>>)
func.func @two_steps(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %one, %a[%i] : memref<64xf32>
  }
  %view = memref.subview %a[8] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: 8>>
  func.call @use(%view) : (memref<32xf32, strided<[1], offset: 8>>) -> ()
  %b = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %one, %b[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %b[%i] : memref<64xf32>
    memref.store %x, %out[%i] : memref<64xf32>
  }
  %c = memref.alloc() : memref<64xf32>
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  return
}

// A loop result carrying the buffer (an iter_arg) keeps it alive until its last
// reader, after the loop.
// CHECK-LABEL: func.func @through_a_loop
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[R:.*]] = scf.for
// CHECK: %[[X:.*]] = memref.load %[[R]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: return %[[X]]
func.func @through_a_loop(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%buf = %a) -> (memref<4xf32>) {
    scf.yield %buf : memref<4xf32>
  }
  %x = memref.load %r[%c0] : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return %x : f32
}

// Left alone: a dealloc in another block than its allocation (inside a branch).
// CHECK-LABEL: func.func @other_block
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.dealloc
func.func @other_block(%flag: i1) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<4xf32>
  scf.if %flag {
    memref.store %one, %a[%c0] : memref<4xf32>
    memref.dealloc %a : memref<4xf32>
  }
  return
}

// Left alone: the block's terminator uses what may be the buffer (a loop's result that
// started from it): the dealloc stays before the yield, never after it.
// CHECK-LABEL: func.func @yielded
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[INNER:.*]] = scf.for
// CHECK: memref.dealloc %[[A]]
// CHECK-NEXT: scf.yield %[[INNER]]
func.func @yielded(%n: index, %init: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%buf = %init) -> (memref<4xf32>) {
    %a = memref.alloc() : memref<4xf32>
    %inner = scf.for %j = %c0 to %n step %c1 iter_args(%b = %a) -> (memref<4xf32>) {
      scf.yield %buf : memref<4xf32>
    }
    memref.dealloc %a : memref<4xf32>
    scf.yield %inner : memref<4xf32>
  }
  return %r : memref<4xf32>
}
