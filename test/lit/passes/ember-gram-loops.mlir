// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-gram-loops{define-helpers=true vector-bits=512})' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-gram-loops{vector-bits=512})' | FileCheck %s --check-prefix=DECLARED
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-gram-loops{vector-bits=256})' | FileCheck %s --check-prefix=AVX2
// RUN: not ember-opt %s --pass-pipeline='builtin.module(ember-gram-loops{vector-bits=128})' 2>&1 | FileCheck %s --check-prefix=BAD

// By default only the helpers' declarations: the CPU backend links the library it
// compiles once per process.
// DECLARED-DAG: func.func private @ember_gram_loops_f64(memref<?x?xf64, strided<[?, 1], offset: ?>>, memref<?x?xf64, strided<[?, 1], offset: ?>>)
// DECLARED-DAG: func.func private @ember_gram_loops_f32(memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>)

// Without 512-bit vectors (where it was not measured) every product stays as it is,
// for ember-matmul-to-blas (?syrk).
// AVX2-NOT: ember_gram_loops
// AVX2-COUNT-6: linalg.matmul

// BAD: error: ember-gram-loops: vector-bits must be one of [256, 512], not 128

// The float64 helper: the parts split the row panels by the triangle's area (a square
// root); per block of 256 along k, A = X.T packed k-major (six neighbouring elements
// of a row of X per k, one vector copy), B = X from the column panel holding the
// chunk's first row, four vector copies per k; a tile is computed only where it
// reaches the diagonal (col0 + 32 > row0): 6 x 32, 24 accumulators of 8 lanes; then a
// second parallel loop copies C[j, i] into C[i, j] below the diagonal.
// CHECK-LABEL: func.func private @ember_gram_loops_f64(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: memref<?x?xf64, strided<[?, 1], offset: ?>>, %[[C:[a-z0-9_]+]]: memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK: call @ember_pool_threads() : () -> i64
// CHECK: scf.forall (%{{.*}}) in (%{{.*}})
// CHECK: math.sqrt
// CHECK: math.sqrt
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c256
// CHECK: %[[A:.*]] = vector.load %[[X]][%{{.*}}, %{{.*}}] : memref<?x?xf64, strided<[?, 1], offset: ?>>, vector<6xf64>
// CHECK-NEXT: vector.store %[[A]], %{{.*}} : memref<196608xf64>, vector<6xf64>
// CHECK: scf.for %{{.*}} step %c256
// CHECK-COUNT-4: vector.store %{{.*}} : memref<65536xf64>, vector<8xf64>
// CHECK: %[[END:.*]] = arith.addi %[[COL0:.*]], %c32 : index
// CHECK-NEXT: %[[REACHES:.*]] = arith.cmpi ugt, %[[END]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[REACHES]] {
// CHECK: %{{.*}}:24 = scf.for %{{.*}} step %c4 iter_args(
// CHECK-COUNT-96: vector.fma
// CHECK: %{{.*}}:24 = scf.for %{{.*}} step %c1 iter_args(
// CHECK-COUNT-24: vector.fma
// CHECK-COUNT-24: vector.store %{{.*}}, %[[C]]{{.*}} : memref<?x?xf64, strided<[?, 1], offset: ?>>, vector<8xf64>
// CHECK: scf.forall (%{{.*}}) in (%{{.*}})
// CHECK: %[[V:.*]] = memref.load %[[C]][%[[J:[a-z0-9_]+]], %[[I:[a-z0-9_]+]]]
// CHECK-NEXT: memref.store %[[V]], %[[C]][%[[I]], %[[J]]]

// The float32 helper: the same loops, a 6 x 64 tile of 16 lanes.
// CHECK-LABEL: func.func private @ember_gram_loops_f32(
// CHECK: vector.load %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<6xf32>
// CHECK: arith.addi %{{.*}}, %c64 : index
// CHECK: %{{.*}}:24 = scf.for %{{.*}} step %c4 iter_args(

