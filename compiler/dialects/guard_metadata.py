"""Guard metadata: what makes an Ember function self-describing.

A graph traced by the frontend is only valid under the guards installed while
tracing. Those guards travel *inside* the module, on the ``func.func`` of the graph,
so that a cached artifact can be checked (and its guard function rebuilt) without
re-tracing. The format uses builtin attributes only, so any MLIR tool prints and
parses it:

``ember.guards`` — an array, one dictionary per guard::

    {kind = "tensor_match", expr = "L['x'].dtype == np.float32 and L['x'].ndim == 2",
     sources = ["L['x']"]}

  * ``kind``: the guard family (``type``, ``constant``, ``tensor_match``, ``length``,
    ``global``, ``closure``, ``symbolic``, ...);
  * ``expr``: a Python boolean expression over the sources, the text the guard
    function evaluates;
  * ``sources``: the frontend *sources* the expression reads (``L['x']`` is the local
    ``x``, ``G['scale']`` a global, ``L['x'].shape[0]`` a size).

``ember.symbols`` — an array, one dictionary per symbolic size::

    {name = "s0", source = "L['x'].shape[0]", hint = 128 : i64}

  ``hint`` is the value seen when tracing; every ``?`` size of the function's
  argument types is bound to exactly one symbol through its source.

``ember.written`` — an array of strings (only when non-empty): the sources of the
inputs the graph writes (in-place NumPy); the entry writes the graph's extra outputs
back into those arrays.

``ember.source`` — a string on each function argument (argument attributes): the
source the runtime reads to pass that argument.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.mlir import ir


@dataclass(frozen=True)
class Guard:
    kind: str
    expr: str
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class Symbol:
    name: str
    source: str
    hint: int


@dataclass
class GuardMetadata:
    guards: list[Guard] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    arg_sources: list[str | None] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # sources of the inputs the graph writes

    def attach(self, func_op) -> None:
        """Store the metadata as attributes of ``func_op`` (a ``func.func``)."""
        func_op.attributes["ember.guards"] = ir.ArrayAttr.get([_guard_attr(g) for g in self.guards])
        func_op.attributes["ember.symbols"] = ir.ArrayAttr.get([_symbol_attr(s) for s in self.symbols])
        if self.written:
            func_op.attributes["ember.written"] = ir.ArrayAttr.get([_str(s) for s in self.written])
        if self.arg_sources:
            func_op.attributes["arg_attrs"] = ir.ArrayAttr.get(
                [ir.DictAttr.get({} if s is None else {"ember.source": ir.StringAttr.get(s)}) for s in self.arg_sources]
            )

    @staticmethod
    def read(func_op) -> "GuardMetadata":
        """The metadata stored on ``func_op``; empty lists where there is none."""
        attrs = func_op.attributes
        guards = [_read_guard(a) for a in _array(attrs, "ember.guards")]
        symbols = [_read_symbol(a) for a in _array(attrs, "ember.symbols")]
        sources = [_read_source(a) for a in _array(attrs, "arg_attrs")]
        written = [ir.StringAttr(a).value for a in _array(attrs, "ember.written")]
        return GuardMetadata(guards, symbols, sources, written)


def _array(attrs, name):
    return list(ir.ArrayAttr(attrs[name])) if name in attrs else []


def _str(s: str) -> ir.Attribute:
    return ir.StringAttr.get(s)


def _guard_attr(g: Guard) -> ir.Attribute:
    return ir.DictAttr.get(
        {
            "kind": _str(g.kind),
            "expr": _str(g.expr),
            "sources": ir.ArrayAttr.get([_str(s) for s in g.sources]),
        }
    )


def _symbol_attr(s: Symbol) -> ir.Attribute:
    return ir.DictAttr.get(
        {
            "name": _str(s.name),
            "source": _str(s.source),
            "hint": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), s.hint),
        }
    )


def _read_guard(a) -> Guard:
    d = ir.DictAttr(a)
    sources = tuple(ir.StringAttr(s).value for s in ir.ArrayAttr(d["sources"]))
    return Guard(ir.StringAttr(d["kind"]).value, ir.StringAttr(d["expr"]).value, sources)


def _read_symbol(a) -> Symbol:
    d = ir.DictAttr(a)
    return Symbol(ir.StringAttr(d["name"]).value, ir.StringAttr(d["source"]).value, ir.IntegerAttr(d["hint"]).value)


def _read_source(a) -> str | None:
    d = ir.DictAttr(a)
    return ir.StringAttr(d["ember.source"]).value if "ember.source" in d else None
