"""The symbolic bytecode interpreter (CPython 3.11, 3.12, 3.13), one method per opcode.

Like TorchDynamo's InstructionTranslator: the function's bytecode runs with
trackers (``variables.py``) instead of values. Array operations become graph ops,
everything computable from constants is computed, control flow follows the branch
the known values take, calls into Python functions are inlined (a nested
translator on the callee's code). Anything else raises ``Unsupported``; until
graph breaks exist the whole call then runs in CPython.

What the versions' bytecodes do differently (the stack layout of a call, oparg bits,
loops' ends, ``dis``'s fields) is read from one table, ``bytecode_versions.py``; an
opcode of only some versions just has its method here.
"""

from __future__ import annotations

import builtins
import dataclasses
import inspect
import sys
import types

import numpy as np

from compiler.errors import Location, Unsupported
from compiler.frontend import branches, bytecode_versions, loops, memory_order, mutation, view_steps
from compiler.frontend import variables as v
from compiler.frontend import wrap as wrapping
from compiler.frontend.binding import bind_arguments
from compiler.frontend.operators import binary, identical, inplace_binary, subscript, unary
from compiler.frontend.sources import AttrSource, GlobalSource, ItemSource, ModuleSource, Source, generated
from compiler.frontend.symbolic_shapes import SymInt

