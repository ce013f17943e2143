"""``np.linalg`` and the contractions ``vdot``/``inner``/``tensordot``, with NumPy's semantics.

**Contractions** are reshapes and transposes around Ember's ``matmul`` (which becomes
BLAS ``gemm``/``gemv`` for floats): ``tensordot`` moves the summed axes of ``a`` last
and of ``b`` first and multiplies the flattened matrices, as NumPy's own
``tensordot`` does; ``inner`` is ``tensordot`` over both last axes, ``vdot`` a ``dot``
of the flattened operands (``np.dot`` of any rank is ``numpy_shapes.dot``).

**Factorizations and solvers** follow ``numpy/linalg/_linalg.py`` step by step: the
operand is converted as ``_commonType`` does (the work is *always* float64, or complex128
when an input is complex, even for single-precision input; the results are cast back to
float32/complex64 when every input was single precision, exactly as NumPy does; float16
is NumPy's ``TypeError``), the stack ``(..., M, N)`` is flattened to ``(batch, M, N)``
and one Ember ``lapack`` op (``lapack_solve``, ``lapack_lstsq``) runs NumPy's LAPACK
routine on every matrix (``passes/lower_lapack.py``). Its packed result
(``ops.lapack_parts``) is sliced and reshaped back into NumPy's outputs.

**Errors.** Shape errors are raised while tracing, with NumPy's exception and message
(``LinAlgError`` for a non-square or 1-d operand, the gufunc's ``ValueError`` for
mismatched core dimensions). What LAPACK reports at run time (a singular matrix, a
matrix that is not positive definite, no convergence) is a *status*: a 0-d bool
(``info != 0`` for some matrix of the stack) recorded in ``em.status_checks`` with
NumPy's message. The trace makes it a graph output and the generated entry raises
``np.linalg.LinAlgError(message)`` after the graph when it is set
(``convert_frame._finish``). So that the caller's arrays are left as NumPy leaves
them, no side effect may follow such an op in the same graph: the tracer breaks the
graph before one (``OutputGraph.before_side_effect``). ``det``/``slogdet`` of a
singular matrix is no error (0, and ``(0, -inf)``), nor is anything of ``qr``.

``lstsq``'s residuals exist only where the rank (known at run time) is ``n`` and
``m > n``: for ``m > n`` they are a ``LstsqResiduals`` value, built in the entry from
the graph's outputs (the residuals, or an empty array), and a graph break where the
function computes with them.

Complex input runs LAPACK's z routines (``zgesv``, ``zgetrf``, ``zpotrf``, ``zheevd``,
``zgesdd``, ``zgeqrf`` + ``zungqr``, ``zgelsd``); the real outputs (eigenvalues, singular
values, ``log|det|``, residuals) have the parts' dtype, as NumPy's.

Not supported (the call runs in CPython): ``svd(hermitian=True)``,
``qr(mode='raw')`` and the deprecated modes, ``lstsq`` of empty operands or with no
right-hand side, and a tracer without LAPACK (``runtime/blas_symbols.py``).
"""

from __future__ import annotations

import dataclasses
import math
import operator

import numpy as np

from compiler.dialects import ops
from compiler.frontend import promotion
from compiler.frontend.numpy_core import EmitterCore, Tensor, normalize_axis, reject
from compiler.frontend.numpy_shapes import _contract, _tuple, reshape, transpose
from compiler.frontend.symbolic_shapes import SymInt, sym_max, sym_min
from compiler.frontend.variables import VariableTracker

LinAlgError = np.linalg.LinAlgError

SINGULAR = "Singular matrix"
NOT_POSITIVE_DEFINITE = "Matrix is not positive definite"
EIGENVALUES = "Eigenvalues did not converge"
SVD = "SVD did not converge"
LSTSQ = "SVD did not converge in Linear Least Squares"


# ----------------------------------------------------------------------------- contractions


