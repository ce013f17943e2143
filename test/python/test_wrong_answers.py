"""Wrong answers found in review, one test per finding.

Each runs the function in plain Python/NumPy on copies of the inputs and compiled on
other copies, and compares the return value *and* the caller's arguments afterwards
(arrays, lists, dicts). Where Ember cannot compile a program correctly yet, the call
must run in CPython: the answer is right, and ``compiler.explain`` says why.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import compiler
from compiler.backends import compile_graph
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType
from compiler.errors import InvalidBackend

pytestmark = pytest.mark.usefixtures("fresh_compiler")


# ----------------------------------------------------------------------------- helpers


def _same(got, want) -> bool:
    """Equal values of equal types (arrays: class, dtype, shape, values, signs of zeros)."""
    if type(got) is not type(want):
        return False
    if isinstance(want, np.ma.MaskedArray):
        return np.array_equal(got.mask, want.mask) and np.array_equal(got.filled(0), want.filled(0))
    if isinstance(want, (np.ndarray, np.generic)):
        return (
            got.dtype == want.dtype
            and got.shape == want.shape
            and np.array_equal(got, want, equal_nan=want.dtype.kind in "fc")
            and _same_zero_signs(got, want)
        )
    if isinstance(want, (list, tuple)):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))
    if isinstance(want, dict):
        return list(got) == list(want) and all(_same(got[k], want[k]) for k in want)
    return got == want


def _same_zero_signs(got, want) -> bool:
    if want.dtype.kind != "f":
        return True
    zeros = np.asarray(want == 0)
    return np.array_equal(np.signbit(got)[zeros], np.signbit(want)[zeros])


def _run(fn, args):
    try:
        return fn(*args), None
    except Exception as e:  # the program's own error: the compiled call must raise the same
        return None, type(e)


def check(fn, *args, backend="cpu", calls=2):
    """``compile(fn)`` agrees with ``fn`` on results, exceptions and the arguments
    afterwards, on a first (tracing) call and on cached calls."""
    compiled = compiler.compile(fn, backend=backend)
    for _ in range(calls):
        want_args, got_args = copy.deepcopy(args), copy.deepcopy(args)
        want, want_error = _run(fn, want_args)
        got, got_error = _run(compiled, got_args)
        assert got_error is want_error
        assert _same(got, want), (got, want)
        for g, w in zip(got_args, want_args):
            assert _same(g, w), (g, w)
    return compiled


def make(source: str, **scope):
    """A function from source (augmented assignments cannot be lambdas)."""
    namespace = {"np": np, **scope}
    exec(compile(source, "<test_wrong_answers>", "exec"), namespace)  # noqa: S102 - test code
    return next(v for k, v in namespace.items() if k not in scope and k not in ("np", "__builtins__"))


def break_reasons(fn, *args) -> str:
    out = compiler.explain(fn)(*copy.deepcopy(args))
    return " ".join(r.reason for r in out.break_reasons)


FL = np.arange(1.0, 5.0).reshape(2, 2)
INTS = np.arange(1, 5, dtype=np.int64).reshape(2, 2)


# ----------------------------------------------------------------------------- 1. in-place operators

INPLACE = [
    ("+", FL, FL),
    ("-", FL, FL),
    ("*", FL, FL),
    ("/", FL, FL),
    ("//", FL, FL),
    ("**", FL, FL),
    ("%", FL, FL),
    ("@", FL, FL),
    ("&", INTS, INTS),
    ("|", INTS, INTS),
    ("^", INTS, INTS),
    ("<<", INTS, INTS),
    (">>", INTS, INTS),
]


@pytest.mark.parametrize("op,a,b", INPLACE, ids=[op + "=" for op, _, _ in INPLACE])
def test_inplace_operator_on_array_argument_changes_the_callers_array(op, a, b):
    """Compiled now (``frontend/mutation.py``): the graph returns the new value and the
    entry writes it into the caller's array."""
    acc = make(f"def acc(a, b):\n    a {op}= b\n")
    check(acc, a.copy(), b.copy())
    out = compiler.explain(acc)(a.copy(), b.copy())
    assert (out.graph_count, out.graph_break_count) == (1, 0), break_reasons(acc, a.copy(), b.copy())


