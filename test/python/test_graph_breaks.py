"""Graph breaks: the code before an untraceable instruction runs as one compiled graph,
CPython runs the instruction, and a resume function continues into the next graph
(``frontend/graph_break.py``, ``frontend/resume.py``).

Every case compares with the plain function — result, printed text, arguments
afterwards — and counts the compiled graphs through ``compiler.explain``.
"""

from __future__ import annotations

import logging
import sys
import traceback

import numpy as np
import pytest

import compiler
from compiler import GraphBreakError

pytestmark = pytest.mark.usefixtures("fresh_compiler")

COUNTER = []


def _both(fn, *make_args, calls=2, capsys=None):
    """Run ``fn`` plain and compiled ``calls`` times on fresh arguments; returns the
    compiled function after checking results, arguments and printed text agree."""
    compiled = compiler.compile(fn)
    for _ in range(calls):
        want_args, got_args = [m() for m in make_args], [m() for m in make_args]
        want = fn(*want_args)
        want_out = capsys.readouterr().out if capsys else ""
        got = compiled(*got_args)
        got_out = capsys.readouterr().out if capsys else ""
        assert type(got) is type(want)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        for g, w in zip(got_args, want_args):
            np.testing.assert_array_equal(g, w)
        assert got_out == want_out
    return compiled


def seeds_example(a):
    b = a + 2
    print("Hi")
    return b + a


def test_the_deep_dives_example_prints_once_and_compiles_two_graphs(capsys):
    a = np.arange(5.0)
    compiled = _both(seeds_example, lambda: a.copy(), capsys=capsys)
    assert compiled(a) is not None and capsys.readouterr().out == "Hi\n"
    out = compiler.explain(seeds_example)(a)
    assert capsys.readouterr().out == "Hi\n"
    assert (out.graph_count, out.graph_break_count) == (2, 1)
    (reason,) = out.break_reasons
    assert reason.reason == "`print` is a side effect Ember runs in Python"
    assert reason.location.endswith(f"test_graph_breaks.py:{seeds_example.__code__.co_firstlineno + 2}")
    np.testing.assert_array_equal(out.result, 2 * a + 2)


def branchy(x):
    y = x * 2
    # a Python side effect in a branch: not traced both ways (test_data_branches.py)
    seen = []
    if y.sum() > 0:
        z = y + 1
        seen.append(1)
    else:
        z = y - 1
    return z * (3 + len(seen))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_branch_on_array_data_compiles_each_side(sign):
    x = sign * np.arange(1.0, 5.0)
    compiled = _both(branchy, lambda: x.copy())
    out = compiler.explain(branchy)(x)
    assert (out.graph_count, out.graph_break_count) == (2, 1)
    assert out.break_reasons[0].reason.startswith("branch on array data at ")
    assert "(`if y.sum() > 0:`)" in out.break_reasons[0].reason
    (entry,) = compiled.entries
    taken = [r for r in entry.resumes if r.entries]
    assert len(taken) == 1 and taken[0].entries[0].graph_module is not None


def test_both_branches_compiled_after_calls_both_ways():
    compiled = compiler.compile(branchy)
    for x in (np.arange(1.0, 4.0), -np.arange(1.0, 4.0)):
        np.testing.assert_array_equal(compiled(x), branchy(x))
    (entry,) = compiled.entries
    assert all(r.entries and r.entries[0].graph_module is not None for r in entry.resumes)


def two_breaks(a):
    b = np.sin(a)
    print("one")
    c = b * 2
    print("two")
    return c + b


def test_two_breaks_make_three_graphs(capsys):
    a = np.linspace(0, 1, 7)
    _both(two_breaks, lambda: a.copy(), capsys=capsys)
    out = compiler.explain(two_breaks)(a)
    assert (out.graph_count, out.graph_break_count) == (3, 2)
    assert capsys.readouterr().out == "one\ntwo\n"


def _helper(x):
    print("inside")
    return x * 2


def calls_a_breaking_helper(a):
    b = a + 1
    c = _helper(b)
    return c - a


def test_a_break_inside_a_helper_breaks_at_its_call(capsys):
    _both(calls_a_breaking_helper, lambda: np.arange(3.0), capsys=capsys)
    out = compiler.explain(calls_a_breaking_helper)(np.arange(3.0))
    assert (out.graph_count, out.graph_break_count) == (2, 1)
    assert out.break_reasons[0].reason.startswith("`_helper` runs in Python: inside it,")


