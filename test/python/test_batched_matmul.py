"""Batched matmuls (``a @ b`` on 3-D and higher): one BLAS ``?gemm`` per batch entry for
float32/float64 (several batch dims collapsed into one), and one ``?gemm``/``?gemv`` over
all rows for a stack times one matrix or vector; checked against NumPy on views, dynamic
sizes and empty dims (tiling a loop of 0 iterations once crashed)."""

import re

import numpy as np
import pytest
from blas_oracle import assert_product_close, assert_product_equal

import compiler
from compiler.backends import EagerGraph
from compiler.passes.pass_manager import run_pipeline

SHAPES = [
    ((2, 4, 8), (2, 8, 3)),
    ((3, 1, 5), (3, 5, 1)),
    ((0, 2, 2), (0, 2, 2)),
    ((2, 3, 16, 8), (2, 3, 8, 5)),
    ((2, 3, 4, 6, 8), (2, 3, 4, 8, 5)),
]


def _close(got, want, dtype):
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * max(1.0, float(np.abs(want).max(initial=0))))


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_batched_products_match_numpy(shapes, dtype):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype(dtype) if dtype != np.int64 else rng.integers(-5, 5, s) for s in shapes)
    got = compiler.compile(lambda a, b: a @ b, options={"strict": True})(a, b)
    assert got.dtype == (a @ b).dtype
    _close(got, a @ b, dtype if dtype != np.int64 else np.float64)


def test_views_and_transposes():
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 3, 16, 8))
    for fn in (
        lambda q: q @ q.transpose(0, 1, 3, 2),
        lambda q: q[:, ::-1] @ q[:, :, ::2].transpose(0, 1, 3, 2)[..., :8],
        lambda q: q[0] @ q[1].transpose(0, 2, 1),
    ):
        _close(compiler.compile(fn, options={"strict": True})(q), fn(q), np.float64)


def test_dynamic_sizes_and_empty_dims():
    f = compiler.compile(lambda q: q @ q.transpose(0, 1, 3, 2), dynamic=True)
    rng = np.random.default_rng(2)
    for shape in [(2, 3, 16, 8), (2, 0, 3, 4), (0, 2, 3, 4), (2, 3, 0, 4), (2, 3, 4, 0), (1, 1, 1, 1)]:
        q = rng.standard_normal(shape)
        _close(f(q), q @ q.transpose(0, 1, 3, 2), np.float64)


@pytest.mark.parametrize("rank", [3, 4])
def test_float_batches_call_gemm_per_entry(rank):
    shape = (2, 3, 4, 5)[4 - rank :]
    modules = []
    compiler.compile(lambda a: a @ a.swapaxes(-1, -2), backend=lambda m, ex: modules.append(m) or EagerGraph(m))(
        np.ones(shape)
    )
    run_pipeline(modules[0], "builtin.module(lower-to-loops)")
    text = str(modules[0])
    assert "call @ember_matmul_f64" in text and "scf.for" in text


SMALL_ENTRIES = [
    ((256, 32, 32), (256, 32, 32), np.float64),
    ((130, 16, 24), (130, 24, 20), np.float32),  # a batch that does not split evenly
    ((8, 40, 16, 16), (8, 40, 16, 16), np.float64),  # the first of two batch dims in parallel
    ((1024, 3, 3), (3, 3), np.float64),  # a stack of small matrices times one matrix
]


@pytest.mark.parametrize("a_shape,b_shape,dtype", SMALL_ENTRIES)
def test_a_batch_of_small_products_runs_on_every_thread_with_the_same_bits(a_shape, b_shape, dtype):
    """Entries BLAS runs on one thread each, enough of them for a fork: the batch is a
    parallel loop (each entry's call on one thread of the pool); the bits are those of
    one thread, and the products NumPy's."""
    from runtime import threads

    rng = np.random.default_rng(2)
    a, b = rng.standard_normal(a_shape).astype(dtype), rng.standard_normal(b_shape).astype(dtype)
    results = []
    try:
        for n in (1, 2, 3):
            threads.set_num_threads(n)
            results.append(compiler.compile(lambda a, b: a @ b, options={"strict": True})(a, b))
    finally:
        threads.set_num_threads(None)
    assert all(np.array_equal(r, results[0]) for r in results[1:])
    _close(results[0], a @ b, dtype)


