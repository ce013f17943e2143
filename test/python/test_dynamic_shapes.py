"""Symbolic sizes and ints through the whole frontend (issue: dynamic shapes).

The TorchDynamo deep dive's symbolic-shape examples in NumPy, the policy switches
(automatic dynamic, ``dynamic=True/False``, ``mark_dynamic``/``mark_static``), the
guards and logs they produce, and a differential fuzzer over programs doing shape
arithmetic that counts compiles: every result is NumPy's, and once automatic dynamic
has made a size symbolic, new sizes do not retrace.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

import compiler
from compiler import compile, mark_dynamic, mark_static
from compiler.dialects.guard_metadata import GuardMetadata
from compiler.mlir import ir

RNG = np.random.default_rng(13)


def compiled_entries(fn) -> list:
    return [e for e in fn.entries if e.graph_module is not None]


def test_int_argument_becomes_symbolic_after_it_changes():
    """``fn(x, n)`` with n = 2, 3, -2, 4: three compiles (2 static, then n >= 0 and n < 0
    symbolically), and n = 4 reuses the first symbolic entry."""

    @compile
    def fn(x, n):
        y = x**2
        if n >= 0:
            return (n + 1) * y
        return y / n

    x = np.linspace(-1, 1, 50)
    for n in (2, 3, -2, 4, 9, -7):
        want = (n + 1) * x**2 if n >= 0 else x**2 / n
        np.testing.assert_allclose(fn(x, n), want, rtol=1e-15)
    assert len(fn.entries) == 3
    assert len(compiled_entries(fn)) == 3
    texts = [g.text for e in fn.entries for g in e.guards]
    assert "L['n'] >= 0" in texts and "L['n'] < 0" in texts


def test_size_times_array_two_compiles():
    @compile
    def fn(a, b):
        return a.shape[0] * a * b

    for n in (4, 8, 16, 33):
        a, b = RNG.random((n, 3)), RNG.random((n, 3))
        np.testing.assert_allclose(fn(a, b), n * a * b)
    assert len(fn.entries) == 2
    guards = [g.text for g in fn.entries[0].guards]
    assert "L['b'].shape[0] == L['a'].shape[0]" in guards  # duck shaping
    assert "L['a'].shape[0] >= 2" in guards


def test_branch_on_symbolic_size_guards_the_expression():
    @compile(dynamic=True)
    def fn(a):
        if a.shape[0] * 2 < 16:
            return a
        return a + 1

    small, big = np.arange(5.0), np.arange(12.0)
    np.testing.assert_array_equal(fn(small), small)
    np.testing.assert_array_equal(fn(big), big + 1)
    for n in (2, 3, 7, 8, 9, 100):
        a = np.arange(float(n))
        np.testing.assert_array_equal(fn(a), a if n * 2 < 16 else a + 1)
    assert len(fn.entries) == 2
    texts = {g.text for e in fn.entries for g in e.guards}
    assert {"2*L['a'].shape[0] < 16", "2*L['a'].shape[0] >= 16"} <= texts


def test_sizes_zero_and_one_are_specialized():
    @compile(dynamic=True)
    def fn(a):
        return a * 2 + a.sum()

    a = np.arange(6.0)
    np.testing.assert_array_equal(fn(a), a * 2 + a.sum())
    for n in (0, 1, 0, 1, 7):
        a = np.arange(float(n))
        np.testing.assert_array_equal(fn(a), a * 2 + a.sum())
    assert len(fn.entries) == 3  # symbolic (>= 2), 0, 1
    zero = next(e for e in fn.entries if any(g.text == "L['a'].shape[0] == 0" for g in e.guards))
    assert zero.graph_module is not None


def test_duck_shaped_inputs_that_later_differ():
    @compile(dynamic=True)
    def fn(a, b):
        return a.sum() + b.sum() * 2

    a, b = RNG.random(6), RNG.random(6)
    assert fn(a, b) == pytest.approx(a.sum() + b.sum() * 2)
    first = fn.entries[0]
    assert "L['b'].shape[0] == L['a'].shape[0]" in [g.text for g in first.guards]
    b = RNG.random(9)
    assert fn(a, b) == pytest.approx(a.sum() + b.sum() * 2)
    assert len(fn.entries) == 2
    a, c = RNG.random(13), RNG.random(21)
    assert fn(a, c) == pytest.approx(a.sum() + c.sum() * 2)
    assert len(fn.entries) == 2  # the second entry has two symbols: it serves any two sizes


def test_broadcasting_two_symbols_guards_their_equality():
    @compile(dynamic=True)
    def fn(a, b):
        return a[:, None] * b[None, :] + a[:, None]

    for n, m in ((3, 5), (4, 4), (7, 2), (6, 6)):
        a, b = RNG.random(n), RNG.random(m)
        np.testing.assert_allclose(fn(a, b), a[:, None] * b[None, :] + a[:, None])
    assert len(fn.entries) == 1  # two symbols: an outer product never needs them equal


def test_mark_dynamic_compiles_once_for_every_size():
    @compile
    def fn(x):
        return np.tanh(x) * x.shape[0] - x.mean()

    for n in range(2, 101):
        x = RNG.random(n)
        mark_dynamic(x, 0)
        # tanh(x) * n and the mean can cancel: the tolerance is at the terms' scale
        np.testing.assert_allclose(fn(x), np.tanh(x) * n - x.mean(), rtol=1e-12, atol=1e-14 * n)
    assert len(fn.entries) == 1


def test_mark_static_wins_over_dynamic_true():
    @compile(dynamic=True)
    def fn(x):
        return x * 2

    for n in (3, 4, 5):
        x = np.ones(n)
        mark_static(x, 0)
        np.testing.assert_array_equal(fn(x), x * 2)
    assert len(fn.entries) == 3
    assert all("?" not in e.guards[0].text for e in fn.entries)


def test_dynamic_false_never_goes_symbolic():
    @compile(dynamic=False)
    def fn(x):
        return x + 1

    for n in (3, 4, 5, 6):
        x = np.ones(n)
        mark_dynamic(x, 0)
        np.testing.assert_array_equal(fn(x), x + 1)
    assert len(fn.entries) == 4


def test_float_learning_rate_compiles_once():
    @compile
    def step(w, g, lr):
        return w - lr * g

    w, g = RNG.random(64).astype(np.float32), RNG.random(64).astype(np.float32)
    for lr in np.linspace(1e-4, 1.0, 100):
        out = step(w, g, float(lr))
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out, w - float(lr) * g)
    assert len(step.entries) == 1


def test_shape_arithmetic_creation_and_reshape():
    @compile(dynamic=True)
    def fn(x, n):
        rows = np.zeros((n, x.shape[0] // 2))
        r = np.arange(n)
        y = x.reshape(-1, 2)
        return rows + y.sum(1)[: x.shape[0] // 2], r * 2, y * 1, x.size, len(x) - 1

    for size, n in ((8, 3), (12, 5), (20, 2), (6, 7)):
        x = np.arange(float(size))
        got = fn(x, n)
        want = (np.zeros((n, size // 2)) + x.reshape(-1, 2).sum(1), np.arange(n) * 2, x.reshape(-1, 2), size, size - 1)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
        assert type(got[3]) is int and type(got[4]) is int
    assert len(compiled_entries(fn)) == 1
    assert any("% 2 == 0" in g.text for g in fn.entries[0].guards)  # reshape(-1, 2) needs an even size


def test_slices_of_symbolic_sizes_are_views_and_values():
    @compile
    def fn(x):
        inner = x[1:-1]
        return inner, x[::-1][2:], x[-3:] * 2

    for n in (6, 9, 15, 4, 3, 40):
        x = np.arange(float(n))
        inner, tail, last = fn(x)
        assert np.shares_memory(inner, x) and inner.base is not None
        np.testing.assert_array_equal(inner, x[1:-1])
        np.testing.assert_array_equal(tail, x[::-1][2:])
        np.testing.assert_array_equal(last, x[-3:] * 2)
    assert len(fn.entries) <= 4


def test_non_contiguous_inputs_at_symbolic_sizes():
    @compile(dynamic=True)
    def fn(a, b):
        return (a * b).sum(axis=0) + a[0]

    for n in (5, 8, 11):
        base = RNG.random((2 * n, 2 * n))
        a, b = base[::2, ::-2], base.T[::2, ::2]
        np.testing.assert_allclose(fn(a, b), (a * b).sum(axis=0) + a[0])
    assert len(fn.entries) == 1


def test_in_place_update_at_symbolic_sizes():
    @compile(dynamic=True)
    def fn(a):
        a[1:-1] += a[1:-1] * 0.5
        return a

    for n in (5, 9, 30):
        a = np.arange(float(n))
        want = a.copy()
        want[1:-1] += want[1:-1] * 0.5
        assert fn(a) is a
        np.testing.assert_array_equal(a, want)
    assert len(compiled_entries(fn)) == 1


def test_dynamic_log_says_where(caplog):
    @compile(dynamic=True)
    def fn(a):
        if a.shape[0] > 4:
            return a * 2
        return a

    compiler.set_logs("dynamic,guards")
    for channel in ("dynamic", "guards"):
        logging.getLogger(f"compiler.{channel}").propagate = True
    try:
        with caplog.at_level(logging.INFO):
            fn(np.ones(6))
    finally:
        compiler.set_logs("")
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "create_symbol s0 = 6 for L['a'].shape[0] (dynamic=True)" in text
    assert "eval s0 > 4 [guard added] at" in text and "test_dynamic_shapes.py" in text
    assert "L['a'].shape[0] > 4  # s0 > 4" in text


def test_guard_metadata_records_symbols_and_round_trips():
    @compile(dynamic=True)
    def fn(a, b):
        return a + b

    fn(np.ones((4, 3)), np.ones((4, 3)))
    module = fn.entries[0].graph_module
    text = str(module)
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        reparsed = ir.Module.parse(text)
        meta = GuardMetadata.read(reparsed.body.operations[0])
    assert [(s.name, s.source, s.hint) for s in meta.symbols] == [
        ("s0", "L['a'].shape[0]", 4),
        ("s1", "L['a'].shape[1]", 3),
    ]
    exprs = [g.expr for g in meta.guards if g.kind == "symbolic"]
    assert "L['a'].shape[0] >= 2" in exprs and "L['b'].shape[0] == L['a'].shape[0]" in exprs
    assert "tensor<?x?xf64>" in text


def test_returned_sizes_are_computed_per_call():
    @compile(dynamic=True)
    def fn(x):
        return x.shape[0] * 2 + 1, x.shape

    for n in (3, 7, 12):
        assert fn(np.ones((n, 2))) == (2 * n + 1, (n, 2))
    assert len(fn.entries) == 1


def test_int_sized_outputs_and_a_bounded_shape_memo(monkeypatch):
    """``np.arange(n)`` with a symbolic n: the kernel's output shape is computed from n's
    value per call (memoized, and the memo stays bounded however many values come)."""
    import runtime.kernel

    monkeypatch.setattr(runtime.kernel, "SHAPE_CACHE_LIMIT", 8)

    @compile(dynamic=True)
    def fn(x, n):
        return np.arange(n) * 2 + x[0]

    x = np.ones(3)
    for n in range(2, 40):
        np.testing.assert_array_equal(fn(x, n), np.arange(n) * 2 + 1)
    (entry,) = compiled_entries(fn)
    assert 0 < len(entry.graph._shape_cache) <= 8


def test_size_times_a_float_argument_stays_in_the_graph():
    @compile(dynamic=True)
    def fn(x, lr):
        s = x.shape[0] * lr
        return x * s, s

    for n, lr in ((4, 0.5), (9, 0.25), (17, 3.0)):
        x = np.arange(float(n), dtype=np.float32)
        y, s = fn(x, lr)
        assert type(s) is float and s == n * lr
        assert y.dtype == np.float32  # a weak Python float: float32 stays float32
        np.testing.assert_array_equal(y, x * np.float32(n * lr))
    assert len(fn.entries) == 1


def test_iterating_over_rows_specializes_the_count():
    """``for row in x`` unrolls: the row count becomes a constant, guarded by its value."""

    @compile(dynamic=True)
    def fn(x):
        total = np.zeros(x.shape[1])
        for row in x:
            total += row * 2
        return total

    for rows in (3, 3, 5):
        x = RNG.random((rows, 4))
        np.testing.assert_allclose(fn(x), (x * 2).sum(0))
    assert len(fn.entries) == 2
    assert any(g.text == "L['x'].shape[0] == 3" for g in fn.entries[-1].guards)


def test_reshape_views_of_symbolic_shapes():
    """``x.reshape(-1, 2)`` of a C-contiguous input is a view for every size: written
    through and returned as a view. Of a strided input NumPy may copy: not followed, so
    that call runs in CPython, correctly."""

    @compile(dynamic=True)
    def fn(x):
        y = x.reshape(-1, 2)
        y[:, 0] += 1
        return y, x.reshape(2, -1)[None]

    for n in (8, 12, 20, 6):
        x = np.arange(float(n))
        want = x.copy()
        want.reshape(-1, 2)[:, 0] += 1
        y, z = fn(x)
        np.testing.assert_array_equal(x, want)
        assert np.shares_memory(y, x) and y.shape == (n // 2, 2)
        assert np.shares_memory(z, x) and z.shape == (1, 2, n // 2)
    assert len(compiled_entries(fn)) == 1  # guarded: n even, n // 2 >= 2
    strided = np.arange(24.0)[::2]
    want = strided.copy()
    want.reshape(-1, 2)[:, 0] += 1
    y, _ = fn(strided)
    np.testing.assert_array_equal(strided, want)


def test_int_arguments_as_sizes_and_slice_bounds():
    """``reshape(-1, n)``, ``np.zeros((m, n))`` and ``x[:2*n]`` with symbolic ints: one
    entry; the returned slices are views whose stops the entry computes per call."""

    @compile(dynamic=True)
    def fn(x, n, m):
        return x.reshape(-1, n).sum(0) + np.zeros((m, n)), x[: n * 2], x[1 : n * 2 : 2]

    for size, n, m in ((12, 3, 2), (20, 4, 5), (30, 5, 3), (12, 4, 7)):
        x = np.arange(float(size))
        got = fn(x, n, m)
        want = (x.reshape(-1, n).sum(0) + np.zeros((m, n)), x[: n * 2], x[1 : n * 2 : 2])
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
        assert np.shares_memory(got[1], x) and np.shares_memory(got[2], x)
    assert len(compiled_entries(fn)) == 1
    texts = [g.text for g in fn.entries[0].guards]
    assert "L['x'].shape[0] % L['n'] == 0" in texts and "L['n'] >= 2" in texts
    assert "L['n'] >= 0" not in texts  # implied by the >= 2 a size needs
    with pytest.raises(ValueError):  # NumPy's error for a size that does not divide
        fn(np.arange(10.0), 3, 2)


def test_recompile_log_names_the_size_behind_a_symbolic_guard(caplog):
    @compile(dynamic=True)
    def fn(a):
        if a.shape[0] * 2 < 16:
            return a
        return a + 1

    fn(np.ones(4))
    compiler.set_logs("recompiles")
    logging.getLogger("compiler.recompiles").propagate = True
    try:
        with caplog.at_level(logging.INFO, logger="compiler.recompiles"):
            fn(np.ones(12))
    finally:
        compiler.set_logs("")
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "- 2*L['a'].shape[0] < 16 (now L['a'].shape[0] = 12)" in text, text


def test_a_symbolic_trace_that_cannot_compile_falls_back_to_static_sizes(monkeypatch):
    """Automatic dynamic never leaves in CPython what static traces compile: when the
    trace with symbolic sizes cannot be compiled, the function traces again with static
    sizes, and stays static (here ``transpose`` is made to refuse ``?`` sizes)."""
    from compiler.frontend import numpy_semantics, numpy_shapes

    def static_only_transpose(em, a, axes=None):
        if not a.type.is_static:
            raise NotImplementedError("transpose of symbolic sizes (refused by this test)")
        return numpy_shapes.transpose(em, a, axes)

    monkeypatch.setitem(numpy_semantics.TABLE, "T", static_only_transpose)

    @compile
    def fn(x):
        return x.T * 2

    for n in (3, 4, 5, 6):
        x = np.ones((n, 2))
        np.testing.assert_array_equal(fn(x), x.T * 2)
    assert len(fn.entries) == 4
    assert all(e.graph_module is not None for e in fn.entries)
    assert all("?" not in e.guards[0].text for e in fn.entries)
