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

Complex stacks (``complex<f64>``, LAPACK's interleaved ``(re, im)`` layout) call the z
routines NumPy calls for them (``zgetrf zgesv zpotrf zheevd zgesdd zgeqrf zungqr
zgelsd``) through the same helpers, specialized per element type (``_P`` names ending
``_d``/``_z``): real outputs (eigenvalues, singular values, ``log|det|``, residuals) are
computed in f64 buffers and stored into the complex packed result with a zero imaginary
part, and the routines' real ``rwork`` is sized by LAPACK's query or, for ``zgesdd``,
by its documented minimum.

So for the same input the results are NumPy's, bit for bit where the libm calls
agree. The packed result layout (``ops.lapack_parts``) is read back by the frontend
with ``slice`` and ``reshape``; part 0 holds ``info`` where a routine can fail.
"""

from __future__ import annotations

import contextvars
import re

from compiler.dialects import ember
from compiler.dialects.ops import LAPACK_ROUTINES
from compiler.mlir import (
    add_functions,
    arith,
    bufferization,
    declarations,
    func,
    ir,
    memref,
    operation_of,
    public_definitions,
    tensor,
)

# Element types: "d" for the real routines (float64), "z" for the complex ones (complex128;
# MLIR's complex<f64> is LAPACK's interleaved (re, im) pair). Real vectors (eigenvalues,
# singular values, rwork) are f64 buffers in both.
ELEMENT = {"d": "f64", "z": "complex<f64>"}
PRECISION = {"f64": "d", "complex<f64>": "z"}


def _types(p: str) -> dict[str, str]:
    t = ELEMENT[p]
    return {
        "A3": f"memref<?x?x?x{t}, strided<[?, ?, ?], offset: ?>>",
        "A2": f"memref<?x?x{t}, strided<[?, ?], offset: ?>>",
        "OUT": f"memref<?x?x?x{t}>",
        "RVEC": "memref<?xf64>",
        "IVEC": "memref<?xi64>",
        "VEC": f"memref<?x{t}>",
    }


# LAPACKE ``_work`` signatures (ILP64: lapack_int is i64; a char argument is passed as i32).
# The complex eigen, SVD and least-squares routines take a real ``rwork`` (and its size).


def _signatures(p: str) -> dict[str, str]:
    z = p == "z"
    return {
        "getrf": "i32, i64, i64, !llvm.ptr, i64, !llvm.ptr",
        "gesv": "i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64",
        "potrf": "i32, i32, i64, !llvm.ptr, i64",
        "geqrf": "i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64",
        "ortho": "i32, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64",
        "eigen": "i32, i32, i32, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, "
        + ("!llvm.ptr, i64, " if z else "")
        + "!llvm.ptr, i64",
        "gesdd": "i32, i32, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, "
        + ("!llvm.ptr, " if z else "")
        + "!llvm.ptr",
        "gelsd": "i32, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f64, !llvm.ptr, !llvm.ptr, i64, "
        + ("!llvm.ptr, " if z else "")
        + "!llvm.ptr",
    }


def _routine_names(p: str) -> dict[str, str]:
    """The LAPACK name of each role: NumPy's symmetric/hermitian and orthogonal/unitary pairs."""
    names = {r: p + r for r in ("getrf", "gesv", "potrf", "geqrf", "gesdd", "gelsd")}
    names.update(eigen="dsyevd" if p == "d" else "zheevd", ortho="dorgqr" if p == "d" else "zungqr")
    return names


def _declarations(p: str) -> str:
    sig, names = _signatures(p), _routine_names(p)
    return "".join(f"func.func private @ember_lapack_{names[r]}({sig[r]}) -> i64\n" for r in sig)


# How a real number enters and leaves the element type, and |x|**2 (lstsq's residuals).
_SCALARS = {
    "d": """
func.func private @ember_la_from_real_d(%x: f64) -> f64 {
  return %x : f64
}
func.func private @ember_la_to_real_d(%x: f64) -> f64 {
  return %x : f64
}
func.func private @ember_la_abs2_d(%x: f64) -> f64 {
  %s = arith.mulf %x, %x : f64
  return %s : f64
}
""",
    "z": """
func.func private @ember_la_from_real_z(%x: f64) -> complex<f64> {
  %zero = arith.constant 0.0 : f64
  %c = complex.create %x, %zero : complex<f64>
  return %c : complex<f64>
}
func.func private @ember_la_to_real_z(%x: complex<f64>) -> f64 {
  %r = complex.re %x : complex<f64>
  return %r : f64
}
func.func private @ember_la_abs2_z(%x: complex<f64>) -> f64 {
  %re = complex.re %x : complex<f64>
  %im = complex.im %x : complex<f64>
  %rr = arith.mulf %re, %re : f64
  %ii = arith.mulf %im, %im : f64
  %s = arith.addf %rr, %ii : f64
  return %s : f64
}
""",
}

# The product of the diagonal of an LU factorization, as slogdet's (sign, log|det|),
# in NumPy's order: a real sign flips at a negative pivot; a complex one is multiplied
# by u/|u| (|u| by libm's hypot, NumPy's npy_cabs; NumPy's plain complex product).
_DIAGONAL = {
    "d": """
func.func private @ember_la_diagonal_d(%w: VEC, %n: index, %ld: index, %sign0: f64) -> (f64, f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %sl:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %sign0, %l = %zero) -> (f64, f64) {
    %row = arith.muli %i, %ld : index
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
  return %sl#0, %sl#1 : f64, f64
}
""",
    "z": """
func.func private @hypot(f64, f64) -> f64
func.func private @ember_la_diagonal_z(%w: VEC, %n: index, %ld: index, %sign0: f64) -> (complex<f64>, f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %start = complex.create %sign0, %zero : complex<f64>
  %sl:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %start, %l = %zero) -> (complex<f64>, f64) {
    %row = arith.muli %i, %ld : index
    %at = arith.addi %row, %i : index
    %e = memref.load %w[%at] : VEC
    %er = complex.re %e : complex<f64>
    %ei = complex.im %e : complex<f64>
    %abs = func.call @hypot(%er, %ei) : (f64, f64) -> f64
    %ur = arith.divf %er, %abs : f64
    %ui = arith.divf %ei, %abs : f64
    %sr = complex.re %s : complex<f64>
    %si = complex.im %s : complex<f64>
    %rr = arith.mulf %sr, %ur : f64
    %ii = arith.mulf %si, %ui : f64
    %ri = arith.mulf %sr, %ui : f64
    %ir = arith.mulf %si, %ur : f64
    %pr = arith.subf %rr, %ii : f64
    %pi = arith.addf %ri, %ir : f64
    %s2 = complex.create %pr, %pi : complex<f64>
    %lg = math.log %abs : f64
    %l2 = arith.addf %l, %lg : f64
    scf.yield %s2, %l2 : complex<f64>, f64
  }
  return %sl#0, %sl#1 : complex<f64>, f64
}
""",
}

# Buffers, copies in and out of column-major workspaces. ``_P`` names are per element type.
_UNTYPED = """
func.func private @ember_la_pivot_sign(%piv: IVEC, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i0 = arith.constant 0 : i64
  %i1 = arith.constant 1 : i64
  %i2 = arith.constant 2 : i64
  %one = arith.constant 1.0 : f64
  %minus = arith.constant -1.0 : f64
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
  %sign = arith.select %odd, %minus, %one : f64
  return %sign : f64
}
"""

# A buffer of at least one zeroed element and its address, per element type (``_i``: i64).
_BUFFERS = """
func.func private @ember_la_ptr_P(%v: VEC) -> !llvm.ptr {
  %a = memref.extract_aligned_pointer_as_index %v : VEC -> index
  %i = arith.index_cast %a : index to i64
  %p = llvm.inttoptr %i : i64 to !llvm.ptr
  return %p : !llvm.ptr
}
func.func private @ember_la_buffer_P(%n: index) -> VEC {
  %c1 = arith.constant 1 : index
  %size = arith.maxsi %n, %c1 : index
  ZERO
  %c0 = arith.constant 0 : index
  %v = memref.alloc(%size) : VEC
  scf.for %i = %c0 to %size step %c1 {
    memref.store %zero, %v[%i] : VEC
  }
  return %v : VEC
}
"""
_FLOAT_ZERO = "%zf = arith.constant 0.0 : f64\n  %zero = func.call @ember_la_from_real_P(%zf) : (f64) -> ELEM"
_INT_BUFFERS = _BUFFERS.replace("ZERO", "%zero = arith.constant 0 : i64").replace("_P", "_i").replace("VEC", "IVEC")

# The two block loops of a 32 x 32 blocked walk of a (%rows, %cols) matrix: the blocks'
# rows [%ib, %ie) and columns [%jb, %je) for the loops between BLOCKS_BEGIN and BLOCKS_END.
_BLOCKS_BEGIN = """  scf.for %ib = %c0 to %rows step %c32 {
    %ie0 = arith.addi %ib, %c32 : index
    %ie = arith.minsi %ie0, %rows : index
    scf.for %jb = %c0 to %cols step %c32 {
      %je0 = arith.addi %jb, %c32 : index
      %je = arith.minsi %je0, %cols : index"""
_BLOCKS_END = """    }
  }"""

_TYPED = (
    _BUFFERS.replace("ZERO", _FLOAT_ZERO)
    + """
func.func private @ember_la_load_P(%a: A3, %b: index, %w: VEC, %ld: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %rows = memref.dim %a, %c1 : A3
  %cols = memref.dim %a, %c2 : A3
  // in 32 x 32 blocks: a row-major operand's lines stay cached while its columns are read
BLOCKS_BEGIN
      scf.for %j = %jb to %je step %c1 {
        %col = arith.muli %j, %ld : index
        scf.for %i = %ib to %ie step %c1 {
          %x = memref.load %a[%b, %i, %j] : A3
          %k = arith.addi %col, %i : index
          memref.store %x, %w[%k] : VEC
        }
      }
BLOCKS_END
  return
}
func.func private @ember_la_put_P(%x: f64, %out: OUT, %b: index, %part: index, %i: index) {
  %v = func.call @ember_la_from_real_P(%x) : (f64) -> ELEM
  memref.store %v, %out[%b, %part, %i] : OUT
  return
}
func.func private @ember_la_store_P(%w: VEC, %ld: index, %rows: index, %cols: index, %out: OUT, %b: index, %part: index, %tri: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t0 = arith.constant 0 : i64
  %t1 = arith.constant 1 : i64
  %t2 = arith.constant 2 : i64
  %zf = arith.constant 0.0 : f64
  %zero = func.call @ember_la_from_real_P(%zf) : (f64) -> ELEM
  %all = arith.cmpi eq, %tri, %t0 : i64
  %lower = arith.cmpi eq, %tri, %t1 : i64
  %upper = arith.cmpi eq, %tri, %t2 : i64
  %c32 = arith.constant 32 : index
  // in 32 x 32 blocks: a pass per row would read the whole column-major buffer once per
  // row, one element per cache line (solve's 100000 right-hand sides: 16 passes of 12.8 MB)
BLOCKS_BEGIN
      scf.for %i = %ib to %ie step %c1 {
        %row = arith.muli %i, %cols : index
        scf.for %j = %jb to %je step %c1 {
          %col = arith.muli %j, %ld : index
          %k = arith.addi %col, %i : index
          %x = memref.load %w[%k] : VEC
          %le = arith.cmpi ule, %j, %i : index
          %ge = arith.cmpi uge, %j, %i : index
          %in_lower = arith.andi %lower, %le : i1
          %in_upper = arith.andi %upper, %ge : i1
          %k1 = arith.ori %all, %in_lower : i1
          %keep = arith.ori %k1, %in_upper : i1
          %v = arith.select %keep, %x, %zero : ELEM
          %at = arith.addi %row, %j : index
          memref.store %v, %out[%b, %part, %at] : OUT
        }
      }
BLOCKS_END
  return
}
func.func private @ember_la_store_vec_P(%w: RVEC, %len: index, %out: OUT, %b: index, %part: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %len step %c1 {
    %x = memref.load %w[%i] : RVEC
    func.call @ember_la_put_P(%x, %out, %b, %part, %i) : (f64, OUT, index, index, index) -> ()
  }
  return
}
func.func private @ember_la_info_P(%info: i64, %out: OUT, %b: index) {
  %c0 = arith.constant 0 : index
  %x = arith.sitofp %info : i64 to f64
  func.call @ember_la_put_P(%x, %out, %b, %c0, %c0) : (f64, OUT, index, index, index) -> ()
  return
}
func.func private @ember_la_identity_P(%w: VEC, %n: index, %ld: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %of = arith.constant 1.0 : f64
  %zf = arith.constant 0.0 : f64
  %one = func.call @ember_la_from_real_P(%of) : (f64) -> ELEM
  %zero = func.call @ember_la_from_real_P(%zf) : (f64) -> ELEM
  scf.for %j = %c0 to %n step %c1 {
    %col = arith.muli %j, %ld : index
    scf.for %i = %c0 to %n step %c1 {
      %k = arith.addi %col, %i : index
      %diag = arith.cmpi eq, %i, %j : index
      %v = arith.select %diag, %one, %zero : ELEM
      memref.store %v, %w[%k] : VEC
    }
  }
  return
}
func.func private @ember_la_zero_P(%out: OUT) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zf = arith.constant 0.0 : f64
  %zero = func.call @ember_la_from_real_P(%zf) : (f64) -> ELEM
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
func.func private @ember_la_query_P(%w: VEC) -> i64 {
  %c0 = arith.constant 0 : index
  %x = memref.load %w[%c0] : VEC
  %r = func.call @ember_la_to_real_P(%x) : (ELEM) -> f64
  %n = arith.fptosi %r : f64 to i64
  return %n : i64
}
""".replace("BLOCKS_BEGIN", _BLOCKS_BEGIN).replace("BLOCKS_END", _BLOCKS_END)
)

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
  %w = func.call @ember_la_buffer_P(%asize) : (index) -> VEC
  %wp = func.call @ember_la_ptr_P(%w) : (VEC) -> !llvm.ptr
  func.call @ember_la_zero_P(%out) : (OUT) -> ()
"""

# A one-element real buffer for the complex routines' rwork size query.
_RWORK_QUERY = """
  %rq = func.call @ember_la_buffer_d(%c1) : (index) -> RVEC
  %rqp = func.call @ember_la_ptr_d(%rq) : (RVEC) -> !llvm.ptr"""

_HELPERS = {
    "slogdet": """
func.func private @ember_lapack_slogdetSUFFIX(%a: A3, %out: OUT) {
PROLOGUE
  %piv = func.call @ember_la_buffer_i(%n) : (index) -> IVEC
  %pivp = func.call @ember_la_ptr_i(%piv) : (IVEC) -> !llvm.ptr
  %zero = arith.constant 0.0 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %zs = func.call @ember_la_from_real_P(%zero) : (f64) -> ELEM
  %i0 = arith.constant 0 : i64
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load_P(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_GETRF(%layout, %m64, %n64, %wp, %lda64, %pivp) : (SIG_GETRF) -> i64
    %ok = arith.cmpi eq, %info, %i0 : i64
    %r:2 = scf.if %ok -> (ELEM, f64) {
      %sign0 = func.call @ember_la_pivot_sign(%piv, %n) : (IVEC, index) -> f64
      %sl:2 = func.call @ember_la_diagonal_P(%w, %n, %lda, %sign0) : (VEC, index, index, f64) -> (ELEM, f64)
      scf.yield %sl#0, %sl#1 : ELEM, f64
    } else {
      scf.yield %zs, %ninf : ELEM, f64
    }
    memref.store %r#0, %out[%b, %c0, %c0] : OUT
    func.call @ember_la_put_P(%r#1, %out, %b, %c0, %c1) : (f64, OUT, index, index, index) -> ()
  }
  return
}
""",
    "inv": """
func.func private @ember_lapack_invSUFFIX(%a: A3, %out: OUT) {
PROLOGUE
  %piv = func.call @ember_la_buffer_i(%n) : (index) -> IVEC
  %pivp = func.call @ember_la_ptr_i(%piv) : (IVEC) -> !llvm.ptr
  %x = func.call @ember_la_buffer_P(%asize) : (index) -> VEC
  %xp = func.call @ember_la_ptr_P(%x) : (VEC) -> !llvm.ptr
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load_P(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    func.call @ember_la_identity_P(%x, %n, %lda) : (VEC, index, index) -> ()
    %info = func.call @ember_lapack_GESV(%layout, %n64, %n64, %wp, %lda64, %pivp, %xp, %lda64) : (SIG_GESV) -> i64
    func.call @ember_la_info_P(%info, %out, %b) : (i64, OUT, index) -> ()
    func.call @ember_la_store_P(%x, %lda, %n, %n, %out, %b, %c1, %all) : (VEC, index, index, index, OUT, index, index, i64) -> ()
  }
  return
}
""",
    "cholesky": """
func.func private @ember_lapack_cholesky_UPLOSUFFIX(%a: A3, %out: OUT) {
PROLOGUE
  %uplo = arith.constant UPLO_CHAR : i32
  %tri = arith.constant TRI : i64
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load_P(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_POTRF(%layout, %uplo, %n64, %wp, %lda64) : (SIG_POTRF) -> i64
    func.call @ember_la_info_P(%info, %out, %b) : (i64, OUT, index) -> ()
    func.call @ember_la_store_P(%w, %lda, %n, %n, %out, %b, %c1, %tri) : (VEC, index, index, index, OUT, index, index, i64) -> ()
  }
  return
}
""",
    "eigh": """
func.func private @ember_lapack_NAME_UPLOSUFFIX(%a: A3, %out: OUT) {
PROLOGUE
  %jobz = arith.constant JOBZ_CHAR : i32
  %uplo = arith.constant UPLO_CHAR : i32
  %query = arith.constant -1 : i64
  %ev = func.call @ember_la_buffer_d(%n) : (index) -> RVEC
  %evp = func.call @ember_la_ptr_d(%ev) : (RVEC) -> !llvm.ptr
  %q = func.call @ember_la_buffer_P(%c1) : (index) -> VEC
  %qp = func.call @ember_la_ptr_P(%q) : (VEC) -> !llvm.ptr
  %iq = func.call @ember_la_buffer_i(%c1) : (index) -> IVEC
  %iqp = func.call @ember_la_ptr_i(%iq) : (IVEC) -> !llvm.ptr RWORK_QUERY
  %qinfo = func.call @ember_lapack_EIGEN(%layout, %jobz, %uplo, %n64, %wp, %lda64, %evp, %qp, %query, RQ_ARGS%iqp, %query)
      : (SIG_EIGEN) -> i64
  %lwork = func.call @ember_la_query_P(%q) : (VEC) -> i64
  %liwork = memref.load %iq[%c0] : IVEC
  %lwork_i = arith.index_cast %lwork : i64 to index
  %liwork_i = arith.index_cast %liwork : i64 to index
  %work = func.call @ember_la_buffer_P(%lwork_i) : (index) -> VEC
  %workp = func.call @ember_la_ptr_P(%work) : (VEC) -> !llvm.ptr
  %iwork = func.call @ember_la_buffer_i(%liwork_i) : (index) -> IVEC
  %iworkp = func.call @ember_la_ptr_i(%iwork) : (IVEC) -> !llvm.ptr RWORK_QUERIED
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load_P(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_EIGEN(%layout, %jobz, %uplo, %n64, %wp, %lda64, %evp, %workp, %lwork, RW_ARGS%iworkp, %liwork)
        : (SIG_EIGEN) -> i64
    func.call @ember_la_info_P(%info, %out, %b) : (i64, OUT, index) -> ()
    func.call @ember_la_store_vec_P(%ev, %n, %out, %b, %c1) : (RVEC, index, OUT, index, index) -> ()
    VECTORS
  }
  return
}
""",
    "svd": """
func.func private @ember_lapack_svd_JOBZSUFFIX(%a: A3, %out: OUT) {
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
  %s = func.call @ember_la_buffer_d(%k) : (index) -> RVEC
  %sp = func.call @ember_la_ptr_d(%s) : (RVEC) -> !llvm.ptr
  %u = func.call @ember_la_buffer_P(%usize) : (index) -> VEC
  %up = func.call @ember_la_ptr_P(%u) : (VEC) -> !llvm.ptr
  %vt = func.call @ember_la_buffer_P(%vtsize) : (index) -> VEC
  %vtp = func.call @ember_la_ptr_P(%vt) : (VEC) -> !llvm.ptr
  %iwork = func.call @ember_la_buffer_i(%iwsize) : (index) -> IVEC
  %iworkp = func.call @ember_la_ptr_i(%iwork) : (IVEC) -> !llvm.ptr RWORK_SIZED
  %q = func.call @ember_la_buffer_P(%c1) : (index) -> VEC
  %qp = func.call @ember_la_ptr_P(%q) : (VEC) -> !llvm.ptr
  %qinfo = func.call @ember_lapack_GESDD(%layout, %jobz, %m64, %n64, %wp, %lda64, %sp, %up, %lda64, %vtp, %ldvt64, %qp, %query, RW_ARGS%iworkp)
      : (SIG_GESDD) -> i64
  %lwork0 = func.call @ember_la_query_P(%q) : (VEC) -> i64
  %i0 = arith.constant 0 : i64
  %i1 = arith.constant 1 : i64
  %lw_zero = arith.cmpi eq, %lwork0, %i0 : i64
  %lwork = arith.select %lw_zero, %i1, %lwork0 : i64
  %lwork_i = arith.index_cast %lwork : i64 to index
  %work = func.call @ember_la_buffer_P(%lwork_i) : (index) -> VEC
  %workp = func.call @ember_la_ptr_P(%work) : (VEC) -> !llvm.ptr
  %empty = arith.cmpi eq, %k, %c0 : index
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load_P(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_GESDD(%layout, %jobz, %m64, %n64, %wp, %lda64, %sp, %up, %lda64, %vtp, %ldvt64, %workp, %lwork, RW_ARGS%iworkp)
        : (SIG_GESDD) -> i64
    func.call @ember_la_info_P(%info, %out, %b) : (i64, OUT, index) -> ()
    func.call @ember_la_store_vec_P(%s, %k, %out, %b, %c1) : (RVEC, index, OUT, index, index) -> ()
    FACTORS
  }
  return
}
""",
    "qr": """
func.func private @ember_lapack_qr_MODESUFFIX(%a: A3, %out: OUT) {
PROLOGUE
  %query = arith.constant -1 : i64
  %i1 = arith.constant 1 : i64
  MCOLS
  %mc64 = arith.index_cast %mc : index to i64
  %rrows = RROWS
  %tau = func.call @ember_la_buffer_P(%k) : (index) -> VEC
  %taup = func.call @ember_la_ptr_P(%tau) : (VEC) -> !llvm.ptr
  %qsize = arith.muli %lda, %mc : index
  %qm = func.call @ember_la_buffer_P(%qsize) : (index) -> VEC
  %qmp = func.call @ember_la_ptr_P(%qm) : (VEC) -> !llvm.ptr
  %q = func.call @ember_la_buffer_P(%c1) : (index) -> VEC
  %qp = func.call @ember_la_ptr_P(%q) : (VEC) -> !llvm.ptr
  %q1info = func.call @ember_lapack_GEQRF(%layout, %m64, %n64, %wp, %lda64, %taup, %qp, %query) : (SIG_GEQRF) -> i64
  %lq1 = func.call @ember_la_query_P(%q) : (VEC) -> i64
  %q2info = func.call @ember_lapack_ORTHO(%layout, %m64, %mc64, %k64, %qmp, %lda64, %taup, %qp, %query) : (SIG_ORTHO) -> i64
  %lq2 = func.call @ember_la_query_P(%q) : (VEC) -> i64
  %floor = arith.maxsi %n64, %i1 : i64
  %lwork1 = arith.maxsi %floor, %lq1 : i64
  %lwork2 = arith.maxsi %floor, %lq2 : i64
  %lwork = arith.maxsi %lwork1, %lwork2 : i64
  %lwork_i = arith.index_cast %lwork : i64 to index
  %work = func.call @ember_la_buffer_P(%lwork_i) : (index) -> VEC
  %workp = func.call @ember_la_ptr_P(%work) : (VEC) -> !llvm.ptr
  %upper = arith.constant 2 : i64
  %copied = arith.minsi %mc, %n : index
  %copy = arith.muli %lda, %copied : index
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load_P(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    %info1 = func.call @ember_lapack_GEQRF(%layout, %m64, %n64, %wp, %lda64, %taup, %workp, %lwork1) : (SIG_GEQRF) -> i64
    func.call @ember_la_store_P(%w, %lda, %rrows, %n, %out, %b, %RPART, %upper) : (VEC, index, index, index, OUT, index, index, i64) -> ()
    QFACTOR
  }
  return
}
""",
    "solve": """
func.func private @ember_lapack_solveSUFFIX(%a: A3, %rhs: A3, %out: OUT) {
PROLOGUE
  %nrhs = memref.dim %rhs, %c2 : A3
  %nrhs64 = arith.index_cast %nrhs : index to i64
  %piv = func.call @ember_la_buffer_i(%n) : (index) -> IVEC
  %pivp = func.call @ember_la_ptr_i(%piv) : (IVEC) -> !llvm.ptr
  %xsize = arith.muli %lda, %nrhs : index
  %x = func.call @ember_la_buffer_P(%xsize) : (index) -> VEC
  %xp = func.call @ember_la_ptr_P(%x) : (VEC) -> !llvm.ptr
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load_P(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    func.call @ember_la_load_P(%rhs, %b, %x, %lda) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_GESV(%layout, %n64, %nrhs64, %wp, %lda64, %pivp, %xp, %lda64) : (SIG_GESV) -> i64
    func.call @ember_la_info_P(%info, %out, %b) : (i64, OUT, index) -> ()
    func.call @ember_la_store_P(%x, %lda, %n, %nrhs, %out, %b, %c1, %all) : (VEC, index, index, index, OUT, index, index, i64) -> ()
  }
  return
}
""",
    "lstsq": """
func.func private @ember_lapack_lstsqSUFFIX(%a: A3, %rhs: A3, %rcond: f64, %out: OUT) {
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
  %x = func.call @ember_la_buffer_P(%xsize) : (index) -> VEC
  %xp = func.call @ember_la_ptr_P(%x) : (VEC) -> !llvm.ptr
  %s = func.call @ember_la_buffer_d(%k) : (index) -> RVEC
  %sp = func.call @ember_la_ptr_d(%s) : (RVEC) -> !llvm.ptr
  %rank = func.call @ember_la_buffer_i(%c1) : (index) -> IVEC
  %rankp = func.call @ember_la_ptr_i(%rank) : (IVEC) -> !llvm.ptr
  %q = func.call @ember_la_buffer_P(%c1) : (index) -> VEC
  %qp = func.call @ember_la_ptr_P(%q) : (VEC) -> !llvm.ptr
  %iq = func.call @ember_la_buffer_i(%c1) : (index) -> IVEC
  %iqp = func.call @ember_la_ptr_i(%iq) : (IVEC) -> !llvm.ptr RWORK_QUERY
  %qinfo = func.call @ember_lapack_GELSD(%layout, %m64, %n64, %nrhs64, %wp, %lda64, %xp, %ldb64, %sp, %rcond, %rankp, %qp, %query, RQ_ARGS%iqp)
      : (SIG_GELSD) -> i64
  %lwork = func.call @ember_la_query_P(%q) : (VEC) -> i64
  %liwork = memref.load %iq[%c0] : IVEC
  %lwork_i = arith.index_cast %lwork : i64 to index
  %liwork_i = arith.index_cast %liwork : i64 to index
  %work = func.call @ember_la_buffer_P(%lwork_i) : (index) -> VEC
  %workp = func.call @ember_la_ptr_P(%work) : (VEC) -> !llvm.ptr
  %iwork = func.call @ember_la_buffer_i(%liwork_i) : (index) -> IVEC
  %iworkp = func.call @ember_la_ptr_i(%iwork) : (IVEC) -> !llvm.ptr RWORK_QUERIED
  %excess = arith.subi %m, %n : index
  %tall = arith.cmpi sgt, %m, %n : index
  scf.for %b = %c0 to %batch step %c1 {
    func.call @ember_la_load_P(%a, %b, %w, %lda) : (A3, index, VEC, index) -> ()
    func.call @ember_la_load_P(%rhs, %b, %x, %ldb) : (A3, index, VEC, index) -> ()
    %info = func.call @ember_lapack_GELSD(%layout, %m64, %n64, %nrhs64, %wp, %lda64, %xp, %ldb64, %sp, %rcond, %rankp, %workp, %lwork, RW_ARGS%iworkp)
        : (SIG_GELSD) -> i64
    func.call @ember_la_info_P(%info, %out, %b) : (i64, OUT, index) -> ()
    %r = memref.load %rank[%c0] : IVEC
    %rf = arith.sitofp %r : i64 to f64
    func.call @ember_la_put_P(%rf, %out, %b, %c0, %c1) : (f64, OUT, index, index, index) -> ()
    func.call @ember_la_store_P(%x, %ldb, %n, %nrhs, %out, %b, %c1, %all) : (VEC, index, index, index, OUT, index, index, i64) -> ()
    func.call @ember_la_store_vec_P(%s, %k, %out, %b, %c2) : (RVEC, index, OUT, index, index) -> ()
    %full = arith.cmpi eq, %r, %n64 : i64
    %want = arith.andi %tall, %full : i1
    scf.for %j = %c0 to %nrhs step %c1 {
      %col = arith.muli %j, %ldb : index
      %first = arith.addi %col, %n : index
      %sum = scf.if %want -> (f64) {
        %acc = scf.for %i = %c0 to %excess step %c1 iter_args(%t = %zero) -> (f64) {
          %at = arith.addi %first, %i : index
          %v = memref.load %x[%at] : VEC
          %sq = func.call @ember_la_abs2_P(%v) : (ELEM) -> f64
          %t2 = arith.addf %t, %sq : f64
          scf.yield %t2 : f64
        }
        scf.yield %acc : f64
      } else {
        scf.yield %zero : f64
      }
      func.call @ember_la_put_P(%sum, %out, %b, %c3, %j) : (f64, OUT, index, index, index) -> ()
    }
  }
  return
}
""",
}

_CHAR = {"L": ord("L"), "U": ord("U"), "V": ord("V"), "N": ord("N"), "A": ord("A"), "S": ord("S")}

_STORE = "func.call @ember_la_store_P({}) : (VEC, index, index, index, OUT, index, index, i64) -> ()"


ROUTINES = (*LAPACK_ROUTINES, "solve", "lstsq")  # every helper a kernel may call


def _routine_text(routine: str) -> str:
    """The helper of ``routine`` (``ops.LAPACK_ROUTINES``, ``solve`` or ``lstsq``), with tokens."""
    family, _, option = routine.partition("_")
    if family in ("eigh", "eigvalsh"):
        text = _HELPERS["eigh"].replace("NAME", family).replace("UPLO_CHAR", str(_CHAR[option]))
        text = text.replace("UPLO", option).replace("JOBZ_CHAR", str(_CHAR["V" if family == "eigh" else "N"]))
        vectors = _STORE.format("%w, %lda, %n, %n, %out, %b, %c2, %all")
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
                _STORE.format("%u, %lda, %m, %ucols, %out, %b, %c2, %all")
                + "\n    "
                + _STORE.format("%vt, %ldvt, %vtrows, %n, %out, %b, %c3, %all")
            )
        if option == "A":  # LAPACK leaves the factors of an empty matrix unset: NumPy's identities
            factors = (
                "scf.if %empty {\n"
                "      func.call @ember_la_identity_P(%u, %m, %lda) : (VEC, index, index) -> ()\n"
                "      func.call @ember_la_identity_P(%vt, %n, %ldvt) : (VEC, index, index) -> ()\n"
                "    }\n    " + factors
            )
        return text.replace("FACTORS", factors)
    if family == "qr":
        text = _HELPERS["qr"].replace("MODE", option)
        if option == "complete":  # NumPy: q has m columns when m > n, else min(m, n)
            mcols = "%tallq = arith.cmpi sgt, %m, %n : index\n  %mc = arith.select %tallq, %m, %k : index"
        else:
            mcols = "%mc = arith.addi %k, %c0 : index"
        text = text.replace("MCOLS", mcols)
        text = text.replace("RROWS", f"arith.addi {'%mc' if option == 'complete' else '%k'}, %c0 : index")
        text = text.replace("%RPART", "%c0" if option == "r" else "%c1")
        qfactor = ""
        if option != "r":  # the first min(mc, n) columns of the factored A start Q (orgqr reads the reflectors)
            qfactor = (
                "scf.for %i = %c0 to %copy step %c1 {\n"
                "      %v = memref.load %w[%i] : VEC\n"
                "      memref.store %v, %qm[%i] : VEC\n"
                "    }\n"
                "    %info2 = func.call @ember_lapack_ORTHO(%layout, %m64, %mc64, %k64, %qmp, %lda64, %taup, %workp, %lwork2)"
                " : (SIG_ORTHO) -> i64\n    " + _STORE.format("%qm, %lda, %m, %mc, %out, %b, %c0, %all")
            )
        return text.replace("QFACTOR", qfactor)
    return _HELPERS[routine]


def _rwork(text: str, p: str) -> str:
    """The complex routines' real workspace: queried (eigen, lstsq) or LAPACK's documented
    minimum (gesdd); the real routines have none."""
    if p == "d":
        tokens = ("RWORK_QUERY", "RWORK_QUERIED", "RWORK_SIZED", "RQ_ARGS", "RW_ARGS")
        for token in tokens:
            text = text.replace(token, "")
        return text
    eigen = "@ember_lapack_EIGEN" in text
    queried = (
        "\n  %lrwork = func.call @ember_la_query_d(%rq) : (RVEC) -> i64"
        "\n  %lrwork_i = arith.index_cast %lrwork : i64 to index"
        "\n  %rwork = func.call @ember_la_buffer_d(%lrwork_i) : (index) -> RVEC"
        "\n  %rworkp = func.call @ember_la_ptr_d(%rwork) : (RVEC) -> !llvm.ptr"
    )
    # zgesdd: 7 min(m, n) for JOBZ 'N', else min(m, n) * max(5 min(m, n) + 7, 2 max(m, n) + 2 min(m, n) + 1)
    sized = (
        "\n  %rw_c5 = arith.constant 5 : index\n  %rw_c7 = arith.constant 7 : index"
        "\n  %rw_big = arith.maxsi %m, %n : index"
        "\n  %rw_a0 = arith.muli %k, %rw_c5 : index\n  %rw_a = arith.addi %rw_a0, %rw_c7 : index"
        "\n  %rw_b0 = arith.addi %rw_big, %k : index\n  %rw_b1 = arith.muli %rw_b0, %c2 : index"
        "\n  %rw_b = arith.addi %rw_b1, %c1 : index\n  %rw_ab = arith.maxsi %rw_a, %rw_b : index"
        "\n  %rw_full = arith.muli %k, %rw_ab : index\n  %rw_none = arith.muli %k, %rw_c7 : index"
        "\n  %jobz_n = arith.constant 78 : i32"
        "\n  %rw_n = arith.cmpi eq, %jobz, %jobz_n : i32"
        "\n  %lrwork_i = arith.select %rw_n, %rw_none, %rw_full : index"
        "\n  %rwork = func.call @ember_la_buffer_d(%lrwork_i) : (index) -> RVEC"
        "\n  %rworkp = func.call @ember_la_ptr_d(%rwork) : (RVEC) -> !llvm.ptr"
    )
    text = text.replace("RWORK_QUERY", _RWORK_QUERY).replace("RWORK_QUERIED", queried).replace("RWORK_SIZED", sized)
    text = text.replace("RQ_ARGS", "%rqp, %query, " if eigen else "%rqp, ")
    return text.replace("RW_ARGS", "%rworkp, %lrwork, " if eigen else "%rworkp, ")


def _specialized(text: str, p: str) -> str:
    """``text`` with its per-element-type names (``_P``, ``ELEM``, the buffer types) for ``p``."""
    text = text.replace("SUFFIX", _SUFFIX[p]).replace("_P", f"_{p}").replace("ELEM", ELEMENT[p])
    types = _types(p)
    for token in ("A3", "OUT", "RVEC", "IVEC", "VEC"):
        text = text.replace(token, types[token])
    return text


def helper_text(routine: str, p: str = "d") -> str:
    """The MLIR text of ``routine``'s helper for element type ``p`` ("d" float64, "z"
    complex128), with the shared functions and declarations it calls (the complex
    helpers use the real buffers too)."""
    body = _freed(_rwork(_routine_text(routine).replace("PROLOGUE", _PROLOGUE), p))
    signatures, names = _signatures(p), _routine_names(p)
    for role in signatures:
        body = body.replace(f"SIG_{role.upper()}", signatures[role])
        body = body.replace(f"@ember_lapack_{role.upper()}", f"@ember_lapack_{names[role]}")
    text = _specialized(_INT_BUFFERS + _UNTYPED + _declarations("d") + _SCALARS["d"] + _TYPED, "d")
    if p == "z":
        text += _specialized(_declarations("z") + _SCALARS["z"] + _TYPED, "z")
    return text + _specialized(_DIAGONAL[p] + body, p)


_BUFFER = re.compile(r"(%\w+) = func\.call @ember_la_buffer_\w+\([^)]*\) : \(index\) -> (\w+)")


def _freed(body: str) -> str:
    """``body`` (one helper) with every buffer it allocates (``ember_la_buffer_*``: the
    factored matrix, pivots, right-hand sides, work space) freed before its return.
    Without it each call leaked them: a solve with 100000 right-hand sides grew the
    process by 12.8 MB a call."""
    buffers = _BUFFER.findall(body)
    head, tail = body.rsplit("\n  return\n}", 1)
    frees = "".join(f"\n  memref.dealloc {name} : {kind}" for name, kind in buffers)
    return f"{head}{frees}\n  return\n}}{tail}"


_SUFFIX = {"d": "", "z": "_complex"}


def helper_name(routine: str, p: str = "d") -> str:
    return f"ember_lapack_{routine}{_SUFFIX[p]}"


# Whether ``ember-to-linalg`` puts the helpers' definitions into the module (its
# ``define-helpers`` option) or declares them, for the CPU backend's helper library.
DEFINE_HELPERS: contextvars.ContextVar[bool] = contextvars.ContextVar("define_lapack_helpers", default=False)


def library_text(routine: str, p: str) -> str:
    """``routine``'s helper and the functions it calls, as a library of public
    definitions, which the CPU backend compiles once per process
    (``backends/llvm_cpu/helper_library.py``)."""
    return public_definitions(helper_text(routine, p))


def _add_helpers(module_op, routine: str, p: str) -> None:
    """Add ``routine``'s helper (and the shared functions) not already in the module,
    or (``DEFINE_HELPERS`` false) a declaration of the helper alone."""
    text = helper_text(routine, p)
    add_functions(module_op, text if DEFINE_HELPERS.get() else declarations(text, (helper_name(routine, p),)))


def _module_of(op):
    parent = op.parent
    while parent.name != "builtin.module":
        parent = parent.parent
    return parent


def _as_buffer(value: ir.Value, p: str) -> ir.Value:
    """A read-only view of a (batch, m, n) tensor of element type ``p`` as a strided buffer."""
    matrix = _unit_batch_of(value)
    if matrix is not None:
        return _matrix_as_batch(matrix, p)
    element = ir.RankedTensorType(value.type).element_type
    dynamic = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()] * 3, element)
    if value.type != dynamic:
        value = tensor.CastOp(dynamic, value).result
    return bufferization.to_buffer(ir.Type.parse(_types(p)["A3"]), value, read_only=True)


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


def _matrix_as_batch(matrix: ir.Value, p: str) -> ir.Value:
    dynamic = ir.ShapedType.get_dynamic_size()
    types = _types(p)
    if ir.RankedTensorType(matrix.type).shape != [dynamic, dynamic]:
        element = ir.RankedTensorType(matrix.type).element_type
        matrix = tensor.CastOp(ir.RankedTensorType.get([dynamic, dynamic], element), matrix).result
    buffer = bufferization.to_buffer(ir.Type.parse(types["A2"]), matrix, read_only=True)
    m, n = (memref.dim(buffer, arith.constant(ir.IndexType.get(), axis)) for axis in (0, 1))
    batch_type = ir.Type.parse(f"memref<1x?x?x{ELEMENT[p]}, strided<[?, ?, ?], offset: ?>>")
    batch = memref.expand_shape(batch_type, buffer, [[0, 1], [2]], [m, n], [1, dynamic, dynamic])
    return memref.cast(ir.Type.parse(types["A3"]), batch)


def _lower_lapack(op, result, attrs):
    name = op.name.removeprefix("ember.")
    routine = {"lapack": None, "lapack_solve": "solve", "lapack_lstsq": "lstsq"}[name] or attrs["routine"]
    p = PRECISION[result.dtype]
    _add_helpers(_module_of(op), routine, p)
    operands = ember.tensor_operands(op)
    args = [_as_buffer(v, p) for v in operands[:2]]
    if name == "lapack_lstsq":
        args.append(tensor.extract(operands[2], []))
    static = result.to_mlir()
    sizes = list(ember.size_operands(op))
    buffer_type = ir.MemRefType.get(ir.RankedTensorType(static).shape, ir.RankedTensorType(static).element_type)
    out = memref.alloc(buffer_type, sizes, [])
    out_dynamic = memref.cast(ir.Type.parse(_types(p)["OUT"]), out)
    func.CallOp([], ir.FlatSymbolRefAttr.get(helper_name(routine, p)), [*args, out_dynamic])
    return bufferization.to_tensor(static, out, restrict=True, writable=True)


LOWERINGS: dict = {"lapack": _lower_lapack, "lapack_solve": _lower_lapack, "lapack_lstsq": _lower_lapack}
