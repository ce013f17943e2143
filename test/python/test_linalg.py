"""np.linalg and the contractions (dot/vdot/inner/tensordot/matmul), compiled, against NumPy.

The factorizations run NumPy's own LAPACK routines (gesv, getrf, potrf, syevd, gesdd,
geqrf+orgqr, gelsd of the OpenBLAS NumPy bundles) on the same column-major float64
copies NumPy makes, so results are compared with a tight tolerance: ``RTOL`` (1e-12
relative, the contract's float64 bound; float32 results are float64 results cast, so
they agree to 1 ulp of float32). Only ``det``/``slogdet`` (a ``log``/``exp`` not NumPy's
libm) and ``norm``'s sums (another summation order) may differ in the last bits; the
contractions accumulate in BLAS's order (``CONTRACT_RTOL``). Where signs are free
(eigenvectors, singular vectors, QR) the routines are NumPy's, so they match too, and
the invariants (reconstruction, orthogonality) are checked besides.
"""

import re
import sys

import numpy as np
import pytest

import compiler
from compiler.dialects.ops import LAPACK_ROUTINES
from compiler.passes import lower_lapack
from runtime import blas_symbols

pytestmark = [
    pytest.mark.skipif(not blas_symbols.lapack_available(), reason="this NumPy bundles no LAPACKE"),
    pytest.mark.usefixtures("fresh_compiler"),
    pytest.mark.filterwarnings("error:ember"),  # a backend failure (an eager fallback) is a failure here
]

RTOL = {np.float64: 1e-12, np.float32: 2e-6}
CONTRACT_RTOL = {np.float64: 1e-12, np.float32: 1e-5}
rng = np.random.default_rng(1234)


def _tol(dtype, table=RTOL):
    return table.get(np.dtype(dtype).type, 1e-12)


def compiled(fn):
    return compiler.compile(fn, fullgraph=True)


def check(fn, *args, rtol=None, table=RTOL):
    """``fn`` compiled equals ``fn`` in NumPy: types, dtypes, shapes and values."""
    got, want = compiled(fn)(*args), fn(*args)
    _same(got, want, rtol)
    return got, want


def _same(got, want, rtol=None):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, rtol)
        return
    want_a, got_a = np.asarray(want), np.asarray(got)
    assert got_a.dtype == want_a.dtype and got_a.shape == want_a.shape, (got_a.dtype, got_a.shape, want_a.shape)
    tol = rtol if rtol is not None else _tol(want_a.dtype)
    np.testing.assert_allclose(
        got_a, want_a, rtol=tol, atol=tol * max(1.0, float(np.nanmax(np.abs(want_a), initial=0)))
    )


def spd(n, batch=(), dtype=np.float64):
    a = rng.standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def general(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


# ----------------------------------------------------------------------------- contractions


@pytest.mark.parametrize(
    "sa,sb",
    [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 2, 3), (3,)), ((3,), (2, 3, 4)),
     ((2, 2, 3), (3, 4)), ((2, 3), (4, 3, 5)), ((2, 2, 3), (2, 3, 4)), ((1, 1), (1, 1)), ((0, 3), (3, 2))],
)  # fmt: skip
def test_dot_every_rank(sa, sb):
    a, b = general(*sa), general(*sb)
    check(lambda x, y: np.dot(x, y), a, b, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, bool])
def test_dot_rank3_dtypes(dtype):
    a = (general(2, 3, 4) * 3).astype(dtype)
    b = (general(3, 4, 2) * 3).astype(dtype)
    check(lambda x, y: np.dot(x, y), a, b, rtol=_tol(np.float32, CONTRACT_RTOL))


def test_dot_shape_error_message():
    with pytest.raises(ValueError, match=r"shapes \(2,3,4\) and \(5,6\) not aligned: 4 \(dim 2\) != 5 \(dim 0\)"):
        compiled(lambda x, y: np.dot(x, y))(np.ones((2, 3, 4)), np.ones((5, 6)))


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (4, 3)), ((2, 2, 3), (3,)), ((3,), (2, 3)), ((), (2, 3))])
def test_inner(sa, sb):
    a, b = general(*sa) if sa else np.float64(2.5), general(*sb)
    check(lambda x, y: np.inner(x, y), a, b)


def test_inner_error():
    with pytest.raises(ValueError, match=r"shapes \(2,3\) and \(4,2\) not aligned"):
        compiled(lambda x, y: np.inner(x, y))(np.ones((2, 3)), np.ones((2, 4)))


@pytest.mark.parametrize(
    "sa,sb,axes",
    [((3, 4), (4, 5), 1), ((2, 3, 4), (3, 4, 5), 2), ((3,), (4,), 0), ((2, 3, 4), (4, 3, 2), ([1, 2], [1, 0])),
     ((3, 4), (3, 4), ([0, 1], [0, 1])), ((2, 3), (3, 2), (1, 0)), ((2, 3, 4), (5, 4), ([-1], [-1]))],
)  # fmt: skip
def test_tensordot(sa, sb, axes):
    check(lambda x, y: np.tensordot(x, y, axes), general(*sa), general(*sb))