def tensordot(em: EmitterCore, a, b, axes=2) -> Tensor:
    """NumPy's ``tensordot``: ``a``'s summed axes last, ``b``'s first, one matmul."""
    a, b = em.array(a, "np.tensordot"), em.array(b, "np.tensordot")
    try:
        iter(axes)
    except TypeError:
        axes_a, axes_b = list(range(-axes, 0)), list(range(axes))
    else:
        axes_a, axes_b = axes
    axes_a = list(axes_a) if isinstance(axes_a, (list, tuple)) else [axes_a]
    axes_b = list(axes_b) if isinstance(axes_b, (list, tuple)) else [axes_b]
    sa, sb = em.shape(a), em.shape(b)
    if len(axes_a) != len(axes_b):
        raise ValueError("shape-mismatch for sum")
    axes_a = [x + a.ndim if x < 0 else x for x in axes_a]
    axes_b = [x + b.ndim if x < 0 else x for x in axes_b]
    for x, y in zip(axes_a, axes_b):
        if not (0 <= x < a.ndim and 0 <= y < b.ndim) or not em.equal_sizes(sa[x], sb[y]):
            raise ValueError("shape-mismatch for sum")
    free_a = [k for k in range(a.ndim) if k not in axes_a]
    free_b = [k for k in range(b.ndim) if k not in axes_b]
    dtype = promotion.result_type([a.dtype, b.dtype], "np.tensordot")
    a, b = em.cast(a, dtype), em.cast(b, dtype)
    summed = em.shape_env.normalize(math.prod(sa[k] for k in axes_a))
    left = em.shape_env.normalize(math.prod(sa[k] for k in free_a))
    right = em.shape_env.normalize(math.prod(sb[k] for k in free_b))
    # with no free axes an operand is a vector: (N,) rather than (N, 1) (a reshape that
    # ember-to-linalg cannot collapse yet) and matmul's matrix-vector forms
    at = reshape(em, transpose(em, a, free_a + axes_a), (left, summed) if free_a else (summed,))
    bt = reshape(em, transpose(em, b, axes_b + free_b), (summed, right) if free_b else (summed,))
    out = _contract(em, at, bt)
    return reshape(em, out, tuple(sa[k] for k in free_a) + tuple(sb[k] for k in free_b))


def inner(em: EmitterCore, a, b, /) -> Tensor:
    a, b = em.array(a, "np.inner"), em.array(b, "np.inner")
    if a.ndim == 0 or b.ndim == 0:
        return em.call(np.multiply, a, b)
    sa, sb = em.shape(a), em.shape(b)
    if not em.equal_sizes(sa[-1], sb[-1]):
        bt = sb[:-2] + sb[-1:] + sb[-2:-1] if b.ndim > 1 else sb
        raise ValueError(
            f"shapes {_tuple(sa)} and {_tuple(bt)} not aligned: {sa[-1]} (dim {a.ndim - 1}) != "
            f"{sb[-1]} (dim {max(b.ndim - 2, 0)})"
        )
    return tensordot(em, a, b, axes=([-1], [-1]))


def vdot(em: EmitterCore, a, b, /) -> Tensor:
    a, b = em.array(a, "np.vdot"), em.array(b, "np.vdot")
    if a.dtype.kind == "c":
        a = em.call(np.conjugate, a)  # vdot conjugates its first operand
    size_a = em.shape_env.normalize(math.prod(em.shape(a)))
    size_b = em.shape_env.normalize(math.prod(em.shape(b)))
    if not em.equal_sizes(size_a, size_b):
        raise ValueError(f"cannot reshape array of size {size_b} into shape ({size_a},)")
    flat_a, flat_b = reshape(em, a, (size_a,)), reshape(em, b, (size_a,))
    return em.call(np.dot, flat_a, flat_b)


# ----------------------------------------------------------------------------- LAPACK plumbing


def _available():
    from runtime import blas_symbols

    if not blas_symbols.lapack_available():
        raise NotImplementedError("np.linalg: no LAPACK found in NumPy's OpenBLAS")


def _common_type(*arrays: Tensor) -> tuple[np.dtype, np.dtype]:
    """NumPy's ``_commonType``: the work dtype (float64, or complex128 when any input is
    complex) and the result dtype (single precision only when every input is)."""
    double, is_complex = False, False
    for t in arrays:
        if t.dtype.kind in "fc":
            if t.dtype not in (np.float32, np.float64, np.complex64, np.complex128):  # float16: NumPy's error
                raise TypeError(f"array type {t.dtype.name} is unsupported in linalg")
            is_complex = is_complex or t.dtype.kind == "c"
            double = double or t.dtype in (np.float64, np.complex128)
        else:
            double = True
    if is_complex:
        return np.dtype(np.complex128), np.dtype(np.complex128 if double else np.complex64)
    return np.dtype(np.float64), np.dtype(np.float64 if double else np.float32)


