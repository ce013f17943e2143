// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-gemm-loops{define-helpers=true vector-bits=512})' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-gemm-loops{define-helpers=true vector-bits=256})' | FileCheck %s --check-prefix=NARROW
// RUN: not ember-opt %s --pass-pipeline='builtin.module(ember-gemm-loops{vector-bits=128})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-gemm-loops)' | FileCheck %s --check-prefix=DECLARED

// By default only the helper's declaration: the CPU backend links the library it
// compiles once per process.
// DECLARED: func.func private @ember_gemm_loops_f32(memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, i1)
// DECLARED: func.func private @ember_gemm_bias_loops_f32(memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, i1)
// DECLARED-LABEL: func.func @mm
// DECLARED: call @ember_gemm_loops_f32(

// vector-bits is the blocking's vector width (by default the host's: 512 with
// AVX-512, else 256).
// BAD: error: ember-gemm-loops: vector-bits must be one of [256, 512], not 128

// With 256-bit vectors (AVX2's 16 registers): panels of 4 rows of A and 24 columns of
// B (three vectors), blocks of 240 columns of B, 12 accumulators.
// NARROW-LABEL: func.func private @ember_gemm_loops_f32
// NARROW: memref.alloc() {alignment = 64 : i64} : memref<131072xf32>
// NARROW: memref.alloc() {alignment = 64 : i64} : memref<61440xf32>
// NARROW: memref.alloc() {alignment = 64 : i64} : memref<4x24xf32>
// NARROW: scf.for %{{.*}} step %c240
// NARROW-COUNT-3: vector.store %{{.*}} : memref<61440xf32>, vector<8xf32>
// NARROW: %{{.*}}:12 = scf.for %{{.*}} step %c4 iter_args(
// NARROW-COUNT-48: vector.fma
// NARROW: %{{.*}}:12 = scf.for %{{.*}} step %c1 iter_args(
// NARROW-COUNT-12: vector.fma
// NARROW: scf.if %{{.*}} {
// NARROW-COUNT-12: vector.store %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<8xf32>
// NARROW: } else {
// NARROW-COUNT-12: vector.store %{{.*}} : memref<4x24xf32>, vector<8xf32>
// NARROW-LABEL: func.func private @ember_gemm_bias_loops_f32
// NARROW: scf.if %{{.*}} -> (vector<8xf32>) {

// The helper with 512-bit vectors: parts from the pool's threads (one for a small product); per block of
// 256 along k, A's rows packed into panels of 6, B's columns into panels of 64 (four
// vector copies per k for a whole panel); the micro-kernel's loop four steps of k an
// iteration, each four vectors of B and 6 broadcasts of A into 24 accumulators; then
// the steps left; the tile stored or added where it lies inside C, else through the
// scratch tile.
// CHECK-LABEL: func.func private @ember_gemm_loops_f32
// CHECK: call @ember_pool_threads() : () -> i64
// CHECK: scf.forall (%{{.*}}) in (%{{.*}})
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c256
// CHECK: memref.store %{{.*}} : memref<196608xf32>
// CHECK: scf.for %{{.*}} step %c512
// CHECK-COUNT-4: vector.store %{{.*}} : memref<131072xf32>, vector<16xf32>
// CHECK: %{{.*}}:24 = scf.for %{{.*}} step %c4 iter_args(
// CHECK-COUNT-96: vector.fma
// CHECK: %{{.*}}:24 = scf.for %{{.*}} step %c1 iter_args(
// CHECK-COUNT-24: vector.fma
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-24: vector.store %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<16xf32>
// CHECK: } else {
// CHECK-COUNT-24: vector.store %{{.*}} : memref<6x64xf32>, vector<16xf32>

// The bias helper: the same loops; as each tile is stored on the last block of k,
// the bias vector added and, where %relu says, max(., 0).
// CHECK-LABEL: func.func private @ember_gemm_bias_loops_f32
// CHECK-SAME: %[[BIAS:[a-z0-9_]+]]: memref<?xf32, strided<[1], offset: ?>>
// CHECK-SAME: %[[RELU:[a-z0-9_]+]]: i1
// CHECK: %[[K:.*]] = memref.dim %{{.*}}, %c1
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %{{.*}}, %[[K]] : index
// CHECK: scf.if %[[LAST]] -> (vector<16xf32>) {
// CHECK-NEXT: %[[BV:.*]] = vector.load %[[BIAS]][%{{.*}}] : memref<?xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %[[BV]] : vector<16xf32>
// CHECK: %[[MAX:.*]] = arith.maximumf %[[SUM]], %{{.*}} : vector<16xf32>
// CHECK: arith.select %[[RELU]], %[[MAX]], %[[SUM]] : vector<16xf32>

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

