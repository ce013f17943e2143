"""compile(): the forms it takes, what it returns, fallbacks, limits, side effects."""

import functools
import warnings

import numpy as np
import pytest

import compiler
from compiler import GraphBreakError, compile
from compiler.errors import InvalidArgument

pytestmark = pytest.mark.usefixtures("fresh_compiler")


def add_one(x):
    """Adds one."""
    return x + 1


X = np.arange(6, dtype=np.float32)


def test_bare_decorator_decorator_with_arguments_and_plain_call():
    @compile
    def a(x):
        return x + 1

    @compile(backend="eager", fullgraph=True)
    def b(x):
        return x + 1

    c = compile(add_one, backend="cpu")
    for f in (a, b, c):
        np.testing.assert_array_equal(f(X), X + 1)


def test_the_result_keeps_name_doc_and_wrapped():
    c = compile(add_one)
    assert c.__name__ == "add_one" and c.__doc__ == "Adds one." and c.__wrapped__ is add_one


def test_lambdas_closures_methods_and_callables():
    offset = 2.0
    lam = compile(lambda x: x * 2)
    clo = compile(lambda x: x + offset)

    class Model:
        def __init__(self, w):
            self.w = w

        @compile
        def forward(self, x):
            return x * self.w

        def __call__(self, x):
            return x - self.w

    m = Model(np.float32(3))
    bound = compile(m.forward.__wrapped__.__get__(m))
    called = compile(m)
    np.testing.assert_array_equal(lam(X), X * 2)
    np.testing.assert_array_equal(clo(X), X + 2)
    np.testing.assert_array_equal(m.forward(X), X * 3)
    np.testing.assert_array_equal(bound(X), X * 3)
    np.testing.assert_array_equal(called(X), X - 3)
    m.w = np.float32(5)  # an attribute read through self is guarded
    np.testing.assert_array_equal(m.forward(X), X * 5)


def test_functools_partial_and_nested_functions_are_inlined():
    def scale(x, k):
        return x * k

    @compile(fullgraph=True)
    def f(x):
        double = functools.partial(scale, k=2)

        def inc(y, by=1):
            return y + by

        return inc(double(x), by=3)

    np.testing.assert_array_equal(f(X), X * 2 + 3)


def test_a_print_is_a_graph_break_that_prints_once_per_call(capsys):
    @compile
    def chatty(x):
        print("hello from", "chatty")
        return x + 1

    np.testing.assert_array_equal(chatty(X), X + 1)
    np.testing.assert_array_equal(chatty(X), X + 1)
    assert capsys.readouterr().out == "hello from chatty\nhello from chatty\n"
    entry = chatty.entries[0]
    assert entry.graph_module is None and entry.fallback_reason is None  # nothing before the print
    assert "`print`" in entry.graph_break.reason
    (resume,) = entry.resumes
    assert resume.entries[0].graph_module is not None  # x + 1, compiled after the print


def test_fullgraph_raises_graph_break_error_naming_reason_and_line():
    @compile(fullgraph=True)
    def chatty(x):
        y = x + 1
        print(y)
        return y

    with pytest.raises(GraphBreakError) as err:
        chatty(X)
    assert "`print`" in str(err.value) or "print()" in str(err.value)
    assert "CPython" not in str(err.value)  # fullgraph runs nothing there
    assert err.value.location.line == chatty.__wrapped__.__code__.co_firstlineno + 3  # decorator line first
    assert err.value.location.filename.endswith("test_frontend_api.py")


def test_data_dependent_branch_is_a_fallback():
    @compile
    def relu_sum(x):
        if x.sum() > 0:
            return x
        return -x

    np.testing.assert_array_equal(relu_sum(X), X)
    np.testing.assert_array_equal(relu_sum(-X - 1), X + 1)