MAX_INLINE_DEPTH = 32
MAX_INSTRUCTIONS = 200_000  # a trace that runs this long is a loop we should not unroll


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class BreakHere(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised by the root translator on reaching its ``stop_at`` instruction."""

    def __init__(self, tx):
        super().__init__(tx.ip)
        self.tx = tx


def _row_count(tx, iterable) -> int | None:
    """The number of rows ``for row in x`` walks, for an array with a static first size."""
    if not isinstance(iterable, v.TensorVariable) or iterable.python_type() is not np.ndarray:
        return None
    t = iterable.tensor
    if t.type.rank == 0 or not isinstance(t.type.shape[0], int) or t.type.shape[0] < 0:
        return None
    return t.type.shape[0]


class InstructionTranslator:
    def __init__(
        self,
        output,
        code: types.CodeType,
        f_globals: dict,
        local_vars: dict,
        closure: tuple = (),
        closure_source: Source | None = None,
        name: str | None = None,
        depth: int = 0,
    ):
        self.output = output
        self.code = code
        self.f_globals = f_globals
        self.f_builtins = f_globals.get("__builtins__", builtins)
        if isinstance(self.f_builtins, types.ModuleType):
            self.f_builtins = self.f_builtins.__dict__
        self.locals: dict[str, v.VariableTracker] = dict(local_vars)
        self.cells: dict[str, v.VariableTracker] = {}
        self.closure = closure
        self.closure_source = closure_source
        self.name = name or code.co_name
        self.depth = depth
        self.bytecode = bytecode_versions.current()  # this version's reading of the shared opcodes
        self.instructions = bytecode_versions.instructions(code)
        self.index_of = {inst.offset: i for i, inst in enumerate(self.instructions)}
        self.stack: list[v.VariableTracker] = []
        self.ip = 0
        self.kw_names: tuple = ()
        self.line = code.co_firstlineno
        self.steps = 0
        self.stop_at: int | None = None  # the instruction index a graph break stops before
        self.region: tuple | None = None  # (first, end) instruction indices a branch runs within

    # ------------------------------------------------------------------ driver

    def location(self) -> Location:
        return Location(self.name, self.code.co_filename, self.line)

    def run(self) -> v.VariableTracker:
        try:
            while True:
                inst = self.instructions[self.ip]
                if self.ip == self.stop_at:
                    raise BreakHere(self)  # a graph break's second trace: the state before ``inst``
                if self.region is not None and not self.region[0] <= self.ip < self.region[1]:
                    raise BreakHere(self)  # a branch traced both ways (branches.py) ends
                self.ip += 1
                if inst.starts_line is not None:
                    self.line = inst.starts_line
                    self.output.builder.at(self.code.co_filename, self.line)
                    self.output.shape_env.where = f"{self.code.co_filename}:{self.line} in {self.name}"
                self.steps += 1
                if self.steps > MAX_INSTRUCTIONS:
                    raise Unsupported("a loop too long to unroll while tracing")
                self._check_graph_size()
                handler = getattr(self, inst.opname, None)
                if handler is None:
                    raise Unsupported(f"the bytecode instruction {inst.opname}")
                handler(inst)
        except _Return as r:
            return r.value
        except Unsupported as e:
            e.at(self.location())
            e.frames.append(self)  # innermost first: the root translator is the last
            if isinstance(e, loops.GraphTooLarge) and e.frames[0] is not self:
                e.loops += loops.enclosing_loops(self)  # the loops of the calling frames too
            raise

    def _check_graph_size(self) -> None:
        """Stop a trace whose graph outgrew its budget (an unrolled loop, mostly): its
        compile would take longer than running the call in CPython saves."""
        budget = self.output.max_ops
        if budget is not None and self.output.builder.ops_emitted > budget:
            raise loops.too_large(self, f"the graph grew past {budget} ops", loops.enclosing_loops(self))

    def push(self, value):
        self.stack.append(value)

    def pop(self):
        return self.stack.pop()

    def popn(self, n: int) -> list:
        if n == 0:
            return []
        values = self.stack[-n:]
        del self.stack[-n:]
        return values

    def jump(self, inst):
        self.ip = self.index_of[inst.argval]

    # ------------------------------------------------------------------ services for trackers

    def emit(self, fn, *args, **kwargs) -> v.VariableTracker:
        """A NumPy operation on trackers: graph ops through the NumPy-semantics layer."""
        special = mutation.dispatch(self, fn, args, kwargs)  # out=, np.copyto, a.fill
        if special is not NotImplemented:
            return special
        ordered = memory_order.in_memory_order(self, fn, args, kwargs)  # x.T + 1: NumPy's layout
        if ordered is not None:
            return ordered
        emitter = self.output.emitter
        state = (len(emitter.status_checks), emitter.check, len(emitter.opaque_views))
        try:
            return self._emit_call(fn, args, kwargs)
        except (Unsupported, v.UserError):
            if state != (len(emitter.status_checks), emitter.check, len(emitter.opaque_views)):
                raise  # the failed rule left run-time checks: not retried
            retry = _specialized_scalars(args, kwargs)
            if retry is None:
                raise
        return self._emit_call(fn, *retry)

    def _emit_call(self, fn, args, kwargs) -> v.VariableTracker:
        symbolic = _takes_symbolic_ints(fn)
        operands = [self._operand(a, symbolic) for a in args]
        keywords = {k: self._operand(a, symbolic) for k, a in kwargs.items()}
        emitter = self.output.emitter
        view_of = args[0] if args and isinstance(args[0], v.TensorVariable) else None
        records = [] if view_of is not None and view_steps.is_view_function(fn, view_of.tensor) else None
        outer, emitter.recording = emitter.recording, records
        try:
            result = emitter.call(fn, *operands, **keywords)
        except NotImplementedError as e:
            raise Unsupported(f"NumPy operation: {e}") from None
        except (ValueError, TypeError, IndexError, ZeroDivisionError) as e:
            raise v.UserError(e) from None
        finally:
            emitter.recording = outer
        if fn is np.ascontiguousarray and view_of is not None and result.value == operands[0].value:
            contiguous = mutation.c_contiguous(self.output, view_of)
            if contiguous is None:
                raise Unsupported("np.ascontiguousarray of a view whose layout the tracer does not follow")
            if contiguous:
                return view_of  # NumPy returns the array itself
            return self._tracker(result)  # a C-ordered copy: a new array
        if (
            view_of is not None
            and _returns_operand(fn, kwargs)
            and not operands[0].scalar
            and getattr(result, "value", None) == operands[0].value
        ):
            return view_of  # np.asarray(x) is x itself
        tracker = self._tracker(result)
        if records is not None:
            return mutation.track_view(self, view_of, tracker, records, operands[0], fn)
        return tracker

    def _operand(self, tracker, symbolic: bool = False):
        """A tracker as the NumPy layer's argument; a symbolic int stays a SymInt where the
        rule takes one (``symbolic``), else it is specialized."""
        if isinstance(tracker, v.TensorVariable):
            return tracker.tensor
        if isinstance(tracker, v.MaskedVariable):  # x[mask], lazy (numpy_indexing.Masked)
            return tracker.masked
        if isinstance(tracker, v.SymIntVariable) and symbolic:
            return tracker.value
        if isinstance(tracker, v.BaseListVariable):
            return tracker.python_type()(self._operand(i, symbolic) for i in tracker.items)
        if isinstance(tracker, v.SliceVariable):
            return slice(*(self._operand(p, symbolic) for p in (tracker.start, tracker.stop, tracker.step)))
        if isinstance(tracker, v.NumpyCallableVariable) and tracker.self_var is None:
            return tracker.fn  # dtype classes passed as arguments (astype(np.float32))
        if isinstance(tracker, v.ClassVariable):
            return tracker.cls
        return tracker.as_constant()

    def _tracker(self, result) -> v.VariableTracker:
        from compiler.frontend.numpy_indexing import Masked
        from compiler.frontend.numpy_semantics import Tensor
        from compiler.frontend.symbolic_shapes import SymInt

        if isinstance(result, Tensor):
            return v.TensorVariable(result)
        if isinstance(result, Masked):
            return v.MaskedVariable(result)
        if isinstance(result, SymInt):
            return v.sym_or_constant(result)
        if isinstance(result, v.VariableTracker):  # a rule's own tracker (np.linalg.lstsq's residuals)
            return result
        if isinstance(result, tuple) and hasattr(type(result), "_fields"):  # EighResult, SVDResult, ...
            return v.NamedTupleVariable([self._tracker(r) for r in result], cls=type(result))
        if isinstance(result, tuple):
            return v.TupleVariable([self._tracker(r) for r in result])
        if isinstance(result, list):
            return v.ListVariable([self._tracker(r) for r in result])
        return v.wrap_constant(result)

    def array_attribute(self, array: v.TensorVariable, name: str) -> v.VariableTracker:
        """``x.sum`` (a method bound to the traced array) or ``x.shape``/``x.T``: the attribute
        names are the NumPy-semantics table's own keys (``"shape"``, not ``("attr", "shape")``,
        which no rule answers: every ``x.shape`` fell back to CPython)."""
        from compiler.frontend.numpy_semantics import ARRAY_METHODS

        if name in ARRAY_METHODS:
            return v.NumpyCallableVariable(name, array)
        if name in ARRAY_ATTRIBUTES:
            return self.emit(name, array)
        if name == "strides":
            return self._input_strides(array)
        raise Unsupported(f"the array attribute {name!r}")

    def _input_strides(self, array: v.TensorVariable) -> v.VariableTracker:
        """``x.strides`` of a caller's array, guarded: a C-contiguous one whose sizes are all
        above 1 has the row-major strides of its (maybe symbolic) sizes; any other, exactly
        its traced strides (a size-1 dim's stride is free even in a contiguous array). A
        view's or a computed array's layout is NumPy's choice, not the trace's: a break."""
        base = getattr(array, "base", None)
        graph_input = base.graph_input if base is not None and base.owner is array else None
        if graph_input is None:
            raise Unsupported("the strides of a view or of a computed array (its layout is NumPy's choice)")
        example, guards = graph_input.example, self.output.guards
        shape = self.output.emitter.shape(array.tensor)
        above_one = all(isinstance(d, SymInt) or d > 1 for d in shape)  # a symbol is >= 2 (0/1 specialize)
        if not (example.flags.c_contiguous and above_one):
            guards.strides_match(graph_input.source, example)
            return v.wrap_constant(tuple(example.strides))
        guards.layout_match(graph_input.source, example)
        strides, step = [], example.itemsize
        for size in reversed(shape):
            strides.append(v.sym_or_constant(self.output.emitter.shape_env.normalize(step)))
            step = step * size
        return v.TupleVariable(strides[::-1])

    def object_attribute(self, obj: v.UserObjectVariable, name: str) -> v.VariableTracker:
        try:
            value = getattr(obj.value, name)
        except AttributeError as e:
            raise v.UserError(e) from None
        static = inspect.getattr_static(obj.value, name, None)
        if isinstance(static, property):
            return self.inline_call(static.fget, [obj], {})
        if isinstance(value, types.MethodType) and value.__self__ is obj.value:
            source = AttrSource(AttrSource(obj.source, name), "__func__") if obj.source is not None else None
            return v.PythonFunctionVariable(value.__func__, source, obj)
        source = AttrSource(obj.source, name) if obj.source is not None else None
        if source is None:
            raise Unsupported(f"attribute {name!r} of an object without a source")
        return wrapping.wrap(self, value, source)

    def module_attribute(self, module: v.ModuleVariable, name: str) -> v.VariableTracker:
        try:
            value = getattr(module.module, name)
        except AttributeError as e:
            raise v.UserError(e) from None
        source = AttrSource(module.source, name) if module.source else None
        if isinstance(value, (bool, int, float, str)) or value is None:
            # Guarding the module's identity says nothing of its attributes (``cfg.alpha = 3``
            # between calls): constants are guarded by value, as any other read.
            if source is not None:
                return wrapping.wrap(self, value, source)
            if not module.module.__name__.startswith("numpy"):
                raise Unsupported(f"the attribute {name!r} of a module reached without a source")
            return v.ConstantVariable(value)  # np.pi, np.newaxis: NumPy's constants do not change
        return wrapping.wrap_identity(self, value, source)

    def wrap_global_like(self, value, source):
        return wrapping.wrap(self, value, source) if source is not None else wrapping.wrap_identity(self, value, None)

    def mark_mutated(self, container) -> None:
        if container.source is not None:
            self.output.before_side_effect()  # not after a np.linalg call that may raise
        if container.source is not None and not container.mutated:
            container.mutated = True
            self.output.mutated.append(container)

    def call_builtin(self, fn, args, kwargs) -> v.VariableTracker:
        from compiler.frontend.builtin_calls import call_builtin

        return call_builtin(self, fn, args, kwargs)

    def inline_call(self, fn, args: list, kwargs: dict, source: Source | None = None) -> v.VariableTracker:
        """Trace a call of the Python function ``fn`` (reached through ``source``, if known)."""
        if not isinstance(fn, types.FunctionType):
            name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
            raise Unsupported(f"calling `{name}`")  # its name: a repr may show a memory address
        closure_source = AttrSource(source, "__closure__") if source is not None else None
        defaults, kwdefaults = self._sourced_defaults(fn, source)
        return self.inline_code(
            fn.__code__,
            fn.__globals__,
            fn.__qualname__,
            args,
            kwargs,
            defaults,
            kwdefaults,
            tuple(fn.__closure__ or ()),
            closure_source,
        )

    def _sourced_defaults(self, fn, source: Source | None):
        """``fn``'s default values as trackers read through ``fn.__defaults__`` (guarded):
        the function's identity is guarded, but its defaults are mutable (a list default,
        ``fn.__defaults__ = ...``), so they are guarded like any other value read. Without a
        source the raw values stay (plain constants only, see ``bind_arguments``)."""
        defaults, kwdefaults = fn.__defaults__ or (), fn.__kwdefaults__ or {}
        if source is None:
            return defaults, kwdefaults
        base, kwbase = AttrSource(source, "__defaults__"), AttrSource(source, "__kwdefaults__")
        return (
            tuple(wrapping.wrap(self, d, ItemSource(base, i)) for i, d in enumerate(defaults)),
            {k: wrapping.wrap(self, d, ItemSource(kwbase, k)) for k, d in kwdefaults.items()},
        )

    def inline_code(
        self, code, f_globals, name, args, kwargs, defaults=(), kwdefaults=None, closure=(), closure_source=None
    ) -> v.VariableTracker:
        if self.depth >= MAX_INLINE_DEPTH:
            raise Unsupported("calls nested too deeply to inline (recursion?)")
        if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
            raise Unsupported(f"calling the generator or coroutine {name}")
        local_vars = bind_arguments(code, args, kwargs, defaults, kwdefaults or {})
        child = InstructionTranslator(
            self.output, code, f_globals, local_vars, closure, closure_source, name, self.depth + 1
        )
        return child.run()

    # ------------------------------------------------------------------ loads and stores

    def EXTENDED_ARG(self, inst):
        """A prefix widening the next instruction's argument; ``dis`` has already folded it in."""

    def RESUME(self, inst):
        pass

    NOP = RESUME
    PRECALL = RESUME  # 3.11
    COPY_FREE_VARS = RESUME

    def LOAD_CONST(self, inst):
        self.push(
            v.wrap_constant(inst.argval)
            if not isinstance(inst.argval, types.CodeType)
            else v.ConstantVariable(inst.argval)
        )

    def LOAD_FAST(self, inst):
        self.push(self._load_fast(inst.argval))

    LOAD_FAST_CHECK = LOAD_FAST  # 3.12+: a LOAD_FAST that may find the variable unbound

    def _load_fast(self, name):
        if self.bytecode.closure_by_load_fast and name not in self.locals:
            if name in self.cells or name in self.code.co_freevars:
                return self._cell(name)  # 3.13: LOAD_CLOSURE is LOAD_FAST of the cell's slot
        if name not in self.locals:
            raise v.UserError(UnboundLocalError(f"local variable {name!r} referenced before assignment"))
        return self.locals[name]

    def STORE_FAST(self, inst):
        self._store_fast(inst.argval, self.pop())

    def _store_fast(self, name, value):
        if isinstance(value, (v.NullVariable, v.CellVariable)):
            # 3.12+: the end of an inlined comprehension puts back what LOAD_FAST_AND_CLEAR
            # saved: nothing (the name is unbound again) or the slot's cell
            self.locals.pop(name, None)
            if isinstance(value, v.CellVariable):
                self.cells[name] = value
            return
        self.locals[name] = value

    def LOAD_FAST_AND_CLEAR(self, inst):
        """3.12+ (PEP 709): an inlined comprehension saves the variable it reuses (NULL
        when unbound; the cell itself for a cell variable) and starts it unbound."""
        name = inst.argval
        if name in self.cells:
            self.push(self.cells.pop(name))
        else:
            self.push(self.locals.pop(name, v.NullVariable()))

    def LOAD_FAST_LOAD_FAST(self, inst):  # 3.13: argval is the two names
        first, second = inst.argval
        self.push(self._load_fast(first))
        self.push(self._load_fast(second))

    def STORE_FAST_LOAD_FAST(self, inst):  # 3.13
        store, load = inst.argval
        self._store_fast(store, self.pop())
        self.push(self._load_fast(load))

    def STORE_FAST_STORE_FAST(self, inst):  # 3.13: STACK[-1] to the first name, STACK[-2] to the second
        first, second = inst.argval
        self._store_fast(first, self.pop())
        self._store_fast(second, self.pop())

    def DELETE_FAST(self, inst):
        self.locals.pop(inst.argval, None)

    def LOAD_GLOBAL(self, inst):
        name = inst.argval
        if name in self.f_globals:
            source = GlobalSource(name) if self.depth == 0 else _module_global_source(self.f_globals, name)
            value = self.wrap_global_like(self.f_globals[name], source)
        elif name in self.f_builtins:
            value = wrapping.wrap_identity(self, self.f_builtins[name], None)
        else:
            raise v.UserError(NameError(f"name {name!r} is not defined"))
        if self.bytecode.load_global_null_bit and inst.arg & 1:
            self._push_callable(value)
        else:
            self.push(value)

    def _push_callable(self, fn):
        """``fn`` and the NULL that tells ``CALL`` there is no ``self``, in this version's order."""
        if self.bytecode.callable_first:
            self.push(fn)
            self.push(v.NullVariable())
        else:
            self.push(v.NullVariable())
            self.push(fn)

    def STORE_GLOBAL(self, inst):
        if self.depth != 0:
            raise Unsupported("a global write inside an inlined function")
        self.output.before_side_effect()
        self.output.global_writes[inst.argval] = self.pop()

    def MAKE_CELL(self, inst):
        self.cells[inst.argval] = v.CellVariable(self.locals.pop(inst.argval, None))

    def _cell(self, name):
        """The trace-made cell ``name`` (for ``LOAD_CLOSURE``: closures made while tracing)."""
        if name in self.cells:
            return self.cells[name]
        if name in self.code.co_freevars:
            cell = self.closure[self.code.co_freevars.index(name)]
            if isinstance(cell, v.CellVariable):
                return cell
        raise Unsupported(f"capturing the enclosing function's variable {name!r} in a new closure")

    def LOAD_DEREF(self, inst):
        name = inst.argval
        if name in self.cells:
            cell = self.cells[name]
        elif name in self.code.co_freevars:
            index = self.code.co_freevars.index(name)
            cell = self.closure[index]
            if not isinstance(cell, v.CellVariable):  # a real cell of a real function
                self.push(self._closure_value(cell, index, name))
                return
        else:
            raise Unsupported(f"cell {name!r}")
        if cell.contents is None:
            raise v.UserError(NameError(f"free variable {name!r} referenced before assignment"))
        self.push(cell.contents)

    def _closure_value(self, cell, index: int, name: str):
        try:
            value = cell.cell_contents
        except ValueError:
            raise v.UserError(NameError(f"free variable {name!r} referenced before assignment")) from None
        if self.closure_source is None:
            raise Unsupported(f"the closure variable {name!r} of a function reached without a source")
        return wrapping.wrap(self, value, AttrSource(ItemSource(self.closure_source, index), "cell_contents"))

    def STORE_DEREF(self, inst):
        name = inst.argval
        if name in self.cells:
            self.cells[name].contents = self.pop()
            return
        raise Unsupported(f"assigning the closure variable {name!r} of an enclosing function")

    def LOAD_CLOSURE(self, inst):
        self.push(self._cell(inst.argval))

    def IMPORT_NAME(self, inst):
        """``import a.b`` / ``from a.b import c`` inside the function: the import runs now, as
        the call would run it (a module imports once per process), and the module is read
        from ``sys.modules`` afterwards, guarded by identity like a global module."""
        fromlist, level = self.pop(), self.pop()
        if not (level.is_constant() and fromlist.is_constant()) or level.as_constant() != 0:
            raise Unsupported("a relative import inside the function")
        try:
            module = builtins.__import__(inst.argval, self.f_globals, None, fromlist.as_constant(), 0)
        except ImportError as e:
            raise v.UserError(e) from None
        if sys.modules.get(module.__name__) is not module:
            raise Unsupported(f"importing {inst.argval!r}: the module is not sys.modules[{module.__name__!r}]")
        self.push(wrapping.wrap_identity(self, module, ModuleSource(module.__name__)))

    def IMPORT_FROM(self, inst):
        module = self.stack[-1]
        if not isinstance(module, v.ModuleVariable):
            raise Unsupported(f"importing {inst.argval!r} from {module}")
        submodule = f"{module.module.__name__}.{inst.argval}"
        if not hasattr(module.module, inst.argval) and submodule in sys.modules:  # as CPython's import_from
            self.push(wrapping.wrap_identity(self, sys.modules[submodule], ModuleSource(submodule)))
            return
        self.push(module.getattr(self, inst.argval))

    def LOAD_ATTR(self, inst):
        obj = self.pop()
        if self.bytecode.load_attr_method_bit and inst.arg & 1:
            self._push_callable(obj.getattr(self, inst.argval))  # 3.12+: a method load, as LOAD_METHOD
        else:
            self.push(obj.getattr(self, inst.argval))

    def LOAD_METHOD(self, inst):  # 3.11
        obj = self.pop()
        self._push_callable(obj.getattr(self, inst.argval))

    def LOAD_SUPER_ATTR(self, inst):  # 3.12+; 3.11 falls back at the call of super() too
        raise Unsupported("super()", hint="a method that calls super() runs in CPython")

    def STORE_ATTR(self, inst):
        obj, value = self.pop(), self.pop()
        if isinstance(obj, v.UserObjectVariable) and obj.source is not None:
            self.output.before_side_effect()
            self.output.attribute_writes.append((obj, inst.argval, value))
            return
        raise Unsupported(f"setting attribute {inst.argval!r} of {obj}")

    def BINARY_SUBSCR(self, inst):
        index, obj = self.pop(), self.pop()
        self.push(subscript(self, obj, index))

    def STORE_SUBSCR(self, inst):
        index, obj, value = self.pop(), self.pop(), self.pop()
        self._store_subscr(obj, index, value)

    def BINARY_SLICE(self, inst):  # 3.12+: container[start:end]
        end, start, obj = self.pop(), self.pop(), self.pop()
        self.push(subscript(self, obj, v.SliceVariable(start, end, v.ConstantVariable(None))))

    def STORE_SLICE(self, inst):  # 3.12+: container[start:end] = value
        end, start, obj, value = self.pop(), self.pop(), self.pop(), self.pop()
        self._store_subscr(obj, v.SliceVariable(start, end, v.ConstantVariable(None)), value)

    def _store_subscr(self, obj, index, value):
        if isinstance(obj, v.ListVariable):
            key = index.as_constant()
            if isinstance(key, slice):  # items[1:3] = iterable: its items, as Python assigns them
                value = value.iterate(self)
            self.mark_mutated(obj)
            try:
                obj.items[key] = value
            except (TypeError, ValueError, IndexError) as e:  # Python's own error: CPython raises it again
                raise v.UserError(e) from None
        elif isinstance(obj, v.DictVariable):
            self.mark_mutated(obj)
            obj.items[index.as_constant()] = value
        elif isinstance(obj, v.TensorVariable):
            mutation.setitem(self, obj, index, value)
        else:
            raise Unsupported(f"item assignment on {obj}")

    def DELETE_SUBSCR(self, inst):
        index, obj = self.pop(), self.pop()
        if isinstance(obj, (v.ListVariable, v.DictVariable)):
            self.mark_mutated(obj)
            del obj.items[index.as_constant()]
        else:
            raise Unsupported(f"del on an item of {obj}")

    # ------------------------------------------------------------------ stack

    def POP_TOP(self, inst):
        self.pop()

    def PUSH_NULL(self, inst):
        self.push(v.NullVariable())

    def COPY(self, inst):
        self.push(self.stack[-inst.arg])

    def SWAP(self, inst):
        self.stack[-1], self.stack[-inst.arg] = self.stack[-inst.arg], self.stack[-1]

    # ------------------------------------------------------------------ operators

    def BINARY_OP(self, inst):
        rhs, lhs = self.pop(), self.pop()
        if inst.argrepr.endswith("="):  # ``a += b``: in place where ``a`` is mutable
            self.push(inplace_binary(self, inst.argrepr[:-1], lhs, rhs))
        else:
            self.push(binary(self, inst.argrepr, lhs, rhs))

    def COMPARE_OP(self, inst):
        rhs, lhs = self.pop(), self.pop()
        result = binary(self, inst.argval, lhs, rhs)  # dis decodes the operator of every version's oparg
        bool_bit = self.bytecode.compare_bool_bit
        if bool_bit and inst.arg & bool_bit and not isinstance(result, v.TensorVariable):
            # 3.13: the result goes straight to a conditional jump, as bool. An array's truth
            # is left to that jump, which breaks the graph there, as in 3.11 and 3.12.
            result = v.ConstantVariable(result.truth(self))
        self.push(result)

    def IS_OP(self, inst):
        rhs, lhs = self.pop(), self.pop()
        same = identical(lhs, rhs)
        self.push(v.ConstantVariable(same != bool(inst.arg)))

    def CONTAINS_OP(self, inst):
        container, item = self.pop(), self.pop()
        if isinstance(container, v.DictVariable):
            found = item.as_constant() in container.items
        else:
            found = any(
                identical(item, x) or (item.is_constant() and x.is_constant() and item.as_constant() == x.as_constant())
                for x in container.iterate(self)
            )
        self.push(v.ConstantVariable(found != bool(inst.arg)))

    def UNARY_NEGATIVE(self, inst):
        self.push(unary(self, "neg", self.pop()))

    def UNARY_POSITIVE(self, inst):
        self.push(unary(self, "pos", self.pop()))

    def UNARY_INVERT(self, inst):
        self.push(unary(self, "invert", self.pop()))

    def UNARY_NOT(self, inst):
        self.push(v.ConstantVariable(not self.pop().truth(self)))

    def TO_BOOL(self, inst):  # 3.13: bool() before a conditional jump or ``not``
        value = self.pop()
        jump = self.instructions[self.ip]
        if branches.condition(value) and jump.opname in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE"):
            self.ip += 1
            if branches.trace_both(self, jump, value, jump.opname.endswith("TRUE")):
                return
            self.ip -= 1
        self.push(v.ConstantVariable(value.truth(self)))

    def CALL_INTRINSIC_1(self, inst):  # 3.12+
        if inst.argrepr == bytecode_versions.INTRINSIC_LIST_TO_TUPLE:
            self.LIST_TO_TUPLE(inst)
        elif inst.argrepr == bytecode_versions.INTRINSIC_UNARY_POSITIVE:
            self.UNARY_POSITIVE(inst)
        else:
            raise Unsupported(f"the intrinsic {inst.argrepr or inst.arg}")

    # ------------------------------------------------------------------ building

    def BUILD_TUPLE(self, inst):
        self.push(v.TupleVariable(self.popn(inst.arg)))

    def BUILD_LIST(self, inst):
        self.push(v.ListVariable(self.popn(inst.arg)))

    def BUILD_SET(self, inst):
        items = self.popn(inst.arg)
        self.push(v.ConstantVariable(frozenset(i.as_constant() for i in items)))  # for `in` tests

    def BUILD_MAP(self, inst):
        flat = self.popn(2 * inst.arg)
        self.push(v.DictVariable({flat[i].as_constant(): flat[i + 1] for i in range(0, len(flat), 2)}))

    def BUILD_CONST_KEY_MAP(self, inst):
        keys = self.pop().as_constant()
        self.push(v.DictVariable(dict(zip(keys, self.popn(inst.arg)))))

    def BUILD_SLICE(self, inst):
        parts = self.popn(inst.arg)
        if len(parts) == 2:
            parts.append(v.ConstantVariable(None))
        self.push(v.SliceVariable(*parts))

    def BUILD_STRING(self, inst):
        self.push(v.ConstantVariable("".join(p.as_constant() for p in self.popn(inst.arg))))

    def FORMAT_VALUE(self, inst):  # 3.11, 3.12
        spec = self.pop().as_constant() if inst.arg & 0x04 else ""
        value = self.pop().as_constant()
        convert = bytecode_versions.CONVERSIONS.get(inst.arg & 0x03)
        self.push(v.ConstantVariable(format(convert(value) if convert else value, spec)))

    def CONVERT_VALUE(self, inst):  # 3.13: ``!s``, ``!r``, ``!a``
        convert = bytecode_versions.CONVERSIONS[inst.arg]
        self.push(v.ConstantVariable(convert(self.pop().as_constant())))

    def FORMAT_SIMPLE(self, inst):  # 3.13
        self.push(v.ConstantVariable(format(self.pop().as_constant(), "")))

    def FORMAT_WITH_SPEC(self, inst):  # 3.13
        spec = self.pop().as_constant()
        self.push(v.ConstantVariable(format(self.pop().as_constant(), spec)))

    def LIST_APPEND(self, inst):
        item = self.pop()
        self.stack[-inst.arg].items.append(item)

    def LIST_EXTEND(self, inst):
        items = self.pop().iterate(self)
        self.stack[-inst.arg].items.extend(items)

    def SET_ADD(self, inst):
        raise Unsupported("set comprehensions")

    def MAP_ADD(self, inst):
        value, key = self.pop(), self.pop()
        self.stack[-inst.arg].items[key.as_constant()] = value

    def DICT_UPDATE(self, inst):
        other = self.pop()
        if not isinstance(other, v.DictVariable):
            raise Unsupported("dict update from a non-dict")
        self.stack[-inst.arg].items.update(other.items)

    DICT_MERGE = DICT_UPDATE

    def LIST_TO_TUPLE(self, inst):
        self.push(v.TupleVariable(list(self.pop().items)))

    def UNPACK_SEQUENCE(self, inst):
        items = self.pop().iterate(self)
        if len(items) != inst.arg:
            raise v.UserError(ValueError(f"expected {inst.arg} values to unpack, got {len(items)}"))
        self.stack.extend(reversed(items))

    def UNPACK_EX(self, inst):
        items = self.pop().iterate(self)
        before, after = inst.arg & 0xFF, inst.arg >> 8
        if len(items) < before + after:
            raise v.UserError(ValueError("not enough values to unpack"))
        middle = v.ListVariable(items[before : len(items) - after])
        self.stack.extend(reversed(items[:before] + [middle] + items[len(items) - after :]))

    # ------------------------------------------------------------------ control flow

    def JUMP_FORWARD(self, inst):
        self.jump(inst)

    JUMP_BACKWARD = JUMP_FORWARD
    JUMP_BACKWARD_NO_INTERRUPT = JUMP_FORWARD

    def _pop_jump(self, inst, when: bool):
        value = self.pop()
        if branches.condition(value) and branches.trace_both(self, inst, value, when):
            return  # both ways, merged by a select: the frame is where the branches meet
        if value.truth(self) == when:
            self.jump(inst)

    def POP_JUMP_FORWARD_IF_TRUE(self, inst):
        self._pop_jump(inst, True)

    def POP_JUMP_FORWARD_IF_FALSE(self, inst):
        self._pop_jump(inst, False)

    # 3.11 has forward and backward variants; 3.12+ one of each (dis gives the target either way)
    POP_JUMP_BACKWARD_IF_TRUE = POP_JUMP_IF_TRUE = POP_JUMP_FORWARD_IF_TRUE
    POP_JUMP_BACKWARD_IF_FALSE = POP_JUMP_IF_FALSE = POP_JUMP_FORWARD_IF_FALSE

    def _pop_jump_none(self, inst, when_none: bool):
        value = self.pop()
        is_none = value.is_constant() and value.as_constant() is None
        if is_none == when_none:
            self.jump(inst)

    def POP_JUMP_FORWARD_IF_NONE(self, inst):
        self._pop_jump_none(inst, True)

    def POP_JUMP_FORWARD_IF_NOT_NONE(self, inst):
        self._pop_jump_none(inst, False)

    POP_JUMP_BACKWARD_IF_NONE = POP_JUMP_IF_NONE = POP_JUMP_FORWARD_IF_NONE
    POP_JUMP_BACKWARD_IF_NOT_NONE = POP_JUMP_IF_NOT_NONE = POP_JUMP_FORWARD_IF_NOT_NONE

    def JUMP_IF_TRUE_OR_POP(self, inst):
        if self.stack[-1].truth(self):
            self.jump(inst)
        else:
            self.pop()

    def JUMP_IF_FALSE_OR_POP(self, inst):
        if not self.stack[-1].truth(self):
            self.jump(inst)
        else:
            self.pop()

    def GET_ITER(self, inst):
        iterable = self.pop()
        rows = _row_count(self, iterable)
        if rows is not None:  # an array's rows, each made when the loop reaches it
            self.push(
                v.IteratorVariable(
                    [],
                    range=range(rows),
                    make=lambda i: self.emit("getitem", iterable, v.wrap_constant(i) if type(i) is int else i),
                )
            )
            return
        if isinstance(iterable, v.ListIteratorSource) and isinstance(iterable.items, v.RangeItems):
            self.push(v.IteratorVariable(iterable.items, range=iterable.range))  # immutable: shared
            return
        self.push(v.IteratorVariable(iterable.iterate(self), range=getattr(iterable, "range", None)))

    def FOR_ITER(self, inst):
        if loops.wanted(self, inst, self.stack[-1]) and loops.capture(self, inst, self.stack[-1]):
            return  # traced as one scf.for: the frame is past the loop
        loops.too_large_ahead(self, inst, self.stack[-1])
        item = self.stack[-1].next()
        if item is None:
            self.pop()
            self.jump(inst)
            self.ip += self.bytecode.for_iter_exit_skip  # 3.12+: past the END_FOR (and POP_TOP) there
        else:
            self.push(item)

    def END_FOR(self, inst):  # 3.12+ (skipped by an exhausted FOR_ITER)
        self.popn(self.bytecode.end_for_pops)

    def RETURN_VALUE(self, inst):
        raise _Return(self.pop())

    def RETURN_CONST(self, inst):  # 3.12+
        raise _Return(v.wrap_constant(inst.argval))

    # ------------------------------------------------------------------ calls

    def KW_NAMES(self, inst):  # 3.11, 3.12
        self.kw_names = self.code.co_consts[inst.arg]  # dis leaves argval unresolved for KW_NAMES

    def CALL(self, inst):
        names, self.kw_names = self.kw_names, ()
        self._call(inst.arg, names)

    def CALL_KW(self, inst):  # 3.13: the keyword names are a tuple on top of the arguments
        self._call(inst.arg, self.pop().as_constant())

    def _call(self, argc: int, names: tuple):
        args = self.popn(argc)
        second, first = self.pop(), self.pop()
        if self.bytecode.callable_first:  # 3.13: callable, then self or NULL
            fn = first
            if not isinstance(second, v.NullVariable):
                args = [second] + args
        elif isinstance(first, v.NullVariable):  # 3.11, 3.12: NULL, callable / method, self
            fn = second
        else:
            fn, args = first, [second] + args
        kwargs = dict(zip(names, args[len(args) - len(names) :])) if names else {}
        if names:
            args = args[: len(args) - len(names)]
        self.push(fn.call(self, args, kwargs))

    def CALL_FUNCTION_EX(self, inst):
        kwargs = self.pop() if inst.arg & 1 else v.DictVariable({})
        args = self.pop()
        if self.bytecode.callable_first:  # 3.13: callable, NULL, args[, kwargs]
            self.pop()
            fn = self.pop()
        else:  # 3.11, 3.12: NULL, callable, args[, kwargs]
            fn = self.pop()
            if self.stack and isinstance(self.stack[-1], v.NullVariable):
                self.pop()
        if not isinstance(kwargs, v.DictVariable):
            raise Unsupported("** with a non-dict")
        self.push(fn.call(self, args.iterate(self), dict(kwargs.items)))

    def MAKE_FUNCTION(self, inst):
        code = self.pop().as_constant()
        flags = inst.arg if self.bytecode.make_function_flags else 0  # 3.13: SET_FUNCTION_ATTRIBUTE instead
        closure = tuple(self.pop().items) if flags & 0x08 else ()
        if flags & 0x04:
            self.pop()  # annotations
        kwdefaults = self.pop().items if flags & 0x02 else {}
        defaults = tuple(self.pop().items) if flags & 0x01 else ()
        self.push(v.NestedFunctionVariable(code, self.f_globals, code.co_qualname, defaults, kwdefaults, closure))

    def SET_FUNCTION_ATTRIBUTE(self, inst):  # 3.13: the function on top, the attribute's value below
        fn, value = self.pop(), self.pop()
        if inst.arg == 0x08:
            fn = dataclasses.replace(fn, closure=tuple(value.items))
        elif inst.arg == 0x02:
            fn = dataclasses.replace(fn, kwdefaults=value.items)
        elif inst.arg == 0x01:
            fn = dataclasses.replace(fn, defaults=tuple(value.items))
        elif inst.arg != 0x04:  # 0x04: annotations, unused
            raise Unsupported(f"the function attribute flag {inst.arg:#x}")
        self.push(fn)

    # ------------------------------------------------------------------ unsupported on purpose

    def RAISE_VARARGS(self, inst):
        raise Unsupported("raise", hint="the function raises: CPython runs it")

    def BEFORE_WITH(self, inst):
        manager = self.pop()
        if not isinstance(manager, v.InertContextVariable):
            raise Unsupported(
                f"a with block over {manager}", hint="only np.errstate and contextlib.nullcontext are traced through"
            )
        self.push(v.ExitVariable())
        self.push(manager.enter(self))


