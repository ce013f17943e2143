"""What one trace produces: the graph being built, its inputs, guards and effects.

The graph is an Ember function (``FunctionBuilder``) whose arguments are the arrays
the traced code read from outside — each with the source to fetch it again — and
whose results are the arrays the function's return value (and replayed side
effects) need. All traces share one MLIR context; tracing holds ``TRACE_LOCK``.
"""

from __future__ import annotations

import linecache
import re
import threading
from dataclasses import dataclass, field

import numpy as np

from compiler import logs
from compiler.dialects import ember
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import DYN, TensorType
from compiler.errors import Unsupported
from compiler.frontend import promotion
from compiler.frontend import variables as v
from compiler.frontend.dynamic_policy import DynamicPolicy
from compiler.frontend.guards import GuardSet
from compiler.frontend.sources import Source
from compiler.frontend.symbolic_shapes import ShapeEnv, SymInt
from compiler.mlir import ir, walk_ops

TRACE_LOCK = threading.RLock()
_context = None


def shared_context():
    global _context
    if _context is None:
        _context = ember.new_context()
    return _context


@dataclass
class GraphInput:
    source: Source
    type: TensorType
    example: np.ndarray
    scalar: bool = False  # a float argument: the entry passes it to the graph as a 0-d array
    sizes: tuple | None = None  # ints and SymInts, where some size is symbolic


