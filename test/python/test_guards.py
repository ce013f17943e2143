"""Guard soundness: for every guard kind, the guarded fact changes and the result follows.

Each test calls a compiled function, changes one fact the trace relied on (an argument's
type or value, a container's length or keys, an array's dtype/rank/shape, a global, a
closure cell, an attribute, a dict or list item, a partial's arguments, a default, a
module attribute, a function swapped in a module or a global) and checks that the next
call gives what plain Python gives — never the stale result of the old entry. The last
tests check the other side: facts that do not change hit the cache (no new entry, no
new graph).
"""

from __future__ import annotations

import functools
import sys
import types

import numpy as np
import pytest
from conftest import CompileCounter

from compiler import compile

pytestmark = pytest.mark.usefixtures("fresh_compiler")

X = np.arange(6, dtype=np.float64).reshape(2, 3) - 2.5


def same(got, want):
    assert type(got) is type(want), f"{type(got).__name__} != {type(want).__name__}"
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    elif isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype and np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    else:
        assert got == want


def agree(compiled, plain, *args, **kwargs):
    """The compiled function gives what the plain one gives, now."""
    same(compiled(*args, **kwargs), plain(*args, **kwargs))


# ----------------------------------------------------------------------------- arguments


def test_type_guard_int_then_float_then_bool_argument():
    def f(x, k):
        return x.astype(np.int64) * k

    c = compile(f)
    for k in (2, 2.0, True, np.float32(2)):
        agree(c, f, X, k)
    assert len(c.entries) == 4


def test_constant_guard_int_str_bool_none():
    def f(x, n, mode, flag, extra):
        y = x * n
        if mode == "double":
            y = y * 2
        if flag:
            y = -y
        if extra is not None:
            y = y + extra
        return y

    c = compile(f)
    calls = [
        (1, "double", False, None),
        (2, "double", False, None),
        (2, "half", False, None),
        (2, "half", True, None),
        (2, "half", True, 1.5),
        (2, "half", True, 2.5),
    ]
    for args in calls:
        agree(c, f, X, *args)


def test_length_guard_on_list_and_tuple_arguments():
    def f(xs, t):
        total = xs[0]
        for x in xs[1:]:
            total = total + x
        return total * len(t)

    c = compile(f)
    agree(c, f, [X, X], (1,))
    agree(c, f, [X, X, X], (1,))
    agree(c, f, [X, X, X], (1, 2, 3))


def test_keys_guard_on_dict_argument():
    def f(x, cfg):
        y = x
        for key in cfg:
            y = y + cfg[key]
        return (y * 2, "scale" in cfg)

    c = compile(f)
    agree(c, f, X, {"scale": 1.0})
    agree(c, f, X, {"scale": 1.0, "bias": 3.0})
    agree(c, f, X, {"bias": 3.0, "scale": 1.0})  # same keys, other order: iteration order matters


def test_dict_item_and_list_item_values():
    def f(x, cfg, ws):
        return x * cfg["scale"] + ws[1]

    c = compile(f)
    cfg, ws = {"scale": 2.0}, [0.0, 1.0]
    agree(c, f, X, cfg, ws)
    cfg["scale"] = 3.0  # the same dict object, mutated between calls
    agree(c, f, X, cfg, ws)
    ws[1] = -4.0
    agree(c, f, X, cfg, ws)
    ws[1] = -4  # same value, other type
    agree(c, f, X.astype(np.int32), cfg, ws)


@pytest.mark.parametrize(
    "second",
    [X.astype(np.float32), X.astype(np.int64), X.astype(bool), X[0], X[None], X.reshape(3, 2), np.zeros((0, 3)), X.T],
)
def test_tensor_guard_dtype_rank_shape(second):
    def f(x):
        return (x * 2).sum(axis=-1), x.shape, x.dtype

    c = compile(f)
    agree(c, f, X)
    agree(c, f, second)
    agree(c, f, X)


def test_zero_d_array_and_numpy_scalar_are_different_arguments():
    def f(x):
        return x + 1

    c = compile(f)
    for value in (np.array(2.0), np.float64(2.0), 2.0, np.array(2.0, np.float32), np.float32(2.0)):
        agree(c, f, value)


# ----------------------------------------------------------------------------- globals, cells, objects

SCALE = 2.0
ACT = np.tanh


def test_global_value_and_type():
    global SCALE

    def f(x):
        return x * SCALE

    c = compile(f)
    try:
        agree(c, f, X)
        SCALE = 3.0
        agree(c, f, X)
        SCALE = 3  # same value, other type: int64 * int stays int64
        agree(c, f, X.astype(np.int64))
    finally:
        SCALE = 2.0


def test_global_function_swapped():
    global ACT

    def f(x):
        return ACT(x)

    c = compile(f)
    try:
        agree(c, f, X)
        ACT = np.exp
        agree(c, f, X)
        ACT = lambda a: a * 10  # noqa: E731 - a Python function in the same global
        agree(c, f, X)
    finally:
        ACT = np.tanh


def test_closure_cell_value_and_function():
    k = 2.0
    act = np.tanh

    def f(x):
        return act(x) * k

    c = compile(f)
    agree(c, f, X)
    k = 5.0
    agree(c, f, X)
    act = np.sin  # noqa: F841 - read through the cell
    agree(c, f, X)