def _real_type(dtype: np.dtype) -> np.dtype:
    """The dtype of a real output (eigenvalues, singular values, log|det|) for ``dtype``."""
    return np.dtype(np.float32 if dtype in (np.float32, np.complex64) else np.float64)


def _real(em: EmitterCore, t: Tensor) -> Tensor:
    """A real output read from a complex routine's packed result."""
    return em.emit("real", t) if t.dtype.kind == "c" else t


def _stacked_2d(em: EmitterCore, a: Tensor) -> None:
    if a.ndim < 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")


def _stacked_square(em: EmitterCore, a: Tensor) -> None:
    _stacked_2d(em, a)
    m, n = em.shape(a)[-2:]
    if not em.equal_sizes(m, n):
        raise LinAlgError("Last 2 dimensions of the array must be square")


def _prod(em, sizes):
    return em.shape_env.normalize(math.prod(sizes))


def _stack(em: EmitterCore, a: Tensor, work: np.dtype) -> tuple[Tensor, tuple]:
    """``a`` (..., M, N) as a (batch, M, N) stack of ``work``, and its batch shape."""
    a = em.cast(a, work)
    shape = em.shape(a)
    batch = shape[:-2]
    return reshape(em, a, (_prod(em, batch),) + shape[-2:]), batch


def _packed(em, name: str, kind: str, operands, m, n, nrhs=None, **attrs) -> Tensor:
    """The packed result of op ``name`` running ``kind`` (``ops.lapack_parts``) on stacks."""
    batch = em.shape(operands[0])[0]
    parts = ops.lapack_parts(kind, m, n, nrhs)
    shape = (batch, len(parts), sym_max(1, *parts))
    return em.emit_shaped(name, *operands, shape=shape, dtype=operands[0].type.dtype, **attrs)


def _part(em, packed: Tensor, k: int, shape: tuple, batch: tuple, first: int = 0) -> Tensor:
    """Part ``k`` of a packed result as an array of ``batch + shape`` (its ``first`` element on)."""
    length = _prod(em, shape)
    rows = em.shape(packed)[0]
    piece = em.emit_shaped(
        "slice", packed, shape=(rows, 1, length), dtype=packed.type.dtype, starts=(0, k, first), steps=(1, 1, 1)
    )
    return _reshape(em, piece, tuple(batch) + tuple(shape))


def _reshape(em, t: Tensor, shape: tuple) -> Tensor:
    """``reshape``, with trailing size-1 dims added by ``expand_dims``: ember-to-linalg's
    static reshape cannot yet group a trailing 1 once the operand's dims are used up
    ((2, 1, 4) -> (2, 4, 1) fails to compile; the graph then runs eagerly)."""
    ones = 0
    while ones < len(shape) - 1 and not isinstance(shape[-1 - ones], SymInt) and shape[-1 - ones] == 1:
        ones += 1
    if not ones:
        return reshape(em, t, shape)
    inner = reshape(em, t, shape[: len(shape) - ones])
    return em.emit("expand_dims", inner, axes=tuple(range(len(shape) - ones, len(shape))))


def _check(em, packed: Tensor, message: str) -> None:
    """Record the run-time check of part 0 (LAPACK's info) of every matrix."""
    info = _real(em, _part(em, packed, 0, (), (em.shape(packed)[0],)))
    em.status_checks.append((em.call(np.any, info), message))


def _result(em, t: Tensor, dtype, scalar: bool = False) -> Tensor:
    t = em.cast(t, dtype)
    return dataclasses.replace(t, scalar=scalar and t.ndim == 0)


# ----------------------------------------------------------------------------- np.linalg