def test_tensordot_mismatch():
    with pytest.raises(ValueError, match="shape-mismatch for sum"):
        compiled(lambda x, y: np.tensordot(x, y))(np.ones((2, 3)), np.ones((4, 5)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, bool])
def test_vdot(dtype):
    a, b = (general(2, 3) * 4).astype(dtype), (general(3, 2) * 4).astype(dtype)
    check(lambda x, y: np.vdot(x, y), a, b, rtol=_tol(np.float32, CONTRACT_RTOL))


def _complex(*shape, dtype=np.complex128):
    return (general(*shape) + 1j * general(*shape)[..., ::-1]).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_vdot_conjugates_a_complex_first_operand(dtype):
    a, b = _complex(2, 3, dtype=dtype), _complex(3, 2, dtype=dtype)
    rtol = _tol(np.float32, CONTRACT_RTOL)
    check(lambda x, y: np.vdot(x, y), a, b, rtol=rtol)
    check(lambda x, y: np.vdot(x, y), a, general(3, 2), rtol=rtol)  # complex with real: promoted
    check(lambda x, y: np.vdot(y, x), a, general(3, 2), rtol=rtol)
    got = compiled(lambda x: np.vdot(x, x))(a)
    assert abs(got.imag) <= 1e-6 * abs(got.real)  # |x|^2: real, as NumPy's zdotc gives


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_tensordot_and_inner(dtype):
    """No conjugation (unlike vdot): matmuls of the complex operands."""
    rtol = _tol(np.float32 if dtype == np.complex64 else np.float64, CONTRACT_RTOL) * 10
    a, b = _complex(2, 3, 4, dtype=dtype), _complex(4, 3, 2, dtype=dtype)
    check(lambda x, y: np.tensordot(x, y, axes=([1, 2], [1, 0])), a, b, rtol=rtol)
    check(lambda x, y: np.inner(x, y), a, _complex(5, 4, dtype=dtype), rtol=rtol)


def test_vdot_size_error():
    with pytest.raises(ValueError, match=r"cannot reshape array of size 4 into shape \(3,\)"):
        compiled(lambda x, y: np.vdot(x, y))(np.ones(3), np.ones(4))


@pytest.mark.parametrize("sa,sb", [((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,))])
def test_matmul_stacked(sa, sb):
    check(lambda x, y: np.matmul(x, y), general(*sa), general(*sb))


# ----------------------------------------------------------------------------- solve, inv, det


DTYPES = [np.float64, np.float32, np.int64, np.int32]


def _typed(a, dtype):
    """``a`` in ``dtype``; an integer matrix rounded, then made strictly diagonally
    dominant: never singular, whatever the draw (the module's generator gives each test
    values that depend on the order the tests ran in: ``[[4, 1, 1], [4, 5, 5], [-3, 1,
    1]]`` came up once, and NumPy and Ember both raised LinAlgError)."""
    if np.dtype(dtype).kind == "i":
        m = np.round(a * 4)
        diagonal = np.arange(a.shape[-1])
        m[..., diagonal, diagonal] = np.abs(m).sum(-1) - np.abs(m[..., diagonal, diagonal]) + 1
        return m.astype(dtype)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,bshape", [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)),
                                          ((1, 1), (1,)), ((2, 3, 3), (3,)), ((3, 3), (2, 3, 2))])  # fmt: skip
def test_solve(dtype, shape, bshape):
    a = _typed(general(*shape), dtype)
    b = _typed(general(*bshape), dtype) if np.dtype(dtype).kind == "f" else np.arange(np.prod(bshape)).reshape(bshape)
    got, want = check(lambda x, y: np.linalg.solve(x, y), a, b)
    assert got.dtype == want.dtype


def test_solve_mixed_float32_and_int_gives_float64():
    got, _ = check(lambda x, y: np.linalg.solve(x, y), general(3, 3, dtype=np.float32), np.arange(3))
    assert got.dtype == np.float64


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (1, 1), (2, 3, 3), (2, 2, 4, 4)])
def test_inv(dtype, shape):
    a = _typed(general(*shape), dtype)
    got, _ = check(lambda x: np.linalg.inv(x), a)
    if np.dtype(dtype).kind == "f":
        eye = np.broadcast_to(np.eye(shape[-1]), shape)
        np.testing.assert_allclose(a.astype(np.float64) @ got, eye, atol=1e-4)


