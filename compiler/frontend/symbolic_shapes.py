"""Symbolic sizes: the shape environment of one trace (TorchDynamo's ``ShapeEnv``, small).

A dynamic size enters a trace as a *symbol* (``s0``, ``s1``...) whose *hint* is the
value this call passed. Sizes computed from it are sympy expressions over symbols
(``2*s0``, ``s0 // 2``), carried by :class:`SymInt`. Whatever the trace decides *about*
a size (a branch ``if n * 2 < 16``, a broadcasting check ``a == b``, a size made a plain
``int``) is decided with the hints and recorded as a *guard*, so that the compiled code
is reused only for calls that would decide the same way. Guards print as plain Python
over the sizes' sources (``2*L['x'].shape[0] >= 16``): checking them needs no sympy.

The rules are TorchDynamo's (``torch/fx/experimental/symbolic_shapes.py``):

* **0/1 specialization.** An array size of 0 or 1 is never symbolic: it stays a plain
  ``int``, guarded ``source == value``; a symbolic size has the range ``[2, inf)``,
  guarded ``source >= 2``. (Broadcasting and empty arrays behave differently at 0 and
  1, so one graph cannot serve both.) Consequently ``s0 == 1`` and ``s0 >= 1`` are
  known without a guard.
* **Duck shaping.** A second size with the same value as an earlier one reuses its
  symbol, guarded ``new_source == first_source``; ``duck=False`` makes a new symbol.
* **Python ints** (:meth:`ShapeEnv.create_int`): Dynamo specializes an int argument of
  0 or 1 (``VariableBuilder``'s "common constants", because sizes are 0/1-specialized)
  and makes any other value an unbounded symbol ``(-inf, inf)``, not duck-shaped (an
  int is not known to be a size). Ints duck-share only with ints, never with sizes:
  a size symbol must keep its ``[2, inf)`` range.
* **Guards are recorded only when needed.** :meth:`ShapeEnv.evaluate` first tries to
  decide a comparison from the symbols' ranges and the guards recorded so far (``s0 >=
  1``; ``s0 >= 5`` after ``2*s0 >= 16``); only when it cannot does it use the hints and
  record the comparison (or its negation).
* **Guards refine.** A recorded guard over one symbol narrows that symbol's range
  (``2*s0 >= 16`` makes ``s0`` ``[8, inf)``); a recorded equality replaces the newer
  symbol by the older expression everywhere (``s1 == s0``: every ``s1`` reads ``s0``),
  and a symbol whose range is one value becomes that constant.

Nothing here knows about the tracer: sources are strings (``"L['x'].shape[0]"``), as
:meth:`Source.name` gives them; :meth:`ShapeEnv.guard_expressions` maps them to the
generated entry's own expressions (``x.shape[0]``) when asked.
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from compiler.lazy_import import lazy_module

sympy = lazy_module("sympy")  # imported on first use: sizes that never go symbolic need none of it

__all__ = [
    "GuardPrintError",
    "ShapeEnv",
    "ShapeGuard",
    "SymBool",
    "SymInt",
    "hint_int",
    "is_symbolic",
    "sym_max",
    "sym_min",
]

Number = int | Fraction | float  # a range end: an int, a fraction inside floor(), or +-inf
_INF = math.inf


class GuardPrintError(ValueError):
    """An expression that has no exact integer-arithmetic Python form (a fraction
    outside ``floor``): a bug of this module, never the user's."""


# ============================================================================ values


def _operand(value, env: ShapeEnv) -> tuple[sympy.Expr, int] | None:
    """An integer operand as (expr, hint); None for what is not an integer."""
    if isinstance(value, SymInt):
        if value._env is not env:
            raise ValueError("SymInts of two different shape environments")
        return value.expr, value.hint
    if isinstance(value, (float, complex, str, bytes)) or value is None:
        return None
    try:
        v = operator.index(value)  # int, bool, numpy integers
    except TypeError:
        return None
    return sympy.Integer(v), v