def writes_then_breaks(a, log):
    a += 1
    log.append(a.sum())
    COUNTER.append(1)
    print("total", a.sum())
    a *= 2
    return a - 1


def test_side_effects_before_a_break_happen_once_and_are_seen_after_it(capsys):
    COUNTER.clear()
    compiled = compiler.compile(writes_then_breaks)
    a, want_a, log, want_log = np.arange(4.0), np.arange(4.0), [], []
    want = writes_then_breaks(want_a, want_log)
    want_printed = capsys.readouterr().out
    got = compiled(a, log)
    assert capsys.readouterr().out == want_printed == "total 10.0\n"
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a, want_a)
    assert log == want_log and len(COUNTER) == 2  # once by the plain call, once compiled


def raises_after_a_break(a):
    b = a + 1
    print("before")
    return b[10]  # IndexError, on this line


def test_an_exception_after_a_break_has_the_users_line_in_its_traceback(capsys):
    compiled = compiler.compile(raises_after_a_break)
    with pytest.raises(IndexError) as err:
        compiled(np.arange(3.0))
    frames = traceback.extract_tb(err.value.__traceback__)
    assert frames[-1].lineno == raises_after_a_break.__code__.co_firstlineno + 3
    assert frames[-1].filename == __file__ and frames[-1].line == "return b[10]  # IndexError, on this line"


def breaks_in_a_loop(a):
    b = a * 2
    for i in range(3):
        b = b + i
        print(i)
    return b - a


def test_a_break_inside_a_loop_compiles_the_work_before_it_and_runs_the_loop_in_python(capsys):
    _both(breaks_in_a_loop, lambda: np.arange(3.0), capsys=capsys)
    out = compiler.explain(breaks_in_a_loop)(np.arange(3.0))
    assert capsys.readouterr().out == "0\n1\n2\n"
    assert out.graph_count == 1  # a * 2
    line = breaks_in_a_loop.__code__.co_firstlineno + 2
    assert out.break_reasons[0].reason.startswith(f"the loop starting at line {line} runs in Python")
    assert out.break_reasons[0].location.endswith(f":{line}")


def while_on_data(x):
    y = x + 1
    while y.sum() < 20:
        y = y * 2
    return y - 1


def test_a_while_loop_on_array_data(capsys):
    _both(while_on_data, lambda: np.arange(3.0))
    _both(while_on_data, lambda: np.arange(30.0))  # the loop never runs


def make_closure(k):
    def inner(a):
        b = a * k
        print("k", k)
        return b + k

    return inner


def generator(a):
    yield a + 1
    print("gen")
    yield a + 2


def test_closures_and_generators_stay_correct(capsys):
    _both(make_closure(3.0), lambda: np.arange(3.0), capsys=capsys)
    compiled = compiler.compile(generator)
    assert [list(x) for x in compiled(np.arange(2.0))] == [list(x) for x in generator(np.arange(2.0))]


def test_fullgraph_raises_before_running_anything(capsys):
    compiled = compiler.compile(seeds_example, fullgraph=True)
    with pytest.raises(GraphBreakError) as err:
        compiled(np.arange(3.0))
    assert capsys.readouterr().out == ""
    assert err.value.location.line == seeds_example.__code__.co_firstlineno + 2
    assert "CPython" not in str(err.value)


def unsupported_numpy(a):
    b = np.sin(a)
    s = np.gradient(b)
    return b / s


def test_an_unsupported_numpy_function_is_a_break_in_the_users_words():
    _both(unsupported_numpy, lambda: np.arange(1.0, 6.0))
    out = compiler.explain(unsupported_numpy)(np.arange(1.0, 6.0))
    assert out.break_reasons[0].reason == "`np.gradient` is not supported yet"
    assert out.graph_count == 2


def data_to_python(a):
    m = a.max()
    n = int(m)
    return a[:n] * 2


def test_a_value_converted_to_python_is_a_break():
    _both(data_to_python, lambda: np.arange(5.0))


