// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-matvec-pairs{define-helpers=true})' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-matvec-pairs)' | FileCheck %s --check-prefix=DECLARED

// By default only the helper's declaration: the CPU backend links the library it compiles once.
// DECLARED: func.func private @ember_matvec_pair_loops_f64(memref<?x?xf64, strided<[?, 1], offset: ?>>, memref<?xf64, strided<[1], offset: ?>>, memref<?xf64, strided<[?], offset: ?>>, memref<?xf64, strided<[?], offset: ?>>, memref<?xf64, strided<[1], offset: ?>>)
// DECLARED-LABEL: func.func @bicg
// DECLARED: call @ember_matvec_pair_loops_f64(

// The helper: A's columns in blocks as x @ A's helper splits them, a scratch row of
// partials per block; eight rows at a time, each A vector feeding both the block's
// part of s and its row's accumulator, the next rows prefetched; the partials stored,
// then added up block after block into q after the forked loop.
// CHECK-LABEL: func.func private @ember_matvec_pair_loops_f64
// CHECK: %[[TILES:.*]] = arith.maxui
// CHECK: %[[PARTIALS:.*]] = memref.alloc(%[[TILES]], %{{.*}}) : memref<?x?xf64>
// CHECK: scf.forall (%[[T:.*]]) in (%[[TILES]])
// CHECK: %{{.*}}:8 = scf.for
// CHECK: %[[SV:.*]] = vector.load %arg4
// CHECK: %[[PV:.*]] = vector.load %arg1
// CHECK: memref.prefetch
// CHECK: %[[V:.*]] = vector.load %arg0
// CHECK: vector.fma %[[V]], %{{.*}}, %[[SV]]
// CHECK: vector.fma %[[V]], %[[PV]], %{{.*}}
// CHECK-COUNT-7: memref.prefetch
// CHECK: vector.store %{{.*}}, %arg4
// CHECK-COUNT-8: vector.reduction <add>
// CHECK-COUNT-8: memref.store %{{.*}}, %[[PARTIALS]][%[[T]], %{{.*}}]
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<8xf64>)
// CHECK: vector.reduction <add>
// CHECK: memref.store %{{.*}}, %[[PARTIALS]][%[[T]], %{{.*}}]
// CHECK: scf.for %[[I:.*]] = %c0 to
// CHECK: scf.for %[[B:.*]] = %c1 to %[[TILES]]
// CHECK: memref.load %[[PARTIALS]][%[[B]], %[[I]]]
// CHECK: %[[OLD:.*]] = memref.load %arg2[%[[I]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}}
// CHECK: memref.store %[[NEW]], %arg2[%[[I]]]
// CHECK: memref.dealloc %[[PARTIALS]]

// The chain's helper: A's rows in one block per part (whole groups of eight), each
// part's scratch row zeroed; eight rows' dot products with x stored in y, then those
// rows times their y added into the part's row, the next rows prefetched; after the
// forked loop the parts' rows added up into z.
// CHECK-LABEL: func.func private @ember_matvec_chain_loops_f64
// CHECK: %[[PARTIALS:.*]] = memref.alloc(%[[TILES:.*]], %{{.*}}) : memref<?x?xf64>
// CHECK: scf.forall (%[[T:.*]]) in (%[[TILES]])
// CHECK: %[[ROW:.*]] = memref.subview %[[PARTIALS]][%[[T]], 0] [1, %{{.*}}] [1, 1]
// CHECK: vector.store %{{.*}}, %[[ROW]]
// CHECK: %{{.*}}:8 = scf.for
// CHECK-COUNT-8: vector.reduction <add>
// CHECK-COUNT-8: memref.store %{{.*}}, %arg2[
// CHECK-COUNT-8: memref.load %arg2[
// CHECK: vector.load %[[ROW]]
// CHECK-COUNT-8: vector.fma
// CHECK: vector.store %{{.*}}, %[[ROW]]
// CHECK: memref.load %[[PARTIALS]][%c0, %[[J:.*]]] : memref<?x?xf64>
// CHECK: memref.store %{{.*}}, %arg3[%[[J]]]

