// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-gemm-loops{define-helpers=true})' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-gemm-loops)' | FileCheck %s --check-prefix=DECLARED

// By default only the helper's declaration: the CPU backend links the library it
// compiles once per process.
// DECLARED: func.func private @ember_gemm_loops_f32(memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, i1)
// DECLARED-LABEL: func.func @mm
// DECLARED: call @ember_gemm_loops_f32(

// The helper: parts from the pool's threads (one for a small product); per block of
// 256 along k, A's rows packed into panels of 12, B's columns into panels of 32 (two
// vector copies per k for a whole panel); the micro-kernel's loop four steps of k an
// iteration, each two vectors of B and 12 broadcasts of A into 24 accumulators; then
// the steps left; the tile stored or added where it lies inside C, else through the
// scratch tile.
// CHECK-LABEL: func.func private @ember_gemm_loops_f32
// CHECK: call @ember_pool_threads() : () -> i64
// CHECK: scf.forall (%{{.*}}) in (%{{.*}})
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c256
// CHECK: memref.store %{{.*}} : memref<196608xf32>
// CHECK: scf.for %{{.*}} step %c512
// CHECK-COUNT-2: vector.store %{{.*}} : memref<131072xf32>, vector<16xf32>
// CHECK: %{{.*}}:24 = scf.for %{{.*}} step %c4 iter_args(
// CHECK-COUNT-96: vector.fma
// CHECK: %{{.*}}:24 = scf.for %{{.*}} step %c1 iter_args(
// CHECK-COUNT-24: vector.fma
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-24: vector.store %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<16xf32>
// CHECK: } else {
// CHECK-COUNT-24: vector.store %{{.*}} : memref<12x32xf32>, vector<16xf32>

// A float32 product into zeros, contiguous rows: the fill and the matmul become one call.
// CHECK-LABEL: func.func @mm
// CHECK-NOT: linalg.fill
// CHECK: %[[FRESH:.*]] = arith.constant false
// CHECK: call @ember_gemm_loops_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[FRESH]])
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @mm(%a: memref<64x64xf32>, %b: memref<64x128xf32>, %c: memref<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x128xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x128xf32>) outs(%c : memref<64x128xf32>)
  return
}

// A product accumulating into what C holds (a bias put there first): the call adds.
// CHECK-LABEL: func.func @accumulating
// CHECK: %[[ADD:.*]] = arith.constant true
// CHECK: call @ember_gemm_loops_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ADD]])
// CHECK-NOT: linalg.matmul
func.func @accumulating(%a: memref<64x64xf32>, %b: memref<64x128xf32>, %c: memref<64x128xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x128xf32>) outs(%c : memref<64x128xf32>)
  return
}

// Too small to be worth packing (8^3 multiply-adds): left to BLAS.
// CHECK-LABEL: func.func @small
// CHECK-NOT: call @ember_gemm_loops_f32
// CHECK: linalg.matmul
func.func @small(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

// Float64: left to BLAS.
// CHECK-LABEL: func.func @double
// CHECK-NOT: call @ember_gemm_loops_f32
// CHECK: linalg.matmul
func.func @double(%a: memref<64x64xf64>, %b: memref<64x128xf64>, %c: memref<64x128xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<64x128xf64>)
  linalg.matmul ins(%a, %b : memref<64x64xf64>, memref<64x128xf64>) outs(%c : memref<64x128xf64>)
  return
}

// Dynamic sizes and strides: the call behind a run-time check of each row's unit
// stride and of the size (m * k * n > 2^18); the fill and the matmul the other branch.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[S:.*]] = arith.constant 262144 : index
// CHECK: %[[BIG:.*]] = arith.cmpi ugt, %{{.*}}, %[[S]] : index
// CHECK: scf.if %{{.*}} {
// CHECK: call @ember_gemm_loops_f32(
// CHECK: } else {
// CHECK: linalg.fill
// CHECK: linalg.matmul
func.func @dynamic(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.matmul ins(%a, %b : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// Rows the type says are strided: left to BLAS.
// CHECK-LABEL: func.func @strided
// CHECK-NOT: call @ember_gemm_loops_f32
// CHECK: linalg.matmul
func.func @strided(%a: memref<64x64xf32, strided<[128, 2]>>, %b: memref<64x128xf32>, %c: memref<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x128xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32, strided<[128, 2]>>, memref<64x128xf32>) outs(%c : memref<64x128xf32>)
  return
}
