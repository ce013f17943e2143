"""The BLAS helper library: MLIR functions, one set per element type, that hand a
product to BLAS (``?gemm``, ``?gemv``, ``?syrk``, ``?dot``) after checking at run time
that each operand's strides are ones BLAS takes, and run the product as linalg loops
where they are not.

``ember-matmul-to-blas`` (``blas.py``) decides which products become calls to them;
this module is their source. The CPU backend compiles each element type's set once per
machine as a library of public definitions (``library_text``,
``backends/llvm_cpu/helper_library.py``) that kernels link to; a pipeline run without
the backend (``ember-opt``) gets the definitions in the module itself.
"""

from __future__ import annotations

import re

from compiler.mlir import public_definitions
from runtime.abi import POOL_THREADS

# OpenBLAS runs a product of up to this many multiply-adds on one thread (its threshold:
# ``ember_gemm_ELEM``'s ``%hi`` below, and ``blas._parallel_batch``).
SERIAL_MACS = 1 << 18

# Element-type independent: how a (rows x cols) matrix with strides (s0, s1) can be
# handed to BLAS. Row-major needs unit stride along rows and s0 >= cols; column-major
# unit stride along columns and s1 >= rows (a dim of size 1 needs neither). Returns
# (row_ok, ld_row, col_ok, ld_col).
LAYOUT = """
func.func private @ember_blas_layout(%rows: index, %cols: index, %s0: index, %s1: index) -> (i1, i64, i1, i64) {
  %c1 = arith.constant 1 : index
  %one_row = arith.cmpi eq, %rows, %c1 : index
  %one_col = arith.cmpi eq, %cols, %c1 : index
  %s0_unit = arith.cmpi eq, %s0, %c1 : index
  %s1_unit = arith.cmpi eq, %s1, %c1 : index
  %s0_big = arith.cmpi sge, %s0, %cols : index
  %s1_big = arith.cmpi sge, %s1, %rows : index
  %r1 = arith.ori %one_col, %s1_unit : i1
  %r2 = arith.ori %one_row, %s0_big : i1
  %row_ok = arith.andi %r1, %r2 : i1
  %k1 = arith.ori %one_row, %s0_unit : i1
  %k2 = arith.ori %one_col, %s1_big : i1
  %col_ok = arith.andi %k1, %k2 : i1
  %ld_row_i = arith.select %one_row, %cols, %s0 : index
  %ld_col_i = arith.select %one_col, %rows, %s1 : index
  %ld_row = arith.index_cast %ld_row_i : index to i64
  %ld_col = arith.index_cast %ld_col_i : index to i64
  return %row_ok, %ld_row, %col_ok, %ld_col : i1, i64, i1, i64
}
func.func private @ember_blas_operand(%row_order: i1, %rows: index, %cols: index, %s0: index, %s1: index) -> (i1, i32, i64) {
  %no_trans = arith.constant 111 : i32
  %trans = arith.constant 112 : i32
  %l:4 = func.call @ember_blas_layout(%rows, %cols, %s0, %s1) : (index, index, index, index) -> (i1, i64, i1, i64)
  %ok = arith.ori %l#0, %l#2 : i1
  %native = arith.select %row_order, %l#0, %l#2 : i1
  %native_ld = arith.select %row_order, %l#1, %l#3 : i64
  %other_ld = arith.select %row_order, %l#3, %l#1 : i64
  %flag = arith.select %native, %no_trans, %trans : i32
  %ld = arith.select %native, %native_ld, %other_ld : i64
  return %ok, %flag, %ld : i1, i32, i64
}
"""

