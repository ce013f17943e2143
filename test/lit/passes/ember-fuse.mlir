// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-fuse)' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-fuse{tile-bytes=65536})' | FileCheck %s --check-prefix=SMALL
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-fuse{tile-bytes=0})' | FileCheck %s --check-prefix=NOTILE

// Tile sizes show in the loop's offset maps, printed first. Tiles hold 256 KiB by
// default: 31 softmax rows of two 4 KiB rows (plus the row sums); 7 with 64 KiB.
// CHECK: affine_map<(d0) -> (d0 * 31)>
// SMALL: affine_map<(d0) -> (d0 * 7)>


// An elementwise chain becomes one linalg.generic (upstream elementwise fusion).
// CHECK-LABEL: func.func @chain
// CHECK-NOT: tensor.empty{{.*}}tensor.empty
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK-SAME: ins(%arg0, %arg1 : tensor<?xf32>, tensor<?xf32>)
// CHECK: arith.subf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: math.tanh
// CHECK-NEXT: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id1 = affine_map<(d0) -> (d0)>
#cos_id = affine_map<(d0) -> (d0)>
#cos_rows = affine_map<(d0, d1) -> (d0)>
#cos_cols = affine_map<(d0, d1) -> (d1)>
#cos_all = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%0 : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    %t = math.tanh %m : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %1 : tensor<?xf32>
}

// Softmax: the max and sum reductions and the division land in one scf.forall over
// row tiles; nothing of the computation is left outside it. The exp, read by the sum
// and by the division, is evaluated once per element into the output's tile, which
// the division then overwrites (a costly shared value is not recomputed, step 0).
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: linalg.generic
// CHECK: %[[OUT:.*]] = scf.forall (%[[ROW:.*]]) in (%{{.*}}) shared_outs(%[[ACC:.*]] = %{{.*}})
// CHECK: %[[R0:.*]] = affine.apply #{{.*}}(%[[ROW]])
// CHECK: %[[X:.*]] = tensor.extract_slice %arg0
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: %[[TILE:.*]] = tensor.extract_slice %[[ACC]][%[[R0]], 0]
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]] : {{.*}} outs(%[[TILE]] :
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK-NEXT: linalg.yield
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[EXP]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : {{.*}} outs(%[[TILE]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.divf
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice {{.*}} into %[[ACC]][%[[R0]], 0]
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
// Untiled (the GPU's tile-bytes=0), the readers run as separate kernels over the whole
// array: each recomputes the exp rather than read a stored copy back from memory.
// NOTILE-LABEL: func.func @softmax
// NOTILE: math.exp
// NOTILE-NEXT: arith.addf
// NOTILE: math.exp
// NOTILE-NEXT: arith.divf
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x1024xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%n) : tensor<?xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x1024xf32>) outs(%m0 : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<?x1024xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<?x1024xf32>, tensor<?xf32>) outs(%e1 : tensor<?x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<?x1024xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<?x1024xf32>) outs(%s0 : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %out = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %s : tensor<?x1024xf32>, tensor<?xf32>) outs(%e1 : tensor<?x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x1024xf32>
  return %out : tensor<?x1024xf32>
}

// An elementwise result that is also returned must be stored anyway: it stays one op,
// which the other reader reads (no copy is made for it).
// CHECK-LABEL: func.func @shared_and_returned
// CHECK: arith.subf
// CHECK-NOT: arith.subf
// CHECK: return
func.func @shared_and_returned(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%0 : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// A BLAS-bound matmul keeps its named form through fusion: the reshape of its operand
// (w[:, :, r, s] is a collapse_shape) is not propagated into it, its result's
// consumer is not merged with it, and no cast is left between them.
// CHECK-LABEL: func.func @matmul_kept_whole
// CHECK-NOT: tensor.cast
// CHECK: linalg.contract
// CHECK-NOT: tensor.cast
// CHECK: linalg.generic
#rows = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#mat = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @matmul_kept_whole(%x: tensor<2x3x4xf32>, %w: tensor<4x5x1x1xf32>) -> tensor<2x3x5xf32> {
  %m = tensor.collapse_shape %w [[0], [1, 2, 3]] : tensor<4x5x1x1xf32> into tensor<4x5xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %p = linalg.contract indexing_maps = [#rows, #mat, #out] ins(%x, %m : tensor<2x3x4xf32>, tensor<4x5xf32>) outs(%init : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e2 = tensor.empty() : tensor<2x3x5xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p : tensor<2x3x5xf32>) outs(%e2 : tensor<2x3x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// x + A @ B: the product accumulates into x (its init; BLAS's beta = 1), no zero fill,
// no temporary and no elementwise pass adding it.
// CHECK-LABEL: func.func @accumulate
// CHECK-NOT: linalg.fill
// CHECK: %[[R:.*]] = linalg.matmul ins(%arg0, %arg1 : tensor<6x5xf64>, tensor<5x4xf64>) outs(%arg2 : tensor<6x4xf64>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @accumulate(%a: tensor<6x5xf64>, %b: tensor<5x4xf64>, %c: tensor<6x4xf64>) -> tensor<6x4xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<6x4xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<6x4xf64>) -> tensor<6x4xf64>
  %p = linalg.matmul ins(%a, %b : tensor<6x5xf64>, tensor<5x4xf64>) outs(%init : tensor<6x4xf64>) -> tensor<6x4xf64>
  %e2 = tensor.empty() : tensor<6x4xf64>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %p : tensor<6x4xf64>, tensor<6x4xf64>) outs(%e2 : tensor<6x4xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %t = arith.addf %x, %y : f64
    linalg.yield %t : f64
  } -> tensor<6x4xf64>
  return %s : tensor<6x4xf64>
}

// relu(x + A @ B): the sum's one reader is elementwise, so x is added in that pass
// (fused with the relu); the product keeps its zero init (BLAS's beta = 0).
// CHECK-LABEL: func.func @accumulate_not_into_an_epilogue
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[P:.*]] = linalg.matmul ins(%arg0, %arg1 : tensor<6x5xf64>, tensor<5x4xf64>) outs(%[[F]] : tensor<6x4xf64>)
// CHECK: linalg.generic {{.*}} ins(%arg2, %[[P]] : tensor<6x4xf64>, tensor<6x4xf64>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
func.func @accumulate_not_into_an_epilogue(%a: tensor<6x5xf64>, %b: tensor<5x4xf64>, %c: tensor<6x4xf64>) -> tensor<6x4xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<6x4xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<6x4xf64>) -> tensor<6x4xf64>
  %p = linalg.matmul ins(%a, %b : tensor<6x5xf64>, tensor<5x4xf64>) outs(%init : tensor<6x4xf64>) -> tensor<6x4xf64>
  %e2 = tensor.empty() : tensor<6x4xf64>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %p : tensor<6x4xf64>, tensor<6x4xf64>) outs(%e2 : tensor<6x4xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %t = arith.addf %x, %y : f64
    linalg.yield %t : f64
  } -> tensor<6x4xf64>
  %e3 = tensor.empty() : tensor<6x4xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<6x4xf64>) outs(%e3 : tensor<6x4xf64>) {
  ^bb0(%x: f64, %o: f64):
    %m = arith.maximumf %x, %zero : f64
    linalg.yield %m : f64
  } -> tensor<6x4xf64>
  return %r : tensor<6x4xf64>
}

