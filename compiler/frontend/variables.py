"""Variable trackers: what the tracer knows about each value on its stack.

One class per kind of value. A tracker knows how to answer the operations the
bytecode applies to it (attribute reads, calls, iteration, item access) at trace
time, either by computing a constant, by emitting graph ops (arrays), or by raising
``Unsupported`` (the call then runs in CPython). Trackers for values that came from
outside the function keep their *source*, from which guards and the generated entry
code fetch them again.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from compiler.errors import Unsupported
from compiler.frontend.sources import Source

CONSTANT_TYPES = (int, float, bool, str, type(None), bytes, complex, type(Ellipsis), type(NotImplemented))


class VariableTracker:
    source: Source | None = None

    def python_type(self) -> type:
        raise Unsupported(f"type() of {self}")

    def is_constant(self) -> bool:
        return False

    def as_constant(self):
        raise Unsupported(f"{self} is not a constant known while tracing")

    def getattr(self, tx, name: str) -> "VariableTracker":
        raise Unsupported(f"attribute {name!r} of {self}")

    def call(self, tx, args: list, kwargs: dict) -> "VariableTracker":
        raise Unsupported(f"calling {self}")

    def iterate(self, tx) -> list["VariableTracker"]:
        raise Unsupported(f"iterating over {self}")

    def truth(self, tx) -> bool:
        raise Unsupported(f"the truth value of {self}", hint="control flow that depends on array data is a graph break")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __str__(self) -> str:
        """What the value is, in the user's words: error messages and break reasons
        quote trackers, and a tracker's class name means nothing to the user."""
        return describe(self)


def _attribute(value, name: str):
    """``getattr(value, name)``; its AttributeError is the user's, raised again by CPython."""
    try:
        return getattr(value, name)
    except AttributeError as e:
        raise UserError(e) from None


def describe(tracker) -> str:
    """``an array of float64 with shape (4,)``, ``a list``, ``the function f``..."""
    value = getattr(tracker, "value", None)
    if isinstance(tracker, TensorVariable):
        t = tracker.tensor.type
        return f"an array of {t.numpy_dtype} with shape {tuple('?' if d is None else d for d in t.shape)}"
    if isinstance(tracker, SymIntVariable):
        return f"the symbolic int {tracker.value}"
    if isinstance(tracker, ConstantVariable):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    if isinstance(tracker, UserObjectVariable):
        return f"an instance of {type(value).__qualname__}"
    named = {
        PythonFunctionVariable: ("the function", "fn"),
        BuiltinVariable: ("the builtin", "fn"),
        ClassVariable: ("the class", "cls"),
        ModuleVariable: ("the module", "module"),
    }
    for cls, (what, attr) in named.items():
        if isinstance(tracker, cls):
            obj = getattr(tracker, attr)
            return f"{what} {getattr(obj, '__qualname__', None) or getattr(obj, '__name__', '?')}"
    kind = type(tracker).__name__.removesuffix("Variable")
    words = "".join(f" {c.lower()}" if c.isupper() else c for c in kind).strip()
    return f"{'an' if words[:1] in 'aeiou' else 'a'} {words}"


@dataclass(repr=False)
class OpaqueCallableVariable(VariableTracker):
    """A C function or bound method Ember cannot trace (``np.random.rand``): guarded by
    identity, and calling it is a graph break (the entry makes the call)."""

    fn: Any
    source: Any = None

    def call(self, tx, args, kwargs):
        name = getattr(self.fn, "__qualname__", None) or getattr(self.fn, "__name__", "a function")
        raise Unsupported(f"`{name}` is a call Ember runs in Python")


