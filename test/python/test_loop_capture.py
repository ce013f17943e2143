"""Loops traced as loops (``frontend/loops.py``): a loop whose unrolled trace outgrows the
graph budget becomes one ``scf.for`` in one graph, checked against NumPy — the return
value and every argument array — on the CPU and through the reference interpreter; a
body that is not the same every iteration is unrolled as before, and says why."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from graph_building import captured_graph

import compiler
from benchmarks.corpus.dsp import crc32, crc32_batch, init_crc  # the corpus's CRC-32 kernels
from benchmarks.inplace import jacobi as double_buffered  # the benchmark's 5-point stencil, grids swapped

SMALL = {"max_graph_ops": 100}  # every loop below unrolls past it


def jacobi(p, iters):
    for _ in range(iters):
        pn = p.copy()
        p[1:-1, 1:-1] = 0.25 * (pn[1:-1, 2:] + pn[1:-1, :-2] + pn[2:, 1:-1] + pn[:-2, 1:-1])
        p[:, 0] = 0.0
        p[0, :] = p[1, :]
    return p


def seidel_rows(A, steps):
    n = A.shape[0]
    for _ in range(steps):
        for i in range(1, n - 1):
            A[i, 1:-1] = (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i, 2:] + A[i + 1, 1:-1]) / 4.0


def weighted_rows(x):
    acc = np.zeros(x.shape[1], x.dtype)
    for i in range(x.shape[0]):
        acc = acc + x[i] * i  # a weak int: float32 stays float32
    return acc


def running_sum(x):
    s = 0.0
    for i in range(1, x.shape[0]):
        s = s + x[i] * x[i - 1]
    return s, i


def wrap_around(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i - 1] - 2.0 * x[i]  # x[-1] at i = 0, as NumPy reads it
    return y


def swap_steps(a, b, steps):
    for _ in range(steps):
        b[1:-1] = 0.5 * (a[:-2] + a[2:])
        a, b = b, a  # double buffering: the body is the same every second iteration
    return a


def rotate_three(a, b, c, steps):
    for _ in range(steps):
        c[:] = a * 0.5 + b
        a, b, c = b, c, a
    return a, b, c


def count_down(x, start, step):
    acc = np.zeros(x.shape[1])
    for i in range(start, -1, step):
        acc = acc * 0.5 + x[i] * i
    return acc


def thomas_columns(a, b, c, d):
    """A tridiagonal system along the last axis for every (i, j) (the corpus's vadv):
    slabs ``x[:, :, k]`` at a traced ``k`` read and written in place, forward then back."""
    nk = d.shape[2]
    c[:, :, 0] = c[:, :, 0] / b[:, :, 0]
    d[:, :, 0] = d[:, :, 0] / b[:, :, 0]
    for k in range(1, nk):
        m = 1.0 / (b[:, :, k] - a[:, :, k] * c[:, :, k - 1])
        c[:, :, k] = c[:, :, k] * m
        d[:, :, k] = (d[:, :, k] - a[:, :, k] * d[:, :, k - 1]) * m
    for k in range(nk - 2, -1, -1):
        d[:, :, k] = d[:, :, k] - c[:, :, k] * d[:, :, k + 1]
    return d


def from_the_end(x, y):
    n = x.shape[1]
    for k in range(n):
        y[:, k - n] = x[:, k] * 2.0 - y[:, k - 1]  # k - n < 0: counted from the end
    return y


def _thomas_args(rng, shape):
    a, c = rng.random(shape), rng.random(shape)
    return a, a + c + 2.0, c, rng.standard_normal(shape)  # diagonally dominant


def _cases():
    rng = np.random.default_rng(3)
    return [
        (jacobi, (rng.random((7, 9)), 25)),
        (seidel_rows, (rng.random((9, 8)), 3)),
        (crc32, (rng.integers(0, 256, 60, dtype=np.uint8), init_crc("small", rng)[1])),
        (crc32_batch, (rng.integers(0, 256, (5, 12), dtype=np.uint8),)),
        (weighted_rows, (rng.standard_normal((60, 4)).astype(np.float32),)),
        (running_sum, (rng.standard_normal(80),)),
        (wrap_around, (rng.standard_normal(60), np.zeros(60))),
        (jacobi, (np.full((6, 6), -0.0), 20)),  # -0.0 kept where NumPy keeps it
        (weighted_rows, (rng.integers(-5, 5, (60, 3)),)),
        (swap_steps, (rng.standard_normal(20), np.zeros(20), 40)),  # period 2, nothing left over
        (swap_steps, (rng.standard_normal(20), np.zeros(20), 41)),  # the last iteration unrolled
        (rotate_three, (rng.standard_normal(5), rng.standard_normal(5), np.zeros(5), 44)),  # period 3, 2 left
        (count_down, (rng.standard_normal((70, 3)), 69, -1)),
        (count_down, (rng.standard_normal((70, 3)), 68, -3)),
        (from_the_end, (rng.standard_normal((4, 40)), rng.standard_normal((4, 40)))),
        # Bodies of 4 tiles (1 MiB) or more: tiled inside the loop, split across threads
        (jacobi, (rng.random((400, 420)), 12)),
        (swap_steps, (rng.standard_normal(150_000), np.zeros(150_000), 41)),
        (rotate_three, (rng.standard_normal(150_000), rng.standard_normal(150_000), np.zeros(150_000), 44)),
        (double_buffered, (rng.random((400, 400)), rng.random((400, 400)), 9)),  # 4 iterations, 1 left over
        (double_buffered, (rng.random((800, 800))[::2, ::-2], np.ones((400, 400)), 10)),  # a strided view carried
    ]


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _assert_same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w)
        return
    assert type(got) is type(want), (type(got), type(want))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    if isinstance(want, (np.ndarray, np.generic)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
    if isinstance(want, (np.ndarray, np.generic, float)):
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("backend", ["cpu", "eager"])
@pytest.mark.parametrize("case", range(len(_cases())))
def test_loop_compiles_as_one_graph_with_numpys_answer(fresh_compiler, case, backend):
    fn, args = _cases()[case]
    want_args = _copies(args)
    want = fn(*want_args)
    compiled = compiler.compile(fn, backend=backend, options={**SMALL, "strict": True})
    got_args = _copies(args)
    got = compiled(*got_args)
    if want is None:
        assert got is None
    else:
        _assert_same(got, want)
    for g, w in zip(got_args, want_args):
        if isinstance(w, np.ndarray):
            _assert_same(g, w)
    out = compiler.explain(compiled)(*_copies(args))
    assert (out.graph_count, out.graph_break_count) == (1, 0), out.break_reasons


def _loops_in(module) -> int:
    return str(module).count("scf.for")


@pytest.mark.parametrize("backend", ["cpu", "eager"])
@pytest.mark.parametrize(
    "shape, zeros",
    [((3, 4, 40), False), ((5, 1, 40), True), ((300, 460, 40), False)],  # -0.0 kept; slabs of 1.1 MB: tiled
    ids=["small", "negative-zeros", "threads"],
)
def test_slab_loops_compile_as_loops_with_numpys_answer(fresh_compiler, shape, zeros, backend):
    """``thomas_columns``: each loop's body (eight slabs at a traced index) fits a budget
    of 300 ops, its unrolled trace does not."""
    a, b, c, d = _thomas_args(np.random.default_rng(5), shape)
    if zeros:
        d = np.full(shape, -0.0)
    want_d = d.copy()
    want = thomas_columns(a, b, want_c := c.copy(), want_d)
    compiled = compiler.compile(thomas_columns, backend=backend, options={"max_graph_ops": 300, "strict": True})
    got_c, got_d = c.copy(), d.copy()
    got = compiled(a, b, got_c, got_d)
    assert got is got_d
    for g, w in ((got, want), (got_c, want_c)):
        _assert_same(g, w)
    out = compiler.explain(compiled)(a, b, c.copy(), d.copy())
    assert (out.graph_count, out.graph_break_count) == (1, 0), out.break_reasons


def test_the_graph_holds_one_loop_per_captured_loop(fresh_compiler):
    modules = []

    def keep(module, example_inputs):
        modules.append(module)
        from compiler.backends import compile_graph

        return compile_graph(module, "cpu")

    fn = compiler.compile(crc32_batch, backend=keep, options=SMALL)
    packets = np.random.default_rng(0).integers(0, 256, (5, 12), dtype=np.uint8)
    np.testing.assert_array_equal(fn(packets), crc32_batch(packets))
    assert len(modules) == 1 and _loops_in(modules[0]) == 2  # the byte loop, the bit loop inside it
    short = compiler.compile(crc32_batch, backend=keep)  # under the default budget: unrolled
    modules.clear()
    short(packets[:, :2])
    assert _loops_in(modules[0]) == 0


def test_a_loop_over_carried_symbolic_sizes(fresh_compiler):
    fn = compiler.compile(jacobi, dynamic=True, options={**SMALL, "strict": True})
    for shape in [(6, 7), (9, 5)]:
        p = np.random.default_rng(1).random(shape)
        want = jacobi(p.copy(), 12)
        got_p = p.copy()
        got = fn(got_p, 12)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got_p, want)
        assert got is got_p  # the caller's own array back, as NumPy returns it


def test_an_index_out_of_range_raises_numpys_error_with_the_arrays_untouched(fresh_compiler):
    def shifted(x, y):
        for i in range(x.shape[0]):
            y[i] = x[i + 1]  # out of range at the last i
        return y

    fn = compiler.compile(shifted, options=SMALL)
    x, y = np.arange(30.0), np.zeros(30)
    with pytest.raises(IndexError):
        fn(x, y)
    expected = np.zeros(30)
    with pytest.raises(IndexError):
        shifted(np.arange(30.0), expected)
    np.testing.assert_array_equal(y, expected)  # as far as NumPy got before raising


def test_a_slab_index_out_of_range_raises_numpys_error(fresh_compiler):
    """``y[:, k] = x[:, k + 1]``: the slab at a traced index is a view at the clamped
    index, and the range check still sends the call back to NumPy, which raises."""

    def shifted_columns(x, y):
        for k in range(x.shape[1]):
            y[:, k] = x[:, k + 1] * 2.0
        return y

    fn = compiler.compile(shifted_columns, options=SMALL)
    x, y = np.arange(120.0).reshape(3, 40), np.zeros((3, 40))
    with pytest.raises(IndexError):
        fn(x, y)
    expected = np.zeros((3, 40))
    with pytest.raises(IndexError):
        shifted_columns(np.arange(120.0).reshape(3, 40), expected)
    np.testing.assert_array_equal(y, expected)


def _growing(x):
    half = 1
    for _ in range(12):
        x = x + half
        half *= 2
    return x


def _triangle(L, b, x):
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def _printing(x):
    for i in range(20):
        x = x * 0.5
        print("step", i)
    return x


def _index_branch(x):
    for i in range(30):
        if i % 2:
            x = x + 1.0
    return x


def _appending(x):
    rows = []
    for i in range(20):
        rows.append(x * i)
    return rows[-1]


def _aliasing(a, b):
    for _ in range(20):
        b[1:-1] = 0.5 * (a[:-2] + a[2:])
        a = b  # from the second iteration on, both names hold b's array
    return a


def _rotating_five(a, b, c, d, e):
    for _ in range(20):
        e[1:] = a[1:] * 0.5 + b[:-1]
        a, b, c, d, e = b, c, d, e, a
    return a


@pytest.mark.parametrize(
    "fn, args, why",
    [
        (_growing, (np.ones(3),), "changes the Python value `half`"),
        (_triangle, (np.tril(np.ones((12, 12))) + 12 * np.eye(12), np.ones(12), np.zeros(12)), "slice bound"),
        (_printing, (np.ones(3),), "print"),
        (_index_branch, (np.ones(3),), "the loop index used as a Python value"),
        (_aliasing, (np.ones(20), np.zeros(20)), "`a` takes the array of `b`, which does not take another"),
        (_rotating_five, tuple(np.full(4, float(k)) for k in range(5)), "every 5 iterations (at most 4 traced)"),
        (_appending, (np.ones(3),), "changes a list or dict"),
    ],
)
def test_a_body_that_differs_per_iteration_is_unrolled_and_says_why(fresh_compiler, fn, args, why, caplog):
    want_args = _copies(args)
    want = fn(*want_args)
    got_args = _copies(args)
    compiler.set_logs("graph_breaks")
    logging.getLogger("compiler.graph_breaks").propagate = True
    with caplog.at_level(logging.INFO, logger="compiler.graph_breaks"):
        got = compiler.compile(fn, options={"max_graph_ops": 25})(*got_args)
    np.testing.assert_array_equal(got, want)
    for g, w in zip(got_args, want_args):
        np.testing.assert_array_equal(g, w)
    assert why in caplog.text


def test_a_long_loop_is_traced_again_as_a_loop_after_two_iterations(fresh_compiler, caplog, tmp_path, monkeypatch):
    """Not after unrolling a thousand ops of it: the first two iterations show it will not fit."""
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))  # no loop decisions of earlier tests
    x = np.random.default_rng(5).standard_normal((3000, 3))
    compiler.set_logs("graph_breaks")
    logging.getLogger("compiler.graph_breaks").propagate = True
    with caplog.at_level(logging.INFO, logger="compiler.graph_breaks"):
        got = compiler.compile(weighted_rows)(x)
    np.testing.assert_allclose(got, weighted_rows(x), rtol=1e-12)
    assert "would grow past 1000 ops (2998 more iterations of" in caplog.text
    assert "traced as a loop (scf.for, 3000 iterations)" in caplog.text


def _front_loaded(x):
    for i in range(40):
        if i < 2:  # only the first two iterations do anything
            x = np.tanh(x) * 2.0 + 1.0
    return x


def test_a_body_doing_less_later_is_not_given_up_on_early(fresh_compiler):
    """Its first two iterations suggest ten times the budget of 25 ops; tried as a loop,
    its body is not one; unrolled, it fits and compiles as one graph, as before the estimate."""
    x = np.random.default_rng(6).standard_normal(5)
    compiled = compiler.compile(_front_loaded, options={"max_graph_ops": 25})
    np.testing.assert_allclose(compiled(x), _front_loaded(x), rtol=1e-15)  # tanh within an ulp
    out = compiler.explain(compiled)(x)
    assert (out.graph_count, out.graph_break_count) == (1, 0), out.break_reasons


def _full_updates(x, steps):
    for _ in range(steps):
        x[:] = x * 0.5 + 1.0  # the whole array: unrolled, the steps fuse into one pass
    return x


def _row_updates(x):
    for i in range(30):
        x[i, 1:] = x[i, :-1] * 2.0  # another region every iteration: not a time step
    return x


@pytest.mark.parametrize(
    "fn, args, as_loop",
    [
        (double_buffered, (np.ones((40, 30)), np.zeros((40, 30)), 10), True),  # 8 more steps of 14 ops
        (double_buffered, (np.ones((40, 30)), np.zeros((40, 30)), 5), False),  # 3 more: 42 ops, unrolled
        (_full_updates, (np.ones(50), 30), False),  # no region smaller than the array
        (_row_updates, (np.arange(30.0 * 8).reshape(30, 8),), False),
    ],
)
def test_a_loop_of_time_steps_within_the_budget_is_traced_as_a_loop(
    fresh_compiler, caplog, tmp_path, monkeypatch, fn, args, as_loop
):
    """A loop whose every iteration updates the same regions of arrays, long enough that
    the unrolled steps past the first two would add ``config.time_steps_as_loop_ops`` ops,
    is traced as a loop although it fits the budget; ``None`` turns that off."""
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))  # no loop decisions of earlier tests
    compiler.set_logs("graph_breaks")
    logging.getLogger("compiler.graph_breaks").propagate = True
    with caplog.at_level(logging.INFO, logger="compiler.graph_breaks"):
        got_args = _copies(args)
        got = compiler.compile(fn)(*got_args)
    want_args = _copies(args)
    _assert_same(got, fn(*want_args))
    for g, w in zip(got_args, want_args):
        if isinstance(w, np.ndarray):
            _assert_same(g, w)
    assert ("time steps, each updating the same regions of arrays, would unroll into" in caplog.text) is as_loop
    assert ("traced as a loop (scf.for" in caplog.text) is as_loop
    if as_loop:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(compiler.config, "time_steps_as_loop_ops", None)
            compiler.reset()
            assert _loops_in(captured_graph(fn, *_copies(args))) == 0
        compiler.reset()
        assert _loops_in(captured_graph(fn, *_copies(args))) == 1


@pytest.mark.parametrize("cache", ["private", "off"])
def test_the_next_process_traces_the_loop_as_a_loop_at_once(fresh_compiler, caplog, tmp_path, monkeypatch, cache):
    """Which loops were traced as loops is kept with the artifact cache: a new process
    (here: new compiled functions, the artifacts' memory copies dropped) starts with the
    loop traced as a loop instead of unrolling two iterations and tracing again, and
    loads the graph's artifact from disk. With the disk cache off nothing is kept."""
    from runtime.cache import ARTIFACTS

    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path) if cache == "private" else "off")
    x = np.random.default_rng(5).standard_normal((3000, 3))
    compiler.set_logs("graph_breaks")
    logging.getLogger("compiler.graph_breaks").propagate = True
    with caplog.at_level(logging.INFO, logger="compiler.graph_breaks"):
        np.testing.assert_allclose(compiler.compile(weighted_rows)(x), weighted_rows(x), rtol=1e-12)
        assert "tracing again with the loop" in caplog.text
        caplog.clear()
        compiler.reset()
        ARTIFACTS.clear_memory()
        disk_hits = ARTIFACTS.stats.disk_hits
        np.testing.assert_allclose(compiler.compile(weighted_rows)(x), weighted_rows(x), rtol=1e-12)
    assert "traced as a loop (scf.for, 3000 iterations)" in caplog.text
    assert ("tracing again with the loop" in caplog.text) is (cache == "off")
    assert (ARTIFACTS.stats.disk_hits > disk_hits) is (cache == "private")