class SymInt:
    """A symbolic integer: ``expr`` over the environment's symbols and ``hint``, its value
    in the call being traced.

    Arithmetic (``+ - * // % **``, unary ``-``) with ints and other SymInts gives a SymInt,
    or a plain ``int`` when the result simplifies to a constant (``s0 - s0``). A
    comparison gives a :class:`SymBool` that only :meth:`ShapeEnv.evaluate` turns into a
    ``bool``; ``int()``, ``operator.index`` and ``bool()`` raise ``TypeError``, so a size
    cannot silently become a constant: :meth:`ShapeEnv.specialize` does that, with a
    guard. SymInts are not hashable (``==`` is symbolic).
    """

    __slots__ = ("_env", "_expr", "hint")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, env: ShapeEnv, expr: sympy.Expr, hint: int):
        self._env = env
        self._expr = expr
        self.hint = hint

    @property
    def env(self) -> ShapeEnv:
        return self._env

    @property
    def expr(self) -> sympy.Expr:
        """The expression with every replacement the environment has learned applied."""
        return self._env.replace(self._expr)

    # -- arithmetic ------------------------------------------------------------------

    def _binary(self, other, build, compute, reflected: bool = False):
        o = _operand(other, self._env)
        if o is None:
            return NotImplemented
        (a, ha), (b, hb) = (self.expr, self.hint), o
        if reflected:
            (a, ha), (b, hb) = (b, hb), (a, ha)
        return self._env._wrap(build(a, b), compute(ha, hb))

    def __add__(self, other):
        return self._binary(other, operator.add, operator.add)

    def __radd__(self, other):
        return self._binary(other, operator.add, operator.add, reflected=True)

    def __sub__(self, other):
        return self._binary(other, operator.sub, operator.sub)

    def __rsub__(self, other):
        return self._binary(other, operator.sub, operator.sub, reflected=True)

    def __mul__(self, other):
        return self._binary(other, operator.mul, operator.mul)

    def __rmul__(self, other):
        return self._binary(other, operator.mul, operator.mul, reflected=True)

    def _division(self, other, reflected: bool, build, compute):
        o = _operand(other, self._env)
        if o is None:
            return NotImplemented
        d_expr, d_hint = (self.expr, self.hint) if reflected else o
        if d_hint == 0:
            raise ZeroDivisionError("integer division or modulo by zero")
        if not d_expr.is_Number:  # a symbolic divisor: the graph is only valid while it is not 0
            self._env.evaluate(SymBool(self._env, sympy.Ne(d_expr, 0), True), kind="divisor")
        return self._binary(other, build, compute, reflected)

    def __floordiv__(self, other):
        return self._division(other, False, _floordiv, operator.floordiv)

    def __rfloordiv__(self, other):
        return self._division(other, True, _floordiv, operator.floordiv)

    def __mod__(self, other):
        return self._division(other, False, _python_mod(), operator.mod)

    def __rmod__(self, other):
        return self._division(other, True, _python_mod(), operator.mod)

    def __pow__(self, other):
        if isinstance(other, SymInt) or _operand(other, self._env) is None:
            return NotImplemented  # a symbolic exponent: specialize it first
        n = operator.index(other)
        if n < 0:
            raise TypeError("a negative power of a symbolic size is not an integer")
        return self._env._wrap(self.expr**n, self.hint**n)

    def __neg__(self):
        return self._env._wrap(-self.expr, -self.hint)

    def __pos__(self):
        return self

    def __truediv__(self, other):
        raise TypeError(f"true division of the symbolic size {self} (there is no SymFloat): specialize it first")

    __rtruediv__ = __truediv__

    # -- comparisons: symbolic, decided by ShapeEnv.evaluate ----------------------------

    def _compare(self, other, rel, py):
        o = _operand(other, self._env)
        if o is None:
            return NotImplemented
        return SymBool(self._env, rel(self.expr, o[0]), py(self.hint, o[1]))

    def __lt__(self, other):
        return self._compare(other, sympy.Lt, operator.lt)

    def __le__(self, other):
        return self._compare(other, sympy.Le, operator.le)

    def __gt__(self, other):
        return self._compare(other, sympy.Gt, operator.gt)

    def __ge__(self, other):
        return self._compare(other, sympy.Ge, operator.ge)

    def __eq__(self, other):
        return self._compare(other, sympy.Eq, operator.eq)

    def __ne__(self, other):
        return self._compare(other, sympy.Ne, operator.ne)

    # -- no silent specialization -------------------------------------------------------

    def _refuse(self, *_):
        raise TypeError(
            f"the symbolic size {self} was used as a Python int; call ShapeEnv.specialize() "
            "(which guards its value) or ShapeEnv.evaluate() on a comparison"
        )

    __int__ = __index__ = __float__ = __bool__ = __round__ = _refuse  # type: ignore[assignment]

    def __str__(self) -> str:
        return f"{self._env.format(self.expr)} (={self.hint})"

    def __repr__(self) -> str:
        return f"SymInt({self._env.format(self.expr)}, hint={self.hint})"


def _floordiv(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    return sympy.floor(a / b)


@functools.cache
def _python_mod() -> type:
    """``PythonMod``, defined on first use: its base class is sympy's (``lazy_import.py``)."""

    class PythonMod(sympy.Mod):
        """``a % b`` on integers: sympy's ``Mod`` (same meaning, same printing, its ``is_integer``
        and sign rules), with a conservative ``eval``. sympy 1.14.0's own ``Mod.eval`` gives
        wrong answers on nested remainders: ``Mod(3*Mod(2, s), 4)`` becomes ``Mod(3*Mod(2,
        s)**2, 4)`` (sympy issues #28744 and #29757, fixed after 1.14.0); this module's
        hypothesis test found it. So only rules that hold for every integer apply here:
        constants fold, ``x % 1 == 0``, ``x % x == 0``, ``(x % q) % q == x % q``, and with
        an integer ``q`` every integer coefficient of ``x`` reduces modulo ``q``."""

        @classmethod
        def eval(cls, p, q):
            if q.is_zero:
                raise ZeroDivisionError("integer modulo by zero")
            if p.is_Integer and q.is_Integer:
                return sympy.Integer(int(p) % int(q))
            if p.is_zero or q in (1, -1) or p == q or p == -q:
                return sympy.Integer(0)
            if isinstance(p, sympy.Mod) and p.args[1] == q:
                return p
            if q.is_Integer:
                m = int(q)
                terms = []
                changed = False
                for t in sympy.Add.make_args(p):
                    c, rest = t.as_coeff_Mul()
                    if c.is_Integer and (rest.is_integer or rest == 1):
                        r = int(c) % m
                        changed |= r != int(c)
                        if r:
                            terms.append(r * rest)
                    else:
                        terms.append(t)
                if changed:
                    return cls(sympy.Add(*terms), q)
            return None

    return PythonMod


def __getattr__(name: str):
    if name == "PythonMod":
        return _python_mod()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class SymBool:
    """A comparison of sizes: ``expr`` (a sympy relational) and ``hint`` (its truth in this
    call). ``bool()`` works only when sympy alone decides it (``s0 == s0``); otherwise use
    :meth:`ShapeEnv.evaluate`, which records the guard."""

    __slots__ = ("_env", "expr", "hint")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, env: ShapeEnv, expr, hint: bool):
        self._env = env
        self.expr = expr
        self.hint = bool(hint)

    def __bool__(self) -> bool:
        expr = self._env.replace(self.expr)
        if expr is sympy.true or expr is sympy.false:
            return expr is sympy.true
        raise TypeError(f"the truth of {self._env.format(expr)} depends on symbolic sizes; use ShapeEnv.evaluate()")

    def __invert__(self) -> SymBool:
        return SymBool(self._env, _negate(self.expr), not self.hint)

    def __str__(self) -> str:
        return f"{self._env.format(self.expr)} (={self.hint})"

    __repr__ = __str__


