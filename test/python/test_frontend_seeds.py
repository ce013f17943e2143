"""The seed examples of the frontend, in NumPy (after TorchDynamo's own)."""

import logging

import numpy as np
import pytest
from conftest import CompileCounter

import compiler
from compiler import compile

pytestmark = pytest.mark.usefixtures("fresh_compiler")


def test_mse_compiles_and_matches_numpy():
    @compile
    def mse(x, y):
        z = (x - y) ** 2
        return z.sum()

    x = np.linspace(0, 1, 1000, dtype=np.float32)
    y = np.ones(1000, np.float32)
    got = mse(x, y)
    want = ((x - y) ** 2).sum()
    assert type(got) is type(want) is np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert len(mse.entries) == 1 and mse.entries[0].graph_module is not None


def test_if_on_an_int_argument_picks_the_branch_and_guards_it():
    counter = CompileCounter()

    @compile(backend=counter)
    def fn(x, n):
        y = x**2
        if n >= 0:
            return (n + 1) * y
        else:
            return y / n

    x = np.arange(5, dtype=np.float64)
    np.testing.assert_array_equal(fn(x, 2), 3 * x**2)
    np.testing.assert_array_equal(fn(x, 2), 3 * x**2)
    assert counter.graphs == 1
    np.testing.assert_array_equal(fn(x, -2), x**2 / -2)
    assert counter.graphs == 2


def test_string_constant_guard_recompiles_with_a_message(caplog):
    compiler.set_logs("recompiles")
    counter = CompileCounter()

    @compile(backend=counter)
    def greet(x, s):
        if s == "Hello":
            return x + 1
        return x - 1

    x = np.zeros(3, np.float32)
    np.testing.assert_array_equal(greet(x, "Hello"), x + 1)
    with caplog.at_level(logging.INFO, logger="compiler.recompiles"):
        logging.getLogger("compiler.recompiles").propagate = True
        np.testing.assert_array_equal(greet(x, "Hi"), x - 1)
    assert counter.graphs == 2
    message = "\n".join(r.getMessage() for r in caplog.records)
    assert "Recompiling function greet" in message
    assert "triggered by the following guard failure(s)" in message and "L['s'] == 'Hello'" in message


def test_list_of_strings_is_guarded_element_by_element():
    counter = CompileCounter()

    @compile(backend=counter)
    def apply(x, ops):
        for op in ops:
            if op == "double":
                x = x * 2
            elif op == "inc":
                x = x + 1
        return x

    x = np.ones(4, np.float64)
    np.testing.assert_array_equal(apply(x, ["double", "inc"]), x * 2 + 1)
    np.testing.assert_array_equal(apply(x, ["double", "inc"]), x * 2 + 1)
    assert counter.graphs == 1
    np.testing.assert_array_equal(apply(x, ["inc", "double"]), (x + 1) * 2)
    np.testing.assert_array_equal(apply(x, ["inc"]), x + 1)
    assert counter.graphs == 3


SCALE = 2.0


def test_a_changed_global_is_seen_on_the_next_call():
    global SCALE

    @compile
    def scaled(x):
        return x * SCALE

    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(scaled(x), x * 2.0)
    SCALE = 5.0
    try:
        np.testing.assert_array_equal(scaled(x), x * 5.0)
    finally:
        SCALE = 2.0


def test_a_changed_closure_cell_is_seen_on_the_next_call():
    factor = 3

    @compile
    def times(x):
        return x * factor

    x = np.arange(3, dtype=np.int64)
    np.testing.assert_array_equal(times(x), x * 3)
    factor = 7  # noqa: F841 (read through the closure)
    np.testing.assert_array_equal(times(x), x * 7)


@pytest.mark.parametrize("second", [np.ones(4, np.float64), np.ones((2, 2), np.float32), np.ones(5, np.float32)])
def test_dtype_ndim_and_size_changes_recompile(second):
    counter = CompileCounter()

    @compile(backend=counter)
    def f(x):
        return x * 2 + 1

    f(np.ones(4, np.float32))
    got = f(second)
    np.testing.assert_array_equal(got, second * 2 + 1)
    assert got.dtype == (second * 2 + 1).dtype
    assert counter.graphs == 2
