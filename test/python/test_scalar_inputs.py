"""Unspecialized float arguments (``frontend/scalar_inputs.py``): a learning rate that
changes every call is a graph input, not a constant, and never recompiles."""

from __future__ import annotations

import numpy as np
import pytest

import compiler

pytestmark = pytest.mark.usefixtures("fresh_compiler")

W = np.linspace(-1, 1, 7, dtype=np.float32)
G = np.arange(7, dtype=np.float32)


def sgd(w, g, lr):
    return w - lr * g


def scaled(w, g, lr):
    return w - (lr * 2 - 0.5) * g + (-lr)


def returns_python_float(lr):
    return lr * 3 + 1


def test_a_learning_rate_over_100_values_compiles_once(compile_counter):
    compiled = compiler.compile(sgd, backend=compile_counter)
    for lr in np.linspace(1e-4, 1.0, 100):
        lr = float(lr)
        got = compiled(W, G, lr)
        want = sgd(W, G, lr)
        assert got.dtype == want.dtype == np.float32  # a Python float is weak (NEP 50)
        np.testing.assert_array_equal(got, want)
    assert compile_counter.graphs == 1 and len(compiled.entries) == 1


def test_arithmetic_on_the_scalar_stays_in_the_graph(compile_counter):
    compiled = compiler.compile(scaled, backend=compile_counter)
    for lr in (0.1, 0.25, -3.0, 1e30):
        np.testing.assert_array_equal(compiled(W, G, lr), scaled(W, G, lr))
    assert compile_counter.graphs == 1


def test_scalar_only_arithmetic_returns_a_python_float():
    compiled = compiler.compile(returns_python_float)
    for lr in (0.5, -2.25, float("inf")):
        got = compiled(lr)
        assert type(got) is float and got == returns_python_float(lr)
    assert len(compiled.entries) == 1


def test_a_numpy_scalar_is_strong_and_unspecialized(compile_counter):
    compiled = compiler.compile(sgd, backend=compile_counter)
    for s in (np.float64(0.5), np.float64(0.25)):
        got = compiled(W, G, s)
        assert got.dtype == np.float64 and np.array_equal(got, sgd(W, G, s))  # NumPy scalars promote
    assert compile_counter.graphs == 1


def branch_on_the_value(x, t):
    if t > 0.5:
        return x * t
    return x - t


def divides(x, t):
    return x * (1.0 / t)


def test_a_python_level_use_specializes_the_value():
    compiled = compiler.compile(branch_on_the_value)
    for t in (0.1, 0.9, 0.2):
        np.testing.assert_array_equal(compiled(W, t), branch_on_the_value(W, t))
    assert len(compiled.entries) == 3  # guarded by value once Python needs it
    compiled = compiler.compile(divides)
    np.testing.assert_array_equal(compiled(W, 4.0), divides(W, 4.0))
    with pytest.raises(ZeroDivisionError):  # Python's, not NumPy's inf
        compiled(W, 0.0)


def order_norm(x, order):
    return np.linalg.norm(x, order) + np.maximum(x, order)


def quantile_of(x, q):
    return np.percentile(x, q)


def test_a_float_a_numpy_function_needs_as_a_python_value_is_specialized():
    """``norm``'s ``ord`` and ``percentile``'s ``q`` are read in Python: the call is traced
    again with the value guarded (one graph, no break, one entry per value), where the
    same float as an array operand (``np.maximum``) stays a graph input."""
    compiled = compiler.compile(order_norm)
    for order in (3.0, 0.5, 3.0):
        np.testing.assert_allclose(compiled(W, order), order_norm(W, order), rtol=1e-6)
    assert len(compiled.entries) == 2
    assert all(e.graph_break is None and e.fallback_reason is None for e in compiled.entries)
    compiled = compiler.compile(quantile_of)
    for q in (30.0, 75.0):
        np.testing.assert_allclose(compiled(W, q), quantile_of(W, q))
    assert len(compiled.entries) == 2 and compiled.entries[0].graph_break is None


def from_a_list(x, ks):
    return x * ks[0]


