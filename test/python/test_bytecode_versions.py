"""The tracer on each supported CPython's bytecode (``frontend/bytecode_versions.py``).

The table is checked against the running interpreter's ``dis``; then constructs whose
bytecode differs between 3.11, 3.12 and 3.13 (inlined comprehensions, the
superinstructions of 3.13, slices, calls with keywords and ``*args``, nested functions,
conditions, f-strings, ``RETURN_CONST``) are compiled and compared with plain
NumPy/Python, and each must have compiled: a graph, no fallback, no graph break. Where a
test is about one version's opcode, it also asserts that the opcode is really there.
"""

from __future__ import annotations

import copy
import dis
import sys
import types

import numpy as np
import pytest

import compiler
from compiler.frontend import bytecode_versions
from compiler.frontend.output_graph import _LOC
from compiler.frontend.symbolic_convert import InstructionTranslator

pytestmark = pytest.mark.usefixtures("fresh_compiler")

RULES = bytecode_versions.current()
VERSION = sys.version_info[:2]


# ----------------------------------------------------------------------------- helpers


def _same(got, want) -> bool:
    if type(got) is not type(want):
        return False
    if isinstance(want, (np.ndarray, np.generic)):
        return got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
    if isinstance(want, (list, tuple)):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))
    if isinstance(want, dict):
        return list(got) == list(want) and all(_same(got[k], want[k]) for k in want)
    return got == want


def check(fn, *args, backend="eager"):
    """``fn`` compiled agrees with ``fn`` (result and arguments afterwards, on the tracing
    call and a cached one) and compiled whole; returns the entry."""
    compiled = compiler.compile(fn, backend=backend)
    for _ in range(2):
        want_args, got_args = copy.deepcopy(args), copy.deepcopy(args)
        want = fn(*want_args)
        got = compiled(*got_args)
        assert _same(got, want), (got, want)
        assert _same(got_args, want_args), (got_args, want_args)
    (entry,) = compiled.entries
    assert entry.fallback_reason is None, entry.fallback_reason
    assert getattr(entry, "graph_break", None) is None, entry.graph_break
    return entry


def opnames(fn) -> set[str]:
    return {i.opname for i in dis.get_instructions(fn)}


A = np.arange(12.0).reshape(3, 4)
B = np.linspace(-1.0, 1.0, 12).reshape(3, 4)


# ----------------------------------------------------------------------------- the table


def test_the_table_has_a_row_for_each_supported_version_and_this_one_is_supported():
    assert bytecode_versions.SUPPORTED_VERSIONS == ((3, 11), (3, 12), (3, 13))
    assert set(bytecode_versions.RULES) == set(bytecode_versions.SUPPORTED_VERSIONS)
    assert all(rules.version == version for version, rules in bytecode_versions.RULES.items())
    assert RULES.version == VERSION and bytecode_versions.unsupported_reason() is None
    assert "3.14" in bytecode_versions.unsupported_reason((3, 14, 0))
    assert bytecode_versions.describe_supported() == "3.11, 3.12 and 3.13"


def test_the_tables_opcodes_are_this_pythons():
    """Opcodes the table says were added up to this version exist; those it says were
    removed are gone (or only pseudo-instructions, which ``dis`` never shows); those of
    later versions do not exist yet."""
    real = {name for name, code in dis.opmap.items() if code < 256}
    for version, rules in bytecode_versions.RULES.items():
        if version <= VERSION:
            assert rules.added <= real, (version, rules.added - real)
            removed_later = set().union(
                *(r.added for v, r in bytecode_versions.RULES.items() if version < v <= VERSION)
            )
            assert not (rules.removed - removed_later) & real, (version, rules.removed & real)
        else:
            assert not rules.added & real, (version, rules.added & real)


def test_every_opcode_of_the_table_has_a_handler():
    for rules in bytecode_versions.RULES.values():
        for name in rules.added:
            assert callable(getattr(InstructionTranslator, name, None)), name


def test_instructions_give_the_line_an_instruction_starts_in_every_version():
    def f(x):
        y = x + 1
        return y * 2

    first = f.__code__.co_firstlineno
    lines = [i.starts_line for i in bytecode_versions.instructions(f.__code__)]
    assert all(line is None or isinstance(line, int) and not isinstance(line, bool) for line in lines)
    assert {line for line in lines if line is not None} >= {first + 1, first + 2}
    if RULES.line_number_field:  # 3.13: dis itself gives a bool
        assert all(isinstance(i.starts_line, bool) for i in dis.get_instructions(f))


