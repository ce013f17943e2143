"""A graph returning arrays and reductions of them runs as two kernels
(``backends/llvm_cpu/partition.py``), each split across threads, with the results in
the graph's order and NumPy's values."""

from __future__ import annotations

import numpy as np
import pytest

import compiler
from runtime.kernel import Kernel, KernelPair

pytestmark = pytest.mark.usefixtures("fresh_compiler")


def array_and_loss(x):
    y = np.tanh(x) * 2.0 - x
    return y, (y * y).sum(), y.max() > 0.5


def array_and_one_loss(x):
    y = np.tanh(x) * 2.0 - x
    return y, y.sum()


def interleaved(x, z):
    y = x * 3.0
    return y.sum(), y, z.mean(), y + z


def _graph(compiled):
    (entry,) = compiled.entries
    return entry.graph


def test_an_array_and_its_reductions_run_as_two_parallel_kernels(two_threads):
    x = np.linspace(-2, 2, 1 << 20, dtype=np.float32)
    compiled = compiler.compile(array_and_loss)
    y, loss, flag = compiled(x)
    want_y, want_loss, want_flag = array_and_loss(x)
    np.testing.assert_allclose(y, want_y, rtol=1e-5, atol=1e-6)  # tanh within an ulp or two
    np.testing.assert_allclose(loss, want_loss, rtol=1e-4)
    assert type(flag) is type(want_flag) and flag == want_flag
    graph = _graph(compiled)
    assert isinstance(graph, KernelPair) and graph.first.parallel  # the array: one tiled loop
    one_loss = compiler.compile(array_and_one_loss)
    one_loss(x)
    pair = _graph(one_loss)
    assert pair.first.parallel and pair.second.parallel  # one reduction to a value: split too


def test_the_results_keep_their_order_and_types():
    x, z = np.arange(6.0).reshape(2, 3), np.ones(3)
    compiled = compiler.compile(interleaved)
    got = compiled(x, z)
    want = interleaved(x, z)
    assert isinstance(_graph(compiled), KernelPair)
    assert [type(g) for g in got] == [type(w) for w in want]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.zeros(0, np.float32),  # an empty sum is +0.0
        lambda: np.array([3.0]),
        lambda: np.arange(20.0)[::-3],  # negative strides
        lambda: np.arange(12, dtype=np.int64).reshape(3, 4).T,
        lambda: np.array([np.nan, 1.0, -np.inf]),
    ],
)
def test_odd_inputs(make):
    def f(x):
        y = x * 2
        return y, y.sum()

    compiled = compiler.compile(f)
    x = make()
    with np.errstate(invalid="ignore"):
        got, want = compiled(x), f(x)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1].dtype == want[1].dtype
    np.testing.assert_array_equal(got[1], want[1])
    assert np.signbit(got[1]) == np.signbit(want[1])


def test_reductions_of_inputs_only_stay_one_kernel():
    def f(x, z):
        return x * 2, z.sum()

    compiled = compiler.compile(f)
    compiled(np.ones(4), np.ones(3))
    assert isinstance(_graph(compiled), Kernel)


def test_an_in_out_result_keeps_one_kernel():
    def f(a, b):
        a += b
        return b.sum()

    compiled = compiler.compile(f)
    a = np.arange(4.0)
    assert compiled(a, np.ones(4)) == 4.0 and np.array_equal(a, np.arange(4.0) + 1)
    assert isinstance(_graph(compiled), Kernel)