def test_inv_of_views():
    """Non-contiguous and negative-stride inputs: LAPACK gets a contiguous copy."""
    base = general(8, 8)
    check(lambda x: np.linalg.inv(x[::2, 1::2]), base)
    check(lambda x: np.linalg.inv(x[::-1, ::-1][:4, :4]), base)
    check(lambda x: np.linalg.inv(x.T[:6, 2:]), base)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (1, 1), (2, 4, 4), (0, 3, 3)])
def test_det_and_slogdet(dtype, shape):
    a = _typed(general(*shape), dtype)
    got, want = check(lambda x: np.linalg.det(x), a, rtol=1e-12 if dtype != np.float32 else 2e-6)
    got, want = check(lambda x: np.linalg.slogdet(x), a, rtol=1e-12 if dtype != np.float32 else 2e-6)
    assert type(got).__name__ == "SlogdetResult"


def test_det_of_singular_is_zero_not_an_error():
    a = np.ones((3, 3))
    assert compiled(lambda x: np.linalg.det(x))(a) == np.linalg.det(a) == 0.0
    sign, logdet = compiled(lambda x: np.linalg.slogdet(x))(a)
    assert sign == 0.0 and logdet == -np.inf


def test_det_empty_matrix_is_one():
    check(lambda x: np.linalg.det(x), np.ones((0, 0)))


def test_slogdet_fields():
    a = general(3, 3)
    got = compiled(lambda x: np.linalg.slogdet(x).logabsdet)(a)
    assert got == pytest.approx(np.linalg.slogdet(a).logabsdet, rel=1e-12)


# ----------------------------------------------------------------------------- errors


def test_singular_matrix_raises_and_leaves_later_writes_undone():
    def f(a, b, out):
        out[0] = 1.0
        x = np.linalg.solve(a, b)
        out[1] = 2.0
        return x

    a, b = np.ones((3, 3)), np.ones(3)
    expected, got = np.zeros(3), np.zeros(3)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        f(a, b, expected)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        compiler.compile(f)(a, b, got)
    np.testing.assert_array_equal(got, expected)
    assert got[0] == 1.0 and got[1] == 0.0
    good = np.eye(3) * 2  # the same entry then runs through
    out = np.zeros(3)
    np.testing.assert_allclose(compiler.compile(f)(good, b, out), [0.5] * 3)
    np.testing.assert_array_equal(out, [1.0, 2.0, 0.0])


def test_inplace_update_of_argument_before_failing_call():
    def f(a, x):
        x += 1
        return np.linalg.inv(a)

    x_np, x_em = np.zeros(2), np.zeros(2)
    with pytest.raises(np.linalg.LinAlgError):
        f(np.zeros((2, 2)), x_np)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        compiler.compile(f)(np.zeros((2, 2)), x_em)
    np.testing.assert_array_equal(x_em, x_np)


@pytest.mark.parametrize(
    "fn,arg,message",
    [
        (lambda x: np.linalg.inv(x), np.zeros((2, 3, 3)), "Singular matrix"),
        (lambda x: np.linalg.cholesky(x), -np.eye(3), "Matrix is not positive definite"),
        (lambda x: np.linalg.cholesky(x), np.array([[1.0, 2.0], [2.0, 1.0]]), "Matrix is not positive definite"),
    ],
)
def test_lapack_errors(fn, arg, message):
    with pytest.raises(np.linalg.LinAlgError, match=message):
        fn(arg)
    with pytest.raises(np.linalg.LinAlgError, match=message):
        compiled(fn)(arg)


@pytest.mark.parametrize("fn", [np.linalg.cholesky, np.linalg.inv, np.linalg.det, np.linalg.eigvalsh])
def test_nan_input_gives_numpys_answer(fn):
    """LAPACK sees the NaN as NumPy's call does (no NaN check refuses it)."""
    a = spd(3)
    a[1, 1] = np.nan
    try:
        want = fn(a)
    except np.linalg.LinAlgError as e:
        with pytest.raises(np.linalg.LinAlgError, match=str(e)):
            compiled(lambda x: fn(x))(a)
        return
    got = compiled(lambda x: fn(x))(a)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(np.nan_to_num(got), np.nan_to_num(want), rtol=1e-12)


def test_one_bad_matrix_of_a_stack_raises():
    a = np.stack([np.eye(3), np.ones((3, 3))])
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        compiled(lambda x: np.linalg.inv(x))(a)