def solve(em: EmitterCore, a, b):
    _available()
    a, b = em.array(a, "np.linalg.solve"), em.array(b, "np.linalg.solve")
    _stacked_square(em, a)
    work, result_t = _common_type(a, b)
    sa, sb = em.shape(a), em.shape(b)
    n = sa[-1]
    one = b.ndim == 1
    name, signature = ("solve1", "(m,m),(m)->(m)") if one else ("solve", "(m,m),(m,n)->(m,n)")
    if b.ndim == 0:
        raise ValueError(
            f"{name}: Input operand 1 does not have enough dimensions (has 0, gufunc core with signature "
            f"{signature} requires 1)"
        )
    core = (sb[-1],) if one else sb[-2:]
    if not em.equal_sizes(core[0], n):
        raise ValueError(
            f"{name}: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
            f"{signature} (size {core[0]} is different from {n})"
        )
    batch = em.broadcast_shapes([sa[:-2], sb[: len(sb) - len(core)]], "np.linalg.solve")
    a = em.broadcast_to(a, batch + sa[-2:])
    b = em.broadcast_to(b, batch + core)
    if one:
        b = em.emit("expand_dims", b, axes=(len(batch) + 1,))
    a3, _ = _stack(em, a, work)
    b3, _ = _stack(em, b, work)
    nrhs = 1 if one else core[1]
    packed = _packed(em, "lapack_solve", "solve", [a3, b3], n, n, nrhs)
    _check(em, packed, SINGULAR)
    x = _part(em, packed, 1, (n,) if one else (n, nrhs), batch)
    return _result(em, x, result_t)


def inv(em: EmitterCore, a):
    _available()
    a = em.array(a, "np.linalg.inv")
    _stacked_square(em, a)
    work, result_t = _common_type(a)
    a3, batch = _stack(em, a, work)
    n = em.shape(a)[-1]
    packed = _packed(em, "lapack", "inv", [a3], n, n, routine="inv")
    _check(em, packed, SINGULAR)
    return _result(em, _part(em, packed, 1, (n, n), batch), result_t)


def _slogdet(em, a, fname):
    _available()
    a = em.array(a, fname)
    _stacked_square(em, a)
    work, result_t = _common_type(a)
    a3, batch = _stack(em, a, work)
    n = em.shape(a)[-1]
    packed = _packed(em, "lapack", "slogdet", [a3], n, n, routine="slogdet")
    sign = _part(em, packed, 0, (), batch)
    logdet = _real(em, _part(em, packed, 0, (), batch, first=1))
    return sign, logdet, result_t


def det(em: EmitterCore, a):
    sign, logdet, result_t = _slogdet(em, a, "np.linalg.det")
    value = em.emit("mul", sign, em.cast(em.emit("exp", logdet), sign.dtype))  # NumPy: sign * exp(logdet)
    return _result(em, value, result_t, scalar=True)


def slogdet(em: EmitterCore, a):
    sign, logdet, result_t = _slogdet(em, a, "np.linalg.slogdet")
    return np.linalg._linalg.SlogdetResult(
        _result(em, sign, result_t, scalar=True), _result(em, logdet, _real_type(result_t), scalar=True)
    )


def cholesky(em: EmitterCore, a, /, *, upper=False):
    _available()
    a = em.array(a, "np.linalg.cholesky")
    _stacked_square(em, a)
    work, result_t = _common_type(a)
    a3, batch = _stack(em, a, work)
    n = em.shape(a)[-1]
    routine = "cholesky_U" if upper else "cholesky_L"
    packed = _packed(em, "lapack", routine, [a3], n, n, routine=routine)
    _check(em, packed, NOT_POSITIVE_DEFINITE)
    return _result(em, _part(em, packed, 1, (n, n), batch), result_t)


def _uplo(UPLO) -> str:  # noqa: N803 - NumPy's parameter name
    uplo = UPLO.upper() if isinstance(UPLO, str) else UPLO
    if uplo not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return uplo


def eigh(em: EmitterCore, a, UPLO="L"):  # noqa: N803
    _available()
    uplo = _uplo(UPLO)
    a = em.array(a, "np.linalg.eigh")
    _stacked_square(em, a)
    work, result_t = _common_type(a)
    a3, batch = _stack(em, a, work)
    n = em.shape(a)[-1]
    packed = _packed(em, "lapack", f"eigh_{uplo}", [a3], n, n, routine=f"eigh_{uplo}")
    _check(em, packed, EIGENVALUES)
    w = _result(em, _real(em, _part(em, packed, 1, (n,), batch)), _real_type(result_t))
    v = _result(em, _part(em, packed, 2, (n, n), batch), result_t)
    return np.linalg._linalg.EighResult(w, v)


def eigvalsh(em: EmitterCore, a, UPLO="L"):  # noqa: N803
    _available()
    uplo = _uplo(UPLO)
    a = em.array(a, "np.linalg.eigvalsh")
    _stacked_square(em, a)
    work, result_t = _common_type(a)
    a3, batch = _stack(em, a, work)
    n = em.shape(a)[-1]
    packed = _packed(em, "lapack", f"eigvalsh_{uplo}", [a3], n, n, routine=f"eigvalsh_{uplo}")
    _check(em, packed, EIGENVALUES)
    return _result(em, _real(em, _part(em, packed, 1, (n,), batch)), _real_type(result_t))