def test_inplace_operator_through_an_alias_a_view_and_a_matmul():
    alias = make("def alias(a, b):\n    c = a\n    c += b\n    return a\n")
    check(alias, FL.copy(), FL.copy())
    view = make("def view(a):\n    v = a.reshape(2, 2)\n    v += 1\n")
    check(view, np.arange(4.0))
    step = make("def step(x1, A, y):\n    x1 += A @ y\n    return x1\n")
    check(step, np.ones(2), FL.copy(), np.arange(2.0))
    # A fresh array of the trace with a view of it: the view sees the update.
    fresh = make("def fresh(a, b):\n    t = a + 1\n    u = t.reshape(4)\n    t += b\n    return t, u\n")
    check(fresh, FL.copy(), FL.copy())


def test_inplace_operator_on_numpy_scalars_rebinds_and_stays_compiled(compile_counter):
    """A NumPy scalar (``x.sum()``, ``x[i]``) is immutable: ``s += ...`` is exact as a rebinding."""
    dot = make(
        "def dot(x, y):\n    s = 0.0\n    for i in range(3):\n        s += x[i] * y[i]\n    s /= 2\n    return s\n"
    )
    x, y = np.arange(3.0), np.arange(1.0, 4.0)
    compiled = compiler.compile(dot, backend=compile_counter)
    for _ in range(3):
        assert _same(compiled(x, y), dot(x, y))
    total = make("def total(x):\n    s = x.sum()\n    s //= 2\n    return s\n")
    check(total, np.arange(5))
    assert compile_counter.graphs == 1


def test_inplace_operator_on_list_and_dict_arguments():
    extend = make('def extend(lst, x):\n    lst += ["x"]\n    lst += (x,)\n    return len(lst)\n')
    check(extend, ["a"], 2.0)
    check(extend, ["a"], np.ones(2))
    repeat = make("def repeat(lst):\n    alias = lst\n    alias *= 2\n    return lst\n")
    check(repeat, [1, np.ones(2)])
    merge = make('def merge(d, x):\n    d |= {"y": x * 2}\n    return d["y"]\n')
    check(merge, {"x": 1}, np.ones(2))
    local = make("def local(x):\n    a = [x]\n    b = a\n    b += [x + 1]\n    return a\n")
    check(local, np.ones(2))
    tup = make("def tup(t, x):\n    u = t\n    u += (x,)\n    return t, u\n")
    check(tup, (1,), np.ones(2))
    bad = make("def bad(t):\n    t += [1]\n    return t\n")  # tuple += list: Python's TypeError
    check(bad, (1,))


WRITES = {
    "add_out": "def f(a, b):\n    np.add(a, b, out=a)\n",
    "add_out_positional": "def f(a, b):\n    np.add(a, b, a)\n    return a.sum()\n",
    "sum_out": "def f(a, b):\n    b.sum(axis=0, out=a[0])\n",
    "ellipsis": "def f(a, b):\n    a[...] = b * 2\n",
    "item": "def f(a, b):\n    a[1] = b[0]\n",
    "slice": "def f(a, b):\n    a[1:] = b[:1]\n    return a\n",
    "copyto": "def f(a, b):\n    np.copyto(a, b)\n",
    "fill": "def f(a, b):\n    a.fill(7.0)\n    return b\n",
}


@pytest.mark.parametrize("name", list(WRITES))
def test_writes_into_array_arguments_reach_the_caller(name):
    check(make(WRITES[name]), FL.copy(), FL.copy() + 10)


# ----------------------------------------------------------------------------- 2. casting errors


