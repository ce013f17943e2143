"""Guards: the facts a traced graph depends on, as Python expressions over sources.

The tracer installs a guard whenever it relies on something about a value from
outside the function: its type, its constant value, an array's dtype/rank/shape, a
container's length, the identity of a global function or module. A cached entry is
reused only while every guard still holds; they are compiled into the entry's
generated code (``entry_codegen.py``) in the order they were installed, so a call
that hits a cache entry pays a handful of comparisons; a guard that raises (an
attribute gone, an index out of range) counts as failed.

Objects a guard compares against (types, dtypes, functions) are bound by name in
the generated code's namespace (``generated("OBJ0")``...), never re-imported; the
builtins it calls (``type``, ``len``, ``tuple``) are too, under generated names, so a
parameter called ``type`` or ``OBJ0`` changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from compiler.dialects.guard_metadata import Guard as GuardRecord
from compiler.frontend.sources import Source, builtin_names, generated

_TYPE, _LEN, _TUPLE = generated("type"), generated("len"), generated("tuple")


@dataclass(frozen=True)
class Guard:
    kind: str
    source: Source
    expr: str  # over ``{src}`` placeholders already expanded: Python text
    text: str  # readable, for logs: over source names

    def record(self) -> GuardRecord:
        return GuardRecord(self.kind, self.text, (self.source.name(),))

    def __str__(self) -> str:
        return self.text


@dataclass
class GuardSet:
    """The guards of one trace, and the objects their code refers to."""

    guards: list[Guard] = field(default_factory=list)
    objects: dict[str, object] = field(default_factory=dict)  # OBJn -> object
    shape_env: object = None  # symbolic_shapes.ShapeEnv: its guards come after all others
    size_exprs: dict[str, str] = field(default_factory=dict)  # symbolic source name -> entry text
    _seen: set = field(default_factory=set)
    _ids: dict[int, str] = field(default_factory=dict)

    def _ref(self, obj) -> str:
        name = self._ids.get(id(obj))
        if name is None:
            name = self._ids[id(obj)] = generated(f"OBJ{len(self.objects)}")
            self.objects[name] = obj
        return name

    def _add(self, kind: str, source: Source, expr: str, text: str) -> None:
        if expr not in self._seen:
            self._seen.add(expr)
            self.guards.append(Guard(kind, source, expr, text))

    def type_match(self, source: Source, value) -> None:
        t = type(value)
        self._add(
            "type", source, f"{_TYPE}({source.expr()}) is {self._ref(t)}", f"type({source.name()}) is {t.__qualname__}"
        )

    def id_match(self, source: Source, value) -> None:
        self._add("id", source, f"{source.expr()} is {self._ref(value)}", f"{source.name()} is {_describe(value)}")

    def constant_match(self, source: Source, value) -> None:
        """Type and value: ``1``, ``1.0`` and ``True`` are equal but not the same constant."""
        self.type_match(source, value)
        if value is None or isinstance(value, bool):
            self._add("constant", source, f"{source.expr()} is {value!r}", f"{source.name()} is {value!r}")
        elif isinstance(value, float) and value != value:
            self._add("constant", source, f"{source.expr()} != {source.expr()}", f"{source.name()} is nan")
        else:
            self._add("constant", source, f"{source.expr()} == {self._ref(value)}", f"{source.name()} == {value!r}")

    def length_match(self, source: Source, value) -> None:
        self.type_match(source, value)
        self._add("length", source, f"{_LEN}({source.expr()}) == {len(value)}", f"len({source.name()}) == {len(value)}")

    def keys_match(self, source: Source, value: dict) -> None:
        self.type_match(source, value)
        keys = tuple(value.keys())
        self._add(
            "keys",
            source,
            f"{_TUPLE}({source.expr()}) == {self._ref(keys)}",
            f"list({source.name()}.keys()) == {list(keys)!r}",
        )

    def tensor_match(self, source: Source, array: np.ndarray, dynamic_axes=()) -> None:
        """Class, dtype, rank and sizes of an array (strides are the runtime's business:
        kernels are specialized on contiguity when called). The sizes of ``dynamic_axes``
        are symbolic: only the shape environment's guards say what they may be."""
        e = source.expr()
        shape = tuple(array.shape)
        if dynamic_axes:
            static = [f"{e}.shape[{i}] == {d}" for i, d in enumerate(shape) if i not in dynamic_axes]
            sizes = " and ".join([f"{e}.ndim == {len(shape)}", *static])
            shown = "(" + ", ".join("?" if i in dynamic_axes else str(d) for i, d in enumerate(shape)) + ")"
        else:
            sizes, shown = f"{e}.shape == {shape!r}", str(shape)
        self._add(
            "tensor",
            source,
            f"{_TYPE}({e}) is {self._ref(type(array))} and {e}.dtype is {self._ref(array.dtype)} and {sizes}",
            f"{source.name()}: {type(array).__name__}, dtype={array.dtype}, shape={shown}",
        )

    def writeable(self, source: Source, writeable: bool) -> None:
        """Whether the caller's array may be written (``a.flags.writeable``)."""
        e = source.expr()
        self._add(
            "writeable",
            source,
            f"{e}.flags.writeable" if writeable else f"not {e}.flags.writeable",
            f"{source.name()}.flags.writeable is {writeable}",
        )

    def overlap(self, written: Source, other: Source, shares: bool) -> None:
        """Whether a written array may share memory with another input (a bounds check)."""
        fn = self._ref(np.may_share_memory)
        expr = f"{fn}({written.expr()}, {other.expr()})"
        self._add(
            "overlap",
            written,
            expr if shares else f"not {expr}",
            f"{'' if shares else 'not '}np.may_share_memory({written.name()}, {other.name()})",
        )

    def layout_match(self, source: Source, array: np.ndarray) -> None:
        """The memory layout that decided whether a ``reshape`` of the array is a view:
        C-contiguous, or else exactly the traced strides."""
        if array.flags.c_contiguous and array.size:
            self._add("layout", source, f"{source.expr()}.flags.c_contiguous", f"{source.name()} is C-contiguous")
        else:
            self.strides_match(source, array)

    def strides_match(self, source: Source, array: np.ndarray) -> None:
        strides = tuple(array.strides)
        self._add(
            "layout", source, f"{source.expr()}.strides == {strides!r}", f"{source.name()}.strides == {strides!r}"
        )

    def ordered(self) -> list[Guard]:
        """In installation order: a container's guard comes before its elements' (``len(ops)
        == 2`` before ``ops[1] == 'inc'``), and a value's type before its value. The guards
        over symbolic sizes come last: they read sizes whose arrays are guarded first."""
        return list(self.guards) + self.shape_guards()

    def shape_guards(self) -> list[Guard]:
        """The shape environment's guards as entry guards: plain Python over the sizes'
        sources (``2*x.shape[0] >= 16``), no sympy at call time."""
        env = self.shape_env
        if env is None or not env.guards:
            return []
        exprs = env.guard_expressions(self.size_exprs.__getitem__, builtin=generated)
        return [
            Guard("symbolic", _SizeSource(self.size_exprs[g.sources[0]], g.sources[0]), expr, g.text)
            for g, expr in zip(env.guards, exprs)
        ]

    def records(self) -> list[GuardRecord]:
        return [g.record() for g in self.ordered()]