def svd(em: EmitterCore, a, full_matrices=True, compute_uv=True, hermitian=False):
    _available()
    reject("np.linalg.svd", hermitian=(hermitian, False))
    a = em.array(a, "np.linalg.svd")
    _stacked_2d(em, a)
    work, result_t = _common_type(a)
    a3, batch = _stack(em, a, work)
    m, n = em.shape(a)[-2:]
    k = sym_min(m, n)
    if not compute_uv:
        packed = _packed(em, "lapack", "svd_N", [a3], m, n, routine="svd_N")
        _check(em, packed, SVD)
        return _result(em, _real(em, _part(em, packed, 1, (k,), batch)), _real_type(result_t))
    routine = "svd_A" if full_matrices else "svd_S"
    packed = _packed(em, "lapack", routine, [a3], m, n, routine=routine)
    _check(em, packed, SVD)
    ucols, vrows = (m, n) if full_matrices else (k, k)
    u = _result(em, _part(em, packed, 2, (m, ucols), batch), result_t)
    s = _result(em, _real(em, _part(em, packed, 1, (k,), batch)), _real_type(result_t))
    vh = _result(em, _part(em, packed, 3, (vrows, n), batch), result_t)
    return np.linalg._linalg.SVDResult(u, s, vh)


def svdvals(em: EmitterCore, x, /):
    return svd(em, x, compute_uv=False, hermitian=False)


def qr(em: EmitterCore, a, mode="reduced"):
    _available()
    if mode not in ("reduced", "complete", "r", "raw"):
        if mode in ("f", "full", "e", "economic"):
            raise NotImplementedError(f"np.linalg.qr: the deprecated mode {mode!r}")
        raise ValueError(f"Unrecognized mode '{mode}'")
    if mode == "raw":
        raise NotImplementedError("np.linalg.qr: mode='raw'")
    a = em.array(a, "np.linalg.qr")
    _stacked_2d(em, a)
    work, result_t = _common_type(a)
    a3, batch = _stack(em, a, work)
    m, n = em.shape(a)[-2:]
    k = sym_min(m, n)
    routine = f"qr_{mode}"
    packed = _packed(em, "lapack", routine, [a3], m, n, routine=routine)
    if mode == "r":
        return _result(em, _part(em, packed, 0, (k, n), batch), result_t)
    mc = m if mode == "complete" and em.shape_env.evaluate(m > n) else k
    q = _result(em, _part(em, packed, 0, (m, mc), batch), result_t)
    r = _result(em, _part(em, packed, 1, (mc, n), batch), result_t)
    return np.linalg._linalg.QRResult(q, r)


@dataclasses.dataclass(repr=False)
class LstsqResiduals(VariableTracker):
    """``lstsq``'s residuals for ``m > n``: NumPy returns them only where the rank, known at
    run time, is ``n`` (else an empty array). Built in the entry from the graph's outputs;
    computing with them in the traced function is a graph break (the break runs that
    instruction on the value built here)."""

    residuals: object  # TensorVariable (nrhs,) of the result dtype
    rank: object  # TensorVariable: the int32 rank
    n: int
    dtype: np.dtype

    def python_type(self):
        return np.ndarray

    def entry_expr(self, plan) -> str:
        empty = plan.ref(np.empty)
        return (
            f"({plan.expr(self.residuals)} if {plan.expr(self.rank)} == {self.n} "
            f"else {empty}((0,), {plan.ref(self.dtype)}))"
        )


