"""Graph breaks: compile what comes before an instruction Ember cannot trace, run that
instruction in CPython, and continue in a resume function.

A trace that fails at an instruction of the traced function itself (not of a
function it inlined: a failure there breaks at the call in the traced function, as
TorchDynamo does) is traced again and stopped just *before* that instruction
(``InstructionTranslator.stop_at``), so that the graph, the guards and the state —
the value stack and the local variables — are exactly those before it; the first
trace may have half-executed it. The cache entry then:

1. checks the guards and calls the graph (the work before the break),
2. replays the side effects traced so far (array write-backs, list/dict/attribute
   and global writes), in order, once,
3. runs the breaking instruction in Python — a call (``print(...)``, an unsupported
   function) or a conditional jump on a value the graph computed
   (``if x.sum() > 0:``) — on the values rebuilt from graph outputs, sources and
   constants,
4. returns the resume function's result (``resume.py``), called with the local
   variables and the stack as they are after the instruction. For a jump, the
   entry calls the resume function of the branch taken; each is compiled on its
   first call, so both directions end up compiled.

Breaks are not taken inside loops (the loop would resume once per iteration, one
call deeper each time): such a function runs in CPython, as TorchDynamo skips the
frame. Nor in generators, coroutines, or functions whose locals are captured by an
inner function (cells), nor where a value on the stack or a local cannot be rebuilt
outside the trace (an iterator, say); those run in CPython too, with the reason.
"""

from __future__ import annotations

import linecache
import sys
from dataclasses import dataclass

from compiler.errors import Location, Unsupported
from compiler.frontend import variables as v
from compiler.frontend.resume import in_loop, resume_function
from compiler.frontend.sources import generated

_GENERATOR_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator
_VALUE = generated("V")

# The stack below a CALL's arguments: 3.11 and 3.12 push (NULL, callable) or (method,
# self); 3.13 pushes (callable, NULL) or (callable, self).
_CALLABLE_FIRST = sys.version_info >= (3, 13)


@dataclass
class BreakPoint:
    """Where a trace breaks: the root translator stopped before instruction ``index``."""

    index: int
    reason: Unsupported


def break_point(fn, error: Unsupported) -> BreakPoint | None:
    """The instruction of ``fn`` itself that ``error`` stopped the trace at, when a
    graph break can resume after it; None when the whole call must run in CPython."""
    if not error.frames or error.frames[-1].depth != 0:
        return None
    root = error.frames[-1]
    code = fn.__code__
    if code.co_flags & _GENERATOR_FLAGS or code.co_cellvars:
        return None
    index = root.ip - 1
    inst = root.instructions[index]
    if not breakable(inst.opname) or in_loop(code, inst.offset):
        return None
    return BreakPoint(index, error)


def breakable(opname: str) -> bool:
    return (
        opname == "CALL"
        or opname == "TO_BOOL"
        or (opname.startswith("POP_JUMP") and opname.endswith(("TRUE", "FALSE")))
    )


def instruction_lines(fn, tx, plan, options) -> tuple[list[str], str, list]:
    """(lines, result expression, resume functions): the entry's code from the
    breaking instruction on, for the root translator ``tx`` stopped before it.
    Raises Unsupported when a value cannot be rebuilt outside the trace."""
    inst = tx.instructions[tx.ip]
    after = tx.instructions[tx.ip + 1].offset
    stack = list(tx.stack)
    if inst.opname == "CALL":
        callee, positional, keywords = _call_parts(stack, inst.arg, tx.kw_names)
        args = [plan.expr(a) for a in positional] + [f"{k}={plan.expr(a)}" for k, a in keywords]
        rest = stack[: len(stack) - inst.arg - 2]
        lines = [f"    {_VALUE} = {plan.expr(callee)}({', '.join(args)})"]
        resume, call = _resume_call(fn, tx, plan, options, after, rest, extra=_VALUE)
        return lines, call, [resume]
    if inst.opname == "TO_BOOL":
        lines = [f"    {_VALUE} = {generated('bool')}({plan.expr(stack[-1])})"]
        resume, call = _resume_call(fn, tx, plan, options, after, stack[:-1], extra=_VALUE)
        return lines, call, [resume]
    condition = plan.expr(stack[-1])
    taken, taken_call = _resume_call(fn, tx, plan, options, inst.argval, stack[:-1])
    fall, fall_call = _resume_call(fn, tx, plan, options, after, stack[:-1])
    negate = "" if inst.opname.endswith("TRUE") else "not "
    lines = [f"    if {negate}{condition}:", f"        return {taken_call}"]
    return lines, fall_call, [taken, fall]


