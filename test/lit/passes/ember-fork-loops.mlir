// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-fork-loops)' | FileCheck %s

// Two loops, the second reading what the first wrote: each moves into a function of
// its own that runs one part's contiguous block of tiles, and the kernel calls its
// fork with the values the loop uses and the loop's trip count, in program order.
// The constant the loop uses is made again inside (its bound stays static); the
// scratch buffer only the first loop uses is allocated per part, inside.
// CHECK: func.func private @ember_fork_two_loops_0(memref<?xf32>, memref<?xf32>, index) attributes {llvm.emit_c_interface}
// CHECK: func.func private @ember_fork_two_loops_1(index, memref<?xf32>, memref<?xf32>, index) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @two_loops
// CHECK-SAME: (%[[IN:[a-z0-9_]+]]: memref<?xf32>, %[[MID:[a-z0-9_]+]]: memref<?xf32>, %[[OUT:[a-z0-9_]+]]: memref<?xf32>)
// CHECK: %[[N:.*]] = memref.dim %[[IN]]
// CHECK-NOT: memref.alloc
// CHECK: %[[T0:.*]] = arith.constant 4 : index
// CHECK-NEXT: call @ember_fork_two_loops_0(%[[IN]], %[[MID]], %[[T0]])
// CHECK-NOT: scf.forall
// CHECK: call @ember_fork_two_loops_1(%[[N]], %[[MID]], %[[OUT]], %[[N]])
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @two_loops(%in: memref<?xf32>, %mid: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  %scratch = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
  scf.forall (%i) in (4) {
    %a = memref.subview %in[%i] [8] [1] : memref<?xf32> to memref<8xf32, strided<[1], offset: ?>>
    linalg.copy ins(%a : memref<8xf32, strided<[1], offset: ?>>) outs(%scratch : memref<8xf32>)
    %j = arith.muli %i, %c2 : index
    %b = memref.subview %mid[%j] [8] [1] : memref<?xf32> to memref<8xf32, strided<[1], offset: ?>>
    linalg.copy ins(%scratch : memref<8xf32>) outs(%b : memref<8xf32, strided<[1], offset: ?>>)
  }
  scf.forall (%i) in (%n) {
    %a = memref.subview %mid[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    %b = memref.subview %out[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.copy ins(%a : memref<1xf32, strided<[1], offset: ?>>) outs(%b : memref<1xf32, strided<[1], offset: ?>>)
  }
  memref.dealloc %scratch : memref<8xf32>
  return
}

// A loop inside a time-step loop forks each step (the step's index is one of its
// values); a buffer also read after the loop is shared, not scratch.
// CHECK: func.func private @ember_fork_steps_0(index, memref<16xf32>, index)
// CHECK-LABEL: func.func @steps
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<16xf32>
// CHECK: scf.for %[[STEP:[a-z0-9_]+]] =
// CHECK-NEXT: %[[T:.*]] = arith.constant 2 : index
// CHECK-NEXT: func.call @ember_fork_steps_0(%[[STEP]], %[[BUF]], %[[T]])
// CHECK: memref.copy
func.func @steps(%out: memref<16xf32>, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc() : memref<16xf32>
  scf.for %s = %c0 to %steps step %c1 {
    scf.forall (%i) in (2) {
      %v = arith.index_cast %s : index to i32
      %f = arith.sitofp %v : i32 to f32
      %b = memref.subview %buf[%i] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: ?>>
      linalg.fill ins(%f : f32) outs(%b : memref<8xf32, strided<[1], offset: ?>>)
    }
  }
  memref.copy %buf, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %buf : memref<16xf32>
  return
}

// Left alone: a kernel the runtime splits whole, a loop of two dimensions, a loop
// using a vector value (the forked functions come after them all).
// CHECK-LABEL: func.func @split_whole
// CHECK-NOT: call
// CHECK: scf.forall
func.func @split_whole(%out: memref<16xf32>) attributes {ember.parallel = true} {
  %cst = arith.constant 1.0 : f32
  scf.forall (%i) in (2) {
    %b = memref.subview %out[%i] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: ?>>
    linalg.fill ins(%cst : f32) outs(%b : memref<8xf32, strided<[1], offset: ?>>)
  }
  return
}

// CHECK-LABEL: func.func @two_dims
// CHECK-NOT: call
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (2, 2)
func.func @two_dims(%out: memref<4x4xf32>) {
  %cst = arith.constant 1.0 : f32
  scf.forall (%i, %j) in (2, 2) {
    memref.store %cst, %out[%i, %j] : memref<4x4xf32>
  }
  return
}

// CHECK-LABEL: func.func @vector_value
// CHECK-NOT: call
// CHECK: scf.forall
func.func @vector_value(%out: memref<16xf32>, %v: vector<4xf32>) {
  scf.forall (%i) in (4) {
    %c = arith.muli %i, %i : index
    vector.store %v, %out[%c] : memref<16xf32>, vector<4xf32>
  }
  return
}

// Two loops computing the same on other buffers (a time step unrolled, its grids
// swapped): one forked function, which both calls reach through one fork. The windows
// each loop reads and writes are views the forked function makes from the buffers
// passed, not descriptors the kernel builds per call.
// CHECK: func.func private @ember_fork_swapped_0(memref<10xf32>, memref<10xf32>, index)
// CHECK-NOT: @ember_fork_swapped_1
// CHECK-LABEL: func.func @swapped
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<10xf32>, %[[B:[a-z0-9_]+]]: memref<10xf32>)
// CHECK-NOT: memref.subview
// CHECK: call @ember_fork_swapped_0(%[[A]], %[[B]], %{{.*}})
// CHECK-NOT: memref.subview
// CHECK: call @ember_fork_swapped_0(%[[B]], %[[A]], %{{.*}})
// CHECK-NEXT: return
func.func @swapped(%a: memref<10xf32>, %b: memref<10xf32>) {
  %cst = arith.constant 0.5 : f32
  %src0 = memref.subview %a[0] [8] [1] : memref<10xf32> to memref<8xf32, strided<[1]>>
  %dst0 = memref.subview %b[1] [8] [1] : memref<10xf32> to memref<8xf32, strided<[1], offset: 1>>
  scf.forall (%i) in (8) {
    %v = memref.load %src0[%i] : memref<8xf32, strided<[1]>>
    %w = arith.mulf %v, %cst : f32
    memref.store %w, %dst0[%i] : memref<8xf32, strided<[1], offset: 1>>
  }
  %src1 = memref.subview %b[0] [8] [1] : memref<10xf32> to memref<8xf32, strided<[1]>>
  %dst1 = memref.subview %a[1] [8] [1] : memref<10xf32> to memref<8xf32, strided<[1], offset: 1>>
  scf.forall (%i) in (8) {
    %v = memref.load %src1[%i] : memref<8xf32, strided<[1]>>
    %w = arith.mulf %v, %cst : f32
    memref.store %w, %dst1[%i] : memref<8xf32, strided<[1], offset: 1>>
  }
  return
}

// The forked functions, at the end of the module.
// CHECK-LABEL: func.func @ember_forked_two_loops_0
// CHECK-SAME: (%[[I:[a-z0-9_]+]]: memref<?xf32>, %[[M:[a-z0-9_]+]]: memref<?xf32>, %[[PART:[a-z0-9_]+]]: index, %[[PARTS:[a-z0-9_]+]]: index)
// CHECK-SAME: llvm.emit_c_interface
// CHECK: %[[TWO:.*]] = arith.constant 2 : index
// CHECK: %[[SCRATCH:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK: arith.muli %{{.*}}, %[[PART]] : index
// CHECK: arith.divui %{{.*}}, %[[PARTS]] : index
// CHECK: scf.forall (%[[TILE:.*]]) in (4)
// CHECK: scf.if
// CHECK: memref.subview %[[I]][%[[TILE]]]
// CHECK: linalg.copy ins(%{{.*}}) outs(%[[SCRATCH]]
// CHECK: arith.muli %[[TILE]], %[[TWO]]
// CHECK: memref.dealloc %[[SCRATCH]]
// CHECK-NEXT: return
// CHECK-LABEL: func.func @ember_forked_two_loops_1
// CHECK-SAME: (%[[BOUND:[a-z0-9_]+]]: index, %{{[a-z0-9_]+}}: memref<?xf32>, %{{[a-z0-9_]+}}: memref<?xf32>, %{{[a-z0-9_]+}}: index, %{{[a-z0-9_]+}}: index)
// CHECK: scf.forall (%{{.*}}) in (%[[BOUND]])
// CHECK-LABEL: func.func @ember_forked_steps_0
// CHECK-SAME: (%{{[a-z0-9_]+}}: index, %{{[a-z0-9_]+}}: memref<16xf32>, %{{[a-z0-9_]+}}: index, %{{[a-z0-9_]+}}: index)
// CHECK-NOT: memref.alloc
// CHECK: scf.forall
// CHECK-LABEL: func.func @ember_forked_swapped_0
// CHECK-SAME: (%[[FA:[a-z0-9_]+]]: memref<10xf32>, %[[FB:[a-z0-9_]+]]: memref<10xf32>,
// CHECK-DAG: memref.subview %[[FA]][0] [8] [1]
// CHECK-DAG: memref.subview %[[FB]][1] [8] [1]
// CHECK: scf.forall
// CHECK-NOT: func.func @ember_forked_swapped_1
