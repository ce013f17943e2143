// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-matmul-to-blas{force=true define-helpers=true})' | FileCheck %s

// Matrix-vector products call BLAS gemv through per-type helpers: matvec with
// NoTrans (111), vecmat (v @ A, and A.T @ v as ember-to-linalg lowers it) with
// Trans (112). The matrix's layout (row- or column-major) picks CBLAS's order;
// vectors pass their stride as increment, from their lowest address when it is
// negative. A zero increment, a matrix BLAS cannot take or an empty dimension runs
// the linalg op as loops.
// CHECK-LABEL: func.func private @ember_matvec_f64
// CHECK: call @ember_gemv_f64(%c111_i32,
// CHECK-LABEL: func.func private @ember_vecmat_f64
// CHECK: call @ember_gemv_f64(%c112_i32,
// CHECK-LABEL: func.func private @ember_gemv_f64
// CHECK-SAME: (%[[T:[a-z0-9_]+]]: i32, %[[A:[a-z0-9_]+]]: memref<?x?xf64, strided<[?, ?], offset: ?>>, %[[X:[a-z0-9_]+]]: memref<?xf64, strided<[?], offset: ?>>, %[[Y:[a-z0-9_]+]]: memref<?xf64, strided<[?], offset: ?>>, %[[BETA:[a-z0-9_]+]]: f64)
// CHECK: %[[L:.*]]:4 = call @ember_blas_layout(
// CHECK: %[[ORDER:.*]] = arith.select %[[L]]#0, %c101_i32, %c102_i32 : i32
// CHECK: %[[LDA:.*]] = arith.select %[[L]]#0, %[[L]]#1, %[[L]]#3 : i64
// CHECK: %[[VX:.*]]:3 = call @ember_blas_vector_f64(%[[X]])
// CHECK: %[[VY:.*]]:3 = call @ember_blas_vector_f64(%[[Y]])
// CHECK: scf.if %{{.*}} {
// CHECK: call @ember_blas_dgemv(%[[ORDER]], %[[T]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LDA]], %[[VX]]#1, %[[VX]]#2, %[[BETA]], %[[VY]]#1, %[[VY]]#2)
// CHECK: } else {
// CHECK: linalg.fill
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: linalg.matvec ins(%[[A]], %[[X]] : {{.*}}) outs(%[[Y]] : {{.*}})
// CHECK-NEXT: } else {
// CHECK-NEXT: linalg.vecmat ins(%[[X]], %[[A]] : {{.*}}) outs(%[[Y]] : {{.*}})
// CHECK-LABEL: func.func private @ember_blas_vector_f64
// CHECK: arith.cmpi ne
// CHECK: arith.cmpi slt
// CHECK: llvm.getelementptr

// CHECK-LABEL: func.func @mv
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<4x3xf64>, %[[X:[a-z0-9_]+]]: memref<3xf64>, %[[Y:[a-z0-9_]+]]: memref<4xf64>)
// CHECK: %[[AC:.*]] = memref.cast %[[A]] : memref<4x3xf64> to memref<?x?xf64, strided<[?, ?], offset: ?>>
// CHECK: %[[XC:.*]] = memref.cast %[[X]] : memref<3xf64> to memref<?xf64, strided<[?], offset: ?>>
// CHECK: %[[YC:.*]] = memref.cast %[[Y]] : memref<4xf64> to memref<?xf64, strided<[?], offset: ?>>
// CHECK: call @ember_matvec_f64(%[[AC]], %[[XC]], %[[YC]], %{{.*}})
// CHECK-NOT: linalg.matvec
// CHECK: return
func.func @mv(%a: memref<4x3xf64>, %x: memref<3xf64>, %y: memref<4xf64>) {
  linalg.matvec ins(%a, %x : memref<4x3xf64>, memref<3xf64>) outs(%y : memref<4xf64>)
  return
}

