// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// x[idx] of a 5x4 matrix: one parallel generic over the result; the index column is
// an input (a constant last coordinate), wrapped from the end when negative, clamped
// into range, and x is read with tensor.extract.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @gather_rows
// CHECK-SAME: (%[[X:.*]]: tensor<5x4xf32>, %[[I:.*]]: tensor<3x1xi64>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #{{.*}}], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[I]] : tensor<3x1xi64>) outs(%[[E]] : tensor<3x4xf32>)
// CHECK: ^bb0(%[[V:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[C:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[C]], %{{.*}} : index
// CHECK: %[[WRAPPED:.*]] = arith.addi %[[C]], %{{.*}} : index
// CHECK: %[[S:.*]] = arith.select %[[NEG]], %[[WRAPPED]], %[[C]] : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[S]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK: %[[COL:.*]] = linalg.index 1 : index
// CHECK: %[[R:.*]] = tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<5x4xf32>
// CHECK: linalg.yield %[[R]] : f32
func.func @gather_rows(%x: tensor<5x4xf32>, %i: tensor<3x1xi64>) -> tensor<3x4xf32> {
  %0 = "ember.gather"(%x, %i) {axes = array<i64: 0>, at = 0} : (tensor<5x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// x[i, j] with dynamic sizes: two index columns, each bounded by its dim of x.
// CHECK-LABEL: func.func @gather_pairs
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf64>, %[[I:.*]]: tensor<?x2xi64>)
// CHECK: %[[N:.*]] = tensor.dim %[[I]], %{{.*}} : tensor<?x2xi64>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf64>
// CHECK-DAG: %[[D0:.*]] = tensor.dim %[[X]], %c0{{.*}} : tensor<?x?xf64>
// CHECK-DAG: %[[D1:.*]] = tensor.dim %[[X]], %c1{{.*}} : tensor<?x?xf64>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[I]], %[[I]] : tensor<?x2xi64>, tensor<?x2xi64>) outs(%[[E]] : tensor<?xf64>)
// CHECK: arith.addi %{{.*}}, %[[D0]] : index
// CHECK: arith.addi %{{.*}}, %[[D1]] : index
// CHECK: tensor.extract %[[X]][%{{.*}}, %{{.*}}] : tensor<?x?xf64>
func.func @gather_pairs(%x: tensor<?x?xf64>, %i: tensor<?x2xi64>) -> tensor<?xf64> {
  %0 = "ember.gather"(%x, %i) {axes = array<i64: 0, 1>, at = 0} : (tensor<?x?xf64>, tensor<?x2xi64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

// x[:, idx] = u: a sequential nest over u (row-major, so the last write of a
// duplicate index wins) carrying x, one tensor.insert per element.
// CHECK-LABEL: func.func @scatter_columns
// CHECK-SAME: (%[[X:.*]]: tensor<5x4xf32>, %[[I:.*]]: tensor<3x1xi64>, %[[U:.*]]: tensor<5x3xf32>)
// CHECK: %[[OUT:.*]] = scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A0:.*]] = %[[X]]) -> (tensor<5x4xf32>)
// CHECK: %[[IN:.*]] = scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A1:.*]] = %[[A0]]) -> (tensor<5x4xf32>)
// CHECK: %[[K:.*]] = tensor.extract %[[I]][%[[B]], %{{.*}}] : tensor<3x1xi64>
// CHECK: %[[COL:.*]] = arith.minsi
// CHECK: %[[V:.*]] = tensor.extract %[[U]][%[[R]], %[[B]]] : tensor<5x3xf32>
// CHECK: %[[NEW:.*]] = tensor.insert %[[V]] into %[[A1]][%[[R]], %[[COL]]] : tensor<5x4xf32>
// CHECK: scf.yield %[[NEW]] : tensor<5x4xf32>
// CHECK: scf.yield %[[IN]] : tensor<5x4xf32>
// CHECK: return %[[OUT]]
func.func @scatter_columns(%x: tensor<5x4xf32>, %i: tensor<3x1xi64>, %u: tensor<5x3xf32>) -> tensor<5x4xf32> {
  %0 = "ember.scatter"(%x, %i, %u) {axes = array<i64: 1>, at = 1} : (tensor<5x4xf32>, tensor<3x1xi64>, tensor<5x3xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// Nothing to write (a static empty update): the destination itself.
// CHECK-LABEL: func.func @scatter_empty
// CHECK-SAME: (%[[X:.*]]: tensor<5xi32>, %{{.*}}: tensor<0x1xi64>, %{{.*}}: tensor<0xi32>)
// CHECK-NOT: scf.for
// CHECK: return %[[X]]
func.func @scatter_empty(%x: tensor<5xi32>, %i: tensor<0x1xi64>, %u: tensor<0xi32>) -> tensor<5xi32> {
  %0 = "ember.scatter"(%x, %i, %u) {axes = array<i64: 0>, at = 0} : (tensor<5xi32>, tensor<0x1xi64>, tensor<0xi32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// x[:, :, k] with one traced k (no batch of indices): the slab k, a slice with the
// clamped k as its offset: a view once bufferized, read in place by the loops around it.
// CHECK-LABEL: func.func @gather_slab
// CHECK-SAME: (%[[X:.*]]: tensor<4x5x6xf64>, %[[K:.*]]: tensor<1xi64>)
// CHECK: %[[V:.*]] = tensor.extract %[[K]][%{{.*}}] : tensor<1xi64>
// CHECK: %[[C:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK: %[[AT:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][0, 0, %[[AT]]] [4, 5, 1] [1, 1, 1] : tensor<4x5x6xf64> to tensor<4x5xf64>
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]]
func.func @gather_slab(%x: tensor<4x5x6xf64>, %k: tensor<1xi64>) -> tensor<4x5xf64> {
  %0 = "ember.gather"(%x, %k) {axes = array<i64: 2>, at = 2} : (tensor<4x5x6xf64>, tensor<1xi64>) -> tensor<4x5xf64>
  return %0 : tensor<4x5xf64>
}

// x[:, :, k] = u with one traced k: every position written once, so one insert_slice
// at the clamped k (no loops).
// CHECK-LABEL: func.func @scatter_slab
// CHECK-SAME: (%[[X:.*]]: tensor<4x5x6xf64>, %[[K:.*]]: tensor<1xi64>, %[[U:.*]]: tensor<4x5xf64>)
// CHECK: %[[AT:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: %[[R:.*]] = tensor.insert_slice %[[U]] into %[[X]][0, 0, %[[AT]]] [4, 5, 1] [1, 1, 1] : tensor<4x5xf64> into tensor<4x5x6xf64>
// CHECK-NOT: scf.for
// CHECK: return %[[R]]
func.func @scatter_slab(%x: tensor<4x5x6xf64>, %k: tensor<1xi64>, %u: tensor<4x5xf64>) -> tensor<4x5x6xf64> {
  %0 = "ember.scatter"(%x, %k, %u) {axes = array<i64: 2>, at = 2} : (tensor<4x5x6xf64>, tensor<1xi64>, tensor<4x5xf64>) -> tensor<4x5x6xf64>
  return %0 : tensor<4x5x6xf64>
}

// Into a slice of another tensor (A[i, 1:-1] = u): the element loops, which one-shot
// bufferization writes in place (an insert_slice into the slice made it copy the
// whole slice when the loop's reads were views of it too).
// CHECK-LABEL: func.func @scatter_into_a_slice
// CHECK: %[[S:.*]] = tensor.extract_slice
// CHECK: scf.for
// CHECK: tensor.insert %{{.*}} into
// CHECK-NOT: tensor.insert_slice %{{.*}} into %[[S]]
func.func @scatter_into_a_slice(%a: tensor<6x6xf64>, %i: tensor<1xi64>, %u: tensor<4xf64>) -> tensor<6x6xf64> {
  %s = "ember.slice"(%a) {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<6x6xf64>) -> tensor<6x4xf64>
  %w = "ember.scatter"(%s, %i, %u) {axes = array<i64: 0>, at = 0} : (tensor<6x4xf64>, tensor<1xi64>, tensor<4xf64>) -> tensor<6x4xf64>
  %r = "ember.update_slice"(%a, %w) {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<6x6xf64>, tensor<6x4xf64>) -> tensor<6x6xf64>
  return %r : tensor<6x6xf64>
}

// scatter_add (np.bincount's sums of weights): the scatter's loop, each update added to
// what its position holds (extract, add, insert), in order (float sums round in that
// order, as NumPy's do); no insert_slice shortcut.
// CHECK-LABEL: func.func @weighted
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<8xf64>)
// CHECK: %[[I:.*]] = tensor.extract %{{.*}}[%[[R]], %{{.*}}] : tensor<?x1xi64>
// CHECK: %[[U:.*]] = tensor.extract %{{.*}}[%[[R]]] : tensor<?xf64>
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[AT:.*]]] : tensor<8xf64>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[U]] : f64
// CHECK: tensor.insert %[[NEW]] into %[[ACC]][%[[AT]]] : tensor<8xf64>
func.func @weighted(%zeros: tensor<8xf64>, %idx: tensor<?x1xi64>, %weights: tensor<?xf64>) -> tensor<8xf64> {
  %0 = "ember.scatter_add"(%zeros, %idx, %weights) {axes = array<i64: 0>, at = 0} : (tensor<8xf64>, tensor<?x1xi64>, tensor<?xf64>) -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// Integer sums into a short vector (np.bincount's counts): element i goes to copy i % 4
// of a zeroed 4 x 8 tensor (those past the last group of four to copy 0), the copies
// then added to the destination (integer sums agree in any order). Updates that
// broadcast a 0-d tensor (the counts' ones) are read as that scalar, never from the
// broadcast, which is then dead (no 8 MB of ones per million counts).
// CHECK-LABEL: func.func @counts_of_ones
// CHECK-SAME: (%[[DEST:.*]]: tensor<8xi64>, %[[IDX:.*]]: tensor<?x1xi64>, %[[ONE:.*]]: tensor<i64>)
// CHECK: %[[COPIES:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<4x8xi64>)
// CHECK: arith.remui
// CHECK: %[[WHOLE:.*]] = arith.subi
// CHECK: %[[GROUPS:.*]] = scf.for %[[R:.*]] = %{{.*}} to %[[WHOLE]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[COPIES]]) -> (tensor<4x8xi64>)
// CHECK: %[[U:.*]] = tensor.extract %[[ONE]][] : tensor<i64>
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%{{.*}}, %[[AT:.*]]] : tensor<4x8xi64>
// CHECK: %[[NEW:.*]] = arith.addi %[[OLD]], %[[U]] : i64
// CHECK: %[[ACC1:.*]] = tensor.insert %[[NEW]] into %[[ACC]][%{{.*}}, %[[AT]]] : tensor<4x8xi64>
// CHECK-COUNT-3: tensor.insert %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x8xi64>
// CHECK: %[[REST:.*]] = scf.for %{{.*}} = %[[WHOLE]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[GROUPS]]) -> (tensor<4x8xi64>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[REST]] : tensor<4x8xi64>) outs(%[[DEST]] : tensor<8xi64>)
// CHECK: arith.addi
func.func @counts_of_ones(%zeros: tensor<8xi64>, %idx: tensor<?x1xi64>, %one: tensor<i64>) -> tensor<8xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %idx, %c0 : tensor<?x1xi64>
  %ones = "ember.broadcast_to"(%one, %n) : (tensor<i64>, index) -> tensor<?xi64>
  %0 = "ember.scatter_add"(%zeros, %idx, %ones) {axes = array<i64: 0>, at = 0} : (tensor<8xi64>, tensor<?x1xi64>, tensor<?xi64>) -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

// From 131072 counted elements (a static number) the elements are cut into four parts,
// each added into zeroed copies of its own in an scf.forall (the kernel's threads), the
// parts' copies put side by side and summed into the destination.
// CHECK-LABEL: func.func @many_counts
// CHECK: %[[PARTS:.*]] = scf.forall (%[[P:.*]]) in (4) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<4x4x8xi64>)
// CHECK: linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<4x8xi64>)
// CHECK: scf.for
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[P]], 0, 0] [1, 4, 8] [1, 1, 1] : tensor<4x8xi64> into tensor<4x4x8xi64>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel"]} ins(%[[PARTS]] : tensor<4x4x8xi64>)
func.func @many_counts(%zeros: tensor<8xi64>, %idx: tensor<200000x1xi64>, %one: tensor<i64>) -> tensor<8xi64> {
  %ones = "ember.broadcast_to"(%one) : (tensor<i64>) -> tensor<200000xi64>
  %0 = "ember.scatter_add"(%zeros, %idx, %ones) {axes = array<i64: 0>, at = 0} : (tensor<8xi64>, tensor<200000x1xi64>, tensor<200000xi64>) -> tensor<8xi64>
  return %0 : tensor<8xi64>
}
