"""Load host object code into this process and find its functions.

llvmlite's MCJIT links an object file in memory and resolves its undefined symbols
(``malloc``, ``free``, libm's ``expf``...) against the running process, so a kernel
needs no shared library on disk. Each loaded object keeps its engine alive as long
as any function from it is in use.
"""

from __future__ import annotations

import functools
import threading

import llvmlite.binding as llvm

from compiler.backends.llvm_cpu import blas
from compiler.backends.llvm_cpu.codegen import target_machine

_lock = threading.Lock()


class LoadedObject:
    """One object file linked into the process; ``address(name)`` of its functions."""

    def __init__(self, object_code: bytes):
        blas.register_symbols()
        with _lock:
            self._engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), target_machine())
            self._engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
            self._engine.finalize_object()

    @functools.cache
    def address(self, name: str) -> int:
        addr = self._engine.get_function_address(name)
        if not addr:
            raise LookupError(f"symbol {name!r} not found in the loaded object")
        return addr
