"""What differs between the CPython bytecodes the tracer reads: one table, one row per version.

The symbolic interpreter (``symbolic_convert.py``) has one method per opcode. An opcode
that exists in only some versions (``PRECALL`` in 3.11, ``RETURN_CONST`` from 3.12,
``TO_BOOL`` from 3.13) simply has its method; it never appears in another version's
bytecode. What this table holds is everything else: the same opcode meaning something
else from one version to the next (the stack layout of a call, the bits of an oparg,
what ``FOR_ITER`` leaves behind), and the differences of the ``dis`` module itself.
Nothing else in the frontend compares ``sys.version_info``; it reads ``current()``.

Sources: ``Doc/library/dis.rst`` and ``Lib/dis.py`` of CPython 3.11, 3.12 and 3.13 (and
``dis.dis`` of each interpreter on the constructs the tests trace).
"""

from __future__ import annotations

import dis
import sys
import types
from dataclasses import dataclass

# The versions whose bytecode is traced. Calls on any other version run in CPython
# (``compile()`` warns once, at decoration time).
SUPPORTED_VERSIONS: tuple[tuple[int, int], ...] = ((3, 11), (3, 12), (3, 13))


@dataclass(frozen=True)
class BytecodeRules:
    """One version's reading of the opcodes the versions share."""

    version: tuple[int, int]

    # -- calls ------------------------------------------------------------------
    # The two slots below a call's arguments. False (3.11, 3.12): ``NULL, callable`` or
    # ``method, self`` (``LOAD_GLOBAL``'s and ``LOAD_ATTR``'s NULL is pushed *before*
    # the value, ``PUSH_NULL`` comes before the callable). True (3.13): ``callable,
    # NULL`` or ``method, self`` -- the callable always sits at the same depth, and the
    # NULL is pushed *after* it. Also decides ``CALL_FUNCTION_EX``'s layout.
    callable_first: bool
    # How a method is loaded for a call: ``LOAD_METHOD`` (3.11), or ``LOAD_ATTR`` with
    # the low bit of its oparg set (3.12+; ``dis`` gives the name as ``argval``).
    load_attr_method_bit: bool
    # ``LOAD_GLOBAL``'s low oparg bit pushes a NULL for a call (3.11+; where it goes is
    # ``callable_first``'s business).
    load_global_null_bit: bool
    # Keyword argument names of a call: ``KW_NAMES`` (an instruction before ``CALL``,
    # 3.11, 3.12) or ``CALL_KW`` (the names tuple on top of the stack, 3.13).
    call_kw_opcode: bool

    # -- comparisons and truth ------------------------------------------------------
    # The oparg bit of ``COMPARE_OP`` that coerces its result to bool (3.13: 16; the
    # operator is ``oparg >> 5``, 3.12: ``oparg >> 4``, 3.11: ``oparg``; ``dis`` decodes
    # the operator into ``argval`` in every version). 0: no such bit.
    compare_bool_bit: int

    # -- loops ------------------------------------------------------------------------
    # What an exhausted ``FOR_ITER`` does: it pops the iterator and jumps to its target
    # (3.11), which from 3.12 on is an ``END_FOR`` the interpreter skips -- 3.12 skips
    # ``END_FOR`` (1 instruction), 3.13 skips ``END_FOR`` and the ``POP_TOP`` after it
    # (2). ``dis.rst`` describes the same thing the other way round: the iterator stays
    # and ``END_FOR`` pops it.
    for_iter_exit_skip: int
    # The values ``END_FOR`` pops when it does run: 2 in 3.12 (the value and the
    # iterator), 1 in 3.13 (a ``POP_TOP`` follows for the iterator); 0: no ``END_FOR``.
    end_for_pops: int

    # -- functions, closures, comprehensions --------------------------------------------
    # ``MAKE_FUNCTION``'s oparg flags pop defaults (0x01), keyword defaults (0x02),
    # annotations (0x04) and the closure (0x08) below the code object (3.11, 3.12). In
    # 3.13 ``MAKE_FUNCTION`` takes only the code; ``SET_FUNCTION_ATTRIBUTE flag`` sets
    # each attribute after it.
    make_function_flags: bool
    # 3.13 assembles the pseudo-instruction ``LOAD_CLOSURE`` as ``LOAD_FAST``: a cell
    # variable's slot holds the cell, which ``LOAD_FAST`` pushes to build a closure.
    closure_by_load_fast: bool
    # PEP 709 (3.12+): list, dict and set comprehensions run in the function's own
    # frame (``LOAD_FAST_AND_CLEAR`` saves the iteration variables, ``STORE_FAST``
    # restores them, possibly to unbound) instead of calling a nested ``<listcomp>``.
    comprehensions_inlined: bool
    # f-strings: ``FORMAT_VALUE`` with conversion/spec flags (3.11, 3.12), or
    # ``CONVERT_VALUE``, ``FORMAT_SIMPLE`` and ``FORMAT_WITH_SPEC`` (3.13).
    format_value_split: bool

    # -- the ``dis`` module ----------------------------------------------------------
    # ``Instruction.starts_line``: the line number or None (3.11, 3.12), a bool with the
    # number in ``Instruction.line_number`` (3.13). ``instructions()`` hands out the
    # 3.11 form in every version.
    line_number_field: bool

    # -- opcodes (over the previous row; ``test_bytecode_versions`` checks them against
    # ``dis.opmap``) -----------------------------------------------------------------
    added: frozenset = frozenset()  # new opcodes the tracer has a method for
    removed: frozenset = frozenset()  # opcodes of the previous row the compiler no longer emits