// relu(A @ B + bias) tiled as ember-tile tiles it (3 tiles of 25 rows cover all 64):
// the fill, the product and the loop of tiles reading it become one call of the bias
// helper writing the loop's output.
// CHECK-LABEL: func.func @relu_tiles
// CHECK-SAME: %[[BIAS:[a-z0-9_]+]]: memref<128xf32>, %[[OUT:[a-z0-9_]+]]: memref<64x128xf32>
// CHECK: %[[RELU:.*]] = arith.constant true
// CHECK: %[[B:.*]] = memref.cast %[[BIAS]] : memref<128xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK: %[[O:.*]] = memref.cast %[[OUT]]
// CHECK: call @ember_gemm_bias_loops_f32(%{{.*}}, %{{.*}}, %[[B]], %[[O]], %[[RELU]])
// CHECK-NOT: linalg.generic
// CHECK-NOT: scf.forall
// CHECK: return
func.func @relu_tiles(%a: memref<64x64xf32>, %b: memref<64x128xf32>, %bias: memref<128xf32>, %out: memref<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() {alignment = 64 : i64} : memref<64x128xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<64x128xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x128xf32>) outs(%p : memref<64x128xf32>)
  scf.forall (%t) in (3) {
    %row = affine.apply affine_map<(d0) -> (d0 * 25)>(%t)
    %rows = affine.min affine_map<(d0) -> (d0 * -25 + 64, 25)>(%t)
    %pv = memref.subview %p[%row, 0] [%rows, 128] [1, 1] : memref<64x128xf32> to memref<?x128xf32, strided<[128, 1], offset: ?>>
    %ov = memref.subview %out[%row, 0] [%rows, 128] [1, 1] : memref<64x128xf32> to memref<?x128xf32, strided<[128, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%pv, %bias : memref<?x128xf32, strided<[128, 1], offset: ?>>, memref<128xf32>) outs(%ov : memref<?x128xf32, strided<[128, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
    }
  }
  memref.dealloc %p : memref<64x128xf32>
  return
}

// The sum alone, untiled: the bias helper with %relu false.
// CHECK-LABEL: func.func @bias_whole
// CHECK: %[[NORELU:.*]] = arith.constant false
// CHECK: call @ember_gemm_bias_loops_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NORELU]])
// CHECK-NOT: linalg.generic
func.func @bias_whole(%a: memref<64x64xf32>, %b: memref<64x128xf32>, %bias: memref<128xf32>, %out: memref<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() {alignment = 64 : i64} : memref<64x128xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<64x128xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x128xf32>) outs(%p : memref<64x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias, %p : memref<128xf32>, memref<64x128xf32>) outs(%out : memref<64x128xf32>) {
  ^bb0(%y: f32, %x: f32, %o: f32):
    %s = arith.addf %y, %x : f32
    linalg.yield %s : f32
  }
  memref.dealloc %p : memref<64x128xf32>
  return
}

// Another body (tanh of the sum): the plain helper, the loop kept.
// CHECK-LABEL: func.func @tanh_after
// CHECK: call @ember_gemm_loops_f32(
// CHECK: linalg.generic
// CHECK: math.tanh
func.func @tanh_after(%a: memref<64x64xf32>, %b: memref<64x128xf32>, %bias: memref<128xf32>, %out: memref<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() {alignment = 64 : i64} : memref<64x128xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<64x128xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x128xf32>) outs(%p : memref<64x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %bias : memref<64x128xf32>, memref<128xf32>) outs(%out : memref<64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  }
  memref.dealloc %p : memref<64x128xf32>
  return
}

// The output is an operand (A itself): tile by tile it would overwrite A's rows still
// to be read; the plain helper into the temporary, the loop kept.
// CHECK-LABEL: func.func @into_an_operand
// CHECK: call @ember_gemm_loops_f32(
// CHECK: linalg.generic
func.func @into_an_operand(%a: memref<128x128xf32>, %b: memref<128x128xf32>, %bias: memref<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() {alignment = 64 : i64} : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x128xf32>, memref<128x128xf32>) outs(%p : memref<128x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %bias : memref<128x128xf32>, memref<128xf32>) outs(%a : memref<128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.dealloc %p : memref<128x128xf32>
  return
}

// Tiles that cover only the first 50 of the 64 rows (2 x 25): the helper would write
// the other 14 rows of the output too; the plain helper, the loop kept.
// CHECK-LABEL: func.func @some_rows
// CHECK: call @ember_gemm_loops_f32(
// CHECK: scf.forall
func.func @some_rows(%a: memref<64x64xf32>, %b: memref<64x128xf32>, %bias: memref<128xf32>, %out: memref<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() {alignment = 64 : i64} : memref<64x128xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<64x128xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x128xf32>) outs(%p : memref<64x128xf32>)
  scf.forall (%t) in (2) {
    %row = affine.apply affine_map<(d0) -> (d0 * 25)>(%t)
    %rows = affine.min affine_map<(d0) -> (d0 * -25 + 64, 25)>(%t)
    %pv = memref.subview %p[%row, 0] [%rows, 128] [1, 1] : memref<64x128xf32> to memref<?x128xf32, strided<[128, 1], offset: ?>>
    %ov = memref.subview %out[%row, 0] [%rows, 128] [1, 1] : memref<64x128xf32> to memref<?x128xf32, strided<[128, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%pv, %bias : memref<?x128xf32, strided<[128, 1], offset: ?>>, memref<128xf32>) outs(%ov : memref<?x128xf32, strided<[128, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  }
  memref.dealloc %p : memref<64x128xf32>
  return
}
