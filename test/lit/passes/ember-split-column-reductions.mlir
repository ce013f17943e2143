// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-split-column-reductions)' | FileCheck %s

// A column sum of 4096 rows: 16 blocks of 256 rows, each reduced into its own row of
// the partials (from the same zero), then the partial rows reduced into the output.
// CHECK-LABEL: func.func @column_sum
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4096x1024xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK: %[[ROWS:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[PARTIALS:.*]] = scf.forall (%[[B:.*]]) in (16) shared_outs(%[[P:.*]] = %{{.*}}) -> (tensor<16x1024xf32>) {
// CHECK: %[[BLOCK:.*]] = tensor.extract_slice %[[X]][%{{.*}}, 0] [%{{.*}}, 1024] [1, 1] : tensor<4096x1024xf32> to tensor<?x1024xf32>
// CHECK: %[[SLOT:.*]] = tensor.extract_slice %[[P]][%[[B]], 0] [1, 1024] [1, 1] : tensor<16x1024xf32> to tensor<1024xf32>
// CHECK: %[[START:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[SLOT]]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%[[BLOCK]] : tensor<?x1024xf32>) outs(%[[START]] : tensor<1024xf32>)
// CHECK: tensor.parallel_insert_slice %[[SUM]] into %[[P]][%[[B]], 0] [1, 1024] [1, 1]
// CHECK: %[[OUT:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%[[PARTIALS]] : tensor<16x1024xf32>) outs(%[[INIT]] : tensor<1024xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc>
// CHECK: return %[[OUT]]
#in = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @column_sum(%x: tensor<4096x1024xf32>) -> tensor<1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %0 = linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4096x1024xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// A column max with per-row weights, rows known at run time: the weights are sliced
// by the same blocks of rows; a row vector of the columns is read whole.
// CHECK-LABEL: func.func @weighted_max
// CHECK: scf.forall (%{{.*}}) in (16)
// CHECK: tensor.extract_slice %arg0[%{{.*}}, 0] [%{{.*}}, 64] [1, 1] : tensor<?x64xf32> to tensor<?x64xf32>
// CHECK: tensor.extract_slice %arg1[%{{.*}}] [%{{.*}}] [1] : tensor<?xf32> to tensor<?xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %arg2 : tensor<?x64xf32>, tensor<?xf32>, tensor<64xf32>)
// CHECK: arith.maximumf
func.func @weighted_max(%x: tensor<?x64xf32>, %w: tensor<?xf32>, %c: tensor<64xf32>) -> tensor<64xf32> {
  %low = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%low : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [#in, #row, #col, #col], iterator_types = ["reduction", "parallel"]} ins(%x, %w, %c : tensor<?x64xf32>, tensor<?xf32>, tensor<64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%v: f32, %wv: f32, %cv: f32, %acc: f32):
    %p = arith.mulf %v, %wv : f32
    %q = arith.addf %p, %cv : f32
    %m = arith.maximumf %acc, %q : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// Left alone: a body asking its row (a block's rows would count from 0), an output
// not started from the identity (a running total), a float sum not marked
// reassociable, too few rows (31: under two blocks of 16), and a row reduction.
// CHECK-LABEL: func.func @row_index
// CHECK-NOT: scf.forall
// CHECK-LABEL: func.func @running_total
// CHECK-NOT: scf.forall
// CHECK-LABEL: func.func @strict_sum
// CHECK-NOT: scf.forall
// CHECK-LABEL: func.func @few_rows
// CHECK-NOT: scf.forall
// CHECK-LABEL: func.func @row_sums
// CHECK-NOT: scf.forall
// CHECK: return
func.func @row_index(%x: tensor<4096x64xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4096x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %p = arith.mulf %v, %f : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
func.func @running_total(%x: tensor<4096x64xf32>, %total: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4096x64xf32>) outs(%total : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
func.func @strict_sum(%x: tensor<4096x64xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4096x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
func.func @few_rows(%x: tensor<31x64xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<31x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
func.func @row_sums(%x: tensor<4096x64xf32>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %0 = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4096x64xf32>) outs(%init : tensor<4096xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
