"""Generating the Python code of a cache entry: guards, graph call, result, effects.

An entry is one generated function with the *same parameters as the user's
function*, so Python itself binds positional, keyword and default arguments. Its
body checks the guards (in installation order, so a container's length is checked
before its elements are read), fetches the graph's inputs through their sources,
calls the compiled graph, rebuilds the return value from graph outputs and
constants, and replays the side effects the traced code had on outside objects::

    def entry(x, y):
        if not (__ember_type(x) is __ember_OBJ0 and x.dtype is __ember_OBJ1 and ...):
            return __ember_MISS
        __ember_OUT = __ember_GRAPH(x, y)
        return __ember_OUT[0][()]

Every name the code uses besides the parameters is spelled with
``sources.RESERVED_PREFIX`` (``generated(...)``), builtins included: a parameter
called ``G``, ``OUT``, ``np`` or ``type`` is just the user's value.

Effects are replayed after everything they and the result read has been read: the
traced code's reads saw the objects as they were before the call, so all new
contents, the objects written to and the result are evaluated first, then written.

The source is kept (``entry.__ember_source__``) for logs and debugging.
"""

from __future__ import annotations

import inspect
import re
import types
from dataclasses import dataclass, field

from compiler.errors import Unsupported
from compiler.frontend import mutation
from compiler.frontend import variables as v
from compiler.frontend.sources import RESERVED_PREFIX, builtin_names, generated

MISS = object()  # what an entry returns when its guards fail
_OUT, _MISS, _GRAPH, _RESULT = generated("OUT"), generated("MISS"), generated("GRAPH"), generated("R")
MISS_RETURN = f"return {_MISS}"  # an entry's statement where its guards fail
_LITERALS = (bool, int, float, str, type(None))
_OUTPUT_EXPR = re.compile(re.escape(_OUT) + r"\[(\d+)\](?:\[\(\)\])?")


@dataclass
class ResultPlan:
    """How to rebuild values from graph outputs: the outputs to request and an expression."""

    outputs: list = field(default_factory=list)  # TensorVariables the graph must return
    namespace: dict = field(default_factory=dict)
    input_index: object = None  # callable: tracker -> graph input index or None
    input_sources: list = field(default_factory=list)
    uses: dict = field(default_factory=dict)  # output index -> how many expressions read it
    size_exprs: dict = field(default_factory=dict)  # symbolic source name -> the entry's text for it

    def ref(self, obj) -> str:
        name = generated(f"CONST{len(self.namespace)}")
        self.namespace[name] = obj
        return name

    def size_text(self, size) -> str:
        """A SymInt as Python over the arguments (``(2*x.shape[0])``): no sympy per call."""
        text = size.env.format(size.expr, source_expr=self.size_exprs.__getitem__, builtin=generated)
        return f"({text})"

    def expr(self, tracker) -> str:
        if isinstance(tracker, v.TensorVariable):
            index = self.input_index(tracker)
            if index is not None:
                return self.input_sources[index].expr()
            view = mutation.array_expr(self, tracker)  # a view: made from its base here
            if view is not None:
                return view
            k = next((i for i, t in enumerate(self.outputs) if t.tensor.value == tracker.tensor.value), None)
            if k is None:
                k = len(self.outputs)
                self.outputs.append(tracker)
            self.uses[k] = self.uses.get(k, 0) + 1
            if getattr(tracker.tensor, "weak", False):  # a Python number computed in the graph
                kind = "float" if tracker.tensor.dtype.kind == "f" else "int"
                return f"{generated(kind)}({_OUT}[{k}][()])"
            return f"{_OUT}[{k}][()]" if returns_numpy_scalar(tracker) else f"{_OUT}[{k}]"
        if isinstance(tracker, v.SymIntVariable):  # computed from the sizes' sources, in Python
            return self.size_text(tracker.value)
        if isinstance(tracker, v.ConstantVariable):
            value = tracker.value
            if type(value) in _LITERALS and not (
                isinstance(value, float) and (value != value or value in (float("inf"), float("-inf")))
            ):
                return repr(value)
            return self.ref(value)
        entry_expr = getattr(tracker, "entry_expr", None)
        if entry_expr is not None:  # a tracker that builds itself from outputs (numpy_linalg.LstsqResiduals)
            return entry_expr(self)
        if isinstance(tracker, v.BaseListVariable):
            if tracker.source is not None:
                return tracker.source.expr()  # the caller's own object (mutations are replayed)
            inner = ", ".join(self.expr(i) for i in tracker.items)
            if isinstance(tracker, v.NamedTupleVariable):
                return f"{self.ref(tracker.cls)}({inner})"
            if isinstance(tracker, v.TupleVariable):
                return f"({inner},)" if inner else "()"
            return f"[{inner}]"
        if isinstance(tracker, v.DictVariable):
            if tracker.source is not None:
                return tracker.source.expr()
            return "{" + ", ".join(f"{k!r}: {self.expr(val)}" for k, val in tracker.items.items()) + "}"
        if isinstance(tracker, v.PythonFunctionVariable) and tracker.self_var is not None:
            function = tracker.source.expr() if tracker.source is not None else self.ref(tracker.fn)
            return f"{self.ref(types.MethodType)}({function}, {self.expr(tracker.self_var)})"  # a bound method
        source = getattr(tracker, "source", None)
        if source is not None:
            return source.expr()
        obj = _python_object(tracker)
        if obj is not None:
            return self.ref(obj)
        if isinstance(tracker, v.NumpyCallableVariable) and isinstance(tracker.fn, str):
            return f"{self.expr(tracker.self_var)}.{tracker.fn}"  # a method of an array: ``x.item``
        raise Unsupported(f"returning {tracker} from a compiled function")


