"""Resume functions: the rest of a function after a graph break, as a new code object.

When tracing stops at an instruction Ember cannot capture (a ``print``, a branch on
array data), the cache entry runs the graph traced so far, runs that instruction in
CPython, then calls a *resume function*: the original function's own bytecode,
entered at the instruction after the break. Its code object is the original one
with a short prologue in front::

    [COPY_FREE_VARS n]         as the original begins (a closure's cells)
    RESUME 0
    DELETE_FAST i ...          the locals that were unbound at the break
    PUSH_NULL / LOAD_FAST s    rebuild the value stack, bottom first
    JUMP_FORWARD               into the original bytecode, at the resume offset
    <the original bytecode, unchanged>

Its parameters are the original function's local variables, in ``co_varnames``
order (so every ``LOAD_FAST`` of the original still names the right slot), then
one per value on the stack (``stack0``..., underscored until no local has the name);
the slots of its cells and free variables, which follow the locals, move up by as
many. Jumps in 3.11+ bytecode are relative, so the original
instructions need no change; the exception table is shifted by the prologue's
length, and the line table gets a no-location entry for the prologue, so
tracebacks and ``co_positions`` point at the user's lines. The resume function is
compiled like any other (its own guards, cache entries and recompile limit) and
may break again.
"""

from __future__ import annotations

import dis
import inspect
import types

from compiler import logs
from compiler.errors import Unsupported

_NO_LOCATION = 15  # the line table's "no location" entry kind (3.11+)


def _op(name: str, arg: int = 0) -> bytes:
    """One instruction with its EXTENDED_ARG prefixes (none of the prologue's
    instructions has inline cache entries)."""
    code = dis.opmap[name]
    out = b""
    for shift in (24, 16, 8):
        if arg >> shift:
            out += bytes([dis.opmap["EXTENDED_ARG"], (arg >> shift) & 0xFF])
    return out + bytes([code, arg & 0xFF])


def prologue(code: types.CodeType, offset: int, unbound: list[int], stack: list[bool]) -> bytes:
    """The instructions in front of ``code``: ``unbound`` local slots deleted, the
    stack rebuilt (``stack[i]`` false for a NULL), then a jump to byte ``offset`` of
    the original code that follows."""
    out = b""
    if code.co_freevars:
        out += _op("COPY_FREE_VARS", len(code.co_freevars))
    out += _op("RESUME", 0)
    for slot in unbound:
        out += _op("DELETE_FAST", slot)
    arg = len(code.co_varnames)
    for real in stack:
        if real:
            out += _op("LOAD_FAST", arg)
            arg += 1
        else:
            out += _op("PUSH_NULL")
    return out + _op("JUMP_FORWARD", offset // 2)  # counted from its own end, prefixes or not


def _read_varint(data: bytes, i: int) -> tuple[int, int]:
    byte = data[i]
    value = byte & 63
    while byte & 64:
        i += 1
        byte = data[i]
        value = (value << 6) | (byte & 63)
    return value, i + 1


def _write_varint(value: int) -> bytes:
    chunks = [value & 63]
    value >>= 6
    while value:
        chunks.append(value & 63)
        value >>= 6
    return bytes([(c | 64) if k < len(chunks) - 1 else c for k, c in enumerate(reversed(chunks))])


def shift_exception_table(table: bytes, units: int) -> bytes:
    """The exception table with every start and target moved ``units`` code units on.
    Entries are (start, length, target, depth << 1 | lasti), varints of 6-bit chunks;
    the first byte of an entry has bit 7 set."""
    out, i = b"", 0
    while i < len(table):
        start, i = _read_varint(table, i)
        length, i = _read_varint(table, i)
        target, i = _read_varint(table, i)
        depth_lasti, i = _read_varint(table, i)
        first = _write_varint(start + units)
        out += bytes([first[0] | 128]) + first[1:]
        out += _write_varint(length) + _write_varint(target + units) + _write_varint(depth_lasti)
    return out


def _no_location(units: int) -> bytes:
    """Line table entries saying the first ``units`` code units have no location."""
    out = b""
    while units:
        n = min(units, 8)
        out += bytes([0x80 | (_NO_LOCATION << 3) | (n - 1)])
        units -= n
    return out


def _shift_cell_slots(code: types.CodeType, added: int) -> bytes | None:
    """``code.co_code`` with the cell and free variable slots of its ``*_DEREF``-style
    instructions moved ``added`` on: they index the frame's locals, then its cells,
    then its free variables, and the resume function has ``added`` more locals.
    None where a slot needs a wider argument (the instruction would grow, and every
    jump across it would change)."""
    data = bytearray(code.co_code)
    first_cell = len(code.co_varnames)
    previous = None
    for inst in dis.get_instructions(code):
        if inst.opcode in dis.hasfree and inst.arg >= first_cell:
            if inst.arg + added > 255 or (previous is not None and previous.opname == "EXTENDED_ARG"):
                return None
            data[inst.offset + 1] = inst.arg + added
        previous = inst
    return bytes(data)


def resume_code(
    code: types.CodeType, offset: int, unbound: list[int], stack: list[bool], name: str
) -> types.CodeType | None:
    """``code`` entered at byte ``offset`` with ``stack`` (True: a value passed as an
    argument, False: a NULL) on its value stack; see the module docstring. None when
    the closure's slots cannot be renumbered (``_shift_cell_slots``)."""
    body = _shift_cell_slots(code, sum(stack))
    if body is None:
        return None
    front = prologue(code, offset, unbound, stack)
    units = len(front) // 2
    varnames = code.co_varnames
    for i in range(sum(stack)):
        parameter = f"stack{i}"
        while parameter in varnames:  # a parameter name of the generated entry: not the prefixed kind
            parameter = "_" + parameter
        varnames += (parameter,)
    flags = code.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)  # every parameter positional
    resumed = code.replace(
        co_code=front + body,
        co_varnames=varnames,
        co_nlocals=len(varnames),
        co_argcount=len(varnames),
        co_posonlyargcount=0,
        co_kwonlyargcount=0,
        co_flags=flags,
        co_stacksize=code.co_stacksize + len(stack) + 1,
        co_exceptiontable=shift_exception_table(code.co_exceptiontable, units),
        co_linetable=_no_location(units) + code.co_linetable,
        co_name=name,
        co_qualname=name,
    )
    _ENTRY_OFFSETS[resumed] = len(front) + offset
    return resumed