@dataclass
class OutputGraph:
    name: str
    guards: GuardSet = field(default_factory=GuardSet)
    inputs: list[GraphInput] = field(default_factory=list)
    mutated: list = field(default_factory=list)  # sourced containers/objects changed by the code
    attribute_writes: list = field(default_factory=list)  # (object tracker, name, value tracker)
    global_writes: dict = field(default_factory=dict)  # name -> value tracker
    max_ops: int | None = None  # the size budget of this graph (None: no bound)
    policy: DynamicPolicy = field(default_factory=lambda: DynamicPolicy(None))

    def __post_init__(self):
        self.builder = FunctionBuilder(self.name, [], context=shared_context())
        self.shape_env = ShapeEnv()
        self.shape_env.on_guard = self._log_shape_guard
        self.shape_env.where = "the function's arguments"
        self.guards.shape_env = self.shape_env
        self._emitter = None
        self._by_source: dict[Source, v.TensorVariable] = {}
        self.input_bases: list = []  # mutation.ArrayBase of each input, in order
        self.loop_failures: dict = {}  # loop (code, offset) -> why it could not be traced as a loop
        self.loop_steps = 0  # FOR_ITERs run (loops.too_large_ahead tells innermost loops by it)

    @property
    def emitter(self):
        """NumPy semantics over this graph's builder (made on first use)."""
        if self._emitter is None:
            from compiler.frontend.numpy_semantics import Emitter

            self._emitter = Emitter(self.builder, self.shape_env)
        return self._emitter

    def _argument(self, source: Source, example: np.ndarray, scalar: bool = False, sizes=None):
        """(the new graph argument for ``source``, its GraphInput); ``sizes``: the array's
        sizes as ints and SymInts (``?`` in the type), when some are symbolic."""
        try:
            t = TensorType.of_array(example)
            promotion.ember_dtype(example.dtype)  # float16 without F16C
        except (TypeError, NotImplementedError):  # the guards already pin the dtype: this entry runs in CPython
            raise Unsupported(
                f"an array of dtype {example.dtype} ({source.name()})", hint="Ember does not compile that dtype yet"
            ) from None
        if sizes is not None:
            t = t.with_shape(tuple(DYN if isinstance(d, SymInt) else d for d in sizes))
        graph_input = GraphInput(source, t, example, scalar, sizes)
        self.inputs.append(graph_input)
        return self.builder.add_argument(t), graph_input

    def add_scalar_input(self, source: Source, value) -> v.TensorVariable:
        """A float argument as a 0-d input (``scalar_inputs.py``)."""
        from compiler.frontend.numpy_semantics import Tensor
        from compiler.frontend.scalar_inputs import ScalarVariable, weak_dtype

        known = self._by_source.get(source)
        if known is not None:
            return known
        arg, graph_input = self._argument(source, np.asarray(value, dtype=weak_dtype(value)), scalar=True)
        tensor = Tensor(arg, graph_input.type, scalar=True, weak=type(value) is float)
        tracker = self._by_source[source] = ScalarVariable(tensor, source, value, guards=self.guards)
        return tracker

    def add_input(self, source: Source, array: np.ndarray) -> v.TensorVariable:
        """An array argument: its class, dtype, rank and static sizes guarded; the sizes the
        policy makes dynamic are symbols of the shape environment (``L['x'].shape[0]``)."""
        known = self._by_source.get(source)
        if known is not None:
            return known
        from compiler.frontend.mutation import ArrayBase
        from compiler.frontend.numpy_semantics import Tensor

        sizes = self._input_sizes(source, array)
        self.guards.tensor_match(source, array, [i for i, d in enumerate(sizes) if isinstance(d, SymInt)])
        symbolic = any(isinstance(d, SymInt) for d in sizes)
        arg, graph_input = self._argument(source, array, sizes=sizes if symbolic else None)
        tensor = Tensor(arg, graph_input.type)
        if symbolic:
            self.emitter.declare_input(tensor, sizes, lambda axis: self.builder.dim(arg, axis))
        tracker = self._by_source[source] = v.TensorVariable(tensor, source)
        tracker.base = ArrayBase(self, tracker.tensor, tracker, graph_input)
        for written in self.input_bases:
            if written.mutated:
                self._check_overlap(written, tracker.base)
        self.input_bases.append(tracker.base)
        return tracker

    def _input_sizes(self, source: Source, array: np.ndarray) -> tuple:
        axes, why = self.policy.dynamic_axes(source.name(), array)
        sizes = []
        for axis, size in enumerate(array.shape):
            if axis not in axes:
                sizes.append(int(size))
                continue
            name = f"{source.name()}.shape[{axis}]"
            self.guards.size_exprs[name] = f"{source.expr()}.shape[{axis}]"
            sizes.append(self.shape_env.create_size(name, int(size)))
            self._log_size(name, sizes[-1], why)
        return tuple(sizes)

    def add_int_input(self, source: Source, value: int):
        """A symbolic int argument's value as an ``index`` of the graph: a 0-d int64 input
        (guarded to fit one) read by ``ember.to_index``."""
        env = self.shape_env
        sym = env.create_int(source.name(), value)
        env.evaluate(sym >= -(2**63))
        env.evaluate(sym < 2**63)
        arg, _ = self._argument(source, np.asarray(value, dtype=np.int64), scalar=True)
        return self.builder.to_index(arg)

    def symbolic_int(self, source: Source, value: int) -> v.VariableTracker:
        """An int argument the policy makes dynamic: a SymIntVariable (0 and 1 specialized)."""
        name = source.name()
        self.guards.size_exprs[name] = source.expr()
        sym = self.shape_env.create_int(name, value)
        if not isinstance(sym, SymInt):
            return v.ConstantVariable(value, source)
        why = "dynamic=True" if self.policy.mode else "automatic dynamic: its value changed between calls"
        self._log_size(name, sym, why)
        self.emitter.bind_symbol(sym.expr, lambda: self.add_int_input(source, value))
        return v.SymIntVariable(sym, source)

    def _log_size(self, name: str, size, why: str) -> None:
        if not logs.enabled("dynamic"):
            return
        if isinstance(size, SymInt):
            logs.log(
                "dynamic", "create_symbol %s = %d for %s (%s)", self.shape_env.format(size.expr), size.hint, name, why
            )
        else:
            logs.log("dynamic", "%s = %d specialized: sizes 0 and 1 are never symbolic", name, size)

    def _log_shape_guard(self, guard) -> None:
        if logs.enabled("dynamic"):
            verb = "specialized" if guard.kind == "specialize" else "guard added"
            logs.log("dynamic", "eval %s [%s] at %s", guard.symbolic, verb, guard.where or "?")

    def note_written(self, base) -> None:
        """The graph writes the caller's array of ``base``: it must be writeable and share
        no memory with any other input (the graph treats inputs as distinct values);
        otherwise the call runs in CPython (which raises NumPy's error, or aliases)."""
        graph_input = base.graph_input
        writeable = bool(graph_input.example.flags.writeable)
        self.guards.writeable(graph_input.source, writeable)
        if not writeable:
            raise Unsupported(
                f"writing into the read-only array {graph_input.source.name()}",
                hint="NumPy raises ValueError: the call runs in CPython",
            )
        for other in self.input_bases:
            if other is not base:
                self._check_overlap(base, other)

    def _check_overlap(self, written, other) -> None:
        a, b = written.graph_input, other.graph_input
        shares = bool(np.may_share_memory(a.example, b.example))
        self.guards.overlap(a.source, b.source, shares)
        if shares:
            raise Unsupported(
                f"the written array {a.source.name()} may share memory with {b.source.name()}",
                hint="the graph treats its inputs as distinct arrays: the call runs in CPython",
            )

    @property
    def written_sources(self) -> list[str]:
        return [b.graph_input.source.name() for b in self.input_bases if b.mutated]

    def input_index(self, tracker: v.TensorVariable) -> int | None:
        """Which graph input ``tracker`` *is* (``return x`` gives the caller's own array
        back). A different tracker of the same value — ``x.astype(x.dtype)``, which
        NumPy copies — is not the input: it becomes a graph output, a fresh array."""
        for i, graph_input in enumerate(self.inputs):
            if self._by_source.get(graph_input.source) is tracker:
                return i
        return None

    def before_side_effect(self, base=None) -> None:
        """A side effect the caller can see is about to be traced (``base``: the
        ``mutation.ArrayBase`` an array write goes to). After a fallible op (``np.linalg``:
        the entry raises LinAlgError once the graph ran) it must not be in this graph:
        NumPy raises before it happens. A graph break before it keeps that order; a
        write into an array made after the op is invisible if the op fails, and stays."""
        checks = self._emitter.status_checks if self._emitter is not None else []
        if not checks:
            return
        if base is not None and base.graph_input is None:
            owner = base.original.value.owner
            last = checks[-1][0].value.owner
            owner = getattr(owner, "operation", owner)
            last = getattr(last, "operation", last)
            if isinstance(owner, ir.Operation) and owner != last and last.is_before_in_block(owner):
                return
        raise Unsupported(
            "a side effect after a np.linalg call that may raise LinAlgError",
            hint="the graph ends before it, so that the error leaves the caller's objects as NumPy does",
        )

    def status_lines(self, plan) -> list[str]:
        """The entry's checks of the fallible ops' statuses (graph outputs through ``plan``)."""
        checks = self._emitter.status_checks if self._emitter is not None else []
        lines = []
        for status, message in checks:
            value = plan.expr(v.TensorVariable(status))
            error = plan.ref(np.linalg.LinAlgError)
            lines.append(f"    if {value}:\n        raise {error}({message!r})")
        return lines

    def op_count(self) -> int:
        return sum(1 for _ in walk_ops(self.builder.func)) - 1  # every op, in loop bodies too; not the func