def test_a_graph_op_remembers_its_line_on_every_version():
    def f(x):
        y = x - 1.0
        return np.tanh(y)

    with pytest.raises(compiler.GraphBreakError) as err:
        compiler.compile(lambda x: print(x), fullgraph=True)(A)
    assert err.value.location.line == sys._getframe().f_lineno - 1
    entry = check(f, A)
    body = entry.graph_module.body.operations[0].regions[0].blocks[0].operations
    lines = {int(m["line"]) for op in body if (m := _LOC.search(str(op.location)))}
    first = f.__code__.co_firstlineno
    assert {first + 1, first + 2} <= lines, lines


# ----------------------------------------------------------------------------- comprehensions (PEP 709)


def test_comprehensions_are_inlined_from_3_12_and_compile_on_every_version():
    def f(a, b):
        rows = [r * 2.0 for r in a]
        pairs = {i: x + y for i, (x, y) in enumerate(zip(a, b)) if i != 1}
        nested = [[r[j] + s for j in range(2)] for r, s in zip(a, b)]
        return rows[0] + rows[-1], pairs[2] - pairs[0], nested[1][0] * nested[2][1]

    nested_code = [c for c in f.__code__.co_consts if isinstance(c, types.CodeType)]
    assert (not nested_code) == RULES.comprehensions_inlined  # no <listcomp> code objects from 3.12 on
    if RULES.comprehensions_inlined:
        assert {"LOAD_FAST_AND_CLEAR", "END_FOR"} <= opnames(f)
    check(f, A, B)


def test_an_inlined_comprehension_restores_the_variable_it_shadows():
    def f(a, b):
        x = a * 3.0
        ys = [x + 1.0 for x in b]  # x is the comprehension's own: f's x is put back after it
        return x - ys[0], x

    check(f, A, B)


def test_an_inlined_comprehension_leaves_its_variable_unbound():
    def f(a):
        total = sum([r.sum() for r in a])
        try:
            r  # noqa: B018 - the comprehension's variable is not f's
        except NameError:
            return total * 2.0
        return total

    assert f(A) == A.sum() * 2.0
    compiled = compiler.compile(f, backend="eager")
    assert compiled(A) == f(A)


def test_closures_made_in_a_comprehension_share_its_cell():
    def f(a, n):
        k = 10.0  # a cell of f's: the comprehension saves it, makes its own, and puts it back
        scale = [lambda: a * k for k in range(n)]  # every lambda sees the last k, as in CPython
        outer = lambda: a + k  # noqa: E731 - f's k again
        return scale[0]() + scale[-1](), outer()

    if RULES.comprehensions_inlined:
        assert "LOAD_FAST_AND_CLEAR" in opnames(f)
    check(f, A, 3)


# ----------------------------------------------------------------------------- locals (3.13 superinstructions)


def test_swaps_and_pairs_of_locals():
    def f(a, b):
        a, b = b, a  # 3.13: LOAD_FAST_LOAD_FAST, STORE_FAST_STORE_FAST
        c = a - b
        for i in range(2):  # 3.13: STORE_FAST_LOAD_FAST
            c = c + i
        return c, a

    if VERSION >= (3, 13):
        assert {"LOAD_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"} <= opnames(f)
    check(f, A, B)


def test_a_closure_over_a_local_reads_its_cell():
    def f(a, b):
        offset = b * 2.0  # a cell variable: 3.13 builds the closure with LOAD_FAST of its cell

        def add(x, y=1.0, *, z=2.0):
            return x + y * z + offset

        return add(a), add(a, 3.0, z=-1.0)

    check(f, A, B)


# ----------------------------------------------------------------------------- slices


def test_two_part_slices_read_and_write():
    def f(a, b):
        head = a[1:3]  # 3.12+: BINARY_SLICE
        a[0:2] = b[1:]  # 3.12+: STORE_SLICE
        a[1:-1] *= 2.0  # 3.12+: COPY 3, BINARY_SLICE, ..., STORE_SLICE
        return head + 1.0

    if VERSION >= (3, 12):
        assert {"BINARY_SLICE", "STORE_SLICE"} <= opnames(f)
    check(f, A.copy(), B.copy())
    check(f, A.copy(), B.copy(), backend="cpu")


def test_slices_of_lists():
    def f(a, items):
        head = items[0:2]  # BINARY_SLICE on a list from 3.12
        return a * head[1] + items[-1], items[1:]

    check(f, A, [1.0, 2.0, 3.0, 4.0])


# ----------------------------------------------------------------------------- calls


class Model:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x, *, bias=0.0):
        return x * self.scale + bias

    def __eq__(self, other):
        return type(other) is Model and other.scale == self.scale