@dataclass(repr=False)
class ConstantVariable(VariableTracker):
    value: Any
    source: Source | None = None

    def python_type(self):
        return type(self.value)

    def is_constant(self):
        return True

    def as_constant(self):
        return self.value

    def truth(self, tx):
        return bool(self.value)

    def getattr(self, tx, name):
        attr = _attribute(self.value, name)
        if callable(attr):
            return BoundBuiltinVariable(attr)
        return ConstantVariable(attr)

    def iterate(self, tx):
        if isinstance(self.value, (str, bytes, tuple)):
            return [ConstantVariable(v) for v in self.value]
        return super().iterate(tx)

    def __repr__(self):
        return f"ConstantVariable({self.value!r})"


class UserError(Exception):
    """An exception the user's own code raises while being traced (e.g. a bad attribute):
    the call falls back to CPython, which raises it again, unchanged."""

    def __init__(self, error: BaseException):
        super().__init__(repr(error))
        self.error = error


class TensorVariable(VariableTracker):
    """An array in the graph: an SSA value of the traced function, and its type.

    In-place NumPy (``mutation.py``): an array that may share memory with others has a
    *base* and the view *steps* from it; when the base is written (its *version*
    changes), ``tensor`` re-derives this array's value from the base's new value."""

    def __init__(self, tensor: Any, source: Source | None = None):
        self._tensor = tensor  # numpy_semantics.Tensor
        self.source = source
        self.base = None  # mutation.ArrayBase, once memory may be shared or written
        self.steps = ()  # view steps from the base (None: a view the tracer cannot follow)
        self.version = 0  # the base version ``_tensor`` was derived at
        self.deps = ()  # input bases whose layout decided whether a reshape copied

    @property
    def tensor(self):
        base = self.base
        if base is not None and self.version != base.version:
            self._tensor = base.derive(self)
            self.version = base.version
        return self._tensor

    def python_type(self):
        return np.ndarray

    def getattr(self, tx, name):
        return tx.array_attribute(self, name)

    def truth(self, tx):
        raise Unsupported("a branch on array data", hint="control flow that depends on array data is a graph break")

    def iterate(self, tx):
        t = self.tensor
        if t.type.rank == 0:
            raise UserError(TypeError("iteration over a 0-d array"))
        size = tx.output.emitter.shape(t)[0]
        count = size.env.specialize(size) if not isinstance(size, int) else size  # unrolled: one per row
        return [tx.emit("getitem", self, ConstantVariable(i)) for i in range(count)]

    def __repr__(self):
        return f"TensorVariable({self.tensor.type})"


class MaskedVariable(VariableTracker):
    """``x[mask]`` with a traced boolean mask (``numpy_indexing.Masked``): its size depends
    on the data, so it stays lazy; reductions, ``len``, ``.size``, elementwise arithmetic
    and ``y[mask] = ...`` compile, any other use is a graph break saying why."""

    METHODS = ("sum", "mean", "max", "min", "prod", "any", "all", "astype")

    def __init__(self, masked: Any):
        self.masked = masked

    def python_type(self):
        return np.ndarray

    def getattr(self, tx, name):
        if name in self.METHODS:
            return NumpyCallableVariable(name, self)
        if name in ("size", "ndim", "dtype"):
            return tx.emit(name, self)
        raise Unsupported(
            f"x[mask].{name}: the boolean-mask result's size depends on the data "
            "(reductions, len(), .size and x[mask] = ... compile)"
        )

    def truth(self, tx):
        raise Unsupported("a branch on array data", hint="control flow that depends on array data is a graph break")

    def iterate(self, tx):
        raise Unsupported("iterating over x[mask]: its size depends on the data")

    def __repr__(self):
        return f"MaskedVariable({self.masked.full.type}[{self.masked.mask.type}])"


