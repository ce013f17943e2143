"""The benchmark workloads stay correct: each Ember graph in benchmarks/workloads.py
matches its NumPy reference (and the ``out=`` NumPy variant does too) at tiny sizes,
and benchmarks/parallel_split.py's two call forms compute what they time.

Correctness only, no timing; Numba and torch are not needed.
"""

import numpy as np
import pytest

from benchmarks.workloads import WORKLOADS, check
from compiler.backends import compile_graph


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_ember_graph_matches_numpy(workload):
    inputs = workload.inputs(np.random.default_rng(0), "tiny")
    want = workload.numpy(*inputs)
    (got,) = compile_graph(workload.module("tiny"), "cpu")(*inputs)
    ok, detail = check(workload, got, want)
    assert ok, detail


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_numpy_out_variant_matches_numpy(workload):
    inputs = workload.inputs(np.random.default_rng(1), "tiny")
    run = workload.numpy_out(*inputs)
    ok, detail = check(workload, run(*inputs), workload.numpy(*inputs))
    assert ok, detail


def test_rows_are_dynamic():
    """The graphs are shape-polymorphic in the leading dimension, like a user's function."""
    softmax = next(w for w in WORKLOADS if w.name == "softmax")
    kernel = compile_graph(softmax.module("tiny"), "cpu")
    for rows in (1, 5, 40):
        (x,) = softmax.make_inputs(np.random.default_rng(rows), rows=rows, cols=24)
        ok, detail = check(softmax, kernel(x)[0], softmax.numpy(x))
        assert ok, detail


def test_parallel_split_rows_are_right():
    """benchmarks/parallel_split.py: both call forms compute tanh(x*x) (no timing checked)."""
    import math

    from benchmarks import parallel_split

    rows = parallel_split.measure([1, 1000, 70_000], parts=3, quick=True)
    assert [r["n"] for r in rows] == [1, 1000, 70_000]
    assert all(r["ok"] and math.isfinite(r["one"]) and r["split"] > 0 for r in rows)


def test_dynamic_kernel_rows_are_right():
    """benchmarks/dynamic_kernel.py: static and dynamic kernels agree with NumPy (no timing checked)."""
    import math

    from benchmarks import dynamic_kernel

    rows = dynamic_kernel.measure(quick=True)
    assert [r["name"] for r in rows] == ["rowsum", "softmax", "matmul", "inner_scale"]
    assert all(r["ok"] and math.isfinite(r["static"]) and r["dynamic"] > 0 for r in rows)