@pytest.mark.parametrize("p", ["d", "z"])
@pytest.mark.parametrize("routine", [*LAPACK_ROUTINES, "solve", "lstsq"])
def test_every_lapack_buffer_is_freed(routine, p):
    """Each helper frees every buffer it allocates (the factored copy, pivots, right-hand
    sides, work space) before it returns: they had leaked on every call."""
    text = lower_lapack.helper_text(routine, p)
    name = lower_lapack.helper_name(routine, p)
    body = text[text.index(f"func.func private @{name}(") :]
    body = body[: body.index("\n}\n") + 3]
    allocated = re.findall(r"(%\w+) = func\.call @ember_la_buffer_", body)
    assert allocated, body
    freed = re.findall(r"memref\.dealloc (%\w+) :", body)
    assert sorted(freed) == sorted(allocated), (allocated, freed)
    assert body.rindex("memref.dealloc") < body.rindex("  return")


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_repeated_solves_do_not_grow_the_process():
    """A solve with many right-hand sides allocates 12.8 MB of LAPACK buffers a call: the
    process stays the same size over 25 calls (it grew by 320 MB while they leaked)."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((16, 16)) + 16 * np.eye(16)
    b = rng.standard_normal((16, 100_000))
    solve = compiler.compile(lambda a, b: np.linalg.solve(a, b))
    np.testing.assert_allclose(solve(a, b), np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)
    for _ in range(3):
        solve(a, b)
    before = _resident_bytes()
    for _ in range(25):
        solve(a, b)
    assert _resident_bytes() - before < 40 << 20


@pytest.mark.parametrize(
    "fn,arg,error,message",
    [
        (lambda x: np.linalg.inv(x), np.ones((2, 3)), np.linalg.LinAlgError, "Last 2 dimensions of the array must be square"),
        (lambda x: np.linalg.det(x), np.ones(3), np.linalg.LinAlgError, "1-dimensional array given"),
        (lambda x: np.linalg.cholesky(x), np.ones((3, 2)), np.linalg.LinAlgError, "must be square"),
        (lambda x: np.linalg.eigh(x, UPLO="X"), np.eye(2), ValueError, "UPLO argument must be 'L' or 'U'"),
        (lambda x: np.linalg.qr(x, mode="bogus"), np.eye(2), ValueError, "Unrecognized mode 'bogus'"),
        (lambda x: np.linalg.svd(x), np.ones(3), np.linalg.LinAlgError, "Array must be at least two-dimensional"),
        (lambda x: np.linalg.norm(x, "fro", axis=0), np.ones(3), ValueError, "Invalid norm order 'fro' for vectors"),
        (lambda x: np.linalg.norm(x, 3), np.ones((2, 2)), ValueError, "Invalid norm order for matrices."),
        (lambda x: np.linalg.norm(x, axis=(0, 0)), np.ones((2, 2)), ValueError, "Duplicate axes given."),
        (lambda x: np.linalg.solve(x, np.ones(2)), np.eye(3), ValueError, r"solve1: Input operand 1 has a mismatch"),
        (lambda x: np.linalg.lstsq(x, np.ones(4)), np.eye(3), np.linalg.LinAlgError, "Incompatible dimensions"),
    ],
)  # fmt: skip
def test_shape_errors_are_numpys(fn, arg, error, message):
    with pytest.raises(error, match=message):
        fn(arg)
    with pytest.raises(error, match=message):
        compiler.compile(fn)(arg)


# ----------------------------------------------------------------------------- cholesky, eigh, svd, qr


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("batch", [(), (3,)])
def test_cholesky(dtype, upper, batch):
    a = spd(4, batch, dtype)
    got, _ = check(lambda x: np.linalg.cholesky(x, upper=upper), a)
    lower = np.swapaxes(got, -1, -2) if upper else got
    np.testing.assert_allclose(lower @ np.swapaxes(lower, -1, -2), a, rtol=1e-4 if dtype == np.float32 else 1e-10)


def test_cholesky_of_int_and_1x1():
    check(lambda x: np.linalg.cholesky(x), np.array([[4, 2], [2, 3]]))
    check(lambda x: np.linalg.cholesky(x), np.array([[9.0]]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("uplo", ["L", "U", "u"])
def test_eigh(dtype, uplo):
    a = spd(5, (2,)).astype(dtype) if dtype != np.int64 else np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]])
    got, _ = check(lambda x: np.linalg.eigh(x, UPLO=uplo), a)
    assert type(got).__name__ == "EighResult"
    w, v = got
    tol = 1e-3 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(v @ (w[..., None] * np.swapaxes(v, -1, -2)), a, rtol=tol, atol=tol)
    check(lambda x: np.linalg.eigvalsh(x, uplo), a)
    check(lambda x: np.linalg.eigh(x).eigenvalues, a)


def test_eigh_reads_only_one_triangle():
    a = spd(4)
    lower_only = np.tril(a) + np.triu(np.full((4, 4), 99.0), 1)
    check(lambda x: np.linalg.eigh(x), lower_only)
    check(lambda x: np.linalg.eigh(x, "U"), np.triu(a) + np.tril(np.full((4, 4), -7.0), -1))


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (1, 1), (2, 4, 4), (3, 0), (0, 2)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(shape, full):
    a = general(*shape)
    got, _ = check(lambda x: np.linalg.svd(x, full_matrices=full), a)
    u, s, vh = got
    assert type(got).__name__ == "SVDResult"
    k = min(shape[-2:])
    recon = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    np.testing.assert_allclose(recon, a, atol=1e-10)
    check(lambda x: np.linalg.svd(x, compute_uv=False), a)
    check(lambda x: np.linalg.svdvals(x), a)


def test_svd_float32_and_int():
    check(lambda x: np.linalg.svd(x), general(4, 3, dtype=np.float32))
    check(lambda x: np.linalg.svd(x, compute_uv=False), np.arange(12).reshape(3, 4))


def test_svd_nan_input_raises_as_numpy_does():
    a = np.full((3, 3), np.nan)
    try:
        want = np.linalg.svd(a)
    except np.linalg.LinAlgError as e:
        with pytest.raises(np.linalg.LinAlgError, match=str(e)):
            compiled(lambda x: np.linalg.svd(x))(a)
    else:
        got = compiled(lambda x: np.linalg.svd(x))(a)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.isnan(g), np.isnan(w))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (1, 1), (2, 5, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, mode):
    a = general(*shape)
    got, _ = check(lambda x: np.linalg.qr(x, mode=mode), a)
    if mode != "r":
        q, r = got
        assert type(got).__name__ == "QRResult"
        np.testing.assert_allclose(q @ r, a, atol=1e-10)
        np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2), atol=1e-10)  # fmt: skip
        assert np.allclose(np.tril(r, -1), 0)


def test_qr_float32_and_negative_strides():
    check(lambda x: np.linalg.qr(x), general(5, 3, dtype=np.float32))
    check(lambda x: np.linalg.qr(x[::-1, ::2]), general(5, 6))


def test_qr_unsupported_modes_run_in_cpython():
    a = general(3, 3)
    got = compiler.compile(lambda x: np.linalg.qr(x, mode="raw"))(a)
    want = np.linalg.qr(a, mode="raw")
    np.testing.assert_array_equal(got[0], want[0])
    explained = compiler.explain(lambda x: np.linalg.qr(x, mode="raw"))(a)
    assert "mode='raw'" in str(explained.break_reasons)


# ----------------------------------------------------------------------------- lstsq


@pytest.mark.parametrize("shape,bshape", [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 5), (3,)), ((4, 4), (4, 2))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lstsq(shape, bshape, dtype):
    a, b = general(*shape, dtype=dtype), general(*bshape, dtype=dtype)
    got, _ = check(lambda x, y: np.linalg.lstsq(x, y, rcond=None), a, b)
    assert isinstance(got[2], np.int32)


def test_lstsq_rank_deficient_drops_residuals():
    a = general(6, 3)
    a[:, 2] = a[:, 0]
    got, _ = check(lambda x, y: np.linalg.lstsq(x, y), a, general(6))
    assert got[1].shape == (0,) and got[2] == 2


def test_lstsq_rcond_and_residuals_use_break():
    a, b = general(8, 3), general(8)
    check(lambda x, y: np.linalg.lstsq(x, y, rcond=1e-3)[0], a, b)

    def f(x, y):
        x_, res, rank, s = np.linalg.lstsq(x, y)
        return res.sum() + 1.0

    assert compiler.compile(f)(a, b) == pytest.approx(f(a, b), rel=1e-12)


# ----------------------------------------------------------------------------- norm


@pytest.mark.parametrize("ord", [None, 1, -1, 2, -2, np.inf, -np.inf, 0, 3, 0.5, -1.5])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, bool])
def test_vector_norm(ord, dtype):
    x = (general(7) * 3).astype(dtype)
    check(lambda v: np.linalg.norm(v, ord), x, rtol=_tol(dtype, CONTRACT_RTOL) * 10)
    check(lambda v: np.linalg.norm(v, ord, axis=0, keepdims=True), x, rtol=_tol(dtype, CONTRACT_RTOL) * 10)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
@pytest.mark.parametrize("axis", [None, (0, 1), (1, 0), (-1, -2)])
def test_matrix_norm(ord, axis):
    x = general(4, 5)
    check(lambda m: np.linalg.norm(m, ord, axis=axis), x, rtol=1e-12)
    check(lambda m: np.linalg.norm(m, ord, axis=axis, keepdims=True), x, rtol=1e-12)


@pytest.mark.parametrize("ord", [None, 2, "fro", 1, np.inf, "nuc"])
def test_norm_of_stacks_and_views(ord):
    x = general(3, 4, 5)
    axis = (1, 2) if ord is not None else None
    check(lambda m: np.linalg.norm(m[:, ::-1, 1:], ord, axis=axis), x, rtol=1e-12)
    check(lambda m: np.linalg.norm(m, None if isinstance(ord, str) else 2, axis=1), x, rtol=1e-12)


def test_norm_float32_and_nan():
    check(lambda v: np.linalg.norm(v), general(3, 4, dtype=np.float32))
    v = general(5)
    v[2] = np.nan
    check(lambda x: np.linalg.norm(x), v)
    check(lambda x: np.linalg.norm(x, np.inf), v)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_norms_of_complex_arrays(dtype):
    """Complex norms that need no factorization: NumPy's formulas (real dots, |x|^2 as
    (x.conj() * x).real, abs for the others), real results of the parts' dtype."""
    v, m = _complex(7, dtype=dtype), _complex(4, 5, dtype=dtype)
    rtol = _tol(np.float32 if dtype == np.complex64 else np.float64, CONTRACT_RTOL) * 10
    check(lambda x: np.linalg.norm(x), v, rtol=rtol)
    check(lambda x: np.linalg.norm(x), m, rtol=rtol)
    check(lambda x: np.linalg.norm(x, "fro"), m, rtol=rtol)
    check(lambda x: np.linalg.norm(x, 1), m, rtol=rtol)
    check(lambda x: np.linalg.norm(x, -np.inf), m, rtol=rtol)
    check(lambda x: np.linalg.norm(x, axis=1, keepdims=True), m, rtol=rtol)
    check(lambda x: np.linalg.norm(x, 0, axis=0), m, rtol=rtol)
    check(lambda x: np.linalg.norm(x, np.inf, axis=1), m, rtol=rtol)
    check(lambda x: np.linalg.norm(x, 3, axis=0), m, rtol=rtol)


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
def test_complex_norms_through_the_svd(ord):
    check(lambda x: np.linalg.norm(x, ord), _complex(3, 4))
    check(lambda x: np.linalg.norm(x, ord, axis=(2, 1)), _complex(2, 3, 3, dtype=np.complex64))


