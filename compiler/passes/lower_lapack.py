"""Lowerings of the LAPACK ops (``ember.lapack``, ``ember.lapack_solve``, ``ember.lapack_lstsq``).

Part of ``ember-to-linalg`` (its ``LOWERINGS`` merge this module's). Each op becomes a
call to a helper function on buffers, added to the module once per routine, between
two bufferization casts::

    %a_buf = bufferization.to_buffer %a read_only      (any strides: a NumPy view as it is)
    %out = memref.alloc(...)                            (batch, parts, width) f64
    func.call @ember_lapack_<routine>(%a_buf, %out)
    %r = bufferization.to_tensor %out restrict writable

One-shot bufferization sees a read of ``%a`` and a fresh tensor; fusion and tiling
leave the call alone. The helpers are plain ``scf`` loops around calls of LAPACKE's
``_work`` functions (``ember_lapack_d<routine>``, registered by
``runtime/blas_symbols.py``), in column-major layout, the way NumPy's
``umath_linalg`` calls the Fortran routines:

* every matrix of the stack is copied into a fresh column-major buffer (LAPACK
  overwrites its input; NumPy's ``linearize_matrix``), leading dimensions ``max(1, m)``;
* workspace sizes come from LAPACK's own query (``lwork = -1``), once per call, with
  NumPy's adjustments (``max(1, n, query)`` for geqrf/orgqr, ``query or 1`` for gesdd);
* the same routines NumPy uses: ``getrf`` (slogdet; NumPy's sign from the pivots and
  the sum of ``log|u_ii|``, in its order), ``gesv`` (solve, inv with an identity
  right-hand side), ``potrf`` (cholesky; the other triangle zeroed), ``syevd``
  (eigh ``jobz = 'V'``, eigvalsh ``'N'``), ``gesdd`` (svd ``'A'``/``'S'``/``'N'``;
  identity factors when ``min(m, n) == 0``, as NumPy makes them), ``geqrf`` + ``orgqr``
  (qr), ``gelsd`` (lstsq; residuals as NumPy's sum of squares of the rows past ``n``).

So for the same input the results are NumPy's, bit for bit where the libm calls
agree. The packed result layout (``ops.lapack_parts``) is read back by the frontend
with ``slice`` and ``reshape``; part 0 holds ``info`` where a routine can fail.
"""

from __future__ import annotations

from compiler.dialects import ember
from compiler.mlir import arith, bufferization, func, ir, memref, operation_of, symbol_name, tensor

A3 = "memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>"
A2 = "memref<?x?xf64, strided<[?, ?], offset: ?>>"
OUT = "memref<?x?x?xf64>"
VEC = "memref<?xf64>"
IVEC = "memref<?xi64>"
COL_MAJOR = 102

# LAPACKE ``_work`` signatures (ILP64: lapack_int is i64; a char argument is passed as i32).
_DECLARATIONS = """
func.func private @ember_lapack_dgetrf(i32, i64, i64, !llvm.ptr, i64, !llvm.ptr) -> i64
func.func private @ember_lapack_dgesv(i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> i64
func.func private @ember_lapack_dpotrf(i32, i32, i64, !llvm.ptr, i64) -> i64
func.func private @ember_lapack_dsyevd(i32, i32, i32, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64) -> i64
func.func private @ember_lapack_dgesdd(i32, i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr) -> i64
func.func private @ember_lapack_dgeqrf(i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> i64
func.func private @ember_lapack_dorgqr(i32, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> i64
func.func private @ember_lapack_dgelsd(i32, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i64
"""