def swap_if(a, b, steps, swap):
    for _ in range(steps):
        b[1:] = a[1:] * 0.5 + a[:-1]
        if swap:
            a, b = b, a
    return a, b


def test_the_next_process_starts_with_the_loops_period(fresh_compiler, tmp_path, monkeypatch):
    """A loop whose body swaps arrays is probed with one copy of its body (finding it the
    same every second iteration), then with two; the period and what the loop carries
    are kept with the loop decision, and a new process (new compiled functions, the
    artifacts' memory copies dropped) traces the loop with them at once, no probe."""
    from compiler.frontend import loops
    from runtime.cache import ARTIFACTS

    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    probed = _spy_probes(monkeypatch, loops)
    args = (np.linspace(0, 1, 20), np.zeros(20), 1500, True)
    for first in (True, False):
        compiler.reset()
        ARTIFACTS.clear_memory()
        probed.clear()
        got_args = _copies(args)
        got, want_args = compiler.compile(swap_if)(*got_args), _copies(args)
        _assert_same(got, swap_if(*want_args))
        _assert_same(got_args[:2], want_args[:2])
        assert probed == ([1, 2] if first else [])  # the next process: traced as before, no probe


def test_a_period_that_no_longer_holds_is_found_again(fresh_compiler, tmp_path, monkeypatch):
    """The period an earlier trace found is a hint: the same loop traced again with a
    Python value that stops the swap (a new guard, the same function) is a loop of one
    copy of its body again, with NumPy's answer."""
    from compiler.frontend import loops

    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    probed = _spy_probes(monkeypatch, loops)
    fn = compiler.compile(swap_if)
    for swap, want_probes in ((True, [1, 2]), (False, [2, 1])):
        probed.clear()
        args = (np.linspace(0, 1, 20), np.zeros(20), 1500, swap)
        got_args, want_args = _copies(args), _copies(args)
        _assert_same(fn(*got_args), swap_if(*want_args))
        _assert_same(got_args[:2], want_args[:2])
        assert probed == want_probes