# What gemm needs of C = A @ B (the real and the complex helpers alike): every dim non-empty,
# C row- or column-major (its layout picks CBLAS's order), A and B each in that order or
# the other (a transpose flag). Defines %m %n %k, %order, %ldc, %la/%lb (ok, flag, ld), %ok.
_GEMM_CHECKS = """  %row_major = arith.constant 101 : i32
  %col_major = arith.constant 102 : i32
  %ba, %oa, %m, %k, %sa0, %sa1 = memref.extract_strided_metadata %a : MATRIX -> memref<ELEM>, index, index, index, index, index
  %bb, %ob, %kb, %n, %sb0, %sb1 = memref.extract_strided_metadata %b : MATRIX -> memref<ELEM>, index, index, index, index, index
  %bc, %oc, %mc, %nc, %sc0, %sc1 = memref.extract_strided_metadata %c : MATRIX -> memref<ELEM>, index, index, index, index, index
  %m_ok = arith.cmpi sgt, %m, %c0 : index
  %n_ok = arith.cmpi sgt, %n, %c0 : index
  %k_ok = arith.cmpi sgt, %k, %c0 : index
  %lc:4 = func.call @ember_blas_layout(%m, %n, %sc0, %sc1) : (index, index, index, index) -> (i1, i64, i1, i64)
  %c_ok = arith.ori %lc#0, %lc#2 : i1
  %order = arith.select %lc#0, %row_major, %col_major : i32
  %ldc = arith.select %lc#0, %lc#1, %lc#3 : i64
  %la:3 = func.call @ember_blas_operand(%lc#0, %m, %k, %sa0, %sa1) : (i1, index, index, index, index) -> (i1, i32, i64)
  %lb:3 = func.call @ember_blas_operand(%lc#0, %k, %n, %sb0, %sb1) : (i1, index, index, index, index) -> (i1, i32, i64)
  %ok1 = arith.andi %m_ok, %n_ok : i1
  %ok2 = arith.andi %ok1, %k_ok : i1
  %ok3 = arith.andi %ok2, %c_ok : i1
  %ok4 = arith.andi %ok3, %la#0 : i1
  %ok = arith.andi %ok4, %lb#0 : i1
"""

# The address of a buffer's first element (its offset applied), for BLAS's pointer arguments.
_ELEM_PTR = """func.func private @ember_elem_ptr_NAME(%x: MATRIX) -> !llvm.ptr {
  %base, %offset, %s0, %s1, %t0, %t1 = memref.extract_strided_metadata %x : MATRIX -> memref<ELEM>, index, index, index, index, index
  %address = memref.extract_aligned_pointer_as_index %x : MATRIX -> index
  %address64 = arith.index_cast %address : index to i64
  %offset64 = arith.index_cast %offset : index to i64
  %pointer = llvm.inttoptr %address64 : i64 to !llvm.ptr
  %element = llvm.getelementptr %pointer[%offset64] : (!llvm.ptr, i64) -> !llvm.ptr, LLVM_ELEM
  return %element : !llvm.ptr
}
"""