@dataclass(frozen=True)
class _SizeSource(Source):
    """A symbolic size or int as a source: what a recompile reports the new value of."""

    text: str
    source_name: str

    def expr(self) -> str:
        return self.text

    def name(self) -> str:
        return self.source_name


def _describe(value) -> str:
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    module = getattr(value, "__module__", None)
    if name:
        return f"{module}.{name}" if module and module != "builtins" else name
    return f"<{type(value).__name__} object>"


def failing_guards(guards: list[Guard], namespace: dict, local_values: dict) -> list[Guard]:
    """The guards that do not hold for a call (slow path: explains a recompile)."""
    failed = []
    scope = _scope(namespace, local_values)
    for g in guards:
        try:
            ok = eval(g.expr, scope)  # noqa: S307 - our own generated guard text
        except Exception:  # a guard that cannot even be evaluated does not hold
            ok = False
        if not ok:
            failed.append(g)
    return failed


def _scope(namespace: dict, local_values: dict) -> dict:
    """What a guard's text is evaluated in, off the entry: the generated builtins, the
    guard objects and globals, and the call's arguments."""
    return {**builtin_names(), **namespace, **local_values}


def now_value(guard: Guard, namespace: dict, local_values: dict) -> str:
    """What the guarded value is in this call, in the guard's own terms (an array's
    dtype and shape, else a short repr): the recompile log says what changed."""
    try:
        value = eval(guard.source.expr(), _scope(namespace, local_values))  # noqa: S307 - a source's own text
    except Exception:
        return "not readable"
    if isinstance(value, np.ndarray):
        return f"{type(value).__name__}, dtype={value.dtype}, shape={value.shape}"
    if guard.kind == "symbolic":  # a guard over sizes: which one, and its value now
        return f"{guard.source.name()} = {value!r}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