def _python_object(tracker):
    """The Python object a function, module or class tracker stands for."""
    if isinstance(tracker, (v.PythonFunctionVariable, v.NumpyCallableVariable)) and tracker.self_var is None:
        return tracker.fn
    if isinstance(tracker, (v.BuiltinVariable, v.BoundBuiltinVariable)):
        return tracker.fn
    if isinstance(tracker, v.ModuleVariable):
        return tracker.module
    if isinstance(tracker, v.ClassVariable):
        return tracker.cls
    return None


def returns_numpy_scalar(tracker: v.TensorVariable) -> bool:
    """NumPy gives a scalar, not a 0-d array, for 0-d results of ufuncs, reductions and
    integer indexing; shape ops keep whatever their operand was."""
    if tracker.tensor.type.rank != 0:
        return False
    return bool(getattr(tracker.tensor, "scalar", True))


@dataclass
class Effects:
    """The entry's effect lines (``effect_lines``): ``reads`` run before the result is
    read, ``writes`` after; ``array_outputs[j]`` is the graph output that the write
    ``writes[j]`` copies into a caller's array (None: no graph output)."""

    reads: list
    writes: list
    array_outputs: list

    def without(self, written_by_graph: dict) -> Effects:
        """These effects less the copies of outputs the compiled graph already wrote into
        their arrays (``written_by_graph``: output index -> input index, an in-out
        kernel's ``written_inputs``); the first read of each array write fetches its
        target."""
        kept = [k not in written_by_graph for k in self.array_outputs]
        n = len(kept)
        return Effects(
            [line for j, line in enumerate(self.reads) if j >= n or kept[j]],
            [line for j, line in enumerate(self.writes) if j >= n or kept[j]],
            [k for k, keep in zip(self.array_outputs, kept) if keep],
        )