def lstsq(em: EmitterCore, a, b, rcond=None):
    _available()
    a, b = em.array(a, "np.linalg.lstsq"), em.array(b, "np.linalg.lstsq")
    one = b.ndim == 1
    if one:
        b = em.emit("expand_dims", b, axes=(1,))
    for t in (a, b):
        if t.ndim != 2:
            raise LinAlgError(f"{t.ndim}-dimensional array given. Array must be two-dimensional")
    (m, n), (m2, nrhs) = em.shape(a), em.shape(b)
    if not em.equal_sizes(m, m2):
        raise LinAlgError("Incompatible dimensions")
    work, result_t = _common_type(a, b)
    if any(not isinstance(d, SymInt) and d == 0 for d in (m, n, nrhs)):
        raise NotImplementedError("np.linalg.lstsq of an empty matrix or with no right-hand side")
    if rcond is None:
        rcond = float(np.finfo(np.float64).eps) * sym_max(n, m)
        if isinstance(rcond, SymInt):
            raise NotImplementedError("np.linalg.lstsq: the default rcond of a symbolic size")
    rc = em.cast(rcond if isinstance(rcond, Tensor) else em.constant(np.asarray(rcond, np.float64)), np.float64)
    if rc.ndim != 0:
        raise NotImplementedError("np.linalg.lstsq: an rcond array")
    a3, _ = _stack(em, a, work)
    b3, _ = _stack(em, b, work)
    packed = _packed(em, "lapack_lstsq", "lstsq", [a3, b3, rc], m, n, nrhs)
    _check(em, packed, LSTSQ)
    k = sym_min(m, n)
    x = _part(em, packed, 1, (n,) if one else (n, nrhs), ())
    rank = dataclasses.replace(em.cast(_real(em, _part(em, packed, 0, (), (), first=1)), np.int32), scalar=True)
    real_t = _real_type(result_t)
    s = _result(em, _real(em, _part(em, packed, 2, (k,), ())), real_t)
    if not isinstance(m, SymInt) and not isinstance(n, SymInt) and m <= n:
        resids = em.constant(np.array([], real_t))
    elif isinstance(m, SymInt) or isinstance(n, SymInt):
        raise NotImplementedError("np.linalg.lstsq: residuals of symbolic sizes")
    else:
        from compiler.frontend.variables import TensorVariable

        values = em.cast(_real(em, _part(em, packed, 3, (nrhs,), ())), real_t)
        resids = LstsqResiduals(TensorVariable(values), TensorVariable(rank), int(n), real_t)
    return (_result(em, x, result_t), resids, rank, s)


# ----------------------------------------------------------------------------- norm


def _initial_zero_max(em, x, axis, keepdims=False):
    """``x.max(axis, initial=0)`` of a non-negative ``x``: 0 over an empty axis."""
    size = em.shape(x)[axis]
    if not isinstance(size, SymInt) and size == 0:
        out = em.call("sum", x, axis=axis, keepdims=keepdims)  # zeros of the right shape
        return em.call(np.multiply, out, 0)
    return em.call("max", x, axis=axis, keepdims=keepdims)


def _svd_norm(em, x, row_axis, col_axis, op):
    y = em.call(np.moveaxis, x, (row_axis, col_axis), (-2, -1))
    s = svd(em, y, compute_uv=False)
    if op == "max":
        return _initial_zero_max(em, s, -1)
    if op == "sum":
        return em.call("sum", s, axis=-1)
    return em.call("min", s, axis=-1)


def _abs_squared(em: EmitterCore, x: Tensor) -> Tensor:
    """``|x|**2`` as NumPy's norm computes it: ``x * x``, or ``(x.conj() * x).real``."""
    if x.dtype.kind == "c":
        return em.call(np.real, em.call(np.multiply, em.call(np.conjugate, x), x))
    return em.call(np.multiply, x, x)