// cos(a)[:, None] * cos(b)[None, :]: each cosine is computed in a loop of its own size
// and the outer product reads the results, not 2 * 70 * 300 cosines fused into it.
// On the GPU (tile-bytes=0) everything fuses into the one kernel.
// CHECK-LABEL: func.func @outer_of_cosines
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK: math.cos
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK: math.cos
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK-NOT: math.cos
// CHECK: arith.mulf
// CHECK-NOT: linalg.copy
// CHECK: return
// NOTILE-LABEL: func.func @outer_of_cosines
// NOTILE: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// NOTILE-COUNT-2: math.cos
func.func @outer_of_cosines(%a: tensor<300xf64>, %b: tensor<70xf64>) -> tensor<300x70xf64> {
  %e0 = tensor.empty() : tensor<300xf64>
  %ca = linalg.generic {indexing_maps = [#cos_id, #cos_id], iterator_types = ["parallel"]} ins(%a : tensor<300xf64>) outs(%e0 : tensor<300xf64>) {
  ^bb0(%x: f64, %o: f64):
    %c = math.cos %x : f64
    linalg.yield %c : f64
  } -> tensor<300xf64>
  %e1 = tensor.empty() : tensor<70xf64>
  %cb = linalg.generic {indexing_maps = [#cos_id, #cos_id], iterator_types = ["parallel"]} ins(%b : tensor<70xf64>) outs(%e1 : tensor<70xf64>) {
  ^bb0(%x: f64, %o: f64):
    %c = math.cos %x : f64
    linalg.yield %c : f64
  } -> tensor<70xf64>
  %e2 = tensor.empty() : tensor<300x70xf64>
  %col = linalg.generic {indexing_maps = [#cos_rows, #cos_all], iterator_types = ["parallel", "parallel"]} ins(%ca : tensor<300xf64>) outs(%e2 : tensor<300x70xf64>) {
  ^bb0(%x: f64, %o: f64):
    linalg.yield %x : f64
  } -> tensor<300x70xf64>
  %row = linalg.generic {indexing_maps = [#cos_cols, #cos_all], iterator_types = ["parallel", "parallel"]} ins(%cb : tensor<70xf64>) outs(%e2 : tensor<300x70xf64>) {
  ^bb0(%x: f64, %o: f64):
    linalg.yield %x : f64
  } -> tensor<300x70xf64>
  %p = linalg.generic {indexing_maps = [#cos_all, #cos_all, #cos_all], iterator_types = ["parallel", "parallel"]} ins(%col, %row : tensor<300x70xf64>, tensor<300x70xf64>) outs(%e2 : tensor<300x70xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %m = arith.mulf %x, %y : f64
    linalg.yield %m : f64
  } -> tensor<300x70xf64>
  return %p : tensor<300x70xf64>
}

// An FFT stage's butterflies: twiddle factors w = exp(i * k), a call of cexp per element,
// read broadcast over the rows by odd = y * w, which the sum and the difference both
// read. odd is copied per reader (cheap), w is not: one cexp per factor, in a loop of
// its own size, not one per element of each butterfly (a call is not merged by cse).
// CHECK-LABEL: func.func @butterflies
// CHECK: iterator_types = ["parallel"]
// CHECK: func.call @cexp
// CHECK-NOT: func.call @cexp
// CHECK: return
#tw_id = affine_map<(d0) -> (d0)>
#tw_cols = affine_map<(d0, d1) -> (d1)>
#tw_all = affine_map<(d0, d1) -> (d0, d1)>
func.func private @cexp(complex<f64>) -> complex<f64>
func.func @butterflies(%x: tensor<128x256xcomplex<f64>>, %y: tensor<128x256xcomplex<f64>>) -> (tensor<128x256xcomplex<f64>>, tensor<128x256xcomplex<f64>>) {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<256xcomplex<f64>>
  %w = linalg.generic {indexing_maps = [#tw_id], iterator_types = ["parallel"]} outs(%e0 : tensor<256xcomplex<f64>>) {
  ^bb0(%o: complex<f64>):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    %z = complex.create %zero, %f : complex<f64>
    %c = func.call @cexp(%z) : (complex<f64>) -> complex<f64>
    linalg.yield %c : complex<f64>
  } -> tensor<256xcomplex<f64>>
  %e2 = tensor.empty() : tensor<128x256xcomplex<f64>>
  %odd = linalg.generic {indexing_maps = [#tw_all, #tw_cols, #tw_all], iterator_types = ["parallel", "parallel"]} ins(%y, %w : tensor<128x256xcomplex<f64>>, tensor<256xcomplex<f64>>) outs(%e2 : tensor<128x256xcomplex<f64>>) {
  ^bb0(%a: complex<f64>, %b: complex<f64>, %o: complex<f64>):
    %m = complex.mul %a, %b : complex<f64>
    linalg.yield %m : complex<f64>
  } -> tensor<128x256xcomplex<f64>>
  %sum = linalg.generic {indexing_maps = [#tw_all, #tw_all, #tw_all], iterator_types = ["parallel", "parallel"]} ins(%x, %odd : tensor<128x256xcomplex<f64>>, tensor<128x256xcomplex<f64>>) outs(%e2 : tensor<128x256xcomplex<f64>>) {
  ^bb0(%a: complex<f64>, %b: complex<f64>, %o: complex<f64>):
    %s = complex.add %a, %b : complex<f64>
    linalg.yield %s : complex<f64>
  } -> tensor<128x256xcomplex<f64>>
  %diff = linalg.generic {indexing_maps = [#tw_all, #tw_all, #tw_all], iterator_types = ["parallel", "parallel"]} ins(%x, %odd : tensor<128x256xcomplex<f64>>, tensor<128x256xcomplex<f64>>) outs(%e2 : tensor<128x256xcomplex<f64>>) {
  ^bb0(%a: complex<f64>, %b: complex<f64>, %o: complex<f64>):
    %s = complex.sub %a, %b : complex<f64>
    linalg.yield %s : complex<f64>
  } -> tensor<128x256xcomplex<f64>>
  return %sum, %diff : tensor<128x256xcomplex<f64>>, tensor<128x256xcomplex<f64>>
}
