"""Generating the Python code of a cache entry: guards, graph call, result, effects.

An entry is one generated function with the *same parameters as the user's
function*, so Python itself binds positional, keyword and default arguments. Its
body checks the guards (in installation order, so a container's length is checked
before its elements are read), fetches the graph's inputs through their sources,
calls the compiled graph, replays the side effects the traced code had on outside
objects, and rebuilds the return value from graph outputs and constants::

    def entry(x, y):
        if not (type(x) is OBJ0 and x.dtype is OBJ1 and x.shape == (8,) and ...):
            return MISS
        OUT = GRAPH(x, y)
        return OUT[0][()]

The source is kept (``entry.__ember_source__``) for logs and debugging.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np

from compiler.errors import Unsupported
from compiler.frontend import variables as v

MISS = object()  # what an entry returns when its guards fail
_LITERALS = (bool, int, float, str, type(None))


@dataclass
class ResultPlan:
    """How to rebuild values from graph outputs: the outputs to request and an expression."""

    outputs: list = field(default_factory=list)  # TensorVariables the graph must return
    namespace: dict = field(default_factory=dict)
    input_index: object = None  # callable: tracker -> graph input index or None
    input_sources: list = field(default_factory=list)

    def ref(self, obj) -> str:
        name = f"CONST{len(self.namespace)}"
        self.namespace[name] = obj
        return name

    def expr(self, tracker) -> str:
        if isinstance(tracker, v.TensorVariable):
            index = self.input_index(tracker)
            if index is not None:
                return self.input_sources[index].expr()
            k = next((i for i, t in enumerate(self.outputs) if t.tensor.value == tracker.tensor.value), None)
            if k is None:
                k = len(self.outputs)
                self.outputs.append(tracker)
            return f"OUT[{k}][()]" if returns_numpy_scalar(tracker) else f"OUT[{k}]"
        if isinstance(tracker, v.ConstantVariable):
            value = tracker.value
            if isinstance(value, _LITERALS) and not (
                isinstance(value, float) and (value != value or value in (float("inf"), float("-inf")))
            ):
                return repr(value)
            return self.ref(value)
        if isinstance(tracker, v.BaseListVariable):
            if tracker.source is not None:
                return tracker.source.expr()  # the caller's own object (mutations are replayed)
            inner = ", ".join(self.expr(i) for i in tracker.items)
            if isinstance(tracker, v.TupleVariable):
                return f"({inner},)" if inner else "()"
            return f"[{inner}]"
        if isinstance(tracker, v.DictVariable):
            if tracker.source is not None:
                return tracker.source.expr()
            return "{" + ", ".join(f"{k!r}: {self.expr(val)}" for k, val in tracker.items.items()) + "}"
        source = getattr(tracker, "source", None)
        if source is not None:
            return source.expr()
        obj = _python_object(tracker)
        if obj is not None:
            return self.ref(obj)
        raise Unsupported(f"returning {tracker} from a compiled function")


def _python_object(tracker):
    """The Python object a function, module or class tracker stands for."""
    if isinstance(tracker, (v.PythonFunctionVariable, v.NumpyCallableVariable)) and tracker.self_var is None:
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


def effect_lines(plan: ResultPlan, mutated, attribute_writes, global_writes) -> list[str]:
    lines = []
    for container in mutated:
        src = container.source.expr()
        if isinstance(container, v.ListVariable):
            lines.append(f"    {src}[:] = [{', '.join(plan.expr(i) for i in container.items)}]")
        else:
            items = ", ".join(f"{k!r}: {plan.expr(val)}" for k, val in container.items.items())
            lines += [f"    _d = {src}", "    _d.clear()", f"    _d.update({{{items}}})"]
    for obj, name, value in attribute_writes:
        lines.append(f"    {obj.source.expr()}.{name} = {plan.expr(value)}")
    for name, value in global_writes.items():
        lines.append(f"    G[{name!r}] = {plan.expr(value)}")
    return lines


def parameters_text(fn, namespace: dict) -> str:
    """The user function's parameter list, defaults bound to its current default objects."""
    parts = []
    for p in inspect.signature(fn).parameters.values():
        text = p.name
        if p.kind is p.VAR_POSITIONAL:
            text = "*" + p.name
        elif p.kind is p.VAR_KEYWORD:
            text = "**" + p.name
        if p.default is not p.empty:
            key = f"DEFAULT_{p.name}"
            namespace[key] = p.default
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
):
    scope = {
        "MISS": MISS,
        "GRAPH": graph,
        "G": fn.__globals__,
        "CELLS": fn.__closure__,
        "np": np,
        "MODULES": __import__("sys").modules,
    }
    scope.update(guard_objects)
    scope.update(namespace)
    params = parameters_text(fn, scope)
    lines = [f"def {name}({params}):"]
    conditions = [g.expr for g in guards]
    if fn.__defaults__ or fn.__kwdefaults__:
        # The defaults above are today's objects: a reassigned __defaults__ is a new entry.
        scope.update(FN=fn, FN_DEFAULTS=fn.__defaults__, FN_KWDEFAULTS=fn.__kwdefaults__)
        conditions.insert(0, "FN.__defaults__ is FN_DEFAULTS and FN.__kwdefaults__ is FN_KWDEFAULTS")
    if conditions:
        condition = " and\n                ".join(f"({c})" for c in conditions)
        lines += [
            "    try:",
            f"        if not ({condition}):",
            "            return MISS",
            "    except Exception:",
            "        return MISS",
        ]
    if graph is not None:
        lines.append(f"    OUT = GRAPH({', '.join(input_exprs)})")
    lines += body_lines
    lines.append(f"    return {result_expr}")
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<ember entry {fn.__qualname__}>", "exec"), scope)
    entry = scope[name]
    entry.__ember_source__ = source
    return entry
