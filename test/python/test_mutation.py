"""In-place NumPy compiled: the mutation and aliasing model (``frontend/mutation.py``).

Every case runs the function in plain NumPy on copies of the arguments and compiled
on other copies, on a first (tracing) call and on a cached call, and compares the
return value, every argument afterwards, and whether each returned array shares
memory with each argument. Most cases also check that the call compiled (a graph, or
an entry that needs none) rather than running in CPython.
"""

from __future__ import annotations

import copy
import os
import random
import warnings

import numpy as np
import pytest

import compiler
from benchmarks.corpus.dsp import fft_radix2
from compiler.dialects.guard_metadata import GuardMetadata

pytestmark = pytest.mark.usefixtures("fresh_compiler")


# ----------------------------------------------------------------------------- helpers


def _copy(value):
    """A deep copy that keeps the layout of arrays (strides, read-only flags) and the
    aliasing between the arrays of one argument list."""
    memo = {}

    def go(x):
        if isinstance(x, np.ndarray):
            if id(x) in memo:
                return memo[id(x)]
            base = x.base if isinstance(x.base, np.ndarray) else None
            if base is not None:
                new_base = go(base)
                offset = x.__array_interface__["data"][0] - base.__array_interface__["data"][0]
                y = np.lib.stride_tricks.as_strided(
                    new_base.reshape(-1)[offset // x.itemsize :] if new_base.size else new_base,
                    x.shape,
                    x.strides,
                    writeable=x.flags.writeable,
                )
            else:
                y = x.copy()
                y.flags.writeable = x.flags.writeable
            memo[id(x)] = y
            return y
        if isinstance(x, list):
            return [go(i) for i in x]
        if isinstance(x, tuple):
            return tuple(go(i) for i in x)
        if isinstance(x, dict):
            return {k: go(i) for k, i in x.items()}
        return copy.deepcopy(x)

    return go(value)


def _same(got, want) -> bool:
    if type(got) is not type(want):
        return False
    if isinstance(want, (np.ndarray, np.generic)):
        return (
            got.dtype == want.dtype
            and got.shape == want.shape
            and np.array_equal(got, want, equal_nan=want.dtype.kind in "fc")
        )
    if isinstance(want, (list, tuple)):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))
    if isinstance(want, dict):
        return list(got) == list(want) and all(_same(got[k], want[k]) for k in want)
    return got == want


def _arrays(value) -> list:
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (list, tuple)):
        return [a for x in value for a in _arrays(x)]
    if isinstance(value, dict):
        return [a for x in value.values() for a in _arrays(x)]
    return []


