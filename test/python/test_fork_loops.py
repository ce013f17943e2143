"""Kernels of several loops run each loop on the worker pool (``ember-fork-loops``).

Each program below compiles to one kernel with more than one top-level loop (or a
loop inside a time-step loop, or a BLAS call between loops), at sizes where the
loops have several tiles, so the forked loops really split across threads: the
answers must equal NumPy's with one thread and with several, with the scratch
buffers of fused reductions private to each part, for contiguous and strided
inputs and for concurrent callers."""

import ctypes
import re
import threading

import numpy as np
import pytest
from graph_building import captured_graph, loops_of

import compiler
from compiler.backends import compile_graph
from compiler.backends.llvm_cpu import lower_to_object
from compiler.dialects import ember
from compiler.mlir import ir, symbol_name
from compiler.passes.pass_manager import run_pipeline
from runtime import threads

# A kernel that fails to compile runs eagerly with a warning: here that is a failure.
pytestmark = pytest.mark.filterwarnings("error:ember:RuntimeWarning")

RNG = np.random.default_rng(23)


def log_softmax_and_mask(x):
    m = x.max(-1, keepdims=True)
    e = np.exp(x - m)
    return np.log(e.sum(-1, keepdims=True)) - (x - m), x > 0.5


def centred_product(x):
    """Loops, a BLAS product (``c.T @ x``, two matrices: ``?gemm``), loops."""
    c = x - x.mean(axis=0)
    return c * 2.0, c.T @ x


def normalized_rows(x, w):
    s = x / np.sqrt((x * x).sum(-1, keepdims=True) + 1.0)
    return s * w, np.abs(s).max(-1)


def relaxation(a, steps):
    for _ in range(steps):
        a[1:-1] = 0.25 * a[:-2] + 0.5 * a[1:-1] + 0.25 * a[2:]
    return a.sum()


