// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-tile{tile-bytes=4096})' | FileCheck %s

// An elementwise op is tiled along its only loop: 4096 bytes / (3 operands x 4 bytes).
// CHECK: #[[OFFSET:.*]] = affine_map<(d0) -> (d0 * 341)>
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]]) in (%{{.*}}) shared_outs(%[[O:.*]] = %{{.*}})
// CHECK: %[[OFF:.*]] = affine.apply #[[OFFSET]](%[[I]])
// CHECK: %[[A:.*]] = tensor.extract_slice %arg0[%[[OFF]]]
// CHECK: %[[B:.*]] = tensor.extract_slice %arg1[%[[OFF]]]
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] :
// CHECK: tensor.parallel_insert_slice {{.*}} into %[[O]][%[[OFF]]]
// CHECK: return %[[R]]
#id1 = affine_map<(d0) -> (d0)>
func.func @elementwise(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// A column sum reduces d0; the tile loop runs over the parallel d1 instead.
// CHECK-LABEL: func.func @column_sum
// CHECK: scf.forall (%[[J:.*]]) in (5)
// CHECK: %[[COL:.*]] = affine.apply #{{.*}}(%[[J]])
// CHECK: tensor.extract_slice %arg0[0, %[[COL]]] [128, %{{.*}}] [1, 1]
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
#in = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @column_sum(%x: tensor<128x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<128x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// A reduction to a scalar has no parallel loop: it is left alone.
// CHECK-LABEL: func.func @total
// CHECK-NOT: scf.forall
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]
#all = affine_map<(d0) -> ()>
func.func @total(%x: tensor<?xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = linalg.generic {indexing_maps = [#id1, #all], iterator_types = ["reduction"]} ins(%x : tensor<?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}

// Two steps of a stencil: step 2 reads step 1 directly and through the grid step 1
// was inserted into. Step 1 is computed in full before step 2's loop (fused, the loop
// would recompute it), and it is tiled too, in a loop of its own: a root of the next
// round once its readers are in loops.
// CHECK-LABEL: func.func @two_steps
// CHECK: %[[S1:.*]] = scf.forall (%{{.*}}) in (3)
// CHECK: linalg.generic
// CHECK: tensor.insert_slice %[[S1]] into %arg0[1] [1022] [1]
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: tensor.extract_slice %[[S1]]
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
#id = affine_map<(d0) -> (d0)>
func.func @two_steps(%x: tensor<1024xf32>) -> tensor<1022xf32> {
  %l0 = tensor.extract_slice %x[0] [1022] [1] : tensor<1024xf32> to tensor<1022xf32>
  %r0 = tensor.extract_slice %x[2] [1022] [1] : tensor<1024xf32> to tensor<1022xf32>
  %e0 = tensor.empty() : tensor<1022xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%l0, %r0 : tensor<1022xf32>, tensor<1022xf32>) outs(%e0 : tensor<1022xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1022xf32>
  %g1 = tensor.insert_slice %s1 into %x[1] [1022] [1] : tensor<1022xf32> into tensor<1024xf32>
  %l1 = tensor.extract_slice %g1[0] [1022] [1] : tensor<1024xf32> to tensor<1022xf32>
  %r1 = tensor.extract_slice %g1[2] [1022] [1] : tensor<1024xf32> to tensor<1022xf32>
  %e1 = tensor.empty() : tensor<1022xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%s1, %l1, %r1 : tensor<1022xf32>, tensor<1022xf32>, tensor<1022xf32>) outs(%e1 : tensor<1022xf32>) {
  ^bb0(%c: f32, %a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %t = arith.subf %s, %c : f32
    linalg.yield %t : f32
  } -> tensor<1022xf32>
  return %s2 : tensor<1022xf32>
}

// A transposing elementwise op whose rows overflow the tile budget (a row of the
// result is a column of the input): tiled along its second loop instead, so each tile
// reads whole rows of the input rather than one column of every row.
// CHECK-LABEL: func.func @transposed_rows
// CHECK: scf.forall (%[[J:.*]]) in (32)
// CHECK: %[[OFF:.*]] = affine.apply #{{.*}}(%[[J]])
// CHECK: tensor.extract_slice %arg0[%[[OFF]], 0] [32, 16] [1, 1]
// CHECK: linalg.generic
// CHECK: tensor.parallel_insert_slice {{.*}}[0, %[[OFF]]] [16, 32] [1, 1]
#t = affine_map<(d0, d1) -> (d1, d0)>
#i = affine_map<(d0, d1) -> (d0, d1)>
func.func @transposed_rows(%x: tensor<1024x16xf32>) -> tensor<16x1024xf32> {
  %e = tensor.empty() : tensor<16x1024xf32>
  %r = linalg.generic {indexing_maps = [#t, #i], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1024x16xf32>) outs(%e : tensor<16x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<16x1024xf32>
  return %r : tensor<16x1024xf32>
}

// A root much lighter than what is fused into it: the square root of each row's sum
// of squares. By its own 8 bytes a row, the 64 rows fit one tile (no loop: one
// thread); sized by the fused row reduction's bytes too (8 + 4 + 512), 4096 bytes take
// 7 rows a tile: 10 tiles.
// CHECK-LABEL: func.func @row_norms
// CHECK: scf.forall (%[[I:.*]]) in (10)
// CHECK: tensor.extract_slice %arg0[%{{.*}}, 0] [%{{.*}}, 128] [1, 1]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: math.sqrt
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_norms(%x: tensor<64x128xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sq = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x128xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %p = arith.mulf %v, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %n = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.sqrt %v : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %n : tensor<64xf32>
}

// A costly producer every tile reads whole (twiddle factors, a call of cexp each, read
// broadcast over the rows) is computed once before the tile loops, not in each tile.
// CHECK-LABEL: func.func @twiddles
// CHECK: func.call @cexp
// CHECK: scf.forall
// CHECK-NOT: func.call @cexp
// CHECK: return
#tw_id = affine_map<(d0) -> (d0)>
#tw_cols = affine_map<(d0, d1) -> (d1)>
#tw_all = affine_map<(d0, d1) -> (d0, d1)>
func.func private @cexp(complex<f64>) -> complex<f64>
func.func @twiddles(%x: tensor<128x256xcomplex<f64>>, %y: tensor<128x256xcomplex<f64>>) -> tensor<128x256xcomplex<f64>> {
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
  %sum = linalg.generic {indexing_maps = [#tw_all, #tw_all, #tw_cols, #tw_all], iterator_types = ["parallel", "parallel"]} ins(%x, %y, %w : tensor<128x256xcomplex<f64>>, tensor<128x256xcomplex<f64>>, tensor<256xcomplex<f64>>) outs(%e2 : tensor<128x256xcomplex<f64>>) {
  ^bb0(%a: complex<f64>, %b: complex<f64>, %t: complex<f64>, %o: complex<f64>):
    %m = complex.mul %b, %t : complex<f64>
    %s = complex.add %a, %m : complex<f64>
    linalg.yield %s : complex<f64>
  } -> tensor<128x256xcomplex<f64>>
  return %sum : tensor<128x256xcomplex<f64>>
}

// Row maxima read only by a reduction to one value (a long argmax's block extremes):
// the reader is never tiled, so no loop would take the row reduction in; it is tiled
// as a root of its own (rows in parallel), and the total reads its result.
// CHECK-LABEL: func.func @stranded_row_maxima
// CHECK: %[[ROWS:.*]] = scf.forall (%{{.*}}) in (64) shared_outs(
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} ins(%[[ROWS]] :
#rows_in = affine_map<(d0, d1) -> (d0, d1)>
#rows_out = affine_map<(d0, d1) -> (d0)>
#all_in = affine_map<(d0) -> (d0)>
#all_out = affine_map<(d0) -> ()>
func.func @stranded_row_maxima(%x: tensor<64x1024xf64>) -> tensor<f64> {
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %e = tensor.empty() : tensor<64xf64>
  %f = linalg.fill ins(%ninf : f64) outs(%e : tensor<64xf64>) -> tensor<64xf64>
  %rows = linalg.generic {indexing_maps = [#rows_in, #rows_out], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x1024xf64>) outs(%f : tensor<64xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %m = arith.maximumf %acc, %v : f64
    linalg.yield %m : f64
  } -> tensor<64xf64>
  %e0 = tensor.empty() : tensor<f64>
  %f0 = linalg.fill ins(%ninf : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
  %total = linalg.generic {indexing_maps = [#all_in, #all_out], iterator_types = ["reduction"]} ins(%rows : tensor<64xf64>) outs(%f0 : tensor<f64>) {
  ^bb0(%v: f64, %acc: f64):
    %m = arith.maximumf %acc, %v : f64
    linalg.yield %m : f64
  } -> tensor<f64>
  return %total : tensor<f64>
}