_HELPERS = """
func.func private @ember_blas_GEMM(i32, i32, i32, i64, i64, i64, ELEM, !llvm.ptr, i64, !llvm.ptr, i64, ELEM, !llvm.ptr, i64)
func.func private @ember_blas_GEMV(i32, i32, i64, i64, ELEM, !llvm.ptr, i64, !llvm.ptr, i64, ELEM, !llvm.ptr, i64)
func.func private @ember_matmul_ELEM(%a_in: MATRIX, %b_in: MATRIX, %c: MATRIX, %beta: ELEM) {
  %a = func.call @ember_blas_packed_ELEM(%a_in) : (MATRIX) -> MATRIX
  %b = func.call @ember_blas_packed_ELEM(%b_in) : (MATRIX) -> MATRIX
  func.call @ember_gemm_ELEM(%a, %b, %c, %beta) : (MATRIX, MATRIX, MATRIX, ELEM) -> ()
  func.call @ember_blas_unpacked_ELEM(%a, %a_in) : (MATRIX, MATRIX) -> ()
  func.call @ember_blas_unpacked_ELEM(%b, %b_in) : (MATRIX, MATRIX) -> ()
  return
}
func.func private @ember_blas_packed_ELEM(%x: MATRIX) -> MATRIX {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %base, %offset, %rows, %cols, %s0, %s1 = memref.extract_strided_metadata %x : MATRIX -> memref<ELEM>, index, index, index, index, index
  %l:4 = func.call @ember_blas_layout(%rows, %cols, %s0, %s1) : (index, index, index, index) -> (i1, i64, i1, i64)
  %ok = arith.ori %l#0, %l#2 : i1
  %packed = scf.if %ok -> MATRIX {
    scf.yield %x : MATRIX
  } else {
    %copy = memref.alloc(%rows, %cols) : memref<?x?xELEM>
    linalg.copy ins(%x : MATRIX) outs(%copy : memref<?x?xELEM>)
    %cast = memref.cast %copy : memref<?x?xELEM> to MATRIX
    scf.yield %cast : MATRIX
  }
  return %packed : MATRIX
}
func.func private @ember_blas_unpacked_ELEM(%packed: MATRIX, %x: MATRIX) {
  %p = memref.extract_aligned_pointer_as_index %packed : MATRIX -> index
  %q = memref.extract_aligned_pointer_as_index %x : MATRIX -> index
  %copied = arith.cmpi ne, %p, %q : index
  scf.if %copied {
    memref.dealloc %packed : MATRIX
  }
  return
}
func.func private @POOL_THREADS() -> i64
func.func private @ember_gemm_ELEM(%a: MATRIX, %b: MATRIX, %c: MATRIX, %beta: ELEM) {
  // A product BLAS runs on one thread (m*n*k <= 2**18, OpenBLAS's threshold) that is
  // worth two (>= 2**15): blocks of 32 rows on the worker pool, one call each, on any
  // number of threads (one included), so the bits do not depend on it. OpenBLAS rounds
  // a block as in one call on most configurations, not on all (docs/numpy-semantics.md).
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %lo = arith.constant 32768 : index
  %hi = arith.constant SERIAL_MACS : index
  %ba, %oa, %m, %k, %sa0, %sa1 = memref.extract_strided_metadata %a : MATRIX -> memref<ELEM>, index, index, index, index, index
  %bb, %ob, %kb, %n, %sb0, %sb1 = memref.extract_strided_metadata %b : MATRIX -> memref<ELEM>, index, index, index, index, index
  %mn = arith.muli %m, %n : index
  %mnk = arith.muli %mn, %k : index
  %worth = arith.cmpi sge, %mnk, %lo : index
  %serial = arith.cmpi sle, %mnk, %hi : index
  %blocks = arith.divui %m, %c32 : index
  %threads64 = func.call @POOL_THREADS() : () -> i64
  %threads = arith.index_cast %threads64 : i64 to index
  %parts = arith.minui %threads, %blocks : index
  %many = arith.cmpi sge, %blocks, %c2 : index
  %sized = arith.andi %worth, %serial : i1
  %split = arith.andi %sized, %many : i1
  scf.if %split {
    func.call @ember_gemm_rows_ELEM(%a, %b, %c, %beta, %blocks, %parts) : (MATRIX, MATRIX, MATRIX, ELEM, index, index) -> ()
  } else {
    func.call @ember_gemm_block_ELEM(%a, %b, %c, %beta) : (MATRIX, MATRIX, MATRIX, ELEM) -> ()
  }
  return
}
func.func private @ember_gemm_rows_ELEM(%a: MATRIX, %b: MATRIX, %c: MATRIX, %beta: ELEM, %blocks: index, %parts: index) {
  // the rows' %blocks blocks of 32 (the last one takes what is left over), one call
  // each, in %parts parts of whole blocks
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %ba, %oa, %m, %k, %sa0, %sa1 = memref.extract_strided_metadata %a : MATRIX -> memref<ELEM>, index, index, index, index, index
  %bc, %oc, %mc, %n, %sc0, %sc1 = memref.extract_strided_metadata %c : MATRIX -> memref<ELEM>, index, index, index, index, index
  %final = arith.subi %blocks, %c1 : index
  scf.forall (%p) in (%parts) {
    %pb = arith.muli %p, %blocks : index
    %fb = arith.divui %pb, %parts : index
    %p1 = arith.addi %p, %c1 : index
    %nb = arith.muli %p1, %blocks : index
    %eb = arith.divui %nb, %parts : index
    scf.for %blk = %fb to %eb step %c1 {
      %first = arith.muli %blk, %c32 : index
      %next = arith.addi %first, %c32 : index
      %last = arith.cmpi eq, %blk, %final : index
      %end = arith.select %last, %m, %next : index
      %rows = arith.subi %end, %first : index
      %ab = memref.subview %a[%first, 0] [%rows, %k] [1, 1] : MATRIX to MATRIX
      %cb = memref.subview %c[%first, 0] [%rows, %n] [1, 1] : MATRIX to MATRIX
      func.call @ember_gemm_block_ELEM(%ab, %b, %cb, %beta) : (MATRIX, MATRIX, MATRIX, ELEM) -> ()
    }
  }
  return
}
func.func private @ember_gemm_block_ELEM(%a: MATRIX, %b: MATRIX, %c: MATRIX, %beta: ELEM) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : ELEM
GEMM_CHECKS
  scf.if %ok {
    %pa = func.call @ember_elem_ptr_ELEM(%a) : (MATRIX) -> !llvm.ptr
    %pb = func.call @ember_elem_ptr_ELEM(%b) : (MATRIX) -> !llvm.ptr
    %pc = func.call @ember_elem_ptr_ELEM(%c) : (MATRIX) -> !llvm.ptr
    %m64 = arith.index_cast %m : index to i64
    %n64 = arith.index_cast %n : index to i64
    %k64 = arith.index_cast %k : index to i64
    func.call @ember_blas_GEMM(%order, %la#1, %lb#1, %m64, %n64, %k64, %one, %pa, %la#2, %pb, %lb#2, %beta, %pc, %ldc)
        : (i32, i32, i32, i64, i64, i64, ELEM, !llvm.ptr, i64, !llvm.ptr, i64, ELEM, !llvm.ptr, i64) -> ()
  } else {
    func.call @ember_blas_zero_ELEM(%c, %beta) : (MATRIX, ELEM) -> ()
    linalg.matmul ins(%a, %b : MATRIX, MATRIX) outs(%c : MATRIX)
  }
  return
}
func.func private @ember_blas_SYRK(i32, i32, i32, i64, i64, ELEM, !llvm.ptr, i64, ELEM, !llvm.ptr, i64)
func.func private @ember_gram_ELEM(%a: MATRIX, %b: MATRIX, %c: MATRIX, %beta: ELEM) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : ELEM
  %row_major = arith.constant 101 : i32
  %upper = arith.constant 121 : i32
  %ba, %oa, %m, %k, %sa0, %sa1 = memref.extract_strided_metadata %a : MATRIX -> memref<ELEM>, index, index, index, index, index
  %bc, %oc, %mc, %nc, %sc0, %sc1 = memref.extract_strided_metadata %c : MATRIX -> memref<ELEM>, index, index, index, index, index
  %m_ok = arith.cmpi sgt, %m, %c0 : index
  %k_ok = arith.cmpi sgt, %k, %c0 : index
  %lc:4 = func.call @ember_blas_layout(%m, %m, %sc0, %sc1) : (index, index, index, index) -> (i1, i64, i1, i64)
  %la:3 = func.call @ember_blas_operand(%lc#0, %m, %k, %sa0, %sa1) : (i1, index, index, index, index) -> (i1, i32, i64)
  %ok1 = arith.andi %m_ok, %k_ok : i1
  %ok2 = arith.andi %ok1, %lc#0 : i1
  %ok = arith.andi %ok2, %la#0 : i1
  scf.if %ok {
    %pa = func.call @ember_elem_ptr_ELEM(%a) : (MATRIX) -> !llvm.ptr
    %pc = func.call @ember_elem_ptr_ELEM(%c) : (MATRIX) -> !llvm.ptr
    %m64 = arith.index_cast %m : index to i64
    %k64 = arith.index_cast %k : index to i64
    func.call @ember_blas_SYRK(%row_major, %upper, %la#1, %m64, %k64, %one, %pa, %la#2, %beta, %pc, %lc#1)
        : (i32, i32, i32, i64, i64, ELEM, !llvm.ptr, i64, ELEM, !llvm.ptr, i64) -> ()
    // the lower triangle from the upper, in 32 x 32 blocks (a column read is cache-friendly within one)
    %c32 = arith.constant 32 : index
    scf.for %ib = %c0 to %m step %c32 {
      %ie = arith.addi %ib, %c32 : index
      %iend = arith.minsi %ie, %m : index
      scf.for %jb = %c0 to %iend step %c32 {
        scf.for %i = %ib to %iend step %c1 {
          %je = arith.addi %jb, %c32 : index
          %jend = arith.minsi %je, %i : index
          scf.for %j = %jb to %jend step %c1 {
            %v = memref.load %c[%j, %i] : MATRIX
            memref.store %v, %c[%i, %j] : MATRIX
          }
        }
      }
    }
  } else {
    func.call @ember_blas_zero_ELEM(%c, %beta) : (MATRIX, ELEM) -> ()
    linalg.matmul ins(%a, %b : MATRIX, MATRIX) outs(%c : MATRIX)
  }
  return
}
func.func private @ember_gram_add_ELEM(%a: MATRIX, %b: MATRIX, %c: MATRIX, %beta: ELEM) {
  // c += a @ b with b = a.T: syrk into scratch, then added; gemm where the sum is short
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : ELEM
  %ba, %oa, %m, %k, %sa0, %sa1 = memref.extract_strided_metadata %a : MATRIX -> memref<ELEM>, index, index, index, index, index
  %deep = arith.cmpi sge, %k, %c32 : index
  scf.if %deep {
    %scratch = memref.alloc(%m, %m) : memref<?x?xELEM>
    %s = memref.cast %scratch : memref<?x?xELEM> to MATRIX
    func.call @ember_gram_ELEM(%a, %b, %s, %zero) : (MATRIX, MATRIX, MATRIX, ELEM) -> ()
    scf.for %i = %c0 to %m step %c1 {
      scf.for %j = %c0 to %m step %c1 {
        %x = memref.load %c[%i, %j] : MATRIX
        %y = memref.load %scratch[%i, %j] : memref<?x?xELEM>
        %sum = arith.addf %x, %y : ELEM
        memref.store %sum, %c[%i, %j] : MATRIX
      }
    }
    memref.dealloc %scratch : memref<?x?xELEM>
  } else {
    func.call @ember_matmul_ELEM(%a, %b, %c, %beta) : (MATRIX, MATRIX, MATRIX, ELEM) -> ()
  }
  return
}
func.func private @ember_matvec_ELEM(%a: MATRIX, %x: VECTOR, %y: VECTOR, %beta: ELEM) {
  %no_trans = arith.constant 111 : i32
  func.call @ember_gemv_ELEM(%no_trans, %a, %x, %y, %beta) : (i32, MATRIX, VECTOR, VECTOR, ELEM) -> ()
  return
}
func.func private @ember_vecmat_ELEM(%x: VECTOR, %a: MATRIX, %y: VECTOR, %beta: ELEM) {
  %trans = arith.constant 112 : i32
  func.call @ember_gemv_ELEM(%trans, %a, %x, %y, %beta) : (i32, MATRIX, VECTOR, VECTOR, ELEM) -> ()
  return
}
func.func private @ember_gemv_ELEM(%trans: i32, %a: MATRIX, %x: VECTOR, %y: VECTOR, %beta: ELEM) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : ELEM
  %row_major = arith.constant 101 : i32
  %col_major = arith.constant 102 : i32
  %no_trans = arith.constant 111 : i32
  %ba, %oa, %rows, %cols, %s0, %s1 = memref.extract_strided_metadata %a : MATRIX -> memref<ELEM>, index, index, index, index, index
  %rows_ok = arith.cmpi sgt, %rows, %c0 : index
  %cols_ok = arith.cmpi sgt, %cols, %c0 : index
  %l:4 = func.call @ember_blas_layout(%rows, %cols, %s0, %s1) : (index, index, index, index) -> (i1, i64, i1, i64)
  %a_ok = arith.ori %l#0, %l#2 : i1
  %order = arith.select %l#0, %row_major, %col_major : i32
  %lda = arith.select %l#0, %l#1, %l#3 : i64
  %vx:3 = func.call @ember_blas_vector_ELEM(%x) : (VECTOR) -> (i1, !llvm.ptr, i64)
  %vy:3 = func.call @ember_blas_vector_ELEM(%y) : (VECTOR) -> (i1, !llvm.ptr, i64)
  %ok1 = arith.andi %rows_ok, %cols_ok : i1
  %ok2 = arith.andi %ok1, %a_ok : i1
  %ok3 = arith.andi %ok2, %vx#0 : i1
  %ok = arith.andi %ok3, %vy#0 : i1
  scf.if %ok {
    %pa = func.call @ember_elem_ptr_ELEM(%a) : (MATRIX) -> !llvm.ptr
    %m64 = arith.index_cast %rows : index to i64
    %n64 = arith.index_cast %cols : index to i64
    func.call @ember_blas_GEMV(%order, %trans, %m64, %n64, %one, %pa, %lda, %vx#1, %vx#2, %beta, %vy#1, %vy#2)
        : (i32, i32, i64, i64, ELEM, !llvm.ptr, i64, !llvm.ptr, i64, ELEM, !llvm.ptr, i64) -> ()
  } else {
    %zero = arith.constant 0.0 : ELEM
    %fresh = arith.cmpf oeq, %beta, %zero : ELEM
    scf.if %fresh {
      linalg.fill ins(%zero : ELEM) outs(%y : VECTOR)
    }
    %is_matvec = arith.cmpi eq, %trans, %no_trans : i32
    scf.if %is_matvec {
      linalg.matvec ins(%a, %x : MATRIX, VECTOR) outs(%y : VECTOR)
    } else {
      linalg.vecmat ins(%x, %a : VECTOR, MATRIX) outs(%y : VECTOR)
    }
  }
  return
}
func.func private @ember_blas_DOT(i64, !llvm.ptr, i64, !llvm.ptr, i64) -> ELEM
func.func private @ember_dot_ELEM(%x: VECTOR, %y: VECTOR, %out: SCALAR, %beta: ELEM) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : ELEM
  %n = memref.dim %x, %c0 : VECTOR
  %vx:3 = func.call @ember_blas_vector_ELEM(%x) : (VECTOR) -> (i1, !llvm.ptr, i64)
  %vy:3 = func.call @ember_blas_vector_ELEM(%y) : (VECTOR) -> (i1, !llvm.ptr, i64)
  %fresh = arith.cmpf oeq, %beta, %zero : ELEM
  %ok = arith.andi %vx#0, %vy#0 : i1
  scf.if %ok {
    %n64 = arith.index_cast %n : index to i64
    %d = func.call @ember_blas_DOT(%n64, %vx#1, %vx#2, %vy#1, %vy#2) : (i64, !llvm.ptr, i64, !llvm.ptr, i64) -> ELEM
    %old = memref.load %out[] : SCALAR
    %sum = arith.addf %old, %d : ELEM
    %v = arith.select %fresh, %d, %sum : ELEM
    memref.store %v, %out[] : SCALAR
  } else {
    scf.if %fresh {
      memref.store %zero, %out[] : SCALAR
    }
    linalg.dot ins(%x, %y : VECTOR, VECTOR) outs(%out : SCALAR)
  }
  return
}
func.func private @ember_blas_vector_ELEM(%v: VECTOR) -> (i1, !llvm.ptr, i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %base, %offset, %size, %stride = memref.extract_strided_metadata %v : VECTOR -> memref<ELEM>, index, index, index
  %address = memref.extract_aligned_pointer_as_index %v : VECTOR -> index
  %one_elem = arith.cmpi eq, %size, %c1 : index
  %inc_i = arith.select %one_elem, %c1, %stride : index
  %nonzero = arith.cmpi ne, %inc_i, %c0 : index
  %negative = arith.cmpi slt, %inc_i, %c0 : index
  %last = arith.subi %size, %c1 : index
  %back = arith.muli %last, %inc_i : index
  %shift = arith.select %negative, %back, %c0 : index
  %first = arith.addi %offset, %shift : index
  %address64 = arith.index_cast %address : index to i64
  %first64 = arith.index_cast %first : index to i64
  %pointer = llvm.inttoptr %address64 : i64 to !llvm.ptr
  %element = llvm.getelementptr %pointer[%first64] : (!llvm.ptr, i64) -> !llvm.ptr, ELEM
  %inc = arith.index_cast %inc_i : index to i64
  return %nonzero, %element, %inc : i1, !llvm.ptr, i64
}
func.func private @ember_blas_zero_ELEM(%c: MATRIX, %beta: ELEM) {
  %zero = arith.constant 0.0 : ELEM
  %fresh = arith.cmpf oeq, %beta, %zero : ELEM
  scf.if %fresh {
    linalg.fill ins(%zero : ELEM) outs(%c : MATRIX)
  }
  return
}
ELEM_PTR
"""