def _negate(rel):
    if rel is sympy.true:
        return sympy.false
    if rel is sympy.false:
        return sympy.true
    return rel.negated  # Lt <-> Ge, Eq <-> Ne ...


def is_symbolic(value) -> bool:
    return isinstance(value, (SymInt, SymBool))


def hint_int(value) -> int:
    """The value of an int or a SymInt in the call being traced (no guard)."""
    return value.hint if isinstance(value, SymInt) else operator.index(value)


def _sym_extreme(values: tuple, fn, pick, name: str):
    if not values:
        raise TypeError(f"sym_{name} expected at least 1 argument")
    envs = {v.env for v in values if isinstance(v, SymInt)}
    if not envs:
        return pick(operator.index(v) for v in values)
    if len(envs) > 1:
        raise ValueError("SymInts of two different shape environments")
    env = envs.pop()
    operands = [_operand(v, env) for v in values]
    if any(o is None for o in operands):
        raise TypeError(f"sym_{name} takes ints and SymInts")
    exprs = env._drop_dominated([o[0] for o in operands], maximum=name == "max")
    return env._wrap(fn(*exprs), pick(o[1] for o in operands))


def sym_max(*values):
    """``max`` of ints and SymInts, without a guard (``Max(s0, s1)``; an argument the
    ranges prove no larger than another is dropped: ``sym_max(s0, 2)`` is ``s0``)."""
    return _sym_extreme(values, sympy.Max, max, "max")


def sym_min(*values):
    """``min`` of ints and SymInts, without a guard (see :func:`sym_max`)."""
    return _sym_extreme(values, sympy.Min, min, "min")


# ============================================================================ guards


@dataclass(frozen=True)
class ShapeGuard:
    """One recorded fact the trace relied on.

    ``kind``: ``specialize`` (a size or int made constant: ``source == value``),
    ``range`` (``source >= 2`` for a new size symbol), ``duck`` (``source ==
    first_source`` for a duck-shaped size), ``compare`` (a comparison
    :meth:`ShapeEnv.evaluate` decided) or ``divisor`` (a symbolic divisor ``!= 0``).
    ``expr``: the sympy relation over symbols. ``text``: Python over source names
    (``2*L['x'].shape[0] >= 16``). ``symbolic``: the same over symbol names, for logs
    (``2*s0 >= 16``). ``sources``: the sources it reads, in order. ``where``: what the
    caller said about where it was decided (``mse.py:7``), or None.
    """

    kind: str
    expr: sympy.Basic = field(repr=False)
    text: str
    symbolic: str
    sources: tuple[str, ...]
    where: str | None = None

    def __str__(self) -> str:
        return self.text


@dataclass
class _SymbolInfo:
    symbol: sympy.Symbol
    kind: str  # "size" or "int"
    hint: int
    sources: list[str]
    lo: Number
    hi: Number


# ============================================================================ the environment