def test_norm_of_empty():
    check(lambda v: np.linalg.norm(v), np.ones((0, 3)))
    check(lambda v: np.linalg.norm(v, np.inf, axis=0), np.ones((0, 3)))


# ----------------------------------------------------------------------------- complex factorizations

COMPLEX = [np.complex128, np.complex64]


def hermitian_pd(n, batch=(), dtype=np.complex128):
    a = _complex(*batch, n, n)
    return (a @ np.swapaxes(a, -1, -2).conj() + n * np.eye(n)).astype(dtype)


def _parts_tol(dtype):
    return _tol(np.float32 if np.dtype(dtype) == np.complex64 else np.float64)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape,bshape", [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1))])
def test_complex_solve_and_inv(dtype, shape, bshape):
    """zgesv, as NumPy: complex128 work, complex64 results for complex64 input."""
    a = _complex(*shape, dtype=dtype) + 3 * np.eye(shape[-1], dtype=dtype)
    b = _complex(*bshape, dtype=dtype)
    check(lambda x, y: np.linalg.solve(x, y), a, b, rtol=_parts_tol(dtype) * 10)
    check(lambda x: np.linalg.inv(x), a, rtol=_parts_tol(dtype) * 10)
    check(lambda x, y: np.linalg.solve(x, y), a, general(*bshape), rtol=_parts_tol(dtype) * 10)  # real b: promoted


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", [(3, 3), (1, 1), (2, 4, 4), (0, 3, 3)])
def test_complex_det_and_slogdet(dtype, shape):
    """A complex sign (the product of u_ii/|u_ii| and the pivots' parity) and a real log|det|."""
    a = _complex(*shape, dtype=dtype)
    check(lambda x: np.linalg.slogdet(x), a, rtol=_parts_tol(dtype) * 100)
    check(lambda x: np.linalg.det(x), a, rtol=_parts_tol(dtype) * 100)