# Buffers, copies in and out of column-major workspaces.
_COMMON = """
func.func private @ember_la_ptr(%v: VEC) -> !llvm.ptr {
  %a = memref.extract_aligned_pointer_as_index %v : VEC -> index
  %i = arith.index_cast %a : index to i64
  %p = llvm.inttoptr %i : i64 to !llvm.ptr
  return %p : !llvm.ptr
}
func.func private @ember_la_iptr(%v: IVEC) -> !llvm.ptr {
  %a = memref.extract_aligned_pointer_as_index %v : IVEC -> index
  %i = arith.index_cast %a : index to i64
  %p = llvm.inttoptr %i : i64 to !llvm.ptr
  return %p : !llvm.ptr
}
func.func private @ember_la_buffer(%n: index) -> VEC {
  %c1 = arith.constant 1 : index
  %size = arith.maxsi %n, %c1 : index
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %v = memref.alloc(%size) : VEC
  scf.for %i = %c0 to %size step %c1 {
    memref.store %zero, %v[%i] : VEC
  }
  return %v : VEC
}
func.func private @ember_la_ibuffer(%n: index) -> IVEC {
  %c1 = arith.constant 1 : index
  %size = arith.maxsi %n, %c1 : index
  %zero = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %v = memref.alloc(%size) : IVEC
  scf.for %i = %c0 to %size step %c1 {
    memref.store %zero, %v[%i] : IVEC
  }
  return %v : IVEC
}
func.func private @ember_la_load(%a: A3, %b: index, %w: VEC, %ld: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %rows = memref.dim %a, %c1 : A3
  %cols = memref.dim %a, %c2 : A3
  scf.for %j = %c0 to %cols step %c1 {
    %col = arith.muli %j, %ld : index
    scf.for %i = %c0 to %rows step %c1 {
      %x = memref.load %a[%b, %i, %j] : A3
      %k = arith.addi %col, %i : index
      memref.store %x, %w[%k] : VEC
    }
  }
  return
}
func.func private @ember_la_store(%w: VEC, %ld: index, %rows: index, %cols: index, %out: OUT, %b: index, %part: index, %tri: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t0 = arith.constant 0 : i64
  %t1 = arith.constant 1 : i64
  %t2 = arith.constant 2 : i64
  %zero = arith.constant 0.0 : f64
  %all = arith.cmpi eq, %tri, %t0 : i64
  %lower = arith.cmpi eq, %tri, %t1 : i64
  %upper = arith.cmpi eq, %tri, %t2 : i64
  scf.for %i = %c0 to %rows step %c1 {
    %row = arith.muli %i, %cols : index
    scf.for %j = %c0 to %cols step %c1 {
      %col = arith.muli %j, %ld : index
      %k = arith.addi %col, %i : index
      %x = memref.load %w[%k] : VEC
      %le = arith.cmpi ule, %j, %i : index
      %ge = arith.cmpi uge, %j, %i : index
      %in_lower = arith.andi %lower, %le : i1
      %in_upper = arith.andi %upper, %ge : i1
      %k1 = arith.ori %all, %in_lower : i1
      %keep = arith.ori %k1, %in_upper : i1
      %v = arith.select %keep, %x, %zero : f64
      %at = arith.addi %row, %j : index
      memref.store %v, %out[%b, %part, %at] : OUT
    }
  }
  return
}
func.func private @ember_la_store_vec(%w: VEC, %len: index, %out: OUT, %b: index, %part: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %len step %c1 {
    %x = memref.load %w[%i] : VEC
    memref.store %x, %out[%b, %part, %i] : OUT
  }
  return
}
func.func private @ember_la_info(%info: i64, %out: OUT, %b: index) {
  %c0 = arith.constant 0 : index
  %x = arith.sitofp %info : i64 to f64
  memref.store %x, %out[%b, %c0, %c0] : OUT
  return
}
func.func private @ember_la_identity(%w: VEC, %n: index, %ld: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %zero = arith.constant 0.0 : f64
  scf.for %j = %c0 to %n step %c1 {
    %col = arith.muli %j, %ld : index
    scf.for %i = %c0 to %n step %c1 {
      %k = arith.addi %col, %i : index
      %diag = arith.cmpi eq, %i, %j : index
      %v = arith.select %diag, %one, %zero : f64
      memref.store %v, %w[%k] : VEC
    }
  }
  return
}
func.func private @ember_la_zero(%out: OUT) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f64
  %d0 = memref.dim %out, %c0 : OUT
  %d1 = memref.dim %out, %c1 : OUT
  %d2 = memref.dim %out, %c2 : OUT
  scf.for %i = %c0 to %d0 step %c1 {
    scf.for %j = %c0 to %d1 step %c1 {
      scf.for %k = %c0 to %d2 step %c1 {
        memref.store %zero, %out[%i, %j, %k] : OUT
      }
    }
  }
  return
}
func.func private @ember_la_query(%w: VEC) -> i64 {
  %c0 = arith.constant 0 : index
  %x = memref.load %w[%c0] : VEC
  %n = arith.fptosi %x : f64 to i64
  return %n : i64
}
"""