def effect_lines(plan: ResultPlan, mutated, attribute_writes, global_writes, array_writes=()) -> Effects:
    """The lines that evaluate every new value and every object written to, then the
    lines that write them. All reads come first: the traced code read the objects
    before it changed them (``v = d['x']; d['x'] = 5`` reads the old value).

    ``array_writes``: (source, final value tracker) of each caller's array the graph
    wrote (in-place NumPy): ``x[...] = OUT[k]`` into the array object the source named
    before any container was changed."""
    reads, writes, array_outputs = [], [], []

    def read(expr: str) -> str:
        name = generated(f"E{len(reads)}")
        reads.append(f"    {name} = {expr}")
        return name

    for source, value in array_writes:
        target = read(source.expr())
        expr = plan.expr(value)
        match = _OUTPUT_EXPR.fullmatch(expr)
        array_outputs.append(int(match[1]) if match else None)
        writes.append(f"    {target}[...] = {expr}")

    for container in mutated:
        target = read(container.source.expr())
        if isinstance(container, v.ListVariable):
            value = read(f"[{', '.join(plan.expr(i) for i in container.items)}]")
            writes.append(f"    {target}[:] = {value}")
        else:
            items = ", ".join(f"{k!r}: {plan.expr(val)}" for k, val in container.items.items())
            value = read(f"{{{items}}}")
            writes += [f"    {target}.clear()", f"    {target}.update({value})"]
    for obj, name, value in attribute_writes:
        target, new = read(obj.source.expr()), read(plan.expr(value))
        writes.append(f"    {target}.{name} = {new}")
    for name, value in global_writes.items():
        new = read(plan.expr(value))
        writes.append(f"    {generated('G')}[{name!r}] = {new}")
    return Effects(reads, writes, array_outputs)


def inout_outputs(plan: ResultPlan, effects: Effects, array_writes, input_types) -> dict[int, int]:
    """output index -> input index, for each graph output that is the final value of a
    written caller's array and read by nothing else: a backend may write it into that
    array directly (``ember.inout``). An output also returned, or copied into two
    arrays, must stay a fresh array."""
    found = {}
    for k, (source, _) in zip(effects.array_outputs, array_writes, strict=True):
        if k is None or plan.uses.get(k) != 1 or source not in plan.input_sources:
            continue
        i = plan.input_sources.index(source)
        if plan.outputs[k].tensor.type == input_types[i]:
            found[k] = i
    return found


def check_expr(plan: ResultPlan, output) -> str | None:
    """The entry's expression of the graph's run-time check (``EmitterCore.add_check``), if
    any: a 0-d bool output, true when NumPy would raise (an index out of bounds). The
    entry then re-runs the whole call in CPython (``build_entry``), so the error, its
    message and the caller's arrays are NumPy's own."""
    emitter = getattr(output, "_emitter", None)
    failed = getattr(emitter, "check", None)
    if failed is None:
        return None
    return plan.expr(v.TensorVariable(failed))


def call_text(fn) -> str:
    """The arguments passing an entry's parameters on to ``fn`` unchanged."""
    parts = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            parts.append("*" + p.name)
        elif p.kind is p.VAR_KEYWORD:
            parts.append("**" + p.name)
        elif p.kind is p.KEYWORD_ONLY:
            parts.append(f"{p.name}={p.name}")
        else:
            parts.append(p.name)
    return ", ".join(parts)


def reserved_parameter(fn) -> str | None:
    """A parameter of ``fn`` spelled like a name of the generated code, if any."""
    code = fn.__code__
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return next((n for n in code.co_varnames[:count] if n.startswith(RESERVED_PREFIX)), None)


def parameters_text(fn, namespace: dict, placeholder=None) -> str:
    """The user function's parameter list, defaults bound to its current default objects
    (or all to ``placeholder``, when given: the dispatcher's "omitted")."""
    parts = []
    for p in inspect.signature(fn).parameters.values():
        text = p.name
        if p.kind is p.VAR_POSITIONAL:
            text = "*" + p.name
        elif p.kind is p.VAR_KEYWORD:
            text = "**" + p.name
        if p.default is not p.empty:
            key = generated(f"DEFAULT_{p.name}")
            namespace[key] = p.default if placeholder is None else placeholder
            text += f"={key}"
        parts.append((p.kind, text))
    out, star_done = [], False
    for kind, text in parts:
        if kind is inspect.Parameter.KEYWORD_ONLY and not star_done:
            out.append("*")
            star_done = True
        if kind is inspect.Parameter.VAR_POSITIONAL:
            star_done = True
        out.append(text)
    if any(k is inspect.Parameter.POSITIONAL_ONLY for k, _ in parts):
        last = max(i for i, (k, _) in enumerate(parts) if k is inspect.Parameter.POSITIONAL_ONLY)
        out.insert(last + 1, "/")
    return ", ".join(out)