def helper(x, y=1.0):
    return x - y


def test_calls_with_keywords_methods_and_globals():
    def f(a, model):
        s = np.sum(a, axis=0)  # KW_NAMES + CALL (3.11, 3.12), CALL_KW (3.13)
        m = a.mean(axis=1, keepdims=True)  # a method load with keywords
        h = helper(a, y=2.0)  # LOAD_GLOBAL with a NULL: before the callable until 3.12, after it in 3.13
        return s, m, h, model.apply(a, bias=1.0)

    if RULES.call_kw_opcode:
        assert "CALL_KW" in opnames(f)
    check(f, A, Model(3.0))


def test_star_calls():
    def f(a, b):
        parts = (a, b)
        options = {"axis": 0}
        stacked = np.stack(parts, **options)  # CALL_FUNCTION_EX with a mapping
        both = np.concatenate([*parts])
        return helper(*parts), helper(a, *[b]), stacked, both, +a  # CALL_INTRINSIC_1 from 3.12

    if VERSION >= (3, 12):
        assert "CALL_INTRINSIC_1" in opnames(f)
    check(f, A, B)


def test_super_runs_in_cpython_with_the_reason():
    class Base:
        def f(self, x):
            return x + 1.0

    class Child(Base):
        def f(self, x):
            return super().f(x) * 2.0

    child = Child()
    compiled = compiler.compile(Child.f)
    np.testing.assert_array_equal(compiled(child, A), Child.f(child, A))
    entry = compiled.entries[0]
    assert "super" in (entry.fallback_reason or entry.graph_break).reason


# ----------------------------------------------------------------------------- conditions, loops, returns


def test_conditions_on_values_known_while_tracing():
    def f(a, flag, limit, maybe):
        out = a
        if a.shape[0] > 2 and flag:  # 3.13: COMPARE_OP with the bool bit, TO_BOOL
            out = out + 1.0
        if not flag or a.ndim == 1:
            out = out * 0.0
        if maybe is None:  # POP_JUMP_IF_NONE (directionless from 3.12)
            out = out - 1.0
        if 0 < limit < 5:  # a chained comparison: COPY, SWAP and a jump on the first result
            out = out * limit
        n = 0
        while n < limit:
            n += 2
        for row in a:  # 3.12+: END_FOR, skipped by the exhausted FOR_ITER
            out = out + row
        for k in (1, 2, 3):
            if k > limit:
                break
        else:
            out = out + n
        return out if flag else -out

    if RULES.compare_bool_bit:
        assert "TO_BOOL" in opnames(f)
    check(f, A, True, 3, None)
    check(f, A, False, 7, 1)


def test_a_condition_on_array_data_reaches_the_jump():
    """3.13 coerces a comparison feeding a jump to bool in ``COMPARE_OP`` itself; for an
    array the tracer leaves that to the jump, where 3.11 and 3.12 meet it too. There a
    branch that only computes arrays becomes a select, and one with a side effect stops."""

    def pure(a):
        if a.sum() > 0:
            return a + 1.0
        return a - 1.0

    def logged(a, seen):
        if a.sum() > 0:
            seen.append(1)
            return a + 1.0
        return a - 1.0

    compiled = compiler.compile(pure, backend="eager")
    for x in (A, -A):
        np.testing.assert_array_equal(compiled(x), pure(x))
    entry = compiled.entries[-1]
    assert entry.fallback_reason is None and entry.graph_break is None

    compiled = compiler.compile(logged, backend="eager")
    seen, expected = [], []
    for x in (A, -A):
        np.testing.assert_array_equal(compiled(x, seen), logged(x, expected))
    assert seen == expected == [1]
    entry = compiled.entries[-1]
    reason = entry.fallback_reason or entry.graph_break  # a fallback, or a graph break at the jump
    assert reason is not None and reason.location.line == logged.__code__.co_firstlineno + 1


def test_f_strings_and_returning_a_constant():
    def f(a, name, results):
        key = (
            f"{name!r:>8}-{a.ndim}-{3.14159:.2f}"  # FORMAT_VALUE; 3.13: CONVERT_VALUE, FORMAT_WITH_SPEC, FORMAT_SIMPLE
        )
        results[key] = a * 2.0
        a += 1.0  # returns None: RETURN_CONST from 3.12

    if RULES.format_value_split:
        assert {"CONVERT_VALUE", "FORMAT_WITH_SPEC", "FORMAT_SIMPLE"} <= opnames(f)
    if VERSION >= (3, 12):
        assert "RETURN_CONST" in opnames(f)
    check(f, A.copy(), "w", {})
