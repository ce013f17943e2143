"""Matrix-vector products through Ember's own loops (``ember-matvec-loops``), against NumPy.

The shapes reach every path of the helpers: full groups of four rows and the rows
left over, full vectors and the columns past the last one, several row and column
tiles (so the forked loop splits across threads) and a partial last one, a
prefetch clamped at the end of a row or at the last row; with float32 and float64,
NaN and infinities, and the views whose rows are contiguous (the loops) beside
those whose rows are not (BLAS)."""

import numpy as np
import pytest
from blas_oracle import assert_reordered_close

import compiler
from compiler.backends.llvm_cpu import helper_library, lower_to_object
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType
from compiler.passes.matvec import MATVEC_ROWS, VECMAT_ROWS
from runtime.target import has_512_bit_vectors, host_target

# A kernel that fails to compile runs eagerly with a warning: here that is a failure.
pytestmark = pytest.mark.filterwarnings("error:ember:RuntimeWarning")

RNG = np.random.default_rng(31)
SHAPES = [(1, 1), (3, 7), (4, 8), (17, 9), (27, 19), (33, 1), (1, 33), (130, 257), (1031, 1029), (8, 4099)]

PROGRAMS = {
    "A@x": lambda A, x, y: A @ x,
    "y@A": lambda A, x, y: y @ A,
    "A.T@y": lambda A, x, y: A.T @ y,
    "np.dot(A, x)": lambda A, x, y: np.dot(A, x),
    "(A@x)@A": lambda A, x, y: (A @ x) @ A,
    "bicg": lambda A, x, y: (y @ A, A @ x),
    "gesummv": lambda A, x, y: 1.5 * A @ x + 0.5 * (A * 2.0) @ x,
}


def _operands(shape, dtype):
    m, n = shape
    A = RNG.standard_normal((m, n)).astype(dtype)
    return A, RNG.standard_normal(n).astype(dtype), RNG.standard_normal(m).astype(dtype)


@pytest.mark.parametrize("program", list(PROGRAMS))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_numpy(program, shape, dtype, thread_count):
    A, x, y = _operands(shape, dtype)
    fn = PROGRAMS[program]
    assert_reordered_close(compiler.compile(fn)(A, x, y), fn(A, x, y), max(shape))


@pytest.mark.parametrize(
    "view",
    [
        lambda A: A[::2],  # rows 2n apart, each contiguous: the loops
        lambda A: A[1:, 3:],  # a block: contiguous rows, offset
        lambda A: A[::-1],  # rows backwards, each contiguous: the loops
        lambda A: A[:, ::-1],  # columns backwards: BLAS or its loops
        lambda A: np.asfortranarray(A),  # column-major: BLAS
        lambda A: A[:, ::2],  # strided rows: BLAS's fallback loops
    ],
    ids=["every-other-row", "block", "reversed-rows", "reversed-columns", "fortran", "strided-rows"],
)
@pytest.mark.parametrize("program", ["A@x", "y@A", "A.T@y"])
def test_views(view, program, thread_count):
    base = RNG.standard_normal((602, 530))
    A = view(base)
    m, n = A.shape
    x, y = RNG.standard_normal(n), RNG.standard_normal(m)
    fn = PROGRAMS[program]
    assert_reordered_close(compiler.compile(fn)(A, x, y), fn(A, x, y), max(m, n))


@pytest.mark.parametrize("program", ["A@x", "y@A"])
def test_strided_vectors(program):
    A = RNG.standard_normal((300, 260))
    x, y = RNG.standard_normal(2 * 260)[::2], RNG.standard_normal(3 * 300)[::-3]
    fn = PROGRAMS[program]
    assert_reordered_close(compiler.compile(fn)(A, x, y), fn(A, x, y), 300)


@pytest.mark.parametrize("program", ["A@x", "y@A"])
def test_nan_and_infinities_propagate(program):
    A, x, y = _operands((70, 90), np.float64)
    A[3, 5], A[10, 88], x[7], y[40] = np.nan, np.inf, -np.inf, np.nan
    fn = PROGRAMS[program]
    got, want = compiler.compile(fn)(A, x, y), fn(A, x, y)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12)


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (0, 0)])
@pytest.mark.parametrize("program", ["A@x", "y@A"])
def test_empty(shape, program):
    A, x, y = _operands(shape, np.float64)
    fn = PROGRAMS[program]
    got = compiler.compile(fn)(A, x, y)
    assert got.shape == fn(A, x, y).shape and not got.any()