def test_complex_det_of_singular_is_zero():
    a = np.array([[1 + 1j, 2 + 2j], [2 + 2j, 4 + 4j]])
    sign, logdet = compiled(lambda x: np.linalg.slogdet(x))(a)
    assert sign == 0 and logdet == -np.inf and sign.dtype == np.complex128 and logdet.dtype == np.float64
    assert compiled(lambda x: np.linalg.det(x))(a) == 0


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("upper", [False, True])
def test_complex_cholesky_and_eigh(dtype, upper):
    """zpotrf and zheevd: real eigenvalues of the parts' dtype, complex vectors."""
    h = hermitian_pd(4, (2,), dtype=dtype)
    check(lambda x: np.linalg.cholesky(x, upper=upper), h, rtol=_parts_tol(dtype) * 10)
    uplo = "U" if upper else "L"
    w, v = compiled(lambda x: np.linalg.eigh(x, UPLO=uplo))(h)
    want_w, want_v = np.linalg.eigh(h, UPLO=uplo)
    assert w.dtype == want_w.dtype and v.dtype == want_v.dtype
    np.testing.assert_allclose(w, want_w, rtol=_parts_tol(dtype) * 10)
    np.testing.assert_allclose(np.abs(v), np.abs(want_v), rtol=_parts_tol(dtype) * 100, atol=1e-5)
    rebuilt = v @ (w[..., None] * np.swapaxes(v, -1, -2).conj())
    np.testing.assert_allclose(rebuilt, h, rtol=1e-4 if dtype == np.complex64 else 1e-10)
    check(lambda x: np.linalg.eigvalsh(x, UPLO=uplo), h, rtol=_parts_tol(dtype) * 10)