# One helper per routine. Shared names: %batch, %m, %n (sizes of A), %lda = max(1, m).
_PROLOGUE = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %layout = arith.constant 102 : i32
  %all = arith.constant 0 : i64
  %batch = memref.dim %a, %c0 : A3
  %m = memref.dim %a, %c1 : A3
  %n = memref.dim %a, %c2 : A3
  %lda = arith.maxsi %m, %c1 : index
  %m64 = arith.index_cast %m : index to i64
  %n64 = arith.index_cast %n : index to i64
  %lda64 = arith.index_cast %lda : index to i64
  %k = arith.minsi %m, %n : index
  %k64 = arith.index_cast %k : index to i64
  %asize = arith.muli %lda, %n : index
  %w = func.call @ember_la_buffer(%asize) : (index) -> VEC
  %wp = func.call @ember_la_ptr(%w) : (VEC) -> !llvm.ptr
  func.call @ember_la_zero(%out) : (OUT) -> ()
"""

_HELPERS = {
    "slogdet": """
func.func private @ember_lapack_slogdet(%a: A3, %out: OUT) {
PROLOGUE
  %piv = func.call @ember_la_ibuffer(%n) : (index) -> IVEC
  %pivp = func.call @ember_la_iptr(%piv) : (IVEC) -> !llvm.ptr
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %minus = arith.constant -1.0 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %i0 = arith.constant 0 : i64
  %i1 = arith.constant 1 : i64
  %i2 = arith.constant 2 : i64
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_dgetrf(%layout, %m64, %n64, %wp, %lda64, %pivp)
        : (i32, i64, i64, !llvm.ptr, i64, !llvm.ptr) -> i64
    %ok = arith.cmpi eq, %info, %i0 : i64
    %r:2 = scf.if %ok -> (f64, f64) {
      %changes = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %i0) -> (i64) {
        %p = memref.load %piv[%i] : IVEC
        %i64 = arith.index_cast %i : index to i64
        %pos = arith.addi %i64, %i1 : i64
        %moved = arith.cmpi ne, %p, %pos : i64
        %inc = arith.extui %moved : i1 to i64
        %next = arith.addi %acc, %inc : i64
        scf.yield %next : i64
      }
      %parity = arith.remsi %changes, %i2 : i64
      %odd = arith.cmpi ne, %parity, %i0 : i64
      %sign0 = arith.select %odd, %minus, %one : f64
      %sl:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %sign0, %l = %zero) -> (f64, f64) {
        %row = arith.muli %i, %lda : index
        %at = arith.addi %row, %i : index
        %e = memref.load %w[%at] : VEC
        %neg = arith.cmpf olt, %e, %zero : f64
        %ns = arith.negf %s : f64
        %ne = arith.negf %e : f64
        %s2 = arith.select %neg, %ns, %s : f64
        %ae = arith.select %neg, %ne, %e : f64
        %lg = math.log %ae : f64
        %l2 = arith.addf %l, %lg : f64
        scf.yield %s2, %l2 : f64, f64
      }
      scf.yield %sl#0, %sl#1 : f64, f64
    } else {
      scf.yield %zero, %ninf : f64, f64
    }
    memref.store %r#0, %out[%b, %c0, %c0] : OUT
    memref.store %r#1, %out[%b, %c0, %c1] : OUT
  }
  return
}
""",
    "inv": """
func.func private @ember_lapack_inv(%a: A3, %out: OUT) {
PROLOGUE
  %piv = func.call @ember_la_ibuffer(%n) : (index) -> IVEC
  %pivp = func.call @ember_la_iptr(%piv) : (IVEC) -> !llvm.ptr
  %x = func.call @ember_la_buffer(%asize) : (index) -> VEC
  %xp = func.call @ember_la_ptr(%x) : (VEC) -> !llvm.ptr
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    func.call @ember_la_identity(%x, %n, %lda) : (VEC, index, index) -> ()
    %info = func.call @ember_lapack_dgesv(%layout, %n64, %n64, %wp, %lda64, %pivp, %xp, %lda64)
        : (i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> i64
    func.call @ember_la_info(%info, %out, %b) : (i64, OUT, index) -> ()
    func.call @ember_la_store(%x, %lda, %n, %n, %out, %b, %c1, %all) : (VEC, index, index, index, OUT, index, index, i64) -> ()
  }
  return
}
""",
    "cholesky": """
func.func private @ember_lapack_cholesky_UPLO(%a: A3, %out: OUT) {
PROLOGUE
  %uplo = arith.constant UPLO_CHAR : i32
  %tri = arith.constant TRI : i64
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_dpotrf(%layout, %uplo, %n64, %wp, %lda64) : (i32, i32, i64, !llvm.ptr, i64) -> i64
    func.call @ember_la_info(%info, %out, %b) : (i64, OUT, index) -> ()
    func.call @ember_la_store(%w, %lda, %n, %n, %out, %b, %c1, %tri) : (VEC, index, index, index, OUT, index, index, i64) -> ()
  }
  return
}
""",
    "eigh": """