class ShapeEnv:
    """The symbols and guards of one trace.

    ``duck_shape=False`` turns duck shaping off for the whole environment (Dynamo's
    ``duck_shape`` switch), whatever ``create_size(..., duck=)`` asks.
    """

    def __init__(self, *, duck_shape: bool = True):
        self.duck_shape = duck_shape
        self.guards: list[ShapeGuard] = []
        self._info: dict[sympy.Symbol, _SymbolInfo] = {}  # real symbols, in creation order
        self._by_source: dict[str, int | SymInt] = {}
        self._duck: dict[tuple[str, int], sympy.Symbol] = {}  # (kind, value) -> symbol
        self._source_symbols: dict[sympy.Symbol, str] = {}  # stand-ins for guards on plain sources
        self._source_symbol_of: dict[str, sympy.Symbol] = {}
        self._replacements: dict[sympy.Symbol, sympy.Expr] = {}
        self._guard_exprs: set = set()
        self._facts_cache: tuple[int, list, list, list] | None = None
        self._version = 0  # bumped whenever guards or replacements change
        self.where: str | None = None  # where the trace is (``file:line``), for guards not told
        self.on_guard: Callable[[ShapeGuard], None] | None = None  # called with each new guard

    # -- creating symbols --------------------------------------------------------------

    def create_size(self, source_name: str, value: int, *, duck: bool = True) -> int | SymInt:
        """The size of an input array's dimension. 0 and 1 stay ints (guarded ``==``);
        any other value is a symbol of range ``[2, inf)``: a new one (guarded ``>= 2``), or,
        duck shaping, the symbol of an earlier size of the same value (guarded ``source ==
        first_source``). Asking again for the same source returns the same value."""
        value = self._check_int(value, source_name)
        if value < 0:
            raise ValueError(f"a size cannot be negative: {source_name} = {value}")
        if source_name in self._by_source:
            return self._seen(source_name, value)
        if value in (0, 1):
            result: int | SymInt = value
            self._guard_source_equals(source_name, value)
        else:
            result = self._symbol_for(source_name, value, "size", duck, lo=2)
        self._by_source[source_name] = result
        return result

    def create_int(self, source_name: str, value: int, *, duck: bool = False) -> int | SymInt:
        """A Python int argument made symbolic. Dynamo's rule: 0 and 1 are specialized
        (guarded ``==``: sizes are 0/1-specialized, so ints that meet them are too); any
        other value is a new symbol of range ``(-inf, inf)`` with no range guard. Not duck
        shaped unless asked (Dynamo marks such ints ``DYNAMIC``), and then only with ints."""
        value = self._check_int(value, source_name)
        if source_name in self._by_source:
            return self._seen(source_name, value)
        if value in (0, 1):
            result: int | SymInt = value
            self._guard_source_equals(source_name, value)
        else:
            result = self._symbol_for(source_name, value, "int", duck, lo=-_INF)
        self._by_source[source_name] = result
        return result

    def create_symint(self, expr) -> int | SymInt:
        """A SymInt for a sympy expression over this environment's symbols (its hint from
        theirs); an int when the expression is a constant."""
        expr = self.replace(sympy.sympify(expr))
        return self._wrap(expr, self.size_hint(expr))

    def _seen(self, source_name: str, value: int) -> int | SymInt:
        known = self._by_source[source_name]
        if hint_int(known) != value:
            raise ValueError(f"{source_name} was {hint_int(known)} earlier in this trace, now {value}")
        return known

    @staticmethod
    def _check_int(value, source_name) -> int:
        if not isinstance(value, bool):
            try:
                return operator.index(value)
            except TypeError:
                pass
        raise TypeError(f"{source_name}: expected an int, got {type(value).__name__}")

    def _symbol_for(self, source_name: str, value: int, kind: str, duck: bool, lo: Number) -> SymInt:
        duck = duck and self.duck_shape
        existing = self._duck.get((kind, value)) if duck else None
        if existing is not None:
            self._info[existing].sources.append(source_name)
            stand_in = self._source_symbol(source_name)
            self._add_guard("duck", sympy.Eq(stand_in, existing))
            return SymInt(self, existing, value)
        symbol = sympy.Symbol(f"s{len(self._info)}", integer=True, positive=True if kind == "size" else None)
        self._info[symbol] = _SymbolInfo(symbol, kind, value, [source_name], lo, _INF)
        if duck:
            self._duck[(kind, value)] = symbol
        if kind == "size":
            self._add_guard("range", sympy.Ge(symbol, 2, evaluate=False))
        return SymInt(self, symbol, value)

    def _source_symbol(self, source_name: str) -> sympy.Symbol:
        """A stand-in symbol that prints as a source: for guards over a source that has no
        symbol of its own (a 0/1 size, a duck-shaped size)."""
        symbol = self._source_symbol_of.get(source_name)
        if symbol is None:
            symbol = sympy.Symbol(f"_src{len(self._source_symbols)}", integer=True)
            self._source_symbols[symbol] = source_name
            self._source_symbol_of[source_name] = symbol
        return symbol

    def _guard_source_equals(self, source_name: str, value: int) -> None:
        self._add_guard("specialize", sympy.Eq(self._source_symbol(source_name), value, evaluate=False))

    def normalize(self, value) -> int | SymInt:
        """An int or SymInt with the replacements learned since it was made applied: a plain
        ``int`` once its expression is a constant (after ``specialize``, or an equality guard)."""
        if isinstance(value, SymInt):
            return self._wrap(value.expr, value.hint)
        return operator.index(value)

    def _wrap(self, expr: sympy.Expr, hint: int) -> int | SymInt:
        expr = self.replace(expr)
        if expr.is_Integer:
            if int(expr) != hint:
                raise AssertionError(f"constant {expr} does not match its hint {hint}")
            return int(expr)
        return SymInt(self, expr, hint)

    # -- reading symbols -----------------------------------------------------------------

    def symbols_table(self) -> list[tuple[str, str, int]]:
        """(symbol name, first source, hint) for every symbol, in creation order: for logs,
        and for the ``ember.symbols`` metadata of the graph (``guard_metadata.Symbol``)."""
        return [(str(i.symbol), i.sources[0], i.hint) for i in self._info.values()]

    def sources_of(self, symbol) -> list[str]:
        """Every source that was given this symbol (the first defines it)."""
        return list(self._info[self._symbol(symbol)].sources)

    def var_range(self, symbol) -> tuple[Number, Number]:
        """A symbol's range as refined by the guards so far (ints, or +-math.inf); for a
        symbol replaced by an equality, the bound of what replaced it."""
        symbol = self._symbol(symbol)
        if symbol in self._replacements:
            return self.bound(self._replacements[symbol])
        info = self._info[symbol]
        return info.lo, info.hi

    def _symbol(self, symbol) -> sympy.Symbol:
        if isinstance(symbol, SymInt):
            symbol = symbol._expr
        if isinstance(symbol, str):
            symbol = next((s for s in self._info if s.name == symbol), None)
        if symbol not in self._info:
            raise KeyError(f"not a symbol of this environment: {symbol}")
        return symbol

    def replace(self, expr):
        """``expr`` with the replacements learned from equality guards applied."""
        if self._replacements and isinstance(expr, sympy.Basic) and expr.free_symbols & self._replacements.keys():
            return expr.xreplace(self._replacements)
        return expr

    def _as_expr(self, value) -> sympy.Basic:
        if isinstance(value, (SymInt, SymBool)):
            if value._env is not self:
                raise ValueError("a value of another shape environment")
            return self.replace(value.expr)
        if isinstance(value, bool):
            return sympy.true if value else sympy.false
        if isinstance(value, int):
            return sympy.Integer(value)
        if isinstance(value, sympy.Basic):
            return self.replace(value)
        raise TypeError(f"expected an int, a SymInt, a SymBool or a sympy expression, got {type(value).__name__}")

    def size_hint(self, expr) -> int:
        """The value of an int, a SymInt or a sympy expression in the call being traced."""
        if isinstance(expr, SymInt):
            return expr.hint
        if isinstance(expr, SymBool):
            return expr.hint
        e = self._as_expr(expr)
        value = e.xreplace({s: sympy.Integer(i.hint) for s, i in self._info.items()})
        if value is sympy.true or value is sympy.false:
            return value is sympy.true
        if not value.is_Integer:
            raise ValueError(f"{e} has no hint (free symbols {value.free_symbols})")
        return int(value)

    def bound(self, expr) -> tuple[Number, Number]:
        """The values ``expr`` can take given the symbols' ranges: ``(lo, hi)``, ints or
        ``-math.inf``/``math.inf``. Sound but not tight (interval arithmetic)."""
        e = self._as_expr(expr)
        lo, hi = self._bound(e)
        return _int_end(lo, math.ceil), _int_end(hi, math.floor)

    def _bound(self, e) -> tuple[Number, Number]:
        if e.is_Integer:
            return int(e), int(e)
        if e.is_Rational:
            return Fraction(int(e.p), int(e.q)), Fraction(int(e.p), int(e.q))
        if e.is_Symbol:
            info = self._info.get(e)
            return (info.lo, info.hi) if info is not None else (-_INF, _INF)
        if e.is_Add:
            lo, hi = 0, 0
            for a in e.args:
                alo, ahi = self._bound(a)
                lo, hi = lo + alo, hi + ahi
            return lo, hi
        if e.is_Mul:
            lo, hi = 1, 1
            for a in e.args:
                lo, hi = _interval_mul((lo, hi), self._bound(a))
            return lo, hi
        if e.is_Pow and e.exp.is_Integer:
            return _interval_pow(self._bound(e.base), int(e.exp))
        if isinstance(e, sympy.floor):
            lo, hi = self._bound(e.args[0])
            return _int_end(lo, math.floor), _int_end(hi, math.floor)
        if isinstance(e, sympy.ceiling):
            lo, hi = self._bound(e.args[0])
            return _int_end(lo, math.ceil), _int_end(hi, math.ceil)
        if isinstance(e, sympy.Mod):
            (alo, ahi), (blo, bhi) = self._bound(e.args[0]), self._bound(e.args[1])
            if blo > 0:  # Python's % with a positive divisor: [0, b - 1], and a itself if a >= 0
                return 0, (min(bhi - 1, ahi) if alo >= 0 else bhi - 1)
            if bhi < 0:
                return (max(blo + 1, alo) if ahi <= 0 else blo + 1), 0
            return min(blo + 1, 0), max(bhi - 1, 0)
        if isinstance(e, (sympy.Max, sympy.Min)):
            pick = max if isinstance(e, sympy.Max) else min
            bounds = [self._bound(a) for a in e.args]
            return pick(b[0] for b in bounds), pick(b[1] for b in bounds)
        return -_INF, _INF

    def _drop_dominated(self, exprs: list, maximum: bool) -> list:
        """For Max (Min): drop each argument that the ranges prove <= (>=) another."""
        kept: list = []
        for e in exprs:
            if any(self._static_ge((k - e) if maximum else (e - k)) for k in kept):
                continue
            kept = [k for k in kept if not self._static_ge((e - k) if maximum else (k - e))]
            kept.append(e)
        return kept

    # -- deciding ------------------------------------------------------------------------

    def evaluate(self, cond, *, where: str | None = None, kind: str = "compare") -> bool:
        """The truth of a comparison in this call. When the ranges and the guards so far do
        not already decide it, the hints do, and the comparison (or its negation, when
        false) is recorded as a guard of family ``kind``. ``where`` (``file:line``) is kept
        for logs."""
        if isinstance(cond, bool):
            return cond  # static sizes: no sympy (its import is a third of a second, once)
        expr = self._as_expr(cond)
        if expr is sympy.true or expr is sympy.false:
            return expr is sympy.true
        hint = cond.hint if isinstance(cond, SymBool) else self.size_hint(expr)
        static = self._static(expr)
        if static is not None:
            if static != hint:
                raise AssertionError(f"{expr} is statically {static} but {hint} with the hints")
            return static
        self._add_guard(kind, expr if hint else _negate(expr), where)
        return bool(hint)

    def is_known_true(self, cond) -> bool:
        """Whether the ranges and the guards recorded so far imply ``cond`` (no guard is
        recorded, the hints are not used)."""
        expr = self._as_expr(cond)
        if expr is sympy.true or expr is sympy.false:
            return expr is sympy.true
        return self._static(expr) is True

    def static_value(self, cond) -> bool | None:
        """True or False when implied by the ranges and guards so far, else None."""
        expr = self._as_expr(cond)
        if expr is sympy.true or expr is sympy.false:
            return expr is sympy.true
        return self._static(expr)

    def specialize(self, value) -> int:
        """A SymInt made a plain int: its hint, guarded ``expr == hint`` (unless already
        known). Later expressions over a specialized symbol simplify to constants."""
        if not isinstance(value, SymInt):
            return operator.index(value)
        self.evaluate(SymBool(self, sympy.Eq(value.expr, value.hint), True), kind="specialize")
        return value.hint

    # -- static reasoning ------------------------------------------------------------------

    def _static(self, rel) -> bool | None:
        if not isinstance(rel, sympy.core.relational.Relational):
            raise TypeError(f"only comparisons of sizes can be decided, not {rel}")
        a, b = rel.lhs, rel.rhs
        if isinstance(rel, (sympy.Eq, sympy.Ne)):
            eq = self._static_eq(sympy.expand(a - b))
            return eq if eq is None or isinstance(rel, sympy.Eq) else not eq
        ge = _ge_form(rel)
        if self._static_ge(ge):
            return True
        if self._static_ge(-ge - 1):
            return False
        return None

    def _static_ge(self, e) -> bool:
        """Whether ``e >= 0`` is implied."""
        e = _normalize_ge(sympy.expand(e))
        if e.is_Number:
            return bool(e >= 0)
        if self._bound(e)[0] >= 0:
            return True
        free = e.free_symbols
        for f in self._facts()[0]:
            if f.free_symbols & free and self._bound(sympy.expand(e - f))[0] >= 0:
                return True
        return False

    def _static_eq(self, d) -> bool | None:
        """Whether ``d == 0`` is implied (True), excluded (False), or neither (None)."""
        if d.is_Number:
            return bool(d == 0)
        lo, hi = self._bound(d)
        if lo > 0 or hi < 0:
            return False
        _, eqs, nes = self._facts()
        for f in eqs:
            for diff in (sympy.expand(d - f), sympy.expand(d + f)):
                if diff.is_Number:
                    return diff == 0
        for f in nes:
            if sympy.expand(d - f) == 0 or sympy.expand(d + f) == 0:
                return False
        if self._static_ge(d - 1) or self._static_ge(-d - 1):
            return False
        if self._static_ge(d) and self._static_ge(-d):
            return True
        return None

    def _facts(self) -> tuple[list, list, list]:
        """The recorded guards, replacements applied, as ``f >= 0``, ``f == 0`` and
        ``f != 0`` expressions."""
        if self._facts_cache is not None and self._facts_cache[0] == self._version:
            return self._facts_cache[1:]
        ges: list = []
        eqs: list = []
        nes: list = []
        for g in self.guards:
            rel = self.replace(g.expr)
            if not isinstance(rel, sympy.core.relational.Relational) or any(
                sym in self._source_symbols for sym in rel.free_symbols
            ):
                continue
            if isinstance(rel, sympy.Eq):
                d = sympy.expand(rel.lhs - rel.rhs)
                eqs.append(d)
                ges += [_normalize_ge(d), _normalize_ge(-d)]
            elif isinstance(rel, sympy.Ne):
                nes.append(sympy.expand(rel.lhs - rel.rhs))
            else:
                ges.append(_normalize_ge(sympy.expand(_ge_form(rel))))
        ges = [f for f in ges if not f.is_Number]
        self._facts_cache = (self._version, ges, eqs, nes)
        return ges, eqs, nes

    # -- recording -----------------------------------------------------------------------

    def _add_guard(self, kind: str, rel, where: str | None = None) -> None:
        if rel in self._guard_exprs:
            return
        self._guard_exprs.add(rel)
        sources = tuple(dict.fromkeys(self._print_name(s) for s in _ordered_symbols(rel)))
        guard = ShapeGuard(kind, rel, self.format(rel, sources=True), self.format(rel), sources, where or self.where)
        self.guards.append(guard)
        if self.on_guard is not None:
            self.on_guard(guard)
        self._version += 1
        if not any(sym in self._source_symbols for sym in rel.free_symbols):
            self._refine(rel)

    def _refine(self, rel) -> None:
        """Narrow ranges and learn replacements from a guard just recorded."""
        if isinstance(rel, sympy.Eq):
            d = sympy.expand(rel.lhs - rel.rhs)
            lin = _linear(d, self._info)
            if lin is not None:  # a*s + b == 0: s is a constant
                symbol, a, b = lin
                value = Fraction(-b, a)
                if value.denominator == 1:
                    self._narrow(symbol, int(value), int(value))
                return
            target = _replaceable(d, self._info)
            if target is not None:
                self._set_replacement(*target)
            return
        if isinstance(rel, sympy.Ne):
            d = sympy.expand(rel.lhs - rel.rhs)
            lin = _linear(d, self._info)
            if lin is not None:
                symbol, a, b = lin
                excluded = Fraction(-b, a)
                info = self._info[symbol]
                if excluded == info.lo:
                    self._narrow(symbol, info.lo + 1, info.hi)
                elif excluded == info.hi:
                    self._narrow(symbol, info.lo, info.hi - 1)
            return
        lin = _linear(_normalize_ge(sympy.expand(_ge_form(rel))), self._info)
        if lin is not None:
            symbol, a, b = lin  # a*s + b >= 0
            info = self._info[symbol]
            if a > 0:
                self._narrow(symbol, max(info.lo, math.ceil(Fraction(-b, a))), info.hi)
            else:
                self._narrow(symbol, info.lo, min(info.hi, math.floor(Fraction(b, -a))))

    def _narrow(self, symbol, lo, hi) -> None:
        info = self._info[symbol]
        if (lo, hi) == (info.lo, info.hi):
            return
        if not lo <= info.hint <= hi:
            raise AssertionError(f"range [{lo}, {hi}] of {symbol} excludes its hint {info.hint}")
        info.lo, info.hi = lo, hi
        self._version += 1
        if lo == hi and symbol not in self._replacements:
            self._set_replacement(symbol, sympy.Integer(lo))

    def _set_replacement(self, symbol, value) -> None:
        value = self.replace(value)
        for s, v in self._replacements.items():
            self._replacements[s] = v.xreplace({symbol: value})
        self._replacements[symbol] = value
        self._version += 1
        if value.is_Symbol and value in self._info:  # the kept symbol inherits the range
            info, kept = self._info[symbol], self._info[value]
            self._narrow(value, max(info.lo, kept.lo), min(info.hi, kept.hi))

    # -- printing ------------------------------------------------------------------------

    def _print_name(self, symbol) -> str:
        source = self._source_symbols.get(symbol)
        if source is not None:
            return source
        info = self._info.get(symbol)
        if info is None:
            raise GuardPrintError(f"{symbol} is not a symbol of this environment")
        return info.sources[0]

    def format(self, expr, *, sources: bool = False, source_expr=None, builtin=None) -> str:
        """Python text for an expression or comparison: over symbol names (``2*s0``) or,
        with ``sources=True``, over source names (``2*L['x'].shape[0]``), each passed
        through ``source_expr`` (a mapping or a function) when given. ``builtin`` renames
        the builtins the text calls (``max``, ``min``)."""
        expr = self._as_expr(expr) if not isinstance(expr, sympy.Basic) else expr
        if sources or source_expr is not None:
            lookup = _lookup(source_expr)

            def name(s):
                text = lookup(self._print_name(s))
                return text if _POSTFIX.fullmatch(text) else f"({text})"
        else:

            def name(s):
                return self._source_symbols.get(s) or s.name

        return _Printer(name, builtin or (lambda n: n)).text(expr)

    def guard_expressions(self, source_expr=None, *, builtin: Callable[[str], str] | None = None) -> list[str]:
        """Every guard as a Python boolean expression, in the order recorded. Over source
        names by default (``L['x'].shape[0] >= 2``); ``source_expr`` (a mapping or a
        function from source name to Python text) rewrites each source, as the generated
        entry reads it (``x.shape[0]``); ``builtin`` renames ``max``/``min``. Integer
        division and remainder print as ``//`` and ``%``: the text needs no sympy."""
        return [self.format(g.expr, sources=True, source_expr=source_expr, builtin=builtin) for g in self.guards]

    def failing_guards(self, values: Mapping[str, int]) -> list[ShapeGuard]:
        """The guards that do not hold when each source has the value given (by source
        name): the slow path that explains a recompile. Evaluates the printed text; a
        guard that raises (``x // n`` with ``n == 0``) does not hold, as in the entry."""
        slots = {name: f"__v[{i}]" for i, name in enumerate(values)}
        scope = {"__builtins__": {"max": max, "min": min}, "__v": list(values.values())}
        failed = []
        for g, text in zip(self.guards, self.guard_expressions(slots)):
            try:
                ok = eval(text, scope)  # noqa: S307 - our own printed guard
            except ArithmeticError:
                ok = False
            if not ok:
                failed.append(g)
        return failed

    def format_guards(self) -> str:
        """The guards, one a line, for logs: ``2*L['x'].shape[0] >= 16  # 2*s0 >= 16``."""
        return "\n".join(f"{g.text}  # {g.symbolic}" + (f"  ({g.where})" if g.where else "") for g in self.guards)

    def __str__(self) -> str:
        table = ", ".join(f"{n}={h} <- {s}" for n, s, h in self.symbols_table())
        return f"ShapeEnv({table})\n{self.format_guards()}".rstrip()