class SymIntVariable(VariableTracker):
    """An int the trace keeps symbolic: an array's size (``x.shape[0]``, ``len(x)``), an int
    argument made dynamic, and arithmetic on them (``symbolic_shapes.SymInt``). Arithmetic
    and comparisons go to the shape environment (a comparison installs the guard it
    relied on); any other use needs the value, which specializes it: guarded equal to
    this call's value, a constant from then on."""

    def __init__(self, value, source: Source | None = None):
        self.value = value  # a SymInt
        self.source = source

    def python_type(self):
        return int

    def is_constant(self):
        return True  # available as a constant, at the price of a guard

    def as_constant(self):
        return self.value.env.specialize(self.value)

    def truth(self, tx):
        return self.value.env.evaluate(self.value != 0)

    def getattr(self, tx, name):
        return ConstantVariable(self.as_constant()).getattr(tx, name)

    def __repr__(self):
        return f"SymIntVariable({self.value!r})"


def sym_or_constant(value, source: Source | None = None) -> VariableTracker:
    """A tracker for an int or SymInt result: constant once the environment knows its value."""
    from compiler.frontend.symbolic_shapes import SymInt

    if isinstance(value, SymInt):
        value = value.env.normalize(value)
        if isinstance(value, SymInt):
            return SymIntVariable(value, source)
    return ConstantVariable(value, source)


@dataclass(repr=False)
class BaseListVariable(VariableTracker):
    items: list
    source: Source | None = None
    mutated: bool = False

    def is_constant(self):
        return all(i.is_constant() for i in self.items)

    def as_constant(self):
        return self.python_type()(i.as_constant() for i in self.items)

    def iterate(self, tx):
        return list(self.items)

    def truth(self, tx):
        return bool(self.items)

    def __repr__(self):
        return f"{type(self).__name__}({self.items!r})"


class TupleVariable(BaseListVariable):
    def python_type(self):
        return tuple


@dataclass(repr=False)
class NamedTupleVariable(TupleVariable):
    """A named tuple a NumPy function returns (``np.linalg.eigh``'s ``EighResult``)."""

    cls: type = tuple

    def python_type(self):
        return self.cls

    def getattr(self, tx, name):
        if name in self.cls._fields:
            return self.items[self.cls._fields.index(name)]
        raise Unsupported(f"attribute {name!r} of {self.cls.__name__}")


class ListVariable(BaseListVariable):
    def python_type(self):
        return list

    def getattr(self, tx, name):
        if name in LIST_METHODS:
            return ListMethodVariable(self, name)
        raise Unsupported(f"list method {name!r}")


LIST_METHODS = ("append", "extend", "insert", "pop", "index", "count", "reverse", "clear", "copy")


@dataclass(repr=False)
class ListMethodVariable(VariableTracker):
    target: ListVariable
    name: str

    def call(self, tx, args, kwargs):
        items = self.target.items
        if kwargs:
            raise Unsupported(f"keyword arguments to list.{self.name}")
        if self.name in ("append", "extend", "insert", "pop", "reverse", "clear"):
            tx.mark_mutated(self.target)
        if self.name == "append":
            items.append(args[0])
        elif self.name == "extend":
            items.extend(args[0].iterate(tx))
        elif self.name == "insert":
            items.insert(args[0].as_constant(), args[1])
        elif self.name == "pop":
            index = args[0].as_constant() if args else -1
            if not items:
                raise UserError(IndexError("pop from empty list"))
            return items.pop(index)
        elif self.name == "reverse":
            items.reverse()
        elif self.name == "clear":
            items.clear()
        elif self.name == "copy":
            return ListVariable(list(items))
        else:
            values = [i.as_constant() for i in items]
            return ConstantVariable(getattr(values, self.name)(*[a.as_constant() for a in args]))
        return ConstantVariable(None)


@dataclass(repr=False)
class DictVariable(VariableTracker):
    items: dict  # constant key -> tracker
    source: Source | None = None
    mutated: bool = False

    def python_type(self):
        return dict

    def iterate(self, tx):
        return [ConstantVariable(k) for k in self.items]

    def truth(self, tx):
        return bool(self.items)

    def is_constant(self):
        return all(v.is_constant() for v in self.items.values())

    def as_constant(self):
        return {k: v.as_constant() for k, v in self.items.items()}

    def getattr(self, tx, name):
        if name in ("keys", "values", "items", "get", "update", "pop", "setdefault", "copy"):
            return DictMethodVariable(self, name)
        raise Unsupported(f"dict method {name!r}")


