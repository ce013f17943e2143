"""Float32 ``A @ B`` on Ember's own packed kernel (``ember-gemm-loops``), against NumPy.

The shapes reach every path of the helper: whole 6 x 64 tiles and the edge tiles
(through the scratch tile), the shared dimension in one block of 256 or several (the
tile stored, then added), under the four-step unrolling and past it, several 512-column
blocks of B and several 768-row chunks of A (the AVX-512 blocking; AVX2's tiles, 4 x 24,
blocks, 240, and chunks, 512, are smaller, so the same shapes reach its paths), the rows
split across threads (tall) or the columns (short and wide, or where that copies less)."""

import numpy as np
import pytest
from blas_oracle import assert_reordered_close
from graph_building import loops_of

import compiler
from compiler.dialects.ember import new_context
from compiler.dialects.library_products import SMALL_K
from compiler.passes import gemm

# A kernel that fails to compile runs eagerly with a warning: here that is a failure.
pytestmark = pytest.mark.filterwarnings("error:ember:RuntimeWarning")

RNG = np.random.default_rng(61)
CALL = "call @ember_gemm_loops_f32("
BIAS_CALL = "call @ember_gemm_bias_loops_f32("
SHAPES = [  # (m, k, n), each with m * k * n > gemm.MIN_MACS
    (13, 1029, 33),  # one panel and an edge panel; k in five blocks, the last of 5
    (1, 600, 530),  # one row; two column blocks, the second short
    (37, 257, 31),  # k one past a block; n under one panel
    (12, 256, 100),  # whole panel rows, one whole block of k
    (100, 1, 3000),  # k = 1: only the steps past the unrolled ones
    (300, 3, 300),  # k under one unrolled iteration
    (5, 70000, 1),  # one column
    (769, 17, 33),  # a second chunk of rows with one row
    (200, 130, 1100),  # three column blocks
    (256, 512, 2048),  # the MLP's first layer: columns split across threads (less to copy)
    (300, 400, 260),  # rows split across threads (less to copy)
    (40, 600, 1000),  # too few rows to split: columns split across threads
    (769, 300, 40),  # too few columns to split: two chunks of rows split across threads
]


def _operands(m, k, n, dtype=np.float32):
    return RNG.standard_normal((m, k)).astype(dtype), RNG.standard_normal((k, n)).astype(dtype)


def matmul(a, b):
    return a @ b


