"""The generated per-function ``__call__`` (compiler/frontend/dispatcher.py).

A warm call is one generated function: the newest entry's guards, the kernel's call
path written into it, older entries tried on a miss. These tests pin what that must
keep of a plain call: Python's own argument binding and its errors, defaults read at
call time, methods, recompiles and ``reset()``, and the kernel's general path for
inputs its fast entry refuses.
"""

import sys

import numpy as np
import pytest

import compiler
from compiler.frontend.eval_frame import CompiledFunction


def _add(x, y):
    return x + y


def _vectors(n=8, dtype=np.float32):
    return np.arange(n, dtype=dtype) * dtype(0.5), np.full(n, 1.25, dtype)


def test_a_warm_call_is_one_generated_function():
    f, g = compiler.compile(_add), compiler.compile(lambda x, y: x * y)
    x, y = _vectors()
    np.testing.assert_array_equal(f(x, y), x + y)
    assert isinstance(f, CompiledFunction) and type(f) is not CompiledFunction
    assert type(f) is not type(g)  # each function its own class, its own __call__
    source = type(f).__call__.__ember_source__
    assert "x.dtype is" in source  # the entry's guards ...
    assert "__ember_K_fast(x" not in source and "__ember_K_fast(__ember_K_a0" in source  # ... and the kernel's builtin
    assert "__ember_GRAPH(" not in source and "__ember_E0(" not in source  # no call of the entry or the binder


@pytest.mark.parametrize(
    "call",
    [
        lambda f, x: f(x),
        lambda f, x: f(x, x, x),
        lambda f, x: f(x, z=x),
        lambda f, x: f(x, x=x),
    ],
    ids=["missing", "too-many", "unknown-keyword", "twice"],
)
def test_wrong_arguments_raise_the_plain_functions_type_error(call):
    f = compiler.compile(_add)
    x, y = _vectors()
    f(x, y)  # an entry exists: the error comes from the dispatcher's own binding
    with pytest.raises(TypeError) as plain:
        call(_add, x)
    with pytest.raises(TypeError) as compiled:
        call(f, x)
    assert str(compiled.value) == str(plain.value)


def test_the_recompile_limit_warning_points_at_the_callers_line():
    f = compiler.compile(_add, dynamic=False, options={"recompile_limit": 2})
    x, y = _vectors()
    f(x, y), f(x[:3], y[:3])
    with pytest.warns(RuntimeWarning, match="recompile_limit=2") as caught:
        line = sys._getframe().f_lineno + 1
        np.testing.assert_array_equal(f(x[:5], y[:5]), x[:5] + y[:5])  # runs the plain function
    assert (caught[0].filename, caught[0].lineno) == (__file__, line)


def test_older_entries_still_hit_after_a_recompile():
    f = compiler.compile(_add, dynamic=False)
    big, small = _vectors(8), _vectors(3, np.float64)
    for _ in range(3):
        for x, y in (big, small):
            got = f(x, y)
            np.testing.assert_array_equal(got, x + y)
            assert got.dtype == x.dtype
    assert len(f.entries) == 2  # the older entry (float32) answered through the dispatcher's miss path


def test_reset_drops_the_entries_the_dispatcher_contains():
    f = compiler.compile(_add)
    x, y = _vectors()
    f(x, y)
    (before,) = f.entries
    f.reset()
    assert f.entries == []
    np.testing.assert_array_equal(f(x, y), x + y)
    (after,) = f.entries
    assert after is not before  # traced again: the reset dispatcher held no old entry


def _scaled(x, a=2.0, b=3.0, *rest, k=0.5, **extra):
    return x * a + b * k


def test_defaults_are_read_when_the_call_is_made():
    f = compiler.compile(_scaled, options={"recompile_limit": 64})
    x, _ = _vectors()
    calls = [
        lambda g: g(x),
        lambda g: g(x, 1.5),
        lambda g: g(x, b=4.0),
        lambda g: g(x, 1.5, 4.0, k=2.0),
        lambda g: g(x, k=-1.0),
    ]
    saved = _scaled.__defaults__, _scaled.__kwdefaults__
    try:
        for call in calls:
            np.testing.assert_allclose(call(f), call(_scaled))
        for i, call in enumerate(calls):  # reassigned after compiling: each form is the first call to see them
            _scaled.__defaults__ = (10.0 + i, -1.0)
            np.testing.assert_allclose(call(f), call(_scaled))
            _scaled.__kwdefaults__ = {"k": 4.0 + i}
            np.testing.assert_allclose(call(f), call(_scaled))
        for call in calls:
            np.testing.assert_allclose(call(f), call(_scaled))
    finally:
        _scaled.__defaults__, _scaled.__kwdefaults__ = saved