def test_floats_in_lists_stay_constants():
    compiled = compiler.compile(from_a_list)
    np.testing.assert_array_equal(compiled(W, [0.5]), W * 0.5)
    np.testing.assert_array_equal(compiled(W, [0.25]), W * 0.25)
    assert len(compiled.entries) == 2


def test_nan_inf_and_negative_zero_flow_through():
    compiled = compiler.compile(sgd)
    with np.errstate(invalid="ignore"):  # inf * 0: NumPy's own warning, both ways
        for lr in (float("nan"), float("inf"), -0.0):
            np.testing.assert_array_equal(compiled(W, G, lr), sgd(W, G, lr))
    assert len(compiled.entries) == 1


def test_abs_of_a_float_argument_stays_a_python_float():
    """``abs(lr)`` is Python's abs of a Python float: weak, so ``float32 / (abs(lr) + 1)``
    stays float32 (np.abs would make it a strong float64), and returned it is a float."""

    def f(x, lr):
        return x / (abs(lr) + 1), abs(lr) * 2

    x = np.array([0.251, -2.0], np.float32)
    c = compiler.compile(f)
    for lr in (0.251, -3.5):
        got, want = c(x, lr), f(x, lr)
        assert got[0].dtype == want[0].dtype == np.float32
        np.testing.assert_array_equal(got[0], want[0])
        assert type(got[1]) is type(want[1]) is float and got[1] == want[1]
    assert len(c.entries) == 1


def test_abs_of_a_value_read_back_with_tolist_is_python_abs():
    def f(x):
        v = x.min().tolist()  # a graph break: v is a Python float in the resume function
        return x / (abs(v) + 1)

    x = np.array([0.251, 3.0], np.float32)
    got, want = compiler.compile(f)(x), f(x)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def test_builtin_max_min_of_numpy_scalars_stay_in_the_graph(compile_counter):
    """``max(a.max(), b.max())``: Python's rule (the first value, replaced by each later one
    that compares greater), NaN first kept, NaN later passed over; a NumPy scalar back."""

    def f(a, b):
        scale = max(np.abs(a).max(), np.abs(b).max())
        return a / scale, min(a.min(), b.min(), a[1]), max(a[0], b[0])

    c = compiler.compile(f, fullgraph=True, backend=compile_counter)
    nan = float("nan")
    for a, b in (
        ([1.0, -4.0, 2.0], [3.0, 0.5, -1.0]),
        ([nan, 2.0, 1.0], [5.0, 1.0, 0.0]),  # NaN first: Python keeps it
        ([1.0, 2.0, 1.0], [nan, 1.0, 0.0]),  # NaN later: passed over
        ([-0.0, 1.0, 1.0], [0.0, 1.0, 1.0]),  # equal zeros: the first
    ):
        a, b = np.array(a), np.array(b)
        got, want = c(a, b), f(a, b)
        for g, w in zip(got, want):
            assert type(g) is type(w)
            np.testing.assert_array_equal(g, w)
            assert np.signbit(g).tolist() == np.signbit(w).tolist()
    assert compile_counter.graphs == 1


def test_builtin_max_of_python_floats_is_a_python_float():
    def f(x, lo, hi):
        return x * max(lo, hi), min(lo, hi)

    c = compiler.compile(f)
    x = np.array([1.5, 2.0], np.float32)
    for lo, hi in ((0.25, 4.0), (3.0, -1.0)):
        got, want = c(x, lo, hi), f(x, lo, hi)
        assert got[0].dtype == want[0].dtype == np.float32  # weak: stays float32
        np.testing.assert_array_equal(got[0], want[0])
        assert type(got[1]) is float and got[1] == want[1]
    assert len(c.entries) == 1


def test_builtin_max_of_an_array_and_a_python_number_breaks():
    """``max(x.max(), 1e-12)`` returns a NumPy scalar or a Python float by the data, and
    they promote differently: it runs in Python, after a break."""

    def f(x):
        return x / max(x.max(), 1e-12)

    x = np.array([0.5, 2.0], np.float32)
    explained = compiler.explain(f)(x)
    assert explained.graph_break_count == 1 and "max() of arrays compares their data" in str(explained.break_reasons)
    np.testing.assert_array_equal(compiler.compile(f)(x), f(x))
