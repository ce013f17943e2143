"""``A @ p`` and ``r @ A`` of one matrix in one pass (``ember-matvec-pairs``), against NumPy.

The shapes reach every path of the helper: full groups of eight rows and the rows left
over, full vectors and the columns past the last one, one column block or several (so
the forked loop splits across threads, and each row's dot product is the sum of several
blocks' partials; a chain's rows in one part or several). Pairs are found in either
order and with what lies between them (``x1 + A @ y1``'s copy), chains (``A.T @ (A @ x)``)
with the intermediate vector returned or not; products of two matrices are neither."""

import numpy as np
import pytest
from blas_oracle import assert_reordered_close
from graph_building import loops_of

import compiler

# A kernel that fails to compile runs eagerly with a warning: here that is a failure.
pytestmark = pytest.mark.filterwarnings("error:ember:RuntimeWarning")

RNG = np.random.default_rng(53)
SHAPES = [(1, 1), (3, 7), (8, 16), (17, 9), (9, 17), (130, 257), (1031, 1029), (8, 6000)]
CALL = "call @ember_matvec_pair_loops_"
CHAIN = "call @ember_matvec_chain_loops_"

PAIRS = {
    "bicg": lambda A, p, r: (r @ A, A @ p),
    "matvec-first": lambda A, p, r: (A @ p, r @ A),
    "A.T@r": lambda A, p, r: (A @ p, A.T @ r),
    "np.dot": lambda A, p, r: (np.dot(A, p), np.dot(r, A)),
    "mvt": lambda A, p, r: (r + A @ p, p + A.T @ r) if A.shape[0] == A.shape[1] else (A @ p, r @ A),
}


def _operands(shape, dtype):
    m, n = shape
    return (
        RNG.standard_normal((m, n)).astype(dtype),
        RNG.standard_normal(n).astype(dtype),
        RNG.standard_normal(m).astype(dtype),
    )


CHAINS = {
    "atax": lambda A, p, r: A.T @ (A @ p),
    "(A@p)@A": lambda A, p, r: (A @ p) @ A,
    "both-returned": lambda A, p, r: (A @ p, (A @ p) @ A),
    "np.dot-chain": lambda A, p, r: np.dot(np.dot(A, p), A),
}
PROGRAMS = {**{name: (fn, CALL) for name, fn in PAIRS.items()}, **{name: (fn, CHAIN) for name, fn in CHAINS.items()}}


@pytest.mark.parametrize("program", list(PROGRAMS))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_numpy(program, shape, dtype, thread_count):
    A, p, r = _operands(shape, dtype)
    fn, _ = PROGRAMS[program]
    assert_reordered_close(compiler.compile(fn)(A, p, r), fn(A, p, r), sum(shape))


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_both_products_are_one_call(program):
    A, p, r = _operands((40, 40), np.float64)
    fn, call = PROGRAMS[program]
    loops = loops_of(fn, A, p, r)
    assert loops.count(call + "f64(") == 1 and loops.count("call @ember_matvec_") == 1
    assert "linalg.matvec" not in loops and "linalg.vecmat" not in loops


NOT_PAIRS = {
    "two-matrices": lambda A, B, p, r: (A @ p, r @ B),
    "chain-of-two": lambda A, B, p, r: (A @ p) @ B,
}


@pytest.mark.parametrize("program", list(NOT_PAIRS))
def test_products_of_two_matrices_are_not_pairs(program):
    A, p, r = _operands((60, 60), np.float64)
    B = RNG.standard_normal((60, 60))
    fn = NOT_PAIRS[program]
    loops = loops_of(fn, A, B, p, r)
    assert CALL not in loops and CHAIN not in loops
    assert_reordered_close(compiler.compile(fn)(A, B, p, r), fn(A, B, p, r), 60)