// r @ A and A @ p: one call where the second product was; the zero fills stay (the
// helper adds into q and s, as linalg does).
// CHECK-LABEL: func.func @bicg
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<40x30xf64>, %[[P:[a-z0-9_]+]]: memref<30xf64>, %[[R:[a-z0-9_]+]]: memref<40xf64>, %[[S:[a-z0-9_]+]]: memref<30xf64>, %[[Q:[a-z0-9_]+]]: memref<40xf64>)
// CHECK: linalg.fill {{.*}} outs(%[[S]]
// CHECK-NOT: linalg.vecmat
// CHECK: linalg.fill {{.*}} outs(%[[Q]]
// CHECK-DAG: %[[AC:.*]] = memref.cast %[[A]] : memref<40x30xf64> to memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK-DAG: %[[PC:.*]] = memref.cast %[[P]] : memref<30xf64> to memref<?xf64, strided<[1], offset: ?>>
// CHECK-DAG: %[[QC:.*]] = memref.cast %[[Q]] : memref<40xf64> to memref<?xf64, strided<[?], offset: ?>>
// CHECK-DAG: %[[RC:.*]] = memref.cast %[[R]] : memref<40xf64> to memref<?xf64, strided<[?], offset: ?>>
// CHECK-DAG: %[[SC:.*]] = memref.cast %[[S]] : memref<30xf64> to memref<?xf64, strided<[1], offset: ?>>
// CHECK: call @ember_matvec_pair_loops_f64(%[[AC]], %[[PC]], %[[QC]], %[[RC]], %[[SC]])
// CHECK-NOT: linalg.matvec
// CHECK: return
func.func @bicg(%a: memref<40x30xf64>, %p: memref<30xf64>, %r: memref<40xf64>, %s: memref<30xf64>, %q: memref<40xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%s : memref<30xf64>)
  linalg.vecmat ins(%r, %a : memref<40xf64>, memref<40x30xf64>) outs(%s : memref<30xf64>)
  linalg.fill ins(%zero : f64) outs(%q : memref<40xf64>)
  linalg.matvec ins(%a, %p : memref<40x30xf64>, memref<30xf64>) outs(%q : memref<40xf64>)
  return
}

// x1 + A @ y1 and x2 + A.T @ y2: each product adds into a copy of its vector; the
// second copy lies between them and touches neither the first's output nor A.
// CHECK-LABEL: func.func @mvt
// CHECK: linalg.copy
// CHECK: linalg.copy
// CHECK: call @ember_matvec_pair_loops_f64(
// CHECK-NOT: linalg.matvec
// CHECK-NOT: linalg.vecmat
func.func @mvt(%a: memref<40x40xf64>, %x1: memref<40xf64>, %x2: memref<40xf64>, %y1: memref<40xf64>, %y2: memref<40xf64>, %o1: memref<40xf64>, %o2: memref<40xf64>) {
  %t1 = memref.alloc() : memref<40xf64>
  linalg.copy ins(%x1 : memref<40xf64>) outs(%t1 : memref<40xf64>)
  linalg.matvec ins(%a, %y1 : memref<40x40xf64>, memref<40xf64>) outs(%t1 : memref<40xf64>)
  %t2 = memref.alloc() : memref<40xf64>
  linalg.copy ins(%x2 : memref<40xf64>) outs(%t2 : memref<40xf64>)
  linalg.vecmat ins(%y2, %a : memref<40xf64>, memref<40x40xf64>) outs(%t2 : memref<40xf64>)
  linalg.copy ins(%t1 : memref<40xf64>) outs(%o1 : memref<40xf64>)
  linalg.copy ins(%t2 : memref<40xf64>) outs(%o2 : memref<40xf64>)
  memref.dealloc %t1 : memref<40xf64>
  memref.dealloc %t2 : memref<40xf64>
  return
}

