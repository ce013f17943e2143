"""The symbolic shape environment (compiler/frontend/symbolic_shapes.py), on its own.

The first tests replay TorchDynamo's symbolic-shape examples (a branch on a size, duck
shaping, 0/1 specialization) with this API and check the guards' text; the rest check
arithmetic and simplification, which comparisons record a guard and which the ranges
already decide, ``specialize``, ranges, and — with hypothesis — that the printed guards
are exact Python (``//`` and ``%`` agree with sympy's floor and Mod) and that the
recorded guards are sound: any sizes that pass them decide every traced comparison the
way the traced call did.
"""

from __future__ import annotations

import math
import operator

import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from compiler.frontend.symbolic_shapes import (
    GuardPrintError,
    ShapeEnv,
    SymBool,
    SymInt,
    hint_int,
    is_symbolic,
    sym_max,
    sym_min,
)

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def dim(name: str, i: int = 0) -> str:
    return f"L[{name!r}].shape[{i}]"


# ----------------------------------------------------------------------------- Dynamo's examples


def test_branch_on_size_false_guards_the_other_side():
    # def fn(a): return a if a.shape[0] * 2 < 16 else a + 1;  fn(np.ones(8))
    env = ShapeEnv()
    s = env.create_size(dim("a"), 8)
    assert isinstance(s, SymInt) and str(s.expr) == "s0" and s.hint == 8
    cond = s * 2 < 16
    assert isinstance(cond, SymBool) and cond.hint is False
    assert env.evaluate(cond) is False
    assert [g.text for g in env.guards] == ["L['a'].shape[0] >= 2", "2*L['a'].shape[0] >= 16"]
    assert [g.symbolic for g in env.guards] == ["s0 >= 2", "2*s0 >= 16"]
    assert [g.kind for g in env.guards] == ["range", "compare"]
    assert env.guards[1].sources == ("L['a'].shape[0]",)
    # the guard narrows the range: s0 >= 8, so these need no new guard
    assert env.var_range(s) == (8, math.inf)
    assert env.evaluate(s > 4) is True and env.evaluate(s < 8) is False
    assert len(env.guards) == 2
    # size 9 reuses the graph; size 7 takes the other branch, so it must not
    assert env.failing_guards({dim("a"): 9}) == []
    assert [g.text for g in env.failing_guards({dim("a"): 7})] == ["2*L['a'].shape[0] >= 16"]
    assert [g.kind for g in env.failing_guards({dim("a"): 1})] == ["range", "compare"]


def test_branch_on_size_true_guards_as_written():
    env = ShapeEnv()
    s = env.create_size(dim("a"), 4)
    assert env.evaluate(s * 2 < 16) is True
    assert env.guards[-1].text == "2*L['a'].shape[0] < 16"
    assert env.var_range(s) == (2, 7)
    assert env.failing_guards({dim("a"): 7}) == [] and len(env.failing_guards({dim("a"): 8})) == 1


def test_duck_shaping_then_a_differing_value():
    # fn(a, b) with a, b of shape (4, 3), then c of shape (5,)
    env = ShapeEnv()
    a0, a1 = env.create_size(dim("a", 0), 4), env.create_size(dim("a", 1), 3)
    b0, b1 = env.create_size(dim("b", 0), 4), env.create_size(dim("b", 1), 3)
    assert b0.expr == a0.expr and b1.expr == a1.expr and a0.expr != a1.expr
    c0 = env.create_size(dim("c", 0), 5)
    assert c0.expr not in (a0.expr, a1.expr)
    assert [g.text for g in env.guards] == [
        "L['a'].shape[0] >= 2",
        "L['a'].shape[1] >= 2",
        "L['b'].shape[0] == L['a'].shape[0]",
        "L['b'].shape[1] == L['a'].shape[1]",
        "L['c'].shape[0] >= 2",
    ]
    assert [g.kind for g in env.guards] == ["range", "range", "duck", "duck", "range"]
    assert env.symbols_table() == [
        ("s0", "L['a'].shape[0]", 4),
        ("s1", "L['a'].shape[1]", 3),
        ("s2", "L['c'].shape[0]", 5),
    ]
    assert env.sources_of(a0) == ["L['a'].shape[0]", "L['b'].shape[0]"]
    # the same symbol: a0 == b0 is known, no guard; a0 == c0 is not
    assert env.evaluate(a0 == b0) is True and len(env.guards) == 5
    values = {dim("a", 0): 6, dim("a", 1): 3, dim("b", 0): 6, dim("b", 1): 3, dim("c", 0): 6}
    assert env.failing_guards(values) == []
    values[dim("b", 0)] = 7
    assert [g.text for g in env.failing_guards(values)] == ["L['b'].shape[0] == L['a'].shape[0]"]