# ============================================================================ helpers


def _int_end(x: Number, rounding) -> Number:
    return x if x in (_INF, -_INF) else int(rounding(x))


def _end_mul(a: Number, b: Number) -> Number:
    return 0 if a == 0 or b == 0 else a * b


def _interval_mul(x: tuple[Number, Number], y: tuple[Number, Number]) -> tuple[Number, Number]:
    corners = [_end_mul(a, b) for a in x for b in y]
    return min(corners), max(corners)


def _interval_pow(x: tuple[Number, Number], n: int) -> tuple[Number, Number]:
    lo, hi = x
    if n == 0:
        return 1, 1
    if n < 0:
        if lo <= 0 <= hi:
            return -_INF, _INF
        plo, phi = _interval_pow(x, -n)
        inv = [0 if abs(v) == _INF else Fraction(1) / Fraction(v) for v in (plo, phi)]
        return min(inv), max(inv)
    if n % 2 or lo >= 0:
        return lo**n, hi**n
    if hi <= 0:
        return hi**n, lo**n
    return 0, max(-lo, hi) ** n


def _ge_form(rel) -> sympy.Expr:
    """An inequality between integers as ``e >= 0``."""
    a, b = rel.lhs, rel.rhs
    if isinstance(rel, sympy.GreaterThan):
        return a - b
    if isinstance(rel, sympy.StrictGreaterThan):
        return a - b - 1
    if isinstance(rel, sympy.LessThan):
        return b - a
    if isinstance(rel, sympy.StrictLessThan):
        return b - a - 1
    raise TypeError(f"not an inequality: {rel}")