def test_object_attribute_and_nested_attribute():
    class Layer:
        def __init__(self, w, cfg):
            self.w = w
            self.cfg = cfg

        def __call__(self, x):
            return x * self.w + self.cfg.bias

    cfg = types.SimpleNamespace(bias=1.0)
    layer = Layer(2.0, cfg)

    def f(x):
        return layer(x)

    c = compile(f)
    agree(c, f, X)
    layer.w = 3.0
    agree(c, f, X)
    cfg.bias = -7.0
    agree(c, f, X)
    layer.w = np.ones(3)  # an attribute becomes an array (a graph input)
    agree(c, f, X)
    layer.w = np.ones(3) * 4
    agree(c, f, X)


def test_partial_args_and_keywords():
    def affine(a, k, shift=0.0):
        return a * k + shift

    def f(x, p):
        return p(x)

    c = compile(f)
    agree(c, f, X, functools.partial(affine, k=2.0))
    agree(c, f, X, functools.partial(affine, k=3.0))
    agree(c, f, X, functools.partial(affine, k=3.0, shift=1.0))
    agree(c, f, X, functools.partial(affine, shift=1.0, k=3.0))


def test_partial_in_a_global_changed_in_place():
    def affine(a, k=1.0):
        return a * k

    g = {"P": functools.partial(affine, k=2.0)}

    def f(x):
        return P(x)  # noqa: F821 - defined in g

    f = types.FunctionType(f.__code__, {**g, "__builtins__": __builtins__})
    c = compile(f)
    agree(c, f, X)
    f.__globals__["P"] = functools.partial(affine, k=-1.0)
    agree(c, f, X)


def test_default_argument_of_an_inlined_helper():
    def helper(a, k=2.0, *, shift=0.0):
        return a * k + shift

    def f(x):
        return helper(x)

    c = compile(f)
    agree(c, f, X)
    helper.__defaults__ = (5.0,)
    agree(c, f, X)
    helper.__kwdefaults__ = {"shift": 1.0}
    agree(c, f, X)


def test_mutable_default_of_an_inlined_helper():
    weights = [1.0, 2.0]

    def helper(a, ws=weights):
        return a * ws[0] + ws[1]

    def f(x):
        return helper(x)

    c = compile(f)
    agree(c, f, X)
    weights[1] = 10.0
    agree(c, f, X)


def test_default_argument_of_the_compiled_function_itself():
    """A reassigned ``__defaults__`` of the compiled function itself is a new entry."""

    def f(x, k=2.0):
        return x * k

    c = compile(f)
    agree(c, f, X)
    f.__defaults__ = (4.0,)
    agree(c, f, X)


def _module(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


def test_module_attribute_constant_and_function():
    cfgmod = _module("_ember_guard_cfgmod", alpha=2.0, act=np.tanh)

    def f(x):
        return cfgmod.act(x) * cfgmod.alpha + np.pi

    c = compile(f)
    try:
        agree(c, f, X)
        cfgmod.alpha = 3.0
        agree(c, f, X)
        cfgmod.act = np.cos
        agree(c, f, X)
    finally:
        del sys.modules["_ember_guard_cfgmod"]


def test_a_global_read_by_an_inlined_helper_of_another_module():
    source = "import numpy as np\nBIAS = 1.0\ndef helper(a):\n    return a + BIAS\n"
    helpers = _module("_ember_guard_helpers")
    exec(source, helpers.__dict__)

    def f(x):
        return helpers.helper(x)

    c = compile(f)
    try:
        agree(c, f, X)
        helpers.BIAS = 5.0
        agree(c, f, X)
        helpers.helper = lambda a: a * 0
        agree(c, f, X)
    finally:
        del sys.modules["_ember_guard_helpers"]


def test_numpy_function_swapped_in_the_numpy_module(monkeypatch):
    def f(x):
        return np.exp(x)

    c = compile(f)
    agree(c, f, X)
    monkeypatch.setattr(np, "exp", np.sin)
    agree(c, f, X)


# ----------------------------------------------------------------------------- cache hits


def test_unchanged_facts_hit_the_cache():
    counter = CompileCounter()
    cfg = {"scale": 2.0}
    xs = [X, X + 1]

    @compile(backend=counter)
    def f(x, n, mode, cfg, xs):
        y = x * cfg["scale"] * SCALE
        if mode == "a":
            y = y + n
        return y + xs[0] + xs[1]

    for _ in range(3):
        f(X, 1, "a", cfg, xs)
    f(X.copy(), 1, "a", dict(cfg), [X * 2, X])  # equal facts in other objects, other array values
    assert counter.graphs == 1 and len(f.entries) == 1


def test_changed_fact_adds_one_entry_and_the_old_one_still_hits():
    counter = CompileCounter()

    @compile(backend=counter)
    def f(x, n):
        return x * n

    f(X, 2)
    f(X, 3)
    f(X.astype(np.float32), 2)
    assert len(f.entries) == counter.graphs == 3
    f(X, 2)
    f(X, 3)
    f(X.astype(np.float32), 2)
    assert len(f.entries) == counter.graphs == 3


def test_empty_tuple_results_compile():
    c = compile(lambda x: (x.shape, ()))
    assert c(np.array(1.0)) == ((), ())
    assert c.entries[0].fallback_reason is None


def test_a_no_op_conversion_returns_a_copy_like_numpy():
    a = np.arange(4.0)
    c = compile(lambda x: x.astype(x.dtype))
    out = c(a)
    np.testing.assert_array_equal(out, a)
    assert out is not a and not np.shares_memory(out, a)