func.func private @ember_lapack_NAME_UPLO(%a: A3, %out: OUT) {
PROLOGUE
  %jobz = arith.constant JOBZ_CHAR : i32
  %uplo = arith.constant UPLO_CHAR : i32
  %query = arith.constant -1 : i64
  %ev = func.call @ember_la_buffer(%n) : (index) -> VEC
  %evp = func.call @ember_la_ptr(%ev) : (VEC) -> !llvm.ptr
  %q = func.call @ember_la_buffer(%c1) : (index) -> VEC
  %qp = func.call @ember_la_ptr(%q) : (VEC) -> !llvm.ptr
  %iq = func.call @ember_la_ibuffer(%c1) : (index) -> IVEC
  %iqp = func.call @ember_la_iptr(%iq) : (IVEC) -> !llvm.ptr
  %qinfo = func.call @ember_lapack_dsyevd(%layout, %jobz, %uplo, %n64, %wp, %lda64, %evp, %qp, %query, %iqp, %query)
      : (i32, i32, i32, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64) -> i64
  %lwork = func.call @ember_la_query(%q) : (VEC) -> i64
  %liwork = memref.load %iq[%c0] : IVEC
  %lwork_i = arith.index_cast %lwork : i64 to index
  %liwork_i = arith.index_cast %liwork : i64 to index
  %work = func.call @ember_la_buffer(%lwork_i) : (index) -> VEC
  %workp = func.call @ember_la_ptr(%work) : (VEC) -> !llvm.ptr
  %iwork = func.call @ember_la_ibuffer(%liwork_i) : (index) -> IVEC
  %iworkp = func.call @ember_la_iptr(%iwork) : (IVEC) -> !llvm.ptr
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_dsyevd(%layout, %jobz, %uplo, %n64, %wp, %lda64, %evp, %workp, %lwork, %iworkp, %liwork)
        : (i32, i32, i32, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64) -> i64
    func.call @ember_la_info(%info, %out, %b) : (i64, OUT, index) -> ()
    func.call @ember_la_store_vec(%ev, %n, %out, %b, %c1) : (VEC, index, OUT, index, index) -> ()
    VECTORS
  }
  return
}
""",
    "svd": """
func.func private @ember_lapack_svd_JOBZ(%a: A3, %out: OUT) {
PROLOGUE
  %jobz = arith.constant JOBZ_CHAR : i32
  %query = arith.constant -1 : i64
  %ucols = UCOLS
  %vtrows = VTROWS
  %ldvt = arith.maxsi %vtrows, %c1 : index
  %ldvt64 = arith.index_cast %ldvt : index to i64
  %usize = arith.muli %lda, %ucols : index
  %vtsize = arith.muli %ldvt, %n : index
  %c8 = arith.constant 8 : index
  %iwsize = arith.muli %k, %c8 : index
  %s = func.call @ember_la_buffer(%k) : (index) -> VEC
  %sp = func.call @ember_la_ptr(%s) : (VEC) -> !llvm.ptr
  %u = func.call @ember_la_buffer(%usize) : (index) -> VEC
  %up = func.call @ember_la_ptr(%u) : (VEC) -> !llvm.ptr
  %vt = func.call @ember_la_buffer(%vtsize) : (index) -> VEC
  %vtp = func.call @ember_la_ptr(%vt) : (VEC) -> !llvm.ptr
  %iwork = func.call @ember_la_ibuffer(%iwsize) : (index) -> IVEC
  %iworkp = func.call @ember_la_iptr(%iwork) : (IVEC) -> !llvm.ptr
  %q = func.call @ember_la_buffer(%c1) : (index) -> VEC
  %qp = func.call @ember_la_ptr(%q) : (VEC) -> !llvm.ptr
  %qinfo = func.call @ember_lapack_dgesdd(%layout, %jobz, %m64, %n64, %wp, %lda64, %sp, %up, %lda64, %vtp, %ldvt64, %qp, %query, %iworkp)
      : (i32, i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr) -> i64
  %lwork0 = func.call @ember_la_query(%q) : (VEC) -> i64
  %i0 = arith.constant 0 : i64
  %i1 = arith.constant 1 : i64
  %lw_zero = arith.cmpi eq, %lwork0, %i0 : i64
  %lwork = arith.select %lw_zero, %i1, %lwork0 : i64
  %lwork_i = arith.index_cast %lwork : i64 to index
  %work = func.call @ember_la_buffer(%lwork_i) : (index) -> VEC
  %workp = func.call @ember_la_ptr(%work) : (VEC) -> !llvm.ptr
  %empty = arith.cmpi eq, %k, %c0 : index
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_dgesdd(%layout, %jobz, %m64, %n64, %wp, %lda64, %sp, %up, %lda64, %vtp, %ldvt64, %workp, %lwork, %iworkp)
        : (i32, i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr) -> i64
    func.call @ember_la_info(%info, %out, %b) : (i64, OUT, index) -> ()
    func.call @ember_la_store_vec(%s, %k, %out, %b, %c1) : (VEC, index, OUT, index, index) -> ()
    FACTORS
  }
  return
}
""",
    "qr": """