def test_the_bytecode_log_shows_the_rewritten_resume_function(caplog):
    compiler.set_logs("bytecode")
    logging.getLogger("compiler.bytecode").propagate = True
    try:
        with caplog.at_level("INFO"):
            compiler.compile(seeds_example)(np.arange(2.0))
    finally:
        compiler.set_logs("")
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "RESUME FUNCTION seeds_example" in text and "JUMP_FORWARD" in text


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the 3.11 encoding")
def test_the_resume_prologue_shifts_the_exception_table():
    from compiler.frontend.resume import shift_exception_table

    def f(x):
        try:
            return x + 1
        except TypeError:
            return None

    table = f.__code__.co_exceptiontable
    moved = shift_exception_table(table, 5)
    import dis

    old = dis._parse_exception_table(f.__code__)
    new = dis._parse_exception_table(f.__code__.replace(co_exceptiontable=moved))
    assert [(e.start + 10, e.end + 10, e.target + 10, e.depth, e.lasti) for e in old] == [
        (e.start, e.end, e.target, e.depth, e.lasti) for e in new
    ]


class _Thing:
    pass


def _unsupported_programs():
    def item_assignment_on_object(a, t):
        t[0] = a  # an object without __setitem__ support in the tracer
        return a

    def iterate_an_object(a, t):
        for x in t:
            a = a + x
        return a

    def call_a_method_of_an_object(a, t):
        return t.missing(a)

    def branch(a, t):
        if a:
            return a
        return a + 1

    return [item_assignment_on_object, iterate_an_object, call_a_method_of_an_object, branch]


@pytest.mark.parametrize("fn", _unsupported_programs(), ids=lambda f: f.__name__)
def test_break_reasons_are_in_the_users_words(fn):
    from compiler.frontend.convert_frame import convert  # traces without running: the calls would raise
    from compiler.frontend.eval_frame import Options

    entry = convert(fn, (np.ones(1), _Thing()), {}, Options())
    reasons = [r for r in (entry.fallback_reason, entry.graph_break) if r is not None]
    assert reasons
    for reason in reasons:
        text = reason.describe()
        assert "Variable" not in text and " at 0x" not in text, text


def advanced_read(a, idx):
    b = a * 2
    c = b[np.flatnonzero(b > idx[1])]  # a size only the data knows
    return c + 1


def advanced_write(a, idx):
    b = a + 1
    b[np.nonzero(b > idx[1])] = 0.0
    a[idx] += 1.0
    return b * 3


@pytest.mark.parametrize("fn", [advanced_read, advanced_write])
def test_an_unsupported_statement_runs_in_python_between_two_graphs(fn):
    idx = np.array([0, 2, 5])
    _both(fn, lambda: np.arange(6.0), lambda: idx)
    out = compiler.explain(fn)(np.arange(6.0), idx)
    assert out.graph_count >= 2
    assert "the result's size depends on the data" in out.break_reasons[0].reason


def shared_list(a):
    items = [a]
    same = items
    print("break")
    same.append(a + 1)
    return items


def test_a_list_held_twice_across_a_break_stays_one_list(capsys):
    a = np.arange(3.0)
    got = compiler.compile(shared_list)(a)
    want = shared_list(a)
    assert len(got) == len(want) == 2


class _Box:
    value = 0


BOX = _Box()
GLOBAL_TOTAL = 0


def writes_attributes_and_globals(a):
    global GLOBAL_TOTAL
    BOX.value = 7
    GLOBAL_TOTAL = 3
    print("mid")
    return a * BOX.value + GLOBAL_TOTAL


def test_attribute_and_global_writes_before_a_break_are_seen_after_it(capsys):
    global GLOBAL_TOTAL
    BOX.value, GLOBAL_TOTAL = 0, 0
    got = compiler.compile(writes_attributes_and_globals)(np.arange(3.0))
    np.testing.assert_array_equal(got, np.arange(3.0) * 7 + 3)
    assert (BOX.value, GLOBAL_TOTAL) == (7, 3) and capsys.readouterr().out == "mid\n"


def test_resume_code_keeps_the_users_positions():
    from compiler.frontend.resume import prologue, resume_code

    code = seeds_example.__code__
    offset = next(i.offset for i in __import__("dis").get_instructions(code) if i.opname == "POP_TOP")
    resumed = resume_code(code, offset, [], [True], "resumed")
    front = len(prologue(code, offset, [], [True])) // 2
    original = list(code.co_positions())
    moved = list(resumed.co_positions())
    assert moved[front:] == original
    assert all(p == (None, None, None, None) for p in moved[:front])