def norm(em: EmitterCore, x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's name
    x = em.array(x, "np.linalg.norm")
    if x.dtype.kind not in "fc":
        x = em.cast(x, np.float64)
    inf = float("inf")
    if axis is None:
        ndim = x.ndim
        if ord is None or (ord in ("f", "fro") and ndim == 2) or (ord == 2 and ndim == 1):
            flat = reshape(em, x, -1)
            if x.dtype.kind == "c":  # as NumPy: the real parts' dot plus the imaginary parts'
                re, im = em.call(np.real, flat), em.call(np.imag, flat)
                square = em.call(np.add, em.call(np.dot, re, re), em.call(np.dot, im, im))
            else:
                square = em.call(np.dot, flat, flat)
            ret = em.call(np.sqrt, square)
            if keepdims:
                ret = reshape(em, ret, (1,) * ndim)
            return ret
    nd = x.ndim
    if axis is None:
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
            raise TypeError("'axis' must be None, an integer or a tuple of integers")
        axis = (int(axis),)
    if len(axis) == 1:
        ax = normalize_axis(axis[0], nd)
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        absx = em.call(np.abs, x)
        if ord == inf:
            return _initial_zero_max(em, absx, ax, keepdims)
        if ord == -inf:
            return em.call("min", absx, axis=ax, keepdims=keepdims)
        if ord == 0:
            nonzero = em.call(np.not_equal, x, 0)
            return em.call("sum", em.call("astype", nonzero, absx.dtype), axis=ax, keepdims=keepdims)
        if ord == 1:
            return em.call("sum", absx, axis=ax, keepdims=keepdims)
        if ord is None or ord == 2:
            return em.call(np.sqrt, em.call("sum", _abs_squared(em, x), axis=ax, keepdims=keepdims))
        if not isinstance(ord, (int, float, np.integer, np.floating)) or isinstance(ord, (bool, np.bool_)):
            raise NotImplementedError(f"np.linalg.norm: ord={ord!r}")
        powered = em.call(np.power, absx, ord)
        powered = em.cast(powered, absx.dtype)  # ``absx **= ord`` keeps absx's dtype
        ret = em.call("sum", powered, axis=ax, keepdims=keepdims)
        exponent = np.reciprocal(np.asarray(ord, dtype=ret.dtype))
        return em.cast(em.call(np.power, ret, exponent), ret.dtype)
    if len(axis) == 2:
        row_axis, col_axis = (normalize_axis(a, nd) for a in axis)
        if row_axis == col_axis:
            raise ValueError("Duplicate axes given.")
        absx = None if ord in (2, -2, None, "fro", "f", "nuc") else em.call(np.abs, x)
        if ord == 2:
            ret = _svd_norm(em, x, row_axis, col_axis, "max")
        elif ord == -2:
            ret = _svd_norm(em, x, row_axis, col_axis, "min")
        elif ord == 1:
            col = col_axis - 1 if col_axis > row_axis else col_axis
            ret = _initial_zero_max(em, em.call("sum", absx, axis=row_axis), col)
        elif ord == inf:
            row = row_axis - 1 if row_axis > col_axis else row_axis
            ret = _initial_zero_max(em, em.call("sum", absx, axis=col_axis), row)
        elif ord == -1:
            col = col_axis - 1 if col_axis > row_axis else col_axis
            ret = em.call("min", em.call("sum", absx, axis=row_axis), axis=col)
        elif ord == -inf:
            row = row_axis - 1 if row_axis > col_axis else row_axis
            ret = em.call("min", em.call("sum", absx, axis=col_axis), axis=row)
        elif ord in (None, "fro", "f"):
            ret = em.call(np.sqrt, em.call("sum", _abs_squared(em, x), axis=axis))
        elif ord == "nuc":
            ret = _svd_norm(em, x, row_axis, col_axis, "sum")
        else:
            raise ValueError("Invalid norm order for matrices.")
        if keepdims:
            shape = list(em.shape(x))
            shape[axis[0]] = 1
            shape[axis[1]] = 1
            ret = reshape(em, ret, tuple(shape))
        return ret
    raise ValueError("Improper number of dimensions to norm.")


def matrix_transpose(em: EmitterCore, x, /):
    x = em.array(x, "np.linalg.matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return em.call(np.swapaxes, x, -1, -2)


# (keys, rule, Ember ops emitted, dtype rule) rows, as numpy_semantics reads them.
def matrix_power(em: EmitterCore, a, n) -> Tensor:
    """``np.linalg.matrix_power`` with NumPy's products in NumPy's order: ``a @ a``,
    ``(a @ a) @ a``, then squarings with the binary digits of ``n`` multiplied in (a
    negative ``n``: of ``inv(a)``; 0: the identity in ``a``'s dtype)."""
    from compiler.frontend import numpy_creation as cr
    from compiler.frontend.numpy_shapes import matmul

    fname = "np.linalg.matrix_power"
    a = em.array(a, fname)
    if a.ndim < 2:
        raise np.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
    if not em.equal_sizes(a.shape[-1], a.shape[-2]):
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    if isinstance(n, (Tensor, SymInt)):
        raise NotImplementedError(f"{fname}: an exponent computed while tracing")
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        eye = cr.eye(em, a.shape[-1], dtype=a.dtype)
        return em.broadcast_to(eye, em.shape(a))
    if n < 0:
        a, n = inv(em, a), abs(n)
    if n <= 3:
        result = a
        for _ in range(n - 1):
            result = matmul(em, result, a)
        return result
    z = result = None
    while n > 0:
        z = a if z is None else matmul(em, z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(em, result, z)
    return result


def cross(em: EmitterCore, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None) -> Tensor:
    """``np.cross`` of 3-vectors along the last axes (broadcast over the others), as NumPy
    computes it: in the promoted dtype, each component a product minus a product
    (``a1 * b2 - a2 * b1``...). 2-vectors (deprecated: NumPy warns), other axes and
    booleans run in CPython."""
    from compiler.frontend.numpy_elementwise import apply_ufunc
    from compiler.frontend.numpy_indexing import getitem
    from compiler.frontend.numpy_shapes import stack

    fname = "np.cross"
    if axis is not None or (axisa, axisb, axisc) != (-1, -1, -1):
        raise NotImplementedError(f"{fname}: axes other than the last")
    a, b = em.array(a, fname), em.array(b, fname)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    sizes = [em.shape_env.specialize(t.shape[-1]) if isinstance(t.shape[-1], SymInt) else t.shape[-1] for t in (a, b)]
    if any(n not in (2, 3) for n in sizes):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if 2 in sizes:
        raise NotImplementedError(f"{fname} of 2-vectors (deprecated: NumPy warns)")
    dtype = np.promote_types(a.dtype, b.dtype)
    if dtype.kind not in "iufc":
        raise NotImplementedError(f"{fname} of {dtype} vectors")
    a, b = em.cast(a, dtype), em.cast(b, dtype)
    ac, bc = ([getitem(em, t, (Ellipsis, k)) for k in range(3)] for t in (a, b))

    def term(i, j):  # a_i * b_j - a_j * b_i, in the promoted dtype both already have
        product = lambda x, y: apply_ufunc(em, np.multiply, x, y)  # noqa: E731
        return apply_ufunc(em, np.subtract, product(ac[i], bc[j]), product(ac[j], bc[i]))

    return stack(em, [term(1, 2), term(2, 0), term(0, 1)], axis=-1)


ROWS: list = [
    ((np.tensordot,), tensordot, "transpose, reshape, matmul", "result_type"),
    ((np.inner,), inner, "transpose, reshape, matmul | mul", "result_type"),
    ((np.vdot,), vdot, "reshape, matmul", "result_type"),
    ((np.linalg.solve,), solve, "lapack_solve (gesv), slice, reshape", "float64, complex128 (single back)"),
    ((np.linalg.inv,), inv, "lapack inv (gesv), slice, reshape", "float64, complex128 (single back)"),
    ((np.linalg.det,), det, "lapack slogdet (getrf), exp, mul", "float64, complex128 (single back)"),
    ((np.linalg.slogdet,), slogdet, "lapack slogdet (getrf)", "float64, complex128 (single back)"),
    ((np.linalg.cholesky,), cholesky, "lapack cholesky (potrf)", "float64, complex128 (single back)"),
    ((np.linalg.eigh,), eigh, "lapack eigh (syevd, heevd)", "float64, complex128 (single back)"),
    ((np.linalg.eigvalsh,), eigvalsh, "lapack eigvalsh (syevd, heevd)", "float64, complex128 (single back)"),
    ((np.linalg.svd,), svd, "lapack svd (gesdd)", "float64, complex128 (single back)"),
    ((np.linalg.svdvals,), svdvals, "lapack svd (gesdd)", "float64, complex128 (single back)"),
    ((np.linalg.qr,), qr, "lapack qr (geqrf, orgqr | ungqr)", "float64, complex128 (single back)"),
    ((np.linalg.lstsq,), lstsq, "lapack_lstsq (gelsd)", "float64, complex128 (single back)"),
    ((np.linalg.norm,), norm, "abs, mul, sum, max, min, sqrt, pow | lapack svd", "same (ints: float64)"),
    ((np.linalg.matrix_transpose,), matrix_transpose, "transpose", "same"),
    ((np.cross,), cross, "slice, squeeze, mul, sub, expand_dims, concatenate", "promote_types"),
    ((np.linalg.matrix_power,), matrix_power, "matmul (| lapack inv, iota)", "same"),
]

# Array methods (``x.name(...)``) these rows serve.
METHODS: tuple = ()

# NumPy functions whose 0-d results are 0-d arrays, not NumPy scalars.
ARRAY_RESULTS: set = {np.tensordot}

# Rules that read symbolic ints themselves.
SYMBOLIC_INT_RULES: set = set()