def _normalize_ge(e: sympy.Expr) -> sympy.Expr:
    """``e >= 0`` with the integer content divided out: ``2*s0 - 15 >= 0`` is ``s0 - 8 >= 0``
    (every term is integer-valued, so the constant rounds)."""
    if e.is_Number:
        return e
    k, rest = e.as_coeff_Add()
    coeffs = list(rest.as_coefficients_dict().values())
    if not k.is_Integer or not all(c.is_Integer for c in coeffs):
        return e
    g = math.gcd(*(int(c) for c in coeffs))
    if g <= 1:
        return e
    return sympy.expand(rest / g) + (int(k) // g)


def _linear(e: sympy.Expr, info: Mapping) -> tuple[sympy.Symbol, int, int] | None:
    """``e`` as ``a*s + b`` over one symbol of ``info``, with integer ``a != 0`` and ``b``."""
    free = e.free_symbols
    if len(free) != 1:
        return None
    (s,) = free
    if s not in info:
        return None
    b, dep = e.as_independent(s, as_Add=True)
    a, rest = dep.as_coeff_Mul()
    if rest != s or not a.is_Integer or not b.is_Integer or a == 0:
        return None
    return s, int(a), int(b)


def _replaceable(d: sympy.Expr, info: Mapping) -> tuple[sympy.Symbol, sympy.Expr] | None:
    """From ``d == 0``: the newest symbol with coefficient +-1 that appears nowhere else in
    ``d``, and what it equals."""
    if not d.free_symbols <= info.keys():
        return None
    order = {s: i for i, s in enumerate(info)}
    best = None
    for term in sympy.Add.make_args(d):
        c, s = term.as_coeff_Mul()
        if s in order and c in (1, -1) and s not in (d - term).free_symbols:
            if best is None or order[s] > order[best[0]]:
                best = (s, -(d - term) / c)
    if best is None:
        return None
    s, value = best
    return s, sympy.expand(value)


def _ordered_symbols(expr) -> list:
    return sorted(expr.free_symbols, key=lambda s: (s.name.startswith("_src"), len(s.name), s.name))


def _lookup(source_expr) -> Callable[[str], str]:
    if source_expr is None:
        return lambda name: name
    if isinstance(source_expr, Mapping):
        return source_expr.__getitem__
    return source_expr


# A source text that binds tighter than any operator: a name followed by [...] and .attr.
_POSTFIX = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(\[[^\[\]]*\]|\.[A-Za-z_][A-Za-z_0-9]*)*")

# Python's binding strengths, loosest first.
_CMP, _ADD, _MUL, _UNARY, _POW, _ATOM = range(6)


@functools.cache
def _rel_ops() -> dict:
    return {sympy.Eq: "==", sympy.Ne: "!=", sympy.Lt: "<", sympy.Le: "<=", sympy.Gt: ">", sympy.Ge: ">="}


class _Printer:
    """sympy -> exact Python integer arithmetic: ``floor(p/q)`` prints ``p // q`` and
    ``Mod(a, b)`` prints ``a % b`` (sympy's ``Mod`` takes the divisor's sign, as Python's ``%``
    does); a fraction anywhere else is a :class:`GuardPrintError`."""

    def __init__(self, name: Callable, builtin: Callable[[str], str]):
        self.name = name
        self.builtin = builtin

    def text(self, e) -> str:
        return self.p(e)[0]

    def wrap(self, e, min_prec: int) -> str:
        text, prec = self.p(e)
        return text if prec >= min_prec else f"({text})"

    def p(self, e) -> tuple[str, int]:
        if e is sympy.true or e is sympy.false:
            return str(bool(e)), _ATOM
        if e.is_Integer:
            return str(int(e)), _ATOM if e >= 0 else _UNARY
        if e.is_Symbol:
            return self.name(e), _ATOM
        if isinstance(e, sympy.core.relational.Relational):
            op = _rel_ops()[type(e)]
            return f"{self.wrap(e.lhs, _ADD)} {op} {self.wrap(e.rhs, _ADD)}", _CMP
        if e.is_Add:
            terms = e.as_ordered_terms()
            out = self.wrap(terms[0], _ADD)
            for t in terms[1:]:
                c, _ = t.as_coeff_Mul()
                out += f" - {self.wrap(-t, _MUL)}" if c < 0 else f" + {self.wrap(t, _MUL)}"
            return out, _ADD
        if e.is_Mul:
            c, rest = e.as_coeff_Mul()
            if not c.is_Integer:
                raise GuardPrintError(f"no integer form for {e}")
            factors = [self.wrap(f, _POW) for f in rest.as_ordered_factors()]
            body = "*".join(factors)
            if c == 1:
                return body, (_MUL if len(factors) > 1 else _POW)
            if c == -1:
                return f"-{body}", (_MUL if len(factors) > 1 else _UNARY)
            return f"{int(c)}*{body}", _MUL
        if e.is_Pow:
            if not (e.exp.is_Integer and e.exp > 0):
                raise GuardPrintError(f"no integer form for {e}")
            return f"{self.wrap(e.base, _ATOM)}**{int(e.exp)}", _POW
        if isinstance(e, (sympy.floor, sympy.ceiling)):
            num, den = sympy.fraction(sympy.together(e.args[0]))
            if isinstance(e, sympy.ceiling):  # ceil(p/q) == -((-p) // q)
                return f"-({self.wrap(sympy.expand(-num), _MUL)} // {self.wrap(den, _UNARY)})", _UNARY
            if den == 1:
                return self.p(num)
            return f"{self.wrap(num, _MUL)} // {self.wrap(den, _UNARY)}", _MUL
        if isinstance(e, sympy.Mod):
            return f"{self.wrap(e.args[0], _MUL)} % {self.wrap(e.args[1], _UNARY)}", _MUL
        if isinstance(e, (sympy.Max, sympy.Min)):
            fn = self.builtin("max" if isinstance(e, sympy.Max) else "min")
            args = sorted(e.args, key=sympy.default_sort_key)
            return f"{fn}({', '.join(self.text(a) for a in args)})", _ATOM
        raise GuardPrintError(f"cannot print {e} ({type(e).__name__}) as Python")