def test_complex_cholesky_of_an_indefinite_matrix_raises():
    a = np.array([[1.0, 2.0j], [-2.0j, 1.0]])
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        compiled(lambda x: np.linalg.cholesky(x))(a)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (1, 1), (2, 4, 4), (3, 0)])
@pytest.mark.parametrize("full", [True, False])
def test_complex_svd(shape, full):
    """zgesdd: real singular values; the factors rebuild the matrix."""
    a = _complex(*shape)
    u, s, vh = compiled(lambda x: np.linalg.svd(x, full_matrices=full))(a)
    want_u, want_s, want_vh = np.linalg.svd(a, full_matrices=full)
    for got, want in ((u, want_u), (s, want_s), (vh, want_vh)):
        assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(s, want_s, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(u, want_u, rtol=1e-10, atol=1e-10)  # NumPy's routine: the same phases
    k = min(shape[-2:])
    rebuilt = (u[..., :k] * s[..., None, :]) @ vh[..., :k, :]
    np.testing.assert_allclose(rebuilt, a, atol=1e-10)
    check(lambda x: np.linalg.svd(x, compute_uv=False), a.astype(np.complex64))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_complex_qr(shape, mode):
    """zgeqrf + zungqr."""
    a = _complex(*shape)
    check(lambda x: np.linalg.qr(x, mode=mode), a, rtol=1e-10)
    check(lambda x: np.linalg.qr(x[..., ::-1, :], mode=mode), a.astype(np.complex64), rtol=1e-4)


@pytest.mark.parametrize("shape,bshape", [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 5), (3,))])
def test_complex_lstsq(shape, bshape):
    """zgelsd: complex solution, real residuals (sums of |r|**2) and singular values."""
    a, b = _complex(*shape), _complex(*bshape)
    check(lambda x, y: np.linalg.lstsq(x, y), a, b, rtol=1e-10)
    check(lambda x, y: np.linalg.lstsq(x, y), a.astype(np.complex64), b.astype(np.complex64), rtol=1e-4)


def test_complex_factorizations_in_one_graph():
    """A hermitian solve through cholesky in one compiled graph, no break."""

    def whiten(x, y):
        gram = x.conj().T @ x
        chol = np.linalg.cholesky(gram)
        return np.linalg.solve(chol, x.conj().T @ y)

    x, y = _complex(12, 3), _complex(12)
    check(whiten, x, y, rtol=1e-10)
    explained = compiler.explain(whiten)(x, y)
    assert explained.graph_count == 1 and explained.graph_break_count == 0


def test_complex_routines_in_the_reference_interpreter():
    """The eager backend packs complex results as the compiled kernels do."""
    a, h = _complex(3, 3), hermitian_pd(3)
    for fn, arg in ((lambda x: np.linalg.slogdet(x), a), (lambda x: np.linalg.eigh(x), h)):
        got, want = compiler.compile(fn, backend="eager")(arg), fn(arg)
        for g, w in zip(got, want):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_float16_is_numpys_type_error():
    fn = compiler.compile(lambda x: np.linalg.inv(x))
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        fn(np.eye(2, dtype=np.float16))


# ----------------------------------------------------------------------------- symbolic sizes, programs


def test_solve_with_symbolic_sizes_compiles_once():
    f = compiler.compile(lambda a, b: np.linalg.solve(a, b) + np.linalg.norm(b), dynamic=True)
    for n in (3, 5, 7):
        a, b = general(n, n) + n * np.eye(n), general(n)
        np.testing.assert_allclose(f(a, b), np.linalg.solve(a, b) + np.linalg.norm(b), rtol=1e-12)


def test_normal_equations_program_is_one_graph():
    def fit(x, y):
        gram = x.T @ x
        chol = np.linalg.cholesky(gram)
        z = np.linalg.solve(chol, x.T @ y)
        return np.linalg.solve(chol.T, z)

    x, y = general(20, 4), general(20)
    check(fit, x, y, rtol=1e-10)
    explained = compiler.explain(fit)(x, y)
    assert explained.graph_count == 1 and explained.graph_break_count == 0