def double_buffered(a, b, steps):
    for _ in range(steps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a, b = b, a
    return a


def _check(got, want, tol):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        if w.dtype.kind == "b":
            assert np.array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("rows", [0, 1, 7, 3000, 40001])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_softmax_and_mask(rows, dtype, thread_count):
    x = RNG.standard_normal((rows, 10)).astype(dtype)
    x[::97, 3] = np.inf if rows > 200 else x[::97, 3]
    tol = 3e-6 if dtype == np.float32 else 1e-13
    _check(compiler.compile(log_softmax_and_mask)(x), log_softmax_and_mask(x), tol)


@pytest.mark.parametrize(
    "view",
    [lambda a: a, lambda a: a[::2], lambda a: a[::-1], lambda a: a[:, ::-1], lambda a: a.T.copy().T],
    ids=["contiguous", "every-other-row", "reversed-rows", "reversed-columns", "fortran"],
)
def test_strided_inputs(view, thread_count):
    x = view(RNG.standard_normal((60000, 12)))
    _check(compiler.compile(log_softmax_and_mask)(x), log_softmax_and_mask(x), 1e-13)


@pytest.mark.parametrize("shape", [(3, 4), (50000, 16)])
def test_blas_between_loops(shape, thread_count):
    x = RNG.standard_normal(shape)
    _check(compiler.compile(centred_product)(x), centred_product(x), 1e-9)


@pytest.mark.parametrize("shape", [(1, 5), (20000, 33), (9000, 257)])
def test_fused_reductions_with_two_outputs(shape, thread_count):
    x = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.standard_normal(shape[-1]).astype(np.float32)
    _check(compiler.compile(normalized_rows)(x, w), normalized_rows(x, w), 3e-6)


@pytest.mark.parametrize("n", [3, 200001])
def test_loop_inside_time_steps(n, thread_count):
    a = RNG.standard_normal(n)
    mine, theirs = a.copy(), a.copy()
    got = compiler.compile(relaxation)(mine, 4)
    want = relaxation(theirs, 4)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("steps", [1, 4, 5])
def test_unrolled_time_steps_share_one_forked_loop(steps, thread_count):
    """Every step of an unrolled double-buffered stencil is the same loop on the grids
    swapped: one forked function, every step calling its fork with the grids."""
    a, b = RNG.standard_normal((300, 200)), RNG.standard_normal((300, 200))
    loops = loops_of(double_buffered, a, b, steps)
    assert loops.count("func.func @ember_forked_") == 1
    assert loops.count("call @ember_fork_double_buffered_0(") == steps
    assert "memref.subview" not in loops.split("func.func @ember_forked_")[0]  # views made by the forked loop
    mine, theirs = (a.copy(), b.copy()), (a.copy(), b.copy())
    got = compiler.compile(double_buffered)(*mine, steps)
    want = double_buffered(*theirs, steps)
    np.testing.assert_array_equal(got, want)
    for m, t in zip(mine, theirs):
        np.testing.assert_array_equal(m, t)


@pytest.mark.parametrize("shape", [(300, 50), (7, 1000), (2, 3)])
def test_scratch_of_a_symbolic_length_goes_with_the_forked_loop(shape, thread_count):
    """A row argsort beside a second loop, with symbolic sizes: the sort's scratch lines
    have the row's symbolic length, which is passed to the forked function, where each
    part allocates its own lines. Such a loop had stayed in the kernel, on one thread."""

    def rank_and_scale(x):
        return np.argsort(x, axis=1), x * 2.0

    graphs = []

    def recording(module, example_inputs):
        graphs.append(str(module))
        return compile_graph(module, "cpu")

    x = RNG.standard_normal(shape)
    got = compiler.compile(rank_and_scale, dynamic=True, backend=recording)(x)
    np.testing.assert_array_equal(got[0], np.argsort(x, axis=1, kind="stable"))
    np.testing.assert_array_equal(got[1], x * 2.0)
    assert "tensor<?x?xf64>" in graphs[0]
    with ember.new_context():
        module = ir.Module.parse(graphs[0])
        run_pipeline(module, "builtin.module(lower-to-loops)")
        loops = str(module)
    assert len(re.findall(r"call @ember_fork_\w+_[01]\(", loops)) == 2
    forked = loops.split("func.func @ember_forked_")[1:]
    assert any(re.search(r"memref\.alloc\(%\w+\)", f) for f in forked)  # lines of the passed length, per part


def test_time_steps_traced_as_a_loop_fork_each_step(thread_count):
    """The same stencil traced as a loop (past a small graph budget): each step's loop
    is tiled inside the sequential time loop and forked to the worker pool, and the
    grids the loop carries are updated in place in the caller's arrays (no output
    buffer, no temporary grid, no copy after the loop)."""
    a, b = RNG.standard_normal((500, 400)), RNG.standard_normal((500, 400))  # 4 tiles or more
    small = {"max_graph_ops": 40}
    loops = loops_of(double_buffered, a.copy(), b.copy(), 10, options=small)
    kernel = loops.split("func.func @ember_forked_")[0]
    assert loops.count("func.func @ember_forked_") == 1
    time_loop = re.split(r"scf.for %arg\d+ = %c0 to %c10 step %c2 \{", kernel)[1]
    assert time_loop.count("call @ember_fork_double_buffered_0(") == 2  # two steps per iteration
    assert "memref.alloc" not in kernel
    assert "ember.num_outputs = 0 " in kernel
    mine, theirs = (a.copy(), b.copy()), (a.copy(), b.copy())
    got = compiler.compile(double_buffered, options=small)(*mine, 10)
    want = double_buffered(*theirs, 10)
    np.testing.assert_array_equal(got, want)
    for m, t in zip(mine, theirs):
        np.testing.assert_array_equal(m, t)


def test_concurrent_callers():
    """Two Python threads call one forking kernel at once: the pool serves one of
    them, the other runs its parts in turn; both answers are right."""
    threads.set_num_threads(2)
    try:
        f = compiler.compile(log_softmax_and_mask)
        inputs = [RNG.standard_normal((30000, 10)) for _ in range(2)]
        f(inputs[0])
        results = [None, None]

        def call(k):
            for _ in range(20):
                results[k] = f(inputs[k])

        workers = [threading.Thread(target=call, args=(k,)) for k in range(2)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        for k in range(2):
            _check(results[k], log_softmax_and_mask(inputs[k]), 1e-13)
    finally:
        threads.set_num_threads(None)


def _lowered(fn, *args):
    with ember.new_context():
        module = ir.Module.parse(captured_graph(fn, *args))
        entry = symbol_name(module.body.operations[0])
        return lower_to_object(module, entry, (True,) * len(args))


def test_two_loops_fork_and_their_glue_calls_the_pool():
    x = RNG.standard_normal((40000, 10))
    loops = loops_of(log_softmax_and_mask, x)
    assert loops.count("call @ember_fork_log_softmax_and_mask_") == 2
    assert loops.count("func.func @ember_forked_log_softmax_and_mask_") == 2
    lowered = _lowered(log_softmax_and_mask, x)
    assert lowered.forks and not lowered.parallel
    text = lowered.llvm_ir.replace('"', "")
    assert "define void @_mlir_ciface_ember_fork_ember_kernel_log_softmax_and_mask_0(" in text
    assert text.count("call void @ember_pool_run(") == 2
    assert "declare void @_mlir_ciface_ember_fork_" not in text
    # FORK_PARTS_PER_THREAD parts per configured thread (one on one thread), at most one per tile
    assert text.count(f"mul i64 %threads, {threads.FORK_PARTS_PER_THREAD}") == 2


def test_one_loop_kernels_still_split_whole():
    x = RNG.standard_normal((40000, 10))
    lowered = _lowered(lambda a: np.tanh(a) * 2.0, x)
    assert lowered.parallel and not lowered.forks
    assert "ember_fork_" not in lowered.llvm_ir


def test_set_num_threads_reaches_the_forked_loops():
    threads.register_symbols()
    pool = threads.pool()
    parts = ctypes.CFUNCTYPE(ctypes.c_int64)(pool.threads_address)
    try:
        threads.set_num_threads(3)
        assert parts() == 3
        threads.set_num_threads(1)
        assert parts() == 1
    finally:
        threads.set_num_threads(None)
    assert parts() == threads.num_threads()


@pytest.mark.parametrize("thread_count", [1, 2, 3])
def test_kernels_calling_blas_fork_their_loops_too(thread_count):
    """BLAS's threads spin after each call, and a worker woken between two calls may get
    its core late; the pool's parts are claimed, not assigned, so the caller runs what it
    has not taken (runtime/worker_pool.ll), and such kernels fork their loops too."""
    x = RNG.standard_normal((50000, 16))
    loops = loops_of(centred_product, x)
    assert "call @ember_matmul_f64" in loops and "ember_fork_" in loops
    threads.set_num_threads(thread_count)
    try:
        fn = compiler.compile(centred_product)
        for _ in range(3):  # BLAS's threads still spinning from the call before
            scaled, product = fn(x)
            want_scaled, want_product = centred_product(x)
            np.testing.assert_allclose(scaled, want_scaled, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(product, want_product, rtol=1e-12, atol=1e-9)
    finally:
        threads.set_num_threads(None)