# Complex matmuls call ?gemm too (NumPy's own choice for complex matrices): alpha and beta
# go by address, so the helper keeps them in stack slots; only gemm (the vector forms
# of complex products stay loops).
_COMPLEX_HELPERS = """
func.func private @ember_blas_GEMM(i32, i32, i32, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64)
func.func private @ember_matmul_NAME(%a: MATRIX, %b: MATRIX, %c: MATRIX, %beta: ELEM) {
  %c0 = arith.constant 0 : index
  %r1 = arith.constant 1.0 : PART
  %r0 = arith.constant 0.0 : PART
  %one = complex.create %r1, %r0 : ELEM
GEMM_CHECKS
  scf.if %ok {
    %scalars = memref.alloca() : memref<2xELEM>
    %c1 = arith.constant 1 : index
    memref.store %one, %scalars[%c0] : memref<2xELEM>
    memref.store %beta, %scalars[%c1] : memref<2xELEM>
    %at = memref.extract_aligned_pointer_as_index %scalars : memref<2xELEM> -> index
    %at64 = arith.index_cast %at : index to i64
    %palpha = llvm.inttoptr %at64 : i64 to !llvm.ptr
    %pbeta = llvm.getelementptr %palpha[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(PART, PART)>
    %pa = func.call @ember_elem_ptr_NAME(%a) : (MATRIX) -> !llvm.ptr
    %pb = func.call @ember_elem_ptr_NAME(%b) : (MATRIX) -> !llvm.ptr
    %pc = func.call @ember_elem_ptr_NAME(%c) : (MATRIX) -> !llvm.ptr
    %m64 = arith.index_cast %m : index to i64
    %n64 = arith.index_cast %n : index to i64
    %k64 = arith.index_cast %k : index to i64
    func.call @ember_blas_GEMM(%order, %la#1, %lb#1, %m64, %n64, %k64, %palpha, %pa, %la#2, %pb, %lb#2, %pbeta, %pc, %ldc)
        : (i32, i32, i32, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> ()
  } else {
    %zero = complex.create %r0, %r0 : ELEM
    %fresh = complex.eq %beta, %zero : ELEM
    scf.if %fresh {
      linalg.fill ins(%zero : ELEM) outs(%c : MATRIX)
    }
    linalg.matmul ins(%a, %b : MATRIX, MATRIX) outs(%c : MATRIX)
  }
  return
}
ELEM_PTR
"""