@dataclass(repr=False)
class DictMethodVariable(VariableTracker):
    target: DictVariable
    name: str

    def call(self, tx, args, kwargs):
        d = self.target.items
        if self.name == "keys":
            return ListIteratorSource([ConstantVariable(k) for k in d])
        if self.name == "values":
            return ListIteratorSource(list(d.values()))
        if self.name == "items":
            return ListIteratorSource([TupleVariable([ConstantVariable(k), v]) for k, v in d.items()])
        if self.name == "get":
            key = args[0].as_constant()
            return d.get(key, args[1] if len(args) > 1 else ConstantVariable(None))
        if self.name == "copy":
            return DictVariable(dict(d))
        tx.mark_mutated(self.target)
        if self.name == "update":
            other = args[0] if args else DictVariable({})
            if not isinstance(other, DictVariable):
                raise Unsupported("dict.update with a non-dict")
            d.update(other.items)
            d.update({k: v for k, v in kwargs.items()})
            return ConstantVariable(None)
        if self.name == "pop":
            key = args[0].as_constant()
            if key in d:
                return d.pop(key)
            if len(args) > 1:
                return args[1]
            raise UserError(KeyError(key))
        key = args[0].as_constant()  # setdefault
        return d.setdefault(key, args[1] if len(args) > 1 else ConstantVariable(None))


@dataclass(repr=False)
class ListIteratorSource(VariableTracker):
    """A finite sequence produced while tracing (range, zip, enumerate, dict views)."""

    items: Sequence  # a list, or a range's RangeItems
    range: range | None = None  # what range() made (a loop over it may be traced as a loop)

    def iterate(self, tx):
        return list(self.items)


class RangeItems(Sequence):
    """A range's items as trackers, each made when read: a loop over ``range(2000)``
    reads one per iteration, or none where it is traced as a loop (making them all
    first was 0.7 ms of such a trace)."""

    def __init__(self, r: range):
        self.range = r

    def __len__(self) -> int:
        return len(self.range)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [ConstantVariable(x) for x in self.range[i]]
        return ConstantVariable(self.range[i])


@dataclass(repr=False)
class IteratorVariable(VariableTracker):
    """The iterator ``GET_ITER`` makes: items materialized, consumed by ``FOR_ITER``."""

    items: Sequence
    index: int = 0
    range: range | None = None
    make: Any = None  # item i of an array's rows, made when reached (range: the rows' indices)
    marks: list = field(default_factory=list)  # (graph ops, loop steps) as its first iterations began

    def next(self):
        if self.make is not None:
            if self.index >= len(self.range):
                return None
            self.index += 1
            return self.make(self.index - 1)
        if self.index >= len(self.items):
            return None
        self.index += 1
        return self.items[self.index - 1]


@dataclass(repr=False)
class NullVariable(VariableTracker):
    """The NULL a call's stack holds where it has no ``self`` (``PUSH_NULL``, ``LOAD_GLOBAL``
    and, from 3.12, ``LOAD_ATTR`` with their NULL bit): below the callable in 3.11 and 3.12,
    above it in 3.13 (``bytecode_versions.py``). From 3.12 also what ``LOAD_FAST_AND_CLEAR``
    saves for an unbound variable."""


@dataclass(repr=False)
class CellVariable(VariableTracker):
    """A cell created inside the traced code (``MAKE_CELL``), holding a tracker."""

    contents: VariableTracker | None = None


@dataclass(repr=False)
class SliceVariable(VariableTracker):
    start: VariableTracker
    stop: VariableTracker
    step: VariableTracker

    def is_constant(self):
        return all(v.is_constant() for v in (self.start, self.stop, self.step))

    def as_constant(self):
        return slice(self.start.as_constant(), self.stop.as_constant(), self.step.as_constant())