func.func private @ember_lapack_qr_MODE(%a: A3, %out: OUT) {
PROLOGUE
  %query = arith.constant -1 : i64
  %i1 = arith.constant 1 : i64
  %mc = MC
  %mc64 = arith.index_cast %mc : index to i64
  %rrows = RROWS
  %tau = func.call @ember_la_buffer(%k) : (index) -> VEC
  %taup = func.call @ember_la_ptr(%tau) : (VEC) -> !llvm.ptr
  %qsize = arith.muli %lda, %mc : index
  %qm = func.call @ember_la_buffer(%qsize) : (index) -> VEC
  %qmp = func.call @ember_la_ptr(%qm) : (VEC) -> !llvm.ptr
  %q = func.call @ember_la_buffer(%c1) : (index) -> VEC
  %qp = func.call @ember_la_ptr(%q) : (VEC) -> !llvm.ptr
  %q1info = func.call @ember_lapack_dgeqrf(%layout, %m64, %n64, %wp, %lda64, %taup, %qp, %query)
      : (i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> i64
  %lq1 = func.call @ember_la_query(%q) : (VEC) -> i64
  %q2info = func.call @ember_lapack_dorgqr(%layout, %m64, %mc64, %k64, %qmp, %lda64, %taup, %qp, %query)
      : (i32, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> i64
  %lq2 = func.call @ember_la_query(%q) : (VEC) -> i64
  %floor = arith.maxsi %n64, %i1 : i64
  %lwork1 = arith.maxsi %floor, %lq1 : i64
  %lwork2 = arith.maxsi %floor, %lq2 : i64
  %lwork = arith.maxsi %lwork1, %lwork2 : i64
  %lwork_i = arith.index_cast %lwork : i64 to index
  %work = func.call @ember_la_buffer(%lwork_i) : (index) -> VEC
  %workp = func.call @ember_la_ptr(%work) : (VEC) -> !llvm.ptr
  %upper = arith.constant 2 : i64
  %copied = arith.minsi %mc, %n : index
  %copy = arith.muli %lda, %copied : index
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    %info1 = func.call @ember_lapack_dgeqrf(%layout, %m64, %n64, %wp, %lda64, %taup, %workp, %lwork1)
        : (i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> i64
    func.call @ember_la_store(%w, %lda, %rrows, %n, %out, %b, %RPART, %upper) : (VEC, index, index, index, OUT, index, index, i64) -> ()
    QFACTOR
  }
  return
}
""",
    "solve": """
func.func private @ember_lapack_solve(%a: A3, %rhs: A3, %out: OUT) {
PROLOGUE
  %nrhs = memref.dim %rhs, %c2 : A3
  %nrhs64 = arith.index_cast %nrhs : index to i64
  %piv = func.call @ember_la_ibuffer(%n) : (index) -> IVEC
  %pivp = func.call @ember_la_iptr(%piv) : (IVEC) -> !llvm.ptr
  %xsize = arith.muli %lda, %nrhs : index
  %x = func.call @ember_la_buffer(%xsize) : (index) -> VEC
  %xp = func.call @ember_la_ptr(%x) : (VEC) -> !llvm.ptr
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    func.call @ember_la_load(%rhs, %b, %x, %lda) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_dgesv(%layout, %n64, %nrhs64, %wp, %lda64, %pivp, %xp, %lda64)
        : (i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> i64
    func.call @ember_la_info(%info, %out, %b) : (i64, OUT, index) -> ()
    func.call @ember_la_store(%x, %lda, %n, %nrhs, %out, %b, %c1, %all) : (VEC, index, index, index, OUT, index, index, i64) -> ()
  }
  return
}
""",
    "lstsq": """
func.func private @ember_lapack_lstsq(%a: A3, %rhs: A3, %rcond: f64, %out: OUT) {
PROLOGUE
  %query = arith.constant -1 : i64
  %i0 = arith.constant 0 : i64
  %zero = arith.constant 0.0 : f64
  %nrhs = memref.dim %rhs, %c2 : A3
  %nrhs64 = arith.index_cast %nrhs : index to i64
  %mn = arith.maxsi %m, %n : index
  %ldb = arith.maxsi %mn, %c1 : index
  %ldb64 = arith.index_cast %ldb : index to i64
  %xsize = arith.muli %ldb, %nrhs : index
  %x = func.call @ember_la_buffer(%xsize) : (index) -> VEC
  %xp = func.call @ember_la_ptr(%x) : (VEC) -> !llvm.ptr
  %s = func.call @ember_la_buffer(%k) : (index) -> VEC
  %sp = func.call @ember_la_ptr(%s) : (VEC) -> !llvm.ptr
  %rank = func.call @ember_la_ibuffer(%c1) : (index) -> IVEC
  %rankp = func.call @ember_la_iptr(%rank) : (IVEC) -> !llvm.ptr
  %q = func.call @ember_la_buffer(%c1) : (index) -> VEC
  %qp = func.call @ember_la_ptr(%q) : (VEC) -> !llvm.ptr
  %iq = func.call @ember_la_ibuffer(%c1) : (index) -> IVEC
  %iqp = func.call @ember_la_iptr(%iq) : (IVEC) -> !llvm.ptr
  %qinfo = func.call @ember_lapack_dgelsd(%layout, %m64, %n64, %nrhs64, %wp, %lda64, %xp, %ldb64, %sp, %rcond, %rankp, %qp, %query, %iqp)
      : (i32, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i64
  %lwork = func.call @ember_la_query(%q) : (VEC) -> i64
  %liwork = memref.load %iq[%c0] : IVEC
  %lwork_i = arith.index_cast %lwork : i64 to index
  %liwork_i = arith.index_cast %liwork : i64 to index
  %work = func.call @ember_la_buffer(%lwork_i) : (index) -> VEC
  %workp = func.call @ember_la_ptr(%work) : (VEC) -> !llvm.ptr
  %iwork = func.call @ember_la_ibuffer(%liwork_i) : (index) -> IVEC
  %iworkp = func.call @ember_la_iptr(%iwork) : (IVEC) -> !llvm.ptr
  %excess = arith.subi %m, %n : index
  %tall = arith.cmpi sgt, %m, %n : index
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    func.call @ember_la_load(%rhs, %b, %x, %ldb) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_dgelsd(%layout, %m64, %n64, %nrhs64, %wp, %lda64, %xp, %ldb64, %sp, %rcond, %rankp, %workp, %lwork, %iworkp)
        : (i32, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i64
    func.call @ember_la_info(%info, %out, %b) : (i64, OUT, index) -> ()
    %r = memref.load %rank[%c0] : IVEC
    %rf = arith.sitofp %r : i64 to f64
    memref.store %rf, %out[%b, %c0, %c1] : OUT
    func.call @ember_la_store(%x, %ldb, %n, %nrhs, %out, %b, %c1, %all) : (VEC, index, index, index, OUT, index, index, i64) -> ()
    func.call @ember_la_store_vec(%s, %k, %out, %b, %c2) : (VEC, index, OUT, index, index) -> ()
    %full = arith.cmpi eq, %r, %n64 : i64
    %want = arith.andi %tall, %full : i1
    scf.for %j = %c0 to %nrhs step %c1 {
      %col = arith.muli %j, %ldb : index
      %first = arith.addi %col, %n : index
      %sum = scf.if %want -> (f64) {
        %acc = scf.for %i = %c0 to %excess step %c1 iter_args(%t = %zero) -> (f64) {
          %at = arith.addi %first, %i : index
          %v = memref.load %x[%at] : VEC
          %sq = arith.mulf %v, %v : f64
          %t2 = arith.addf %t, %sq : f64
          scf.yield %t2 : f64
        }
        scf.yield %acc : f64
      } else {
        scf.yield %zero : f64
      }
      memref.store %sum, %out[%b, %c3, %j] : OUT
    }
  }
  return
}
""",
}

_CHAR = {"L": ord("L"), "U": ord("U"), "V": ord("V"), "N": ord("N"), "A": ord("A"), "S": ord("S")}


def _routine_text(routine: str) -> str:
    """The helper of ``routine`` (``ops.LAPACK_ROUTINES``, ``solve`` or ``lstsq``)."""
    family, _, option = routine.partition("_")
    if family in ("eigh", "eigvalsh"):
        text = _HELPERS["eigh"].replace("NAME", family).replace("UPLO_CHAR", str(_CHAR[option]))
        text = text.replace("UPLO", option).replace("JOBZ_CHAR", str(_CHAR["V" if family == "eigh" else "N"]))
        vectors = (
            "func.call @ember_la_store(%w, %lda, %n, %n, %out, %b, %c2, %all)"
            " : (VEC, index, index, index, OUT, index, index, i64) -> ()"
        )
        return text.replace("VECTORS", vectors if family == "eigh" else "")
    if family == "cholesky":
        text = _HELPERS["cholesky"].replace("UPLO_CHAR", str(_CHAR[option]))
        return text.replace("UPLO", option).replace("TRI", "1" if option == "L" else "2")
    if family == "svd":
        text = _HELPERS["svd"].replace("JOBZ_CHAR", str(_CHAR[option])).replace("JOBZ", option)
        rows = {"A": ("%m", "%n"), "S": ("%k", "%k"), "N": ("%c0", "%c0")}[option]
        text = text.replace("UCOLS", f"arith.addi {rows[0]}, %c0 : index")
        text = text.replace("VTROWS", f"arith.addi {rows[1]}, %c0 : index")
        factors = ""
        if option != "N":
            factors = (
                "func.call @ember_la_store(%u, %lda, %m, %ucols, %out, %b, %c2, %all)"
                " : (VEC, index, index, index, OUT, index, index, i64) -> ()\n"
                "    func.call @ember_la_store(%vt, %ldvt, %vtrows, %n, %out, %b, %c3, %all)"
                " : (VEC, index, index, index, OUT, index, index, i64) -> ()"
            )
        if option == "A":  # LAPACK leaves the factors of an empty matrix unset: NumPy's identities
            factors = (
                "scf.if %empty {\n"
                "      func.call @ember_la_identity(%u, %m, %lda) : (VEC, index, index) -> ()\n"
                "      func.call @ember_la_identity(%vt, %n, %ldvt) : (VEC, index, index) -> ()\n"
                "    }\n    " + factors
            )
        return text.replace("FACTORS", factors)
    if family == "qr":
        mc = {"reduced": "%k", "complete": "%mcc", "r": "%k"}[option]
        text = _HELPERS["qr"].replace("MODE", option)
        if option == "complete":  # NumPy: q has m columns when m > n, else min(m, n)
            text = text.replace(
                "%mc = MC",
                "%tallq = arith.cmpi sgt, %m, %n : index\n  %mcc = arith.select %tallq, %m, %k : index\n  %mc = MC",
            )
        text = text.replace("MC", f"arith.addi {mc}, %c0 : index")
        text = text.replace("RROWS", f"arith.addi {'%mc' if option == 'complete' else '%k'}, %c0 : index")
        text = text.replace("%RPART", "%c0" if option == "r" else "%c1")
        qfactor = ""
        if option != "r":
            qfactor = (
                "linalg.copy ins(%w : VEC) outs(%qm : VEC) {COPYSLICE}\n"
                "    %info2 = func.call @ember_lapack_dorgqr(%layout, %m64, %mc64, %k64, %qmp, %lda64, %taup, %workp, %lwork2)"
                " : (i32, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> i64\n"
                "    func.call @ember_la_store(%qm, %lda, %m, %mc, %out, %b, %c0, %all)"
                " : (VEC, index, index, index, OUT, index, index, i64) -> ()"
            )
            # the first min(mc, n) columns of the factored A start Q (orgqr reads the reflectors)
            qfactor = qfactor.replace(
                "linalg.copy ins(%w : VEC) outs(%qm : VEC) {COPYSLICE}",
                "scf.for %i = %c0 to %copy step %c1 {\n"
                "      %v = memref.load %w[%i] : VEC\n"
                "      memref.store %v, %qm[%i] : VEC\n"
                "    }",
            )
        return text.replace("QFACTOR", qfactor)
    return _HELPERS[routine]


def helper_text(routine: str) -> str:
    """The MLIR text of ``routine``'s helper with the shared functions and declarations."""
    text = _DECLARATIONS + _COMMON + _routine_text(routine).replace("PROLOGUE", _PROLOGUE)
    return text.replace("IVEC", IVEC).replace("VEC", VEC).replace("A3", A3).replace("OUT", OUT)


def helper_name(routine: str) -> str:
    return f"ember_lapack_{routine}"


def _add_helpers(module_op, routine: str) -> None:
    """Add ``routine``'s helper (and the shared functions) not already in the module."""
    block = module_op.regions[0].blocks[0]
    present = {symbol_name(op.operation) for op in block.operations if op.operation.name == "func.func"}
    if helper_name(routine) in present:
        return
    parsed = ir.Module.parse(helper_text(routine))
    first = block.operations[0]
    for op in list(parsed.body.operations):
        if symbol_name(op.operation) not in present:
            op.operation.move_before(first)


def _module_of(op):
    parent = op.parent
    while parent.name != "builtin.module":
        parent = parent.parent
    return parent


def _as_buffer(value: ir.Value) -> ir.Value:
    """A read-only view of a (batch, m, n) f64 tensor as a strided buffer."""
    matrix = _unit_batch_of(value)
    if matrix is not None:
        return _matrix_as_batch(matrix)
    dynamic = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()] * 3, ir.F64Type.get())
    if value.type != dynamic:
        value = tensor.CastOp(dynamic, value).result
    return bufferization.to_buffer(ir.Type.parse(A3), value, read_only=True)


def _unit_batch_of(value: ir.Value) -> ir.Value | None:
    """The (m, n) tensor a (1, m, n) operand is a ``tensor.expand_shape`` of, if it is one.

    Why: left a tensor op, that expand_shape is folded into its producer by
    ``linalg-fuse-elementwise-ops`` (reshape fusion by expansion), which turns a
    matmul (``np.linalg.cholesky(X.T @ X)``) into a 4-loop generic that ``ember-matmul-to-blas``
    no longer sees: 6 s of loops instead of 70 ms of BLAS. The unit batch dim is added to
    the buffer instead, after bufferization has placed the matrix."""
    owner = operation_of(value.owner)
    if owner is None or owner.name != "tensor.expand_shape":
        return None
    source = owner.operands[0]
    shape = ir.RankedTensorType(value.type).shape
    if ir.RankedTensorType(source.type).rank != 2 or len(shape) != 3 or shape[0] != 1:
        return None
    groups = [
        [ir.IntegerAttr(i).value for i in ir.ArrayAttr(g)] for g in ir.ArrayAttr(owner.attributes["reassociation"])
    ]
    return source if groups == [[0, 1], [2]] else None


def _matrix_as_batch(matrix: ir.Value) -> ir.Value:
    dynamic = ir.ShapedType.get_dynamic_size()
    if ir.RankedTensorType(matrix.type).shape != [dynamic, dynamic]:
        matrix = tensor.CastOp(ir.RankedTensorType.get([dynamic, dynamic], ir.F64Type.get()), matrix).result
    buffer = bufferization.to_buffer(ir.Type.parse(A2), matrix, read_only=True)
    m, n = (memref.dim(buffer, arith.constant(ir.IndexType.get(), axis)) for axis in (0, 1))
    batch_type = ir.Type.parse("memref<1x?x?xf64, strided<[?, ?, ?], offset: ?>>")
    batch = memref.expand_shape(batch_type, buffer, [[0, 1], [2]], [m, n], [1, dynamic, dynamic])
    return memref.cast(ir.Type.parse(A3), batch)


def _lower_lapack(op, result, attrs):
    name = op.name.removeprefix("ember.")
    routine = {"lapack": None, "lapack_solve": "solve", "lapack_lstsq": "lstsq"}[name] or attrs["routine"]
    _add_helpers(_module_of(op), routine)
    operands = ember.tensor_operands(op)
    args = [_as_buffer(v) for v in operands[:2]]
    if name == "lapack_lstsq":
        args.append(tensor.extract(operands[2], []))
    static = result.to_mlir()
    sizes = list(ember.size_operands(op))
    buffer_type = ir.MemRefType.get(ir.RankedTensorType(static).shape, ir.F64Type.get())
    out = memref.alloc(buffer_type, sizes, [])
    out_dynamic = memref.cast(ir.Type.parse(OUT), out)
    func.CallOp([], ir.FlatSymbolRefAttr.get(helper_name(routine)), [*args, out_dynamic])
    return bufferization.to_tensor(static, out, restrict=True, writable=True)


LOWERINGS: dict = {"lapack": _lower_lapack, "lapack_solve": _lower_lapack, "lapack_lstsq": _lower_lapack}
