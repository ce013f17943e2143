"""The loops ``ember-fork-loops`` moved out of a module's functions, as the glue that
runs them on the worker pool needs them (``runtime/entry_glue.py``, ``fork_glue``):
read from the fork declarations before the module is lowered to the LLVM dialect.
"""

from __future__ import annotations

from compiler.mlir import functions, ir, symbol_name
from runtime import abi


def loop_forks(module: ir.Module) -> list[tuple[str, str, list[str]]]:
    """``(fork, forked function, argument types)`` of each loop fork the module's
    functions call (``ember-fork-loops``), as ``entry_glue.fork_glue`` takes them."""
    forks = []
    for fn in functions(module, declarations=True):
        name = symbol_name(fn)
        if name.startswith(abi.FORK_PREFIX) and not len(fn.regions[0].blocks):
            inputs = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).inputs[:-1]
            forks.append((name, abi.forked_of(name), [_c_type(t) for t in inputs]))
    return forks


def _c_type(t: ir.Type) -> str:
    """How MLIR's C interface passes an argument of type ``t``."""
    if isinstance(t, ir.MemRefType):
        return "ptr"
    if isinstance(t, ir.IndexType):
        return "i64"
    if isinstance(t, (ir.F32Type, ir.F64Type)):
        return "float" if isinstance(t, ir.F32Type) else "double"
    return f"i{ir.IntegerType(t).width}"