_LETTER = {"f32": "s", "f64": "d", "complex<f32>": "c", "complex<f64>": "z"}
# How an element type appears in helper names (a symbol cannot hold ``<``).
_NAME = {"f32": "f32", "f64": "f64", "complex<f32>": "c64", "complex<f64>": "c128"}
COMPLEX_PART = {"complex<f32>": "f32", "complex<f64>": "f64"}

ELEMENTS = tuple(_LETTER)  # the element types BLAS multiplies


def element_name(element: str) -> str:
    return _NAME[element]


def entry_points(element: str) -> frozenset[str]:
    """The names of ``element``'s helpers: what a kernel may call (``LAYOUT``'s are
    called by the helpers only)."""
    return frozenset(re.findall(r"func\.func private @(\w+)\(%", helper_text(element)))


def helper_name(kind: str, element: str) -> str:
    return f"ember_{kind}_{element_name(element)}"


def generic_memref(element: str, rank: int = 2) -> str:
    """Any ``rank``-d strided buffer of ``element``: what the helpers take."""
    if rank == 0:
        return f"memref<{element}, strided<[], offset: ?>>"
    dims = "?x" * rank
    return f"memref<{dims}{element}, strided<[{', '.join(['?'] * rank)}], offset: ?>>"


def rows_view_name(element: str, rank: int, kept: int) -> str:
    return f"ember_rows_{_NAME[element]}_{rank}_{kept}"