@pytest.mark.skipif(not blas_symbols.available(), reason="no BLAS in this NumPy")
def test_a_matmul_feeding_lapack_stays_a_blas_call():
    """``np.linalg.cholesky(X.T @ X)``: the (1, m, m) batch the LAPACK op takes is added to
    the buffer, not as a tensor reshape, which reshape fusion folded into the matmul (a
    4-loop generic, never BLAS: 6 s for a 20000 x 300 ``X`` instead of 70 ms)."""
    from compiler.backends import compile_graph
    from compiler.mlir import ir
    from compiler.passes.pass_manager import run_pipeline

    modules = []

    def recording(module, example_inputs):
        modules.append(str(module))
        return compile_graph(module, "cpu")

    def f(x):
        return np.linalg.cholesky(x.T @ x + 0.5 * np.eye(x.shape[1]))

    x = np.random.default_rng(0).standard_normal((40, 6))
    np.testing.assert_allclose(compiler.compile(f, backend=recording)(x), f(x), rtol=1e-12)
    (text,) = modules
    from compiler.dialects import ember

    with ember.new_context():
        module = ir.Module.parse(text)
        run_pipeline(
            module, "builtin.module(ember-to-linalg,ember-fuse,ember-tile,ember-bufferize,ember-matmul-to-blas)"
        )
        lowered = str(module)
    assert re.search(r"call @ember_(matmul|gram|gram_add)_f64\(", lowered), "the matmul no longer reaches BLAS"


def test_lapack_helpers_are_linked_from_the_helper_library():
    """A kernel declares its LAPACK helper and names the library defining it, which the
    backend compiles once per process, not into each kernel (``helper_library.py``)."""
    from compiler.backends import compile_graph
    from compiler.backends.llvm_cpu import helper_library, lower_to_object
    from compiler.mlir import function_named, symbol_name

    modules = []

    def recording(module, example_inputs):
        modules.append(module)
        return compile_graph(module, "cpu")

    a = general(6, 6)
    got = compiler.compile(lambda x: np.linalg.inv(x), backend=recording)(a)
    np.testing.assert_allclose(got, np.linalg.inv(a), rtol=1e-10)
    entry = symbol_name(function_named(modules[0]))
    lowered = lower_to_object(modules[0], entry, (True,))
    assert "declare void @ember_lapack_inv(" in lowered.llvm_ir
    assert "@ember_lapack_dgesv" not in lowered.llvm_ir  # called from the library only
    assert lowered.libraries == ("lapack_inv_d",)
    assert "lapack_inv_d" in helper_library._loaded
    assert "call @ember_lapack_dgesv" in helper_library._text("lapack_inv_d")


@pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors are deprecated")  # NumPy's, in CPython
def test_cross_of_three_vectors():
    """np.cross along the last axes, broadcast, in the promoted dtype: NumPy's product
    minus product, bit for bit (int8 wraps as NumPy's); 2-vectors and other axes break."""
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((20, 3)), rng.standard_normal((20, 3))
    small = rng.integers(-100, 100, (4, 3)).astype(np.int8)
    for fn, args in [
        (lambda a, b: np.cross(a, b), (a, b)),
        (lambda a, b: np.cross(a, b[0]), (a, b)),
        (lambda a, b: np.cross(a.astype(np.float32), b), (a, b)),
        (lambda a, b: np.cross(a[0], b[0]), (a, b)),
        (lambda a, b: np.cross(a, b), (small, small[::-1])),
    ]:
        got, want = compiler.compile(fn, options={"strict": True})(*args), fn(*args)
        assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
    assert compiler.explain(lambda a, b: np.cross(a[:, :2], b))(a, b).graph_break_count == 1
    assert compiler.explain(lambda a, b: np.cross(a, b, axis=0))(a.T.copy(), b.T.copy()).graph_break_count == 1
    with pytest.raises(ValueError, match="incompatible dimensions"):
        compiler.compile(lambda a, b: np.cross(a[:, :1], b))(a, b)


def test_matrix_power_in_numpys_order():
    """np.linalg.matrix_power's products in NumPy's order (a @ a, (a @ a) @ a, squarings
    with the exponent's bits); 0 the identity, negative of the inverse, stacks of
    matrices, integers."""
    rng = np.random.default_rng(9)
    A, ints, stack = rng.standard_normal((6, 6)), rng.integers(-3, 3, (4, 4)), rng.standard_normal((3, 5, 5))
    for fn, args in [
        (lambda A: tuple(np.linalg.matrix_power(A, n) for n in (0, 1, 2, 3, 5, 13)), (A,)),
        (lambda A: np.linalg.matrix_power(A, -2), (A,)),
        (lambda i: np.linalg.matrix_power(i, 4), (ints,)),
        (lambda s: np.linalg.matrix_power(s, 6), (stack,)),
    ]:
        got, want = compiler.compile(fn, options={"strict": True})(*args), fn(*args)
        for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    with pytest.raises(TypeError, match="exponent must be an integer"):
        compiler.compile(lambda A: np.linalg.matrix_power(A, 2.0))(A)