def write_one(a, b, steps, first):
    for _ in range(steps):
        if first:
            a[1:] = a[1:] * 0.5 + a[:-1]
        else:
            b[1:] = b[1:] * 0.5 + b[:-1]
    return a, b


def rebind_if(x, steps, rebind):
    y = x * 1.0
    for _ in range(steps):
        x[1:] = x[1:] * 0.5 + x[:-1]
        if rebind:
            y = y + x
    return y


def gather_if(x, steps, gather):
    s = x[:1] * 0.0
    for i in range(steps):
        s = s * 0.5 + (x[i] if gather else 1.0)  # x[i]: a run-time index check
    return s


def _flagged(fn, flag):
    rng = np.random.default_rng(5)
    if fn in (write_one, swap_if):
        return (rng.standard_normal(30), rng.standard_normal(30), 1500, flag)
    return (rng.standard_normal(2000), 1500, flag)


@pytest.mark.parametrize(
    "fn, flags, why",
    [
        (write_one, (True, False), "it writes an array an earlier trace of it did not"),
        (rebind_if, (False, True), "it rebinds other variables than an earlier trace of it"),
        (gather_if, (False, True), "it adds run-time checks an earlier trace of it did not"),
        (swap_if, (False, True), "its arrays come back to their names every 2 iterations, not every 1"),
    ],
)
def test_a_loop_is_traced_as_before_until_its_body_changes(
    fresh_compiler, tmp_path, monkeypatch, caplog, fn, flags, why
):
    """The next trace of a loop starts from what the last one found it carries, without
    probing the body: in a new process, and for a new guard in this one. A body that
    now writes another argument, rebinds another variable, adds run-time index checks or
    swaps its arrays where it did not is probed again — with NumPy's answer, the
    arguments included, every time."""
    from compiler.frontend import loops
    from runtime.cache import ARTIFACTS

    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    probed = _spy_probes(monkeypatch, loops)
    before, then = flags

    def call(flag):
        probed.clear()
        args = _flagged(fn, flag)
        got_args, want_args = _copies(args), _copies(args)
        _assert_same(compiled(*got_args), fn(*want_args))
        _assert_same(tuple(got_args), tuple(want_args))
        return list(probed)

    compiled = compiler.compile(fn)
    assert call(before) == [1]
    compiler.reset()
    ARTIFACTS.clear_memory()
    compiled = compiler.compile(fn)
    assert call(before) == []  # a new process: traced as before
    compiler.set_logs("graph_breaks")
    logging.getLogger("compiler.graph_breaks").propagate = True
    with caplog.at_level(logging.INFO, logger="compiler.graph_breaks"):
        assert call(then) == ([1] if fn is not swap_if else [1, 2])  # another body: probed again
    assert f"is probed again: {why}" in caplog.text
    compiler.reset()
    ARTIFACTS.clear_memory()
    compiled = compiler.compile(fn)
    assert call(then) == []  # the record holds the last trace's loop


