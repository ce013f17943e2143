// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-matvec-loops{define-helpers=true})' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-matvec-loops)' | FileCheck %s --check-prefix=DECLARED

// The helpers come first in the module (the pass adds them at the top); by default
// only their declarations: the CPU backend links the helper library it compiles once.
// DECLARED: func.func private @ember_matvec_loops_f64(memref<?x?xf64, strided<[?, 1], offset: ?>>, memref<?xf64, strided<[1], offset: ?>>, memref<?xf64, strided<[?], offset: ?>>)
// DECLARED: func.func private @ember_vecmat_loops_f64(memref<?xf64, strided<[?], offset: ?>>, memref<?x?xf64, strided<[?, 1], offset: ?>>, memref<?xf64, strided<[1], offset: ?>>)
// DECLARED: func.func private @ember_matvec_loops_f32(
// DECLARED: func.func private @ember_vecmat_loops_f32(
// DECLARED-LABEL: func.func @mv
// DECLARED: call @ember_matvec_loops_f64(

// A @ x's helper: a forall over blocks of 16 rows, eight rows at a time with one vector
// accumulator each and a prefetch 512 bytes (64 float64) ahead in each row, clamped to
// the row's last element; then each row's lanes added and its last columns.
// CHECK-LABEL: func.func private @ember_matvec_loops_f64
// CHECK-DAG: %[[PF:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[RB:.*]] = arith.constant 16 : index
// CHECK: %[[TILES:.*]] = arith.ceildivui %{{.*}}, %[[RB]] : index
// CHECK: scf.forall (%{{.*}}) in (%[[TILES]])
// CHECK: scf.for %{{.*}} step %c8
// CHECK: %{{.*}}:8 = scf.for %[[J:.*]] = %c0 to %{{.*}} step %{{.*}} iter_args(
// CHECK: %[[AHEAD:.*]] = arith.addi %[[J]], %[[PF]] : index
// CHECK: %[[P:.*]] = arith.minui %[[AHEAD]], %{{.*}} : index
// CHECK: %[[XV:.*]] = vector.load %{{.*}}[%[[J]]] : memref<?xf64, strided<[1], offset: ?>>, vector<8xf64>
// CHECK-COUNT-8: memref.prefetch %{{.*}}[%{{.*}}, %[[P]]], read, locality<3>, data
// CHECK: vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<8xf64> into f64
// CHECK: math.fma
// CHECK-COUNT-8: memref.store
// CHECK: scf.for %{{.*}} step %c1
// CHECK: vector.fma

// Columns in blocks of about 20 KiB (5120 float32), at least one per thread when the
// matrix is large (and the blocks at least 64 wide), the columns dealt evenly to them;
// the block of y zeroed, then four rows at a time added into it, the next four rows'
// lines prefetched.
// CHECK-LABEL: func.func private @ember_vecmat_loops_f32
// CHECK: %[[CB:.*]] = arith.constant 5120 : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %{{.*}}, %[[CB]] : index
// CHECK: %[[PARTS:.*]] = call @ember_pool_threads() : () -> i64
// CHECK: %[[WANTED:.*]] = arith.select %{{.*}}, %{{.*}}, %c1 : index
// CHECK: %[[TILES:.*]] = arith.maxui %[[BLOCKS]], %[[WANTED]] : index
// CHECK: %[[SOME:.*]] = arith.maxui %[[TILES]], %c1 : index
// CHECK: arith.ceildivui %{{.*}}, %[[SOME]] : index
// CHECK: scf.forall (%{{.*}}) in (%[[TILES]])
// CHECK: vector.store %{{.*}} : memref<?xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: vector.broadcast
// CHECK-COUNT-4: memref.prefetch
// CHECK: vector.store

// A @ x into zeros, with contiguous rows and x: the fill and the product become one
// call of the helper, which the pass adds once per element type.
// CHECK-LABEL: func.func @mv
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<40x30xf64>, %[[X:[a-z0-9_]+]]: memref<30xf64>, %[[Y:[a-z0-9_]+]]: memref<40xf64>)
// CHECK-NOT: linalg.fill
// CHECK: %[[AC:.*]] = memref.cast %[[A]] : memref<40x30xf64> to memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK: %[[XC:.*]] = memref.cast %[[X]] : memref<30xf64> to memref<?xf64, strided<[1], offset: ?>>
// CHECK: %[[YC:.*]] = memref.cast %[[Y]] : memref<40xf64> to memref<?xf64, strided<[?], offset: ?>>
// CHECK: call @ember_matvec_loops_f64(%[[AC]], %[[XC]], %[[YC]])
// CHECK-NOT: linalg.matvec
// CHECK: return
func.func @mv(%a: memref<40x30xf64>, %x: memref<30xf64>, %y: memref<40xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%y : memref<40xf64>)
  linalg.matvec ins(%a, %x : memref<40x30xf64>, memref<30xf64>) outs(%y : memref<40xf64>)
  return
}