// A.T @ (A @ x): the second product reads the first's output, zero-filled before it:
// a chain, one call of the other helper where the vecmat was.
// CHECK-LABEL: func.func @atax
// CHECK: linalg.fill
// CHECK: call @ember_matvec_chain_loops_f64(
// CHECK-NOT: linalg.matvec
// CHECK-NOT: linalg.vecmat
// CHECK: memref.dealloc
func.func @atax(%a: memref<40x30xf64>, %x: memref<30xf64>, %y: memref<30xf64>) {
  %zero = arith.constant 0.0 : f64
  %t = memref.alloc() : memref<40xf64>
  linalg.fill ins(%zero : f64) outs(%t : memref<40xf64>)
  linalg.matvec ins(%a, %x : memref<40x30xf64>, memref<30xf64>) outs(%t : memref<40xf64>)
  linalg.vecmat ins(%t, %a : memref<40xf64>, memref<40x30xf64>) outs(%y : memref<30xf64>)
  memref.dealloc %t : memref<40xf64>
  return
}

// The same without the zero fill (the product adds into what y held): not a chain.
// CHECK-LABEL: func.func @atax_accumulating
// CHECK-NOT: call @ember_matvec
// CHECK: linalg.matvec
// CHECK: linalg.vecmat
func.func @atax_accumulating(%a: memref<40x30xf64>, %x: memref<30xf64>, %t: memref<40xf64>, %y: memref<30xf64>) {
  linalg.matvec ins(%a, %x : memref<40x30xf64>, memref<30xf64>) outs(%t : memref<40xf64>)
  linalg.vecmat ins(%t, %a : memref<40xf64>, memref<40x30xf64>) outs(%y : memref<30xf64>)
  return
}

// A written between the products: the first cannot move past the write.
// CHECK-LABEL: func.func @written_between
// CHECK-NOT: call @ember_matvec_pair_loops
// CHECK: linalg.matvec
// CHECK: linalg.fill
// CHECK: linalg.vecmat
func.func @written_between(%a: memref<40x30xf64>, %p: memref<30xf64>, %r: memref<40xf64>, %s: memref<30xf64>, %q: memref<40xf64>) {
  %one = arith.constant 1.0 : f64
  linalg.matvec ins(%a, %p : memref<40x30xf64>, memref<30xf64>) outs(%q : memref<40xf64>)
  linalg.fill ins(%one : f64) outs(%a : memref<40x30xf64>)
  linalg.vecmat ins(%r, %a : memref<40xf64>, memref<40x30xf64>) outs(%s : memref<30xf64>)
  return
}

// Two matrices: not a pair.
// CHECK-LABEL: func.func @two_matrices
// CHECK-NOT: call @ember_matvec_pair_loops
func.func @two_matrices(%a: memref<40x30xf64>, %b: memref<40x30xf64>, %p: memref<30xf64>, %r: memref<40xf64>, %s: memref<30xf64>, %q: memref<40xf64>) {
  linalg.matvec ins(%a, %p : memref<40x30xf64>, memref<30xf64>) outs(%q : memref<40xf64>)
  linalg.vecmat ins(%r, %b : memref<40xf64>, memref<40x30xf64>) outs(%s : memref<30xf64>)
  return
}

// Strides and sizes unknown: A's rows, p and s checked for unit stride at run time,
// with A wide enough to split its columns (or small); else both products as they were.
// CHECK-LABEL: func.func @dynamic
// CHECK-COUNT-3: arith.cmpi eq
// CHECK: arith.ori
// CHECK: scf.if %{{.*}} {
// CHECK: call @ember_matvec_pair_loops_f32(
// CHECK: } else {
// CHECK: linalg.matvec
// CHECK: linalg.vecmat
func.func @dynamic(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %p: memref<?xf32, strided<[?], offset: ?>>, %r: memref<?xf32, strided<[?], offset: ?>>, %s: memref<?xf32, strided<[?], offset: ?>>, %q: memref<?xf32, strided<[?], offset: ?>>) {
  linalg.matvec ins(%a, %p : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>) outs(%q : memref<?xf32, strided<[?], offset: ?>>)
  linalg.vecmat ins(%r, %a : memref<?xf32, strided<[?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) outs(%s : memref<?xf32, strided<[?], offset: ?>>)
  return
}