def _spy_probes(monkeypatch, loops) -> list:
    """The periods ``loops._probe`` is called with, in order."""
    probed, probe = [], loops._probe

    def spy(tx, inst, iterator, snapshot, period):
        probed.append(period)
        return probe(tx, inst, iterator, snapshot, period)

    monkeypatch.setattr(loops, "_probe", spy)
    return probed


@pytest.mark.parametrize(
    "record",
    [
        [[32, 2, [["L['b']", "L['a']"], [], False]]],
        [[32, 1, None]],
        [[32, 2]],  # a record of another form
        [[32, 2, [["L['b']"], [], "no"]]],
        [[32, 2, [["L['b']"], [7], False]]],
        {"32": 2},
    ],
)
def test_a_stored_loop_decision_is_read_whole_or_not_at_all(fresh_compiler, tmp_path, monkeypatch, record):
    """The disk record of the loops traced as loops: each offset with its period and what
    its loop carried (or None); anything else reads as no record (loops found again)."""
    from compiler.frontend import loop_decisions
    from runtime.cache import ARTIFACTS

    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    code = swap_if.__code__
    ARTIFACTS.write_record(loop_decisions._key(code, 1000), record)
    want = {}
    if record in ([[32, 2, [["L['b']", "L['a']"], [], False]]], [[32, 1, None]]):
        period, carried = record[0][1], record[0][2]
        want = {32: (period, carried and (tuple(carried[0]), tuple(carried[1]), carried[2]))}
    assert loop_decisions.load(code, 1000) == want
