"""In-out kernels: a written argument's new value computed straight into the caller's
array (``ember.inout``, ``dialects/write_in_place.py``).

Each case checks which results the frontend marks, that the entry then copies
nothing back, and the answer against NumPy at sizes that split across threads, where
a wrong in-place decision would show (a part reading what another already wrote).
"""

from __future__ import annotations

import numpy as np
import pytest

import compiler
from compiler.backends import EagerGraph
from compiler.backends.llvm_cpu import compile_module
from compiler.dialects.write_in_place import inout_results

pytestmark = pytest.mark.usefixtures("fresh_compiler", "two_threads")


BIG = 1 << 20  # 8 MiB of float64: well above the runtime's threshold for splitting a call


def _define(source: str):
    namespace = {"np": np}
    exec(compile(source, "<test_write_in_place>", "exec"), namespace)  # noqa: S102 - test code
    return next(v for k, v in namespace.items() if k not in ("np", "__builtins__"))


def _traced(fn):
    """The compiled function, and the list its backend appends each traced module to."""
    modules = []

    def backend(module, example_inputs):
        modules.append(module)
        return compile_module(module)

    compiled = compiler.compile(fn, backend=backend)
    return compiled, modules


def _run_both(fn, *makers):
    """Plain NumPy and compiled on arguments each made by ``makers``; returns (want,
    got, want args, got args, the graph's in-out input per result)."""
    compiled, modules = _traced(fn)
    want_args = [make() for make in makers]
    got_args = [make() for make in makers]
    want = fn(*want_args)
    got = compiled(*got_args)
    results = len(modules[0].body.operations[0].type.results) if modules else 0
    inout = tuple(map(inout_results(modules[0].body.operations[0]).get, range(results))) if modules else ()
    return want, got, want_args, got_args, inout


MARKED = {
    "def f(a, b):\n    a += b\n": 1,
    "def f(a):\n    a[1:-1] += 1.0\n": 1,
    "def f(a):\n    a[::-1] *= 2\n": 1,
    "def f(a, b):\n    a[2:5] = 7.0\n    a += b\n": 1,
    "def f(a, b):\n    a[...] = np.sin(b) * 2\n": 1,
    "def f(a, b):\n    np.multiply(a, b, out=a)\n    return b.sum()\n": 1,
    "def f(a, b):\n    a *= 2\n    b -= a[::-1]\n": 1,  # a marked; b reads a's new value reversed
    "def f(a):\n    a -= a.mean()\n": 1,  # a total, computed before the loop that writes
    "def f(a, b):\n    a -= a.mean()\n    a /= a.std()\n    return a @ b\n": 1,  # a product reads the new value
}

KEPT = (
    "def f(a):\n    a[1:] += a[:-1]\n",  # reads what the same loop writes
    "def f(a):\n    a[:] = a[::-1]\n",  # a gather from the written array
    "def f(a, b):\n    c = a * 2\n    a += b\n    return c\n",  # the old value read by another result
    "def f(a, b):\n    a += b\n    return a.sum()\n",  # the new value read by another result
    "def f(a, b):\n    c = a * 2\n    a -= a.mean()\n    return c @ b\n",  # the old value read by a product
)


@pytest.mark.parametrize("source", list(MARKED))
def test_aligned_updates_write_the_callers_array(source):
    fn = _define(source)
    args = (lambda: np.linspace(-3, 3, BIG), lambda: np.linspace(1, 2, BIG))[: fn.__code__.co_argcount]
    want, got, want_args, got_args, inout = _run_both(fn, *args)
    assert sum(i is not None for i in inout) == MARKED[source], inout
    for g, w in zip(got_args, want_args):  # a total splits across threads: its sum rounds apart
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    assert np.allclose(got, want, rtol=1e-9) if want is not None else got is None  # a split sum rounds apart


@pytest.mark.parametrize("source", KEPT)
def test_unaligned_updates_keep_the_copy_and_numpys_answer(source):
    fn = _define(source)
    args = (lambda: np.linspace(-3, 3, BIG), lambda: np.linspace(1, 2, BIG))[: fn.__code__.co_argcount]
    want, got, want_args, got_args, inout = _run_both(fn, *args)
    assert all(i is None for i in inout), inout
    assert all(np.allclose(g, w, rtol=1e-12) for g, w in zip(got_args, want_args))
    if want is not None:
        assert np.allclose(got, want, rtol=1e-12)


