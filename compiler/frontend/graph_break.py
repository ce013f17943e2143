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
   function), a conditional jump on a value the graph computed (``if x.sum() > 0:``),
   or a subscript, operator or attribute store Ember cannot trace (``b[idx] = 0``
   with an index array) — on the values rebuilt from graph outputs, sources and
   constants,
4. returns the resume function's result (``resume.py``), called with the local
   variables and the stack as they are after the instruction. For a jump, the
   entry calls the resume function of the branch taken; each is compiled on its
   first call, so both directions end up compiled.

A failure inside a loop does not break there (the loop would resume once per
iteration, one call deeper each time): the break moves to the statement that starts
the outermost loop around it. The graph holds the work before the loop, the entry
runs nothing of its own, and the resume function, entered at that statement, runs
the loop in CPython (its trace fails inside the loop again, with nothing before it),
as TorchDynamo runs such a frame in CPython; compiled functions the loop calls stay
compiled. Generators, coroutines, functions whose locals are captured by an inner
function (cells), and breaks where a value on the stack or a local cannot be rebuilt
outside the trace (an iterator, say) run in CPython whole, with the reason.
"""

from __future__ import annotations

import linecache
import operator
from dataclasses import dataclass

from compiler.errors import Location, Unsupported
from compiler.frontend import bytecode_versions
from compiler.frontend import variables as v
from compiler.frontend.resume import is_resume_entry, line_at, loop_statement, resume_function
from compiler.frontend.sources import generated

_GENERATOR_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator
_VALUE = generated("V")
# Builtins that read the frame calling them: called from the entry, they would read the
# entry's frame (``super()`` finds no ``__class__`` cell there).
_FRAME_DEPENDENT = {super, locals, vars, dir, eval, exec, globals}


@dataclass
class BreakPoint:
    """Where a trace breaks: the root translator stopped before instruction ``index``.
    ``before_loop``: the failure was inside a loop, and the break is at the statement
    that starts the loop — nothing runs there; the resume function runs the loop."""

    index: int
    reason: Unsupported
    before_loop: bool = False


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
    start = loop_statement(code, inst.offset)
    if start is not None:
        if is_resume_entry(code, start):
            return None  # the loop is all there is: it runs in CPython
        return BreakPoint(root.index_of[start], error, before_loop=True)
    if not breakable(inst.opname):
        return None
    return BreakPoint(index, error)


def breakable(opname: str) -> bool:
    return (
        opname in ("CALL", "CALL_KW", "TO_BOOL")
        or opname in _STACK_OPS
        or (opname.startswith("POP_JUMP") and opname.endswith(("TRUE", "FALSE")))
    )


# Instructions the entry runs as one Python statement on values popped off the stack
# (top last): opname -> (values popped, statement template; {0}, {1}... the values,
# {op} the operator function of the instruction, {name} its name argument). A
# template assigning ``{V}`` pushes that value.
_STACK_OPS = {
    "BINARY_SUBSCR": (2, "{V} = {0}[{1}]"),
    "STORE_SUBSCR": (3, "{1}[{2}] = {0}"),
    "DELETE_SUBSCR": (2, "del {0}[{1}]"),
    "BINARY_OP": (2, "{V} = {op}({0}, {1})"),
    "COMPARE_OP": (2, "{V} = {op}({0}, {1})"),
    "CONTAINS_OP": (2, "{V} = {0} {name} {1}"),
    "UNARY_NEGATIVE": (1, "{V} = -{0}"),
    "UNARY_INVERT": (1, "{V} = ~{0}"),
    "UNARY_NOT": (1, "{V} = not {0}"),
    "STORE_ATTR": (2, "{1}.{name} = {0}"),
}


def _operator(inst):
    """The operator function of a BINARY_OP or COMPARE_OP instruction (``+=``: the
    in-place ``operator.iadd``, as CPython calls ``__iadd__``)."""
    op = str(inst.argrepr).removeprefix("bool(").removesuffix(")")  # 3.13: COMPARE_OP's bool() form
    if op in v.COMPARE_OPERATORS:
        return v.COMPARE_OPERATORS[op]
    if op.endswith("="):
        return getattr(operator, "i" + v.BINARY_OPERATORS[op[:-1]].__name__.rstrip("_"))
    return v.BINARY_OPERATORS[op]


def instruction_lines(fn, point: BreakPoint, tx, plan, options) -> tuple[list[str], str, list]:
    """(lines, result expression, resume functions): the entry's code from the
    breaking instruction on, for the root translator ``tx`` stopped before it.
    Raises Unsupported when a value cannot be rebuilt outside the trace."""
    inst = tx.instructions[tx.ip]
    after = tx.instructions[tx.ip + 1].offset
    stack = list(tx.stack)
    if point.before_loop:
        resume, call = _resume_call(fn, tx, plan, options, inst.offset, stack)
        return [], call, [resume]
    if inst.opname in ("CALL", "CALL_KW"):
        stack, callee, positional, keywords = _call_parts(tx, inst)
        if _callee_object(callee) in _FRAME_DEPENDENT:
            raise Unsupported(f"`{callee}` reads the calling frame: it cannot run from a graph break's entry")
        args = [plan.expr(a) for a in positional] + [f"{k}={plan.expr(a)}" for k, a in keywords]
        rest = stack[: len(stack) - inst.arg - 2]
        lines = [f"    {_VALUE} = {plan.expr(callee)}({', '.join(args)})"]
        resume, call = _resume_call(fn, tx, plan, options, after, rest, extra=_VALUE)
        return lines, call, [resume]
    if inst.opname in _STACK_OPS:
        popped, template = _STACK_OPS[inst.opname]
        values = [plan.expr(item) for item in stack[len(stack) - popped :]]
        fields = {
            "V": _VALUE,
            "name": ("not in" if inst.arg else "in") if inst.opname == "CONTAINS_OP" else inst.argval,
        }
        if "{op}" in template:
            fields["op"] = plan.ref(_operator(inst))
            if str(inst.argrepr).startswith("bool("):  # 3.13: a comparison that converts to bool
                template = "{V} = " + generated("bool") + "({op}({0}, {1}))"
        statement = template.format(*values, **fields)
        pushes = template.startswith("{V}")
        rest = stack[: len(stack) - popped]
        resume, call = _resume_call(fn, tx, plan, options, after, rest, extra=_VALUE if pushes else None)
        return [f"    {statement}"], call, [resume]
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


def _call_parts(tx, inst) -> tuple:
    """(the stack below the keyword names, callee, positional arguments, (name,
    argument) pairs) of the CALL or CALL_KW ``inst`` the translator ``tx`` stopped at."""
    stack, kw_names, argc = list(tx.stack), tx.kw_names, inst.arg
    if inst.opname == "CALL_KW":  # 3.13: the keyword names are a tuple on top of the stack
        kw_names, stack = stack[-1].as_constant(), stack[:-1]
    args = stack[len(stack) - argc :] if argc else []
    first, second = stack[len(stack) - argc - 2], stack[len(stack) - argc - 1]
    if bytecode_versions.current().callable_first:  # the stack layout of a call differs
        callee, self_value = first, second
    else:
        callee, self_value = (second, None) if isinstance(first, v.NullVariable) else (first, second)
    if self_value is not None and not isinstance(self_value, v.NullVariable):
        args = [self_value] + args
    names = list(kw_names)
    split = len(args) - len(names)
    return stack, callee, args[:split], list(zip(names, args[split:]))


def _resume_call(fn, tx, plan, options, offset: int, stack: list, extra: str | None = None):
    """The resume function at ``offset`` and the expression calling it with the
    locals and ``stack`` (plus ``extra``, an expression pushed last)."""
    locals_ = [tx.locals.get(name) for name in fn.__code__.co_varnames]  # None: unbound
    _no_shared_new_containers([t for t in locals_ if t is not None] + stack)
    unbound = [slot for slot, t in enumerate(locals_) if t is None]
    local_exprs = ["None" if t is None else plan.expr(t) for t in locals_]
    shape = [not isinstance(item, v.NullVariable) for item in stack]
    stack_exprs = [plan.expr(item) for item in stack if not isinstance(item, v.NullVariable)]
    if extra is not None:
        shape.append(True)
        stack_exprs.append(extra)
    resume = resume_function(fn, offset, unbound, shape, options)
    name = plan.ref(resume)
    return resume, f"{name}({', '.join(local_exprs + stack_exprs)})"


def user_reason(fn, point: BreakPoint, tx) -> Unsupported:
    """The break's reason in the user's words, located at the breaking line of ``fn``
    (``tx``: the root translator stopped before the instruction)."""
    error = point.reason
    inst = tx.instructions[tx.ip]
    where = Location(tx.name, fn.__code__.co_filename, line_at(fn.__code__, inst.offset))
    if point.before_loop:
        inner = f"{error.reason} at {error.location}"
        return Unsupported(f"the loop starting at line {where.line} runs in Python (inside it: {inner})", where)
    code = linecache.getline(where.filename, where.line).strip()
    if inst.opname in _STACK_OPS:
        return Unsupported(f"`{code}` runs in Python: {error.reason.removeprefix('NumPy operation: ')}", where)
    if inst.opname not in ("CALL", "CALL_KW"):
        return Unsupported(f"branch on array data at {where} (`{code}`)", where)
    name = _callable_name(_call_parts(tx, inst)[1])
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


def _callee_object(tracker):
    """The Python object a callee tracker stands for (a method name for an array's)."""
    return getattr(tracker, "fn", None) or getattr(tracker, "cls", None) or getattr(tracker, "value", None)


def _callable_name(tracker) -> str:
    """``print``, ``np.std``, ``np.linalg.norm``: as the user would write it."""
    obj = _callee_object(tracker)
    if isinstance(obj, str):  # an array method
        return f"ndarray.{obj}"
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    module = getattr(obj, "__module__", None) or ""
    if module != "numpy" and not module.startswith("numpy."):
        return name
    public = module.removeprefix("numpy").lstrip(".")  # numpy.linalg -> linalg
    if not public or public.startswith("_") or "._" in public:  # numpy itself, or a private module
        return f"np.{name}"
    return f"np.{public}.{name}"


def _no_shared_new_containers(values: list) -> None:
    """A list or dict made by the traced code is rebuilt as a new object for the
    resume function; two variables holding the same one would then hold two."""
    seen = set()
    for value in values:
        if isinstance(value, (v.ListVariable, v.DictVariable)) and value.source is None:
            if id(value) in seen:
                raise Unsupported(f"{value} made before a graph break and held by two variables")
            seen.add(id(value))