// X.T @ X into zeros: the fill and the product become one call.
// CHECK-LABEL: func.func @gram
// CHECK-SAME: %[[XA:[a-z0-9_]+]]: memref<1000x800xf64>, %[[CA:[a-z0-9_]+]]: memref<800x800xf64>
// CHECK-NOT: linalg.fill
// CHECK: %[[XC:.*]] = memref.cast %[[XA]]
// CHECK: %[[CC:.*]] = memref.cast %[[CA]]
// CHECK: call @ember_gram_loops_f64(%[[XC]], %[[CC]])
// CHECK-NOT: linalg.matmul
// CHECK: return
#at = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @gram(%x: memref<1000x800xf64>, %c: memref<800x800xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<800x800xf64>)
  linalg.matmul indexing_maps = [#at, #b, #c] ins(%x, %x : memref<1000x800xf64>, memref<1000x800xf64>) outs(%c : memref<800x800xf64>)
  return
}

// Dynamic sizes and strides: the call behind run-time checks of X's and C's unit
// strides along rows and of the size (n * n * k > 2 * 2^18: half of it is computed);
// the fill and the product the other branch (for ?syrk).
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[S:.*]] = arith.constant 524288 : index
// CHECK: %[[BIG:.*]] = arith.cmpi ugt, %{{.*}}, %[[S]] : index
// CHECK: scf.if %{{.*}} {
// CHECK: call @ember_gram_loops_f32(
// CHECK: } else {
// CHECK: linalg.fill
// CHECK: linalg.matmul
func.func @dynamic(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %c: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.matmul indexing_maps = [#at, #b, #c] ins(%x, %x : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) outs(%c : memref<?x?xf32>)
  return
}

// Too small (8 x 8 x 10 / 2 multiply-adds): left to BLAS.
// CHECK-LABEL: func.func @small
// CHECK-NOT: call @ember_gram_loops
// CHECK: linalg.matmul
func.func @small(%x: memref<10x8xf64>, %c: memref<8x8xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<8x8xf64>)
  linalg.matmul indexing_maps = [#at, #b, #c] ins(%x, %x : memref<10x8xf64>, memref<10x8xf64>) outs(%c : memref<8x8xf64>)
  return
}

// Into what C holds (X.T @ X + lam * I starts from lam * I): left to BLAS (?syrk into
// scratch, then added).
// CHECK-LABEL: func.func @accumulating
// CHECK-NOT: call @ember_gram_loops
// CHECK: linalg.matmul
func.func @accumulating(%x: memref<1000x800xf64>, %c: memref<800x800xf64>) {
  linalg.matmul indexing_maps = [#at, #b, #c] ins(%x, %x : memref<1000x800xf64>, memref<1000x800xf64>) outs(%c : memref<800x800xf64>)
  return
}

// X @ X.T (rows of X times rows of X): not this helper's; ?syrk.
// CHECK-LABEL: func.func @outer_gram
// CHECK-NOT: call @ember_gram_loops
// CHECK: linalg.matmul
func.func @outer_gram(%x: memref<800x1000xf64>, %c: memref<800x800xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<800x800xf64>)
  linalg.matmul indexing_maps = [#a, #bt, #c] ins(%x, %x : memref<800x1000xf64>, memref<800x1000xf64>) outs(%c : memref<800x800xf64>)
  return
}

// Two different matrices (X.T @ Y): a plain product, not a Gram matrix.
// CHECK-LABEL: func.func @two_matrices
// CHECK-NOT: call @ember_gram_loops
// CHECK: linalg.matmul
func.func @two_matrices(%x: memref<1000x800xf64>, %y: memref<1000x800xf64>, %c: memref<800x800xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<800x800xf64>)
  linalg.matmul indexing_maps = [#at, #b, #c] ins(%x, %y : memref<1000x800xf64>, memref<1000x800xf64>) outs(%c : memref<800x800xf64>)
  return
}

// A float32 one with static sizes, to define the float32 helper above.
// CHECK-LABEL: func.func @single
// CHECK: call @ember_gram_loops_f32(
func.func @single(%x: memref<500x300xf32>, %c: memref<300x300xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<300x300xf32>)
  linalg.matmul indexing_maps = [#at, #b, #c] ins(%x, %x : memref<500x300xf32>, memref<500x300xf32>) outs(%c : memref<300x300xf32>)
  return
}