def test_only_a_batch_of_small_entries_is_a_parallel_loop():
    def lowered(a, b):
        modules = []
        compiler.compile(lambda a, b: a @ b, backend=lambda m, ex: modules.append(m) or EagerGraph(m))(a, b)
        run_pipeline(modules[0], "builtin.module(lower-to-loops)")
        return str(modules[0])

    small = np.ones((256, 32, 32))
    assert "scf.forall" in lowered(small, small) or "ember_forked" in lowered(small, small)
    large = np.ones((4, 128, 128))
    assert "scf.forall" not in lowered(large, large) and "ember_forked" not in lowered(large, large)


ROWS = [(2, 4, 8), (3, 1, 5), (0, 2, 3), (2, 3, 16, 8), (2, 3, 4, 6, 8), (1, 1, 1)]


@pytest.mark.parametrize("shape", ROWS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.float16])
def test_a_stack_of_rows_times_a_matrix_or_vector(shape, dtype):
    """``x @ w`` and ``x @ v`` for a stack ``x``: no broadcast of ``w``, one product over
    all rows (BLAS for floats), NumPy's dtype and values."""
    rng = np.random.default_rng(4)
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    w, v = ((rng.standard_normal(s) * 4).astype(dtype) for s in ((shape[-1], 5), (shape[-1],)))
    tol = {np.float16: 1e-2, np.float32: 1e-5}.get(dtype, 1e-12)
    for fn, arg in ((lambda x, w: x @ w, w), (lambda x, w: x @ w, v), (lambda x, w: np.matmul(x, w.T.T), w)):
        got, want = compiler.compile(fn, options={"strict": True})(x, arg), fn(x, arg)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol * 10)


def test_rows_that_are_not_evenly_spaced_are_copied_for_blas():
    """A stack whose rows cannot be one (rows, k) matrix (a transposed or sliced stack)
    is copied row-major and handed to BLAS, as NumPy copies it; views whose rows line up
    take the call directly. Only an output whose rows are not evenly spaced (written in
    place into a window of an input) keeps the loops."""
    rng = np.random.default_rng(5)
    x, w, v = rng.standard_normal((4, 6, 8)), rng.standard_normal((8, 3)), rng.standard_normal(8)
    for fn in (
        lambda x, w: x.transpose(1, 0, 2) @ w,
        lambda x, w: x[:, ::2] @ w,
        lambda x, w: x[::-1] @ w,
        lambda x, w: x[:, :, ::2] @ w[::2],
        lambda x, w: x[1:3, 2:] @ w,
        lambda x, w: x.transpose(1, 0, 2) @ w[:, 0],
        lambda x, w: x.transpose(1, 0, 2).astype(np.float32) @ w.astype(np.float32),
    ):
        got = compiler.compile(fn, options={"strict": True})(x, w)
        want = fn(x, w)
        assert got.dtype == want.dtype and got.shape == want.shape
        _close(got, want, want.dtype)
    np.testing.assert_allclose(compiler.compile(lambda x, v: x[:, 1:] @ v)(x, v), x[:, 1:] @ v, rtol=1e-12)

    def into_window(y, x, w):
        y[:, :3] = x[:, :3] @ w
        return y

    y = rng.standard_normal((4, 6, 3))
    got = compiler.compile(into_window, options={"strict": True})(y.copy(), x, w)
    np.testing.assert_allclose(got, into_window(y.copy(), x, w), rtol=1e-12)

    modules = []
    compiler.compile(lambda x, w: x @ w, backend=lambda m, ex: modules.append(m) or EagerGraph(m))(x, w)
    run_pipeline(modules[0], "builtin.module(lower-to-loops)")
    assert str(modules[0]).count("call @ember_matmul_f64(") == 2  # the rows as they are, or a copy of them


def test_a_stack_of_rows_is_one_blas_call():
    modules = []
    compiler.compile(lambda a, w: a @ w, backend=lambda m, ex: modules.append(m) or EagerGraph(m))(
        np.ones((2, 3, 8)), np.ones((8, 5))
    )
    run_pipeline(modules[0], "builtin.module(lower-to-loops)")
    text = str(modules[0])
    # one call site on the rows as they are, one on a row-major copy where they are not evenly spaced
    assert text.count("call @ember_matmul_f64(") == 2 and "call @ember_rows_f64_3_1" in text