def _positional_only(x, s=2.0, /, t=1.0):
    return x * s - t


def test_positional_only_defaults_after_a_change():
    f = compiler.compile(_positional_only)
    x, _ = _vectors()
    saved = _positional_only.__defaults__
    try:
        for defaults in (saved, (5.0, 7.0)):
            _positional_only.__defaults__ = defaults
            for call in (lambda g: g(x), lambda g: g(x, t=3.0), lambda g: g(x, 4.0), lambda g: g(x, 4.0, 3.0)):
                np.testing.assert_allclose(call(f), call(_positional_only))
    finally:
        _positional_only.__defaults__ = saved


def test_star_args_and_keywords_pass_through():
    def total(x, *arrays, scale, **named):
        out = x * scale
        for a in arrays:
            out = out + a
        for key in sorted(named):
            out = out - named[key]
        return out

    f = compiler.compile(total)
    x, y = _vectors()
    for _ in range(2):
        np.testing.assert_allclose(f(x, y, y, scale=3.0, p=x, q=y), total(x, y, y, scale=3.0, p=x, q=y))
        np.testing.assert_allclose(f(x, scale=2.0), total(x, scale=2.0))


def test_compiled_methods_get_their_instance():
    class Affine:
        def __init__(self, w):
            self.w = w

        @compiler.compile
        def __call__(self, x):
            return x * self.w + 1.0

    x, _ = _vectors()
    a, b = Affine(np.float32(2.0)), Affine(np.float32(-3.0))
    for _ in range(2):
        np.testing.assert_array_equal(a(x), x * np.float32(2.0) + 1.0)
        np.testing.assert_array_equal(b(x), x * np.float32(-3.0) + 1.0)


def test_reserved_parameter_names_keep_the_generic_call():
    def f(__ember_x):
        return __ember_x + 1

    compiled = compiler.compile(f)
    assert type(compiled) is CompiledFunction  # no generated code over such a parameter
    x, _ = _vectors()
    np.testing.assert_array_equal(compiled(x), x + 1)


@pytest.mark.parametrize("view", ["strided", "reversed", "transposed-copy"])
def test_inputs_the_fast_entry_refuses_take_the_kernels_general_path(view):
    f = compiler.compile(lambda a, b: a * 2.0 - b)
    base = np.arange(32, dtype=np.float32).reshape(4, 8)
    x, y = base[:, :4].copy(), base[:, 4:].copy()
    np.testing.assert_array_equal(f(x, y), x * 2.0 - y)
    if view == "strided":
        x, y = base[:, ::2], base[:, 1::2]
    elif view == "reversed":
        x, y = base[::-1, :4], base[:, ::-2]
    else:
        x, y = np.asfortranarray(x), np.asfortranarray(y)
    np.testing.assert_array_equal(f(x, y), x * 2.0 - y)
    np.testing.assert_array_equal(f(x, y), x * 2.0 - y)


def test_symbolic_sizes_through_the_contained_call_path():
    f = compiler.compile(lambda x: np.exp(x) * 2.0, dynamic=True)
    for sizes, entries in (((5, 9, 2, 33), 1), ((1, 0), 3), ((7, 100, 1, 0, 3), 3)):  # 0 and 1: entries of their own
        for n in sizes:
            x = np.linspace(-1, 1, n, dtype=np.float32)
            got = f(x)
            np.testing.assert_allclose(got, np.exp(x) * 2.0, rtol=1e-6)
            assert got.shape == (n,)
        assert len(f.entries) == entries


def _log_then_scale(x, y, log):
    print("step", x.shape)  # a side effect: a graph break, the print run by the entry
    log.append(x.shape)
    z = x * 2.0
    z *= y  # raises when y broadcasts past z, as NumPy does
    return z


@pytest.mark.parametrize("backend", ["cpu", "eager"])
def test_an_exception_from_a_new_entry_reaches_the_caller_once(backend, capsys):
    """A call that misses the entry the dispatcher contains compiles a new one; when the
    user's code raises in it, the exception propagates, and nothing ran twice (the
    guards' ``except`` caught it and ran the function again: its print and its side
    effects doubled, seen in the graph-break fuzzer)."""
    compiled = compiler.compile(_log_then_scale, backend=backend)
    log = []
    np.testing.assert_array_equal(compiled(np.ones((1, 3)), np.ones(3), log), np.full((1, 3), 2.0))
    log.clear()
    capsys.readouterr()
    with pytest.raises(ValueError, match="non-broadcastable output"):
        compiled(np.ones((2, 3)), np.ones((3, 2, 3)), log)
    assert log == [(2, 3)]
    assert capsys.readouterr().out == "step (2, 3)\n"