_LOC = re.compile(r'loc\("(?P<file>[^"]+)":(?P<line>\d+):\d+\)')


def format_graph(module, inputs: list[GraphInput]) -> str:
    """The traced graph for the ``graph_code`` log: one line per op, with the source
    line that produced it (``# mse.py:4  z = (x - y) ** 2``); a loop's body indented."""
    fn = module.body.operations[0]
    block = fn.regions[0].blocks[0]
    names = {}
    lines = []
    for i, (arg, graph_input) in enumerate(zip(block.arguments, inputs)):
        names[arg] = f"%arg{i}"
        lines.append(f"  %arg{i}: {arg.type}  <- {graph_input.source.name()}")
    _format_block(block, names, lines, "  ", [0])
    return "\n".join(lines)


def _format_block(block, names: dict, lines: list, indent: str, counter: list) -> None:
    def name(value) -> str:
        if value not in names:
            names[value] = f"%{counter[0]}"
            counter[0] += 1
        return names[value]

    for op in block.operations:
        op = op.operation
        operands = ", ".join(names.get(o, "?") for o in op.operands)
        if op.name in ("func.return", "scf.yield"):
            lines.append(f"{indent}{op.name.split('.')[1]} {operands}")
            continue
        results = [name(r) for r in op.results]
        attrs = {key: str(op.attributes[key]) for key in op.attributes}
        attr_text = " {" + ", ".join(f"{k}={v}" for k, v in attrs.items()) + "}" if attrs else ""
        types = ", ".join(str(r.type) for r in op.results)
        text = f"{indent}{', '.join(results)} = {op.name}({operands}){attr_text} : {types}"
        lines.append(f"{text:<72}{_source_comment(op.location)}")
        for region in op.regions:
            for inner in region.blocks:
                args = ", ".join(name(a) for a in inner.arguments)
                lines.append(f"{indent}  ^({args}):")
                _format_block(inner, names, lines, indent + "    ", counter)


def _source_comment(location) -> str:
    m = _LOC.search(str(location))
    if not m:
        return ""
    line = int(m["line"])
    code = linecache.getline(m["file"], line).strip()
    return f"  # {m['file'].rsplit('/', 1)[-1]}:{line}  {code}"