@dataclass(repr=False)
class BoundBuiltinVariable(VariableTracker):
    """A method of a constant (``"a,b".split``): called on constants only."""

    fn: Any

    def call(self, tx, args, kwargs):
        try:
            result = self.fn(*[a.as_constant() for a in args], **{k: v.as_constant() for k, v in kwargs.items()})
        except Exception as e:  # the user's own error: CPython will raise it again
            raise UserError(e) from None
        return wrap_constant(result)


def wrap_constant(value) -> VariableTracker:
    """A tracker for a value computed at trace time from constants."""
    if isinstance(value, CONSTANT_TYPES) or isinstance(value, (np.generic, np.dtype)):
        return ConstantVariable(value)  # ``x.dtype`` is a constant of the trace too
    if isinstance(value, tuple):
        return TupleVariable([wrap_constant(v) for v in value])
    if isinstance(value, list):
        return ListVariable([wrap_constant(v) for v in value])
    if isinstance(value, dict):
        return DictVariable({k: wrap_constant(v) for k, v in value.items()})
    if isinstance(value, slice):
        return ConstantVariable(value)
    raise Unsupported(f"a value of type {type(value).__name__} computed while tracing")


BINARY_OPERATORS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "@": operator.matmul,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
}
COMPARE_OPERATORS = {
    "<": operator.lt,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    ">=": operator.ge,
}


@dataclass(repr=False)
class PythonFunctionVariable(VariableTracker):
    """A user-defined Python function, inlined when called."""

    fn: Any
    source: Source | None = None
    self_var: VariableTracker | None = None  # bound methods

    def python_type(self):
        return type(self.fn)

    def call(self, tx, args, kwargs):
        if self.self_var is not None:
            args = [self.self_var] + list(args)
        return tx.inline_call(self.fn, args, kwargs, self.source)

    def getattr(self, tx, name):
        if name in ("__name__", "__qualname__", "__doc__"):
            return ConstantVariable(getattr(self.fn, name))
        raise Unsupported(f"attribute {name!r} of a function")


@dataclass(repr=False)
class NestedFunctionVariable(VariableTracker):
    """A function made by ``MAKE_FUNCTION`` inside the traced code."""

    code: Any
    globals: dict
    name: str
    defaults: tuple = ()
    kwdefaults: dict = field(default_factory=dict)
    closure: tuple = ()  # CellVariable / sourced cell trackers

    def call(self, tx, args, kwargs):
        return tx.inline_code(
            self.code, self.globals, self.name, args, kwargs, self.defaults, self.kwdefaults, self.closure, None
        )


@dataclass(repr=False)
class PartialVariable(VariableTracker):
    fn: VariableTracker
    args: list
    kwargs: dict

    def call(self, tx, args, kwargs):
        return self.fn.call(tx, list(self.args) + list(args), {**self.kwargs, **kwargs})


@dataclass(repr=False)
class UserObjectVariable(VariableTracker):
    """An instance of a user class: attributes are read from the real object (and guarded)."""

    value: Any
    source: Source | None = None

    def python_type(self):
        return type(self.value)

    def getattr(self, tx, name):
        return tx.object_attribute(self, name)

    def call(self, tx, args, kwargs):
        call = type(self.value).__dict__.get("__call__")
        if call is None:
            raise Unsupported(f"calling a {type(self.value).__name__} object")
        return tx.inline_call(call, [self] + list(args), kwargs)


@dataclass(repr=False)
class ModuleVariable(VariableTracker):
    module: Any
    source: Source | None = None

    def python_type(self):
        return type(self.module)

    def getattr(self, tx, name):
        return tx.module_attribute(self, name)