def test_the_entry_copies_nothing_back_and_the_array_is_the_callers():
    fn = _define("def acc(a, b):\n    a += b\n    return a\n")
    compiled = compiler.compile(fn)
    a, b = np.arange(5.0), np.ones(5)
    assert compiled(a, b) is a and np.array_equal(a, np.arange(5.0) + 1)
    (entry,) = compiled.entries
    assert "[...] =" not in entry.run.__ember_source__, entry.run.__ember_source__


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(40.0).reshape(5, 8)[:, ::-2],  # negative strides: the strided kernel writes it
        lambda: np.arange(40.0).reshape(8, 5).T,
        lambda: np.arange(12, dtype=np.int32).reshape(3, 4),
        lambda: np.array([2**30, -5, 0], dtype=np.int32),  # wraps around
        lambda: np.array(3.5),  # 0-d
        lambda: np.zeros((0, 3)),
        lambda: np.array([np.nan, -0.0, np.inf, -np.inf]),
    ],
)
def test_layouts_dtypes_and_odd_sizes(make):
    fn = _define("def f(a):\n    a *= 3\n    a += a\n")
    want, got, want_args, got_args, inout = _run_both(fn, make)
    assert inout == (0,)
    assert got_args[0].dtype == want_args[0].dtype
    assert np.array_equal(got_args[0], want_args[0], equal_nan=True)
    assert np.array_equal(np.signbit(got_args[0]), np.signbit(want_args[0]))


def test_eager_and_custom_backends_still_get_the_copy_back():
    fn = _define("def f(a, b):\n    a += b\n")
    for backend in ("eager", lambda module, example_inputs: EagerGraph(module)):
        a = np.arange(4.0)
        compiler.compile(fn, backend=backend)(a, np.ones(4))
        assert np.array_equal(a, np.arange(4.0) + 1)


def test_two_updates_of_one_buffer_each_returned():
    """``b[...] = a; a[...] = t; t[1:] = ...``: canonicalization leaves two updates of one
    tensor, each a result; each needs its own buffer (the second overwrote the first
    result before it was copied out: the corpus's wave_2d, a wrong answer)."""

    def k2(a, b):
        t = np.zeros_like(a)
        t[1:] = a[1:] + 1.0
        b[...] = a
        a[...] = t
        t[1:] = a[1:] + 1.0
        b[...] = a
        a[...] = t

    for n in (3, 5):
        a, b = np.zeros(n), np.full(n, 9.0)
        want_a, want_b = a.copy(), b.copy()
        k2(want_a, want_b)
        compiled = compiler.compile(k2)
        compiled(a, b)
        np.testing.assert_array_equal(a, want_a)
        np.testing.assert_array_equal(b, want_b)
        assert compiled.entries[0].graph_module is not None


SQUARE = 1024  # (1024, 1024) float64: 8 MiB, split across threads by rows or columns

MARKED_2D = (
    "def f(a):\n    a -= a.mean(axis=0)\n",  # column means: computed before the rows' loop
    "def f(a):\n    a /= a.sum(axis=1, keepdims=True)\n",  # row sums: a tile's own rows
    "def f(a):\n    a -= a.max(axis=1, keepdims=True)\n    np.exp(a, out=a)\n    a /= a.sum(1, keepdims=True)\n",
    "def f(a):\n    a -= a.mean(axis=0)\n    a /= np.sqrt((a * a).mean(axis=0))\n    return a.T @ a\n",
    "def f(a):\n    s = a.std(axis=0)\n    s[s < 0.5] = 1.0\n    a -= a.mean(axis=0)\n    a /= s\n",
    "def f(a):\n    m = a.mean(axis=1, keepdims=True)\n    a -= m\n    return m\n",  # the totals returned
)

KEPT_2D = (
    "def f(a):\n    a -= a.sum(axis=1)\n",  # row i's sum broadcast along column i: another tile's data
    "def f(a):\n    a -= a.mean(axis=0)\n    return a @ a[::-1]\n",  # a reversed view of the new value
    "def f(a):\n    a -= a.mean(axis=0)\n    return a[:, :3] @ a[:3, :]\n",  # a 3-term product: a loop
    "def f(a):\n    a -= a.mean(axis=0)[::-1]\n",  # the sums reach other columns
    "def f(a):\n    c = a - a.mean(axis=0)\n    a -= a.mean(axis=0)\n    return c\n",  # c reads the old a
)


def _matrix():
    return np.random.default_rng(0).standard_normal((SQUARE, SQUARE)) + np.linspace(0, 4, SQUARE)


@pytest.mark.parametrize("source", MARKED_2D)
def test_reductions_broadcast_back_along_their_axes_write_in_place(source):
    """A reduction's totals, broadcast back over the axes they summed, let the new value be
    written into the caller's array: the loop tiles over rows or columns, and each tile
    reads what it writes only (row sums) or totals computed before the loop (column
    sums). A product may read the new value (a library call, never fused into)."""
    fn = _define(source)
    want, got, want_args, got_args, inout = _run_both(fn, _matrix)
    assert inout[0] == 0, inout
    np.testing.assert_allclose(got_args[0], want_args[0], rtol=1e-12, atol=1e-12)
    if want is not None:
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("source", KEPT_2D)
def test_reductions_read_across_tiles_keep_the_copy(source):
    fn = _define(source)
    want, got, want_args, got_args, inout = _run_both(fn, _matrix)
    assert all(i is None for i in inout), inout
    np.testing.assert_allclose(got_args[0], want_args[0], rtol=1e-12, atol=1e-12)
    if want is not None:
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