def test_kernel_calls_the_library_which_prefetches_and_forks():
    b = FunctionBuilder("f", [TensorType((600, 500), "f64"), TensorType((500,), "f64")])
    a, x = b.args
    lowered = lower_to_object(b.finish([b.op("matmul", a, x)]), "f", (True, True))
    assert "call void @ember_matvec_loops_f64(" in lowered.llvm_ir.replace('"', "")
    assert "ember_blas_dgemv" not in lowered.llvm_ir and "llvm.prefetch" not in lowered.llvm_ir
    assert lowered.libraries == ("matvec_f64",)
    library = helper_library.library_llvm_ir("matvec_f64", prefetch=True).replace('"', "")
    # matvec's MATVEC_ROWS-row and one-row bodies, vecmat's VECMAT_ROWS-row and one-row ones
    assert library.count("call void @llvm.prefetch") == (MATVEC_ROWS + 1) + (VECMAT_ROWS + 1)
    unprefetched = helper_library.library_llvm_ir("matvec_f64", prefetch=False).replace('"', "")
    assert "llvm.prefetch" not in unprefetched and unprefetched.count("call void @ember_pool_run(") == 2
    assert library.count("call void @ember_pool_run(") == 2  # both helpers' loops fork
    assert library.count("mul i64 %threads, 1") == 2  # in one part per thread: their blocks are per thread
    assert '"prefer-vector-width"="512"' in helper_library.library_llvm_ir("matvec_f64") or not has_512_bit_vectors()


def test_the_host_decides_the_prefetches():
    """A Zen 4's libraries have none (its prefetchers follow the rows: measured slower
    with them); the CPUs they were measured to help keep them; the host's own choice is
    what the library is built with."""
    assert not helper_library.prefetches_pay("znver4")
    assert all(helper_library.prefetches_pay(cpu) for cpu in ("znver3", "rocketlake", "skylake-avx512"))
    host = helper_library.prefetches_pay(host_target().cpu)
    assert helper_library.library_llvm_ir("matvec_f64") == helper_library.library_llvm_ir("matvec_f64", prefetch=host)


@pytest.mark.parametrize("program", ["y@A", "A.T@y", "A@x"])
def test_changing_sizes(program, thread_count):
    """Sizes that change make the kernel's sizes symbolic: x @ A then checks at run time
    whether A is wide (its columns split across threads) or tall and narrow (BLAS)."""
    fn = PROGRAMS[program]
    compiled = compiler.compile(fn)
    for shape in [(300, 200), (20000, 32), (500, 700), (7, 3), (40000, 130)]:
        A, x, y = _operands(shape, np.float64)
        assert_reordered_close(compiled(A, x, y), fn(A, x, y), max(shape))


def test_products_beside_other_blas_work_stay_with_blas():
    """A kernel with a matrix product for BLAS keeps its matrix-vector products there too:
    one library's threads, not two pools competing."""
    from graph_building import loops_of

    A, x, _ = _operands((300, 200), np.float64)
    B = RNG.standard_normal((200, 50))
    loops = loops_of(lambda A, x, B: (A @ x, A @ B), A, x, B)
    assert "call @ember_matvec_f64(" in loops and "ember_matvec_loops" not in loops
    alone = loops_of(lambda A, x: A @ x, A, x)
    assert "call @ember_matvec_loops_f64(" in alone


def test_products_beside_a_short_dot_keep_the_loops():
    """``np.linalg.norm(A @ v)`` (a BLAS dot of the product with itself) and ``v @ A @ v``:
    OpenBLAS takes a dot of up to 10000 elements on the calling thread, so the products
    stay with the loops (they went to BLAS: a power iteration ran 0.88x NumPy), and
    ``v @ A`` is one call of its helper, not a loop of calls over 21-column tiles of A."""
    from graph_building import loops_of

    A, x, _ = _operands((1500, 1500), np.float64)
    programs = {
        "norm": lambda A, x: A @ x / np.linalg.norm(A @ x),
        "quadratic form": lambda A, x: x @ A @ x,
        "power step": lambda A, x: (lambda w: w / np.linalg.norm(w))(A @ x),
    }
    for name, fn in programs.items():
        loops = loops_of(fn, A, x)
        assert "_loops_f64(" in loops and "call @ember_matvec_f64(" not in loops, name
        assert "call @ember_vecmat_f64(" not in loops and "scf.forall" not in loops.split("func.func @ember_forked")[0]
        assert_reordered_close(compiler.compile(fn)(A, x), fn(A, x), 1500)
    long = RNG.standard_normal(20000)
    beside_long = loops_of(lambda A, x, u: (A @ x, u @ u), A, x, long)
    assert "call @ember_matvec_f64(" in beside_long and "ember_matvec_loops" not in beside_long