def test_no_duck_shaping_makes_a_new_symbol_and_equality_replaces_it():
    env = ShapeEnv()
    a = env.create_size(dim("a"), 8)
    b = env.create_size(dim("b"), 8, duck=False)
    assert a.expr != b.expr and [g.kind for g in env.guards] == ["range", "range"]
    t = b * 3
    # a broadcasting check: a == b is decided by the hints, guarded, and b becomes a
    assert env.evaluate(a == b) is True
    assert env.guards[-1].text == "L['a'].shape[0] == L['b'].shape[0]"  # as written
    assert b.expr == a.expr and t.expr == 3 * a.expr
    assert env.evaluate(b - a == 0) is True and len(env.guards) == 3
    assert env.format(t.expr, sources=True) == "3*L['a'].shape[0]"


def test_duck_shape_switch_off_for_the_environment():
    env = ShapeEnv(duck_shape=False)
    a, b = env.create_size(dim("a"), 5), env.create_size(dim("b"), 5)
    assert a.expr != b.expr and len(env.symbols_table()) == 2


def test_sizes_zero_and_one_are_specialized():
    env = ShapeEnv()
    z, o = env.create_size(dim("x", 0), 0), env.create_size(dim("x", 1), 1)
    assert type(z) is int and z == 0 and type(o) is int and o == 1
    assert [g.text for g in env.guards] == ["L['x'].shape[0] == 0", "L['x'].shape[1] == 1"]
    assert [g.kind for g in env.guards] == ["specialize", "specialize"]
    assert env.symbols_table() == []
    assert env.failing_guards({dim("x", 0): 0, dim("x", 1): 1}) == []
    assert len(env.failing_guards({dim("x", 0): 2, dim("x", 1): 2})) == 2
    # a later size of 1 is not duck-shaped with anything, a size of 2 is a symbol
    assert isinstance(env.create_size(dim("y"), 2), SymInt)
    # asking twice for the same source returns the same value, no new guard
    assert env.create_size(dim("x", 1), 1) == 1 and len(env.guards) == 3


def test_symbolic_sizes_are_never_zero_or_one():
    env = ShapeEnv()
    s = env.create_size(dim("x"), 3)
    for cond, want in [(s == 1, False), (s == 0, False), (s != 1, True), (s >= 1, True), (s > 1, True)]:
        assert env.evaluate(cond) is want
    assert len(env.guards) == 1


def test_int_arguments_follow_dynamos_rule():
    env = ShapeEnv()
    assert env.create_int("L['k']", 1) == 1 and env.guards[-1].text == "L['k'] == 1"
    assert env.create_int("L['z']", 0) == 0 and env.guards[-1].text == "L['z'] == 0"
    n = env.create_int("L['n']", -5)
    assert isinstance(n, SymInt) and n.hint == -5
    assert env.var_range(n) == (-math.inf, math.inf) and env.bound(n) == (-math.inf, math.inf)
    assert len(env.guards) == 2  # no range guard for an int
    m = env.create_int("L['m']", -5)
    assert m.expr != n.expr  # ints are not duck-shaped by default
    p, q = env.create_int("L['p']", 7, duck=True), env.create_int("L['q']", 7, duck=True)
    assert p.expr == q.expr and env.guards[-1].text == "L['q'] == L['p']"
    s = env.create_size(dim("x"), 7)
    assert s.expr != p.expr  # a size never shares an unbounded int's symbol
    # nothing is known about an int's sign: a comparison guards
    assert env.evaluate(n < 0) is True and env.guards[-1].text == "L['n'] < 0"
    assert env.var_range(n) == (-math.inf, -1)
    with pytest.raises(TypeError):
        env.create_int("L['b']", True)
    with pytest.raises(TypeError):
        env.create_size(dim("f"), 2.0)
    with pytest.raises(ValueError):
        env.create_size(dim("g"), -1)


