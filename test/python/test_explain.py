"""compiler.explain accepts what compile() returns as well as the plain function."""

import numpy as np
import pytest

import compiler
from compiler.errors import GraphBreakError

pytestmark = pytest.mark.usefixtures("fresh_compiler")


def f(x, y):
    return np.tanh(x) * y + 1


def broken(x):
    y = x + 1
    print("side effect")
    return y


def test_a_compiled_function_explains_like_the_plain_one():
    x, y = np.ones(4, np.float32), np.full(4, 2.0, np.float32)
    plain = compiler.explain(f)(x, y)
    compiled_fn = compiler.compile(f)
    compiled = compiler.explain(compiled_fn)(x, y)
    assert (compiled.graph_count, compiled.graph_break_count) == (plain.graph_count, plain.graph_break_count) == (1, 0)
    assert compiled.guards == plain.guards and compiled.ops_per_graph == plain.ops_per_graph
    np.testing.assert_allclose(compiled.result, np.tanh(x) * y + 1, rtol=1e-6)
    np.testing.assert_array_equal(compiled.result, plain.result)
    assert compiled_fn.entries == []  # its own cache is left alone
    assert "Graph count: 1" in str(compiled)


def test_a_break_is_explained_through_a_compiled_function_even_with_fullgraph():
    compiled_fn = compiler.compile(broken, fullgraph=True)
    with pytest.raises(GraphBreakError):
        compiled_fn(np.ones(2))
    plain = compiler.explain(broken)(np.ones(2))
    out = compiler.explain(compiled_fn)(np.ones(2))  # reported, not raised
    assert (out.graph_count, out.graph_break_count) == (plain.graph_count, plain.graph_break_count) == (1, 1)
    assert out.break_reasons == plain.break_reasons and "`print`" in out.break_reasons[0].reason
    np.testing.assert_array_equal(out.result, np.ones(2) + 1)


def test_the_compiled_functions_backend_is_used(compile_counter):
    compiled_fn = compiler.compile(f, backend=compile_counter)
    out = compiler.explain(compiled_fn)(np.ones(3), np.ones(3))
    assert compile_counter.graphs == 1 and out.graph_count == 1
    np.testing.assert_allclose(out.result, np.tanh(1.0) + 1)
    compiler.explain(compiled_fn, backend="eager")(np.ones(3), np.ones(3))  # backend= overrides it
    assert compile_counter.graphs == 1


def test_a_compiled_method():
    class Scale:
        def __init__(self, k):
            self.k = k

        @compiler.compile
        def __call__(self, x):
            return x * self.k

    s = Scale(3.0)
    out = compiler.explain(s.__call__)(np.ones(2))
    assert out.graph_count == 1 and out.graph_break_count == 0
    np.testing.assert_array_equal(out.result, [3.0, 3.0])
    np.testing.assert_array_equal(s(np.ones(2)), [3.0, 3.0])


def test_a_compiled_callable_object():
    class Shift:
        def __call__(self, x):
            return x + 1

    out = compiler.explain(compiler.compile(Shift()))(np.zeros(2))
    assert (out.graph_count, out.graph_break_count) == (1, 0)
    np.testing.assert_array_equal(out.result, [1.0, 1.0])
