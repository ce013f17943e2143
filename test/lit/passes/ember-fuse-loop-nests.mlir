// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-fuse-loop-nests)' | FileCheck %s

// Softmax's tile: the exponentials are stored, the accumulator is zeroed, then the
// sum reads the exponentials back. One nest: the producer moves past the zeroing, its
// body comes first, the sum adds the stored value (no load of %out), and the row's
// running sum is carried by the inner loop, stored once per row after it.
// CHECK-LABEL: func.func @exp_then_sum
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: memref<?x64xf32>, %[[OUT:[a-z0-9_]+]]: memref<?x64xf32>, %[[N:[a-z0-9_]+]]: index)
// CHECK: %[[ACC:.*]] = memref.alloc(%[[N]]) : memref<?x1xf32>
// CHECK: scf.for %[[Z:.*]] = %c0 to %[[N]] step %c1 {
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%[[Z]], %c0]
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %[[I:.*]] = %c0 to %[[N]] step %c1 {
// CHECK-NEXT: %[[INIT:.*]] = memref.load %[[ACC]][%[[I]], %c0]
// CHECK-NEXT: %[[SUM:.*]] = scf.for %[[J:.*]] = %c0 to %c64 step %c1 iter_args(%[[ACCUM:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[X]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[E:.*]] = math.exp %[[V]]
// CHECK-NEXT: memref.store %[[E]], %[[OUT]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[ACCUM]], %[[E]]
// CHECK-NEXT: scf.yield %[[NEXT]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[SUM]], %[[ACC]][%[[I]], %c0]
// CHECK-NEXT: }
// CHECK-NOT: memref.load %[[OUT]]
// CHECK: return
func.func @exp_then_sum(%x: memref<?x64xf32>, %out: memref<?x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i, %j] : memref<?x64xf32>
      %e = math.exp %v : f32
      memref.store %e, %out[%i, %j] : memref<?x64xf32>
    }
  }
  %acc = memref.alloc(%n) : memref<?x1xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %zero, %acc[%i, %c0] : memref<?x1xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %e = memref.load %out[%i, %j] : memref<?x64xf32>
      %s = memref.load %acc[%i, %c0] : memref<?x1xf32>
      %t = arith.addf %s, %e : f32
      memref.store %t, %acc[%i, %c0] : memref<?x1xf32>
    }
  }
  return
}

// A 1-D elementwise producer and consumer: one loop; the consumer's store stays (it
// writes another buffer), nothing is carried (no running value).
// CHECK-LABEL: func.func @chain_1d
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: memref.load %arg0[%[[I]]]
// CHECK-NEXT: %[[Y:.*]] = arith.mulf
// CHECK-NEXT: memref.store %[[Y]], %arg1[%[[I]]]
// CHECK-NEXT: %[[Z:.*]] = arith.addf %[[Y]], %[[Y]]
// CHECK-NEXT: memref.store %[[Z]], %arg2[%[[I]]]
// CHECK-NEXT: }
// CHECK-NOT: scf.for
func.func @chain_1d(%a: memref<?xf64>, %b: memref<?xf64>, %c: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf64>
    %y = arith.mulf %v, %v : f64
    memref.store %y, %b[%i] : memref<?xf64>
  }
  scf.for %i = %c0 to %n step %c1 {
    %y = memref.load %b[%i] : memref<?xf64>
    %z = arith.addf %y, %y : f64
    memref.store %z, %c[%i] : memref<?xf64>
  }
  return
}

// Left as two nests: the consumer reads a neighbour (b[i + 1], stored by a later
// iteration of the producer).
// CHECK-LABEL: func.func @neighbour
// CHECK-COUNT-2: scf.for
// CHECK-NOT: scf.for
func.func @neighbour(%a: memref<?xf64>, %b: memref<?xf64>, %c: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf64>
    memref.store %v, %b[%i] : memref<?xf64>
  }
  scf.for %i = %c0 to %n step %c1 {
    %k = arith.addi %i, %c1 : index
    %y = memref.load %b[%k] : memref<?xf64>
    memref.store %y, %c[%i] : memref<?xf64>
  }
  return
}