# ----------------------------------------------------------------------------- arithmetic


def test_arithmetic_and_simplification():
    env = ShapeEnv()
    s = env.create_size(dim("x"), 8)
    t = env.create_size(dim("y"), 5)
    assert ((s * 2) // 2).expr == s.expr
    assert env.evaluate((s * 2) // 2 == s) is True and len(env.guards) == 2
    assert s - s == 0 and type(s - s) is int
    assert (s * 4) % 2 == 0 and type((s * 4) % 2) is int
    assert (s + 1 - 1).expr == s.expr
    assert (3 * s - s).expr == 2 * s.expr
    assert (-s).hint == -8 and (+s) is s and (s**2).hint == 64
    u = (s * 3 + t) // 2
    assert u.hint == (8 * 3 + 5) // 2 and isinstance(u.expr, sympy.floor)
    assert ((s + t) % t).hint == 3
    assert (7 - s).hint == -1 and (100 // s).hint == 12 and (100 % s).hint == 4
    assert str(s * 2) == "2*s0 (=16)" and repr(s * 2) == "SymInt(2*s0, hint=16)"
    assert str(u) == "(3*s0 + s1) // 2 (=14)"
    assert str(s * 2 < 16) == "2*s0 < 16 (=False)"
    assert hint_int(u) == 14 and hint_int(3) == 3 and is_symbolic(u) and not is_symbolic(3)


def test_no_silent_specialization():
    env = ShapeEnv()
    s = env.create_size(dim("x"), 8)
    for use in (int, float, bool, operator.index, lambda v: [0] * 10 == [0] * v, lambda v: range(10)[:v]):
        with pytest.raises(TypeError):
            use(s)
    with pytest.raises(TypeError):
        bool(s < 9)  # a SymBool is decided only by env.evaluate
    with pytest.raises(TypeError):
        s / 2
    with pytest.raises(TypeError):
        hash(s)
    assert bool(s == s) is True and bool(s - 1 < s) is True  # sympy alone decides these
    assert (s == "8") is False and (s == None) is False  # noqa: E711
    with pytest.raises(TypeError):
        s + 1.5
    other = ShapeEnv().create_size(dim("x"), 8)
    with pytest.raises(ValueError):
        s + other
    assert len(env.guards) == 1


def test_division_by_zero_and_symbolic_divisors():
    env = ShapeEnv()
    s = env.create_size(dim("x"), 8)
    n = env.create_int("L['n']", 3)
    z = env.create_int("L['z']", -3)
    with pytest.raises(ZeroDivisionError):
        s // 0
    with pytest.raises(ZeroDivisionError):
        s % (z + 3)
    assert s // s == 1 and s % s == 0
    before = len(env.guards)
    s // (s + 1)
    assert len(env.guards) == before  # a size divisor is never 0: no guard
    q = s // n
    assert q.hint == 2 and env.guards[-1].text == "L['n'] != 0" and env.guards[-1].kind == "divisor"
    assert env.format(q.expr, sources=True) == "L['x'].shape[0] // L['n']"
    assert env.failing_guards({dim("x"): 8, "L['n']": 0, "L['z']": -3}) == [env.guards[-1]]


# ----------------------------------------------------------------------------- ranges


def test_range_implied_comparisons_record_no_guard():
    env = ShapeEnv()
    s, t = env.create_size(dim("x"), 8), env.create_size(dim("y"), 3)
    implied = [
        (s >= 1, True),
        (s >= 2, True),
        (s < 2, False),
        (s != 0, True),
        (s + t >= 4, True),
        (s * t >= 4, True),
        (s * t > 3, True),
        (s // 2 >= 1, True),
        (s % 4 <= 3, True),
        (s % 4 < 0, False),
        (s % t >= 0, True),
        (-s < 0, True),
        (2 * s + 1 == 4, False),  # 2*s0 + 1 >= 5
        (s * t == 3, False),
        (s - s + 5 > 4, True),
    ]
    for cond, want in implied:
        assert env.is_known_true(cond) is want, cond
        assert env.static_value(cond) is want, cond
        assert env.evaluate(cond) is want, cond
    assert [g.kind for g in env.guards] == ["range", "range"]
    # not implied: recorded
    for cond in (s > 2, s == 8, s < t, s % 2 == 0):
        assert env.static_value(cond) is None
        assert env.is_known_true(cond) is False  # is_known_true records nothing either
    assert len(env.guards) == 2


def test_comparisons_at_the_edges_of_a_range():
    env = ShapeEnv()
    s = env.create_size(dim("x"), 7)
    assert env.evaluate(s < 8) is True and env.var_range(s) == (2, 7)
    assert env.static_value(s <= 7) is True and env.static_value(s > 7) is False
    assert env.static_value(s >= 7) is None and env.static_value(s == 7) is None
    assert env.evaluate(s >= 7) is True and env.guards[-1].text == "L['x'].shape[0] >= 7"
    # [7, 7]: the symbol is the constant 7 from now on
    assert env.var_range(s) == (7, 7) and env.normalize(s) == 7 and s + 1 == 8
    t = env.create_size(dim("y"), 2)
    assert env.evaluate(t != 2) is False and env.guards[-1].text == "L['y'].shape[0] == 2"
    u = env.create_size(dim("z"), 3, duck=False)
    assert env.evaluate(u != 2) is True and env.var_range(u) == (3, math.inf)


def test_comparisons_implied_by_recorded_guards():
    env = ShapeEnv()
    s, t = env.create_size(dim("x"), 8), env.create_size(dim("y"), 5)
    assert env.evaluate(s + t > 10) is True
    assert env.guards[-1].text == "L['x'].shape[0] + L['y'].shape[0] > 10"
    n = len(env.guards)
    for cond, want in [(s + t >= 11, True), (s + t + 1 > 10, True), (s + t <= 10, False), (2 * s + 2 * t > 21, True)]:
        assert env.evaluate(cond) is want
    assert len(env.guards) == n
    assert env.evaluate(s % 2 == 0) is True
    assert env.evaluate(s % 2 != 0) is False and env.evaluate(s % 2 == 1) is False
    assert len(env.guards) == n + 1
    assert env.evaluate(s != t) is True
    assert env.evaluate(s == t) is False and len(env.guards) == n + 2


def test_bound():
    env = ShapeEnv()
    s, t = env.create_size(dim("x"), 8), env.create_size(dim("y"), 5)
    n = env.create_int("L['n']", 4)
    inf = math.inf
    assert env.bound(s) == (2, inf)
    assert env.bound(2 * s - 3) == (1, inf)
    assert env.bound(-s) == (-inf, -2)
    assert env.bound(s // 3) == (0, inf)
    assert env.bound(s % 4) == (0, 3)
    assert env.bound(s % t) == (0, inf)
    assert env.bound(s * t - s) == (-inf, inf)  # interval arithmetic is not tight
    assert env.bound(n) == (-inf, inf) and env.bound(n % 5) == (0, 4)
    assert env.bound(7) == (7, 7)
    env.evaluate(s < 10)
    assert env.bound(s % 16) == (0, 9) and env.bound(s // 4) == (0, 2)
    assert env.bound(sym_min(s, t)) == (2, 9)


def test_specialize_records_equality():
    env = ShapeEnv()
    s, t = env.create_size(dim("x"), 8), env.create_size(dim("y"), 5)
    u = s * t + 1
    assert env.specialize(s) == 8 and type(env.specialize(s)) is int
    g = env.guards[-1]
    assert (g.kind, g.text, g.symbolic) == ("specialize", "L['x'].shape[0] == 8", "s0 == 8")
    assert len(env.guards) == 3  # the second specialize is known: no new guard
    # s is a constant from now on; expressions made before simplify too
    assert env.normalize(s) == 8 and type(env.normalize(s)) is int
    assert u.expr == 8 * t.expr + 1 and env.var_range(s) == (8, 8)
    assert s * 2 == 16 and type(s * 2) is int
    assert env.specialize(5) == 5 and len(env.guards) == 3
    w = t * 2 + 1
    assert env.specialize(w) == 11 and env.guards[-1].text == "2*L['y'].shape[0] + 1 == 11"
    assert env.normalize(t) == 5


def test_symbols_table_and_guard_expressions():
    env = ShapeEnv()
    a0 = env.create_size(dim("a", 0), 16)
    env.create_size(dim("a", 1), 1)
    b0 = env.create_size(dim("b", 0), 16)
    n = env.create_int("L['n']", 3)
    env.evaluate((a0 * 2) // n < b0 + 9)
    env.evaluate(sym_max(a0, n) > 10)
    assert env.symbols_table() == [("s0", "L['a'].shape[0]", 16), ("s1", "L['n']", 3)]
    assert env.guard_expressions() == [
        "L['a'].shape[0] >= 2",
        "L['a'].shape[1] == 1",
        "L['b'].shape[0] == L['a'].shape[0]",
        "L['n'] != 0",
        "2*L['a'].shape[0] // L['n'] < L['a'].shape[0] + 9",
        "max(L['a'].shape[0], L['n']) > 10",
    ]
    local = {
        "L['a'].shape[0]": "a.shape[0]",
        "L['a'].shape[1]": "a.shape[1]",
        "L['b'].shape[0]": "b.shape[0]",
        "L['n']": "n",
    }
    exprs = env.guard_expressions(local, builtin=lambda name: f"__ember_{name}")
    assert exprs[-1] == "__ember_max(a.shape[0], n) > 10"
    assert exprs[2] == "b.shape[0] == a.shape[0]"
    # plain Python: no sympy needed to check them
    for text in env.guard_expressions():
        assert "floor" not in text and "Mod" not in text and "sympy" not in text
    ns = {"__builtins__": {}, "__ember_max": max}

    class A:
        shape = (16, 1)

    assert all(eval(e, ns, {"a": A, "b": A, "n": 3}) for e in exprs)
    assert not all(eval(e, ns, {"a": A, "b": A, "n": 0}) for e in exprs[:4])
    assert env.format_guards().splitlines()[-1] == "max(L['a'].shape[0], L['n']) > 10  # max(s0, s1) > 10"
    assert str(env).startswith("ShapeEnv(s0=16 <- L['a'].shape[0], s1=3 <- L['n'])")


def test_sym_max_min():
    env = ShapeEnv()
    s, t = env.create_size(dim("x"), 8), env.create_size(dim("y"), 5)
    assert sym_max(s, 2).expr == s.expr and sym_max(s, 1, 0).expr == s.expr
    assert sym_min(s, 1) == 1 and sym_max(3, 4) == 4
    m = sym_max(s, t)
    assert m.hint == 8 and env.format(m.expr) == "max(s0, s1)"
    assert sym_min(s + 1, s).expr == s.expr and sym_min(s, t).hint == 5
    assert len(env.guards) == 2


def test_where_is_kept_for_logs():
    env = ShapeEnv()
    s = env.create_size(dim("x"), 8)
    env.evaluate(s > 5, where="f.py:3")
    assert env.guards[-1].where == "f.py:3" and "(f.py:3)" in env.format_guards()


def test_ceiling_and_unprintable_expressions():
    env = ShapeEnv()
    s = env.create_size(dim("x"), 7)
    sym = s.expr
    c = env.create_symint(sympy.ceiling(sym / 3))
    assert c.hint == 3
    for v in range(2, 30):
        text = env.format(c.expr, source_expr={dim("x"): str(v)})
        assert eval(text) == -(-v // 3), text
    with pytest.raises(GuardPrintError):
        env.format(sym / 2)


def test_nested_remainders_stay_exact():
    # sympy 1.14.0's Mod.eval squares an inner Mod here (sympy issues #28744, #29757)
    env = ShapeEnv()
    s = env.create_size(dim("x"), 2)
    n = env.create_int("L['n']", 5)
    cases = [
        ((6 % (3 * s)) % 4, lambda v, k: (6 % (3 * v)) % 4),
        ((128 * (s % 3)) % 356, lambda v, k: (128 * (v % 3)) % 356),
        (1 % s, lambda v, k: 1 % v),
        ((3 * (n % 5)) % 4 + (s * 4) % 2, lambda v, k: (3 * (k % 5)) % 4),
        ((7 * n + 3) % 5, lambda v, k: (7 * k + 3) % 5),
    ]
    for value, want in cases:
        for v in range(2, 12):
            for k in range(-7, 8):
                text = env.format(value.expr, source_expr={dim("x"): str(v), "L['n']": str(k)})
                assert eval(text) == want(v, k), (text, v, k)
    assert str((7 * n + 3) % 5) == "(2*s1 + 3) % 5 (=3)"  # coefficients reduce modulo 5


# ----------------------------------------------------------------------------- properties

N_SYMS = 3
SYM = st.integers(0, N_SYMS - 1).map(lambda i: ("sym", i))
CONST = st.integers(-6, 9).map(lambda c: ("const", c))
# A divisor that is >= 1 whenever the symbols are >= 2 (sizes).
POSITIVE = st.one_of(
    SYM,
    st.integers(1, 7).map(lambda c: ("const", c)),
    st.tuples(st.just("+"), SYM, st.integers(0, 3).map(lambda c: ("const", c))),
    st.tuples(st.just("*"), st.integers(1, 3).map(lambda c: ("const", c)), SYM),
)


def _extend(children):
    return st.one_of(
        st.tuples(st.sampled_from(["+", "-", "*"]), children, children),
        st.tuples(st.sampled_from(["//", "%"]), children, POSITIVE),
        st.tuples(st.just("neg"), children),
        st.tuples(st.sampled_from(["max", "min"]), children, children),
    )


TREES = st.recursive(st.one_of(SYM, CONST), _extend, max_leaves=7)
OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
    "max": lambda a, b: sym_max(a, b) if is_symbolic(a) or is_symbolic(b) else max(a, b),
    "min": lambda a, b: sym_min(a, b) if is_symbolic(a) or is_symbolic(b) else min(a, b),
}
RELS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt, ">=": operator.ge}


def build(tree, values):
    """The tree over ints (the oracle) or over SymInts (the symbolic result)."""
    kind = tree[0]
    if kind == "sym":
        return values[tree[1]]
    if kind == "const":
        return tree[1]
    if kind == "neg":
        return -build(tree[1], values)
    return OPS[kind](build(tree[1], values), build(tree[2], values))


def py_eval(env, expr, names, values):
    """The printed Python of ``expr``, with the source ``names[i]`` set to ``values[i]``."""
    text = env.format(expr, source_expr={name: f"v[{i}]" for i, name in enumerate(names)})
    return eval(text, {"__builtins__": {"max": max, "min": min}}, {"v": values})


def sympy_eval(expr, syms, values):
    result = expr.xreplace({s.expr: v for s, v in zip(syms, values) if isinstance(s, SymInt)})
    return bool(result) if isinstance(result, sympy.logic.boolalg.BooleanAtom) else int(result)


SIZES = st.lists(st.integers(2, 40), min_size=N_SYMS, max_size=N_SYMS)
ANY_INTS = st.lists(st.integers(-30, 30), min_size=N_SYMS, max_size=N_SYMS)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tree=TREES,
    rhs=st.one_of(TREES, CONST),
    rel=st.sampled_from(sorted(RELS)),
    ints=st.lists(st.booleans(), min_size=N_SYMS, max_size=N_SYMS),
    sizes=st.lists(SIZES, min_size=2, max_size=5),
    others=st.lists(ANY_INTS, min_size=2, max_size=5),
)
def test_printed_python_agrees_with_sympy_and_with_ints(tree, rhs, rel, ints, sizes, others):
    """Sizes (>= 2) and int arguments (any sign: floor division and remainder by negative
    numbers): the tree computed on ints, sympy's value of its expression and the printed
    Python's value are the same number, and likewise for a comparison."""
    vectors = [[o if is_int else s for s, o, is_int in zip(size, other, ints)] for size, other in zip(sizes, others)]
    hints = vectors[0]
    assume(all(h not in (0, 1) for h in hints))  # an int of 0 or 1 is specialized
    names = [f"L['n{i}']" if is_int else dim(f"x{i}") for i, is_int in enumerate(ints)]
    env = ShapeEnv()
    syms = [
        env.create_int(name, h) if is_int else env.create_size(name, h, duck=False)
        for name, h, is_int in zip(names, hints, ints)
    ]
    try:
        want_value, want_hint = build(tree, hints), RELS[rel](build(tree, hints), build(rhs, hints))
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            RELS[rel](build(tree, syms), build(rhs, syms))
        return
    value = build(tree, syms)
    assert hint_int(value) == want_value
    cond = RELS[rel](value, build(rhs, syms))
    if isinstance(cond, SymBool):
        assert cond.hint == want_hint
    else:
        assert cond is want_hint
    for values in vectors:
        try:
            want = build(tree, values)
            truth = RELS[rel](want, build(rhs, values))
        except ZeroDivisionError:
            continue
        if isinstance(value, SymInt):
            assert py_eval(env, value.expr, names, values) == want
            assert sympy_eval(value.expr, syms, values) == want
        if isinstance(cond, SymBool):
            assert py_eval(env, cond.expr, names, values) is truth
            assert sympy_eval(cond.expr, syms, values) is truth


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hints=st.lists(st.integers(0, 12), min_size=N_SYMS, max_size=N_SYMS),
    ints=st.lists(st.booleans(), min_size=N_SYMS, max_size=N_SYMS),
    comparisons=st.lists(
        st.tuples(TREES, st.sampled_from(sorted(RELS)), st.one_of(TREES, CONST)), min_size=1, max_size=4
    ),
    moves=st.lists(st.lists(st.integers(-3, 3), min_size=N_SYMS, max_size=N_SYMS), min_size=1, max_size=12),
    specialize=st.booleans(),
)
def test_guards_are_sound(hints, ints, comparisons, moves, specialize):
    """Traced decisions hold for every call that passes the guards: duck shaping, 0/1
    sizes, int arguments (negative ones too), range-implied comparisons and
    replacements included."""
    hints = [h - 6 if is_int else h for h, is_int in zip(hints, ints)]
    env = ShapeEnv()
    names = [f"L['n{i}']" if is_int else dim(f"x{i}") for i, is_int in enumerate(ints)]
    syms = [
        env.create_int(name, h) if is_int else env.create_size(name, h) for name, h, is_int in zip(names, hints, ints)
    ]
    decided = []
    try:
        for left, rel, right in comparisons:
            a, b = build(left, syms), build(right, syms)
            decided.append((left, rel, right, env.evaluate(RELS[rel](a, b))))
        if specialize and isinstance(syms[0], SymInt):
            assert env.specialize(syms[0] * 2 + 1) == hints[0] * 2 + 1
    except ZeroDivisionError:  # an int argument made a divisor 0 in the traced call
        assume(False)
    for left, rel, right, result in decided:
        assert RELS[rel](build(left, hints), build(right, hints)) is result
    assert env.failing_guards(dict(zip(names, hints))) == []
    for move in moves:
        values = [max(h + m, 0) if not is_int else h + m for h, m, is_int in zip(hints, move, ints)]
        if env.failing_guards(dict(zip(names, values))):
            continue
        if specialize and isinstance(syms[0], SymInt):
            assert values[0] == hints[0]
        for left, rel, right, result in decided:
            assert RELS[rel](build(left, values), build(right, values)) is result, env.format_guards()


@FAST
@given(tree=TREES, hints=SIZES, values=st.lists(SIZES, min_size=1, max_size=5))
def test_bounds_are_sound(tree, hints, values):
    env = ShapeEnv()
    syms = [env.create_size(dim(f"x{i}"), h, duck=False) for i, h in enumerate(hints)]
    value = build(tree, syms)
    lo, hi = env.bound(value)
    for v in [hints, *values]:
        assert lo <= build(tree, v) <= hi