@pytest.mark.parametrize("columns", ["static", "symbolic"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_matches_numpy(shape, thread_count, columns):
    """With symbolic columns the kernel takes every shape, narrower than a panel too (a
    static one narrower than a panel goes to BLAS: ``test_narrow_products_left_to_blas``)."""
    a, b = _operands(*shape)
    if columns == "symbolic":
        compiler.mark_dynamic(b, 1)
        assert shape[1] <= SMALL_K or shape[2] < 2 or CALL in loops_of(matmul, a, b)  # else summed inline
    got = compiler.compile(matmul)(a, b)
    assert_reordered_close(got, a @ b, shape[1])


@pytest.mark.parametrize("n", [1, 31, 33])
def test_narrow_products_left_to_blas(n):
    """Fewer static columns than a panel of the host's tile: BLAS (the kernel would fill
    part of each tile), at a panel's width the kernel."""
    nr = gemm.GEOMETRIES[gemm.host_vector_bits()].nr
    a, b = _operands(900, 300, n)
    assert (CALL in loops_of(matmul, a, b)) == (n >= nr)
    assert_reordered_close(compiler.compile(matmul)(a, b), a @ b, 300)
    a, b = _operands(900, 300, nr)
    assert CALL in loops_of(matmul, a, b)


def test_the_product_is_one_call_of_the_helper():
    a, b = _operands(64, 64, 128)
    loops = loops_of(matmul, a, b)
    assert loops.count(CALL) == 1 and "linalg.matmul" not in loops and "ember_blas" not in loops


@pytest.mark.parametrize(
    "case",
    [
        ((8, 8, 8), np.float32),  # too small: BLAS is faster
        ((64, 64, 64), np.float32),  # 2**18: BLAS's one-thread size, its row blocks on our threads
        ((64, 64, 128), np.float64),  # float64: BLAS
    ],
    ids=["small", "2**18", "float64"],
)
def test_left_to_blas(case):
    shape, dtype = case
    a, b = _operands(*shape, dtype=dtype)
    assert CALL not in loops_of(matmul, a, b)
    assert_reordered_close(compiler.compile(matmul)(a, b), a @ b, shape[1])


def linear_relu(x, w, bias):
    return np.maximum(x @ w + bias, 0)


@pytest.mark.parametrize("shape", [(300, 700, 150), (37, 257, 95), (13, 1029, 97), (769, 300, 72)], ids=str)
def test_bias_and_relu_applied_as_each_tile_is_stored(shape, thread_count):
    """``relu(x @ w + b)``: the bias and ``max`` folded into the helper (on the last
    block of k), no temporary product and no second loop; edge tiles too."""
    m, k, n = shape
    x, w = _operands(m, k, n)
    bias = RNG.standard_normal(n).astype(np.float32)
    loops = loops_of(linear_relu, x, w, bias)
    assert loops.count(BIAS_CALL) == 1 and CALL not in loops and "linalg.generic" not in loops
    assert_reordered_close(compiler.compile(linear_relu)(x, w, bias), linear_relu(x, w, bias), k)


def test_relu_keeps_nan_and_the_bias_strided():
    """A NaN in the product stays NaN through ``max``; a strided bias is not what the
    helper reads (vector loads), so the run-time check sends it to BLAS and the loop."""
    x, w = _operands(100, 300, 200)
    x[5, 7] = np.nan
    bias = RNG.standard_normal(400).astype(np.float32)[::2]
    with np.errstate(invalid="ignore"):
        got, want = compiler.compile(linear_relu)(x, w, bias), linear_relu(x, w, bias)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(got[5]).all()
    keep = ~np.isnan(want)
    np.testing.assert_allclose(got[keep], want[keep], rtol=2e-5, atol=1e-3)


def test_an_output_written_into_an_operand():
    """``a[:] = relu(a @ w + b)``: the kernel writes the result into an output of its
    own (which the runtime then writes into ``a``), never into ``a`` while the helper
    still reads it."""

    def update(a, w, bias):
        a[:] = np.maximum(a @ w + bias, 0)
        return a

    a, w = _operands(200, 200, 200)
    bias = RNG.standard_normal(200).astype(np.float32)
    want = np.maximum(a @ w + bias, 0)
    assert BIAS_CALL in loops_of(update, a.copy(), w, bias)
    got = compiler.compile(update)(a, w, bias)
    assert_reordered_close(got, want, 200)
    assert_reordered_close(a, want, 200)


def test_a_bias_put_into_c_first_is_added_to(thread_count):
    """``x @ w + b``: ``ember-to-linalg`` puts ``b`` into C, then the product
    accumulates into it (the helper adds its first block of k too)."""

    def affine(x, w, bias):
        return x @ w + bias

    x, w = _operands(130, 700, 260)
    bias = RNG.standard_normal(260).astype(np.float32)
    loops = loops_of(affine, x, w, bias)
    assert loops.count(CALL) == 1 and "%true = arith.constant true" in loops
    assert_reordered_close(compiler.compile(affine)(x, w, bias), affine(x, w, bias), 700)


def test_two_layers_both_on_the_helper(thread_count):
    def mlp(x, w1, b1, w2, b2):
        return np.maximum(x @ w1 + b1, 0) @ w2 + b2

    x, w1 = _operands(64, 96, 300)
    _, w2 = _operands(1, 300, 80)
    b1, b2 = RNG.standard_normal(300).astype(np.float32), RNG.standard_normal(80).astype(np.float32)
    loops = loops_of(mlp, x, w1, b1, w2, b2)
    assert loops.count(BIAS_CALL) == 1 and loops.count(CALL) == 1  # relu(x @ w1 + b1); then + b2 into C
    assert_reordered_close(compiler.compile(mlp)(x, w1, b1, w2, b2), mlp(x, w1, b1, w2, b2), 300)


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a[::2],  # rows 2n apart, each contiguous: the helper
        lambda a: a[1:, 3:],  # a block: contiguous rows, offset
        lambda a: a[::-1],  # rows backwards: the helper
        lambda a: np.asfortranarray(a),  # column-major: BLAS
        lambda a: a[:, ::2],  # strided rows: BLAS
    ],
    ids=["every-other-row", "block", "reversed-rows", "fortran", "strided-rows"],
)
def test_views(view, thread_count):
    a = view(RNG.standard_normal((402, 310)).astype(np.float32))
    b = view(RNG.standard_normal((a.shape[1] * 2 + 4, 290)).astype(np.float32))[: a.shape[1]]
    assert_reordered_close(compiler.compile(matmul)(a, b), a @ b, a.shape[1])