// Left: the consumer writes the producer's input.
// CHECK-LABEL: func.func @writes_the_input
// CHECK-COUNT-2: scf.for
// CHECK-NOT: scf.for
func.func @writes_the_input(%a: memref<?xf64>, %c: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf64>
    memref.store %v, %c[%i] : memref<?xf64>
  }
  scf.for %i = %c0 to %n step %c1 {
    %y = memref.load %c[%i] : memref<?xf64>
    %z = arith.addf %y, %y : f64
    memref.store %z, %a[%i] : memref<?xf64>
  }
  return
}

// Left: the bounds differ.
// CHECK-LABEL: func.func @other_bounds
// CHECK-COUNT-2: scf.for
// CHECK-NOT: scf.for
func.func @other_bounds(%a: memref<?xf64>, %b: memref<?xf64>, %c: memref<?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf64>
    memref.store %v, %b[%i] : memref<?xf64>
  }
  scf.for %i = %c0 to %m step %c1 {
    %y = memref.load %b[%i] : memref<?xf64>
    memref.store %y, %c[%i] : memref<?xf64>
  }
  return
}

// Left: the producer is a running sum (its store is not at its own element).
// CHECK-LABEL: func.func @running_sum
// CHECK-COUNT-2: scf.for
// CHECK-NOT: scf.for
func.func @running_sum(%a: memref<?xf64>, %c: memref<?xf64>, %s: memref<1xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf64>
    %t = memref.load %s[%c0] : memref<1xf64>
    %u = arith.addf %t, %v : f64
    memref.store %u, %s[%c0] : memref<1xf64>
  }
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.load %s[%c0] : memref<1xf64>
    memref.store %t, %c[%i] : memref<?xf64>
  }
  return
}

// Left: a call between the nests (it may read or write anything).
// CHECK-LABEL: func.func @call_between
// CHECK: scf.for
// CHECK: call @opaque
// CHECK: scf.for
func.func @call_between(%a: memref<?xf64>, %b: memref<?xf64>, %c: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf64>
    memref.store %v, %b[%i] : memref<?xf64>
  }
  func.call @opaque(%b) : (memref<?xf64>) -> ()
  scf.for %i = %c0 to %n step %c1 {
    %y = memref.load %b[%i] : memref<?xf64>
    memref.store %y, %c[%i] : memref<?xf64>
  }
  return
}

// Siblings reading the same input (x.min() and x.max()): one pass over x, both
// running values carried; the second accumulator's initial store moves before it.
// CHECK-LABEL: func.func @min_and_max
// CHECK: memref.store %{{.*}}, %[[LO:.*]][] : memref<f32>
// CHECK-NEXT: memref.store %{{.*}}, %[[HI:.*]][] : memref<f32>
// CHECK-NEXT: %[[LO0:.*]] = memref.load %[[LO]][]
// CHECK-NEXT: %[[HI0:.*]] = memref.load %[[HI]][]
// CHECK-NEXT: %[[BOTH:.*]]:2 = scf.for %{{.*}} iter_args(%[[A:.*]] = %[[LO0]], %[[B:.*]] = %[[HI0]]) -> (f32, f32) {
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0
// CHECK-NEXT: %[[M:.*]] = arith.minimumf %[[A]], %[[V]]
// CHECK-NEXT: %[[W:.*]] = memref.load %arg0
// CHECK-NEXT: %[[N:.*]] = arith.maximumf %[[B]], %[[W]]
// CHECK-NEXT: scf.yield %[[M]], %[[N]] : f32, f32
// CHECK-NEXT: }
// CHECK-DAG: memref.store %[[BOTH]]#0, %[[LO]][]
// CHECK-DAG: memref.store %[[BOTH]]#1, %[[HI]][]
// CHECK-NOT: scf.for
func.func @min_and_max(%x: memref<?xf32>, %lo: memref<f32>, %hi: memref<f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  memref.store %inf, %lo[] : memref<f32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %a = memref.load %lo[] : memref<f32>
    %m = arith.minimumf %a, %v : f32
    memref.store %m, %lo[] : memref<f32>
  }
  memref.store %ninf, %hi[] : memref<f32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %b = memref.load %hi[] : memref<f32>
    %m = arith.maximumf %b, %v : f32
    memref.store %m, %hi[] : memref<f32>
  }
  return
}