def test_a_matrix_written_between_the_products():
    """``A *= 2`` between them: the second product reads the new A (the frontend takes it
    as ``2 * (r @ A)``, still a pair), and the caller's A is doubled."""

    def fn(A, p, r):
        q = A @ p
        A *= 2.0
        return q, r @ A

    A, p, r = _operands((50, 70), np.float64)
    A2 = A.copy()
    got = compiler.compile(fn)(A, p, r)
    assert_reordered_close(got, fn(A2, p, r), 70)
    np.testing.assert_array_equal(A, A2)


@pytest.mark.parametrize(
    "view",
    [
        lambda A: A[::2],  # rows 2n apart, each contiguous: the pair
        lambda A: A[1:, 3:],  # a block: contiguous rows, offset
        lambda A: A[::-1],  # rows backwards, each contiguous: the pair
        lambda A: np.asfortranarray(A),  # column-major: the products apart (BLAS)
        lambda A: A[:, ::2],  # strided rows: the products apart
    ],
    ids=["every-other-row", "block", "reversed-rows", "fortran", "strided-rows"],
)
def test_views(view, thread_count):
    A = view(RNG.standard_normal((602, 530)))
    m, n = A.shape
    p, r = RNG.standard_normal(n), RNG.standard_normal(m)
    fn = PAIRS["bicg"]
    assert_reordered_close(compiler.compile(fn)(A, p, r), fn(A, p, r), max(m, n))


def test_strided_vectors():
    A = RNG.standard_normal((300, 260))
    p, r = RNG.standard_normal(2 * 260)[::2], RNG.standard_normal(3 * 300)[::-3]
    fn = PAIRS["bicg"]
    assert_reordered_close(compiler.compile(fn)(A, p, r), fn(A, p, r), 300)


def test_nan_and_infinities_propagate():
    A, p, r = _operands((70, 90), np.float64)
    A[3, 5], A[10, 88], p[7], r[40] = np.nan, np.inf, -np.inf, np.nan
    fn = PAIRS["bicg"]
    for got, want in zip(compiler.compile(fn)(A, p, r), fn(A, p, r), strict=True):
        assert np.array_equal(np.isnan(got), np.isnan(want))
        assert np.array_equal(np.isinf(got), np.isinf(want))
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12)


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (0, 0)])
def test_empty(shape):
    A, p, r = _operands(shape, np.float64)
    fn = PAIRS["bicg"]
    for got, want in zip(compiler.compile(fn)(A, p, r), fn(A, p, r), strict=True):
        assert got.shape == want.shape and not got.any()


def test_changing_sizes(thread_count):
    """Symbolic sizes: whether A is wide enough to split its columns is read at run time
    (a tall, narrow A runs both products apart, with BLAS)."""
    fn = PAIRS["bicg"]
    compiled = compiler.compile(fn)
    for shape in [(300, 200), (20000, 32), (500, 700), (7, 3), (40000, 130)]:
        A, p, r = _operands(shape, np.float64)
        assert_reordered_close(compiled(A, p, r), fn(A, p, r), max(shape))


def test_kernel_links_the_library_whose_helpers_fork():
    from compiler.backends.llvm_cpu import helper_library, lower_to_object
    from compiler.dialects.builder import FunctionBuilder
    from compiler.dialects.types import TensorType
    from compiler.passes.matvec import VECMAT_ROWS

    b = FunctionBuilder("f", [TensorType((600, 500), "f64"), TensorType((500,), "f64"), TensorType((600,), "f64")])
    a, p, r = b.args
    lowered = lower_to_object(b.finish([b.op("matmul", r, a), b.op("matmul", a, p)]), "f", (True, True, True))
    assert lowered.libraries == ("matvec_pair_f64",)
    assert "call void @ember_matvec_pair_loops_f64(" in lowered.llvm_ir.replace('"', "")
    library = helper_library.library_llvm_ir("matvec_pair_f64", prefetch=True).replace('"', "")
    # the pair's eight-row and one-row bodies; the chain's, each a dot-product sweep and an update sweep
    assert library.count("call void @llvm.prefetch") == (VECMAT_ROWS + 1) + 2 * (VECMAT_ROWS + 1)
    assert library.count("call void @ember_pool_run(") == 2  # both helpers' blocks fork
