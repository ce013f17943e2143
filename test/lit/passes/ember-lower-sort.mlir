// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s
// RUN: ember-opt %s -p lower-to-loops | FileCheck %s --check-prefix=LOOPS

// A stable merge sort per line along axis 0 of a symbolic-size matrix, of a float
// argsort's integer keys (made as each element is loaded: -0.0 made 0.0, NaNs one NaN,
// the bits with a negative's magnitude bits flipped): a parallel loop over the other dim, each iteration with its own scratch lines (alloc_tensor, as
// argsort's key tensor: the result alone is a tensor.empty); the line loaded
// from the operand in groups of 8 (the last padded with NaN, the greatest key), each
// group sorted by compare-exchanges of neighbours (b before a: b < a, signed) and
// stored last to first; then at most 30 double passes from width 8, the
// width carried and made 4x larger while it is below n, each merge running from the front (the right head only when strictly
// before the left one) and from the back (the left tail only when the right one is
// strictly before it): a full pair of runs in `width` steps with no bounds checks, a
// short one (the last) in ceil(len / 2) steps with them.
// CHECK-LABEL: func.func @argsort_columns
// CHECK: %[[N:.+]] = tensor.dim %{{.*}}, %c0
// CHECK-NOT: linalg.generic
// CHECK: bufferization.alloc_tensor(%[[N]]) : tensor<?x5xi32>
// CHECK: tensor.empty(%[[N]]) : tensor<?x5xi64>
// CHECK: scf.forall (%[[COL:.+]]) in (%c5) shared_outs
// CHECK: tensor.extract_slice %{{.*}}[0, %[[COL]]] [%[[N]], 1] [1, 1] : tensor<?x5xi32> to tensor<?x1xi32>
// CHECK: bufferization.alloc_tensor(%[[N]]) : tensor<?xi32>
// CHECK: bufferization.alloc_tensor(%[[N]]) : tensor<?xi64>
// CHECK: %[[LAST:.+]] = arith.subi %[[N]], %c1
// CHECK: scf.for %[[G:.+]] = %{{.*}} to %[[N]] step %c8
// CHECK: %[[K:.+]] = arith.addi %[[G]], %{{.*}} : index
// CHECK: %[[AT:.+]] = arith.minsi %[[K]], %[[LAST]] : index
// CHECK: %[[IN:.+]] = arith.cmpi slt, %[[K]], %[[N]] : index
// CHECK: %[[V:.+]] = tensor.extract %{{.*}}[%[[AT]], %[[COL]]] : tensor<?x5xf32>
// CHECK: arith.cmpf oeq, %[[V]]
// CHECK: arith.cmpf uno
// CHECK: %[[BITS:.+]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[NEG:.+]] = arith.shrsi %[[BITS]], %{{.*}} : i32
// CHECK: %[[FLIP:.+]] = arith.andi %[[NEG]], %{{.*}} : i32
// CHECK: %[[KEY:.+]] = arith.xori %[[BITS]], %[[FLIP]] : i32
// CHECK: arith.select %[[IN]], %[[KEY]], %{{.*}} : i32
// CHECK-COUNT-7: tensor.extract %{{.*}} : tensor<?x5xf32>
// CHECK: %[[SWAP:.+]] = arith.cmpi slt, %[[B:.+]], %[[A:.+]] : i32
// CHECK: arith.select %[[SWAP]], %[[B]], %[[A]] : i32
// CHECK: arith.select %[[SWAP]], %[[A]], %[[B]] : i32
// CHECK-COUNT-27: arith.cmpi slt, {{.*}} : i32
// CHECK: arith.addi %[[G]], %c7
// CHECK: tensor.insert {{.*}} : tensor<?x1xi32>
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: tensor.insert {{.*}} : tensor<?x1xi64>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c30 step %{{.*}} iter_args(%[[W:.+]] = %c8{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK: %[[ACTIVE:.+]] = arith.cmpi slt, %[[W]], %[[N]]
// CHECK: scf.if %[[ACTIVE]]
// CHECK: %[[SPAN:.+]] = arith.addi %[[W]], %[[W]] : index
// CHECK: scf.for %[[LO:.+]] = %{{.*}} to %[[N]] step %[[SPAN]]
// CHECK: %[[MID:.+]] = arith.minsi %{{.*}}, %[[N]] : index
// CHECK: %[[HI:.+]] = arith.minsi %{{.*}}, %[[N]] : index
// CHECK: %[[LEN:.+]] = arith.subi %[[HI]], %[[LO]] : index
// CHECK: %[[FULL:.+]] = arith.cmpi eq, %[[LEN]], %[[SPAN]] : index
// CHECK: scf.if %[[FULL]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[W]]
// CHECK-NOT: arith.cmpi {{.*}} : index
// CHECK: arith.cmpi slt, {{.*}} : i32
// CHECK: tensor.insert {{.*}} : tensor<?xi32>
// CHECK: tensor.insert {{.*}} : tensor<?xi64>
// CHECK-NOT: arith.cmpi {{.*}} : index
// CHECK: arith.cmpi slt, {{.*}} : i32
// CHECK: tensor.insert {{.*}} : tensor<?xi32>
// CHECK: tensor.insert {{.*}} : tensor<?xi64>
// CHECK: } else {
// CHECK: %[[HALF:.+]] = arith.divsi %{{.*}}, %c2
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[HALF]]
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi slt
// CHECK: arith.minsi
// CHECK: arith.cmpi slt, {{.*}} : i32
// CHECK: tensor.insert {{.*}} : tensor<?xi32>
// CHECK: tensor.insert {{.*}} : tensor<?xi64>
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi sge
// CHECK: arith.maxsi
// CHECK: arith.cmpi slt, {{.*}} : i32
// CHECK: tensor.insert {{.*}} : tensor<?xi32>
// CHECK: tensor.insert {{.*}} : tensor<?xi64>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[0, %[[COL]]] [%[[N]], 1] [1, 1] : tensor<?x1xi32> into tensor<?x5xi32>
// CHECK-NOT: ember.
// CHECK: return
func.func @argsort_columns(%x: tensor<?x5xf32>) -> tensor<?x5xi64> {
  %0 = "ember.argsort"(%x) {axis = 0 : i64} : (tensor<?x5xf32>) -> tensor<?x5xi64>
  return %0 : tensor<?x5xi64>
}

// A float sort (values): each loaded float made an i64 key that orders like it, one to
// one (-0.0 just below 0.0, NaNs of both signs past inf), merged by integer compares;
// then three binary searches find the zeros and the NaNs, and where either run holds
// two, one pass over the line puts them back in their order (NumPy's stable one); the
// keys are written back as floats into the result's line.
// CHECK-LABEL: func.func @sort_columns
// CHECK: scf.forall {{.*}} -> (tensor<?x5xi64>, tensor<?x5xf64>)
// CHECK: arith.bitcast %{{.*}} : f64 to i64
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK-NOT: arith.cmpf ugt
// CHECK: scf.while
// CHECK: scf.while
// CHECK: scf.while
// CHECK: scf.if
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf uno
// CHECK: arith.bitcast %{{.*}} : i64 to f64
// CHECK: tensor.insert %{{.*}} : tensor<?x1xf64>
// CHECK: return
func.func @sort_columns(%x: tensor<?x5xf64>) -> tensor<?x5xf64> {
  %0 = "ember.sort"(%x) {axis = 0 : i64} : (tensor<?x5xf64>) -> tensor<?x5xf64>
  return %0 : tensor<?x5xf64>
}

// Integers compare signed, and bufferization keeps everything in place: each row is
// sorted in its row of the output buffer, with one scratch line per call (per thread:
// the kernel is one parallel loop, which each thread runs a part of), on the stack.
// LOOPS-LABEL: func.func @sort_rows
// LOOPS-SAME: %[[OUT:[a-z0-9_]+]]: memref<3x8xi32>
// LOOPS: memref.alloca() {{.*}} : memref<8xi32>
// LOOPS-NOT: memref.alloc
// LOOPS: scf.forall (%[[ROW:.+]]) in (3)
// LOOPS: %[[LINE:.+]] = memref.subview %[[OUT]][%[[ROW]], 0] [1, 8] [1, 1]
// LOOPS: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// LOOPS: memref.store %{{.*}}, %[[LINE]]
// LOOPS-NOT: memref.dealloc
// LOOPS: return
func.func @sort_rows(%x: tensor<3x8xi32>) -> tensor<3x8xi32> {
  %0 = "ember.sort"(%x) {axis = 1 : i64} : (tensor<3x8xi32>) -> tensor<3x8xi32>
  return %0 : tensor<3x8xi32>
}

// Partition (median's and percentile's): each row loaded, then for each position of kth
// (ascending), within what the previous position left: at either end of it (k == lo, or
// k == hi - 1) one scan carrying the least or greatest value and its place, then a swap;
// elsewhere rounds of a branch-free three-way split around the median of three (the
// element at i and the one read swap unconditionally, i moves by the compare; then the
// pivot's equals, only when k is past what sorts before it).
// CHECK-LABEL: func.func @partition_rows
// CHECK: scf.forall (%[[ROW:.+]]) in (%c4) shared_outs
// CHECK: scf.for %[[K:.+]] = %{{.*}} to %c9
// CHECK: tensor.extract %arg0[%[[ROW]], %[[K]]] : tensor<4x9xf32>
// CHECK: scf.for %[[Q:.+]] = %{{.*}} to %c2
// CHECK: tensor.extract %arg1[%[[Q]]] : tensor<2xi64>
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[KQ:.+]], %{{.+}} : index
// CHECK: arith.cmpi eq, %[[KQ]], %{{.+}} : index
// CHECK: scf.if
// CHECK: scf.for {{.*}} -> (f32, index)
// CHECK: arith.select %[[FIRST]]
// CHECK: tensor.insert
// CHECK: tensor.insert
// CHECK: } else {
// CHECK: scf.while
// CHECK: arith.divsi
// CHECK: scf.for {{.*}} -> (index, tensor<1x9xf32>)
// CHECK-NOT: scf.while
// CHECK: tensor.insert
// CHECK: tensor.insert
// CHECK: arith.select %{{.+}}, %{{.+}}, %{{.+}} : index
// CHECK: scf.if
// CHECK: scf.for {{.*}} -> (index, tensor<1x9xf32>)
// CHECK: tensor.parallel_insert_slice
func.func @partition_rows(%x: tensor<4x9xf32>, %kth: tensor<2xi64>) -> tensor<4x9xf32> {
  %0 = "ember.partition"(%x, %kth) {axis = 1 : i64} : (tensor<4x9xf32>, tensor<2xi64>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// A 1-d sort: up to 4 parts of 16384 elements or more (a multiple of 8 wide), each
// sorted in a forall iteration with scratch of its own (alloc_tensor: CSE never merges
// it with another line), then the merges of the whole line from runs of a part's width
// (float64 argsort: of i64 keys, made as each element is loaded).
// CHECK-LABEL: func.func @argsort_line
// CHECK: %[[N:.+]] = tensor.dim %{{.*}}, %c0
// CHECK: %[[KEYS:.+]] = bufferization.alloc_tensor(%[[N]]) : tensor<?xi64>
// CHECK: %[[OUT:.+]] = tensor.empty(%[[N]]) : tensor<?xi64>
// CHECK: %[[Q:.+]] = arith.divsi %[[N]], %c16384
// CHECK: %[[ATLEAST1:.+]] = arith.maxsi %[[Q]], %c1
// CHECK: %[[PARTS:.+]] = arith.minsi %[[ATLEAST1]], %c4
// CHECK: %[[PER:.+]] = arith.ceildivsi %[[N]], %[[PARTS]]
// CHECK: %[[GROUPS:.+]] = arith.ceildivsi %[[PER]], %c8
// CHECK: %[[WIDTH:.+]] = arith.muli %[[GROUPS]], %c8
// CHECK: scf.forall (%[[P:.+]]) in (%[[PARTS]]) shared_outs(%{{.*}} = %[[KEYS]], %{{.*}} = %[[OUT]])
// CHECK: %[[LO:.+]] = arith.muli %[[P]], %[[WIDTH]]
// CHECK: bufferization.alloc_tensor(%{{.*}}) : tensor<?xi64>
// CHECK: bufferization.alloc_tensor(%{{.*}}) : tensor<?xi64>
// CHECK: tensor.parallel_insert_slice %{{.*}}[%[[LO]]]
// CHECK: bufferization.alloc_tensor(%[[N]]) : tensor<?xi64>
// CHECK: bufferization.alloc_tensor(%[[N]]) : tensor<?xi64>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c30 step %{{.*}} iter_args(%{{.*}} = %[[WIDTH]],
// CHECK: return
func.func @argsort_line(%x: tensor<?xf64>) -> tensor<?xi64> {
  %0 = "ember.argsort"(%x) {axis = 0 : i64} : (tensor<?xf64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}