_RESUMES: dict = {}  # (function, offset, unbound, stack, options) -> the compiled resume function


def resume_function(fn, offset: int, unbound: list[int], stack: list[bool], options):
    """The compiled resume function of ``fn`` at byte ``offset`` (one per break point
    and stack shape, shared by every entry that breaks there)."""
    from compiler.frontend.eval_frame import ResumeFunction  # eval_frame imports this module's users

    key = (fn, offset, tuple(unbound), tuple(stack), options)  # fn: its closure and globals too
    found = _RESUMES.get(key)
    if found is None:
        line = line_at(fn.__code__, offset)
        name = f"{fn.__code__.co_name}_resume_at_line_{line}"
        code = resume_code(fn.__code__, offset, unbound, stack, name)
        if code is None:
            raise Unsupported("a graph break in a function with more than 255 local and closure variables")
        plain = types.FunctionType(code, fn.__globals__, name, None, fn.__closure__)
        plain.__qualname__ = f"{fn.__qualname__}.<resume at line {line}>"
        found = _RESUMES[key] = ResumeFunction(plain, options)
        if logs.enabled("bytecode"):
            logs.log("bytecode", "RESUME FUNCTION %s\n%s", plain.__qualname__, dis.Bytecode(code).dis())
    return found


def forget_resume_functions() -> None:
    """Drop every resume function (``compiler.reset()``)."""
    _RESUMES.clear()
    _ENTRY_OFFSETS.clear()


def line_at(code: types.CodeType, offset: int) -> int:
    line = code.co_firstlineno
    for start, number in dis.findlinestarts(code):
        if start > offset:
            break
        line = number if number is not None else line
    return line


def loop_statement(code: types.CodeType, offset: int) -> int | None:
    """The byte offset of the statement starting the outermost loop around byte
    ``offset`` (the line start at or before the loop's head, the target of its
    backward jump); None outside loops."""
    heads = [
        inst.argval
        for inst in dis.get_instructions(code)
        if "BACKWARD" in inst.opname and inst.argval <= offset <= inst.offset
    ]
    if not heads:
        return None
    head = min(heads)
    starts = [start for start, _ in dis.findlinestarts(code) if start <= head]
    return max(starts) if starts else head


_ENTRY_OFFSETS: dict = {}  # resume code object -> the byte offset its prologue jumps to


def is_resume_entry(code: types.CodeType, offset: int) -> bool:
    """Whether ``code`` is a resume function's and ``offset`` where its prologue jumps:
    a break there would resume at the same place again, for ever."""
    return _ENTRY_OFFSETS.get(code) == offset