def test_a_convolution_written_with_patches_reaches_blas():
    """``out += patch @ w[:, :, r, s].T``: the weight slice's reshape is not propagated
    into the matmul by upstream fusion (``ember-fuse`` shields it), so it stays a BLAS call."""

    def conv(x, weights):
        n, c, h, wd = x.shape
        k, _, r_, s_ = weights.shape
        out = np.zeros((n, h - r_ + 1, wd - s_ + 1, k), dtype=x.dtype)
        for r in range(r_):
            for s in range(s_):
                out += x[:, :, r : r + h - r_ + 1, s : s + wd - s_ + 1].transpose(0, 2, 3, 1) @ weights[:, :, r, s].T
        return out

    rng = np.random.default_rng(6)
    x, weights = rng.standard_normal((2, 6, 6, 7)), rng.standard_normal((4, 6, 2, 2))  # 6 channels: BLAS's
    modules = []
    compiled = compiler.compile(conv, backend=lambda m, ex: modules.append(m) or EagerGraph(m))
    np.testing.assert_allclose(compiled(x, weights), conv(x, weights), rtol=1e-12)
    run_pipeline(modules[0], "builtin.module(lower-to-loops)")
    assert str(modules[0]).count("call @ember_matmul_f64(") == 4 * 2  # each: the rows as they are, or a copy
    np.testing.assert_allclose(compiler.compile(conv)(x, weights), conv(x, weights), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(10, 8), (1, 5), (5, 1), (0, 3), (3, 0), (70, 65)])
def test_gram_matrices(dtype, shape):
    """``A.T @ A`` and ``A @ A.T`` (BLAS syrk and a mirrored triangle), also of views."""
    A = np.random.default_rng(3).standard_normal(shape).astype(dtype)
    for fn in (lambda A: A.T @ A, lambda A: A @ A.T, lambda A: A[::-1].T @ A[::-1], lambda A: A.T[:, ::2] @ A[::2]):
        got = compiler.compile(fn, options={"strict": True})(A)
        np.testing.assert_allclose(got, fn(A), rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-4)
    for fn in (lambda A: A.T @ A, lambda A: A @ A.T, lambda A: A[::-1].T @ A[::-1]):  # one view, both sides
        got = compiler.compile(fn, options={"strict": True})(A)
        np.testing.assert_array_equal(got, got.T)  # exactly symmetric, as NumPy's


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(10, 8), (40, 6), (6, 40), (0, 3), (33, 1), (70, 65)])
def test_gram_matrices_added_to_an_initial_value(dtype, shape):
    """``X.T @ X + lam * I`` (ridge regression's normal equations): the ``lam * I`` is
    the product's initial value, so ``?syrk`` computes the product into scratch and it is
    added (``ember_gram_add``); with fewer than 32 terms it is ``?gemm`` onto the init.
    Either way NumPy's values, and for a symmetric init a symmetric result."""
    rng = np.random.default_rng(8)
    X = rng.standard_normal(shape).astype(dtype)
    C = rng.standard_normal((shape[0], shape[0])).astype(dtype)
    cases = [
        (lambda X: X.T @ X + 0.5 * np.eye(X.shape[1], dtype=X.dtype), (X,)),
        (lambda X, C: X @ X.T + C, (X, C)),
        (lambda X: X[::-1].T @ X[::-1] + 2.0, (X,)),
    ]
    tol = {"rtol": 1e-5, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    for fn, args in cases:
        compiler.reset()
        got = compiler.compile(fn, options={"strict": True})(*args)
        want = fn(*args)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, **tol)
    got = compiler.compile(cases[0][0], options={"strict": True})(X)
    np.testing.assert_array_equal(got, got.T)
    modules = []
    compiler.compile(cases[0][0], backend=lambda m, ex: modules.append(m) or EagerGraph(m))(X)
    run_pipeline(modules[0], "builtin.module(lower-to-loops)")
    assert "call @ember_gram_add_" in str(modules[0]) or 0 in shape


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_of_few_terms(k, dtype):
    """Up to ``SMALL_K`` terms a float product is an unrolled elementwise loop of fused
    multiply-adds (an RGB image times its 3 weights), not a BLAS call; more terms are
    BLAS's. Either way NumPy's values, on views and transposed operands too."""
    rng = np.random.default_rng(k)
    img, w, m = rng.random((6, 7, k)).astype(dtype), rng.random(k).astype(dtype), rng.random((k, 4)).astype(dtype)
    a = rng.random((9, k)).astype(dtype)
    cases = [
        (lambda x, y: x @ y, img, w),
        (lambda x, y: x @ y, img, m),
        (lambda x, y: x[::-1, ::2] @ y, img, m),
        (lambda x, y: x @ y.T, a, m.T.copy()),
        (lambda x, y: np.dot(x, y), a, w),
        (lambda x, y: x @ y, a[:0], m),
    ]
    for fn, x, y in cases:
        got, want = compiler.compile(fn, options={"strict": True})(x, y), fn(x, y)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-14)