def test_inplace_true_divide_on_int_array_raises_numpys_casting_error():
    div = make("def div(a):\n    a /= 2\n    return a\n")
    a = np.arange(4)
    with pytest.raises(np._core._exceptions._UFuncOutputCastingError):
        div(a.copy())
    with pytest.raises(np._core._exceptions._UFuncOutputCastingError):
        compiler.compile(div)(a)
    np.testing.assert_array_equal(a, np.arange(4))
    check(div, np.arange(4))


# ----------------------------------------------------------------------------- 3. dict/list arguments


def test_mutated_dict_argument_is_written_back_after_reads():
    def store(d, x):
        d["x"] = x * 2
        return d["x"] + 1

    for d in ({}, {"y": np.zeros(2)}, {"x": np.zeros(2)}, {"y": 1, "x": 3}):
        check(store, d, np.ones(2), calls=3)
    check(store, {}, 3.0, calls=3)

    def swap(d):
        old = d["x"]
        d["x"] = d["y"]
        d["y"] = 5
        return old

    check(swap, {"x": np.ones(2), "y": np.zeros(2)}, calls=3)

    def read_then_write(lst, d):
        first = lst[0]
        lst[0] = 9
        d["k"] = lst[1]
        lst.append(first)
        return first

    check(read_then_write, [np.ones(2), np.zeros(2)], {"k": 1}, calls=3)


# ----------------------------------------------------------------------------- 4. ndarray subclasses


class Tagged(np.ndarray):
    pass


@pytest.mark.filterwarnings("ignore:the matrix subclass")
def test_ndarray_subclass_arguments_keep_their_type_and_semantics(compile_counter):
    def f(x):
        return x * 2 + x.sum()

    def mm(x):
        return x * x  # np.matrix: a matrix product

    compiled = compiler.compile(f, backend=compile_counter)
    inputs = [
        np.matrix([[1.0, 2.0], [3.0, 4.0]]),
        np.ma.masked_array([1.0, 2.0, 30.0], mask=[0, 0, 1]),
        np.arange(3.0).view(Tagged),
    ]
    for x in inputs:
        want = f(x.copy())
        got = compiled(x)
        assert _same(got, want), (got, want)
    check(mm, np.matrix([[1.0, 2.0], [3.0, 4.0]]))
    assert compile_counter.graphs == 0
    assert "subclass" in break_reasons(f, inputs[1])
    assert _same(compiled(np.arange(3.0)), f(np.arange(3.0)))  # a plain array still compiles
    assert compile_counter.graphs == 1


# ----------------------------------------------------------------------------- 5. sum of nothing