// CHECK-LABEL: func.func @vm
// CHECK: call @ember_vecmat_f64(
// CHECK-NOT: linalg.vecmat
// CHECK: return
func.func @vm(%x: memref<4xf64>, %a: memref<4x3xf64, strided<[?, ?], offset: ?>>, %y: memref<3xf64>) {
  linalg.vecmat ins(%x, %a : memref<4xf64>, memref<4x3xf64, strided<[?, ?], offset: ?>>) outs(%y : memref<3xf64>)
  return
}

// A matmul reading an operand through a transposed map (A.T @ B, A @ B.T) passes a
// transposed view of it, which the helper hands to gemm with the transpose flag.
// CHECK-LABEL: func.func @transposed
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<3x4xf64>, %[[B:[a-z0-9_]+]]: memref<3x2xf64>, %[[C:[a-z0-9_]+]]: memref<2x3xf64>, %[[O:[a-z0-9_]+]]: memref<4x2xf64>)
// CHECK: %[[AC:.*]] = memref.cast %[[A]]
// CHECK: %[[AT:.*]] = memref.transpose %[[AC]] (d0, d1) -> (d1, d0)
// CHECK: %[[BC:.*]] = memref.cast %[[B]]
// CHECK: %[[OC:.*]] = memref.cast %[[O]]
// CHECK: call @ember_matmul_f64(%[[AT]], %[[BC]], %[[OC]], %{{.*}})
// CHECK: %[[AC2:.*]] = memref.cast %[[A]]
// CHECK: %[[AT2:.*]] = memref.transpose %[[AC2]] (d0, d1) -> (d1, d0)
// CHECK: %[[CC:.*]] = memref.cast %[[C]]
// CHECK: %[[CT:.*]] = memref.transpose %[[CC]] (d0, d1) -> (d1, d0)
// CHECK: call @ember_matmul_f64(%[[AT2]], %[[CT]], %{{.*}})
// CHECK-NOT: linalg.matmul
// CHECK: return
#ta = affine_map<(d0, d1, d2) -> (d2, d0)>
#tb = affine_map<(d0, d1, d2) -> (d1, d2)>
#pb = affine_map<(d0, d1, d2) -> (d2, d1)>
#pc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @transposed(%a: memref<3x4xf64>, %b: memref<3x2xf64>, %c: memref<2x3xf64>, %o: memref<4x2xf64>) {
  linalg.matmul indexing_maps = [#ta, #pb, #pc] ins(%a, %b : memref<3x4xf64>, memref<3x2xf64>) outs(%o : memref<4x2xf64>)
  linalg.matmul indexing_maps = [#ta, #tb, #pc] ins(%a, %c : memref<3x4xf64>, memref<2x3xf64>) outs(%o : memref<4x2xf64>)
  return
}

// Integer matrix-vector products stay loops; on tensors nothing changes.
// CHECK-LABEL: func.func @integer_and_tensor
// CHECK-NOT: call
// CHECK: linalg.matvec
// CHECK: linalg.vecmat
// CHECK: return
func.func @integer_and_tensor(%a: memref<4x3xi32>, %x: memref<3xi32>, %y: memref<4xi32>, %t: tensor<4x3xf64>, %v: tensor<3xf64>, %w: tensor<4xf64>) -> tensor<3xf64> {
  linalg.matvec ins(%a, %x : memref<4x3xi32>, memref<3xi32>) outs(%y : memref<4xi32>)
  %r = linalg.vecmat ins(%w, %t : tensor<4xf64>, tensor<4x3xf64>) outs(%v : tensor<3xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}

// A vector dot product calls ?dot (NumPy's own routine for contiguous and positively
// strided vectors) and stores or adds its value; the zero fill before it goes (beta 0).
// CHECK-LABEL: func.func @dot
// CHECK-NOT: linalg.fill
// CHECK: call @ember_dot_f64(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<?xf64, strided<[?], offset: ?>>, memref<?xf64, strided<[?], offset: ?>>, memref<f64, strided<[], offset: ?>>, f64) -> ()
// CHECK-NOT: linalg.dot
func.func @dot(%x: memref<5xf64>, %y: memref<5xf64>, %out: memref<f64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%out : memref<f64>)
  linalg.dot ins(%x, %y : memref<5xf64>, memref<5xf64>) outs(%out : memref<f64>)
  return
}