def test_few_terms_under_a_broadcast_sum():
    """An outer product (one term) added to a stack it is broadcast over: each entry once
    (the loop once read its output's value, and the fused broadcast added it twice)."""

    def outer_plus(a, b, x):
        return (a @ b) + x * 2

    a, b = np.array([[1.0], [2.0]], np.float32), np.array([[3.0, 4.0]], np.float32)
    x = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    np.testing.assert_array_equal(compiler.compile(outer_plus, options={"strict": True})(a, b, x), outer_plus(a, b, x))


def test_few_terms_are_a_loop_not_a_blas_call():
    modules = []
    compiler.compile(lambda a, w: a @ w, backend=lambda m, ex: modules.append(m) or EagerGraph(m))(
        np.ones((5, 7, 3), np.float32), np.ones(3, np.float32)
    )
    run_pipeline(modules[0], "builtin.module(lower-to-loops)")
    text = str(modules[0])
    assert "ember_blas" not in text and "math.fma" in text


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_stack_of_rows(dtype):
    rng = np.random.default_rng(7)

    def c(*shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

    x, w, v = c(2, 3, 5), c(5, 4), c(5)
    for fn, y in ((lambda x, y: x @ y, w), (lambda x, y: x @ y, v), (lambda x, y: x[:, ::-1] @ y, w)):
        got, want = compiler.compile(fn, options={"strict": True})(x, y), fn(x, y)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.complex64 else 1e-12)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_matrix_products_call_gemm(dtype):
    """Complex matrix products call ``?gemm`` (NumPy's choice): its values bit for bit on
    row- or column-major operands (a stack of rows times a matrix is one call over all
    rows, NumPy's up to rounding); loops for other strides."""
    rng = np.random.default_rng(8)

    def c(*shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

    a, b, stack = c(6, 5), c(5, 4), c(2, 3, 5)
    x_t_x = compiler.compile(lambda x: x.T @ x)(b)  # NumPy's ?syrk here: rounding may differ
    np.testing.assert_allclose(x_t_x, b.T @ b, rtol=1e-5 if dtype == np.complex64 else 1e-13)
    for fn, x, y, check in (
        (lambda x, y: x @ y, a, b, assert_product_equal),
        (lambda x, y: x.T @ y, b, c(5, 4), assert_product_equal),
        (lambda x, y: x.conj().T @ x, a, a, assert_product_equal),
        (lambda x, y: x @ y, stack, b, assert_product_close),
        (lambda x, y: x @ y, stack, c(2, 5, 4), assert_product_equal),
    ):
        got, want = compiler.compile(fn, options={"strict": True})(x, y), fn(x, y)
        assert got.dtype == want.dtype
        check(got, want)
    fn = lambda x, y: x[::-1, ::2] @ y[::2]  # noqa: E731 - a stride BLAS cannot take: loops
    y = c(6, 3)
    np.testing.assert_allclose(compiler.compile(fn)(a, y), fn(a, y), rtol=1e-5)
    modules = []
    compiler.compile(lambda x, y: x @ y, backend=lambda m, ex: modules.append(m) or EagerGraph(m))(a, b)
    run_pipeline(
        modules[0],
        "builtin.module(ember-to-linalg,ember-fuse,ember-bufferize,ember-matmul-to-blas{define-helpers=true})",
    )
    letter = "z" if dtype == np.complex128 else "c"
    assert f"call @ember_blas_{letter}gemm" in str(modules[0])


def test_a_product_added_to_an_array_accumulates_into_it():
    """``c + a @ b`` and ``c += a @ b``: the product is accumulated into ``c`` by BLAS
    (``beta = 1``), NumPy's values, and what the call leaves in ``c`` is NumPy's."""
    rng = np.random.default_rng(9)
    a, b, c, x, y = (rng.standard_normal(s) for s in ((50, 40), (40, 30), (50, 30), (40,), (50,)))

    def added(a, b, c):
        return c + a @ b

    def in_place(a, b, c):
        c += a @ b
        return c

    def vector(a, x, y):
        y += a @ x
        return y

    for fn, args in ((added, (a, b, c)), (in_place, (a, b, c)), (vector, (a, x, y))):
        mine, theirs = [v.copy() for v in args], [v.copy() for v in args]
        assert_product_equal(compiler.compile(fn, options={"strict": True})(*mine), fn(*theirs))
        for m, t in zip(mine, theirs):
            assert_product_equal(m, t)
    modules = []
    compiler.compile(added, backend=lambda m, ex: modules.append(m) or EagerGraph(m))(a, b, c)
    run_pipeline(modules[0], "builtin.module(ember-to-linalg,ember-fuse)")
    text = str(modules[0])
    assert "linalg.fill" not in text and "linalg.generic" not in text and "linalg.matmul" in text


def test_a_bias_read_by_an_elementwise_epilogue_is_added_there_not_accumulated():
    """``relu(a @ b + bias)``: the sum's one reader is elementwise, so the bias is added in
    that pass (the product's init stays a zero fill, BLAS's ``beta = 0``) rather than
    broadcast into the output first; the values are NumPy's bits (its order: product,
    then sum). ``a @ b + c`` with no reader still accumulates (the test above)."""
    rng = np.random.default_rng(10)
    a, b, bias = rng.standard_normal((60, 40)), rng.standard_normal((40, 30)), rng.standard_normal(30)

    def layer(a, b, bias):
        return np.maximum(a @ b + bias, 0.0)

    np.testing.assert_array_equal(compiler.compile(layer, options={"strict": True})(a, b, bias), layer(a, b, bias))
    modules = []
    compiler.compile(layer, backend=lambda m, ex: modules.append(m) or EagerGraph(m))(a, b, bias)
    run_pipeline(modules[0], "builtin.module(ember-to-linalg,ember-fuse)")
    text = str(modules[0])
    matmul = next(line for line in text.splitlines() if "linalg.matmul" in line)
    fill = next(line for line in text.splitlines() if "linalg.fill" in line)
    assert fill.split(" = ")[0].strip() in matmul.split("outs(")[1]  # accumulates into the zero fill
    assert text.count("linalg.generic") == 1  # bias and relu: one pass over the product


def test_a_chain_of_products_added_up_accumulates_into_one_output():
    """``out = zeros; out += p_i @ w_i`` (a convolution's sum over its window), then an
    elementwise reader: each product accumulates into the one before (BLAS's ``beta = 1``),
    one output buffer instead of a temporary per product summed at the end, NumPy's bits
    (each product rounded, then added, in NumPy's order). A chain whose first term is
    not zeros or a product (a broadcast) is left as it was."""
    rng = np.random.default_rng(12)
    patches = [rng.standard_normal((4, 9, 11)).astype(np.float32) for _ in range(3)]
    ws = [rng.standard_normal((11, 6)).astype(np.float32) for _ in range(3)]
    bias = rng.standard_normal(6).astype(np.float32)

    def window(p0, p1, p2, w0, w1, w2, bias):
        out = np.zeros((4, 9, 6), dtype=np.float32)
        for p, w in ((p0, w0), (p1, w1), (p2, w2)):
            out += p @ w
        return np.maximum(out + bias, 0.0)

    def from_bias(p0, p1, p2, w0, w1, w2, bias):
        return np.maximum(bias + p0 @ w0 + p1 @ w1, 0.0)

    args = (*patches, *ws, bias)
    for fn, chained in ((window, 2), (from_bias, 0)):
        np.testing.assert_array_equal(compiler.compile(fn, options={"strict": True})(*args), fn(*args))
        modules = []
        compiler.compile(fn, backend=lambda m, ex: modules.append(m) or EagerGraph(m))(*args)
        run_pipeline(modules[0], "builtin.module(ember-to-linalg,ember-fuse)")
        products = re.findall(r"(%\w+) = linalg.contract .* outs\((%\w+) ", str(modules[0]))
        results = {result for result, _ in products}
        assert sum(init in results for _, init in products) == chained, fn.__name__
