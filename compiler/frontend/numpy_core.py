"""Traced array values and the emission helpers every NumPy rule is built from.

A ``Tensor`` is an SSA value of the function being traced plus its Ember type
(static sizes, ``DYN`` for symbolic ones). ``EmitterCore`` wraps a
``FunctionBuilder`` with the few moves NumPy semantics needs: turning operands
(tensors, Python and NumPy scalars) into tensors of a given dtype, broadcasting
explicitly, normalizing axes, and refusing unsupported keyword arguments with a
``NotImplementedError`` that names the function and the argument (the frontend
turns it into a fallback to CPython).

**Symbolic sizes.** The MLIR type only says ``?``; which size a ``?`` is lives here:
``shape(t)`` gives a value's sizes as ints and :class:`SymInt` expressions of the
trace's shape environment (``s0``, ``s0 - 2``), so that broadcasting ``s0`` against
``s1`` asks the environment (a guard ``s1 == s0``) instead of assuming. Ops whose
result sizes are operands (``broadcast_to``, ``slice``, ``reshape``, ``iota``) are
emitted with ``emit_shaped``, which turns each symbolic size into an ``index`` value
of the graph (``size_value``: ``ember.dim`` of an input for a symbol, ``ember.to_index``
of an int input, ``ember.size_arith`` for an expression); every other op's symbolic
sizes follow from its operands' (``symbolic_result_shape``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.ops import OPS
from compiler.dialects.types import DYN, TensorType
from compiler.frontend import promotion
from compiler.frontend.symbolic_shapes import ShapeEnv, SymInt
from compiler.lazy_import import lazy_module
from compiler.mlir import ir, operation_of

sympy = lazy_module("sympy")  # symbolic sizes only

NOVALUE = np._NoValue  # NumPy's "argument not given" default (keepdims, initial, where)


@dataclass(frozen=True)
class Tensor:
    """A traced array value: NumPy arrays and NumPy scalars (as 0-d) alike."""

    value: ir.Value
    type: TensorType
    scalar: bool = False  # a 0-d result NumPy gives as a NumPy scalar (ufuncs, reductions), not an array
    weak: bool = False  # a Python float traced as a value (frontend/scalar_inputs.py): promotes weakly

    @property
    def dtype(self) -> np.dtype:
        return self.type.numpy_dtype

    @property
    def shape(self) -> tuple:
        return self.type.shape

    @property
    def ndim(self) -> int:
        return self.type.rank


def reject(fname: str, **given):
    """``NotImplementedError`` for the first argument whose value is not its default.

    ``given`` maps an argument name to ``(value, default)``."""
    for name, (value, default) in given.items():
        if value is not default and not (isinstance(value, (bool, str)) and value == default):
            raise NotImplementedError(f"{fname}: argument {name}={value!r} is not supported")


def reject_kwargs(fname: str, kwargs: dict):
    if kwargs:
        raise NotImplementedError(f"{fname}: argument {next(iter(kwargs))}= is not supported")


def normalize_axis(axis, ndim: int) -> int:
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(int(axis), ndim)
    return int(axis) % ndim


def normalize_axes(axis, ndim: int) -> tuple[int, ...]:
    """``axis=None|int|tuple`` as sorted non-negative axes (None: all of them)."""
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    normalized = tuple(normalize_axis(a, ndim) for a in axes)
    if len(set(normalized)) != len(normalized):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(normalized))


def shape_text(shape) -> str:
    """``(s0, 3)``: a shape as NumPy prints it, symbolic sizes by their expressions."""
    dims = [str(d.env.format(d.expr)) if isinstance(d, SymInt) else "?" if d is DYN else str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def same_size(a, b) -> bool:
    """Whether two sizes are the same without asking anything (no guard)."""
    if isinstance(a, SymInt) and isinstance(b, SymInt):
        return a.expr == b.expr
    return not isinstance(a, SymInt) and not isinstance(b, SymInt) and a == b


def same_shape(a: tuple, b: tuple) -> bool:
    """Whether two shapes are the same without asking anything (no guard)."""
    return len(a) == len(b) and all(same_size(x, y) for x, y in zip(a, b))


def is_one(d) -> bool:
    return not isinstance(d, SymInt) and d == 1


class EmitterCore:
    """Emission helpers over one ``FunctionBuilder``."""

    def __init__(self, builder: FunctionBuilder, shape_env: ShapeEnv | None = None):
        self.b = builder
        self.recording: list | None = None  # (name, operands, result, sizes, attrs) of each op, when a list
        self.shape_env = shape_env if shape_env is not None else ShapeEnv()
        self._shapes: dict = {}  # ir.Value -> sizes (ints, SymInts) of a value with ``?`` sizes
        self._symbol_values: dict = {}  # sympy symbol -> () -> its index value
        self._size_values: dict = {}  # sympy expression -> its index value in the graph
        # (0-d bool tensor, message) of each fallible op (np.linalg): the entry raises
        # np.linalg.LinAlgError(message) when the value is true after the graph ran
        self.status_checks: list = []
        # Run-time checks (``add_check``): a 0-d bool that is true when NumPy would raise
        # where the kernel cannot (an index out of bounds): the entry then re-runs the call
        # in CPython, which raises NumPy's own error (convert_frame, entry_codegen).
        self.check: Tensor | None = None
        # Values NumPy gives as a view at an offset only the data knows (``x[np.argmax(y)]``
        # of a 2-d ``x``: a NumPy integer scalar is basic indexing): the mutation model
        # follows them as opaque views (numpy_indexing, mutation.track_view).
        self.opaque_views: set = set()
        # ir.Value -> the NumPy array it is known to hold, computed while tracing
        # (``np.linspace`` of numbers): what a rule needing numbers can read (``known_value``)
        self._known: dict = {}

    # ----------------------------------------------------------------- values

    def wrap(self, value: ir.Value) -> Tensor:
        return Tensor(value, self.b.type_of(value))

    def emit(self, name: str, *operands: Tensor, result: TensorType | None = None, sizes=(), **attrs) -> Tensor:
        value = self.b.op(name, *(t.value for t in operands), result=result, sizes=list(sizes), **attrs)
        out = Tensor(value, result if result is not None else self.b.type_of(value))
        if not out.type.is_static and value not in self._shapes:
            self._shapes[value] = symbolic_result_shape(self, name, operands, attrs, out.type)
        if self.recording is not None:
            self.recording.append((name, operands, out, tuple(sizes), attrs))
        return out

    def emit_shaped(self, name: str, *operands: Tensor, shape: tuple, dtype: str, **attrs) -> Tensor:
        """An op whose result sizes are operands (``broadcast_to``, ``slice``, ``reshape``,
        ``iota``), of result ``shape`` (ints and SymInts) and Ember ``dtype``."""
        shape = tuple(self.shape_env.normalize(d) for d in shape)
        result = TensorType(tuple(DYN if isinstance(d, SymInt) else d for d in shape), dtype)
        sizes = [self.size_value(d) for d in shape if isinstance(d, SymInt)]
        value = self.b.op(name, *(t.value for t in operands), result=result, sizes=sizes, **attrs)
        if not result.is_static:
            self._shapes[value] = shape
        out = Tensor(value, result)
        if self.recording is not None:
            self.recording.append((name, operands, out, tuple(sizes), attrs))
        return out

    def add_check(self, failed: Tensor) -> None:
        """A 0-d bool computed in the graph: true means this call must not use the graph's
        results (NumPy raises there, with a message only CPython can give). All checks of
        a graph are or-ed into one output, which the entry tests right after the kernel
        returns, before any result is read or any caller's array written; when it is true
        the whole call runs in CPython instead (``entry_codegen.build_entry``)."""
        failed = self.cast(failed, np.bool_)
        if failed.ndim:
            failed = self.emit("max", failed, axes=tuple(range(failed.ndim)), keepdims=False)
        self.check = failed if self.check is None else self.emit("or", self.check, failed)

    # ----------------------------------------------------------------- symbolic sizes

    def shape(self, t: Tensor) -> tuple:
        """``t``'s sizes: ints, and SymInts for its ``?`` sizes."""
        if t.type.is_static:
            return t.type.shape
        sizes = self._shapes.get(t.value)
        if sizes is None:
            raise NotImplementedError(f"an array of type {t.type} whose symbolic sizes the trace does not know")
        return tuple(self.shape_env.normalize(d) for d in sizes)

    def declare_input(self, t: Tensor, sizes: tuple, make_dim) -> None:
        """A graph argument of sizes ``sizes``; ``make_dim(axis)`` emits its size along an axis.
        A symbol seen here for the first time is read from this argument."""
        if t.type.is_static:
            return
        self._shapes[t.value] = tuple(sizes)
        for axis, d in enumerate(sizes):
            if isinstance(d, SymInt) and d.expr.is_Symbol and d.expr not in self._symbol_values:
                self._symbol_values[d.expr] = lambda axis=axis: make_dim(axis)

    def bind_symbol(self, symbol, make_value) -> None:
        """Where an int symbol's value comes from: ``make_value()`` emits its ``index``."""
        self._symbol_values.setdefault(symbol, make_value)

    def size_value(self, d) -> ir.Value:
        """An int or SymInt as an ``index`` value of the graph (one per distinct expression)."""
        if isinstance(d, SymInt):
            return self._expr_value(d.expr)
        return self._expr_value(sympy.Integer(int(d)))

    def _expr_value(self, e) -> ir.Value:
        found = self._size_values.get(e)
        if found is None:
            found = self._size_values[e] = self._build_expr(e)
        return found

    def _build_expr(self, e) -> ir.Value:
        arith = self.b.size_arith
        if e.is_Integer:
            return self.b.size_constant(int(e))
        if e.is_Symbol:
            make = self._symbol_values.get(e)
            if make is None:
                raise NotImplementedError(f"the size {e} has no value in the graph")
            return make()
        if e.is_Add:
            terms = e.as_ordered_terms()
            acc = self._expr_value(terms[0])
            for t in terms[1:]:
                c, _ = t.as_coeff_Mul()
                acc = arith("sub", acc, self._expr_value(-t)) if c < 0 else arith("add", acc, self._expr_value(t))
            return acc
        if e.is_Mul:
            c, rest = e.as_coeff_Mul()
            if not c.is_Integer:
                raise NotImplementedError(f"the size {e} is not an integer expression")
            acc = self._expr_value(rest) if not rest.is_Mul else None
            if acc is None:
                factors = rest.as_ordered_factors()
                acc = self._expr_value(factors[0])
                for f in factors[1:]:
                    acc = arith("mul", acc, self._expr_value(f))
            return acc if c == 1 else arith("mul", self._expr_value(c), acc)
        if e.is_Pow and e.exp.is_Integer and e.exp > 0:
            base = self._expr_value(e.base)
            acc = base
            for _ in range(int(e.exp) - 1):
                acc = arith("mul", acc, base)
            return acc
        if isinstance(e, sympy.floor):
            num, den = sympy.fraction(sympy.together(e.args[0]))
            return arith("floordiv", self._expr_value(sympy.expand(num)), self._expr_value(den))
        if isinstance(e, sympy.Mod):
            return arith("mod", self._expr_value(e.args[0]), self._expr_value(e.args[1]))
        if type(e) in (sympy.Max, sympy.Min):
            args = sorted(e.args, key=sympy.default_sort_key)
            acc = self._expr_value(args[0])
            for a in args[1:]:
                acc = arith("max" if type(e) is sympy.Max else "min", acc, self._expr_value(a))
            return acc
        raise NotImplementedError(f"the size {e} as a graph value")

    def as_size(self, d, fname: str):
        """``d`` (an int or SymInt) as the size of a new array: NumPy refuses a negative one;
        a symbolic one that is 0 or 1 in this call is specialized (guarded ``== hint``), any
        other is guarded ``>= 2``, as every symbolic size is (0/1 specialization)."""
        env = self.shape_env
        d = env.normalize(d)
        if not isinstance(d, SymInt):
            if d < 0:
                raise ValueError("negative dimensions are not allowed")
            return d
        if d.hint >= 2:
            env.evaluate(d >= 2)
            return d
        if not env.evaluate(d >= 0):
            raise ValueError("negative dimensions are not allowed")
        return env.specialize(d)

    def equal_sizes(self, a, b) -> bool:
        """Whether two sizes are equal in this call; when symbolic, the answer is guarded."""
        if same_size(a, b):
            return True
        if isinstance(a, SymInt) or isinstance(b, SymInt):
            sym = a if isinstance(a, SymInt) else b
            return sym.env.evaluate(a == b)
        return a == b

    def refine(self, t: Tensor) -> Tensor:
        """``t`` with the ``?`` sizes a guard has since made constants written in its type
        (a ``reshape`` of no data), so it meets static operands with one type."""
        if t.type.is_static:
            return t
        shape = self.shape(t)
        if all(isinstance(d, SymInt) for d, s in zip(shape, t.type.shape) if s is DYN):
            return t
        return self.emit_shaped("reshape", t, shape=shape, dtype=t.type.dtype)

    def constant(self, array) -> Tensor:
        array = np.asarray(array)
        promotion.ember_dtype(array.dtype, "constant")
        if array.dtype.kind == "c":  # MLIR's Python bindings cannot read complex attributes back
            return self.emit("complex", self.constant(array.real), self.constant(array.imag))
        return self.wrap(self.b.constant(array))

    def remember(self, t: Tensor, values: np.ndarray) -> Tensor:
        """``t``, known to hold ``values`` (NumPy's own, computed while tracing)."""
        self._known[t.value] = values
        return t

    def known_value(self, t: Tensor) -> np.ndarray | None:
        """The values of ``t`` when they are known while tracing (a constant of the graph,
        ``np.array([...])``; a ``np.linspace`` of numbers), else None: what a rule needing
        numbers (a quantile's ``q``) can read."""
        if t.value in self._known:
            return self._known[t.value]
        owner = operation_of(t.value.owner)
        if owner is None or owner.name != "ember.constant" or t.dtype.kind in "bc":
            return None
        values = np.array(ir.DenseElementsAttr(owner.attributes["value"]))
        return values.astype(t.dtype).reshape(t.type.shape)

    def cast(self, t: Tensor, dtype) -> Tensor:
        name = promotion.ember_dtype(dtype)
        if t.type.dtype == name:
            return t
        if t.dtype.kind == "c" and np.dtype(dtype).kind not in "cb":
            raise NotImplementedError(
                f"casting {t.dtype} to {np.dtype(dtype)} discards the imaginary part (NumPy warns ComplexWarning)"
            )
        return self.emit("cast", t, result=t.type.with_dtype(name))

    def array(self, x, fname: str) -> Tensor:
        """An array_like argument as a tensor; Python scalars and lists become strong
        constants of NumPy's default dtype, as ``np.asarray`` makes them."""
        if isinstance(x, Tensor):
            return x
        if isinstance(x, (bool, int, float, complex, np.generic)):
            if promotion.is_python_scalar(x):
                return self.constant(promotion.check_weak_scalar(x, promotion.default_dtype(x), fname))
            return self.constant(np.asarray(x))
        if isinstance(x, (list, tuple)) and not holds(x, Tensor):
            return self.constant(np.asarray(x))
        raise NotImplementedError(f"{fname}: cannot trace an operand of type {type(x).__name__}")

    def operand(self, x, dtype: np.dtype, fname: str) -> Tensor:
        """``x`` (a tensor, a Python or NumPy scalar) as a tensor of ``dtype``."""
        if isinstance(x, Tensor):
            return self.cast(x, dtype)
        if promotion.is_python_scalar(x):
            return self.constant(promotion.check_weak_scalar(x, np.dtype(dtype), fname))
        return self.cast(self.array(x, fname), dtype)

    def scalar_like(self, value, dtype, like: Tensor) -> Tensor:
        """A tensor of ``like``'s shape filled with ``value`` converted to ``dtype``."""
        return self.broadcast_to(self.constant(np.asarray(value, dtype=dtype)), self.shape(like))

    # ----------------------------------------------------------------- broadcasting

    def broadcast_shapes(self, shapes: list[tuple], fname: str) -> tuple:
        """NumPy's broadcast shape. Two different symbolic sizes (or one and a static size
        other than 1) are asked of the shape environment: equal in this call, they are
        guarded equal (and later read as one); else NumPy's error."""
        rank = max((len(s) for s in shapes), default=0)
        out = []
        for axis in range(rank):
            size = 1
            for s in shapes:
                i = len(s) - rank + axis
                if i < 0 or is_one(s[i]):
                    continue
                if is_one(size):
                    size = s[i]
                elif not self.equal_sizes(size, s[i]):
                    raise ValueError(
                        f"operands could not be broadcast together with shapes {' '.join(map(shape_text, shapes))} "
                    )
            out.append(self.shape_env.normalize(size))
        return tuple(out)

    def broadcast_shape(self, tensors: list[Tensor], fname: str) -> tuple:
        return self.broadcast_shapes([self.shape(t) for t in tensors], fname)

    def broadcast_to(self, t: Tensor, shape: tuple) -> Tensor:
        """``t`` broadcast to ``shape`` (ints and SymInts)."""
        shape = tuple(self.shape_env.normalize(d) for d in shape)
        t = self.refine(t)
        current = self.shape(t)
        if same_shape(current, shape):
            return t
        return self.emit_shaped("broadcast_to", t, shape=shape, dtype=t.type.dtype)

    def broadcast(self, tensors: list[Tensor], fname: str) -> list[Tensor]:
        shape = self.broadcast_shape(tensors, fname)
        return [self.broadcast_to(t, shape) for t in tensors]


