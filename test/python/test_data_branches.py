"""Branches on array data traced both ways (``frontend/branches.py``): an ``if`` on a
value the graph computes becomes a select of what its branches leave, in one graph,
with NumPy's answer (return value and argument arrays) whichever branch NumPy takes;
branches that do more than compute arrays stay a graph break, with NumPy's answer."""

from __future__ import annotations

import numpy as np
import pytest

import compiler


def recentre(X, centroids, labels):
    for j in range(centroids.shape[0]):
        members = labels == j
        count = members.sum()
        if count > 0:  # an empty cluster keeps its centroid (no 0/0)
            centroids[j] = (X * members[:, None]).sum(axis=0) / count
    return centroids


def either(x):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = -x
    return y + 1.0


def ternary(x, t):
    y = (x * 2) if x.max() > t else (x - 1)
    return y


def write_one_or_other(x, m):
    if m.mean() > 0.5:
        x[0] = 10
    else:
        x[-1] = -10
    return x.sum()


def guarded_index(x, idx):
    y = x[0] * 0
    if idx.min() >= 0:
        y = x[idx].sum()  # out of range only where NumPy never goes
    return y


def guarded_division(n, d):
    q = n * 0
    if d != 0:
        q = n // d  # never traps in the kernel: the select keeps 0 where d is 0
    return q


def returns_either(x):
    if x.sum() > 0:
        return x + 1, x.max()
    return x - 1, x.min()


def nan_is_true(x):
    y = x * 2.0
    if x.sum():  # NaN is truthy, as in NumPy
        y = y + 1.0
    return y


def _identity(x):
    if x.sum() > 0:  # the caller's own array, or a new one: an identity, not a value
        x = x + 1.0
    return x


def _cases():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 3))
    labels = rng.integers(0, 3, 40)  # cluster 3 empty
    return [
        (recentre, (X, rng.standard_normal((4, 3)), labels)),
        (either, (rng.standard_normal(6),)),
        (either, (-np.abs(rng.standard_normal(6)),)),
        (ternary, (rng.integers(0, 9, 5), 4)),
        (ternary, (np.arange(5), 10)),
        (write_one_or_other, (np.zeros(4, np.int32), np.ones(3))),
        (write_one_or_other, (np.zeros(4, np.int32), np.zeros(3))),
        (guarded_index, (np.arange(5.0), np.array([1, 3]))),
        (guarded_index, (np.arange(5.0), np.array([-1, 9]))),
        (guarded_division, (np.array(7, np.int64), np.array(2, np.int64))),
        (guarded_division, (np.array(7, np.int64), np.array(0, np.int64))),
        (returns_either, (np.arange(3.0),)),
        (returns_either, (-np.arange(3.0),)),
        (nan_is_true, (np.array([1.0, np.nan]),)),
        (nan_is_true, (np.array([1.0, -1.0]),)),
    ]


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("backend", ["cpu", "eager"])
@pytest.mark.parametrize("case", range(len(_cases())))
def test_a_branch_on_data_is_one_graph_with_numpys_answer(fresh_compiler, case, backend):
    fn, args = _cases()[case]
    want_args = _copies(args)
    want = fn(*want_args)
    compiled = compiler.compile(fn, backend=backend, options={"strict": True})
    got_args = _copies(args)
    got = compiled(*got_args)
    assert type(got) is type(want)
    for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
        assert type(g) is type(w)
        np.testing.assert_array_equal(g, w)
        assert np.asarray(g).dtype == np.asarray(w).dtype
    for g, w in zip(got_args, want_args):
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)
    out = compiler.explain(compiled)(*_copies(args))
    assert (out.graph_count, out.graph_break_count) == (1, 0), out.break_reasons


def _prints(x):
    if x.sum() > 0:
        print("positive")
        x = x + 1
    return x


def _appends(x):
    seen = []
    if x.sum() > 0:
        seen.append(x.sum())
    return x * 2, len(seen)


def _python_values(x):
    if x.sum() > 0:
        k = 1
    else:
        k = 2
    return x * k, k  # k is a Python int: one value per branch, no select