# ---------------------------------------------------------------------- helpers


ARRAY_ATTRIBUTES = ("shape", "ndim", "dtype", "size", "itemsize", "nbytes", "T", "real", "imag")


def _specialized_scalars(args, kwargs):
    """``args, kwargs`` with every unspecialized float argument (``scalar_inputs``) made a
    constant, or None when there is none. Why: a rule that needs a Python value where such
    a float is passed (``np.linalg.norm(x, ord)``, ``np.percentile(x, q)``) fails on the
    traced scalar; as TorchDynamo specializes a number used as a Python value, the call is
    traced again with the value guarded."""
    from compiler.frontend.scalar_inputs import ScalarVariable

    if not any(isinstance(a, ScalarVariable) for a in (*args, *kwargs.values())):
        return None

    def constant(a):
        return a.specialize() if isinstance(a, ScalarVariable) else a

    return [constant(a) for a in args], {k: constant(a) for k, a in kwargs.items()}


def _takes_symbolic_ints(fn) -> bool:
    """Whether the NumPy rule for ``fn`` reads symbolic ints itself: shapes, indices and
    ufunc operands (``numpy_creation``, ``numpy_indexing``, ``numpy_elementwise``)."""
    from compiler.frontend.numpy_semantics import SYMBOLIC_INT_RULES

    try:
        return fn in SYMBOLIC_INT_RULES or isinstance(fn, np.ufunc)
    except TypeError:
        return False