// x @ A with A's strides and sizes unknown: the row stride is checked at run time, and
// that A has 128 columns or more (two column blocks of 64 for two threads) or is small
// (under 384 KiB: one thread's work); the fill and the product stay as the other
// branch (ember-matmul-to-blas makes it a BLAS call).
// CHECK-LABEL: func.func @vm_strided
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: memref<?xf32, strided<[?], offset: ?>>, %[[A:[a-z0-9_]+]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[Y:[a-z0-9_]+]]: memref<?xf32>)
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[S:.*]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK: %[[UNIT:.*]] = arith.cmpi eq, %[[S]]#1, %{{.*}} : index
// CHECK: %[[WIDE:.*]] = arith.cmpi uge, %{{.*}}, %c128 : index
// CHECK: %[[SMALL:.*]] = arith.cmpi ult, %{{.*}}, %c98304 : index
// CHECK: %[[SPLITS:.*]] = arith.ori %[[WIDE]], %[[SMALL]] : i1
// CHECK: %[[OK:.*]] = arith.andi %[[UNIT]], %[[SPLITS]] : i1
// CHECK: scf.if %[[OK]] {
// CHECK: call @ember_vecmat_loops_f32(
// CHECK: } else {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.vecmat
// CHECK: return
func.func @vm_strided(%x: memref<?xf32, strided<[?], offset: ?>>, %a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<?xf32>)
  linalg.vecmat ins(%x, %a : memref<?xf32, strided<[?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) outs(%y : memref<?xf32>)
  return
}

// Left alone: a product adding into its output (no zero fill), rows the type says are
// strided, an integer product, x @ A of a tall narrow A (BLAS splits its rows).
// CHECK-LABEL: func.func @tall_narrow
// CHECK-NOT: call
// CHECK: linalg.vecmat
func.func @tall_narrow(%x: memref<20000xf64>, %a: memref<20000x32xf64>, %y: memref<32xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%y : memref<32xf64>)
  linalg.vecmat ins(%x, %a : memref<20000xf64>, memref<20000x32xf64>) outs(%y : memref<32xf64>)
  return
}

// CHECK-LABEL: func.func @accumulating
// CHECK-NOT: call
// CHECK: linalg.matvec
func.func @accumulating(%a: memref<4x3xf64>, %x: memref<3xf64>, %y: memref<4xf64>) {
  linalg.matvec ins(%a, %x : memref<4x3xf64>, memref<3xf64>) outs(%y : memref<4xf64>)
  return
}

// CHECK-LABEL: func.func @strided_rows
// CHECK-NOT: call
// CHECK: linalg.matvec
func.func @strided_rows(%a: memref<4x3xf64, strided<[6, 2]>>, %x: memref<3xf64>, %y: memref<4xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%y : memref<4xf64>)
  linalg.matvec ins(%a, %x : memref<4x3xf64, strided<[6, 2]>>, memref<3xf64>) outs(%y : memref<4xf64>)
  return
}

// CHECK-LABEL: func.func @integers
// CHECK-NOT: call
// CHECK: linalg.matvec
func.func @integers(%a: memref<4x3xi32>, %x: memref<3xi32>, %y: memref<4xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%y : memref<4xi32>)
  linalg.matvec ins(%a, %x : memref<4x3xi32>, memref<3xi32>) outs(%y : memref<4xi32>)
  return
}

// Beside a dot product BLAS takes on the calling thread (up to 10000 elements, as
// OpenBLAS does), the matrix-vector product still becomes the helper's call...
// CHECK-LABEL: func.func @beside_short_dot
// CHECK: call @ember_matvec_loops_f64(
// CHECK: linalg.dot
func.func @beside_short_dot(%a: memref<40x30xf64>, %x: memref<30xf64>, %y: memref<40xf64>, %s: memref<f64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%y : memref<40xf64>)
  linalg.matvec ins(%a, %x : memref<40x30xf64>, memref<30xf64>) outs(%y : memref<40xf64>)
  linalg.fill ins(%zero : f64) outs(%s : memref<f64>)
  linalg.dot ins(%y, %y : memref<40xf64>, memref<40xf64>) outs(%s : memref<f64>)
  return
}

// ...beside a longer one, or one of unknown length, which runs on BLAS's threads, it
// stays for BLAS too.
// CHECK-LABEL: func.func @beside_long_dot
// CHECK-NOT: call
// CHECK: linalg.matvec
func.func @beside_long_dot(%a: memref<40x30xf64>, %x: memref<30xf64>, %y: memref<40xf64>, %u: memref<10001xf64>, %s: memref<f64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%y : memref<40xf64>)
  linalg.matvec ins(%a, %x : memref<40x30xf64>, memref<30xf64>) outs(%y : memref<40xf64>)
  linalg.fill ins(%zero : f64) outs(%s : memref<f64>)
  linalg.dot ins(%u, %u : memref<10001xf64>, memref<10001xf64>) outs(%s : memref<f64>)
  return
}

// CHECK-LABEL: func.func @beside_dynamic_dot
// CHECK-NOT: call
// CHECK: linalg.matvec
func.func @beside_dynamic_dot(%a: memref<40x30xf64>, %x: memref<30xf64>, %y: memref<40xf64>, %u: memref<?xf64>, %s: memref<f64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%y : memref<40xf64>)
  linalg.matvec ins(%a, %x : memref<40x30xf64>, memref<30xf64>) outs(%y : memref<40xf64>)
  linalg.fill ins(%zero : f64) outs(%s : memref<f64>)
  linalg.dot ins(%u, %u : memref<?xf64>, memref<?xf64>) outs(%s : memref<f64>)
  return
}