def build_entry(
    fn,
    guards,
    guard_objects: dict,
    input_exprs: list[str],
    graph,
    body_lines: list[str],
    result_expr: str,
    namespace: dict,
    name: str = "entry",
    write_lines: list[str] = (),
    check_expr: str | None = None,
    inline_graph=None,
):
    """``body_lines`` run before the result is read, ``write_lines`` after it (the reads
    and the writes ``effect_lines`` makes). ``check_expr`` (``check_expr()``), when true
    right after the graph ran, makes the entry run the plain function instead: nothing
    the graph computed is used and nothing has been written yet. ``inline_graph(inputs,
    result, prefix)`` (a CPU kernel's ``inline_guarded_call``) gives the graph's call
    as statements for the entry to contain, or None."""
    scope = {
        _MISS: MISS,
        _GRAPH: graph,
        generated("G"): fn.__globals__,
        generated("CELLS"): fn.__closure__,
        generated("MODULES"): __import__("sys").modules,
        **builtin_names(),
    }
    scope.update(guard_objects)
    scope.update(namespace)
    params = parameters_text(fn, scope)
    lines = [f"def {name}({params}):"]
    conditions = [g.expr for g in guards]
    if fn.__defaults__ or fn.__kwdefaults__:
        # The defaults above are today's objects: a reassigned __defaults__ is a new entry.
        fn_, defaults, kwdefaults = generated("FN"), generated("FN_DEFAULTS"), generated("FN_KWDEFAULTS")
        scope.update({fn_: fn, defaults: fn.__defaults__, kwdefaults: fn.__kwdefaults__})
        conditions.insert(0, f"{fn_}.__defaults__ is {defaults} and {fn_}.__kwdefaults__ is {kwdefaults}")
    if conditions:
        condition = " and\n                ".join(f"({c})" for c in conditions)
        # The miss is returned outside the ``try``: a dispatcher containing this body
        # (dispatcher.py) makes it a call of its other entries, and an exception that
        # call raises (the user's code, run by a new entry) must reach the caller, not
        # the guard's ``except`` (which called the other entries again: the function ran
        # twice, its prints and in-place writes doubled).
        ok = generated("GUARDS_PASS")
        lines += [
            "    try:",
            f"        {ok} = ({condition})",
            f"    except {generated('Exception')}:",
            f"        {ok} = False",
            f"    if not {ok}:",
            f"        {MISS_RETURN}",
        ]
    if graph is not None:
        inlined = inline_graph(input_exprs, _OUT, generated("K_")) if inline_graph is not None else None
        if inlined is None:
            lines.append(f"    {_OUT} = {_GRAPH}({', '.join(input_exprs)})")
        else:  # the graph's call path written out here: one Python frame less per call
            lines += inlined[0]
            scope.update(inlined[1])
        if check_expr is not None:
            plain = generated("PLAIN")
            scope[plain] = fn
            lines += [f"    if {check_expr}:", f"        return {plain}({call_text(fn)})"]
    lines += body_lines
    if write_lines:  # the result is read before the writes change what it reads
        lines += [f"    {_RESULT} = {result_expr}", *write_lines, f"    return {_RESULT}"]
    else:
        lines.append(f"    return {result_expr}")
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<ember entry {fn.__qualname__}>", "exec"), scope)
    entry = scope[name]
    entry.__ember_source__ = source
    entry.__ember_body__ = lines[1:]  # for a dispatcher to contain (dispatcher.py): MISS_RETURN where it misses
    return entry