def test_nan_and_inf_propagate():
    a, b = _operands(40, 300, 70)
    a[3, 5], a[7, 0], b[9, 2] = np.nan, np.inf, -np.inf
    with np.errstate(invalid="ignore"):
        got, want = compiler.compile(matmul)(a, b), a @ b
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=2e-5, atol=2e-5 * 300 * np.abs(want[finite]).max())


def test_changing_sizes_one_kernel(thread_count):
    """Sizes go symbolic after a change: the size check is made at run time, the small
    product going to BLAS and the large one to the helper, both right."""
    fn = compiler.compile(matmul)
    for m, k, n in [(64, 80, 96), (3, 4, 5), (130, 300, 70), (0, 50, 40), (20, 0, 30)]:
        a, b = _operands(m, k, n)
        got = fn(a, b)
        assert got.shape == (m, n)
        assert_reordered_close(got, a @ b, k)


def test_the_helper_writes_only_c():
    """The operands are left as they were; C's every element is written."""
    a, b = _operands(50, 270, 90)
    a0, b0 = a.copy(), b.copy()
    got = compiler.compile(matmul)(a, b)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)
    assert np.isfinite(got).all()


@pytest.mark.parametrize("bits, registers", [(512, 32), (256, 16)])
def test_blocking_constants_fit_the_registers_and_caches(bits, registers):
    """The accumulators, the vectors of B and a broadcast of A in the vector registers
    (32 with AVX-512, 16 with AVX2); A's panel in a 32 KiB L1 cache with room for B's
    stream; B's block in a 1 MiB L2; whole panels per block and chunk."""
    g = gemm.GEOMETRIES[bits]
    assert g.lanes * 32 == bits
    assert g.mr * g.nv + g.nv + 1 <= registers
    assert g.mr * g.kc * 4 <= 8 << 10
    assert g.nb * g.kc * 4 <= 1 << 20
    assert g.row_chunk % g.mr == 0 and g.nb % g.nr == 0


def test_the_host_gets_the_blocking_of_its_vector_width():
    """The library the backend compiles uses the host's blocking: an AVX2 machine
    running the AVX-512 blocking spills half its accumulators (2.5-3x slower)."""
    host = gemm.host_vector_bits()
    g = gemm.GEOMETRIES[host]
    (other,) = (blocking for bits, blocking in gemm.GEOMETRIES.items() if bits != host)
    with new_context():
        text = gemm.library_text()
    assert f"vector<{g.lanes}xf32>" in text and f"vector<{other.lanes}xf32>" not in text


def test_a_stack_of_contiguous_rows_times_a_matrix_is_one_call_of_the_helper(thread_count):
    """``patches @ w`` on a contiguous (8, 30, 20, 48) stack: its rows viewed as one
    (4800, 48) matrix, one call of the kernel (no run-time rows check, no BLAS); a
    strided stack gives NumPy's answer too."""
    nr = gemm.GEOMETRIES[gemm.host_vector_bits()].nr
    x = RNG.standard_normal((8, 30, 20, 48)).astype(np.float32)
    w = RNG.standard_normal((48, nr + 5)).astype(np.float32)
    loops = loops_of(matmul, x, w)
    assert loops.count(CALL) == 1 and "ember_rows" not in loops and "linalg.contract" not in loops
    assert_reordered_close(compiler.compile(matmul)(x, w), x @ w, 48)
    strided = x[:, ::2]
    assert_reordered_close(compiler.compile(matmul)(strided, w), strided @ w, 48)