@dataclass(repr=False)
class NumpyCallableVariable(VariableTracker):
    """A NumPy function (``np.sum``), dtype class (``np.float32``) or array method
    bound to a traced array (``x.sum``): calls become graph ops."""

    fn: Any  # the numpy callable, or a method name when ``self_var`` is set
    self_var: VariableTracker | None = None

    def _scalar_type(self) -> bool:
        return self.self_var is None and isinstance(self.fn, type) and issubclass(self.fn, np.generic)

    def is_constant(self):
        """A dtype class (``np.float32``) is a constant: ``x.dtype == np.float32`` compares it."""
        return self._scalar_type()

    def as_constant(self):
        if self._scalar_type():
            return self.fn
        return super().as_constant()

    def getattr(self, tx, name):
        """A ufunc's method (``np.maximum.accumulate``) is a NumPy callable too: calling it
        finds its rule, or breaks naming it; its plain attributes (``nin``, ``identity``)
        are constants."""
        if self.self_var is not None or not isinstance(self.fn, np.ufunc):
            return super().getattr(tx, name)
        attr = _attribute(self.fn, name)
        if callable(attr):
            return NumpyCallableVariable(attr)
        if isinstance(attr, (int, float, str, type(None))):
            return wrap_constant(attr)
        return super().getattr(tx, name)

    def call(self, tx, args, kwargs):
        if self.self_var is not None:
            return tx.emit(self.fn, self.self_var, *args, **kwargs)
        if self._scalar_type() and all(a.is_constant() for a in args) and not kwargs:
            return _scalar_of_constants(self.fn, args)  # np.float32(0.5): a NumPy scalar constant
        return tx.emit(self.fn, *args, **kwargs)


def _scalar_of_constants(scalar_type, args) -> VariableTracker:
    try:
        return wrap_constant(scalar_type(*[a.as_constant() for a in args]))
    except Unsupported:
        raise
    except Exception as e:  # np.int32(2**40): NumPy's own error, raised again by CPython
        raise UserError(e) from None


@dataclass(repr=False)
class BuiltinVariable(VariableTracker):
    """A Python builtin (``len``, ``range``, ``isinstance``...), run at trace time."""

    fn: Any

    def python_type(self):
        return type(self.fn)

    def call(self, tx, args, kwargs):
        return tx.call_builtin(self.fn, args, kwargs)


@dataclass(repr=False)
class ClassVariable(VariableTracker):
    """A class (``int``, a user class): used in isinstance and for its static methods."""

    cls: Any
    source: Source | None = None

    def python_type(self):
        return type(self.cls)

    def is_constant(self):
        return True

    def as_constant(self):
        return self.cls

    def call(self, tx, args, kwargs):
        return tx.call_builtin(self.cls, args, kwargs)

    def getattr(self, tx, name):
        attr = getattr(self.cls, name)
        return tx.wrap_global_like(attr, None)


@dataclass(repr=False)
class InertContextVariable(VariableTracker):
    """A context manager with no effect on compiled code: ``np.errstate(...)`` (it only
    changes which floating-point warnings NumPy emits; kernels emit none) and
    ``contextlib.nullcontext(value)``. ``with`` over it traces its body as is."""

    enter_value: VariableTracker

    def enter(self, tx) -> VariableTracker:
        return self.enter_value


@dataclass(repr=False)
class InertContextFactory(VariableTracker):
    """``np.errstate`` / ``contextlib.nullcontext`` themselves: calling one makes an
    ``InertContextVariable``."""

    factory: Any

    def call(self, tx, args, kwargs):
        for value in list(args) + list(kwargs.values()):
            if not value.is_constant() and self.factory is not contextlib.nullcontext:
                raise Unsupported(f"{self.factory.__name__} with arguments not known while tracing")
        enter = args[0] if args and self.factory is contextlib.nullcontext else ConstantVariable(None)
        return InertContextVariable(enter)


@dataclass(repr=False)
class ExitVariable(VariableTracker):
    """The ``__exit__`` ``BEFORE_WITH`` leaves on the stack; called with three Nones when
    the block ends normally (the exceptional path is never traced)."""

    def call(self, tx, args, kwargs):
        return ConstantVariable(None)