@pytest.mark.parametrize("backend", ["cpu", "eager"])
def test_sum_of_empty_float_array_is_positive_zero(backend):
    programs = [
        (lambda x: x.sum(), np.zeros(0)),
        (lambda x: x.sum(axis=0), np.zeros((0, 3), np.float32)),
        (lambda x: x.sum(axis=1, keepdims=True), np.zeros((2, 0))),
        (lambda x: x.sum(), np.array([-0.0])),
        (lambda x: x.sum(axis=0), np.full((3, 2), -0.0, np.float32)),
        (lambda x: x.prod(), np.zeros(0)),
        (lambda x: x.prod(axis=0), np.array([[-0.0, 2.0]])),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        programs.append((lambda x: x.mean(axis=0), np.zeros((0, 2))))
        for fn, x in programs:
            want = fn(x.copy())
            got = compiler.compile(fn, backend=backend)(x)
            assert _same(got, want), (got, want)
            real = ~np.isnan(want)
            assert np.array_equal(np.copysign(1, got)[real], np.copysign(1, want)[real])


@pytest.mark.parametrize("backend", ["cpu", "eager"])
@pytest.mark.parametrize(
    "shape,x,axes",
    [
        ((0,), np.zeros(0, np.float32), (0,)),
        ((None,), np.zeros(0, np.float32), (0,)),
        ((None, 3), np.zeros((0, 3)), (0,)),
        ((None, None), np.zeros((3, 0)), (0, 1)),
        ((None,), np.array([-0.0]), (0,)),
        ((None, None), np.full((2, 2), -0.0, np.float32), (0, 1)),
    ],
)
@pytest.mark.parametrize("op", ["sum", "prod"])
def test_sum_of_empty_float_array_is_positive_zero_in_the_dialect(backend, shape, x, axes, op):
    """Static and dynamic (``?``) reduced sizes, lowered and interpreted."""
    for keepdims in (False, True):
        b = FunctionBuilder("f", [TensorType(shape, "f32" if x.dtype == np.float32 else "f64")])
        module = b.finish([b.op(op, b.args[0], axes=axes, keepdims=keepdims)])
        (got,) = compile_graph(module, backend)(x)
        want = getattr(np, op)(x, axis=axes, keepdims=keepdims)
        assert np.array_equal(got, want) and np.array_equal(np.copysign(1, got), np.copysign(1, want))


# ----------------------------------------------------------------------------- 6. parameter names


NAMES = ["np", "G", "MISS", "GRAPH", "CELLS", "OUT", "OBJ0", "numpy", "CONST0", "MODULES", "FN", "DEFAULT_s"]
NAMES += ["type", "len", "tuple", "Exception", "entry", "_d", "R", "E0"]


@pytest.mark.parametrize("name", NAMES)
def test_parameter_names_do_not_collide_with_generated_code(name, compile_counter):
    scope = {"numpy_module": np, "SCALE": 0.5}
    plain = make(f"def g(x, {name}):\n    return numpy_module.sin(x) * {name} + SCALE\n", **scope)
    with_default = make(f"def h(x, s=3.0, *, {name}=2.0):\n    return x * {name} + s\n", **scope)
    effects = make(f"def k(x, {name}):\n    {name}['y'] = x * 2\n    return {name}['k'] + 1\n", **scope)
    for fn, args in (
        (plain, (np.arange(3.0), 2.0)),
        (with_default, (np.arange(3.0),)),
        (effects, (np.ones(2), {"k": 1})),
    ):
        counter_before = compile_counter.graphs
        compiled = compiler.compile(fn, backend=compile_counter)
        for _ in range(3):
            want_args, got_args = copy.deepcopy(args), copy.deepcopy(args)
            assert _same(compiled(*got_args), fn(*want_args))
            assert all(_same(g, w) for g, w in zip(got_args, want_args))
        assert compile_counter.graphs == counter_before + 1
        assert len(compiled.entries) == 1
        other = (np.arange(4.0),) + copy.deepcopy(args[1:])  # the first entry's guards fail: a new one
        assert _same(compiled(*other), fn(*copy.deepcopy(other)))
        assert len(compiled.entries) == 2


def test_parameter_spelled_like_generated_names_runs_in_cpython(compile_counter):
    fn = make("def g(x, __ember_OUT, __ember_G=1.0):\n    return x * __ember_OUT + __ember_G\n")
    compiled = compiler.compile(fn, backend=compile_counter)
    for _ in range(3):
        assert _same(compiled(np.arange(3.0), 2.0), fn(np.arange(3.0), 2.0))
    assert compile_counter.graphs == 0 and len(compiled.entries) == 1
    assert "__ember_OUT" in break_reasons(fn, np.arange(3.0), 2.0)


# ----------------------------------------------------------------------------- 7. custom backends


def test_custom_backend_returning_none_is_an_error_naming_it():
    def lazy_backend(module, example_inputs):
        return None

    compiled = compiler.compile(lambda x: x + 1, backend=lazy_backend)
    with pytest.raises(InvalidBackend, match="lazy_backend.*returned None"):
        compiled(np.ones(2))
    with pytest.raises(compiler.errors.InvalidArgument, match="backend"):
        compiler.compile(lambda x: x, backend=42)