BLOCKS = (
    "def f(a, c):\n    for r in range(a.shape[0]):\n        a[r] = a[r] @ c\n",  # doitgen
    "def f(a, c):\n    for r in range(a.shape[0]):\n        a[r] = np.tanh(a[r] @ c)\n",
)

BLOCKS_KEPT = (
    "def f(a, c):\n    for r in range(a.shape[0] - 1):\n        a[r + 1] = a[r] @ c\n",  # another block's rows
    "def f(a, c):\n    for r in range(1, a.shape[0]):\n        a[r] = a[r] @ (a[0].T @ a[0])\n",  # the input on both sides
    "def f(a, c):\n    for r in range(a.shape[0]):\n        a[r] = a[r][:, :3] @ c[:3]\n",  # 3 terms: a loop
)


def _blocks():
    return np.random.default_rng(1).standard_normal((6, 40, 160))


def _square():
    return np.random.default_rng(2).standard_normal((160, 160)) / 12


@pytest.mark.parametrize("source", BLOCKS)
def test_a_block_replaced_by_its_product_is_written_in_place(source):
    """``A[r] = A[r] @ C``: BLAS reads block ``r`` whole into a buffer of its own before
    the update writes it back, so the caller's array is written directly."""
    fn = _define(source)
    want, got, want_args, got_args, inout = _run_both(fn, _blocks, _square)
    assert inout[0] == 0, inout
    np.testing.assert_allclose(got_args[0], want_args[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("source", BLOCKS_KEPT)
def test_products_of_other_blocks_keep_the_copy(source):
    fn = _define(source)
    want, got, want_args, got_args, inout = _run_both(fn, _blocks, _square)
    assert all(i is None for i in inout), inout
    np.testing.assert_allclose(got_args[0], want_args[0], rtol=1e-10, atol=1e-12)


# Loops traced as loops (time steps): a grid the loop carries from the caller's array
LOOPS = {
    # double buffering, 10 steps: both grids carried, each updated in the caller's array
    "def f(a, b):\n    for _ in range(10):\n        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2]"
    " + a[1:-1, 2:])\n        a, b = b, a\n    return a\n": 2,
    # 11 steps: the last one unrolled after the loop reads a's grid: only b's is written in place
    "def f(a, b):\n    for _ in range(11):\n        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2]"
    " + a[1:-1, 2:])\n        a, b = b, a\n": 1,
    # one grid, each step reading its neighbours before writing them
    "def f(a, b):\n    for _ in range(300):\n        a[1:-1] = (a[:-2] + a[2:]) * 0.5 - b[1:-1] * 1e-3\n": 1,
}

LOOPS_KEPT = (
    # the caller's old grid read besides the loop (its total, returned)
    "def f(a, b):\n    t = a.sum()\n    for _ in range(300):\n        a[1:-1] = (a[:-2] + a[2:]) * 0.5 - b[1:-1]\n"
    "    return t\n",
    # the new grid read by another result
    "def f(a, b):\n    for _ in range(300):\n        a[1:-1] = (a[:-2] + a[2:]) * 0.5 - b[1:-1]\n    return a.sum()\n",
)


def _grid():
    return np.random.default_rng(3).standard_normal((700, 600))


def _strided_grid():
    return np.random.default_rng(4).standard_normal((700, 1200))[::-1, ::2]  # negative and step-2 strides


def _loop_inputs(fn):
    if "a[:-2, 1:-1]" in fn.__source__:
        return _grid, _strided_grid
    return lambda: np.linspace(-3, 3, BIG), lambda: np.ones(BIG)


@pytest.mark.parametrize("source", list(LOOPS) + list(LOOPS_KEPT))
def test_a_loop_traced_as_a_loop_runs_in_the_callers_arrays(source):
    """A grid carried by a loop traced as a loop, from the caller's array, is updated in
    that array (no output buffer, no copy in or out) when the loop is its only reader
    and its final value is read by nothing else; NumPy's answer either way, at sizes
    whose steps split across threads."""
    fn = _define(source)
    fn.__source__ = source
    compiled, modules = _traced(fn)
    makers = _loop_inputs(fn)
    want_args, got_args = [make() for make in makers], [make() for make in makers]
    want, got = fn(*want_args), compiled(*got_args)
    (module,) = modules
    assert "scf.for" in str(module)
    marked = inout_results(module.body.operations[0])
    assert len(marked) == LOOPS.get(source, 0), marked
    for g, w in zip(got_args, want_args):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    if want is not None:
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-6)  # a total of about 0, split across threads
        assert (got is got_args[0]) is (want is want_args[0])