def test_user_exceptions_propagate_unchanged():
    class Boom(Exception):
        pass

    @compile
    def bad(x, flag):
        if flag:
            raise Boom("no")
        return x

    with pytest.raises(Boom, match="no"):
        bad(X, True)
    with pytest.raises(ZeroDivisionError):
        compile(lambda x: x / (1 // 0))(X)


def test_recompile_limit_warns_once_then_runs_plain_python():
    calls = []

    def f(x, n):
        calls.append(n)
        return x * n

    g = compile(f, options={"recompile_limit": 2})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(5):
            np.testing.assert_array_equal(g(X, n), X * n)
    limit_warnings = [w for w in caught if "recompile_limit=2" in str(w.message)]
    assert len(limit_warnings) == 1 and len(g.entries) == 2


def test_global_recompile_limit_from_config(monkeypatch):
    monkeypatch.setattr(compiler.config, "recompile_limit", 1)
    g = compile(lambda x, n: x + n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in range(3):
            np.testing.assert_array_equal(g(X, n), X + n)
    assert len(g.entries) == 1


def test_reset_drops_every_entry():
    g = compile(lambda x: x + 1)
    g(X)
    assert len(g.entries) == 1
    compiler.reset()
    assert g.entries == []
    np.testing.assert_array_equal(g(X), X + 1)


def test_side_effects_are_replayed_once_in_order():
    log = []
    state = {"calls": 0}

    class Box:
        value = None

    box = Box()

    @compile
    def f(x, log, state, box):
        y = x * 2
        log.append(y)
        log.append("done")
        state["calls"] = state["calls"] + 1
        box.value = y + 1
        return y

    out = f(X, log, state, box)
    out2 = f(X, log, state, box)
    np.testing.assert_array_equal(out, X * 2)
    assert [type(e) for e in log] == [np.ndarray, str, np.ndarray, str] and log[1] == "done"
    np.testing.assert_array_equal(log[0], X * 2)
    assert state == {"calls": 2}
    np.testing.assert_array_equal(box.value, X * 2 + 1)
    assert out2 is not out


def test_returning_an_input_returns_the_same_object():
    f = compile(lambda x, y: (x, y + 1))
    a, b = f(X, X)
    assert a is X
    np.testing.assert_array_equal(b, X + 1)


def test_bad_compile_arguments_are_clear_errors():
    with pytest.raises(InvalidArgument, match="unknown option"):
        compile(add_one, options={"speed": 11})
    with pytest.raises(InvalidArgument, match="unknown backend 'tpu'"):
        compile(add_one, backend="tpu")
    with pytest.raises(InvalidArgument, match="cannot compile"):
        compile(42)


def test_an_internal_error_warns_and_still_returns_the_right_answer(monkeypatch):
    from compiler.frontend import symbolic_convert

    def broken(self, inst):
        raise AttributeError("simulated bug in the tracer")

    monkeypatch.setattr(symbolic_convert.InstructionTranslator, "BINARY_OP", broken)
    f = compile(lambda x: x * 2 + 1)
    with pytest.warns(RuntimeWarning, match="internal error while compiling .*simulated bug") as caught:
        np.testing.assert_array_equal(f(X), X * 2 + 1)
    assert caught[0].filename == __file__  # the warning points at the call, not into Ember
    strict = compile(lambda x: x * 2 + 1, options={"strict": True})
    with pytest.raises(AttributeError, match="simulated bug"):
        strict(X)


def test_with_blocks_over_inert_context_managers_are_traced():
    import contextlib

    @compile(fullgraph=True)
    def safe_ratio(x, y):
        with np.errstate(divide="ignore", invalid="ignore"):
            r = x / y
        with contextlib.nullcontext(r) as same:
            out = same + 1
        return out

    x, y = np.array([1.0, 0.0, -1.0]), np.array([0.0, 0.0, 2.0])
    with np.errstate(all="ignore"):
        want = x / y + 1
    np.testing.assert_array_equal(safe_ratio(x, y), want)


def test_other_with_blocks_fall_back():
    import threading

    lock = threading.Lock()

    @compile
    def locked(x):
        with lock:
            return x + 1

    np.testing.assert_array_equal(locked(X), X + 1)
    assert "with block" in locked.entries[0].fallback_reason.reason


def test_bytecode_of_another_python_version_is_not_traced(monkeypatch):
    from compiler.frontend import bytecode_versions, eval_frame

    monkeypatch.setattr(bytecode_versions, "SUPPORTED_VERSIONS", ((3, 99),))
    monkeypatch.setattr(eval_frame, "_version_warned", False)
    with pytest.warns(RuntimeWarning, match=r"not supported \(Ember traces the bytecode of CPython 3\.99\)") as caught:
        f = compile(lambda x: x + 1)
        g = compile(lambda x: x - 1)  # one warning, not one per function or per call
    assert len(caught) == 1 and caught[0].filename == __file__  # it points at the decoration
    np.testing.assert_array_equal(f(X), X + 1)
    np.testing.assert_array_equal(g(X), X - 1)
    assert "bytecode" in f.entries[0].fallback_reason.reason
    assert "3.99" in f.entries[0].fallback_reason.reason


def test_the_supported_versions_compile_without_a_warning():
    import warnings

    from compiler.frontend import bytecode_versions

    assert bytecode_versions.rules_for() is not None  # 3.11, 3.12 and 3.13 are traced
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = compile(lambda x: x * 2)
    np.testing.assert_array_equal(f(X), X * 2)
    assert f.entries[0].fallback_reason is None


@pytest.mark.parametrize("view", ["reversed", "strided", "broadcast", "transposed", "size0", "zero_d"])
def test_odd_array_views_through_compile(view):
    base = np.arange(24, dtype=np.float64).reshape(4, 6) - 7.5
    base[1, 2] = np.nan
    base[2, 3] = np.inf
    x = {
        "reversed": base[::-1, ::-1],
        "strided": base[:, ::2],
        "broadcast": np.broadcast_to(base[0], (4, 6)),
        "transposed": base.T,
        "size0": base[:0],
        "zero_d": np.array(3.5),
    }[view]

    def f(a):
        return np.tanh(a) * 2 + a.sum(axis=-1, keepdims=True) if a.ndim else np.tanh(a) * 2 + a

    c = compile(f)
    with np.errstate(all="ignore"):
        want = f(x)
        for _ in range(2):  # the miss, then the cache hit
            got = c(x)
            assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_slice_assignment_into_a_list_is_traced_without_an_internal_error():
    def f(x):
        items = [x, x, x, x]
        items[1:3] = [x * 2, x * 3]
        items[3:] = x[:1]
        return items[1] + items[2] + items[3]

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an internal error would warn
        compiled = compile(f)
        np.testing.assert_array_equal(compiled(np.ones(2)), f(np.ones(2)))
    assert compiled.entries[0].graph_module is not None


def test_ranges_read_as_python_reads_them():
    """``range()`` makes its items when read (variables.RangeItems): every way a
    function reads one gives Python's values, in one graph."""

    def f(x):
        r = range(1, 7, 2)
        total = x * len(r)
        for i in r:
            total = total + i
        for i in reversed(r):  # the same range again, backwards
            total = total * 2 + i
        a, b, c = range(3)
        return total + sum(list(r)) + (5 in r) + (4 in r) + a + b + c

    x = np.arange(4.0)
    np.testing.assert_array_equal(compile(f, fullgraph=True)(x), f(x))