def rows_view_text(element: str, rank: int, kept: int) -> str:
    """A helper that views a ``rank``-d buffer as ``(rows, last)`` (``kept`` = 1) or
    ``(rows,)`` (``kept`` = 0), the leading dims collapsed into rows: it returns whether
    they can be (each one's stride is the rows' stride times the sizes inside it, or its
    size is 1) and the view (``memref.reinterpret_cast`` of the same memory)."""
    source, view = generic_memref(element, rank), generic_memref(element, 1 + kept)
    last = rank - 1 - kept  # the last dim collapsed into rows
    sizes = ", ".join(f"%s{i}" for i in range(rank))
    strides = ", ".join(f"%t{i}" for i in range(rank))
    lines = [
        f"func.func private @{rows_view_name(element, rank, kept)}(%a: {source}) -> (i1, {view}) {{",
        "  %c1 = arith.constant 1 : index",
        "  %ok_end = arith.constant true",
        f"  %base, %offset, {sizes}, {strides} = memref.extract_strided_metadata %a : {source}"
        f" -> memref<{element}>{', index' * (2 * rank + 1)}",
    ]
    expected, ok, rows = f"%t{last}", "%ok_end", f"%s{last}"
    for j in range(last - 1, -1, -1):
        lines += [
            f"  %e{j} = arith.muli {expected}, %s{j + 1} : index",
            f"  %same{j} = arith.cmpi eq, %t{j}, %e{j} : index",
            f"  %unit{j} = arith.cmpi eq, %s{j}, %c1 : index",
            f"  %fits{j} = arith.ori %same{j}, %unit{j} : i1",
            f"  %ok{j} = arith.andi {ok}, %fits{j} : i1",
            f"  %r{j} = arith.muli {rows}, %s{j} : index",
        ]
        expected, ok, rows = f"%e{j}", f"%ok{j}", f"%r{j}"
    shape = f"[{rows}, %s{rank - 1}]" if kept else f"[{rows}]"
    step = f"[%t{last}, %t{rank - 1}]" if kept else f"[%t{last}]"
    lines += [
        f"  %view = memref.reinterpret_cast %base to offset: [%offset], sizes: {shape}, strides: {step}"
        f" : memref<{element}> to {view}",
        f"  return {ok}, %view : i1, {view}",
        "}",
    ]
    return "\n".join(lines) + "\n"