// Siblings sharing no input gain nothing fused; nor do siblings one of which gathers
// (an index computed from a loaded value).
// CHECK-LABEL: func.func @siblings_kept
// CHECK-COUNT-4: scf.for
// CHECK-NOT: scf.for
func.func @siblings_kept(%x: memref<?xf32>, %y: memref<?xf32>, %idx: memref<?xindex>, %a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %a[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %y[%i] : memref<?xf32>
    memref.store %v, %b[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %k = memref.load %idx[%i] : memref<?xindex>
    %v = memref.load %x[%k] : memref<?xf32>
    memref.store %v, %a[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %b[%i] : memref<?xf32>
  }
  return
}

// The pieces of a concatenation (np.column_stack of two vectors): siblings copying
// different inputs into static, disjoint column boxes of one output. One pass over the
// output, both stores in one body (LLVM interleaves them instead of scattering each).
// CHECK-LABEL: func.func @columns_of_one_output
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[B:[a-z0-9_]+]]: memref<64xf32>, %[[OUT:[a-z0-9_]+]]: memref<64x2xf32>)
// CHECK: scf.for %[[I:.*]] = %c0 to %c64 step %c1 {
// CHECK: memref.load %[[A]][%[[I]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %c0] : memref<64x1xf32, strided<[2, 1]>>
// CHECK-NOT: scf.for
// CHECK: memref.load %[[B]][%[[I]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %c0] : memref<64x1xf32, strided<[2, 1], offset: 1>>
// CHECK: }
// CHECK-NOT: scf.for
// CHECK: return
func.func @columns_of_one_output(%a: memref<64xf32>, %b: memref<64xf32>, %out: memref<64x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %left = memref.subview %out[0, 0] [64, 1] [1, 1] : memref<64x2xf32> to memref<64x1xf32, strided<[2, 1]>>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %a[%i] : memref<64xf32>
    memref.store %v, %left[%i, %c0] : memref<64x1xf32, strided<[2, 1]>>
  }
  %right = memref.subview %out[0, 1] [64, 1] [1, 1] : memref<64x2xf32> to memref<64x1xf32, strided<[2, 1], offset: 1>>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %b[%i] : memref<64xf32>
    memref.store %v, %right[%i, %c0] : memref<64x1xf32, strided<[2, 1], offset: 1>>
  }
  return
}

// Boxes that overlap (a window and a shifted window of one output), or whose offsets
// are not constants, may write the same element: the order of the nests stays.
// CHECK-LABEL: func.func @overlapping_boxes_kept
// CHECK-COUNT-3: scf.for
func.func @overlapping_boxes_kept(%a: memref<64xf32>, %b: memref<64xf32>, %out: memref<65xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %first = memref.subview %out[0] [64] [1] : memref<65xf32> to memref<64xf32, strided<[1]>>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %a[%i] : memref<64xf32>
    memref.store %v, %first[%i] : memref<64xf32, strided<[1]>>
  }
  %second = memref.subview %out[1] [64] [1] : memref<65xf32> to memref<64xf32, strided<[1], offset: 1>>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %b[%i] : memref<64xf32>
    memref.store %v, %second[%i] : memref<64xf32, strided<[1], offset: 1>>
  }
  %third = memref.subview %out[%k] [1] [1] : memref<65xf32> to memref<1xf32, strided<[1], offset: ?>>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %a[%i] : memref<64xf32>
    memref.store %v, %third[%c0] : memref<1xf32, strided<[1], offset: ?>>
  }
  return
}

func.func private @opaque(memref<?xf64>)