def _run(fn, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.filterwarnings("error", message="ember:")  # an internal error of Ember's fails the test
        try:
            return fn(*args), None
        except Warning:
            raise
        except Exception as e:
            return None, type(e)


def check(fn, *args, compiled_expected=True, calls=2, backend="cpu", dynamic=None):
    """Compiled ``fn`` agrees with NumPy on results, errors, arguments afterwards and
    memory sharing between results and arguments; returns the compiled function."""
    compiled = compiler.compile(fn, backend=backend, dynamic=dynamic)
    for _ in range(calls):
        want_args, got_args = _copy(args), _copy(args)
        want, want_error = _run(fn, want_args)
        got, got_error = _run(compiled, got_args)
        assert got_error is want_error, (got_error, want_error)
        assert _same(got, want), (got, want)
        assert _same(got_args, want_args), (got_args, want_args)
        for g, w in zip(_arrays(got), _arrays(want)):
            for ga, wa in zip(_arrays(got_args), _arrays(want_args)):
                assert np.shares_memory(g, ga) == np.shares_memory(w, wa), (g, ga, w, wa)
    if compiled_expected is not None:
        assert (not reasons(fn, *args)) == compiled_expected, reasons(fn, *args)
    return compiled


def make(source: str, **scope):
    namespace = {"np": np, **scope}
    exec(compile(source, "<test_mutation>", "exec"), namespace)  # noqa: S102 - test code
    return next(v for k, v in namespace.items() if k not in scope and k not in ("np", "__builtins__"))


def reasons(fn, *args) -> str:
    """Why ``fn(*args)`` runs in CPython ("" when it compiles), from tracing it alone
    (the call itself may raise NumPy's error)."""
    from compiler.frontend.convert_frame import convert
    from compiler.frontend.eval_frame import Options

    entry = convert(fn, _copy(args), {}, Options())
    reason = entry.fallback_reason or entry.graph_break  # a graph break runs that part in CPython
    return reason.reason if reason is not None else ""


FL = np.arange(1.0, 5.0).reshape(2, 2)


# ----------------------------------------------------------------------------- the brief's cases


def test_accumulate_into_an_argument():
    acc = make("def acc(a, b):\n    a += b\n")
    check(acc, FL.copy(), FL.copy() * 3)
    check(acc, np.arange(5.0), 2.5)
    check(acc, np.arange(6.0).reshape(2, 3), np.arange(3.0))  # broadcast right-hand side


def test_alias_reshape_view_and_matvec():
    check(make("def alias(a, b):\n    c = a\n    c += b\n    return a\n"), FL.copy(), FL.copy())
    check(make("def view(a):\n    v = a.reshape(2, 2)\n    v += 1\n"), np.arange(4.0))
    check(make("def step(x1, A, y):\n    x1 += A @ y\n    return x1\n"), np.ones(2), FL.copy(), np.arange(2.0))
    check(make("def view_then_read(a):\n    v = a.reshape(2, 2)\n    v += 1\n    return a.sum(), v\n"), np.arange(4.0))


def test_smoothing_and_jacobi_stencils():
    smooth = make("def smooth(a):\n    a[1:-1] = 0.5 * (a[:-2] + a[2:])\n    return a\n")
    check(smooth, np.arange(8.0) ** 2)
    jacobi = make(
        "def jacobi(u, v):\n"
        "    v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])\n"
        "    return v\n"
    )
    rng = np.random.default_rng(0)
    check(jacobi, rng.random((6, 7)), np.zeros((6, 7)))
    two_steps = make(
        "def two(u, v):\n"
        "    for _ in range(2):\n"
        "        v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])\n"
        "        u, v = v, u\n"
        "    return u\n"
    )
    check(two_steps, rng.random((5, 5)), rng.random((5, 5)))


def test_overlapping_updates_read_the_old_values():
    check(make("def f(a):\n    a[1:] += a[:-1]\n"), np.arange(6.0))
    check(make("def f(a):\n    a[:-1] += a[1:]\n"), np.arange(6.0))
    check(make("def f(a):\n    a[:] = a[::-1]\n"), np.arange(6.0))
    check(make("def f(a):\n    a[::2] = a[1::2] * 10\n    return a\n"), np.arange(6.0))
    check(make("def f(a):\n    a.T[...] = a\n"), np.arange(9.0).reshape(3, 3))


def test_negative_step_and_int_index_assignment():
    check(make("def f(a, v):\n    a[::-2] = v\n"), np.arange(6.0), np.array([10.0, 20.0, 30.0]))
    check(make("def f(a):\n    a[4:0:-3] = -1\n"), np.arange(6))
    check(make("def f(a, i, v):\n    a[i] = v\n"), np.arange(6.0), 2, 7.5)
    check(make("def f(a, i, v):\n    a[i] = v\n"), np.arange(6.0), -1, 7.5)
    check(make("def f(a, v):\n    a[1, ::-1] = v\n    a[0, 1] += 3\n"), np.arange(6.0).reshape(2, 3), np.arange(3.0))
    check(make("def f(a):\n    a[None, 1:, ...] *= 2\n"), np.arange(6.0).reshape(2, 3))
    check(make("def f(a, b):\n    for row in a:\n        row += b\n"), np.zeros((3, 2)), np.arange(2.0))


def test_clip_into_out():
    """``np.clip(x, lo, hi, out=x)`` and its method and positional forms: the clamp
    written into ``out``, which is what the call returns (the same array, or a view of
    the caller's); NumPy's casting error for an int ``out`` of a float clip. It had run
    in CPython."""
    x = np.linspace(-2.0, 2.0, 9)
    check(make("def f(a):\n    return np.clip(a, -1, 1, out=a)\n"), x.copy())
    check(make("def f(a):\n    r = a.clip(-0.5, None, out=a)\n    return r is a, a.sum()\n"), x.copy())
    check(make("def f(a, o):\n    np.clip(a, 0, 1.5, o)\n    return o\n"), x.copy(), np.zeros(9))
    check(make("def f(a):\n    return np.clip(a[::2], -1, 1, out=a[::2])\n"), x.copy())
    check(
        make("def f(a, o):\n    return np.clip(a, -1, 1, out=o)\n"),
        x.copy(),
        np.zeros(9, np.int64),
        compiled_expected=None,
    )
    check(make("def f(a, o):\n    return np.clip(a, 1, 5, out=o)\n"), np.arange(8), np.zeros(8))


def test_ufunc_out_fill_copyto():
    check(make("def f(a, b):\n    np.add(a, b, out=a)\n"), FL.copy(), FL.copy())
    check(make("def f(a, b):\n    r = np.multiply(a, b, a)\n    return r\n"), FL.copy(), FL.copy())
    check(make("def f(a, b):\n    return np.subtract(b, 1, out=a[0])\n"), FL.copy(), np.arange(2.0))
    check(make("def f(a):\n    a.fill(3)\n"), np.arange(4))
    check(make("def f(a):\n    a[1:].fill(2.5)\n    return a\n"), np.arange(4.0))
    check(make("def f(a, b):\n    np.copyto(a, b)\n"), np.arange(3.0), np.arange(3))
    check(make("def f(a, b):\n    np.copyto(a, b)\n"), np.zeros((2, 3)), np.arange(3.0))
    check(make("def f(a, b):\n    a[...] = b * 2\n"), FL.copy(), FL.copy())


def test_casting_errors_are_numpys():
    div = make("def div(a):\n    a /= 2\n    return a\n")
    with pytest.raises(np._core._exceptions._UFuncOutputCastingError):
        compiler.compile(div)(np.arange(4))
    check(div, np.arange(4), compiled_expected=False)
    check(div, np.arange(4.0))
    check(make("def f(a, b):\n    np.copyto(a, b)\n"), np.arange(3), np.arange(3.0), compiled_expected=False)
    check(make("def f(a):\n    a += 2**40\n"), np.arange(3, dtype=np.int32), compiled_expected=False)  # OverflowError
    check(make("def f(a):\n    a[0] = 2.75\n"), np.arange(3))  # setitem casts unsafely: 2
    check(make("def f(a):\n    a.fill(np.nan)\n"), np.arange(3), compiled_expected=None)


def test_same_array_twice_and_overlapping_arguments_run_in_cpython():
    acc = make("def acc(a, b):\n    a += b\n    return b\n")
    a = np.arange(4.0)
    check(acc, a, a, compiled_expected=False)
    base = np.arange(6.0)
    check(acc, base[1:5], base[:4], compiled_expected=False)
    assert "share memory" in reasons(acc, a, a)
    check(acc, np.arange(4.0), np.arange(4.0))  # distinct arrays: compiled
    lst = make("def f(xs):\n    xs[0] += xs[1]\n")
    check(lst, [a, a], compiled_expected=False)
    check(lst, [np.arange(4.0), np.arange(4.0)])
    compiled = compiler.compile(acc)
    x, y = np.arange(4.0), np.ones(4)
    compiled(x, y)  # compiled entry; then the same array twice must miss its guards
    z = np.arange(4.0)
    compiled(z, z)
    np.testing.assert_array_equal(z, np.arange(4.0) * 2)


def test_read_only_array_raises_numpys_error():
    acc = make("def acc(a, b):\n    a += b\n")
    r = np.arange(3.0)
    r.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        compiler.compile(acc)(r, np.ones(3))
    check(acc, r, np.ones(3), compiled_expected=False)
    reader = make("def f(a):\n    return a * 2\n")
    check(reader, r)  # reading a read-only array still compiles


def test_returned_views_share_the_callers_memory():
    for src in (
        "def f(x):\n    return x[1:]\n",
        "def f(x):\n    return x.T\n",
        "def f(x):\n    return x.reshape(-1)\n",
        "def f(x):\n    return x[None, ::-1]\n",
        "def f(x):\n    return np.expand_dims(x, 0), np.squeeze(x[:1])\n",
        "def f(x):\n    return x[:]\n",
        "def f(x):\n    return np.asarray(x)\n",
        "def f(x):\n    x += 1\n    return x[::2], x\n",
        "def f(x):\n    v = x[1:]\n    x[...] = 0\n    return v\n",
    ):
        check(make(src), np.arange(6.0).reshape(2, 3))
    for src in ("def f(x):\n    return x.ravel()\n", "def f(x):\n    return x.reshape(-1)\n"):
        check(make(src), np.arange(6.0).reshape(2, 3))
        check(make(src), np.arange(6.0).reshape(2, 3).T)  # NumPy copies: not a view
        check(make(src), np.arange(12.0).reshape(3, 4)[:, ::2])  # reshape: a view, ravel: a copy


def test_reshapes_of_reshapes_written_through_and_returned():
    # a run of reshapes is one view step (view_steps.merged_reshapes): the writes and
    # the returned views are NumPy's, memory shared with the caller's array included
    for src in (
        "def f(x):\n    y = x.reshape(4, 6).reshape(24).reshape(2, 12)\n    y[0] = 0\n    return y, x\n",
        "def f(x):\n    y = x.reshape(24)\n    z = y.reshape(6, 4)\n    z[:, 1] = -1\n    return z.reshape(24), y\n",
        "def f(x):\n    y = x[:, ::2].reshape(2, 2, 3).reshape(4, 3)\n    y[1] = 5\n    return y, x\n",
        "def f(x):\n    y = x.reshape(24).reshape(4, 6)\n    y[::2] += 1\n    return y\n",
    ):
        check(make(src), np.arange(24.0).reshape(4, 6))
    check(
        make("def f(x):\n    y = x.reshape(24).reshape(6, 4)\n    y[0] = 0\n    return y\n"),
        np.arange(24.0).reshape(6, 4).T,
    )


def test_a_loop_reshaping_its_array_each_iteration_grows_the_graph_linearly(compile_counter):
    # the corpus's FFT: each stage reshapes X and back and writes through the reshape: the view chain
    # stays one reshape long, not two more per stage (replayed by every write: 920 ops
    # at 10 stages, quadratic in the stages, past the graph budget at 16)
    n = 1024
    bits = n.bit_length() - 1
    bitrev = np.array([int(format(i, f"0{bits}b")[::-1], 2) for i in range(n)])
    x = np.random.default_rng(3).standard_normal(n)
    got = compiler.compile(fft_radix2, backend=compile_counter)(x, bitrev)
    np.testing.assert_allclose(got, np.fft.fft(x), rtol=1e-12, atol=1e-12 * n)
    assert compile_counter.graphs == 1 and compile_counter.ops <= 40 * bits


def test_views_of_fresh_arrays():
    fresh = make("def fresh(a, b):\n    t = a + 1\n    u = t.reshape(4)\n    t += b\n    return t, u\n")
    check(fresh, FL.copy(), FL.copy())
    check(make("def f(a):\n    t = a * 2\n    v = t[::-1]\n    v[0] = 100\n    return t, v, v.T\n"), np.arange(3.0))
    check(make("def f(a):\n    t = a.T.reshape(-1)\n    t[0] = 100\n    return t, a\n"), FL.copy())
    check(make("def f(a):\n    t = a.copy()\n    t += 1\n    return t\n"), FL.copy())
    check(make("def f(a):\n    t = a.astype(a.dtype)\n    t += 1\n    return t, a\n"), FL.copy())


def test_mutated_containers_and_attributes():
    check(make("def f(xs, b):\n    xs[0] += b\n    return len(xs)\n"), [np.arange(3.0), np.ones(2)], 1.0)
    check(make("def f(d):\n    d['w'][1:] -= d['g'][1:]\n"), {"w": np.arange(3.0), "g": np.ones(3)})
    check(make("def f(xs):\n    x = xs[0]\n    xs[0] = x * 2\n    x += 1\n    return x\n"), [np.arange(3.0)])

    class Box:
        def __init__(self):
            self.w = np.arange(4.0)

    box = Box()
    fn = make("def f(box):\n    box.w *= 3\n    return box.w\n")
    compiled = compiler.compile(fn)
    want = fn(_copy([Box()])[0])
    got = compiled(box)
    assert got is box.w and _same(got, want)
    assert _same(box.w, np.arange(4.0) * 3)


@pytest.mark.parametrize(
    "a",
    [
        np.arange(6, dtype=np.int64),
        np.arange(6, dtype=np.int32),
        np.array([True, False, True, True, False, False]),
        np.arange(6, dtype=np.float32),
    ],
    ids=["int64", "int32", "bool", "float32"],
)
def test_dtypes(a):
    check(make("def f(a):\n    a[1:] |= a[:-1]\n") if a.dtype == bool else make("def f(a):\n    a[1:] += a[:-1]\n"), a)
    check(make("def f(a):\n    a[::2] = a[1::2]\n    return a\n"), a)
    check(make("def f(a, b):\n    a *= b\n"), a, a[::-1].copy())


def test_zero_dim_and_empty_and_strided_arguments():
    check(make("def f(a):\n    a += 1\n    return a\n"), np.array(2.0))
    check(make("def f(a):\n    a[...] = 5\n"), np.array(2))
    check(make("def f(a, b):\n    a += b\n"), np.zeros(0), np.zeros(0))
    check(make("def f(a):\n    a[1:] = 3\n"), np.zeros((0, 3)))
    base = np.arange(12.0).reshape(3, 4)
    check(make("def f(a, b):\n    a += b\n    return a.T\n"), base[:, ::2], np.ones(2))
    check(make("def f(a):\n    a[1:] = a[:-1] * 2\n"), np.arange(8.0)[::-2])
    check(make("def f(a):\n    v = a.reshape(-1)\n    v += 1\n    return v\n"), base[:, ::2])  # a copy
    check(make("def f(a):\n    v = a.reshape(-1)\n    v += 1\n    return v\n"), base.T)  # a copy


def test_layout_guard_recompiles_for_a_copying_reshape():
    fn = make("def f(a):\n    v = a.reshape(-1)\n    v += 1\n    return v\n")
    compiled = compiler.compile(fn)
    for make_a in (
        lambda: np.arange(6.0).reshape(2, 3),
        lambda: np.arange(6.0).reshape(3, 2).T,
        lambda: np.arange(6.0).reshape(2, 3),
        lambda: np.arange(12.0).reshape(3, 4)[:, ::2],
    ):
        want_a, got_a = make_a(), make_a()
        want, got = fn(want_a), compiled(got_a)
        assert _same(got, want) and _same(got_a, want_a)
        assert np.shares_memory(got, got_a) == np.shares_memory(want, want_a)


def test_guard_metadata_records_written_inputs(compile_counter):
    fn = make("def f(a, b):\n    a += b\n    return b * 2\n")
    modules = []

    def backend(module, example_inputs):
        modules.append(module)
        return compile_counter(module, example_inputs)

    compiler.compile(fn, backend=backend)(np.ones(3), np.ones(3))
    meta = GuardMetadata.read(modules[0].body.operations[0])
    assert meta.written == ["L['a']"]
    assert any(g.kind == "writeable" for g in meta.guards) and any(g.kind == "overlap" for g in meta.guards)


# ----------------------------------------------------------------------------- differential generator


_SHAPES = {"a": (6,), "b": (4, 5), "c": (6,)}
_DTYPES = {"a": np.float64, "b": np.float64, "c": np.int64}
_REGIONS = {
    "a": [
        "{}",
        "{}[1:]",
        "{}[:-1]",
        "{}[::2]",
        "{}[1::2]",
        "{}[::-1]",
        "{}[5:0:-2]",
        "{}[2:4]",
        "{}.reshape(2, 3)",
        "{}.reshape(3, 2).T",
        "{}[None]",
        "{}[...]",
    ],
    "b": [
        "{}",
        "{}[1:]",
        "{}[:, ::-1]",
        "{}[::2, 1:4]",
        "{}.T",
        "{}[1]",
        "{}[:, 2]",
        "{}[::-1, ::-2]",
        "{}[1:3, :]",
        "{}.reshape(20)",
        "{}.reshape(5, 4)",
        "{}[2:, 3:]",
    ],
}
_REGIONS["c"] = _REGIONS["a"]


def _shape_of(expr: str, name: str) -> tuple:
    return tuple(eval(expr.format("x"), {"x": np.zeros(_SHAPES[name])}).shape)  # noqa: S307 - test code


class _Program:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.lines = []
        self.views = []  # (name, array name, shape)

    def region(self, name=None):
        """(expression, array, shape) of a region of an argument or a kept view."""
        rng = self.rng
        if self.views and rng.random() < 0.35:
            view, array, shape = rng.choice(self.views)
            return view, array, shape
        name = name or rng.choice(list(_SHAPES))
        expr = rng.choice(_REGIONS[name])
        return expr.format(name), name, _shape_of(expr, name)

    def same_shape(self, shape, avoid_int=False):
        """An expression of ``shape`` (or broadcastable to it), or a scalar."""
        rng = self.rng
        for _ in range(20):
            expr, array, s = self.region()
            if avoid_int and _DTYPES[array] is not np.int64:
                continue
            if s == shape:
                return expr
            if s == shape[-1:] and len(shape) == 2:
                return expr
        return repr(rng.choice([1, 2, -1, 3]))

    def statement(self):
        rng = self.rng
        target, array, shape = self.region()
        is_int = _DTYPES[array] is np.int64
        kind = rng.randrange(7)
        rhs = self.same_shape(shape, avoid_int=False)
        if is_int and not rhs.lstrip("-").isdigit() and not rhs.startswith("c"):
            rhs = rng.choice(["2", "-1", "3"])
        assignable = target if target.endswith("]") else f"{target}[...]"
        if kind == 0:
            op = rng.choice(["+", "-", "*"])  # not "/": the CPU backend's x / 3 is 1 ulp off NumPy (a known gap)
            self.lines.append(f"{target if target.isidentifier() else assignable} {op}= {rhs}")
        elif kind == 1:
            self.lines.append(f"{assignable} = {rhs}")
        elif kind == 2:
            ufunc = rng.choice(["add", "subtract", "multiply", "maximum"])
            self.lines.append(f"np.{ufunc}({target}, {rhs}, out={target})")
        elif kind == 3:
            self.lines.append(f"np.copyto({target}, {rhs})")
        elif kind == 4:
            self.lines.append(f"{target}.fill({rng.choice([0, 7, -2])})")
        elif kind == 5:
            name = f"v{len(self.views)}"
            self.lines.append(f"{name} = {target}")
            self.views.append((name, array, shape))
        else:
            self.lines.append(f"{target}[{rng.randrange(shape[0]) if shape and shape[0] else 0}, ...] += 1")

    def source(self) -> str:
        returns = ", ".join(name for name, _, _ in self.views) + ("," if self.views else "")
        body = "\n".join(f"    {line}" for line in self.lines)
        return f"def prog(a, b, c):\n{body}\n    return ({returns})\n"


def _program(seed: int) -> str:
    rng = random.Random(seed)
    p = _Program(rng)
    for _ in range(rng.randint(1, 6)):
        p.statement()
    return p.source()


def _arguments(seed: int):
    rng = np.random.default_rng(seed)
    a = rng.integers(-5, 5, 6).astype(np.float64)
    b = rng.integers(-5, 5, (4, 5)).astype(np.float64)
    c = rng.integers(-5, 5, 6)
    if seed % 5 == 0:  # non-contiguous argument views
        b = np.ascontiguousarray(np.pad(b, ((0, 0), (0, 5))))[:, ::2][:, :5].copy()[:, ::-1]
    return a, b, c


def _differential(count: int, first: int = 0, dynamic=None):
    compiled_count = 0
    for seed in range(first, first + count):
        source = _program(seed)
        fn = make(source)
        try:
            check(fn, *_arguments(seed), compiled_expected=None, dynamic=dynamic)
        except AssertionError as e:
            raise AssertionError(f"seed {seed}:\n{source}\n{e}") from None
        compiled_count += not reasons(fn, *_arguments(seed))
        compiler.reset()
    return compiled_count


def test_differential_mutating_programs():
    count = int(os.environ.get("EMBER_SOAK", "300"))
    compiled = _differential(count)
    assert compiled >= count // 2, f"only {compiled} of {count} programs compiled"


def test_differential_mutating_programs_at_symbolic_sizes():
    """The same programs with every size symbolic (``dynamic=True``): writes through
    views of symbolic slices, symbolic clamping, duck-shaped arguments."""
    count = int(os.environ.get("EMBER_SOAK", "100"))
    compiled = _differential(count, first=10_000, dynamic=True)
    assert compiled >= count // 3, f"only {compiled} of {count} programs compiled"


def test_a_returned_squeeze_to_0d_is_a_0d_view_not_a_scalar(fresh_compiler):
    """Found by the frontend fuzzer: ``np.squeeze`` of a written (1,) argument."""

    def f(x):
        x += x
        return np.squeeze(x)

    x, want_x = np.array([0.25], np.float32), np.array([0.25], np.float32)
    want = f(want_x)
    got = compiler.compile(f)(x)
    assert type(got) is type(want) is np.ndarray and got.shape == () and got == want
    assert np.shares_memory(got, x) and np.array_equal(x, want_x)