RULES: dict[tuple[int, int], BytecodeRules] = {
    (3, 11): BytecodeRules(
        version=(3, 11),
        callable_first=False,
        load_attr_method_bit=False,
        load_global_null_bit=True,
        call_kw_opcode=False,
        compare_bool_bit=0,
        for_iter_exit_skip=0,
        end_for_pops=0,
        make_function_flags=True,
        closure_by_load_fast=False,
        comprehensions_inlined=False,
        format_value_split=False,
        line_number_field=False,
    ),
    (3, 12): BytecodeRules(
        version=(3, 12),
        callable_first=False,
        load_attr_method_bit=True,
        load_global_null_bit=True,
        call_kw_opcode=False,
        compare_bool_bit=0,
        for_iter_exit_skip=1,
        end_for_pops=2,
        make_function_flags=True,
        closure_by_load_fast=False,
        comprehensions_inlined=True,
        format_value_split=False,
        line_number_field=False,
        added=frozenset(
            {
                "RETURN_CONST",
                "LOAD_FAST_CHECK",
                "LOAD_FAST_AND_CLEAR",
                "END_FOR",
                "BINARY_SLICE",
                "STORE_SLICE",
                "CALL_INTRINSIC_1",
                "POP_JUMP_IF_TRUE",
                "POP_JUMP_IF_FALSE",
                "POP_JUMP_IF_NONE",
                "POP_JUMP_IF_NOT_NONE",
                "LOAD_SUPER_ATTR",
            }
        ),
        removed=frozenset(
            {
                "PRECALL",
                "LOAD_METHOD",
                "LIST_TO_TUPLE",  # CALL_INTRINSIC_1 INTRINSIC_LIST_TO_TUPLE
                "UNARY_POSITIVE",  # CALL_INTRINSIC_1 INTRINSIC_UNARY_POSITIVE
                "JUMP_IF_TRUE_OR_POP",
                "JUMP_IF_FALSE_OR_POP",
                "POP_JUMP_FORWARD_IF_TRUE",
                "POP_JUMP_FORWARD_IF_FALSE",
                "POP_JUMP_FORWARD_IF_NONE",
                "POP_JUMP_FORWARD_IF_NOT_NONE",
                "POP_JUMP_BACKWARD_IF_TRUE",
                "POP_JUMP_BACKWARD_IF_FALSE",
                "POP_JUMP_BACKWARD_IF_NONE",
                "POP_JUMP_BACKWARD_IF_NOT_NONE",
            }
        ),
    ),
    (3, 13): BytecodeRules(
        version=(3, 13),
        callable_first=True,
        load_attr_method_bit=True,
        load_global_null_bit=True,
        call_kw_opcode=True,
        compare_bool_bit=16,
        for_iter_exit_skip=2,
        end_for_pops=1,
        make_function_flags=False,
        closure_by_load_fast=True,
        comprehensions_inlined=True,
        format_value_split=True,
        line_number_field=True,
        added=frozenset(
            {
                "LOAD_FAST_LOAD_FAST",
                "STORE_FAST_LOAD_FAST",
                "STORE_FAST_STORE_FAST",
                "TO_BOOL",
                "CALL_KW",
                "SET_FUNCTION_ATTRIBUTE",
                "CONVERT_VALUE",
                "FORMAT_SIMPLE",
                "FORMAT_WITH_SPEC",
            }
        ),
        removed=frozenset({"KW_NAMES", "FORMAT_VALUE", "LOAD_CLOSURE"}),  # LOAD_CLOSURE: a pseudo-op (LOAD_FAST)
    ),
}

# ``CALL_INTRINSIC_1`` (3.12+) functions the tracer runs, by the name ``dis`` gives as argrepr.
INTRINSIC_LIST_TO_TUPLE = "INTRINSIC_LIST_TO_TUPLE"
INTRINSIC_UNARY_POSITIVE = "INTRINSIC_UNARY_POSITIVE"

# ``CONVERT_VALUE`` (3.13) and ``FORMAT_VALUE``'s low two bits (3.11, 3.12): the conversion.
CONVERSIONS = {1: str, 2: repr, 3: ascii}


def version_of(version_info=None) -> tuple[int, int]:
    return tuple((version_info or sys.version_info)[:2])


def rules_for(version_info=None) -> BytecodeRules | None:
    """The table's row for ``version_info`` (default: this interpreter); None when unsupported."""
    version = version_of(version_info)
    return RULES.get(version) if version in SUPPORTED_VERSIONS else None


def current() -> BytecodeRules:
    """This interpreter's row (the tracer runs only where there is one)."""
    rules = rules_for()
    if rules is None:
        raise RuntimeError(f"Python {describe(version_of())} bytecode is not traced ({describe_supported()} are)")
    return rules


def describe(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def describe_supported() -> str:
    names = [describe(v) for v in SUPPORTED_VERSIONS]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def unsupported_reason(version_info=None) -> str | None:
    """Why this interpreter's bytecode is not traced (None: it is)."""
    if rules_for(version_info) is not None:
        return None
    return f"Python {describe(version_of(version_info))} bytecode (the tracer reads {describe_supported()}'s)"


def instructions(code: types.CodeType) -> list[dis.Instruction]:
    """``code``'s instructions as ``dis`` gives them, with ``starts_line`` in its 3.11/3.12
    meaning in every version: the line number an instruction starts, else None."""
    found = list(dis.get_instructions(code))
    if not current().line_number_field:
        return found
    return [i._replace(starts_line=i.line_number if i.starts_line else None) for i in found]