def _aliases(a, b):
    y = a if a.sum() > b.sum() else b  # which caller's array: an identity, not a value
    y[0] = 0.0
    return y


@pytest.mark.parametrize("fn", [_prints, _appends, _python_values, _aliases, _identity])
def test_other_branches_stay_graph_breaks_with_numpys_answer(fresh_compiler, fn, capsys):
    rng = np.random.default_rng(2)
    args = [rng.standard_normal(5)] + ([rng.standard_normal(5)] if fn is _aliases else [])
    want_args = _copies(args)
    want = fn(*want_args)
    got_args = _copies(args)
    got = compiler.compile(fn)(*got_args)
    for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
        np.testing.assert_array_equal(g, w)
    for g, w in zip(got_args, want_args):
        np.testing.assert_array_equal(g, w)
    out = compiler.explain(compiler.compile(fn))(*_copies(args))
    assert out.graph_break_count >= 1
    assert any("branch on array data" in r.reason for r in out.break_reasons), out.break_reasons


def _scalar_or_array(x):
    v = np.sum(x, axis=None)  # a 0-d x: a NumPy scalar
    if x.sum() > 3.5:
        v = np.where(x > 0, x, x)  # a 0-d array
    return v


@pytest.mark.parametrize("value", [3, 5])
def test_a_scalar_in_one_branch_and_a_0d_array_in_the_other_keep_their_kinds(fresh_compiler, value):
    """Which of the two kinds comes back is data: the branch is a graph break, and each
    call returns NumPy's kind (found by the graph-break fuzzer: a merged select had
    returned a 0-d array where NumPy gives np.int64)."""
    x = np.array(value)
    want, got = _scalar_or_array(x), compiler.compile(_scalar_or_array)(x)
    assert type(got) is type(want) and got == want
    out = compiler.explain(compiler.compile(_scalar_or_array))(x)
    assert any("branch on array data" in r.reason for r in out.break_reasons), out.break_reasons


def test_a_branch_inside_a_loop_traced_as_a_loop(fresh_compiler):
    rng = np.random.default_rng(9)
    X, labels = rng.standard_normal((50, 2)), rng.integers(0, 30, 50)
    centroids = rng.standard_normal((40, 2))  # clusters 30..39 empty
    want = recentre(X, centroids.copy(), labels)
    fn = compiler.compile(recentre, options={"max_graph_ops": 200, "strict": True})
    got_centroids = centroids.copy()
    got = fn(X, got_centroids, labels)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got_centroids, want, rtol=1e-12)
    out = compiler.explain(fn)(X, centroids.copy(), labels)
    assert (out.graph_count, out.graph_break_count) == (1, 0), out.break_reasons


def _captured_by_comprehension(x):
    if x.sum() > 0.5:
        v = x * 2  # v is a cell: the comprehension below closes over it (3.11)
    else:
        v = x[1:]
    return [v * k for k in range(3)]


def _captured_same_shape(x):
    if x.sum() > 0.5:
        v = x * 2
    else:
        v = x - 1
    return [v * k for k in range(3)]


@pytest.mark.parametrize("fn", [_captured_by_comprehension, _captured_same_shape])
@pytest.mark.parametrize("values", [[0.759], [0.1], [0.4, 0.3], [-0.2, 0.1, 0.05]])
def test_a_closure_variable_written_in_a_branch_is_the_branch_taken(fresh_compiler, fn, values):
    """A cell (``STORE_DEREF``) changes in place, not in the frame's locals: the branch's
    snapshot compares and restores cell contents, so a branch writing one is a graph
    break. It had kept the else branch's value whichever branch NumPy took (found by
    the graph-break fuzzer: shape (0,) where NumPy gives (1,))."""
    x = np.array(values, np.float32)
    compiled = compiler.compile(fn, options={"strict": True})
    for arguments in (x, x[::-1].copy(), -x):
        want, got = fn(arguments), compiled(arguments)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_array_equal(g, w)