def holds(value, kinds) -> bool:
    """Whether ``value`` is an instance of ``kinds`` or a list or tuple holding one, at
    any depth (``[a, 1.0]`` with ``a`` a ``Tensor``; a ``SymInt`` in a shape)."""
    return isinstance(value, kinds) or (isinstance(value, (list, tuple)) and any(holds(v, kinds) for v in value))


# ----------------------------------------------------------------------------- symbolic result shapes


def symbolic_result_shape(em: EmitterCore, name: str, operands, attrs: dict, result: TensorType) -> tuple:
    """The sizes of an op's result from its operands' sizes (``emit_shaped`` ops say theirs)."""
    family = OPS[name].family if name in OPS else None
    shapes = [em.shape(t) for t in operands]
    if family in ("unary", "binary", "compare", "cast", "update_slice", "sort", "scan") or name == "cast":
        return shapes[0]
    if family == "select":
        return shapes[1]
    if family == "reduce":
        axes = tuple(attrs["axes"])
        if attrs["keepdims"]:
            return tuple(1 if i in axes else d for i, d in enumerate(shapes[0]))
        return tuple(d for i, d in enumerate(shapes[0]) if i not in axes)
    if name == "transpose":
        return tuple(shapes[0][p] for p in attrs["perm"])
    if name == "expand_dims":
        axes, dims = tuple(attrs["axes"]), iter(shapes[0])
        return tuple(1 if i in axes else next(dims) for i in range(result.rank))
    if name == "squeeze":
        return tuple(d for i, d in enumerate(shapes[0]) if i not in tuple(attrs["axes"]))
    if name == "matmul":
        a, b = shapes
        if len(b) == 1:
            return a[:-1]
        return a[:-1] + b[-1:] if len(a) > 2 or len(b) > 2 else a[:-1] + b[1:]
    if family == "gather":  # advanced indexing: the rest of x with the index batch at ``at``
        x, indices = shapes
        axes, at = tuple(attrs["axes"]), attrs["at"]
        rest = [d for i, d in enumerate(x) if i not in axes]
        return tuple(rest[:at]) + tuple(indices[:-1]) + tuple(rest[at:])
    if family == "scatter":
        return shapes[0]
    if name == "concatenate":
        axis = attrs["axis"]
        a, b = shapes
        return a[:axis] + (em.shape_env.normalize(a[axis] + b[axis]),) + a[axis + 1 :]
    raise NotImplementedError(f"the symbolic sizes of ember.{name}'s result")
