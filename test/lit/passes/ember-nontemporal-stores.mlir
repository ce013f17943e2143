// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-nontemporal-stores{min-bytes=4096},canonicalize)' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-nontemporal-stores{min-bytes=4096},loops-to-llvm)' | FileCheck %s --check-prefix=LLVM
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-nontemporal-stores{min-bytes=-1})' | FileCheck %s --check-prefix=OFF

// An output of unknown size: the aligned vector loop runs when the output has at least
// min-bytes (checked at run time) and its address can be aligned; the scalar loop runs
// twice, over the head before the aligned part and the tail after it (or, when the
// vector loop must not run, over everything). A fence follows.
// CHECK-LABEL: func.func @axpb
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK: arith.remui %[[P]], %c64
// CHECK: arith.cmpi sle
// CHECK: %[[DIM:.*]] = memref.dim %arg2, %c0
// CHECK: %[[BYTES:.*]] = arith.muli %[[DIM]], %c4
// CHECK: arith.cmpi uge, %[[BYTES]], %c4096
// CHECK: %[[START:.*]] = arith.select %[[GO:.*]], %{{.*}}, %arg3 : index
// CHECK: %[[END:.*]] = arith.select %[[GO]], %{{.*}}, %arg3 : index
// CHECK: scf.for %[[I:.*]] = %[[START]] to %[[END]] step %c16 {
// CHECK-NEXT: vector.load %arg0[%[[I]]] : memref<?xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK-NEXT: vector.load %arg1[%[[I]]] : memref<?xf32>, vector<16xf32>
// CHECK-NEXT: arith.mulf %{{.*}}, %cst : vector<16xf32>
// CHECK-NEXT: arith.addf {{.*}} : vector<16xf32>
// CHECK-NEXT: vector.store %{{.*}}, %arg2[%[[I]]] {alignment = 64 : i64, nontemporal = true} : memref<?xf32>, vector<16xf32>
// CHECK: scf.for %[[T:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[LO:.*]] = arith.select %{{.*}}, %c0, %[[END]] : index
// CHECK: %[[HI:.*]] = arith.select %{{.*}}, %[[START]], %arg3 : index
// CHECK: scf.for %{{.*}} = %[[LO]] to %[[HI]] step %c1 {
// CHECK: memref.store %{{.*}} : memref<?xf32>
// CHECK: {{llvm.call_intrinsic "llvm.x86.sse.sfence"|llvm.fence release}}
// CHECK-NEXT: return
// LLVM-LABEL: llvm.func @axpb
// LLVM: llvm.store %{{.*}} {alignment = 64 : i64, nontemporal} : vector<16xf32>, !llvm.ptr
// OFF-LABEL: func.func @axpb
// OFF-NOT: vector.store
func.func @axpb(%x: memref<?xf32, strided<[1], offset: ?>>, %y: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = arith.constant 1.5 : f32
  scf.for %i = %c0 to %n step %c1 {
    %u = memref.load %x[%i] : memref<?xf32, strided<[1], offset: ?>>
    %v = memref.load %y[%i] : memref<?xf32>
    %w = arith.mulf %u, %a : f32
    %z = arith.addf %w, %v : f32
    memref.store %z, %out[%i] : memref<?xf32>
  }
  return
}

// A static output of 8 KiB rows: no size check; the row's index stays, a loop-invariant
// load (a row's scale) is broadcast, and a float64 output has 4 lanes.
// CHECK-LABEL: func.func @scale_rows
// CHECK-NOT: memref.dim
// CHECK: scf.for %[[R:.*]] = %c0 to %c4 step %c1 {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c8 {
// CHECK-NEXT: vector.load %arg0[%[[R]], %[[J]]] : memref<4x1024xf64>, vector<8xf64>
// CHECK-NEXT: %[[S:.*]] = memref.load %arg1[%[[R]]] : memref<4xf64>
// CHECK-NEXT: vector.broadcast %[[S]] : f64 to vector<8xf64>
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: vector.store %{{.*}}, %arg2[%[[R]], %[[J]]] {alignment = 64 : i64, nontemporal = true}
func.func @scale_rows(%x: memref<4x1024xf64>, %s: memref<4xf64>, %out: memref<4x1024xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c1024 step %c1 {
      %u = memref.load %x[%i, %j] : memref<4x1024xf64>
      %v = memref.load %s[%i] : memref<4xf64>
      %w = arith.mulf %u, %v : f64
      memref.store %w, %out[%i, %j] : memref<4x1024xf64>
    }
  }
  return
}

// Left alone: an output smaller than min-bytes, an output the function reads again
// (softmax's exp, then divided in place), a costly body (exp: compute-bound, where
// streaming was slower), and a bool output (a vector of i1 is packed bits in memory).
// CHECK-LABEL: func.func @kept
// CHECK-NOT: vector.
// CHECK-NOT: sfence
// CHECK: return
func.func @kept(%x: memref<256xf32>, %small: memref<256xf32>, %big: memref<4096xf32>, %e: memref<4096xf32>, %b: memref<4096xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c256 step %c1 {
    %u = memref.load %x[%i] : memref<256xf32>
    memref.store %u, %small[%i] : memref<256xf32>
  }
  scf.for %i = %c0 to %c4096 step %c1 {
    %u = memref.load %e[%i] : memref<4096xf32>
    memref.store %u, %big[%i] : memref<4096xf32>
  }
  scf.for %i = %c0 to %c4096 step %c1 {
    %u = memref.load %big[%i] : memref<4096xf32>
    %w = arith.addf %u, %u : f32
    memref.store %w, %big[%i] : memref<4096xf32>
  }
  scf.for %i = %c0 to %c4096 step %c1 {
    %u = memref.load %big[%i] : memref<4096xf32>
    %w = math.exp %u : f32
    memref.store %w, %e[%i] : memref<4096xf32>
  }
  scf.for %i = %c0 to %c4096 step %c1 {
    %u = memref.load %big[%i] : memref<4096xf32>
    %w = arith.cmpf ogt, %u, %zero : f32
    memref.store %w, %b[%i] : memref<4096xi1>
  }
  return
}