def helper_text(element: str) -> str:
    """The helpers of one element type (they also call ``LAYOUT``'s functions)."""
    letter = _LETTER[element]
    if element in COMPLEX_PART:
        return (
            _COMPLEX_HELPERS.replace("GEMM_CHECKS\n", _GEMM_CHECKS)
            .replace("ELEM_PTR\n", _ELEM_PTR)
            .replace("LLVM_ELEM", "!llvm.struct<(PART, PART)>")
            .replace("MATRIX", generic_memref(element, 2))
            .replace("GEMM", f"{letter}gemm")
            .replace("NAME", _NAME[element])
            .replace("PART", COMPLEX_PART[element])
            .replace("ELEM", element)
        )
    return (
        _HELPERS.replace("GEMM_CHECKS\n", _GEMM_CHECKS)
        .replace("ELEM_PTR\n", _ELEM_PTR.replace("_NAME", "_ELEM").replace("LLVM_ELEM", "ELEM"))
        .replace("MATRIX", generic_memref(element, 2))
        .replace("VECTOR", generic_memref(element, 1))
        .replace("GEMM", f"{letter}gemm")
        .replace("GEMV", f"{letter}gemv")
        .replace("SYRK", f"{letter}syrk")
        .replace("DOT", f"{letter}dot")
        .replace("POOL_THREADS", POOL_THREADS)
        .replace("SERIAL_MACS", str(SERIAL_MACS))
        .replace("SCALAR", generic_memref(element, 0))
        .replace("ELEM", element)
    )


HELPER_NAMES = {
    name for element in _LETTER for name in re.findall(r"func\.func private @(\w+)", LAYOUT + helper_text(element))
} - {POOL_THREADS}  # the helpers ask the pool how many threads it has: not a library call


def library_text(element: str) -> str:
    """The helpers of ``element`` (and the shared ones) as a library of public definitions,
    which the CPU backend compiles once per process (``backends/llvm_cpu/helper_library.py``)."""
    return public_definitions(LAYOUT + helper_text(element))