def _returns_operand(fn, kwargs) -> bool:
    """``np.asarray(x)`` (and ``np.array(x, copy=False|None)``) of an array of the
    requested dtype is ``x`` itself, not a copy; so is ``x.conj()`` of a real array."""
    import numpy as np

    if fn is np.asarray or fn is getattr(np, "asanyarray", None):
        return True
    if isinstance(fn, str) and fn in ("conj", "conjugate", "real"):  # x.conj(), x.real of a real array: x
        return True
    if fn is np.real:
        return True
    if fn is np.array:
        copy = kwargs.get("copy")
        return copy is not None and copy.is_constant() and copy.as_constant() in (False, None)
    return False


def _module_global_source(f_globals, name):
    """A global of another module, read by an inlined function: guarded through that module."""
    module_name = f_globals.get("__name__")
    import sys

    module = sys.modules.get(module_name)
    if module is None or module.__dict__ is not f_globals:
        return None
    return _ModuleAttr(module_name, name)


class _ModuleAttr(Source):
    def __init__(self, module_name, attr):
        self.module_name, self.attr = module_name, attr

    def expr(self):
        return f"{generated('MODULES')}[{self.module_name!r}].{self.attr}"

    def name(self):
        return f"{self.module_name}.{self.attr}"

    def __eq__(self, other):
        return isinstance(other, _ModuleAttr) and (other.module_name, other.attr) == (self.module_name, self.attr)

    def __hash__(self):
        return hash((self.module_name, self.attr))
