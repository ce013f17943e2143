"""The trace size budget: an unrolled loop that outgrows ``max_graph_ops`` runs in
CPython (with NumPy's answer, arguments written included) instead of compiling for
minutes; under the budget it compiles."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CompileCounter

import compiler


def smooth(a, b, steps):
    w = 0.5
    for _ in range(steps):
        b[1:-1] = w * (a[:-2] + a[2:])
        a, b = b, a
        w = w * 0.99  # a Python value each iteration changes: no loop body, only unrolled
    return a


def _inputs():
    rng = np.random.default_rng(0)
    return rng.standard_normal(64), rng.standard_normal(64)


def _check_same_as_numpy(fn, steps):
    a, b = _inputs()
    want_a, want_b = a.copy(), b.copy()
    want = smooth(want_a, want_b, steps)
    got = fn(a, b, steps)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a, want_a)
    np.testing.assert_array_equal(b, want_b)


def test_a_trace_past_the_budget_runs_in_cpython_and_says_why(fresh_compiler):
    out = compiler.explain(compiler.compile(smooth, options={"max_graph_ops": 40}))(*_inputs(), 10)
    assert out.graph_count == 0
    assert any("max_graph_ops" in r.reason and "40 ops" in r.reason for r in out.break_reasons)
    counter = CompileCounter()
    fn = compiler.compile(smooth, backend=counter, options={"max_graph_ops": 40})
    _check_same_as_numpy(fn, 10)
    assert counter.graphs == 0


def test_under_the_budget_it_compiles(fresh_compiler):
    counter = CompileCounter()
    fn = compiler.compile(smooth, backend=counter, options={"max_graph_ops": 40})
    _check_same_as_numpy(fn, 2)
    assert counter.graphs == 1 and counter.ops <= 40


def test_the_global_budget_applies_without_an_option(fresh_compiler, monkeypatch):
    monkeypatch.setattr(compiler.config, "max_graph_ops", 30)
    counter = CompileCounter()
    fn = compiler.compile(smooth, backend=counter)
    _check_same_as_numpy(fn, 10)
    assert counter.graphs == 0


def test_the_default_budget_is_documented_and_bounded():
    assert 100 <= compiler.config.max_graph_ops <= 10_000


def test_fullgraph_raises_for_a_trace_past_the_budget(fresh_compiler):
    fn = compiler.compile(smooth, fullgraph=True, options={"max_graph_ops": 40})
    with pytest.raises(compiler.GraphBreakError, match="max_graph_ops"):
        fn(*_inputs(), 10)