def _call_parts(stack: list, argc: int, kw_names: tuple) -> tuple:
    """(callee, positional arguments, (name, argument) pairs) of a CALL of ``argc``."""
    args = stack[len(stack) - argc :] if argc else []
    first, second = stack[len(stack) - argc - 2], stack[len(stack) - argc - 1]
    if _CALLABLE_FIRST:
        callee, self_value = first, second
    else:
        callee, self_value = (second, None) if isinstance(first, v.NullVariable) else (first, second)
    if self_value is not None and not isinstance(self_value, v.NullVariable):
        args = [self_value] + args
    names = list(kw_names)
    split = len(args) - len(names)
    return callee, args[:split], list(zip(names, args[split:]))


def _resume_call(fn, tx, plan, options, offset: int, stack: list, extra: str | None = None):
    """The resume function at ``offset`` and the expression calling it with the
    locals and ``stack`` (plus ``extra``, an expression pushed last)."""
    code = fn.__code__
    local_exprs, unbound = [], []
    for slot, name in enumerate(code.co_varnames):
        tracker = tx.locals.get(name)
        if tracker is None:
            unbound.append(slot)
            local_exprs.append("None")
        else:
            local_exprs.append(plan.expr(tracker))
    shape = [not isinstance(item, v.NullVariable) for item in stack]
    stack_exprs = [plan.expr(item) for item in stack if not isinstance(item, v.NullVariable)]
    if extra is not None:
        shape.append(True)
        stack_exprs.append(extra)
    resume = resume_function(fn, offset, unbound, shape, options)
    name = plan.ref(resume)
    return resume, f"{name}({', '.join(local_exprs + stack_exprs)})"


def user_reason(fn, tx, error: Unsupported) -> Unsupported:
    """The break's reason in the user's words, located at the breaking line of ``fn``
    (``tx``: the root translator stopped before the instruction)."""
    inst = tx.instructions[tx.ip]
    where = Location(tx.name, fn.__code__.co_filename, tx.line)
    if inst.opname != "CALL":
        code = linecache.getline(where.filename, where.line).strip()
        return Unsupported(f"branch on array data at {where} (`{code}`)", where)
    callee, _, _ = _call_parts(list(tx.stack), inst.arg, tx.kw_names)
    name = _callable_name(callee)
    if len(error.frames) > 1:  # it failed inside a function the call inlined
        inner = error.frames[0].location()
        return Unsupported(f"`{name}` runs in Python: inside it, {error.reason} at {inner}", where)
    if name == "print":
        return Unsupported("`print` is a side effect Ember runs in Python", where)
    if name.startswith("np.") and "is not supported by Ember's NumPy semantics" in error.reason:
        return Unsupported(f"`{name}` is not supported yet", where)
    if name.startswith("np."):
        return Unsupported(f"`{name}` as called here is not supported yet ({error.reason})", where)
    return Unsupported(f"`{name}` is a call Ember runs in Python ({error.reason})", where)


def _callable_name(tracker) -> str:
    obj = getattr(tracker, "fn", None)
    if isinstance(obj, str):  # an array method
        return f"ndarray.{obj}"
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    module = getattr(obj, "__module__", None) or ""
    if module == "numpy" or module.startswith("numpy."):
        return (
            "np."
            + (
                module.removeprefix("numpy").lstrip(".") + "."
                if module != "numpy" and "._" not in module and not module.startswith("numpy._")
                else ""
            )
            + name
        )
    return name
